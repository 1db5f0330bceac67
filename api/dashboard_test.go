package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/auth"
	"scand/finding"
	"scand/scan"
	"scand/scan/vulndb"
	"scand/sse"
	"scand/store"
)

func dashboardDecode[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, rec.Body.String())
	}
	return v
}

func TestDashboardStatus(t *testing.T) {
	env := newReportTestEnv(t, func(d *Deps) {
		d.Scanners = []scan.Scanner{
			&reportTestScanner{name: "secrets", typ: "code", version: "0.11.0", available: reportAlways},
			&reportTestScanner{name: "bandit", typ: "code", hint: "pipx install bandit", available: reportNever},
			&reportTestScanner{name: "licenses", typ: "dependency", available: reportAlways}, // version unknown
			&reportTestScanner{name: "nmap", typ: "network", hint: "apt-get install nmap", available: reportNever},
			&reportTestScanner{name: "broken", typ: "dast", panics: true},
		}
		d.InstallRecipe = func(name string) (string, []string, bool) {
			if name == "nmap" {
				return "apt-get", []string{"install", "-y", "nmap"}, true
			}
			return "", nil, false
		}
	})
	got := dashboardDecode[DashboardStatus](t, env.do(t, "GET", "/api/v1/dashboard/status"))
	v := "0.11.0"
	want := DashboardStatus{Available: 2, Total: 5, Scanners: []ScannerStatus{
		{Name: "secrets", ScanType: "code", Available: true, Version: &v},
		{Name: "bandit", ScanType: "code", InstallHint: "pipx install bandit"},
		{Name: "licenses", ScanType: "dependency", Available: true},
		{Name: "nmap", ScanType: "network", InstallHint: "apt-get install nmap", Installable: true},
		{Name: "broken", ScanType: "dast", InstallHint: "availability probe failed; see the service log"},
	}, VulnDB: []vulndb.Info{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// null, not "", for an unknown version: clients test for null.
	if body := env.do(t, "GET", "/api/v1/dashboard/status").Body.String(); !strings.Contains(body, `"name":"licenses","scan_type":"dependency","available":true,"version":null`) {
		t.Errorf("unknown version not null: %s", body)
	}
}

func TestDashboardStats(t *testing.T) {
	env := newReportTestEnv(t, func(d *Deps) {
		d.Scanners = []scan.Scanner{
			&reportTestScanner{name: "secrets", typ: "code", available: reportAlways},
			&reportTestScanner{name: "bandit", typ: "code", available: reportNever},
		}
	})
	f := func(sev finding.Severity, fp string) finding.Finding {
		return finding.Finding{ID: "id-" + fp, Scanner: "secrets", ScanType: "code", Severity: sev, Title: "t", RuleID: "r", FilePath: "a", Line: 1, Fingerprint: fp}
	}
	day := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	env.seedScan(t, "old", "/repo", store.StatusCompleted, day, day.Add(time.Minute), 50, f(finding.Critical, "fp-old"))
	env.seedScan(t, "new", "/repo", store.StatusCompleted, day.Add(time.Hour), day.Add(2*time.Hour), 30,
		f(finding.High, "fp1"), f(finding.High, "fp2"), f(finding.Medium, "fp3"), f(finding.Info, "fp4"))
	env.seedScan(t, "other", "/other", store.StatusCompleted, day, day.Add(time.Minute), 5, f(finding.Low, "fp5"))
	env.seedScan(t, "run", "/repo", store.StatusRunning, day.Add(3*time.Hour), time.Time{}, 0)
	env.seedScan(t, "fail", "/x", store.StatusFailed, day, day.Add(time.Minute), 0)
	for fp, status := range map[string]string{"fp1": "false_positive", "fp3": "fixed", "fp4": "triaged", "fp5": "wont_fix", "fp-old": "accepted_risk"} {
		if _, err := env.st.SetTriage(context.Background(), store.TriageState{Fingerprint: fp, Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	got := dashboardDecode[DashboardStats](t, env.do(t, "GET", "/api/v1/dashboard/stats"))
	want := DashboardStats{
		TotalScans:         5,
		ScansByStatus:      DashboardScanCounts{Running: 1, Completed: 3, Failed: 1},
		Targets:            2,
		TotalFindings:      5,
		FindingsBySeverity: sse.SeverityCounts{High: 2, Medium: 1, Low: 1, Info: 1},
		VisibleBySeverity:  sse.SeverityCounts{High: 1, Medium: 1, Info: 1},
		TriageByStatus:     DashboardTriageCounts{New: 1, Triaged: 1, FalsePositive: 1, Fixed: 1, WontFix: 1},
		Scanners:           DashboardScannerCounts{Available: 1, Total: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	empty := newReportTestEnv(t, nil)
	if got := dashboardDecode[DashboardStats](t, empty.do(t, "GET", "/api/v1/dashboard/stats")); !reflect.DeepEqual(got, DashboardStats{}) {
		t.Errorf("empty store: %+v", got)
	}
}

func TestDashboardTrends(t *testing.T) {
	now := time.Date(2026, 3, 12, 15, 30, 0, 0, time.UTC) // the harness's Now
	env := newReportTestEnv(t, nil)
	f := func(sev finding.Severity, fp string) finding.Finding {
		return finding.Finding{ID: "id-" + fp, Scanner: "secrets", ScanType: "code", Severity: sev, Title: "t", RuleID: "r", FilePath: "a", Line: 1, Fingerprint: fp}
	}
	at := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	env.seedScan(t, "a", "/repo", store.StatusCompleted, at(9, 10), at(9, 11), 40, f(finding.High, "1"), f(finding.Low, "2"))
	env.seedScan(t, "b", "/repo", store.StatusCompleted, at(12, 8), at(12, 9), 25, f(finding.Medium, "3"))
	env.seedScan(t, "c", "/other", store.StatusCompleted, at(12, 9), at(12, 10), 60, f(finding.Critical, "4"))
	env.seedScan(t, "d", "/repo", store.StatusFailed, at(11, 23), at(11, 23), 0)
	env.seedScan(t, "e", "/repo", store.StatusCompleted, at(1, 1), at(1, 2), 99, f(finding.Critical, "5")) // before the window

	ip := func(n int) *int { return &n }
	got := dashboardDecode[DashboardTrends](t, env.do(t, "GET", "/api/v1/dashboard/trends?days=5"))
	want := DashboardTrends{Days: 5, From: "2026-03-08", To: "2026-03-12", Data: []TrendDay{
		{Date: "2026-03-08"},
		{Date: "2026-03-09", ScansStarted: 1, RiskScore: ip(40), FindingsBySeverity: sse.SeverityCounts{High: 1, Low: 1}},
		{Date: "2026-03-10"},
		{Date: "2026-03-11", ScansStarted: 1},
		// c completed last that day, so its score is the day's.
		{Date: "2026-03-12", ScansStarted: 2, RiskScore: ip(60), FindingsBySeverity: sse.SeverityCounts{Critical: 1, Medium: 1}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if body := env.do(t, "GET", "/api/v1/dashboard/trends?days=5").Body.String(); !strings.Contains(body, `{"date":"2026-03-08","scans_started":0,"risk_score":null,`) {
		t.Errorf("an empty day must have risk_score null: %s", body)
	}

	for _, tc := range []struct {
		query      string
		days       int
		first, end string
	}{
		{"", 30, "2026-02-11", now.Format(time.DateOnly)},
		{"?days=1", 1, "2026-03-12", "2026-03-12"},
		{"?days=365", 365, "2025-03-13", "2026-03-12"},
	} {
		got := dashboardDecode[DashboardTrends](t, env.do(t, "GET", "/api/v1/dashboard/trends"+tc.query))
		if len(got.Data) != tc.days || got.Data[0].Date != tc.first || got.Data[len(got.Data)-1].Date != tc.end {
			t.Errorf("%q: %d days from %s to %s, want %d from %s to %s", tc.query, len(got.Data), got.Data[0].Date, got.Data[len(got.Data)-1].Date, tc.days, tc.first, tc.end)
		}
		for i := 1; i < len(got.Data); i++ {
			prev, _ := time.Parse(time.DateOnly, got.Data[i-1].Date)
			cur, _ := time.Parse(time.DateOnly, got.Data[i].Date)
			if cur.Sub(prev) != 24*time.Hour {
				t.Fatalf("%q: gap between %s and %s", tc.query, got.Data[i-1].Date, got.Data[i].Date)
			}
		}
	}
	for _, bad := range []string{"0", "366", "-1", "abc", "1.5", "30d"} {
		rec := env.do(t, "GET", "/api/v1/dashboard/trends?days="+bad)
		if rec.Code != 422 || reportValidationLoc(t, rec) != "query.days" {
			t.Errorf("days=%s: status %d %s, want 422 at query.days", bad, rec.Code, rec.Body.String())
		}
	}
}

// dashboardTree builds the browse fixture:
//
//	root/      A_dir/ b_dir/ .git/ .hidden/ File1.txt file2.txt .env
//	           link_in -> b_dir, link_out -> ../outside, broken -> nowhere
//	root/many/ 505 files
//	outside/   secret.txt
//	alias      -> root
func dashboardTree(t *testing.T) (base, root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{"A_dir", "b_dir", ".git", ".hidden", "many"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"File1.txt": "hello", "file2.txt": "hi", ".env": "X=1"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 505; i++ {
		if err := os.WriteFile(filepath.Join(root, "many", fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(root, "link_in"):  "b_dir",
		filepath.Join(root, "link_out"): "../outside",
		filepath.Join(root, "broken"):   "nowhere",
		filepath.Join(base, "alias"):    "root",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return base, root, outside
}

func TestDashboardBrowse(t *testing.T) {
	base, root, outside := dashboardTree(t)
	confined := newReportTestEnv(t, func(d *Deps) { d.ScanRoots = []string{root + "/"} })
	viaAlias := newReportTestEnv(t, func(d *Deps) { d.ScanRoots = []string{filepath.Join(base, "alias")} })
	open := newReportTestEnv(t, nil)
	q := func(p string) string { return "/api/v1/dashboard/browse?path=" + url.QueryEscape(p) }

	t.Run("listing order, hidden entries, types, parent", func(t *testing.T) {
		got := dashboardDecode[BrowseListing](t, confined.do(t, "GET", "/api/v1/dashboard/browse"))
		if got.Path != root || got.Parent != nil || !reflect.DeepEqual(got.Roots, []string{root}) || got.Truncated {
			t.Errorf("path %q parent %v roots %v truncated %v", got.Path, got.Parent, got.Roots, got.Truncated)
		}
		var names []string
		for _, e := range got.Entries {
			names = append(names, fmt.Sprintf("%s:%s:%v", e.Name, e.Type, e.Symlink))
		}
		want := []string{".git:dir:false", "A_dir:dir:false", "b_dir:dir:false", "link_in:dir:true", "link_out:dir:true", "many:dir:false",
			"broken:other:true", "File1.txt:file:false", "file2.txt:file:false"}
		if !reflect.DeepEqual(names, want) {
			t.Errorf("entries %v\nwant    %v", names, want)
		}
		for _, e := range got.Entries {
			if e.Path != filepath.Join(root, e.Name) {
				t.Errorf("entry path %q", e.Path)
			}
			if e.Name == "File1.txt" && e.Size != 5 {
				t.Errorf("File1.txt size %d", e.Size)
			}
		}
	})

	t.Run("truncated at 500", func(t *testing.T) {
		got := dashboardDecode[BrowseListing](t, confined.do(t, "GET", q(filepath.Join(root, "many"))))
		if len(got.Entries) != 500 || !got.Truncated || got.Entries[499].Name != "f499" {
			t.Errorf("%d entries, truncated %v, last %q", len(got.Entries), got.Truncated, got.Entries[len(got.Entries)-1].Name)
		}
		if got.Parent == nil || *got.Parent != root {
			t.Errorf("parent %v, want %s", got.Parent, root)
		}
	})

	cases := []struct {
		name   string
		env    *reportTestEnv
		path   string
		status int
		detail string
		parent string // for 200: "" means null
	}{
		{"subdirectory", confined, filepath.Join(root, "A_dir"), 200, "", root},
		{"symlink staying inside", confined, filepath.Join(root, "link_in"), 200, "", root},
		{"uncleaned path is cleaned", confined, root + "/A_dir/../b_dir/", 200, "", root},
		{"symlink escaping the root", confined, filepath.Join(root, "link_out"), 403, "resolves (through a symlink)", ""},
		{"outside the root", confined, outside, 403, "outside the configured scan roots", ""},
		{"dot-dot out of the root", confined, root + "/../outside", 403, "outside the configured scan roots", ""},
		{"missing path outside says nothing about it", confined, "/no/such/dir", 403, "outside the configured scan roots", ""},
		{"missing path inside", confined, filepath.Join(root, "missing"), 404, "Path not found", ""},
		{"broken symlink", confined, filepath.Join(root, "broken"), 404, "Path not found", ""},
		{"below a file", confined, filepath.Join(root, "File1.txt", "x"), 404, "Path not found", ""},
		{"a file", confined, filepath.Join(root, "File1.txt"), 422, "", ""},
		{"relative", confined, "root/A_dir", 422, "", ""},
		{"root given through a symlink", viaAlias, filepath.Join(base, "alias", "A_dir"), 200, "", filepath.Join(base, "alias")},
		{"symlinked root itself has no parent", viaAlias, filepath.Join(base, "alias"), 200, "", ""},
		{"real path of a symlinked root", viaAlias, root, 403, "outside the configured scan roots", ""},
		{"unconfined reaches anywhere", open, outside, 200, "", base},
		{"unconfined follows the escaping link", open, filepath.Join(root, "link_out"), 200, "", root},
		{"filesystem root has no parent", open, "/", 200, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := tc.env.do(t, "GET", q(tc.path))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body.String())
			}
			switch {
			case tc.status == 422:
				if loc := reportValidationLoc(t, rec); loc != "query.path" {
					t.Errorf("loc %q", loc)
				}
			case tc.status != 200:
				if d := reportDetail(t, rec); !strings.Contains(d, tc.detail) {
					t.Errorf("detail %q lacks %q", d, tc.detail)
				}
			default:
				got := dashboardDecode[BrowseListing](t, rec)
				if got.Path != filepath.Clean(tc.path) {
					t.Errorf("path %q, want %q", got.Path, filepath.Clean(tc.path))
				}
				if (tc.parent == "") != (got.Parent == nil) || (got.Parent != nil && *got.Parent != tc.parent) {
					t.Errorf("parent %v, want %q", got.Parent, tc.parent)
				}
			}
		})
	}
	if body := open.do(t, "GET", "/api/v1/dashboard/browse").Body.String(); !strings.Contains(body, `"path":"/","parent":null`) {
		t.Errorf("unconfined default is not /: %.200s", body)
	}
}

func TestDashboardInstall(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "installed")
	installed := func() bool { _, err := os.Stat(marker); return err == nil }
	fake := &reportTestScanner{name: "fakescan", typ: "code", version: "1.0", hint: "apt-get install fakescan", available: installed}
	recipes := map[string][]string{
		"fakescan": {"sh", "-c", "echo installing fakescan; echo from-stderr >&2; touch " + marker},
		"failing":  {"sh", "-c", "echo E: Unable to locate package failing; exit 100"},
		"chatty":   {"sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line-$i-ääää; i=$((i+1)); done; echo LAST-LINE"},
		"nopm":     {"scand-test-no-such-package-manager", "install", "nopm"},
		"slow":     {"sh", "-c", "touch " + filepath.Join(dir, "slow-started") + "; while [ ! -e " + filepath.Join(dir, "slow-go") + " ]; do sleep 0.05; done"},
	}
	env := newReportTestEnv(t, func(d *Deps) {
		d.Scanners = []scan.Scanner{fake,
			&reportTestScanner{name: "present", typ: "code", version: "2.3", available: reportAlways},
			&reportTestScanner{name: "norecipe", typ: "code", hint: "build it from source", available: reportNever},
			&reportTestScanner{name: "failing", typ: "code", hint: "h", available: reportNever},
			&reportTestScanner{name: "chatty", typ: "code", hint: "h", available: reportNever},
			&reportTestScanner{name: "nopm", typ: "code", hint: "get nopm", available: reportNever},
			&reportTestScanner{name: "slow", typ: "code", hint: "h", available: reportNever},
		}
		d.InstallRecipe = func(name string) (string, []string, bool) {
			r, ok := recipes[name]
			if !ok {
				return "", nil, false
			}
			return r[0], r[1:], true
		}
	})

	t.Run("installs", func(t *testing.T) {
		got := dashboardDecode[ScannerInstallResult](t, env.do(t, "POST", "/api/v1/dashboard/install/fakescan"))
		if !got.Installed || got.ExitCode != 0 || got.Scanner != "fakescan" || !strings.HasPrefix(got.Command, `sh -c "echo installing fakescan;`) {
			t.Errorf("%+v", got)
		}
		if !strings.Contains(got.Output, "installing fakescan") || !strings.Contains(got.Output, "from-stderr") {
			t.Errorf("output %q lacks stdout or stderr", got.Output)
		}
		if fake.invalidated == 0 {
			t.Error("the scanner's availability cache was not invalidated")
		}
	})

	cases := []struct {
		name, scanner string
		status        int
		detail        string
	}{
		{"now installed", "fakescan", 409, "already installed (version 1.0)"},
		{"already present", "present", 409, "already installed (version 2.3)"},
		{"unknown scanner", "nope", 404, "Unknown scanner: nope"},
		{"no recipe", "norecipe", 501, "No install recipe for norecipe on this system; install it by hand: build it from source"},
		{"package manager absent", "nopm", 501, "scand-test-no-such-package-manager needed to install nopm is not on this system"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := env.do(t, "POST", "/api/v1/dashboard/install/"+tc.scanner)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body.String())
			}
			if d := reportDetail(t, rec); !strings.Contains(d, tc.detail) {
				t.Errorf("detail %q lacks %q", d, tc.detail)
			}
		})
	}

	t.Run("failed recipe", func(t *testing.T) {
		got := dashboardDecode[ScannerInstallResult](t, env.do(t, "POST", "/api/v1/dashboard/install/failing"))
		if got.Installed || got.ExitCode != 100 || !strings.Contains(got.Output, "Unable to locate package") {
			t.Errorf("%+v", got)
		}
	})

	t.Run("output is a 4 KiB tail", func(t *testing.T) {
		got := dashboardDecode[ScannerInstallResult](t, env.do(t, "POST", "/api/v1/dashboard/install/chatty"))
		if len(got.Output) > 4096 || len(got.Output) < 4000 || !strings.HasSuffix(got.Output, "LAST-LINE\n") || strings.Contains(got.Output, "line-0-") {
			t.Errorf("output of %d bytes: ...%q", len(got.Output), got.Output[max(0, len(got.Output)-40):])
		}
		if !json.Valid([]byte(`"`+strings.ReplaceAll(got.Output, "\n", `\n`)+`"`)) || strings.ContainsRune(got.Output, '\uFFFD') {
			t.Error("tail cut a character in half")
		}
	})

	t.Run("one install at a time", func(t *testing.T) {
		var wg sync.WaitGroup
		var first ScannerInstallResult
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := env.do(t, "POST", "/api/v1/dashboard/install/slow")
			json.Unmarshal(rec.Body.Bytes(), &first)
		}()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(filepath.Join(dir, "slow-started")); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the slow recipe never started")
			}
			time.Sleep(10 * time.Millisecond)
		}
		rec := env.do(t, "POST", "/api/v1/dashboard/install/failing")
		if rec.Code != 409 || !strings.Contains(reportDetail(t, rec), "Another scanner install is running") {
			t.Errorf("second install: %d %s", rec.Code, rec.Body.String())
		}
		os.WriteFile(filepath.Join(dir, "slow-go"), nil, 0o644)
		wg.Wait()
		if first.Scanner != "slow" || first.ExitCode != 0 {
			t.Errorf("first install: %+v", first)
		}
	})
}

// TestDashboardScopes: reading the dashboard needs read; installing needs
// write, the one dashboard route that changes the host.
func TestDashboardScopes(t *testing.T) {
	env := newReportTestEnv(t, func(d *Deps) {
		d.Scanners = []scan.Scanner{&reportTestScanner{name: "x", typ: "code", hint: "h", available: reportNever}}
	})
	ctx := context.Background()
	keyFor := func(scopes ...string) string {
		id, plaintext := auth.NewKey()
		if _, err := env.st.CreateAPIKey(ctx, store.APIKey{ID: id, Name: "k", Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(plaintext), Scopes: scopes}); err != nil {
			t.Fatal(err)
		}
		return plaintext
	}
	read, write, admin := keyFor("read"), keyFor("write"), keyFor("admin")
	cases := []struct {
		method, path, key string
		status            int
	}{
		{"GET", "/api/v1/dashboard/status", read, 200},
		{"GET", "/api/v1/dashboard/stats", read, 200},
		{"GET", "/api/v1/dashboard/trends", read, 200},
		// No scan roots: browsing lists the whole host, an admin's view.
		{"GET", "/api/v1/dashboard/browse?path=/etc", read, 403},
		{"GET", "/api/v1/dashboard/browse?path=/etc", write, 403},
		{"GET", "/api/v1/dashboard/browse?path=/etc", admin, 200},
		{"GET", "/api/v1/dashboard/status", write, 200}, // write includes read
		{"POST", "/api/v1/dashboard/install/x", read, 403},
		{"POST", "/api/v1/dashboard/install/x", write, 501},
		{"POST", "/api/v1/dashboard/install/x", "", 401},
		{"GET", "/api/v1/scans/none/report", write, 404},
		{"GET", "/api/v1/scans/none/report", read, 404},
	}
	// With scan roots a read key browses, inside them only.
	root := t.TempDir()
	confined := newReportTestEnv(t, func(d *Deps) { d.ScanRoots = []string{root} })
	confinedRead := func() string {
		id, plaintext := auth.NewKey()
		if _, err := confined.st.CreateAPIKey(ctx, store.APIKey{ID: id, Name: "k", Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(plaintext), Scopes: []string{"read"}}); err != nil {
			t.Fatal(err)
		}
		return plaintext
	}()
	if rec := confined.do(t, "GET", "/api/v1/dashboard/browse?path="+url.QueryEscape(root), "X-API-Key", confinedRead); rec.Code != 200 {
		t.Errorf("read key inside the scan roots: %d %s", rec.Code, rec.Body)
	}
	if rec := confined.do(t, "GET", "/api/v1/dashboard/browse?path=/etc", "X-API-Key", confinedRead); rec.Code != 403 {
		t.Errorf("read key outside the scan roots: %d %s", rec.Code, rec.Body)
	}
	for _, tc := range cases {
		rec := env.do(t, tc.method, tc.path, "X-API-Key", tc.key)
		if tc.key == "" {
			rec = env.do(t, tc.method, tc.path)
		}
		if rec.Code != tc.status {
			t.Errorf("%s %s with %q: %d, want %d (%s)", tc.method, tc.path, tc.key[:min(len(tc.key), 8)], rec.Code, tc.status, rec.Body.String())
		}
	}
}

// TestReportDashboardOpenAPI: the routes and their response shapes reach
// the generated document, so clients can rely on them.
func TestReportDashboardOpenAPI(t *testing.T) {
	env := newReportTestEnv(t, nil)
	raw, err := env.srv.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for path, method := range map[string]string{
		"/api/v1/scans/{id}/report": "get", "/api/v1/dashboard/status": "get", "/api/v1/dashboard/stats": "get",
		"/api/v1/dashboard/trends": "get", "/api/v1/dashboard/browse": "get", "/api/v1/dashboard/install/{scanner}": "post",
	} {
		if _, ok := doc.Paths[path][method]; !ok {
			t.Errorf("OpenAPI lacks %s %s", method, path)
		}
	}
	for _, name := range []string{"DashboardStatus", "ScannerStatus", "DashboardStats", "DashboardTrends", "TrendDay", "BrowseListing", "BrowseEntry", "ScannerInstallResult", "SeverityCounts"} {
		if _, ok := doc.Components.Schemas[name]; !ok {
			t.Errorf("OpenAPI lacks schema %s", name)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc.Paths["/api/v1/scans/{id}/report"]["get"]); err != nil {
		t.Fatal(err)
	}
	report := compact.String()
	for _, want := range []string{`"application/pdf"`, `"application/sarif+json"`, `"text/html"`, `"enum":["html","pdf","sarif"]`, `"501"`, `"409"`} {
		if !strings.Contains(report, want) {
			t.Errorf("report operation lacks %s", want)
		}
	}
}
