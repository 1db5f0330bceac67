package wrapped

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

func TestGovulncheckParse(t *testing.T) {
	full := wrapTestRead(t, "govulncheck/findings.json")
	lines := wrapTestTreeLines(t)
	fs, err := govulncheckParse("goapp/go.mod", full, lines)
	if err != nil {
		t.Fatal(err)
	}
	wrapTestCheckFindings(t, "govulncheck", scan.TypeDependency, fs)
	if len(fs) != 2 {
		t.Fatalf("%d findings, want one per vulnerability (2)", len(fs))
	}
	cases := []struct {
		id, fixed, path string
	}{
		{"GO-2021-0113", "v0.3.7", "example.com/goapp.main (main.go:24) → golang.org/x/text/language.Parse"},
		{"GO-2022-1059", "v0.3.8", "example.com/goapp.main (main.go:20) → golang.org/x/text/language.ParseAcceptLanguage"},
	}
	for _, c := range cases {
		f := wrapTestFind(fs, c.id, "goapp/go.mod")
		if f == nil {
			t.Fatalf("no %s", c.id)
		}
		if f.Severity != finding.High || f.Line != 5 || f.Metadata["reachability"] != "called" {
			t.Errorf("%s: %s line %d reachability %v, want high, go.mod line 5, called", c.id, f.Severity, f.Line, f.Metadata["reachability"])
		}
		if !strings.Contains(f.Description, "Fixed in "+c.fixed+".") || !strings.Contains(f.Description, "proved a call path") {
			t.Errorf("%s: description %q", c.id, f.Description)
		}
		paths, _ := f.Metadata["call_paths"].([]string)
		if !strings.Contains(strings.Join(paths, "\n"), c.path) {
			t.Errorf("%s: call paths %q lack %q", c.id, paths, c.path)
		}
	}
	if al, _ := fs[0].Metadata["aliases"].([]string); strings.Join(al, ",") != "CVE-2021-38561,GHSA-ppp9-7jff-5vj2" {
		t.Errorf("aliases = %v", al)
	}
}

// TestGovulncheckReachabilityRanks: a proven call path ranks above an
// import, which ranks above a bare requirement.
func TestGovulncheckReachabilityRanks(t *testing.T) {
	stream := `{"config":{"protocol_version":"v1.0.0"}}
{"osv":{"id":"GO-1","summary":"called one"}}
{"osv":{"id":"GO-2","summary":"imported one"}}
{"osv":{"id":"GO-3","summary":"required one"}}
{"finding":{"osv":"GO-1","fixed_version":"v1.0.1","trace":[{"module":"m1","version":"v1.0.0"}]}}
{"finding":{"osv":"GO-1","fixed_version":"v1.0.1","trace":[{"module":"m1","version":"v1.0.0","package":"m1/p"}]}}
{"finding":{"osv":"GO-1","fixed_version":"v1.0.1","trace":[{"module":"m1","version":"v1.0.0","package":"m1/p","function":"F","receiver":"*T"},{"module":"app","package":"app","function":"main","position":{"filename":"main.go","line":9}}]}}
{"finding":{"osv":"GO-2","trace":[{"module":"m2","version":"v2.0.0"}]}}
{"finding":{"osv":"GO-2","trace":[{"module":"m2","version":"v2.0.0","package":"m2/q"}]}}
{"finding":{"osv":"GO-3","fixed_version":"v3.1.0","trace":[{"module":"m3","version":"v3.0.0"}]}}
`
	fs, err := govulncheckParse("go.mod", []byte(stream), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		sev   finding.Severity
		reach string
	}{
		"GO-1": {finding.High, "called"},
		"GO-2": {finding.Low, "imported"},
		"GO-3": {finding.Info, "required"},
	}
	if len(fs) != len(want) {
		t.Fatalf("%d findings, want %d", len(fs), len(want))
	}
	for _, f := range fs {
		w := want[f.RuleID]
		if f.Severity != w.sev || f.Metadata["reachability"] != w.reach {
			t.Errorf("%s: %s %v, want %s %s", f.RuleID, f.Severity, f.Metadata["reachability"], w.sev, w.reach)
		}
	}
	if p, _ := fs[0].Metadata["call_paths"].([]string); len(p) != 1 || p[0] != "app.main (main.go:9) → m1/p.*T.F" {
		t.Errorf("call path = %q", p)
	}
	if !strings.Contains(fs[1].Description, "No fixed version is known") {
		t.Errorf("GO-2 description %q", fs[1].Description)
	}
}

func TestGovulncheckParseBadOutput(t *testing.T) {
	full := wrapTestRead(t, "govulncheck/findings.json")
	if fs, err := govulncheckParse("go.mod", wrapTestRead(t, "govulncheck/empty.json"), nil); err != nil || len(fs) != 0 {
		t.Errorf("recorded clean run = %d findings, %v", len(fs), err)
	}
	for name, out := range map[string][]byte{"empty": nil, "truncated": full[:len(full)/2], "garbage": []byte("govulncheck: loading packages")} {
		if _, err := govulncheckParse("go.mod", out, nil); err == nil {
			t.Errorf("%s output parsed without error", name)
		}
	}
}

func TestGovulncheckScanErrors(t *testing.T) {
	db, _ := filepath.Abs(filepath.Join(wrapTestData, "vulndb/govulndb"))
	target := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(target, "go.mod"), "module m\n")
	cases := []struct{ stderr, want string }{
		{"govulncheck/missing-deps.stderr", "module lookup disabled by GOPROXY=off"},
		{"govulncheck/no-db.stderr", "creating client: stat /nonexistent"},
	}
	for _, c := range cases {
		tool := wrapTestFakeTool(t, "-version", "Scanner: govulncheck@v1.8.0", "", c.stderr, 1)
		s := Govulncheck(wrapTestConfig(map[string]string{"SVC_GOVULNCHECK_PATH": tool, "SVC_GOVULN_DB": db}))
		if v, hint, ok := s.Available(context.Background()); !ok || v != "1.8.0" {
			t.Fatalf("Available = %q %q %v", v, hint, ok)
		}
		_, err := s.Scan(context.Background(), scan.Target{Path: target})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}

func FuzzGovulncheckParse(f *testing.F) {
	f.Add(wrapTestRead(f, "govulncheck/findings.json"))
	f.Add(wrapTestRead(f, "govulncheck/empty.json"))
	f.Add([]byte(`{"config":{}}{"osv":{"id":"GO-1"}}{"finding":{"osv":"GO-1","trace":[{"module":"m","version":"v1","package":"m/p","function":"F"},{"function":"main","position":{"filename":"a.go","line":1}}]}}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		fs, err := govulncheckParse("go.mod", out, func(string, string, string) int { return 3 })
		if err != nil {
			return
		}
		for _, x := range fs {
			if !x.Severity.Valid() || x.RuleID == "" || x.FilePath != "go.mod" {
				t.Fatalf("invalid finding %+v", x)
			}
		}
	})
}
