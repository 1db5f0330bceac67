package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// End-to-end tests of what a developer acts on in the reports: --show,
// links, the fixed version, new findings first, --version, flags without
// case, -server checked before any work, and one finding per
// vulnerability however many tools reported it.

func TestCLIVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		r := scandCLI(t, t.TempDir(), nil, arg).want(t, 0)
		if !regexp.MustCompile(`^scand \d+\.\d+\.\d+ \(go`).MatchString(r.stdout) {
			t.Errorf("scand %s printed %q", arg, r.stdout)
		}
	}
}

// TestCLIFlagsIgnoreCase: severities, formats and scan types are read
// without case.
func TestCLIFlagsIgnoreCase(t *testing.T) {
	leaky := gitRepo(t, map[string]string{"config.py": "aws_key = \"" + awsKey + "\"\n", "deploy.sh": "TOKEN=" + githubPAT + "\n"})
	r := scandCLI(t, leaky, nil, "scan", "--fail-on", "HIGH", "--format", "JSON", "--type", "Code", "--scanners", "secrets", "--show", "Critical").want(t, 1)
	if rep := parseReport(t, r.stdout); rep.Summary.Gating != 2 || len(rep.Findings) != 2 {
		t.Errorf("gating %d, %d findings, want 2 and 2 (JSON lists every finding whatever --show says)", rep.Summary.Gating, len(rep.Findings))
	}
	scandCLI(t, leaky, nil, "scan", "--fail-on", "Critical", "--format", "Markdown", "--scanners", "secrets").want(t, 1)
	if r := scandCLI(t, leaky, nil, "scan", "--show", "urgent").want(t, 2); !strings.Contains(r.stderr, "-show must be one of") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestCLIShowHidesRowsNotTheGate: --show critical keeps the high PAT out
// of the text and markdown listings, says how many it left out, and the
// gate at high still counts it.
func TestCLIShowHidesRowsNotTheGate(t *testing.T) {
	leaky := gitRepo(t, map[string]string{"config.py": "aws_key = \"" + awsKey + "\"\n", "deploy.sh": "TOKEN=" + githubPAT + "\n"})
	for _, format := range []string{"text", "markdown"} {
		r := scandCLI(t, leaky, nil, "scan", "--scanners", "secrets", "--fail-on", "high", "--format", format, "--show", "critical").want(t, 1)
		if strings.Contains(r.stdout, "deploy.sh") || !strings.Contains(r.stdout, "config.py") {
			t.Errorf("%s: the high finding is listed or the critical one is not:\n%s", format, r.stdout)
		}
		if !strings.Contains(r.stdout, "1 finding below critical not listed") {
			t.Errorf("%s: no note about the hidden row:\n%s", format, r.stdout)
		}
		if !strings.Contains(r.stderr, "2 finding(s) at or above high") {
			t.Errorf("%s: --show changed the gate: %s", format, r.stderr)
		}
	}
	r := scandCLI(t, leaky, nil, "scan", "--scanners", "secrets", "--format", "sarif", "--show", "critical").want(t, 0)
	if !strings.Contains(r.stdout, "deploy.sh") {
		t.Error("--show hid a result from SARIF")
	}
}

// TestCLIMarkdownLinksAndNewFirst: with a remote origin the markdown links
// point at the scanned commit on its web host (also from a subdirectory),
// --link-base overrides the guess, and a diff lists new findings first.
func TestCLIMarkdownLinksAndNewFirst(t *testing.T) {
	repo := gitRepo(t, map[string]string{"svc/config.py": "aws_key = \"" + awsKey + "\"\n"})
	git(t, repo, "remote", "add", "origin", "git@github.com:acme/shop.git")
	writeFiles(t, repo, map[string]string{"svc/deploy.sh": "TOKEN=" + githubPAT + "\n"})
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "second")
	head := git(t, repo, "rev-parse", "HEAD")

	r := scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--format", "markdown").want(t, 0)
	if want := "(https://github.com/acme/shop/blob/" + head + "/svc/deploy.sh#L1)"; !strings.Contains(r.stdout, want) {
		t.Errorf("no absolute link %s in:\n%s", want, r.stdout)
	}
	r = scandCLI(t, filepath.Join(repo, "svc"), nil, "scan", "--scanners", "secrets", "--format", "markdown").want(t, 0)
	if want := "[deploy.sh:1](https://github.com/acme/shop/blob/" + head + "/svc/deploy.sh#L1)"; !strings.Contains(r.stdout, want) {
		t.Errorf("scan of a subdirectory: no link %s in:\n%s", want, r.stdout)
	}
	r = scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--format", "markdown", "--link-base", "https://git.corp.example/acme/shop/-/blob/"+head).want(t, 0)
	if want := "(https://git.corp.example/acme/shop/-/blob/" + head + "/svc/deploy.sh#L1)"; !strings.Contains(r.stdout, want) {
		t.Errorf("--link-base: no link %s in:\n%s", want, r.stdout)
	}
	if r := scandCLI(t, repo, nil, "scan", "--link-base", "javascript:alert(1)").want(t, 2); !strings.Contains(r.stderr, "-link-base must be an http(s) URL") {
		t.Errorf("stderr %q", r.stderr)
	}
	git(t, repo, "remote", "remove", "origin")
	r = scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--format", "markdown").want(t, 0)
	if !strings.Contains(r.stdout, "(svc/deploy.sh#L1)") {
		t.Errorf("without a remote the links are not relative:\n%s", r.stdout)
	}

	// The diff: deploy.sh is new against HEAD~1, config.py unchanged.
	r = scandCLI(t, repo, nil, "diff", "--base", "HEAD~1", "--scanners", "secrets").want(t, 0)
	newAt, oldAt := strings.Index(r.stdout, "== new =="), strings.Index(r.stdout, "== unchanged ==")
	if newAt < 0 || oldAt < newAt || !strings.Contains(r.stdout[newAt:oldAt], "deploy.sh") || !strings.Contains(r.stdout[oldAt:], "config.py") {
		t.Errorf("the diff does not list the new finding first:\n%s", r.stdout)
	}
}

