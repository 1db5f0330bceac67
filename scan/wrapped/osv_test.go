package wrapped

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

// wrapTestTreeLines finds declaration lines in the committed fixture tree,
// which has the layout the recordings were made on.
func wrapTestTreeLines(t testing.TB) lineFinder {
	t.Helper()
	root, err := filepath.Abs(filepath.Join(wrapTestData, "tree"))
	if err != nil {
		t.Fatal(err)
	}
	return declLines(root)
}

func TestOSVParse(t *testing.T) {
	full := wrapTestRead(t, "osv-scanner/findings.json")
	lines := wrapTestTreeLines(t)
	fs, err := osvParse(wrapRecordedRoot, full, lines)
	if err != nil {
		t.Fatal(err)
	}
	wrapTestCheckFindings(t, "osv-scanner", scan.TypeDependency, fs)
	if len(fs) != 6 {
		t.Fatalf("%d findings, want 6 (2 lodash, 2 minimist, 2 x/text)", len(fs))
	}
	cases := []struct {
		rule, file string
		line       int
		sev        finding.Severity
		fixed      string
		alias      string
		cwe        finding.CWE
	}{
		{"GHSA-35jh-r3h4-6jhm", "webapp/package-lock.json", 15, finding.High, "4.17.21", "CVE-2021-23337", "CWE-77"},
		{"GHSA-p6mc-m468-83gw", "webapp/package-lock.json", 15, finding.High, "4.17.19", "CVE-2020-8203", "CWE-1321"},
		{"GHSA-xvch-5gv4-984h", "webapp/package-lock.json", 20, finding.Critical, "1.2.6", "CVE-2021-44906", "CWE-1321"},
		{"GHSA-vh95-rmgr-6w4m", "webapp/package-lock.json", 20, finding.Medium, "1.2.3", "CVE-2020-7598", "CWE-1321"},
		{"GO-2021-0113", "goapp/go.mod", 5, finding.Medium, "0.3.7", "CVE-2021-38561", ""},
	}
	for _, c := range cases {
		f := wrapTestFind(fs, c.rule, c.file)
		if f == nil {
			t.Errorf("no %s in %s", c.rule, c.file)
			continue
		}
		if f.Line != c.line || f.Severity != c.sev || f.CWE != c.cwe {
			t.Errorf("%s: line %d %s %q, want %d %s %q", c.rule, f.Line, f.Severity, f.CWE, c.line, c.sev, c.cwe)
		}
		if !strings.Contains(f.Description, "Fixed in "+c.fixed+".") {
			t.Errorf("%s: description %q lacks the fixed version %s", c.rule, f.Description, c.fixed)
		}
		if al, _ := f.Metadata["aliases"].([]string); !strings.Contains(strings.Join(al, " "), c.alias) {
			t.Errorf("%s: aliases %v lack %s", c.rule, al, c.alias)
		}
	}

	for name, out := range map[string][]byte{
		"truncated": full[:len(full)/3],
		"empty":     nil,
		"not json":  []byte("Scanning dir /x\n"),
	} {
		if _, err := osvParse(wrapRecordedRoot, out, lines); err == nil {
			t.Errorf("%s output parsed without error", name)
		}
	}
	if fs, err := osvParse(wrapRecordedRoot, wrapTestRead(t, "osv-scanner/no-db.json"), lines); err != nil || len(fs) != 0 {
		t.Errorf("empty results = %d findings, %v", len(fs), err)
	}
}

func TestOSVSeverity(t *testing.T) {
	cases := []struct {
		score, word string
		want        finding.Severity
	}{
		{"9.8", "", finding.Critical},
		{"7.2", "LOW", finding.High},
		{"4.0", "", finding.Medium},
		{"3.9", "", finding.Low},
		{"", "CRITICAL", finding.Critical},
		{"", "MODERATE", finding.Medium},
		{"", "LOW", finding.Low},
		{"", "", finding.Medium},
		{"0", "", finding.Medium},
		{"n/a", "HIGH", finding.High},
	}
	for _, c := range cases {
		if got := osvSeverity(c.score, c.word); got != c.want {
			t.Errorf("osvSeverity(%q, %q) = %s, want %s", c.score, c.word, got, c.want)
		}
	}
}

