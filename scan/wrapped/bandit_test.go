package wrapped

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

func TestBanditParse(t *testing.T) {
	full := wrapTestRead(t, "bandit/findings.json")
	cases := []struct {
		name    string
		out     []byte
		wantErr bool
		want    int
	}{
		{"recorded findings", full, false, 2},
		{"recorded empty", wrapTestRead(t, "bandit/empty.json"), false, 0},
		{"no output", nil, true, 0},
		{"truncated", full[:len(full)/2], true, 0},
		{"not json", []byte("Traceback (most recent call last):"), true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, err := banditParse(wrapRecordedRoot, c.out)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, c.wantErr)
			}
			if len(fs) != c.want {
				t.Fatalf("%d findings, want %d", len(fs), c.want)
			}
			wrapTestCheckFindings(t, "bandit", scan.TypeCode, fs)
		})
	}
	fs, _ := banditParse(wrapRecordedRoot, full)
	shell := wrapTestFind(fs, "B602", "pyapp/app.py")
	if shell == nil {
		t.Fatalf("no B602 in pyapp/app.py: %+v", fs)
	}
	if shell.Line != 8 || shell.Severity != finding.High || shell.CWE != "CWE-78" {
		t.Errorf("B602 = line %d %s %s, want line 8 high CWE-78", shell.Line, shell.Severity, shell.CWE)
	}
	if imp := wrapTestFind(fs, "B404", ""); imp == nil || imp.Severity != finding.Low || imp.Line != 2 {
		t.Errorf("B404 = %+v, want low at line 2", imp)
	}
}

func TestBanditParsePrefersToolCWE(t *testing.T) {
	out := []byte(`{"results":[{"filename":"/r/a.py","issue_severity":"MEDIUM","issue_confidence":"LOW",
		"issue_cwe":{"id":502,"link":"https://cwe.mitre.org/data/definitions/502.html"},
		"issue_text":"x","line_number":3,"test_id":"B999","test_name":"new_check"}]}`)
	fs, err := banditParse("/r", out)
	if err != nil || len(fs) != 1 {
		t.Fatalf("parse: %v, %d findings", err, len(fs))
	}
	if fs[0].CWE != "CWE-502" || fs[0].FilePath != "a.py" || fs[0].Severity != finding.Medium {
		t.Fatalf("finding = %+v", fs[0])
	}
}

func TestBanditScanExitCodes(t *testing.T) {
	target := t.TempDir()
	cases := []struct {
		name     string
		stdout   string
		stderr   string
		code     int
		wantErr  string
		findings int
	}{
		{"findings exit 1", "bandit/findings.json", "", 1, "", 2},
		{"clean exit 0", "bandit/empty.json", "", 0, "", 0},
		{"crash exit 2", "", "bandit/crash.stderr", 2, "Could not read config file", 0},
		{"truncated report", "", "", 1, "not valid JSON", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := wrapTestFakeTool(t, "--version", "bandit 1.6.2", c.stdout, c.stderr, c.code)
			if c.name == "truncated report" {
				tool = wrapTestScript(t, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'bandit 1.6.2'; exit 0; }\nprintf '{\"results\": [{\"filename\": \"/x\"'\nexit 1\n")
			}
			s := Bandit(wrapTestConfig(map[string]string{"SVC_BANDIT_PATH": tool}))
			fs, err := s.Scan(context.Background(), scan.Target{Path: target})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, c.wantErr)
				}
				var te *toolError
				if c.code > 1 && (!errors.As(err, &te) || te.ExitCode != c.code || len(err.Error()) > errHeadLen) {
					t.Fatalf("crash error = %#v, want a toolError with exit %d and ≤200 chars", err, c.code)
				}
				return
			}
			if err != nil || len(fs) != c.findings {
				t.Fatalf("Scan = %d findings, %v; want %d", len(fs), err, c.findings)
			}
		})
	}
}

