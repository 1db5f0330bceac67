package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func cliOSVZip(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "wrappers", "vulndb", "osv", "npm")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(src, e.Name()))
		w, _ := zw.Create(e.Name())
		w.Write(b)
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "all.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// `scand vulndb import` verifies the archive against a checksum file,
// installs it under SVC_VULNDB_DIR, and `scand status` then shows its age.
func TestVulnDBCommand(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SVC_VULNDB_DIR": dir}
	getenv := func(k string) string { return env[k] }
	archive := cliOSVZip(t)
	data, _ := os.ReadFile(archive)
	sum := sha256.Sum256(data)
	sumFile := archive + ".sha256"
	os.WriteFile(sumFile, []byte(hex.EncodeToString(sum[:])+"  all.zip\n"), 0o600)

	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"vulndb", "import", archive, sumFile}, getenv, &out, &errOut); err != nil {
		t.Fatalf("import: %v (%s)", err, errOut.String())
	}
	if !strings.Contains(out.String(), "osv/npm") || !strings.Contains(out.String(), "sha256 verified") {
		t.Errorf("import printed %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "osv", "osv-scalibr", "npm", "all.zip")); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"status"}, getenv, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "osv/npm") || !strings.Contains(out.String(), "days") || !strings.Contains(out.String(), "imported") {
		t.Errorf("status printed %q", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"vulndb", "list", "-json"}, getenv, &out, &errOut); err != nil || !strings.Contains(out.String(), `"name": "osv/npm"`) {
		t.Errorf("list -json: %v %q", err, out.String())
	}

	// A wrong checksum is a failure (exit 1) and installs nothing new.
	os.WriteFile(sumFile, []byte(strings.Repeat("0", 64)+"  all.zip\n"), 0o600)
	err := run(context.Background(), []string{"vulndb", "import", archive, sumFile}, getenv, &out, &errOut)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Errorf("bad checksum: %v (exit %d)", err, exitCode(err))
	}
	// Usage errors exit 2.
	for _, args := range [][]string{{"vulndb"}, {"vulndb", "import"}, {"vulndb", "frobnicate"}, {"vulndb", "import", "-sha256", "ab", archive, archive}} {
		if err := run(context.Background(), args, getenv, &out, &errOut); exitCode(err) != 2 {
			t.Errorf("%v: err %v exit %d, want 2", args, err, exitCode(err))
		}
	}
}

// `scand status` with SVC_OSV_DB naming an old data set, packed today:
// the data's own date, its real age and the stale warning.
func TestStatusOldOSVData(t *testing.T) {
	osvDir := t.TempDir()
	zipPath := filepath.Join(osvDir, "osv-scalibr", "npm", "all.zip")
	if err := os.MkdirAll(filepath.Dir(zipPath), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("GHSA-old.json") // entry time: now
	w.Write([]byte(`{"id":"GHSA-old","modified":"2023-02-10T00:00:00Z","affected":[{"package":{"ecosystem":"npm","name":"x"}}]}`))
	zw.Close()
	if err := os.WriteFile(zipPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SVC_OSV_DB": osvDir, "SVC_VULNDB_DIR": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"status"}, getenv, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "2023-02-10") || !strings.Contains(s, "(STALE)") || !strings.Contains(s, "warning: osv/npm data of osv-scanner is ") ||
		strings.Contains(s, " 0.0 days") {
		t.Errorf("status printed %q", s)
	}
}
