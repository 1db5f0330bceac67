package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"scand/scan/proc"
)

// End-to-end tests of the command line: the built binary on git
// repositories made in t.TempDir(), and a real daemon where one is needed.

// Secrets the built-in scanner reports (see scan/secrets' tests).
const (
	awsKey    = "AKIARMASVGVIVCLYPIUW"
	githubPAT = "ghp_x423jAXT3vi7dHRCWVGNqkevtn0RKqoKaCmn"
	stripeKey = "sk_live_51HxYzQ2eZvKYlo2C9xRkLwTbT0PqWmKj8n3VbN4s"
)

type cliResult struct {
	stdout, stderr string
	code           int
}

// scandCLI runs the binary in dir with only PATH, a private HOME and env.
func scandCLI(t *testing.T, dir string, env map[string]string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildScand(t), args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "NO_COLOR=1"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("scand %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return cliResult{stdout.String(), stderr.String(), code}
}

func (r cliResult) want(t *testing.T, code int) cliResult {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	return r
}

// git runs git in dir, failing the test on an error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=scand-test", "-c", "user.email=test@scand.local", "-c", "init.defaultBranch=main",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFiles writes files under dir ("" content removes a file).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if body == "" {
			os.Remove(p)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitRepo makes a repository with one commit of files.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for the command-line tests")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	writeFiles(t, dir, files)
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "first")
	return dir
}

// cliReport is the part of the JSON report the tests read.
type cliReport struct {
	Mode            string `json:"mode"`
	ScannersRun     []string
	ScannersSkipped []struct {
		Name, Reason string
	} `json:"scanners_skipped"`
	Summary struct {
		Findings, Gating, Suppressed, Baselined, Hidden int
		New, Unchanged, Fixed                           *int
	} `json:"summary"`
	Findings []struct {
		Scanner      string         `json:"scanner"`
		Severity     string         `json:"severity"`
		FilePath     string         `json:"file_path"`
		RuleID       string         `json:"rule_id"`
		Fingerprint  string         `json:"fingerprint"`
		Metadata     map[string]any `json:"metadata"`
		DiffStatus   *string        `json:"diff_status"`
		Baselined    bool           `json:"baselined"`
		SuppressedBy *string        `json:"suppressed_by"`
		Triage       string         `json:"triage"`
		Gating       bool           `json:"gating"`
	} `json:"findings"`
}

func parseReport(t *testing.T, out string) cliReport {
	t.Helper()
	var r cliReport
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("the JSON report does not parse: %v\n%s", err, out)
	}
	return r
}

