package api

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/notify"
	"scand/scan"
	"scand/scan/vulndb"
	"scand/store"
)

// osvZip is an OSV npm all.zip built from the committed fixture records.
func osvZip(t *testing.T) []byte {
	t.Helper()
	dir := filepath.Join("..", "testdata", "wrappers", "vulndb", "osv", "npm")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		w, _ := zw.Create(e.Name())
		w.Write(b)
	}
	zw.Close()
	return buf.Bytes()
}

func upload(t *testing.T, h *scanHarness, query string, body []byte, key string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", h.srv.URL+"/api/v1/vulndb/import"+query, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/zip")
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return resp.StatusCode, out.Bytes()
}

func TestVulnDBImportRoute(t *testing.T) {
	dir := t.TempDir()
	h := newScanHarness(t, nil, func(d *Deps) {
		d.VulnDB = VulnDBConfig{Dir: dir, MaxUpload: 4 << 20, MaxAge: 7 * 24 * time.Hour}
	})
	archive := osvZip(t)
	sum := sha256.Sum256(archive)
	code, out := upload(t, h, "?name=all.zip&sha256="+hex.EncodeToString(sum[:]), archive, "")
	if code != 201 {
		t.Fatalf("import = %d %s", code, out)
	}
	var info vulndb.Info
	json.Unmarshal(out, &info)
	if info.Name != "osv/npm" || info.BuiltAt == nil || info.AgeDays == nil || info.Source != "imported" {
		t.Errorf("import answered %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "osv", "osv-scalibr", "npm", "all.zip")); err != nil {
		t.Errorf("not installed: %v", err)
	}
	// Listed, with its age, by GET /vulndb and GET /dashboard/status.
	for _, path := range []string{"/api/v1/vulndb", "/api/v1/dashboard/status"} {
		code, out, _ := h.do("GET", path, nil)
		if code != 200 || !strings.Contains(string(out), `"name":"osv/npm"`) || !strings.Contains(string(out), `"age_days":`) {
			t.Errorf("%s = %d %s", path, code, out)
		}
	}
	// Refusals: a wrong checksum, not an archive, too large, a bad checksum parameter.
	for _, c := range []struct {
		query string
		body  []byte
		code  int
	}{
		{"?sha256=" + strings.Repeat("0", 64), archive, 422},
		{"", []byte("not an archive at all"), 422},
		{"", bytes.Repeat([]byte("x"), 5<<20), 413},
		{"?sha256=xyz", archive, 422},
	} {
		if code, out := upload(t, h, c.query, c.body, ""); code != c.code {
			t.Errorf("import %q (%d bytes) = %d %s, want %d", c.query, len(c.body), code, out, c.code)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "incoming")); len(entries) != 0 {
		t.Errorf("uploads left behind: %v", entries)
	}
	// Admin only.
	_, reader := newAPIKey(t, h.store, "read", "write")
	if code, _ := upload(t, h, "", archive, reader); code != 403 {
		t.Errorf("a write key imported: %d", code)
	}
}

func newAPIKey(t *testing.T, st *store.Store, scopes ...string) (string, string) {
	t.Helper()
	e := &apiEnv{t: t, store: st}
	return e.issueKey(scopes...)
}

// dataScanner is a dependency scanner that read offline data built at
// builtAt.
type dataScanner struct{ builtAt time.Time }

func (dataScanner) Name() string                                     { return "trivy" }
func (dataScanner) Type() string                                     { return scan.TypeDependency }
func (dataScanner) Available(context.Context) (string, string, bool) { return "0.74.0", "", true }
func (dataScanner) Scan(context.Context, scan.Target) ([]finding.Finding, error) {
	return []finding.Finding{{Scanner: "trivy", ScanType: scan.TypeDependency, Severity: finding.High, Title: "CVE-1", RuleID: "CVE-1", FilePath: "package-lock.json"}}, nil
}
func (d dataScanner) DataSources(context.Context) []vulndb.Info {
	b := d.builtAt
	return []vulndb.Info{{Name: "trivy", Tool: "trivy", Path: "/var/lib/scand/vulndb/trivy", Source: "imported", BuiltAt: &b}}
}

// A scan records the age of the advisory data it used: summary field and
// warnings, SARIF run.properties, the HTML report; data older than the
// maximum age also makes a notification.
func TestScanRecordsDataAge(t *testing.T) {
	built := time.Now().Add(-330 * 24 * time.Hour).UTC().Truncate(time.Second)
	h := newScanHarness(t, []scan.Scanner{dataScanner{builtAt: built}}, nil)
	notes := notify.New(notify.Config{Store: h.store})
	if err := notes.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.bus.AddSink("notifications", notes.Sink)
	t.Cleanup(func() { notes.Stop(time.Second) })

	v := h.startScan(map[string]any{"target_path": writeTree(t, map[string]string{"package-lock.json": "{}"}), "scan_types": []string{"dependency"}})
	h.waitStatus(v.ID, "completed")

	_, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/summary", nil)
	var sum ScanSummary
	json.Unmarshal(out, &sum)
	if len(sum.VulnDB) != 1 || !sum.VulnDB[0].Stale || sum.VulnDB[0].AgeDays == nil || *sum.VulnDB[0].AgeDays < 329 ||
		len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0], "330 days old") {
		t.Fatalf("summary = %s", out)
	}
	_, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/report?format=sarif", nil)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Name string }
			}
			Properties map[string][]store.ScanDataSource
		}
	}
	json.Unmarshal(out, &log)
	if len(log.Runs) != 1 || len(log.Runs[0].Properties["scand/vulndb"]) != 1 || log.Runs[0].Properties["scand/vulndb"][0].BuiltAt == nil {
		t.Errorf("SARIF runs = %+v", log.Runs)
	}
	_, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/report", nil)
	if !strings.Contains(string(out), "Advisory data") || !strings.Contains(string(out), built.Format("2006-01-02")) || !strings.Contains(string(out), "330 days old") {
		t.Errorf("HTML report lacks the advisory data section")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ns, err := h.store.Notifications(context.Background(), false, 50)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, n := range ns {
			if strings.Contains(n.Title, "Stale advisory data") && n.ScanID == v.ID {
				found = true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stale-data notification; got %+v", ns)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Fresh data: recorded, no warning.
	h2 := newScanHarness(t, []scan.Scanner{dataScanner{builtAt: time.Now().Add(-24 * time.Hour)}}, nil)
	v2 := h2.startScan(map[string]any{"target_path": writeTree(t, map[string]string{"a": "b"}), "scan_types": []string{"dependency"}})
	h2.waitStatus(v2.ID, "completed")
	_, out, _ = h2.do("GET", "/api/v1/scans/"+v2.ID+"/summary", nil)
	json.Unmarshal(out, &sum)
	if len(sum.VulnDB) != 1 || sum.VulnDB[0].Stale || len(sum.Warnings) != 0 {
		t.Errorf("fresh data summary = %s", out)
	}
}
