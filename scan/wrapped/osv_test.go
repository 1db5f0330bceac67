package wrapped

import (
	"context"
	"path/filepath"
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
			fs, err := s.Scan(context.Background(), scan.Target{Path: t.TempDir()})
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
