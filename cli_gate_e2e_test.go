package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// End-to-end tests of the fail-closed gate (issue 23, docs/gate.md) on the
// built binary: every case a gate could pass by mistake, built in the
// test. Tools are real where the case needs nothing but the tool's
// behaviour on a broken input (gosec on a broken module when gosec is on
// PATH), and stand-in scripts where the case is how scand reads the tool
// (a crash, a parse error ESLint reports, missing advisory data).

// gateReport is what these tests read of the JSON report.
type gateReport struct {
	Verdict        string   `json:"verdict"`
	Partial        bool     `json:"partial"`
	PartialReasons []string `json:"partial_reasons"`
	Warnings       []string `json:"warnings"`
	Coverage       *struct {
		Types []struct {
			ScanType, Status, Reason string
		} `json:"scan_types"`
		Scanners []struct {
			Scanner, Status, Reason string
			SkippedCount            int      `json:"skipped_count"`
			SkippedPaths            []string `json:"skipped_paths"`
		} `json:"scanners"`
		Notes []string `json:"notes"`
	} `json:"coverage"`
	NotCompared []struct {
		Scanner, Reason string
		Findings        int
	} `json:"not_compared"`
	Summary struct {
		Gating                         int
		New, Fixed, NotCompared, Unchd *int `json:"-"`
	} `json:"summary"`
	Findings []struct {
		Scanner    string  `json:"scanner"`
		RuleID     string  `json:"rule_id"`
		DiffStatus *string `json:"diff_status"`
		Gating     bool    `json:"gating"`
	} `json:"findings"`
	raw map[string]any
}

func parseGate(t *testing.T, out string) gateReport {
	t.Helper()
	var r gateReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("the JSON report does not parse: %v\n%s", err, out)
	}
	json.Unmarshal([]byte(out), &r.raw)
	return r
}

// summaryInt reads summary.<key> of the report, -1 when absent.
func (r gateReport) summaryInt(key string) int {
	s, _ := r.raw["summary"].(map[string]any)
	if v, ok := s[key].(float64); ok {
		return int(v)
	}
	return -1
}

// scanner returns the coverage status and entry of one scanner.
func (r gateReport) scanner(name string) (status string, count int, paths []string, reason string) {
	if r.Coverage == nil {
		return "", 0, nil, ""
	}
	for _, s := range r.Coverage.Scanners {
		if s.Scanner == name {
			return s.Status, s.SkippedCount, s.SkippedPaths, s.Reason
		}
	}
	return "absent", 0, nil, ""
}

// diffStatuses lists "scanner rule status" per finding.
func (r gateReport) diffStatuses() []string {
	var out []string
	for _, f := range r.Findings {
		st := "-"
		if f.DiffStatus != nil {
			st = *f.DiffStatus
		}
		out = append(out, f.Scanner+" "+f.RuleID+" "+st)
	}
	return out
}

