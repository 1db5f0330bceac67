package api

import (
	"context"
	"encoding/json"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/api/hardening"
	"scand/api/pdf"
	"scand/auth"
	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/store"
)

// Shared harness of the report, SARIF and dashboard tests: the real
// handler over a real SQLite store in t.TempDir(), seeded through the same
// store calls the orchestrator uses.

var updateReportGolden = flag.Bool("update-report", false, "rewrite the report and SARIF golden files under testdata/")

// reportTestClock is settable: the store stamps completed_at and triage
// times from it, so each seed step sets it first.
type reportTestClock struct{ t time.Time }

func (c *reportTestClock) now() time.Time { return c.t }

// reportTestScanner is a registry entry whose availability the test
// controls; it never scans.
type reportTestScanner struct {
	name, typ, version, hint string
	available                func() bool
	panics                   bool
	invalidated              int
}

func (f *reportTestScanner) Name() string { return f.name }
func (f *reportTestScanner) Type() string { return f.typ }
func (f *reportTestScanner) Available(ctx context.Context) (string, string, bool) {
	if f.panics {
		panic("probe exploded")
	}
	if f.available != nil && f.available() {
		return f.version, "", true
	}
	return "", f.hint, false
}
func (f *reportTestScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	return []finding.Finding{}, nil
}
func (f *reportTestScanner) InvalidateAvailability() { f.invalidated++ }

func reportAlways() bool { return true }
func reportNever() bool  { return false }

type reportTestEnv struct {
	srv     *Server
	handler http.Handler
	st      *store.Store
	clock   *reportTestClock
}

// reportFakeNow is what SVC_FAKE_NOW would pin in the golden tests.
var reportFakeNow = time.Date(2026, 3, 4, 8, 0, 0, 0, time.UTC)

func newReportTestEnv(t *testing.T, configure func(*Deps)) *reportTestEnv {
	t.Helper()
	clock := &reportTestClock{t: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), clock.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := Deps{
		Store:     st,
		Auth:      &auth.Authenticator{Store: st},
		Log:       slog.New(slog.DiscardHandler),
		Now:       func() time.Time { return time.Date(2026, 3, 12, 15, 30, 0, 0, time.UTC) },
		OutputNow: func() time.Time { return reportFakeNow },
		Runner:    proc.NewRunner(time.Minute),
		Hardening: hardening.Policy{AllowedHosts: []string{"example.com"}},
	}
	if configure != nil {
		configure(&d)
	}
	srv := New(d)
	return &reportTestEnv{srv: srv, handler: srv.Handler(), st: st, clock: clock}
}

