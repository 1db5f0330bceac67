package wrapped

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

func TestGosecParse(t *testing.T) {
	full := wrapTestRead(t, "gosec/findings.json")
	root, dir := wrapRecordedRoot, wrapRecordedRoot+"/goapp"
	cases := []struct {
		name     string
		out      []byte
		wantErr  bool
		want     int
		typeErrs int
	}{
		{"recorded findings", full, false, 4, 0},
		{"recorded with a dependency missing", wrapTestRead(t, "gosec/missing-deps.json"), false, 3, 1},
		{"recorded empty", wrapTestRead(t, "gosec/empty.json"), false, 0, 0},
		{"no output", nil, true, 0, 0},
		{"truncated", full[:len(full)*2/3], true, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, typeErrs, err := gosecParse(root, dir, c.out)
			if (err != nil) != c.wantErr || len(fs) != c.want || len(typeErrs) != c.typeErrs {
				t.Fatalf("gosecParse = %d findings, %v type errors, %v; want %d, %d, err=%v", len(fs), typeErrs, err, c.want, c.typeErrs, c.wantErr)
			}
			wrapTestCheckFindings(t, "gosec", scan.TypeCode, fs)
		})
	}
	fs, _, _ := gosecParse(root, dir, full)
	cases2 := []struct {
		rule string
		line int
		sev  finding.Severity
		cwe  finding.CWE
	}{
		{"G702", 28, finding.High, "CWE-78"},
		{"G204", 28, finding.Medium, "CWE-78"},
		{"G401", 27, finding.Medium, "CWE-328"},
		{"G501", 6, finding.Medium, "CWE-327"},
	}
	for _, c := range cases2 {
		f := wrapTestFind(fs, c.rule, "goapp/main.go")
		if f == nil || f.Line != c.line || f.Severity != c.sev || f.CWE != c.cwe {
			t.Errorf("%s = %+v, want goapp/main.go:%d %s %s", c.rule, f, c.line, c.sev, c.cwe)
		}
	}
}

func TestGosecLine(t *testing.T) {
	for in, want := range map[string]int{"28": 28, "28-30": 28, "": 0, "x": 0, "-3": 0} {
		if got := gosecLine(in); got != want {
			t.Errorf("gosecLine(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestGosecScanModules: gosec runs once in every module root, never in
// vendored or testdata modules, and its exit codes are read right.
func TestGosecScanModules(t *testing.T) {
	target := t.TempDir()
	for _, d := range []string{"svc/a", "svc/b", "vendor/x", "svc/a/testdata/m", "node_modules/y"} {
		if err := os.MkdirAll(filepath.Join(target, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(target, d, "go.mod"), []byte("module m\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(t.TempDir(), "dirs")
	report, _ := filepath.Abs(filepath.Join(wrapTestData, "gosec/empty.json"))
	tool := wrapTestScript(t, "#!/bin/sh\n[ \"$1\" = -version ] && { echo 'Version: dev'; exit 0; }\npwd >> "+log+"\ncat "+report+"\nexit 0\n")
	s := Gosec(wrapTestConfig(map[string]string{"SVC_GOSEC_PATH": tool}))
	if _, err := s.Scan(context.Background(), scan.Target{Path: target}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	got := strings.Fields(string(b))
	want := []string{filepath.Join(target, "svc/a"), filepath.Join(target, "svc/b")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("gosec ran in %v, want %v", got, want)
	}
}

func TestGosecScanExitCodes(t *testing.T) {
	target := t.TempDir()
	if err := os.WriteFile(filepath.Join(target, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, stdout, stderr string
		code                 int
		wantErr              string
		findings             int
	}{
		{"issues exit 1", "gosec/findings.json", "", 1, "", 4},
		{"clean exit 0", "gosec/empty.json", "", 0, "", 0},
		{"no packages", "", "gosec/no-packages.stderr", 1, "", 0},
		{"crash", "", "bandit/crash.stderr", 2, "Could not read config file", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := wrapTestFakeTool(t, "-version", "Version: dev", c.stdout, c.stderr, c.code)
			s := Gosec(wrapTestConfig(map[string]string{"SVC_GOSEC_PATH": tool}))
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

func FuzzGosecParse(f *testing.F) {
	f.Add(wrapTestRead(f, "gosec/findings.json"))
	f.Add(wrapTestRead(f, "gosec/missing-deps.json"))
	f.Add(wrapTestRead(f, "gosec/empty.json"))
	f.Add([]byte(`{"Issues":[{"severity":"HIGH","confidence":"LOW","cwe":{"id":"22"},"rule_id":"G304","details":"d","file":"/tmp/scandfix/goapp/a.go","line":"3-5","column":"1"}]}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		fs, _, err := gosecParse(wrapRecordedRoot, wrapRecordedRoot+"/goapp", out)
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
