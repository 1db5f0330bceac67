package wrapped

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"scand/scan"
)

// TestSBOMArgs: osv-scanner gets the documents whose ecosystem has data
// (the others are a skipped part naming their sources), trivy one
// document with every offline flag.
func TestSBOMArgs(t *testing.T) {
	db := t.TempDir()
	if err := os.MkdirAll(filepath.Join(db, "osv-scalibr", "npm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(db, "osv-scalibr", "npm", "all.zip"), []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []scan.SBOMFile{{Path: "/w/0.cdx.json", Source: "web/package-lock.json", Ecosystem: "npm"},
		{Path: "/w/1.cdx.json", Source: "api/poetry.lock", Ecosystem: "PyPI"}}
	c := &call{db: db}
	args, err := osvSBOMArgs(c, files)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(args, "--offline") || !slices.Contains(args, "/w/0.cdx.json") || slices.Contains(args, "/w/1.cdx.json") {
		t.Fatalf("osv-scanner args: %v", args)
	}
	if len(c.skipped) != 1 || c.skipped[0].Part != "PyPI" || c.skipped[0].Reason != scan.SkipDatabaseNotConfigured || c.skipped[0].Paths[0] != "api/poetry.lock" {
		t.Fatalf("skipped: %+v", c.skipped)
	}
	if _, err := osvSBOMArgs(&call{db: db}, files[1:]); err != errNothingToScan {
		t.Fatalf("no document with data: %v", err)
	}
	targs, _ := trivySBOMArgs(&call{db: db}, files[:1])
	joined := strings.Join(targs, " ")
	for _, want := range []string{"sbom ", "--offline-scan", "--skip-db-update", "--skip-java-db-update", "--cache-backend memory", "--config /dev/null", "/w/0.cdx.json"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("trivy args lack %q: %s", want, joined)
		}
	}
}