// fakeTool writes an executable stand-in for a wrapped tool.
func fakeTool(t *testing.T, name, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeGosec reports G204 in main.go for a module that builds; on a module
// whose go.mod needs golang.org/x/text (with no go.sum entry, offline) it
// reports the type error gosec gives and loses the finding, as real gosec
// does for the findings that need types; a CRASH file makes it crash.
const fakeGosec = `if [ "$1" = -version ]; then echo 'Version: 2.29.0'; exit 0; fi
if [ -f CRASH ]; then echo 'panic: runtime error: index out of range' >&2; exit 2; fi
if grep -q golang.org/x/text go.mod; then
  printf '{"Golang errors":{"%s/main.go":[{"line":5,"column":2,"error":"could not import golang.org/x/text/language (missing go.sum entry)"}]},"Issues":[],"Stats":{}}' "$PWD"
  exit 1
fi
printf '{"Issues":[{"severity":"HIGH","confidence":"HIGH","cwe":{"id":"78"},"rule_id":"G204","details":"Subprocess launched with variable","file":"%s/main.go","line":"7","column":"2","nosec":false,"suppressions":null}],"Stats":{}}' "$PWD"
exit 1
`

const goodMain = "package main\n\nimport \"os/exec\"\n\nfunc main() {\n\tc := \"ls\"\n\texec.Command(c).Run()\n}\n"

// A scanner that failed or ran partly on one side of a diff has its
// findings not compared: never fixed, never new, never gating.
func TestGateDiffAcrossABrokenModule(t *testing.T) {
	repo := gitRepo(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": goodMain})
	env := map[string]string{"SVC_GOSEC_PATH": fakeTool(t, "gosec", fakeGosec)}
	// The change: go.mod needs a module go.sum does not list.
	writeFiles(t, repo, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n\nrequire golang.org/x/text v0.3.5\n"})
	git(t, repo, "commit", "-qam", "break go.sum")

	check := func(t *testing.T, r cliResult, side string) {
		t.Helper()
		rep := parseGate(t, r.stdout)
		if got := strings.Join(rep.diffStatuses(), "\n"); got != "gosec G204 not_compared" {
			t.Errorf("findings: %q, want the one gosec finding not_compared", got)
		}
		if rep.summaryInt("fixed") != 0 || rep.summaryInt("new") != 0 || rep.summaryInt("not_compared") != 1 || rep.Summary.Gating != 0 {
			t.Errorf("summary %v", rep.raw["summary"])
		}
		if len(rep.NotCompared) != 1 || rep.NotCompared[0].Scanner != "gosec" || !strings.Contains(rep.NotCompared[0].Reason, side+": gosec partial") ||
			!strings.Contains(rep.NotCompared[0].Reason, "main.go") {
			t.Errorf("not_compared %+v", rep.NotCompared)
		}
		if rep.Verdict != "passed" || !rep.Partial {
			t.Errorf("verdict %q partial %v", rep.Verdict, rep.Partial)
		}
	}
	t.Run("the base built, the head does not: nothing fixed", func(t *testing.T) {
		r := scandCLI(t, repo, env, "diff", "--base", "HEAD~1", "--head", "HEAD", "--type", "code", "--scanners", "gosec", "--fail-on", "high", "--format", "json").want(t, 0)
		check(t, r, "head")
		txt := scandCLI(t, repo, env, "diff", "--base", "HEAD~1", "--head", "HEAD", "--scanners", "gosec", "--fail-on", "high").want(t, 0).stdout
		for _, want := range []string{"0 new findings, 0 fixed, 0 unchanged, 1 not compared", "[not compared]", "not compared: gosec, 1 finding: head: gosec partial",
			"result: passed, partial: gosec partial: module .: 1 file(s) could not be type-checked"} {
			if !strings.Contains(txt, want) {
				t.Errorf("text report lacks %q:\n%s", want, txt)
			}
		}
	})
	t.Run("the fix reverted: nothing new", func(t *testing.T) {
		git(t, repo, "revert", "--no-edit", "HEAD")
		r := scandCLI(t, repo, env, "diff", "--base", "HEAD~1", "--head", "HEAD", "--scanners", "gosec", "--fail-on", "high", "--format", "json").want(t, 0)
		check(t, r, "base")
	})
	t.Run("a crash asked for by name is exit 3; --allow-partial passes and says so in every format", func(t *testing.T) {
		writeFiles(t, repo, map[string]string{"CRASH": "1\n"})
		r := scandCLI(t, repo, env, "diff", "--base", "HEAD", "--scanners", "gosec", "--fail-on", "high", "--format", "json").want(t, 3)
		rep := parseGate(t, r.stdout)
		if got := strings.Join(rep.diffStatuses(), "\n"); got != "gosec G204 not_compared" || rep.summaryInt("fixed") != 0 {
			t.Errorf("a crashed scanner's finding is %q (fixed %d)", got, rep.summaryInt("fixed"))
		}
		if !strings.Contains(r.stderr, "scanner gosec failed") || rep.Verdict != "incomplete" {
			t.Errorf("verdict %q stderr %q", rep.Verdict, r.stderr)
		}
		for _, format := range []string{"text", "json", "markdown", "sarif"} {
			out := scandCLI(t, repo, env, "diff", "--base", "HEAD", "--scanners", "gosec", "--fail-on", "high", "--allow-partial", "--format", format).want(t, 0).stdout
			if !strings.Contains(out, "scanner gosec failed: panic: runtime error") {
				t.Errorf("%s: the allowed failure is not printed:\n%s", format, out)
			}
			if format == "sarif" {
				validateSARIF(t, out)
				if strings.Contains(out, `"baselineState": "absent"`) || !strings.Contains(out, `"executionSuccessful": false`) || strings.Contains(out, `"name": "gosec"`) {
					t.Errorf("SARIF lists a fixed finding, claims success or has a gosec run that would close its alerts:\n%s", out)
				}
			}
		}
		os.Remove(filepath.Join(repo, "CRASH"))
	})
}

// gosec itself on a module whose go.sum lacks what go.mod needs: partial
// coverage naming the file, never a silent pass. Needs gosec on PATH (CI
// installs it).
func TestGateRealGosecOnABrokenModule(t *testing.T) {
	if _, err := exec.LookPath("gosec"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but gosec is not on PATH")
		}
		t.Skip("gosec not on PATH")
	}
	repo := gitRepo(t, map[string]string{
		"go.mod":  "module example.com/m\n\ngo 1.22\n\nrequire golang.org/x/text v0.3.5\n",
		"main.go": "package main\n\nimport (\n\t\"os/exec\"\n\t\"golang.org/x/text/language\"\n)\n\nfunc main() {\n\t_ = language.English\n\tc := \"ls\"\n\texec.Command(c).Run()\n}\n",
	})
	// An empty module cache (x/text cannot be there) and the build cache
	// of this machine, so type-checking the standard library is not redone.
	env := map[string]string{"GOFLAGS": "-mod=mod", "GOPATH": t.TempDir(), "GOCACHE": t.TempDir()}
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		env["GOCACHE"] = strings.TrimSpace(string(out))
	}
	r := scandCLI(t, repo, env, "scan", "--scanners", "gosec", "--format", "json").want(t, 0)
	rep := parseGate(t, r.stdout)
	status, count, paths, _ := rep.scanner("gosec")
	if status != "partial" || count != 1 || len(paths) != 1 || paths[0] != "main.go" || !rep.Partial {
		t.Errorf("gosec coverage %s %d %v, partial %v\n%s", status, count, paths, rep.Partial, r.stdout)
	}
}

// -scanners naming a tool that is not installed: exit 3, never 0.
func TestGateMissingToolFailsClosed(t *testing.T) {
	repo := gitRepo(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": goodMain})
	env := map[string]string{"SVC_GOSEC_PATH": filepath.Join(t.TempDir(), "no-gosec-here")}
	r := scandCLI(t, repo, env, "scan", "--scanners", "gosec", "--fail-on", "high").want(t, 3)
	if !strings.Contains(r.stderr, "scanner gosec did not run: gosec not installed") || !strings.Contains(r.stdout, "result: INCOMPLETE") {
		t.Errorf("stdout %q\nstderr %q", r.stdout, r.stderr)
	}
	for _, format := range []string{"text", "json", "markdown", "sarif"} {
		out := scandCLI(t, repo, env, "scan", "--scanners", "gosec", "--fail-on", "high", "--allow-partial", "--format", format).want(t, 0).stdout
		if !strings.Contains(out, "scanner gosec did not run: gosec not installed") {
			t.Errorf("%s: the allowed gap is not printed:\n%s", format, out)
		}
		switch format {
		case "text":
			if !strings.Contains(out, "result: passed, partial: ") {
				t.Errorf("verdict line:\n%s", out)
			}
		case "markdown":
			if !strings.Contains(out, "### scand passed, partial:") {
				t.Errorf("markdown verdict:\n%s", out)
			}
		case "json":
			if rep := parseGate(t, out); rep.Verdict != "passed" || !rep.Partial || len(rep.Warnings) == 0 {
				t.Errorf("json verdict %q partial %v warnings %v", rep.Verdict, rep.Partial, rep.Warnings)
			}
		case "sarif":
			validateSARIF(t, out)
		}
	}
	// A baseline from a scan that did not look is refused the same way.
	out := filepath.Join(t.TempDir(), "baseline.json")
	scandCLI(t, repo, env, "baseline", "--scanners", "gosec", "-o", out).want(t, 3)
	if _, err := os.Stat(out); err == nil {
		t.Error("a baseline was written from a scan whose scanner did not run")
	}
	if r := scandCLI(t, repo, env, "baseline", "--scanners", "gosec", "--allow-partial", "-o", out).want(t, 0); !strings.Contains(r.stderr, "scanner gosec did not run") {
		t.Errorf("baseline --allow-partial stderr %q", r.stderr)
	}
	// The built-in default types on a bare machine still pass, with a note.
	r = scandCLI(t, repo, map[string]string{"SVC_GOSEC_PATH": env["SVC_GOSEC_PATH"], "SVC_OSV_SCANNER_PATH": "/nonexistent/osv", "SVC_TRIVY_PATH": "/nonexistent/trivy",
		"SVC_GOVULNCHECK_PATH": "/nonexistent/govulncheck"}, "scan").want(t, 0)
	if !strings.Contains(r.stdout, "note: default scan type dependency left out") {
		t.Errorf("no note on the left-out default type:\n%s", r.stdout)
	}
}

// A dast scan of a closed loopback port: every scanner of the type
// failed, exit 3.
func TestGateAllFailingDASTTarget(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://%s/", l.Addr())
	l.Close()
	dir := t.TempDir()
	r := scandCLI(t, dir, nil, "scan", "--type", "dast", "--url", url, "--format", "json").want(t, 3)
	rep := parseGate(t, r.stdout)
	if len(rep.Coverage.Types) != 1 || rep.Coverage.Types[0].Status != "failed" || !strings.Contains(r.stderr, "scan type dast: no scanner able to find web application flaws ran") {
		t.Errorf("coverage %+v\nstderr %q", rep.Coverage, r.stderr)
	}
	if status, _, _, _ := rep.scanner("builtin_dast"); status != "failed" {
		t.Errorf("builtin_dast %q", status)
	}
	scandCLI(t, dir, nil, "scan", "--type", "dast", "--url", url, "--allow-partial").want(t, 0)
}

// A shallow clone: the history pass saw one commit, and the scan says so.
func TestGateShallowCloneIsPartial(t *testing.T) {
	repo := gitRepo(t, map[string]string{"deploy.sh": "TOKEN=" + githubPAT + "\n"})
	writeFiles(t, repo, map[string]string{"deploy.sh": "TOKEN=$(cat /run/secrets/token)\n"})
	git(t, repo, "commit", "-qam", "remove the token")
	writeFiles(t, repo, map[string]string{"README.md": "hello\n"})
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "readme")
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(clone), "clone", "-q", "--depth", "1", "file://"+repo, clone)

	full := parseGate(t, scandCLI(t, repo, nil, "scan", "--scanners", "secrets", "--format", "json").want(t, 0).stdout)
	if status, _, _, _ := full.scanner("secrets"); status != "ran" || len(full.Findings) != 1 {
		t.Fatalf("full clone: secrets %q, %d findings", status, len(full.Findings))
	}
	r := scandCLI(t, clone, nil, "scan", "--scanners", "secrets", "--fail-on", "high").want(t, 0)
	for _, want := range []string{"coverage: secrets partial: git history: shallow clone", "result: passed, partial: secrets partial: git history: shallow clone"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, r.stdout)
		}
	}
	rep := parseGate(t, scandCLI(t, clone, nil, "scan", "--scanners", "secrets", "--format", "json").want(t, 0).stdout)
	if status, _, _, reason := rep.scanner("secrets"); status != "partial" || !strings.Contains(reason, "shallow clone") || !rep.Partial {
		t.Errorf("secrets %q %q, partial %v", status, reason, rep.Partial)
	}
}

