package wrapped

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

func TestKicsParse(t *testing.T) {
	full := wrapTestRead(t, "kics/findings.json")
	fs, err := kicsParse(wrapRecordedRoot, full)
	if err != nil {
		t.Fatal(err)
	}
	wrapTestCheckFindings(t, "kics", scan.TypeIaC, fs)
	if len(fs) != 38 {
		t.Fatalf("%d findings, want the 38 KICS counted", len(fs))
	}
	cases := []struct {
		rule, file string
		line       int
		sev        finding.Severity
		cwe        finding.CWE
		title      string
	}{
		{"38c5ee0d-7f22-4260-ab72-5073048df100", "infra/main.tf", 3, finding.Critical, "CWE-732", "S3 Bucket ACL Allows Read Or Write to All Users"},
		{"dd29336b-fe57-445b-a26e-e6aa867ae609", "infra/k8s/deployment.yaml", 19, finding.High, "CWE-269", "Container Is Privileged"},
		{"fd54f200-402c-4333-a5a4-36ef6709af2f", "Dockerfile", 1, finding.High, "CWE-250", "Missing User Instruction"},
	}
	for _, c := range cases {
		f := wrapTestFind(fs, c.rule, c.file)
		if f == nil {
			t.Errorf("no %s (%s) in %s", c.title, c.rule, c.file)
			continue
		}
		if f.Line != c.line || f.Severity != c.sev || f.CWE != c.cwe || f.Title != c.title {
			t.Errorf("%s: %q line %d %s %q", c.rule, f.Title, f.Line, f.Severity, f.CWE)
		}
	}
	if fs, err := kicsParse(wrapRecordedRoot, wrapTestRead(t, "kics/empty.json")); err != nil || len(fs) != 0 {
		t.Errorf("recorded clean run = %d findings, %v", len(fs), err)
	}
	for name, out := range map[string][]byte{"empty": nil, "truncated": full[:len(full)/2]} {
		if _, err := kicsParse(wrapRecordedRoot, out); err == nil {
			t.Errorf("%s report parsed without error", name)
		}
	}
}

// wrapTestFakeKics stands in for kics: it writes report (a fixture) as
// results.json into the -o directory and prints stderr, then exits code.
func wrapTestFakeKics(t *testing.T, report, stderr string, code int) string {
	t.Helper()
	abs := func(rel string) string {
		if rel == "" {
			return "/dev/null"
		}
		p, _ := filepath.Abs(filepath.Join(wrapTestData, rel))
		return p
	}
	copyReport := ""
	if report != "" {
		copyReport = fmt.Sprintf("cp %q \"$out/results.json\"\n", abs(report))
	}
	return wrapTestScript(t, fmt.Sprintf(`#!/bin/sh
[ "$1" = version ] && { echo 'Keeping Infrastructure as Code Secure v2.2.0'; exit 0; }
out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
%scat %q >&2
exit %d
`, copyReport, abs(stderr), code))
}