// keys lists "file rule severity [extra]" per finding, sorted.
func (r cliReport) keys() []string {
	var out []string
	for _, f := range r.Findings {
		k := f.FilePath + " " + f.RuleID + " " + f.Severity
		if f.DiffStatus != nil {
			k += " " + *f.DiffStatus
		}
		if f.Baselined {
			k += " baselined"
		}
		if f.SuppressedBy != nil {
			k += " suppressed=" + *f.SuppressedBy
		}
		if o, _ := f.Metadata["original_severity"].(string); o != "" {
			k += " was=" + o
		}
		if f.Triage != "new" {
			k += " " + f.Triage
		}
		if f.Gating {
			k += " GATING"
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func wantKeys(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestCLIExitCodes(t *testing.T) {
	clean := gitRepo(t, map[string]string{"README.md": "nothing here\n"})
	leaky := gitRepo(t, map[string]string{"config.py": "aws_key = \"" + awsKey + "\"\n", "deploy.sh": "TOKEN=" + githubPAT + "\n"})

	t.Run("0: nothing at or above fail-on", func(t *testing.T) {
		scandCLI(t, clean, nil, "scan", "--fail-on", "info", "--scanners", "secrets").want(t, 0)
		// critical only: the PAT is high.
		r := scandCLI(t, leaky, nil, "scan", ".", "--scanners", "secrets", "--fail-on", "critical", "-type", "code")
		r.want(t, 1)
		scandCLI(t, leaky, nil, "scan", "--scanners", "secrets").want(t, 0) // fail-on defaults to none
	})
	t.Run("1: a gating finding; flags before or after PATH", func(t *testing.T) {
		for _, args := range [][]string{
			{"scan", "--fail-on", "high", "--scanners", "secrets", "--format", "json", leaky},
			{"scan", leaky, "--fail-on=high", "-scanners", "secrets", "-format", "json"},
		} {
			r := scandCLI(t, t.TempDir(), nil, args...).want(t, 1)
			rep := parseReport(t, r.stdout)
			if rep.Summary.Gating != 2 || !strings.Contains(r.stderr, "2 finding(s) at or above high") {
				t.Errorf("%v: gating %d, stderr %q", args, rep.Summary.Gating, r.stderr)
			}
		}
	})
	t.Run("2: usage and configuration errors", func(t *testing.T) {
		bad := gitRepo(t, map[string]string{".scand.toml": "fail_on = \"high\"\n\n[ignore]\npath = [\"x\"]\n"})
		cases := []struct {
			dir  string
			args []string
			msg  string
		}{
			{clean, []string{"scan", "--format", "xml"}, "-format must be one of"},
			{clean, []string{"scan", "--fail-on", "severe"}, "-fail-on must be one of"},
			{clean, []string{"scan", "--scanners", "nosuch"}, `unknown scanner "nosuch"`},
			{clean, []string{"scan", "--no-such-flag"}, "flag provided but not defined"},
			{clean, []string{"scan", "a", "b"}, "takes one PATH"},
			{clean, []string{"scan", "/does/not/exist"}, "is not a directory"},
			{bad, []string{"scan"}, ".scand.toml:4: ignore.path: unknown key"},
			{bad, []string{"config", "check"}, ".scand.toml:4: ignore.path: unknown key"},
			{clean, []string{"diff"}, "needs -base REF"},
			{clean, []string{"diff", "--base", "no-such-ref"}, `"no-such-ref" is not a commit`},
			{clean, []string{"frobnicate"}, `unknown command "frobnicate"`},
		}
		for _, tc := range cases {
			r := scandCLI(t, tc.dir, nil, tc.args...).want(t, 2)
			if !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, r.stderr, tc.msg)
			}
		}
		scandCLI(t, clean, nil, "config", "check", filepath.Join(leaky, "nope.toml")).want(t, 2)
		writeFiles(t, clean, map[string]string{".scand.toml": "fail_on = \"high\"\n"})
		if r := scandCLI(t, clean, nil, "config", "check").want(t, 0); !strings.Contains(r.stdout, ".scand.toml: ok") {
			t.Errorf("config check: %q", r.stdout)
		}
		os.Remove(filepath.Join(clean, ".scand.toml"))
	})
	t.Run("3: a scanner that was asked for failed; the report is written first", func(t *testing.T) {
		mod := gitRepo(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
		fake := filepath.Join(t.TempDir(), "gosec")
		os.WriteFile(fake, []byte("#!/bin/sh\nif [ \"$1\" = -version ]; then echo 'Version: 9.9.9'; exit 0; fi\necho 'fatal error: boom' >&2\nexit 7\n"), 0o755)
		env := map[string]string{"SVC_GOSEC_PATH": fake}
		r := scandCLI(t, mod, env, "scan", "--scanners", "gosec", "--format", "json").want(t, 3)
		if rep := parseReport(t, r.stdout); rep.Mode != "scan" || !strings.Contains(r.stderr, "scanner gosec failed") {
			t.Errorf("report %+v, stderr %q", rep, r.stderr)
		}
		// Not asked for by name: a failure is a warning, not exit 3.
		r = scandCLI(t, mod, env, "scan", "--type", "code").want(t, 0)
		if !strings.Contains(r.stderr, "warning: scanner gosec failed") {
			t.Errorf("stderr %q", r.stderr)
		}
		// A required scanner that cannot run here.
		r = scandCLI(t, clean, nil, "scan", "--type", "code", "--require", "licenses").want(t, 3)
		if !strings.Contains(r.stderr, "required scanner licenses did not run") || !strings.Contains(r.stdout, "result: passed") {
			t.Errorf("stdout %q stderr %q", r.stdout, r.stderr)
		}
		// An unreachable daemon.
		r = scandCLI(t, clean, nil, "scan", "--scanners", "secrets", "--server", "http://127.0.0.1:1").want(t, 3)
		if !strings.Contains(r.stderr, "cannot reach the scand daemon at http://127.0.0.1:1") || !strings.Contains(r.stdout, "result: passed") {
			t.Errorf("stdout %q stderr %q", r.stdout, r.stderr)
		}
		scandCLI(t, clean, nil, "scan", "--scanners", "secrets", "--server", "http://127.0.0.1:1", "--server-optional").want(t, 0)
	})
	t.Run("help", func(t *testing.T) {
		if r := scandCLI(t, clean, nil, "help").want(t, 0); !strings.Contains(r.stdout, "scand diff [flags] [PATH] -base REF") {
			t.Errorf("help: %q", r.stdout)
		}
		for _, cmd := range []string{"scan", "diff", "baseline", "config", "status", "serve"} {
			r := scandCLI(t, clean, nil, "help", cmd).want(t, 0)
			r2 := scandCLI(t, clean, nil, cmd, "-h").want(t, 0)
			if r.stderr != r2.stderr || !strings.Contains(r.stderr, "-") {
				t.Errorf("help %s and %s -h differ or list no flag:\n%s\n---\n%s", cmd, cmd, r.stderr, r2.stderr)
			}
		}
	})
}

func TestCLIDiffReportsNewAndFixed(t *testing.T) {
	repo := gitRepo(t, map[string]string{"config.py": "aws_key = \"" + awsKey + "\"\n", "deploy.sh": "TOKEN=" + githubPAT + "\n", "app.py": "print('hi')\n"})
	// The working tree removes one secret and adds another.
	writeFiles(t, repo, map[string]string{"deploy.sh": "TOKEN=$(cat /run/secrets/token)\n", "pay.py": "STRIPE = \"" + stripeKey + "\"\n"})
	check := func(r cliResult) {
		t.Helper()
		rep := parseReport(t, r.stdout)
		if rep.Mode != "diff" || rep.Summary.New == nil || *rep.Summary.New != 1 || *rep.Summary.Fixed != 1 {
			t.Fatalf("summary %+v\n%s", rep.Summary, r.stdout)
		}
		wantKeys(t, rep.keys(), []string{
			"config.py aws-access-key-id critical unchanged",
			"deploy.sh github-pat high fixed",
			"pay.py stripe-live-secret-key critical new GATING",
		})
	}
	check(scandCLI(t, repo, nil, "diff", "--base", "HEAD", "--scanners", "secrets", "--fail-on", "high", "--format", "json").want(t, 1))
	// The same change committed, compared revision to revision.
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "second")
	check(scandCLI(t, t.TempDir(), nil, "diff", repo, "--base", "HEAD~1", "--head", "HEAD", "--scanners", "secrets", "--fail-on", "high", "--format", "json").want(t, 1))
	// Only new findings gate: the unchanged critical one does not.
	scandCLI(t, repo, nil, "diff", "--base", "HEAD", "--scanners", "secrets", "--fail-on", "high").want(t, 0)
	// The worktrees are gone.
	if list := git(t, repo, "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Errorf("worktrees left behind:\n%s", list)
	}
	// SARIF of a diff: baselineState new and unchanged; the fixed finding
	// is left out (an upload must not alert on deleted code) unless
	// -sarif-fixed asks for it as a passed check.
	r := scandCLI(t, repo, nil, "diff", "--base", "HEAD~1", "--head", "HEAD", "--scanners", "secrets", "--format", "sarif").want(t, 0)
	for state, n := range map[string]int{"new": 1, "unchanged": 1, "absent": 0} {
		if strings.Count(r.stdout, `"baselineState": "`+state+`"`) != n {
			t.Errorf("SARIF has not exactly %d %s result(s)", n, state)
		}
	}
	validateSARIF(t, r.stdout)
	r = scandCLI(t, repo, nil, "diff", "--base", "HEAD~1", "--head", "HEAD", "--scanners", "secrets", "--format", "sarif", "--sarif-fixed").want(t, 0)
	fixed := regexp.MustCompile(`(?s)"kind": "pass",\s*"level": "none",.*?"uri": "deploy.sh".*?"baselineState": "absent"`)
	if strings.Count(r.stdout, `"baselineState": "absent"`) != 1 || !fixed.MatchString(r.stdout) || strings.Count(r.stdout, `"kind": "pass"`) != 1 {
		t.Errorf("-sarif-fixed: the fixed finding is not one pass result at level none, absent:\n%s", r.stdout)
	}
	validateSARIF(t, r.stdout)
	// Markdown: the marker line, then only the new finding in the table.
	md := scandCLI(t, repo, nil, "diff", "--base", "HEAD~1", "--head", "HEAD", "--scanners", "secrets", "--format", "markdown", "--fail-on", "high").want(t, 1).stdout
	if !strings.HasPrefix(md, "<!-- scand:report -->\n") || !strings.Contains(md, "[pay.py:1](pay.py#L1)") || strings.Contains(md, "config.py") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestCLIBaseline(t *testing.T) {
	repo := gitRepo(t, map[string]string{"config.py": "aws_key = \"" + awsKey + "\"\n", "deploy.sh": "TOKEN=" + githubPAT + "\n"})
	r := scandCLI(t, repo, nil, "baseline", "--scanners", "secrets").want(t, 0)
	path := filepath.Join(repo, ".scand", "baseline.json")
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s)", err, r.stderr)
	}
	// Canonical: sorted by fingerprint, no timestamp, byte-stable.
	var file struct {
		Version   int    `json:"version"`
		CreatedAt string `json:"created_at"`
		Findings  []struct{ Fingerprint, RuleID, File, Title string }
	}
	if err := json.Unmarshal(first, &file); err != nil || file.Version != 1 || len(file.Findings) != 2 || file.CreatedAt != "" {
		t.Fatalf("baseline %s: %v", first, err)
	}
	if !slices.IsSortedFunc(file.Findings, func(a, b struct{ Fingerprint, RuleID, File, Title string }) int {
		return strings.Compare(a.Fingerprint, b.Fingerprint)
	}) {
		t.Error("baseline not sorted by fingerprint")
	}
	scandCLI(t, repo, nil, "baseline", "--scanners", "secrets").want(t, 0)
	if again, _ := os.ReadFile(path); !bytes.Equal(first, again) {
		t.Errorf("two baselines of the same tree differ:\n%s\n%s", first, again)
	}
	pinned := scandCLI(t, repo, map[string]string{"SVC_FAKE_NOW": "2026-03-01T00:00:00Z"}, "baseline", "--scanners", "secrets", "-o", "-").want(t, 0)
	if !strings.Contains(pinned.stdout, `"created_at": "2026-03-01T00:00:00Z"`) {
		t.Errorf("SVC_FAKE_NOW did not pin created_at: %s", pinned.stdout)
	}
	// The baseline hides what it lists: shown, marked, never gating.
	r = scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--baseline", path, "--fail-on", "low", "--format", "json").want(t, 0)
	wantKeys(t, parseReport(t, r.stdout).keys(), []string{"config.py aws-access-key-id critical baselined", "deploy.sh github-pat high baselined"})
	// A new finding still gates.
	writeFiles(t, repo, map[string]string{"pay.py": "STRIPE = \"" + stripeKey + "\"\n"})
	r = scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--baseline", path, "--fail-on", "low", "--format", "json").want(t, 1)
	if rep := parseReport(t, r.stdout); rep.Summary.Gating != 1 || rep.Summary.Baselined != 2 {
		t.Errorf("summary %+v", rep.Summary)
	}
	scandCLI(t, repo, nil, "scan", "--baseline", filepath.Join(repo, "config.py")).want(t, 2)
}

// daemon starts the real binary on a fresh database and returns its URL.
func daemon(t *testing.T, env map[string]string) string {
	t.Helper()
	e := baseEnv(t)
	for k, v := range env {
		e[k] = v
	}
	p := startScand(t, e)
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	return "http://" + addr
}

func apiCall(t *testing.T, method, url string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if s, ok := out.(*string); ok {
			*s = string(b)
		} else if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, b)
		}
	}
	return resp.StatusCode
}

