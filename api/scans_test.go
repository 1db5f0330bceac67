package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/auth"
	"scand/finding"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/proc"
	"scand/sse"
	"scand/store"
)

// lifecycleScanner is a test-only scanner: it reports one finding per
// line containing "VULN" in every .txt file of the target.
type lifecycleScanner struct {
	name, typ string
	missing   bool
	cwe       finding.CWE
	scanErr   error
}

func (f lifecycleScanner) Name() string { return f.name }
func (f lifecycleScanner) Type() string { return f.typ }
func (f lifecycleScanner) Available(context.Context) (string, string, bool) {
	if f.missing {
		return "", "apt-get install " + f.name, false
	}
	return "1.0", "", true
}
func (f lifecycleScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	if f.scanErr != nil {
		return nil, f.scanErr
	}
	var out []finding.Finding
	err := filepath.WalkDir(t.Path, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txt") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(t.Path, p)
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "VULN") {
				cwe := f.cwe
				if cwe == "" {
					cwe = "CWE-79"
				}
				out = append(out, finding.Finding{Severity: finding.High, Title: "vulnerable line (" + string(cwe) + ")", RuleID: "T001", FilePath: filepath.ToSlash(rel), Line: i + 1, CWE: cwe})
			}
		}
		return nil
	})
	return out, err
}

// sleepScanner runs a real subprocess group through the runner until it
// is cancelled.
type sleepScanner struct {
	runner *proc.Runner
	marker string
}

func (s sleepScanner) Name() string                                     { return "sleeper" }
func (s sleepScanner) Type() string                                     { return scan.TypeCode }
func (s sleepScanner) Available(context.Context) (string, string, bool) { return "1", "", true }
func (s sleepScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	_, err := s.runner.Run(ctx, proc.Cmd{Program: "sh", Args: []string{"-c", "sleep " + s.marker + " & sleep " + s.marker + "; wait"}})
	return nil, err
}

type scanHarness struct {
	t      testing.TB
	srv    *httptest.Server
	store  *store.Store
	orch   *scan.Orchestrator
	bus    *sse.Bus
	dbPath string
}

func newScanHarness(t *testing.T, scanners []scan.Scanner, mutate func(*Deps)) *scanHarness {
	t.Helper()
	dbPath := filepath.Join(t.TempDir(), "scand.db")
	return startScanHarness(t, dbPath, scanners, mutate)
}

func newBenchHarness(b *testing.B) *scanHarness {
	return startScanHarness(b, filepath.Join(b.TempDir(), "scand.db"), nil, nil)
}

func startScanHarness(t testing.TB, dbPath string, scanners []scan.Scanner, mutate func(*Deps)) *scanHarness {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dbPath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	bus := sse.NewBus(nil)
	orch := scan.NewOrchestrator(scan.OrchestratorOptions{Store: st, Bus: bus, Scanners: scanners, MaxConcurrent: 2, CaptureComponents: components.CaptureJSON})
	d := Deps{Store: st, Auth: &auth.Authenticator{Store: st}, Limiter: auth.NewRateLimiter(60, 10, false), Bus: bus,
		EventSecret: []byte("test-secret"), Scans: orch, KeepAlive: 200 * time.Millisecond}
	if mutate != nil {
		mutate(&d)
	}
	srv := httptest.NewServer(New(d).Handler())
	if err := orch.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h := &scanHarness{t: t, srv: srv, store: st, orch: orch, bus: bus, dbPath: dbPath}
	t.Cleanup(h.close)
	return h
}

func (h *scanHarness) close() {
	h.srv.Close()
	h.orch.Stop(10 * time.Second)
	h.store.Close()
}

func (h *scanHarness) do(method, path string, body any, header ...string) (int, []byte, http.Header) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		if s, ok := body.(string); ok {
			b = []byte(s)
		}
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.srv.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out, resp.Header
}

func (h *scanHarness) startScan(body map[string]any) ScanView {
	h.t.Helper()
	code, out, _ := h.do("POST", "/api/v1/scans", body)
	if code != 200 {
		h.t.Fatalf("start scan: %d %s", code, out)
	}
	var v ScanView
	json.Unmarshal(out, &v)
	if v.Status != "pending" {
		h.t.Fatalf("new scan status %q, want pending", v.Status)
	}
	return v
}

