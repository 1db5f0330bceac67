package wrapped

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

func TestTrivyParse(t *testing.T) {
	full := wrapTestRead(t, "trivy/findings.json")
	fs, err := trivyParse(wrapRecordedRoot, full, wrapTestTreeLines(t), false)
	if err != nil {
		t.Fatal(err)
	}
	wrapTestCheckFindings(t, "trivy", scan.TypeDependency, fs)
	if len(fs) != 6 {
		t.Fatalf("%d findings, want 6", len(fs))
	}
	cases := []struct {
		rule, file string
		line       int
		sev        finding.Severity
		fixed      string
		alias      string
		cwe        finding.CWE
	}{
		{"CVE-2021-44906", "webapp/package-lock.json", 20, finding.Critical, "1.2.6", "GHSA-xvch-5gv4-984h", "CWE-1321"},
		{"CVE-2021-23337", "webapp/package-lock.json", 15, finding.High, "4.17.21", "GHSA-35jh-r3h4-6jhm", "CWE-77"},
		{"CVE-2020-7598", "webapp/package-lock.json", 20, finding.Medium, "1.2.3", "GHSA-vh95-rmgr-6w4m", "CWE-1321"},
		// No vendor severity in the fixture DB: UNKNOWN is not hidden as info.
		{"CVE-2021-38561", "goapp/go.mod", 5, finding.Medium, "0.3.7", "GHSA-ppp9-7jff-5vj2", ""},
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
		if f.Metadata["fixed_version"] != c.fixed || !strings.Contains(f.Description, "Fixed in "+c.fixed+".") {
			t.Errorf("%s: fixed %v, description %q; want %s", c.rule, f.Metadata["fixed_version"], f.Description, c.fixed)
		}
		if al, _ := f.Metadata["aliases"].([]string); !strings.Contains(strings.Join(al, " "), c.alias) {
			t.Errorf("%s: aliases %v lack %s", c.rule, al, c.alias)
		}
	}
	if fs, err := trivyParse(wrapRecordedRoot, wrapTestRead(t, "trivy/empty.json"), nil, false); err != nil || len(fs) != 0 {
		t.Errorf("recorded clean run = %d findings, %v", len(fs), err)
	}
	for name, out := range map[string][]byte{"empty": nil, "truncated": full[:len(full)/2]} {
		if _, err := trivyParse(wrapRecordedRoot, out, nil, false); err == nil {
			t.Errorf("%s output parsed without error", name)
		}
	}
}

func TestTrivyFixedVersion(t *testing.T) {
	cases := []struct{ installed, fixed, want string }{
		{"1.2.0", "0.2.4, 1.2.6", "1.2.6"},
		{"0.1.0", "0.2.4, 1.2.6", "0.2.4"},
		{"4.17.15", "4.17.21", "4.17.21"},
		{"1.0.0", "", ""},
	}
	for _, c := range cases {
		if got := trivyFixedVersion(c.installed, c.fixed); got != c.want {
			t.Errorf("trivyFixedVersion(%q, %q) = %q, want %q", c.installed, c.fixed, got, c.want)
		}
	}
}

func TestTrivyScanCrash(t *testing.T) {
	cache := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(cache, "db", "trivy.db"), "x")
	wrapTestWriteFile(t, filepath.Join(cache, "db", "metadata.json"), "{}")
	tool := wrapTestFakeTool(t, "--version", "Version: 0.74.0", "", "trivy/no-db.stderr", 1)
	s := Trivy(wrapTestConfig(map[string]string{"SVC_TRIVY_PATH": tool, "SVC_TRIVY_CACHE": cache}))
	if v, hint, ok := s.Available(context.Background()); !ok || v != "0.74.0" {
		t.Fatalf("Available = %q %q %v", v, hint, ok)
	}
	_, err := s.Scan(context.Background(), scan.Target{Path: t.TempDir()})
	if err == nil || !strings.HasPrefix(err.Error(), "2026-11-21T19:40:50Z FATAL Fatal error run error") ||
		!strings.Contains(err.Error(), "--skip-db-update cannot be specified") {
		t.Fatalf("err = %v", err)
	}
}

func FuzzTrivyParse(f *testing.F) {
	f.Add(wrapTestRead(f, "trivy/findings.json"))
	f.Add(wrapTestRead(f, "trivy/empty.json"))
	f.Add([]byte(`{"Results":[{"Target":"package-lock.json","Type":"npm","Vulnerabilities":[{"VulnerabilityID":"CVE-1","PkgName":"a","InstalledVersion":"1.0.0","FixedVersion":"0.9.1, 1.0.2","Severity":"HIGH","CweIDs":["CWE-1"],"References":["https://github.com/advisories/GHSA-aaaa-bbbb-cccc"]}]}]}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		fs, err := trivyParse(wrapRecordedRoot, out, nil, false)
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