func (e *reportTestEnv) do(t *testing.T, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// reportFixture is testdata/report/scan.json.
type reportFixture struct {
	Scan struct {
		ID              string                 `json:"id"`
		TargetPath      string                 `json:"target_path"`
		TargetURL       *string                `json:"target_url"`
		TargetHost      *string                `json:"target_host"`
		ScanTypes       []string               `json:"scan_types"`
		StartedAt       time.Time              `json:"started_at"`
		CompletedAt     time.Time              `json:"completed_at"`
		ScannersRun     []string               `json:"scanners_run"`
		ScannersSkipped []store.SkippedScanner `json:"scanners_skipped"`
		RiskScore       int                    `json:"risk_score"`
	} `json:"scan"`
	Findings []finding.Finding `json:"findings"`
	Triage   []struct {
		store.TriageState
		At time.Time `json:"at"`
	} `json:"triage"`
	Registry []struct {
		Name     string `json:"name"`
		ScanType string `json:"scan_type"`
		Version  string `json:"version"`
		Hint     string `json:"hint"`
	} `json:"registry"`
}

func loadReportFixture(t *testing.T) reportFixture {
	t.Helper()
	raw, err := os.ReadFile("../testdata/report/scan.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx reportFixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	return fx
}

// registry builds fake scanners from the fixture: those with a version
// are available.
func (fx reportFixture) registry() []scan.Scanner {
	var out []scan.Scanner
	for _, r := range fx.Registry {
		avail := reportNever
		if r.Version != "" {
			avail = reportAlways
		}
		out = append(out, &reportTestScanner{name: r.Name, typ: r.ScanType, version: r.Version, hint: r.Hint, available: avail})
	}
	return out
}

// seedFixture stores the fixture's scan as completed, with its findings
// and triage verdicts.
func (e *reportTestEnv) seedFixture(t *testing.T, fx reportFixture) {
	t.Helper()
	ctx := context.Background()
	sc := fx.Scan
	if _, err := e.st.CreateScan(ctx, store.Scan{ID: sc.ID, TargetPath: sc.TargetPath, TargetURL: sc.TargetURL, TargetHost: sc.TargetHost,
		ScanTypes: sc.ScanTypes, StartedAt: sc.StartedAt, CreatedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.MarkScanRunning(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	findings := append([]finding.Finding(nil), fx.Findings...)
	counts := map[string]int{}
	for i := range findings {
		findings[i].ScanID = sc.ID
		counts[string(findings[i].Severity)]++
	}
	e.clock.t = sc.CompletedAt
	if err := e.st.CompleteScan(ctx, sc.ID, store.ScanResult{Findings: findings, ScannersRun: sc.ScannersRun, Skipped: sc.ScannersSkipped,
		RiskScore: sc.RiskScore, SeverityCounts: counts}); err != nil {
		t.Fatal(err)
	}
	for _, tr := range fx.Triage {
		e.clock.t = tr.At
		if _, err := e.st.SetTriage(ctx, tr.TriageState); err != nil {
			t.Fatal(err)
		}
	}
}

// seedScan stores a scan left in status (pending, running or a terminal
// one) with the given findings when completed.
func (e *reportTestEnv) seedScan(t *testing.T, id, target, status string, started time.Time, finished time.Time, risk int, findings ...finding.Finding) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.st.CreateScan(ctx, store.Scan{ID: id, TargetPath: target, ScanTypes: []string{"code"}, StartedAt: started}); err != nil {
		t.Fatal(err)
	}
	if status == store.StatusPending {
		return
	}
	if err := e.st.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	e.clock.t = finished
	switch status {
	case store.StatusRunning:
	case store.StatusCompleted:
		for i := range findings {
			findings[i].ScanID = id
		}
		if err := e.st.CompleteScan(ctx, id, store.ScanResult{Findings: findings, ScannersRun: []string{"secrets"}, RiskScore: risk}); err != nil {
			t.Fatal(err)
		}
	default:
		if err := e.st.FinishScan(ctx, id, status, "stopped", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// reportDetail decodes a {"detail": string} error body.
func reportDetail(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var body ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body %q: %v", rec.Body.String(), err)
	}
	return body.Detail
}

// reportValidationLoc decodes a 422 body and returns its first loc.
func reportValidationLoc(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var body ValidationBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || len(body.Detail) == 0 {
		t.Fatalf("422 body %q: %v", rec.Body.String(), err)
	}
	var parts []string
	for _, p := range body.Detail[0].Loc {
		b, _ := json.Marshal(p)
		parts = append(parts, strings.Trim(string(b), `"`))
	}
	return strings.Join(parts, ".")
}

// reportGolden compares got with a golden file, rewriting it under
// -update-report.
func reportGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateReportGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./api/ -run Report -update-report to create it)", err)
	}
	if string(got) != string(want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(run with -update-report if the change is intended)", path, i+1, g, w)
			}
		}
	}
}

// reportChromium finds the renderer the service would use, for tests that
// need a real browser. Under CI=true a missing Chromium fails the test:
// CI installs it, so absence there means the PDF path went untested.
func reportChromium(t *testing.T) string {
	t.Helper()
	r := proc.NewRunner(10 * time.Second)
	for _, p := range pdf.Programs() {
		if _, err := r.Run(context.Background(), proc.Cmd{Program: p, Args: []string{"--version"}}); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no Chromium is installed (apt-get install chromium)")
	}
	t.Skip("no Chromium on PATH (apt-get install chromium)")
	return ""
}