// TestCLIServerCheckedBeforeScanning: a -server without a scheme is a
// usage error, and a missing SCAND_API_KEY is said before any scanner runs.
func TestCLIServerCheckedBeforeScanning(t *testing.T) {
	repo := gitRepo(t, map[string]string{"config.py": "aws_key = \"" + awsKey + "\"\n"})
	cases := []struct {
		server, msg string
	}{
		{"scand.corp.example:8000", "is not an http(s) URL"},
		{"127.0.0.1:8000", "is not an http(s) URL"},
		{"https://scand.corp.example", "SCAND_API_KEY"},
	}
	for _, c := range cases {
		for _, cmd := range []string{"scan", "diff"} {
			args := []string{cmd, "--scanners", "secrets", "--server", c.server}
			if cmd == "diff" {
				args = append(args, "--base", "HEAD")
			}
			r := scandCLI(t, repo, nil, args...).want(t, 2)
			if !strings.Contains(r.stderr, c.msg) || strings.Contains(r.stderr, "scand: secrets:") || strings.Contains(r.stderr, "scanning the base") {
				t.Errorf("%s --server %s: stderr lacks %q or shows scanning:\n%s", cmd, c.server, c.msg, r.stderr)
			}
		}
	}
	// A daemon on this machine may be in dev mode: a warning, then the
	// scan (and exit 3 here, as nothing listens on port 9).
	r := scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--server", "http://127.0.0.1:9").want(t, 3)
	if !strings.Contains(r.stderr, "SCAND_API_KEY is not set") || !strings.Contains(r.stderr, "cannot reach the scand daemon") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// TestCLIAliasedAdvisoryIsOneFinding runs osv-scanner, govulncheck and
// trivy (stand-ins that print the real tools' recorded output on the
// wrapper fixture tree) through the built binary: GO-2021-0113 (osv-scanner,
// govulncheck) and CVE-2021-38561 (trivy) are one finding carrying both
// ids, with the fixed version in the text report.
func TestCLIAliasedAdvisoryIsOneFinding(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/wrappers/tree")); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	tools, dbs := t.TempDir(), t.TempDir()
	fake := func(name, versionLine, recording string) string {
		out, err := os.ReadFile(filepath.Join("testdata/wrappers", recording))
		if err != nil {
			t.Fatal(err)
		}
		body := strings.ReplaceAll(string(out), "/tmp/scandfix", root)
		outPath := filepath.Join(tools, name+".out")
		writeFiles(t, tools, map[string]string{name + ".out": body})
		script := filepath.Join(tools, name)
		sh := "#!/bin/sh\ncase \"$1\" in --version|-version) echo '" + versionLine + "'; exit 0;; esac\ncat '" + outPath + "'\n"
		if err := os.WriteFile(script, []byte(sh), 0o755); err != nil {
			t.Fatal(err)
		}
		return script
	}
	writeFiles(t, dbs, map[string]string{
		"osv/osv-scalibr/Go/all.zip":  "stand-in",
		"osv/osv-scalibr/npm/all.zip": "stand-in",
		"trivy/db/trivy.db":           "stand-in",
		"trivy/db/metadata.json":      `{"Version":2,"UpdatedAt":"2026-11-20T00:00:00Z","NextUpdate":"2026-11-21T00:00:00Z","DownloadedAt":"2026-11-20T01:00:00Z"}`,
	})
	govulndb, err := filepath.Abs("testdata/wrappers/vulndb/govulndb")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"SVC_OSV_SCANNER_PATH": fake("osv-scanner", "osv-scanner version: 2.5.0", "osv-scanner/findings.json"),
		"SVC_GOVULNCHECK_PATH": fake("govulncheck", "Scanner: govulncheck@v1.8.0", "govulncheck/findings.json"),
		"SVC_TRIVY_PATH":       fake("trivy", "Version: 0.74.0", "trivy/findings.json"),
		"SVC_OSV_DB":           filepath.Join(dbs, "osv"),
		"SVC_TRIVY_CACHE":      filepath.Join(dbs, "trivy"),
		"SVC_GOVULN_DB":        govulndb,
	}
	args := []string{"scan", root, "--type", "dependency", "--scanners", "osv-scanner,govulncheck,trivy"}
	r := scandCLI(t, root, env, append(args, "--format", "json")...).want(t, 0)
	rep := parseReport(t, r.stdout)
	for _, ran := range []string{"osv-scanner: 6 findings", "govulncheck: 2 findings", "trivy: 6 findings"} {
		if !strings.Contains(r.stderr, ran) {
			t.Fatalf("no %q: the stand-ins did not run as planned; stderr:\n%s", ran, r.stderr)
		}
	}
	var carriers []string
	for _, f := range rep.Findings {
		ids := metaList(f.Metadata["aliases"])
		if slices.Contains(ids, "GO-2021-0113") || slices.Contains(ids, "CVE-2021-38561") || f.RuleID == "GO-2021-0113" || f.RuleID == "CVE-2021-38561" {
			carriers = append(carriers, f.Scanner+" "+f.RuleID)
			if !slices.Contains(ids, "GO-2021-0113") || !slices.Contains(ids, "CVE-2021-38561") || f.Metadata["advisory_id"] != "CVE-2021-38561" {
				t.Errorf("%s %s: aliases %v, advisory_id %v", f.Scanner, f.RuleID, ids, f.Metadata["advisory_id"])
			}
		}
	}
	if len(carriers) != 1 {
		t.Fatalf("GO-2021-0113 / CVE-2021-38561 is %d findings (%v), want 1", len(carriers), carriers)
	}
	if len(rep.Findings) != 6 {
		t.Errorf("%d findings, want 6 (one per vulnerability: 2 x/text, 2 lodash, 2 minimist)", len(rep.Findings))
	}
	r = scandCLI(t, root, env, args...).want(t, 0)
	if !strings.Contains(r.stdout, "(fixed in v0.3.7)") || !strings.Contains(r.stdout, "(fixed in 4.17.21)") {
		t.Errorf("the text report lacks the fixed versions:\n%s", r.stdout)
	}
}

func metaList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