func TestBanditScanHugeOutputIsCapped(t *testing.T) {
	tool := wrapTestScript(t, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'bandit 1.6.2'; exit 0; }\nhead -c 8000000 /dev/zero | tr '\\0' ' '\nexit 1\n")
	cfg := wrapTestConfig(map[string]string{"SVC_BANDIT_PATH": tool})
	cfg.Runner.MaxStdout = 1 << 20
	_, err := Bandit(cfg).Scan(context.Background(), scan.Target{Path: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Fatalf("err = %v, want the output cap to be reported", err)
	}
}

func TestBanditParseHugeReport(t *testing.T) {
	// 30 000 results (~6 MB) parse, and the cap keeps the high ones.
	var b strings.Builder
	b.WriteString(`{"errors":[],"results":[`)
	const n = 30000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		sev := "LOW"
		if i%100 == 0 {
			sev = "HIGH"
		}
		fmt.Fprintf(&b, `{"filename":"/r/f%d.py","issue_confidence":"HIGH","issue_severity":%q,"issue_text":"t","line_number":%d,"more_info":"","test_id":"B101","test_name":"assert_used"}`, i, sev, i+1)
	}
	b.WriteString(`]}`)
	fs, err := banditParse("/r", []byte(b.String()))
	if err != nil || len(fs) != n {
		t.Fatalf("parse: %v, %d findings", err, len(fs))
	}
	kept := finish(wrapTestConfig(nil), "bandit", fs)
	high := 0
	for _, f := range kept {
		if f.Severity == finding.High {
			high++
		}
	}
	if len(kept) != maxFindings || high != n/100 {
		t.Fatalf("kept %d findings with %d high, want %d with %d", len(kept), high, maxFindings, n/100)
	}
}

func TestBanditRejectsBadTarget(t *testing.T) {
	tool := wrapTestFakeTool(t, "--version", "bandit 1.6.2", "bandit/empty.json", "", 0)
	s := Bandit(wrapTestConfig(map[string]string{"SVC_BANDIT_PATH": tool}))
	for _, p := range []string{"", "relative", "-r", "/nonexistent/dir"} {
		if _, err := s.Scan(context.Background(), scan.Target{Path: p}); err == nil {
			t.Errorf("Scan(%q) accepted a bad target", p)
		}
	}
}

func FuzzBanditParse(f *testing.F) {
	f.Add(wrapTestRead(f, "bandit/findings.json"))
	f.Add(wrapTestRead(f, "bandit/empty.json"))
	f.Add([]byte(`{"results":[{"test_id":"B1","line_number":-5,"filename":"../../etc/x"}]}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		fs, err := banditParse(wrapRecordedRoot, out)
		if err != nil {
			return
		}
		for _, x := range fs {
			if !x.Severity.Valid() || x.RuleID == "" || x.Line < 0 {
				t.Fatalf("invalid finding %+v", x)
			}
		}
	})
}

// Old bandit's stale results are dropped: B322 (Python 2's input) and a
// weak hash declared usedforsecurity=False; a plain md5 stays.
func TestBanditStaleResults(t *testing.T) {
	fs, err := banditParse("/src", []byte(`{"results":[
		{"filename":"/src/a.py","test_id":"B322","test_name":"blacklist","issue_severity":"HIGH","line_number":1,"code":"1 x = input()"},
		{"filename":"/src/a.py","test_id":"B303","test_name":"blacklist","issue_severity":"MEDIUM","line_number":2,"code":"2 h = hashlib.md5(b, usedforsecurity = False)"},
		{"filename":"/src/a.py","test_id":"B324","test_name":"hashlib","issue_severity":"HIGH","line_number":3,"code":"3 h = hashlib.new('md5', usedforsecurity=False)"},
		{"filename":"/src/a.py","test_id":"B303","test_name":"blacklist","issue_severity":"MEDIUM","line_number":4,"code":"4 h = hashlib.md5(b)"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Line != 4 {
		t.Errorf("got %+v, want only the plain md5 on line 4", fs)
	}
}