func TestOSVVersionLess(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"1.2.0", "1.2.6", true},
		{"1.2.6", "1.2.0", false},
		{"1.9.2", "1.10.0", true},
		{"v0.3.6", "0.3.7", true},
		{"1.2", "1.2.1", true},
		{"1.2.0", "1.2.0", false},
		{"1.0.0-rc1", "1.0.0-rc2", true},
	}
	for _, c := range cases {
		if got := osvVersionLess(c.a, c.b); got != c.want {
			t.Errorf("osvVersionLess(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestOSVScanExitCodes(t *testing.T) {
	db := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(db, "osv-scalibr", "npm", "all.zip"), "zip")
	cases := []struct {
		name, stdout, stderr string
		code                 int
		wantErr              string
		findings             int
	}{
		{"vulns exit 1", "osv-scanner/findings.json", "", 1, "", 6},
		{"no sources exit 128", "", "osv-scanner/no-sources.stderr", 128, "", 0},
		{"missing ecosystem db exit 127", "osv-scanner/no-db.json", "osv-scanner/no-db.stderr", 127, "no offline version of the OSV database", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := wrapTestFakeTool(t, "--version", "osv-scanner version: 2.5.0", c.stdout, c.stderr, c.code)
			s := OSV(wrapTestConfig(map[string]string{"SVC_OSV_SCANNER_PATH": tool, "SVC_OSV_DB": db}))
			if v, hint, ok := s.Available(context.Background()); !ok || v != "2.5.0" {
				t.Fatalf("Available = %q %q %v", v, hint, ok)
			}
			target := t.TempDir()
			wrapTestWriteFile(t, filepath.Join(target, "package-lock.json"), "{}")
			fs, err := s.Scan(context.Background(), scan.Target{Path: target})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || len(fs) != c.findings {
				t.Fatalf("Scan = %d findings, %v; want %d", len(fs), err, c.findings)
			}
		})
	}
}

