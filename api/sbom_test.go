package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const sbomTestLock = `{
  "name": "shop",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {"name": "shop", "version": "1.0.0", "dependencies": {"lodash": "^4.17.20"}},
    "node_modules/lodash": {"version": "4.17.20", "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.20.tgz", "license": "MIT"}
  }
}
`

func TestSBOMEndpoint(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	dir := writeTree(t, map[string]string{"package-lock.json": sbomTestLock})
	v := h.startScan(map[string]any{"target_path": dir, "scan_types": []string{"dependency"}})
	h.waitStatus(v.ID, "completed")

	code, cdx, hdr := h.do("GET", "/api/v1/scans/"+v.ID+"/sbom", nil)
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/vnd.cyclonedx+json") {
		t.Fatalf("cyclonedx: %d %s %s", code, hdr.Get("Content-Type"), cdx)
	}
	var doc struct {
		BomFormat   string `json:"bomFormat"`
		SpecVersion string `json:"specVersion"`
		Metadata    struct {
			Timestamp string `json:"timestamp"`
		} `json:"metadata"`
		Components []struct {
			Name, Version, Purl string
		} `json:"components"`
	}
	if err := json.Unmarshal(cdx, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.BomFormat != "CycloneDX" || doc.SpecVersion != "1.5" || len(doc.Components) != 1 || doc.Components[0].Purl != "pkg:npm/lodash@4.17.20" {
		t.Fatalf("unexpected BOM: %s", cdx)
	}
	if ts, err := time.Parse(time.RFC3339, doc.Metadata.Timestamp); err != nil || ts.IsZero() {
		t.Errorf("timestamp %q", doc.Metadata.Timestamp)
	}

	// Captured at scan time: changing the tree changes nothing.
	os.Remove(filepath.Join(dir, "package-lock.json"))
	if _, again, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/sbom?format=cyclonedx", nil); string(again) != string(cdx) {
		t.Fatalf("SBOM changed after the tree changed or between fetches")
	}

	code, spdx, hdr := h.do("GET", "/api/v1/scans/"+v.ID+"/sbom?format=spdx", nil)
	if code != 200 || hdr.Get("Content-Type") != "application/spdx+json" || !strings.Contains(string(spdx), `"spdxVersion": "SPDX-2.3"`) || !strings.Contains(string(spdx), "pkg:npm/lodash@4.17.20") {
		t.Fatalf("spdx: %d %s", code, spdx)
	}

	if code, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/sbom?format=swid", nil); code != 422 || !strings.Contains(string(out), `["query","format"]`) {
		t.Errorf("bad format: %d %s", code, out)
	}
	if code, _, _ := h.do("GET", "/api/v1/scans/00000000-0000-7000-8000-000000000000/sbom", nil); code != 404 {
		t.Errorf("unknown scan: %d", code)
	}

	empty := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"iac"}})
	h.waitStatus(empty.ID, "completed")
	code, out, _ := h.do("GET", "/api/v1/scans/"+empty.ID+"/sbom", nil)
	if code != 200 || !strings.Contains(string(out), `"bomFormat": "CycloneDX"`) {
		t.Errorf("empty tree SBOM: %d %s", code, out)
	}
}

func TestSBOMPinnedClock(t *testing.T) {
	pinned := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := newScanHarness(t, lifecycleRegistry(), func(d *Deps) { d.OutputNow = func() time.Time { return pinned } })
	v := h.startScan(map[string]any{"target_path": writeTree(t, map[string]string{"package-lock.json": sbomTestLock}), "scan_types": []string{"dependency"}})
	h.waitStatus(v.ID, "completed")
	_, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/sbom", nil)
	if !strings.Contains(string(out), `"timestamp": "2026-01-02T03:04:05Z"`) {
		t.Fatalf("SVC_FAKE_NOW not used: %s", out)
	}
}