// daemonScan runs a scan through the API and waits for it.
func daemonScan(t *testing.T, base, root string, types []string) string {
	t.Helper()
	var sc struct{ ID, Status, Error string }
	if code := apiCall(t, "POST", base+"/api/v1/scans", map[string]any{"target_path": root, "scan_types": types}, &sc); code != 200 {
		t.Fatalf("start scan: %d", code)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		apiCall(t, "GET", base+"/api/v1/scans/"+sc.ID, nil, &sc)
		if sc.Status == "completed" {
			return sc.ID
		}
		if sc.Status == "failed" || sc.Status == "cancelled" {
			t.Fatalf("daemon scan %s: %s", sc.Status, sc.Error)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("daemon scan did not finish")
	return ""
}

func TestCLIConfigAppliesInCLIAndDaemonAlike(t *testing.T) {
	repo := gitRepo(t, map[string]string{
		".scand.toml":      "[ignore]\npaths = [\"fixtures/\"]\nrules = [\"github-pat\"]\n\n[severity]\naws-access-key-id = \"low\"\n",
		"config.py":        "aws_key = \"" + awsKey + "\"\n",
		"deploy.sh":        "TOKEN=" + githubPAT + "\n",
		"fixtures/keys.py": "STRIPE = \"" + stripeKey + "\"\n",
	})
	want := []string{
		"config.py aws-access-key-id low was=critical",
		"deploy.sh github-pat high suppressed=config: .scand.toml [ignore] rules github-pat",
	}
	r := scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--format", "json", "--fail-on", "high").want(t, 0)
	wantKeys(t, parseReport(t, r.stdout).keys(), want)

	base := daemon(t, nil)
	id := daemonScan(t, base, repo, []string{"code"})
	var raw string
	apiCall(t, "GET", base+"/api/v1/scans/"+id+"/findings?scanner=secrets&limit=100", nil, &raw)
	var daemonFindings []map[string]any
	if err := json.Unmarshal([]byte(raw), &daemonFindings); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range daemonFindings {
		k := fmt.Sprintf("%s %s %s", f["file_path"], f["rule_id"], f["severity"])
		md, _ := f["metadata"].(map[string]any)
		if s, _ := md["suppressed_by"].(string); s != "" {
			k += " suppressed=" + s
		}
		if o, _ := md["original_severity"].(string); o != "" {
			k += " was=" + o
		}
		got = append(got, k)
	}
	sort.Strings(got)
	wantKeys(t, got, want)
}

// validateSARIF checks a document against the official SARIF 2.1.0 schema
// with ajv (testdata/sarif/validate.sh); in CI a missing ajv fails.
func validateSARIF(t *testing.T, doc string) {
	t.Helper()
	if _, err := exec.LookPath("ajv"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but ajv is not installed (npm i -g ajv-cli ajv-formats)")
		}
		t.Log("ajv not installed: SARIF schema validation skipped")
		return
	}
	f := filepath.Join(t.TempDir(), "report.sarif.json")
	os.WriteFile(f, []byte(doc), 0o600)
	schemas, _ := filepath.Abs("testdata/schemas")
	res, err := proc.NewRunner(2*time.Minute).Run(context.Background(), proc.Cmd{Program: "sh", Args: []string{"testdata/sarif/validate.sh", schemas, f}})
	if err != nil || res.ExitCode != 0 || !strings.Contains(string(res.Stdout)+string(res.Stderr), "valid") {
		t.Fatalf("SARIF does not validate: %v %d\n%s%s", err, res.ExitCode, res.Stdout, res.Stderr)
	}
}

// sarifVolatile are the fields that differ between two scans of the same
// findings (README: the scan id in automationDetails, the finding ids).
var sarifVolatile = regexp.MustCompile(`("id": "scand/[^/"]+/)[0-9a-f-]+"|("findingId": )"[0-9a-f-]+"`)

// sarifSeen is a daemon SARIF result's sighting properties.
var sarifSeen = regexp.MustCompile(`,\n\s*"firstSeen": "[^"]*",\n\s*"lastSeen": "[^"]*"`)

func TestCLISARIFMatchesTheDaemonsAndValidates(t *testing.T) {
	// A file for each code scanner, so every installed tool runs in both.
	repo := gitRepo(t, map[string]string{
		"config.py": "import subprocess\naws_key = \"" + awsKey + "\"\nsubprocess.call('ls', shell=True)\n",
		"deploy.sh": "TOKEN=" + githubPAT + "\n",
		"go.mod":    "module example.com/m\n\ngo 1.22\n",
		"main.go":   "package main\n\nfunc main() {}\n",
		"app.js":    "eval(location.hash)\n",
	})
	cli := scandCLI(t, repo, nil, "scan", "--type", "code", "--format", "sarif").want(t, 0).stdout
	validateSARIF(t, cli)
	base := daemon(t, nil)
	id := daemonScan(t, base, repo, []string{"code"})
	var srv string
	if code := apiCall(t, "GET", base+"/api/v1/scans/"+id+"/report?format=sarif", nil, &srv); code != 200 {
		t.Fatalf("report: %d %s", code, srv)
	}
	validateSARIF(t, srv)
	// Only the daemon keeps history, so only its results say when each
	// finding was first and last seen (docs/portfolio.md); the rest agrees.
	if n, results := len(sarifSeen.FindAllString(srv, -1)), strings.Count(srv, `"findingId": `); n == 0 || n != results {
		t.Errorf("the daemon's SARIF has firstSeen/lastSeen on %d of %d results", n, results)
	}
	srv = sarifSeen.ReplaceAllString(srv, "")
	// Both read excerpts 500 results at a time, through the same reportdata path.
	if !strings.Contains(srv, `"contextRegion": {`) {
		t.Error("the daemon's SARIF has no contextRegion: the excerpts kept at scan time are missing")
	}
	norm := func(s string) string { return sarifVolatile.ReplaceAllString(s, `$1SCAN"$2"ID"`) }
	if norm(cli) != norm(srv) {
		t.Errorf("the CLI's SARIF differs from the daemon's for the same tree:\nCLI:\n%s\ndaemon:\n%s", cli, srv)
	}
	if !strings.Contains(cli, `"scand/v1": "`) || !strings.Contains(cli, `"suppressions": [`) {
		t.Error("SARIF lacks partialFingerprints or suppressions")
	}
}

func TestCLIServerRecordsTheScanAndHonoursVerdicts(t *testing.T) {
	repo := gitRepo(t, map[string]string{"config.py": "aws_key = \"" + awsKey + "\"\n", "deploy.sh": "TOKEN=" + githubPAT + "\n"})
	base := daemon(t, map[string]string{"SVC_API_KEY": "ci-key"})
	env := map[string]string{"SCAND_API_KEY": "ci-key"}
	args := []string{"scan", "--scanners", "secrets", "--fail-on", "high", "--format", "json", "--server", base}
	r := scandCLI(t, repo, env, args...).want(t, 1)
	if strings.Contains(r.stdout+r.stderr, "ci-key") {
		t.Error("the API key was printed")
	}
	rep := parseReport(t, r.stdout)
	if rep.Summary.Gating != 2 {
		t.Fatalf("gating %d", rep.Summary.Gating)
	}
	var awsFP string
	for _, f := range rep.Findings {
		if f.RuleID == "aws-access-key-id" {
			awsFP = f.Fingerprint
		}
	}
	// A reviewer marks the AWS key a false positive on the daemon.
	req, _ := http.NewRequest("PATCH", base+"/api/v1/findings/"+awsFP+"/state", strings.NewReader(`{"status":"false_positive","note":"test key"}`))
	req.Header.Set("X-API-Key", "ci-key")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("triage: %v %v", err, resp)
	}
	resp.Body.Close()
	r = scandCLI(t, repo, env, args...).want(t, 1)
	wantKeys(t, parseReport(t, r.stdout).keys(), []string{"config.py aws-access-key-id critical false_positive", "deploy.sh github-pat high GATING"})
	// Once the other is accepted too, the run passes.
	for _, f := range rep.Findings {
		if f.RuleID == "github-pat" {
			req, _ := http.NewRequest("PATCH", base+"/api/v1/findings/"+f.Fingerprint+"/state", strings.NewReader(`{"status":"accepted_risk"}`))
			req.Header.Set("X-API-Key", "ci-key")
			req.Header.Set("Content-Type", "application/json")
			resp, _ := http.DefaultClient.Do(req)
			resp.Body.Close()
		}
	}
	scandCLI(t, repo, env, args...).want(t, 0)
	// The daemon recorded every run as an imported, completed scan.
	req, _ = http.NewRequest("GET", base+"/api/v1/scans", nil)
	req.Header.Set("X-API-Key", "ci-key")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var scans []struct {
		Status, Source string
		TargetPath     string `json:"target_path"`
	}
	json.NewDecoder(resp.Body).Decode(&scans)
	resp.Body.Close()
	if len(scans) != 3 || scans[0].Source != "import" || scans[0].Status != "completed" || scans[0].TargetPath != repo {
		t.Errorf("daemon scans %+v", scans)
	}
	// A wrong key is refused: exit 3 with the daemon's answer.
	r = scandCLI(t, repo, map[string]string{"SCAND_API_KEY": "wrong"}, args...).want(t, 3)
	if !strings.Contains(r.stderr, "refused the import: 401") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// A CI scan sent with --server carries the components it captured: the
// daemon serves its SBOM, lists them in the inventory and warns about the
// versions no lockfile pins, as for a scan of its own; the command's own
// report warns too.
func TestCLIServerSendsTheComponents(t *testing.T) {
	repo := gitRepo(t, map[string]string{"package.json": `{"name":"shop","version":"1.0.0","dependencies":{"express":"^4.18.2","lodash":"4.17.21"}}` + "\n"})
	base := daemon(t, map[string]string{"SVC_API_KEY": "ci-key"})
	r := scandCLI(t, repo, map[string]string{"SCAND_API_KEY": "ci-key"}, "scan", "--scanners", "secrets", "--format", "json", "--server", base).want(t, 0)
	var local struct{ Warnings []string }
	if err := json.Unmarshal([]byte(r.stdout), &local); err != nil {
		t.Fatal(err)
	}
	const unknown = "versions unknown for 1 components: no lockfile"
	if !strings.Contains(strings.Join(local.Warnings, "\n"), unknown) {
		t.Errorf("the command's warnings %q lack %q", local.Warnings, unknown)
	}
	get := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("X-API-Key", "ci-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var scans []struct{ ID, Source string }
	get("/api/v1/scans", &scans)
	if len(scans) != 1 || scans[0].Source != "import" {
		t.Fatalf("daemon scans %+v", scans)
	}
	var bom struct {
		Components []struct {
			Name, Version, Purl string
			Properties          []struct{ Name, Value string }
		}
	}
	get("/api/v1/scans/"+scans[0].ID+"/sbom", &bom)
	got := map[string]string{}
	for _, c := range bom.Components {
		got[c.Name] = c.Version + " " + c.Purl
		for _, p := range c.Properties {
			if p.Name == "scand:declared_range" {
				got[c.Name] += " " + p.Value
			}
		}
	}
	want := map[string]string{"express": " pkg:npm/express ^4.18.2", "lodash": "4.17.21 pkg:npm/lodash@4.17.21"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("SBOM component %s = %q, want %q (all: %v)", name, got[name], w, got)
		}
	}
	var sum struct{ Warnings []string }
	get("/api/v1/scans/"+scans[0].ID+"/summary", &sum)
	if !strings.Contains(strings.Join(sum.Warnings, "\n"), unknown) {
		t.Errorf("the daemon's warnings %q lack %q", sum.Warnings, unknown)
	}
	var inv struct {
		Items []struct {
			Name, Version string
			Targets       []struct{ Name string }
		}
	}
	get("/api/v1/components?purl=pkg:npm/lodash", &inv)
	if len(inv.Items) != 1 || inv.Items[0].Version != "4.17.21" || len(inv.Items[0].Targets) != 1 || inv.Items[0].Targets[0].Name != repo {
		t.Errorf("inventory %+v", inv)
	}
}

// A daemon of an earlier release refuses the components member as unknown;
// the command then sends the scan without them and says so.
func TestCLIServerSendsWithoutComponentsToAnEarlierDaemon(t *testing.T) {
	repo := gitRepo(t, map[string]string{"package.json": `{"name":"shop","dependencies":{"lodash":"4.17.21"}}` + "\n"})
	base := daemon(t, map[string]string{"SVC_API_KEY": "ci-key"})
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var refused, forwarded atomic.Int32
	earlier := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"components":`)) {
			// What importscan answers for a member it does not know.
			refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"detail":[{"loc":["body","components"],"msg":"Extra inputs are not permitted","type":"extra_forbidden","input":"components"}]}`)
			return
		}
		forwarded.Add(1)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(earlier.Close)
	r := scandCLI(t, repo, map[string]string{"SCAND_API_KEY": "ci-key"}, "scan", "--scanners", "secrets", "--format", "json", "--server", earlier.URL).want(t, 0)
	if refused.Load() != 1 || forwarded.Load() != 1 {
		t.Errorf("requests: %d refused, %d forwarded; want one each", refused.Load(), forwarded.Load())
	}
	if !strings.Contains(r.stderr, "takes no components (an earlier release)") || !strings.Contains(r.stderr, "imported as scan") {
		t.Errorf("stderr %q", r.stderr)
	}
}