func FuzzOSVParse(f *testing.F) {
	f.Add(wrapTestRead(f, "osv-scanner/findings.json"))
	f.Add(wrapTestRead(f, "osv-scanner/no-db.json"))
	f.Add([]byte(`{"results":[{"source":{"path":"/tmp/scandfix/go.mod"},"packages":[{"package":{"name":"m","version":"1.0.0","ecosystem":"Go"},"groups":[{"ids":["GO-1"],"aliases":["CVE-1"],"max_severity":"7.5"}],"vulnerabilities":[{"id":"GO-1","affected":[{"package":{"name":"m"},"ranges":[{"events":[{"introduced":"0"},{"fixed":"1.0.1"}]}]}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		fs, err := osvParse(wrapRecordedRoot, out, func(string, string, string) int { return 1 })
		if err != nil {
			return
		}
		for _, x := range fs {
			if !x.Severity.Valid() || x.RuleID == "" {
				t.Fatalf("invalid finding %+v", x)
			}
		}
	})
}

// osvTriples counts the distinct (lockfile, package, version, advisory)
// of an osv-scanner report: what the tool itself says is vulnerable.
func osvTriples(t *testing.T, report []byte) int {
	t.Helper()
	var rep osvReport
	if err := decodeJSON("osv-scanner", report, &rep); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rep.Results {
		for _, p := range r.Packages {
			for _, g := range p.Groups {
				seen[r.Source.Path+"\x00"+p.Package.Name+"\x00"+p.Package.Version+"\x00"+g.IDs[0]] = true
			}
		}
	}
	return len(seen)
}

// A package installed at several versions (NodeGoat's nested minimist and
// lodash) is one finding per (package, version, advisory), each pointing
// at its own lockfile entry with its own fixed version, and they survive
// the fingerprint collapse of Prepare.
func TestOSVOneFindingPerPackageVersionAdvisory(t *testing.T) {
	report := wrapTestRead(t, "osv-scanner/multi-version.json")
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "projects", "nodegoat"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := osvParse("/srv/scan/nodegoat", report, declLines(root))
	if err != nil {
		t.Fatal(err)
	}
	prepared := finding.Prepare("s", fs, nil, nil)
	if want := osvTriples(t, report); want != 10 || len(prepared) != want {
		t.Fatalf("%d findings after Prepare, the tool reports %d (package, version, advisory) triples (want 10)", len(prepared), want)
	}
	type key struct{ version, rule string }
	got := map[key]finding.Finding{}
	for _, f := range prepared {
		if f.Metadata["package"] == "minimist" {
			got[key{f.Metadata["version"].(string), f.RuleID}] = f
		}
	}
	for _, c := range []struct {
		version, rule, fixed string
		line                 int
	}{
		{"0.0.8", "GHSA-xvch-5gv4-984h", "0.2.4", 44},
		{"0.0.10", "GHSA-xvch-5gv4-984h", "0.2.4", 55},
		{"1.2.0", "GHSA-xvch-5gv4-984h", "1.2.6", 33},
		{"1.2.0", "GHSA-vh95-rmgr-6w4m", "1.2.3", 33},
	} {
		f, ok := got[key{c.version, c.rule}]
		if !ok {
			t.Errorf("no finding for minimist %s %s", c.version, c.rule)
			continue
		}
		if f.Metadata["fixed_version"] != c.fixed || f.Line != c.line || !strings.Contains(f.Title, "minimist "+c.version) {
			t.Errorf("minimist %s %s: fixed %v line %d title %q; want fixed %s line %d", c.version, c.rule, f.Metadata["fixed_version"], f.Line, f.Title, c.fixed, c.line)
		}
	}
}

// Issue 12 item 6: osv-scanner runs only over the lockfiles whose
// ecosystem database is present; the others are skipped parts with a hint,
// so a missing PyPI database never loses the npm results.
func TestOSVNarrowsToEcosystemsWithData(t *testing.T) {
	db := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(db, "osv-scalibr", "npm", "all.zip"), "zip")
	target := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(target, "web", "package-lock.json"), "{}")
	wrapTestWriteFile(t, filepath.Join(target, "api", "requirements.txt"), "flask==0.12\n")
	wrapTestWriteFile(t, filepath.Join(target, "api", "requirements-dev.txt"), "pytest\n")
	wrapTestWriteFile(t, filepath.Join(target, "node_modules", "x", "package-lock.json"), "{}")
	argsFile := filepath.Join(t.TempDir(), "args")
	report, err := filepath.Abs(filepath.Join(wrapTestData, "osv-scanner", "findings.json"))
	if err != nil {
		t.Fatal(err)
	}
	tool := wrapTestScript(t, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'osv-scanner version: 2.5.0'; exit 0; fi\n"+
		"printf '%s\\n' \"$@\" > "+argsFile+"\ncat "+report+"\nexit 1\n")
	s := OSV(wrapTestConfig(map[string]string{"SVC_OSV_SCANNER_PATH": tool, "SVC_OSV_DB": db}))
	fs, err := s.Scan(context.Background(), scan.Target{Path: target})
	var partial *scan.PartialSkip
	if !errors.As(err, &partial) || len(partial.Parts) != 1 {
		t.Fatalf("err = %v, want one skipped part", err)
	}
	p := partial.Parts[0]
	if p.Part != "PyPI" || p.Reason != scan.SkipDatabaseNotConfigured ||
		!strings.Contains(p.Hint, "api/requirements-dev.txt, api/requirements.txt") || !strings.Contains(p.Hint, "PyPI/all.zip") {
		t.Errorf("skipped part = %+v", p)
	}
	if len(fs) != 6 {
		t.Errorf("the npm results were lost: %d findings", len(fs))
	}
	args, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(args))
	if !slices.Contains(got, filepath.Join(target, "web", "package-lock.json")) || slices.Contains(got, "-r") ||
		strings.Contains(string(args), "requirements") || strings.Contains(string(args), "node_modules") {
		t.Errorf("osv-scanner ran with %q", got)
	}
	// Nothing with data to check: no run, only the skipped part.
	only := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(only, "requirements.txt"), "flask\n")
	os.Remove(argsFile)
	fs, err = s.Scan(context.Background(), scan.Target{Path: only})
	if !errors.As(err, &partial) || len(fs) != 0 {
		t.Errorf("PyPI-only target: %d findings, %v", len(fs), err)
	}
	if _, err := os.Stat(argsFile); err == nil {
		t.Error("osv-scanner ran although no lockfile had its database")
	}
}