func (h *scanHarness) waitStatus(id string, want string) ScanView {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		_, out, _ := h.do("GET", "/api/v1/scans/"+id, nil)
		var v ScanView
		json.Unmarshal(out, &v)
		if v.Status == want {
			return v
		}
		if store.TerminalStatus(v.Status) {
			h.t.Fatalf("scan %s ended %s (%v), want %s", id, v.Status, v.Error, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("scan %s never reached %s within 60 s", id, want)
	return ScanView{}
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func lifecycleRegistry() []scan.Scanner {
	return []scan.Scanner{
		lifecycleScanner{name: "alpha", typ: scan.TypeCode},
		lifecycleScanner{name: "missing-tool", typ: scan.TypeCode, missing: true},
		lifecycleScanner{name: "beta", typ: scan.TypeCode},
		lifecycleScanner{name: "deps", typ: scan.TypeDependency, cwe: "CWE-1395"},
		lifecycleScanner{name: "iac-only", typ: scan.TypeIaC},
	}
}

func TestScanLifecycle(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	dir := writeTree(t, map[string]string{"a.txt": "ok\nVULN one\n", "sub/b.txt": "VULN two\nok\nVULN three\n"})
	v := h.startScan(map[string]any{"target_path": dir})
	if strings.Join(v.ScanTypes, ",") != "code,dependency" {
		t.Fatalf("default scan types = %v", v.ScanTypes)
	}
	done := h.waitStatus(v.ID, "completed")
	if strings.Join(done.ScannersRun, ",") != "alpha,beta,deps" {
		t.Errorf("scanners_run = %v, want registry order alpha,beta,deps (iac-only not requested)", done.ScannersRun)
	}
	if len(done.ScannersSkipped) != 1 || done.ScannersSkipped[0].Name != "missing-tool" || done.ScannersSkipped[0].InstallHint == "" {
		t.Errorf("scanners_skipped = %+v", done.ScannersSkipped)
	}
	if done.CompletedAt == nil {
		t.Error("completed_at is null on a completed scan")
	}

	code, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/findings", nil)
	var fs []store.FindingWithState
	if err := json.Unmarshal(out, &fs); code != 200 || err != nil {
		t.Fatalf("findings: %d %s", code, out)
	}
	// 3 lines x (alpha and beta merged by dedup, plus deps with another CWE)
	if len(fs) != 6 {
		t.Fatalf("got %d findings, want 6", len(fs))
	}
	merged := 0
	for _, f := range fs {
		if f.ScanID != v.ID || len(f.Fingerprint) != 64 || f.State != nil || f.ScanType == "" {
			t.Errorf("bad finding %+v", f)
		}
		if f.Scanner == "alpha" {
			if also, _ := f.Metadata["also_reported_by"].([]any); len(also) == 1 && also[0] == "beta" {
				merged++
			}
		}
		if f.Scanner == "beta" {
			t.Errorf("beta's duplicate of alpha's finding was kept: %+v", f)
		}
		if _, ok := f.Metadata["suppressed_by"]; !ok {
			t.Errorf("metadata.suppressed_by missing: %+v", f.Metadata)
		}
	}
	if merged != 3 {
		t.Errorf("%d alpha findings list beta in also_reported_by, want 3", merged)
	}
	code, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/findings?scan_type=dependency", nil)
	json.Unmarshal(out, &fs)
	if code != 200 || len(fs) != 3 {
		t.Errorf("scan_type filter: %d, %d findings", code, len(fs))
	}
	code, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/findings?severity=low,info", nil)
	json.Unmarshal(out, &fs)
	if code != 200 || len(fs) != 0 {
		t.Errorf("severity filter: %d, %d findings", code, len(fs))
	}

	code, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/summary", nil)
	var sum ScanSummary
	json.Unmarshal(out, &sum)
	if code != 200 || sum.Total != 6 || sum.SeverityCounts.High != 6 || sum.DurationS == nil {
		t.Errorf("summary: %d %s", code, out)
	}

	code, out, _ = h.do("GET", "/api/v1/scans?limit=1", nil)
	var list []ScanView
	json.Unmarshal(out, &list)
	if code != 200 || len(list) != 1 || list[0].ID != v.ID {
		t.Errorf("list: %d %s", code, out)
	}

	if code, _, _ = h.do("POST", "/api/v1/scans/"+v.ID+"/cancel", nil); code != 409 {
		t.Errorf("cancel of completed scan = %d, want 409", code)
	}
	if code, _, _ = h.do("DELETE", "/api/v1/scans/"+v.ID, nil); code != 204 {
		t.Errorf("delete = %d, want 204", code)
	}
	for _, p := range []string{"/api/v1/scans/" + v.ID, "/api/v1/scans/" + v.ID + "/findings", "/api/v1/scans/" + v.ID + "/summary"} {
		code, out, _ := h.do("GET", p, nil)
		if code != 404 || !strings.Contains(string(out), "Scan not found") {
			t.Errorf("GET %s after delete = %d %s", p, code, out)
		}
	}
	for _, c := range []struct{ method, path string }{{"DELETE", "/api/v1/scans/" + v.ID}, {"POST", "/api/v1/scans/" + v.ID + "/cancel"}, {"POST", "/api/v1/scans/" + v.ID + "/event-token"}} {
		if code, _, _ := h.do(c.method, c.path, nil); code != 404 {
			t.Errorf("%s %s = %d, want 404", c.method, c.path, code)
		}
	}
}

func TestStartScanValidation(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := []struct {
		name string
		body any
		loc  string
	}{
		{"missing target", map[string]any{}, `["body","target_path"]`},
		{"relative target", map[string]any{"target_path": "src"}, `["body","target_path"]`},
		{"nonexistent target", map[string]any{"target_path": filepath.Join(dir, "nope")}, `["body","target_path"]`},
		{"file target", map[string]any{"target_path": file}, `["body","target_path"]`},
		{"empty scan types", map[string]any{"target_path": dir, "scan_types": []string{}}, `["body","scan_types"]`},
		{"unknown scan type", map[string]any{"target_path": dir, "scan_types": []string{"code", "fuzz"}}, `["body","scan_types",1]`},
		{"dast without url", map[string]any{"target_path": dir, "scan_types": []string{"dast"}}, `["body","target_url"]`},
		{"dast ftp url", map[string]any{"target_path": dir, "scan_types": []string{"dast"}, "target_url": "ftp://x"}, `["body","target_url"]`},
		{"network without host", map[string]any{"target_path": dir, "scan_types": []string{"network"}}, `["body","target_host"]`},
		{"network option injection", map[string]any{"target_path": dir, "scan_types": []string{"network"}, "target_host": "-oN/tmp/x"}, `["body","target_host"]`},
		{"network huge range", map[string]any{"target_path": dir, "scan_types": []string{"network"}, "target_host": "10.0.0.0/8"}, `["body","target_host"]`},
		{"wrong type", map[string]any{"target_path": 12}, `["body","target_path"]`},
		{"not an object", `["x"]`, `["body"]`},
		{"trailing data", `{"target_path":"/"} {}`, `["body"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, _ := h.do("POST", "/api/v1/scans", c.body)
			if code != 422 || !strings.Contains(string(out), `"loc":`+c.loc) {
				t.Fatalf("got %d %s, want 422 with loc %s", code, out, c.loc)
			}
		})
	}
	if code, out, _ := h.do("GET", "/api/v1/scans?status=bogus", nil); code != 422 {
		t.Errorf("bad status filter: %d %s", code, out)
	}
	if code, out, _ := h.do("GET", "/api/v1/scans/compare?scan_a=x", nil); code != 422 || !strings.Contains(string(out), `["query","scan_b"]`) {
		t.Errorf("compare without scan_b: %d %s", code, out)
	}
	if code, _, _ := h.do("GET", "/api/v1/scans/compare?scan_a=x&scan_b=y", nil); code != 404 {
		t.Errorf("compare unknown scans: %d", code)
	}
}

func TestScanRootsConfinement(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	inside := filepath.Join(root, "repo")
	os.Mkdir(inside, 0o755)
	escape := filepath.Join(root, "escape")
	if err := os.Symlink(outside, escape); err != nil {
		t.Fatal(err)
	}
	h := newScanHarness(t, lifecycleRegistry(), func(d *Deps) { d.ScanRoots = []string{root} })
	for _, c := range []struct {
		path string
		want int
	}{{inside, 200}, {root, 200}, {outside, 403}, {escape, 403}} {
		code, out, _ := h.do("POST", "/api/v1/scans", map[string]any{"target_path": c.path, "scan_types": []string{"iac"}})
		if code != c.want {
			t.Errorf("target %s: %d %s, want %d", c.path, code, out, c.want)
		}
	}
}

// processesWith returns the pids whose command line contains marker.
func processesWith(marker string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), marker) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func TestCancelKillsScannerProcessGroup(t *testing.T) {
	marker := fmt.Sprintf("600.%d", time.Now().UnixNano()%1000000)
	runner := proc.NewRunner(time.Hour)
	h := newScanHarness(t, []scan.Scanner{sleepScanner{runner: runner, marker: marker}}, nil)
	v := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"code"}})
	deadline := time.Now().Add(60 * time.Second)
	for len(processesWith("sleep "+marker)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the scanner's two sleep processes never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, out, _ := h.do("POST", "/api/v1/scans/"+v.ID+"/cancel", nil)
	if code != 200 || !strings.Contains(string(out), `"status":"cancelled"`) {
		t.Fatalf("cancel: %d %s", code, out)
	}
	cancelled := time.Now()
	for len(processesWith("sleep "+marker)) > 0 {
		if time.Since(cancelled) > 6*time.Second {
			t.Fatalf("processes still alive 6 s after cancel: %v", processesWith("sleep "+marker))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, _, _ := h.do("POST", "/api/v1/scans/"+v.ID+"/cancel", nil); code != 409 {
		t.Errorf("second cancel = %d, want 409", code)
	}
	got := h.waitStatus(v.ID, "cancelled")
	if got.CompletedAt == nil {
		t.Error("cancelled scan has no completed_at")
	}
}

func TestDeleteRunningScanConflicts(t *testing.T) {
	marker := fmt.Sprintf("601.%d", time.Now().UnixNano()%1000000)
	h := newScanHarness(t, []scan.Scanner{sleepScanner{runner: proc.NewRunner(time.Hour), marker: marker}}, nil)
	v := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"code"}})
	h.waitStatus(v.ID, "running")
	if code, _, _ := h.do("DELETE", "/api/v1/scans/"+v.ID, nil); code != 409 {
		t.Errorf("delete running = %d, want 409", code)
	}
	h.do("POST", "/api/v1/scans/"+v.ID+"/cancel", nil)
}

func TestRestartRecovery(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "scand.db")
	dir := writeTree(t, map[string]string{"a.txt": "VULN\n"})
	// A scan left running and one left pending by a crashed daemon.
	st, err := store.Open(context.Background(), dbPath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range []string{"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"} {
		if _, err := st.CreateScan(ctx, store.Scan{ID: id, TargetPath: dir, ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.MarkScanRunning(ctx, "11111111-1111-4111-8111-111111111111"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	h := startScanHarness(t, dbPath, lifecycleRegistry(), nil)
	failed := h.waitStatus("11111111-1111-4111-8111-111111111111", "failed")
	if failed.Error == nil || *failed.Error != "interrupted by restart" {
		t.Errorf("interrupted scan error = %v", failed.Error)
	}
	h.waitStatus("22222222-2222-4222-8222-222222222222", "completed")
}

func TestRestartMidScan(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "scand.db")
	marker := fmt.Sprintf("602.%d", time.Now().UnixNano()%1000000)
	h := startScanHarness(t, dbPath, []scan.Scanner{sleepScanner{runner: proc.NewRunner(time.Hour), marker: marker}}, nil)
	v := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"code"}})
	h.waitStatus(v.ID, "running")
	h.close() // graceful stop mid-scan
	h2 := startScanHarness(t, dbPath, lifecycleRegistry(), nil)
	got := h2.waitStatus(v.ID, "failed")
	if got.Error == nil || !strings.Contains(*got.Error, "interrupted") {
		t.Errorf("error = %v", got.Error)
	}
	if n := len(processesWith("sleep " + marker)); n != 0 {
		t.Errorf("%d scanner processes survived the stop", n)
	}
}

// stripIDs removes the per-scan identifiers so two scans can be compared,
// and the age fields: first_seen and last_seen are per target (the first
// and the last completed scan that saw the fingerprint), so they differ
// between scans by nature; ages returns them for the caller to check.
func stripIDs(t *testing.T, raw []byte) string {
	s, _ := stripIDsAndAges(t, raw)
	return s
}

func stripIDsAndAges(t *testing.T, raw []byte) (string, [][2]time.Time) {
	var fs []map[string]any
	if err := json.Unmarshal(raw, &fs); err != nil {
		t.Fatal(err)
	}
	var ages [][2]time.Time
	for _, f := range fs {
		delete(f, "id")
		delete(f, "scan_id")
		var age [2]time.Time
		for i, k := range []string{"first_seen", "last_seen"} {
			v, _ := f[k].(string)
			tm, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				t.Fatalf("%s %q: %v", k, f[k], err)
			}
			age[i] = tm
			delete(f, k)
		}
		ages = append(ages, age)
	}
	b, _ := json.Marshal(fs)
	return string(b), ages
}

// TestTwoScansByteIdentical: two scans of one tree give the same
// findings, byte for byte, but for their ids and ages; the ages say the
// findings were first seen by the first scan and last by the latest.
func TestTwoScansByteIdentical(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	dir := writeTree(t, map[string]string{"z.txt": "VULN z\n", "a.txt": "VULN a\nVULN b\n", "m/n.txt": "x\nVULN\n"})
	var bodies []string
	var completed []time.Time
	for i := 0; i < 2; i++ {
		v := h.startScan(map[string]any{"target_path": dir})
		done := h.waitStatus(v.ID, "completed")
		if done.CompletedAt == nil {
			t.Fatal("completed scan without completed_at")
		}
		completed = append(completed, *done.CompletedAt)
		_, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/findings", nil)
		body, ages := stripIDsAndAges(t, out)
		bodies = append(bodies, body)
		for _, a := range ages {
			if !a[0].Equal(completed[0]) || !a[1].Equal(completed[i]) {
				t.Errorf("scan %d: first_seen %v last_seen %v, want %v and %v", i+1, a[0], a[1], completed[0], completed[i])
			}
		}
	}
	if bodies[0] != bodies[1] {
		t.Fatalf("two scans of one tree differ:\n%s\n%s", bodies[0], bodies[1])
	}
	if !strings.Contains(bodies[0], `"file_path":"m/n.txt"`) {
		t.Errorf("file_path not relative to the target: %s", bodies[0])
	}
}

func TestTriageSurvivesDeleteAndReattaches(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	dir := writeTree(t, map[string]string{"a.txt": "VULN\n"})
	v := h.startScan(map[string]any{"target_path": dir, "scan_types": []string{"code"}})
	h.waitStatus(v.ID, "completed")
	_, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/findings", nil)
	var fs []store.FindingWithState
	json.Unmarshal(out, &fs)
	fp := fs[0].Fingerprint

	code, out, _ := h.do("PATCH", "/api/v1/findings/"+fp+"/state", map[string]any{"status": "false_positive", "note": "test data", "updated_by": "alice"})
	if code != 200 || !strings.Contains(string(out), `"status":"false_positive"`) || !strings.Contains(string(out), `"updated_by":"alice"`) {
		t.Fatalf("set triage: %d %s", code, out)
	}
	code, out, _ = h.do("POST", "/api/v1/findings/"+fp+"/comments", map[string]any{"text": "checked with the team"})
	if code != 201 || !strings.Contains(string(out), `"author":"dev"`) {
		t.Fatalf("comment: %d %s", code, out)
	}
	var c store.Comment
	json.Unmarshal(out, &c)

	if code, _, _ := h.do("DELETE", "/api/v1/scans/"+v.ID, nil); code != 204 {
		t.Fatal("delete failed")
	}
	v2 := h.startScan(map[string]any{"target_path": dir, "scan_types": []string{"code"}})
	h.waitStatus(v2.ID, "completed")
	_, out, _ = h.do("GET", "/api/v1/scans/"+v2.ID+"/findings", nil)
	json.Unmarshal(out, &fs)
	if len(fs) != 1 || fs[0].Fingerprint != fp || fs[0].State == nil || fs[0].State.Status != "false_positive" || fs[0].State.Note != "test data" {
		t.Fatalf("verdict did not reattach: %s", out)
	}
	_, out, _ = h.do("GET", "/api/v1/findings/"+fp+"/comments", nil)
	if !strings.Contains(string(out), "checked with the team") {
		t.Errorf("comment lost: %s", out)
	}
	h.do("PATCH", "/api/v1/findings/"+fp+"/state", map[string]any{"status": "new"})
	_, out, _ = h.do("GET", "/api/v1/findings/"+fp+"/history", nil)
	var hist []store.TriageState
	json.Unmarshal(out, &hist)
	if len(hist) != 2 || hist[0].Status != "false_positive" || hist[1].Status != "new" {
		t.Errorf("history: %s", out)
	}
	for _, c := range []struct {
		method, path string
		body         any
		want         int
	}{
		{"PATCH", "/api/v1/findings/" + fp + "/state", map[string]any{"status": "maybe"}, 422},
		{"PATCH", "/api/v1/findings/" + strings.Repeat("0", 64) + "/state", map[string]any{"status": "fixed"}, 404},
		{"PATCH", "/api/v1/findings/nothex/state", map[string]any{"status": "fixed"}, 404},
		{"POST", "/api/v1/findings/" + fp + "/comments", map[string]any{"text": ""}, 422},
		{"POST", "/api/v1/findings/" + fp + "/comments", map[string]any{"text": strings.Repeat("x", 10001)}, 422},
		{"DELETE", "/api/v1/findings/" + fp + "/comments/" + c.ID, nil, 204},
		{"DELETE", "/api/v1/findings/" + fp + "/comments/" + c.ID, nil, 404},
		{"GET", "/api/v1/findings/" + strings.Repeat("a", 64) + "/comments", nil, 404},
	} {
		if code, out, _ := h.do(c.method, c.path, c.body); code != c.want {
			t.Errorf("%s %s = %d %s, want %d", c.method, c.path, code, out, c.want)
		}
	}
}

func TestCompareScans(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	dir := writeTree(t, map[string]string{"a.txt": "VULN keep\nVULN gone\n"})
	a := h.startScan(map[string]any{"target_path": dir, "scan_types": []string{"code"}})
	h.waitStatus(a.ID, "completed")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("VULN keep\nok\nVULN added\n"), 0o644)
	b := h.startScan(map[string]any{"target_path": dir, "scan_types": []string{"code"}})
	h.waitStatus(b.ID, "completed")
	code, out, _ := h.do("GET", "/api/v1/scans/compare?scan_a="+a.ID+"&scan_b="+b.ID, nil)
	var res CompareResult
	if err := json.Unmarshal(out, &res); code != 200 || err != nil {
		t.Fatalf("%d %s", code, out)
	}
	if len(res.New) != 1 || len(res.Fixed) != 1 || len(res.Unchanged) != 1 {
		t.Fatalf("compare = new %d fixed %d unchanged %d", len(res.New), len(res.Fixed), len(res.Unchanged))
	}
	if res.New[0].Line != 3 || res.Fixed[0].Line != 2 {
		t.Errorf("wrong findings classified: %+v / %+v", res.New[0], res.Fixed[0])
	}
}

// readSSE reads frames until the stream ends and returns the event names.
func readSSE(t *testing.T, body io.Reader) []string {
	t.Helper()
	var names []string
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			names = append(names, name)
		}
	}
	return names
}

func TestSSELateSubscriberGetsReplay(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	v := h.startScan(map[string]any{"target_path": writeTree(t, map[string]string{"a.txt": "VULN\n"})})
	h.waitStatus(v.ID, "completed")
	resp, err := http.Get(h.srv.URL + "/api/v1/scans/" + v.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	got := strings.Join(readSSE(t, resp.Body), ",")
	want := "scan.start,scanner.start,scanner.complete,scanner.skipped,scanner.start,scanner.complete,scanner.start,scanner.complete,scan.complete"
	if got != want {
		t.Fatalf("replayed %s\nwant     %s", got, want)
	}
}

func TestSSEAfterBufferExpiryGetsStoredTerminal(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	h.bus.SetRetention(10 * time.Millisecond)
	v := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"iac"}})
	h.waitStatus(v.ID, "completed")
	time.Sleep(100 * time.Millisecond)
	resp, err := http.Get(h.srv.URL + "/api/v1/scans/" + v.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := strings.Join(readSSE(t, resp.Body), ","); got != "scan.complete" {
		t.Fatalf("got %q, want the stored terminal event", got)
	}
}

func TestSSEKeepaliveAndLiveStream(t *testing.T) {
	marker := fmt.Sprintf("603.%d", time.Now().UnixNano()%1000000)
	h := newScanHarness(t, []scan.Scanner{sleepScanner{runner: proc.NewRunner(time.Hour), marker: marker}}, nil)
	v := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"code"}})
	h.waitStatus(v.ID, "running")
	resp, err := http.Get(h.srv.URL + "/api/v1/scans/" + v.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	sawKeepalive := false
	timeout := time.After(30 * time.Second)
	for !sawKeepalive {
		select {
		case l := <-lines:
			sawKeepalive = strings.HasPrefix(l, ": keepalive")
		case <-timeout:
			t.Fatal("no keepalive within 30 s (interval 200 ms in this test)")
		}
	}
	h.do("POST", "/api/v1/scans/"+v.ID+"/cancel", nil)
	var last string
	for l := range lines {
		if name, ok := strings.CutPrefix(l, "event: "); ok {
			last = name
		}
	}
	if last != "scan.cancelled" {
		t.Fatalf("stream ended after %q, want scan.cancelled", last)
	}
}

func TestEventTokenRules(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), func(d *Deps) { d.Auth.AuthRequired = true })
	ctx := context.Background()
	issue := func(scopes ...string) (string, string) {
		id, key := auth.NewKey()
		if _, err := h.store.CreateAPIKey(ctx, store.APIKey{ID: id, Name: "t", Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(key), Scopes: scopes}); err != nil {
			t.Fatal(err)
		}
		return id, key
	}
	_, writer := issue("read", "write")
	readerID, reader := issue("read")
	dirA := writeTree(t, map[string]string{"a.txt": "VULN\n"})
	code, out, _ := h.do("POST", "/api/v1/scans", map[string]any{"target_path": dirA, "scan_types": []string{"code"}}, "X-API-Key", writer)
	if code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	var a, b ScanView
	json.Unmarshal(out, &a)
	_, out, _ = h.do("POST", "/api/v1/scans", map[string]any{"target_path": dirA, "scan_types": []string{"code"}}, "X-API-Key", writer)
	json.Unmarshal(out, &b)

	code, out, hdr := h.do("POST", "/api/v1/scans/"+a.ID+"/event-token", nil, "Authorization", "Bearer "+reader)
	if code != 200 || hdr.Get("Cache-Control") != "no-store" {
		t.Fatalf("mint: %d %s %v", code, out, hdr)
	}
	var tok EventToken
	json.Unmarshal(out, &tok)
	if d := time.Until(tok.ExpiresAt); d < 4*time.Minute || d > 5*time.Minute+time.Second {
		t.Errorf("token lifetime %s, want 5 minutes", d)
	}
	get := func(path string) int {
		resp, err := http.Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	h.waitStatusAuth(a.ID, writer)
	if c := get("/api/v1/scans/" + a.ID + "/events?event_token=" + tok.Token); c != 200 {
		t.Errorf("token on its own scan = %d, want 200", c)
	}
	if c := get("/api/scans/" + a.ID + "/events?event_token=" + tok.Token); c != 200 {
		t.Errorf("token on the legacy prefix = %d, want 200", c)
	}
	if c := get("/api/v1/scans/" + b.ID + "/events?event_token=" + tok.Token); c != 401 {
		t.Errorf("token on another scan = %d, want 401", c)
	}
	if c := get("/api/v1/scans/" + a.ID + "?event_token=" + tok.Token); c != 401 {
		t.Errorf("token on a non-SSE route = %d, want 401 (ignored, no key)", c)
	}
	if c := get("/api/v1/scans/" + a.ID + "/events?event_token=" + tok.Token + "x"); c != 401 {
		t.Errorf("tampered token = %d, want 401", c)
	}
	expired, _ := auth.MintEventToken([]byte("test-secret"), a.ID, readerID, time.Now().Add(-6*time.Minute))
	if c := get("/api/v1/scans/" + a.ID + "/events?event_token=" + expired); c != 401 {
		t.Errorf("expired token = %d, want 401", c)
	}
	if err := h.store.RevokeAPIKey(ctx, readerID, false); err != nil {
		t.Fatal(err)
	}
	if c := get("/api/v1/scans/" + a.ID + "/events?event_token=" + tok.Token); c != 401 {
		t.Errorf("token of a revoked key = %d, want 401", c)
	}
}

func (h *scanHarness) waitStatusAuth(id, key string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		_, out, _ := h.do("GET", "/api/v1/scans/"+id, nil, "X-API-Key", key)
		if strings.Contains(string(out), `"status":"completed"`) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("scan %s did not complete", id)
}

func TestComplianceCoverage(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	if code, _, _ := h.do("GET", "/api/v1/compliance/coverage", nil); code != 404 {
		t.Errorf("coverage with no scan = %d, want 404", code)
	}
	v := h.startScan(map[string]any{"target_path": writeTree(t, map[string]string{"a.txt": "VULN\n"}), "scan_types": []string{"code"}})
	h.waitStatus(v.ID, "completed")
	code, out, _ := h.do("GET", "/api/v1/compliance/coverage?scan_id="+v.ID, nil)
	var cov ComplianceCoverage
	if err := json.Unmarshal(out, &cov); code != 200 || err != nil {
		t.Fatalf("%d %s", code, out)
	}
	var owasp *finding.FrameworkCoverage
	for i := range cov.Frameworks {
		if cov.Frameworks[i].ID == "OWASP" {
			owasp = &cov.Frameworks[i]
		}
	}
	if owasp == nil || owasp.ControlsTotal != 10 || owasp.ControlsViolated != 1 || owasp.ControlsClearPercent != 90 {
		t.Fatalf("OWASP coverage for one CWE-79 finding: %+v", owasp)
	}
	for _, c := range owasp.Controls {
		if (c.ID == "OWASP-A03") != (c.Status == finding.ControlViolated) {
			t.Errorf("control %s status %s", c.ID, c.Status)
		}
	}
	_, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/findings", nil)
	var fs []store.FindingWithState
	json.Unmarshal(out, &fs)
	h.do("PATCH", "/api/v1/findings/"+fs[0].Fingerprint+"/state", map[string]any{"status": "false_positive"})
	_, out, _ = h.do("GET", "/api/v1/compliance/coverage", nil)
	json.Unmarshal(out, &cov)
	if cov.ScanID != v.ID || cov.ExcludedFalsePositives != 1 || cov.Frameworks[0].ControlsViolated != 0 {
		t.Fatalf("false positive still counted: %s", out)
	}
	if code, out, _ := h.do("GET", "/api/v1/compliance/frameworks", nil); code != 200 || !strings.Contains(string(out), "PCI-DSS-6.2.4") {
		t.Errorf("frameworks: %d %s", code, out)
	}
}

func TestScannerErrorsSkipOrFailOnlyThatScanner(t *testing.T) {
	reg := []scan.Scanner{
		lifecycleScanner{name: "alpha", typ: scan.TypeCode},
		lifecycleScanner{name: "db-gone", typ: scan.TypeCode, scanErr: fmt.Errorf("SVC_OSV_DB is not set: copy the OSV archives: %w", proc.ErrNotInstalled)},
		lifecycleScanner{name: "crasher", typ: scan.TypeCode, scanErr: fmt.Errorf("exit status 2: %s", strings.Repeat("x", 300))},
	}
	h := newScanHarness(t, reg, nil)
	v := h.startScan(map[string]any{"target_path": writeTree(t, map[string]string{"a.txt": "VULN\n"}), "scan_types": []string{"code"}})
	done := h.waitStatus(v.ID, "completed")
	if strings.Join(done.ScannersRun, ",") != "alpha" || len(done.ScannersSkipped) != 2 {
		t.Fatalf("run %v skipped %+v", done.ScannersRun, done.ScannersSkipped)
	}
	gone, crash := done.ScannersSkipped[0], done.ScannersSkipped[1]
	if gone.Name != "db-gone" || gone.Reason != "not installed" || !strings.Contains(gone.InstallHint, "SVC_OSV_DB") {
		t.Errorf("missing database not reported as a skip with its hint: %+v", gone)
	}
	if crash.Name != "crasher" || !strings.HasPrefix(crash.Reason, "failed: exit status 2") || len(crash.Reason) > len("failed: ")+200 {
		t.Errorf("crash entry %+v", crash)
	}
	resp, err := http.Get(h.srv.URL + "/api/v1/scans/" + v.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := strings.Join(readSSE(t, resp.Body), ",")
	if !strings.Contains(got, "scanner.skipped") || !strings.Contains(got, "scanner.failed") || !strings.HasSuffix(got, "scan.complete") {
		t.Errorf("events %s", got)
	}
}

func TestConcurrencyLimitKeepsArrivalOrder(t *testing.T) {
	marker := fmt.Sprintf("604.%d", time.Now().UnixNano()%1000000)
	reg := []scan.Scanner{sleepScanner{runner: proc.NewRunner(time.Hour), marker: marker}}
	dbPath := filepath.Join(t.TempDir(), "scand.db")
	h := startScanHarness(t, dbPath, reg, nil)
	// The harness runs two at once; a third and fourth must wait, pending,
	// and start in the order they arrived.
	var ids []string
	for i := 0; i < 4; i++ {
		ids = append(ids, h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"code"}}).ID)
	}
	h.waitStatus(ids[0], "running")
	h.waitStatus(ids[1], "running")
	time.Sleep(200 * time.Millisecond)
	for _, id := range ids[2:] {
		_, out, _ := h.do("GET", "/api/v1/scans/"+id, nil)
		if !strings.Contains(string(out), `"status":"pending"`) {
			t.Fatalf("scan beyond the limit is not pending: %s", out)
		}
	}
	if n := h.orch.Running(); n != 2 {
		t.Fatalf("%d scans running, limit is 2", n)
	}
	h.do("POST", "/api/v1/scans/"+ids[0]+"/cancel", nil)
	h.waitStatus(ids[2], "running")
	_, out, _ := h.do("GET", "/api/v1/scans/"+ids[3], nil)
	if !strings.Contains(string(out), `"status":"pending"`) {
		t.Fatalf("the fourth scan overtook the third: %s", out)
	}
	for _, id := range ids[1:] {
		h.do("POST", "/api/v1/scans/"+id+"/cancel", nil)
	}
}