// fakeESLint writes the report ESLint 9 gives for a file it cannot parse
// (a fatal message, no rule id) and one finding in app.js.
const fakeESLint = `if [ "$1" = --version ]; then echo v9.39.5; exit 0; fi
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = --output-file ]; then out=$2; fi
  shift
done
printf '[{"filePath":"%s/bad.js","messages":[{"ruleId":null,"fatal":true,"message":"Parsing error: Unexpected token (","line":2,"column":10}]},{"filePath":"%s/app.js","messages":[{"ruleId":"no-eval","message":"eval can be harmful.","line":1,"column":1}]}]' "$PWD" "$PWD" > "$out"
exit 1
`

// eslintModules is a folder that holds the packages scand checks for.
func eslintModules(t *testing.T) string {
	dir := t.TempDir()
	for _, p := range []string{"eslint-plugin-security", "eslint-plugin-no-unsanitized", "@microsoft/eslint-plugin-sdl", "@typescript-eslint/parser", "typescript", "eslint"} {
		writeFiles(t, dir, map[string]string{p + "/package.json": "{}\n"})
	}
	return dir
}

// A file ESLint cannot parse: partial coverage with the count and the
// path, not an INFO log line.
func TestGateUnparsableJSIsPartial(t *testing.T) {
	repo := gitRepo(t, map[string]string{"app.js": "eval(location.hash)\n", "bad.js": "function (\n"})
	env := map[string]string{"SVC_ESLINT_PATH": fakeTool(t, "eslint", fakeESLint), "SVC_ESLINT_MODULES": eslintModules(t)}
	r := scandCLI(t, repo, env, "scan", "--scanners", "eslint", "--format", "json").want(t, 0)
	rep := parseGate(t, r.stdout)
	status, count, paths, reason := rep.scanner("eslint")
	if status != "partial" || count != 1 || strings.Join(paths, ",") != "bad.js" || !strings.Contains(reason, "could not parse") || len(rep.Findings) != 1 {
		t.Errorf("eslint coverage %q %d %v %q, %d findings\n%s", status, count, paths, reason, len(rep.Findings), r.stdout)
	}
	md := scandCLI(t, repo, env, "scan", "--scanners", "eslint", "--format", "markdown").want(t, 0).stdout
	if !strings.Contains(md, "### scand passed, partial:") || !strings.Contains(md, "bad.js") {
		t.Errorf("markdown:\n%s", md)
	}
	sarif := scandCLI(t, repo, env, "scan", "--scanners", "eslint", "--format", "sarif").want(t, 0).stdout
	validateSARIF(t, sarif)
	if !strings.Contains(sarif, `"toolExecutionNotifications"`) || !strings.Contains(sarif, "eslint partial: unparsable files") {
		t.Errorf("SARIF lacks the notification:\n%s", sarif)
	}
}