func TestKicsScanExitCodes(t *testing.T) {
	assets := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(assets, "queries", "q"), "")
	wrapTestWriteFile(t, filepath.Join(assets, "libraries", "l"), "")
	cases := []struct {
		name, report, stderr string
		code                 int
		wantErr              string
		findings             int
	}{
		{"results ignored on exit", "kics/findings.json", "", 0, "", 38},
		{"results exit 60", "kics/findings.json", "", 60, "", 38},
		{"bad assets exit 126", "", "kics/crash.stderr", 126, "stat /nonexistent/queries", 0},
		{"no report", "", "", 0, "kics wrote no report", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := wrapTestFakeKics(t, c.report, c.stderr, c.code)
			s := Kics(wrapTestConfig(map[string]string{"SVC_KICS_PATH": tool, "SVC_KICS_QUERIES": filepath.Join(assets, "queries")}))
			if v, hint, ok := s.Available(context.Background()); !ok || v != "2.2.0" {
				t.Fatalf("Available = %q %q %v", v, hint, ok)
			}
			target := t.TempDir()
			wrapTestWriteFile(t, filepath.Join(target, "main.tf"), "resource \"aws_s3_bucket\" \"b\" {}\n")
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

func FuzzKicsParse(f *testing.F) {
	f.Add(wrapTestRead(f, "kics/findings.json"))
	f.Add(wrapTestRead(f, "kics/empty.json"))
	f.Add([]byte(`{"queries":[{"query_name":"q","query_id":"id","severity":"HIGH","cwe":"22","files":[{"file_name":"a.tf","line":3,"expected_value":"e","actual_value":"a"}]}]}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		fs, err := kicsParse(wrapRecordedRoot, out)
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

// TestKicsGetsOnlyIaCFiles: KICS is handed the files it can analyse, not
// the target: no JavaScript, no package manifests, nothing under
// node_modules or an [ignore] path; a tree without any is not run at all;
// a path -p cannot carry makes it fall back to the whole target.
func TestKicsGetsOnlyIaCFiles(t *testing.T) {
	assets := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(assets, "queries", "q"), "")
	wrapTestWriteFile(t, filepath.Join(assets, "libraries", "l"), "")
	argsFile := filepath.Join(t.TempDir(), "args")
	tool := wrapTestScript(t, fmt.Sprintf(`#!/bin/sh
[ "$1" = version ] && { echo 'Keeping Infrastructure as Code Secure v2.2.0'; exit 0; }
printf '%%s\n' "$@" > %q
out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
echo '{"queries":[]}' > "$out/results.json"
`, argsFile))
	s := Kics(wrapTestConfig(map[string]string{"SVC_KICS_PATH": tool, "SVC_KICS_QUERIES": filepath.Join(assets, "queries")}))
	pathsOf := func(root string, ignore scan.PathFilter) []string {
		t.Helper()
		os.Remove(argsFile)
		if _, err := s.Scan(context.Background(), scan.Target{Path: root, Ignore: ignore}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(argsFile)
		if err != nil {
			return nil // not run
		}
		args := strings.Split(strings.TrimSpace(string(b)), "\n")
		i := slices.Index(args, "-p")
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("no -p in %q", args)
		}
		var rels []string
		for _, p := range strings.Split(args[i+1], ",") {
			rel, _ := filepath.Rel(root, p)
			rels = append(rels, filepath.ToSlash(rel))
		}
		return rels
	}

	root := t.TempDir()
	for _, f := range []string{"src/app.js", "src/util.ts", "src/i.jsx", "package.json", "package-lock.json", "tsconfig.app.json",
		"node_modules/x/deploy.yaml", "node_modules/x/main.tf", "skipme/k8s.yaml", "README.md"} {
		wrapTestWriteFile(t, filepath.Join(root, f), "x\n")
	}
	// Data files with KICS's extensions but no platform's keys: left out.
	wrapTestWriteFile(t, filepath.Join(root, "i18n/de.json"), `{"KEY_1": "Services and tasks: resources", "KEY_2": "kind"}`+"\n")
	wrapTestWriteFile(t, filepath.Join(root, "data/challenges.yml"), "challenge1:\n  name: XSS\n  difficulty: 3\n")
	iac := map[string]string{
		"Dockerfile":                  "FROM debian\n",
		"ansible/roles/web/tasks.yml": "- name: install nginx\n  apt: name=nginx\n",
		"compose.yaml":                "services:\n  web:\n    image: nginx\n",
		"infra/main.tf":               "resource \"aws_s3_bucket\" \"b\" {}\n",
		"k8s/deploy.yaml":             "apiVersion: v1\nkind: Pod\n",
		"template.json":               `{"AWSTemplateFormatVersion": "2010-09-09", "Resources": {}}` + "\n",
		"arm.json":                    "{\n  \"$schema\": \"https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#\"\n}\n",
	}
	var want []string
	for f, body := range iac {
		wrapTestWriteFile(t, filepath.Join(root, f), body)
		want = append(want, f)
	}
	slices.Sort(want)
	got := pathsOf(root, ignoreDir("skipme"))
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("-p lists %v, want %v", got, want)
	}

	jsOnly := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(jsOnly, "app.js"), "x\n")
	wrapTestWriteFile(t, filepath.Join(jsOnly, "package.json"), "{}\n")
	if got := pathsOf(jsOnly, nil); got != nil {
		t.Errorf("kics ran on a tree without IaC files, with -p %v", got)
	}

	comma := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(comma, "a,b", "main.tf"), "x\n")
	if got := pathsOf(comma, nil); !slices.Equal(got, []string{"."}) {
		t.Errorf("a path with a comma: -p %v, want the whole target", got)
	}
}

// ignoreDir is an [ignore] paths filter of one top-level directory.
type ignoreDir string

func (d ignoreDir) Ignored(rel string, isDir bool) bool {
	return rel == string(d) || strings.HasPrefix(rel, string(d)+"/")
}
func (d ignoreDir) Patterns() []string { return []string{"/" + string(d) + "/"} }