// fakeOSV is osv-scanner finding nothing in what it was handed.
const fakeOSV = `if [ "$1" = --version ]; then echo 'osv-scanner version: 2.5.0'; exit 0; fi
echo '{"results":[]}'
exit 0
`

// Advisory data missing: an ecosystem in the tree without data is a
// partial scan; a tree whose every ecosystem lacks data ran nothing able
// to find a vulnerable dependency, and an asked-for dependency scan fails
// closed.
func TestGateMissingAdvisoryData(t *testing.T) {
	db := t.TempDir()
	writeFiles(t, db, map[string]string{"osv-scalibr/npm/all.zip": "not read by the stand-in\n"})
	env := map[string]string{"SVC_OSV_SCANNER_PATH": fakeTool(t, "osv-scanner", fakeOSV), "SVC_OSV_DB": db,
		"SVC_TRIVY_PATH": "/nonexistent/trivy", "SVC_GOVULNCHECK_PATH": "/nonexistent/govulncheck"}
	lock := `{"name":"app","lockfileVersion":3,"packages":{"":{"name":"app"},"node_modules/left-pad":{"version":"1.3.0"}}}`

	mixed := gitRepo(t, map[string]string{"package-lock.json": lock, "requirements.txt": "requests==2.19.0\n"})
	r := scandCLI(t, mixed, env, "scan", "--type", "dependency", "--format", "json").want(t, 0)
	rep := parseGate(t, r.stdout)
	status, count, paths, reason := rep.scanner("osv-scanner")
	if status != "partial" || count != 1 || strings.Join(paths, ",") != "requirements.txt" || !strings.Contains(reason, "PyPI") || !rep.Partial {
		t.Errorf("osv-scanner %q %d %v %q partial %v\n%s", status, count, paths, reason, rep.Partial, r.stdout)
	}

	python := gitRepo(t, map[string]string{"requirements.txt": "requests==2.19.0\n"})
	r = scandCLI(t, python, env, "scan", "--type", "dependency").want(t, 3)
	if !strings.Contains(r.stderr, "scan type dependency: no scanner able to find vulnerable dependencies ran") {
		t.Errorf("stderr %q\nstdout %s", r.stderr, r.stdout)
	}
	r = scandCLI(t, python, env, "scan", "--type", "dependency", "--allow-partial").want(t, 0)
	if !strings.Contains(r.stdout, "warning: scan type dependency") || !strings.Contains(r.stdout, "result: passed, partial: scan type dependency") {
		t.Errorf("stdout %s", r.stdout)
	}
	// The same type from .scand.toml is asked for too.
	writeFiles(t, python, map[string]string{".scand.toml": "scan_types = [\"dependency\"]\n"})
	scandCLI(t, python, env, "scan").want(t, 3)
}

// The daemon: a scan whose scanner failed or ran partly completes with
// partial: true and its reasons (scan, summary, the scan.complete event),
// and a compare lists that scanner's findings as not_compared, never
// fixed; a scan imported from `scand scan --server` keeps its coverage.
func TestGateDaemonPartialScanAndCompare(t *testing.T) {
	repo := gitRepo(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": goodMain})
	base := daemon(t, map[string]string{"SVC_GOSEC_PATH": fakeTool(t, "gosec", fakeGosec)})
	good := daemonScan(t, base, repo, []string{"code"})
	writeFiles(t, repo, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n\nrequire golang.org/x/text v0.3.5\n"})
	broken := daemonScan(t, base, repo, []string{"code"})

	type coverageFields struct {
		Partial        bool     `json:"partial"`
		PartialReasons []string `json:"partial_reasons"`
		Coverage       *struct {
			Scanners []struct{ Scanner, Status string } `json:"scanners"`
		} `json:"coverage"`
	}
	for _, path := range []string{"/api/v1/scans/" + broken, "/api/v1/scans/" + broken + "/summary"} {
		var v coverageFields
		apiCall(t, "GET", base+path, nil, &v)
		if !v.Partial || len(v.PartialReasons) != 1 || !strings.Contains(v.PartialReasons[0], "gosec partial: module .: 1 file(s) could not be type-checked") || v.Coverage == nil {
			t.Errorf("%s: %+v", path, v)
		}
	}
	var ok coverageFields
	apiCall(t, "GET", base+"/api/v1/scans/"+good, nil, &ok)
	if ok.Partial || len(ok.PartialReasons) != 0 || ok.Coverage == nil {
		t.Errorf("the complete scan: %+v", ok)
	}
	// The HTML report and the SARIF say it too.
	var html, sarif string
	apiCall(t, "GET", base+"/api/v1/scans/"+broken+"/report", nil, &html)
	if !strings.Contains(html, "Partial result") || !strings.Contains(html, "gosec partial: module .") {
		t.Errorf("the HTML report does not say the scan is partial")
	}
	apiCall(t, "GET", base+"/api/v1/scans/"+broken+"/report?format=sarif", nil, &sarif)
	if !strings.Contains(sarif, `"executionSuccessful": false`) || !strings.Contains(sarif, "gosec partial: module .") {
		t.Errorf("the daemon's SARIF does not say gosec ran partly:\n%s", sarif)
	}
	// The event stream replays scan.complete with the same fields.
	var events string
	apiCall(t, "GET", base+"/api/v1/scans/"+broken+"/events", nil, &events)
	if !strings.Contains(events, "event: scan.complete") || !strings.Contains(events, `"partial":true,"partial_reasons":["gosec partial`) {
		t.Errorf("scan.complete lacks the partial fields:\n%s", events)
	}

	var cmp struct{ Raw map[string]json.RawMessage }
	var body string
	if code := apiCall(t, "GET", base+"/api/v1/scans/compare?scan_a="+good+"&scan_b="+broken, nil, &body); code != 200 {
		t.Fatalf("compare: %d %s", code, body)
	}
	json.Unmarshal([]byte(body), &cmp.Raw)
	list := func(key string) []string {
		var fs []struct {
			Scanner string `json:"scanner"`
			RuleID  string `json:"rule_id"`
		}
		json.Unmarshal(cmp.Raw[key], &fs)
		var out []string
		for _, f := range fs {
			out = append(out, f.Scanner+" "+f.RuleID)
		}
		return out
	}
	if got := list("not_compared"); strings.Join(got, ",") != "gosec G204" {
		t.Errorf("not_compared %v\n%s", got, body)
	}
	for _, key := range []string{"new", "fixed"} {
		for _, f := range list(key) {
			if strings.HasPrefix(f, "gosec ") {
				t.Errorf("%s lists %s", key, f)
			}
		}
	}
	if !strings.Contains(string(cmp.Raw["not_compared_reasons"]), `"scanner":"gosec"`) {
		t.Errorf("not_compared_reasons %s", cmp.Raw["not_compared_reasons"])
	}

	// The console's compare page: the same rule, the reason shown.
	page := func(show string) string {
		var html string
		if code := apiCall(t, "GET", base+"/ui/compare?a="+good+"&b="+broken+"&show="+show, nil, &html); code != 200 {
			t.Fatalf("console compare %s: %d %s", show, code, html)
		}
		return html
	}
	if html := page("not_compared"); !strings.Contains(html, "gosec: head: gosec partial") || !strings.Contains(html, "G204") {
		t.Errorf("console not_compared page lacks the reason or the finding:\n%s", html)
	}
	if html := page("fixed"); strings.Contains(html, "G204") {
		t.Error("the console lists the not-compared finding as fixed")
	}

	// scand scan --server sends the coverage; the daemon keeps it.
	env := map[string]string{"SVC_GOSEC_PATH": fakeTool(t, "gosec", fakeGosec)}
	r := scandCLI(t, repo, env, "scan", "--type", "code", "--server", base, "--format", "json").want(t, 0)
	if !strings.Contains(r.stdout, `"partial": true`) {
		t.Fatalf("the CLI scan is not partial:\n%s", r.stdout)
	}
	var scans []struct {
		ID     string `json:"id"`
		Source string `json:"source"`
		coverageFields
	}
	apiCall(t, "GET", base+"/api/v1/scans", nil, &scans)
	imported := false
	for _, s := range scans {
		if s.Source == "import" {
			imported = true
			if !s.Partial || len(s.PartialReasons) == 0 || !strings.Contains(s.PartialReasons[0], "gosec partial") {
				t.Errorf("imported scan %+v", s)
			}
		}
	}
	if !imported {
		t.Error("no imported scan listed")
	}
}
