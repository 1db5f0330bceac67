package wrapped

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

// eslintNodeGoatWant is what the eslint scanner must report on the
// NodeGoat-like fixture (testdata/projects/nodegoat): NodeGoat's eval of
// request input, the $where built from a string, the SSRF, child_process
// with a variable, an fs path from the request, non-literal RegExp and
// require, and the innerHTML and document.write sinks. Rules that report
// one problem on one line are one finding.
var eslintNodeGoatWant = []wrapExpect{
	{"security/detect-eval-with-expression", "app/routes/contributions.js", 19, finding.High},
	{"scand/nosql-injection", "app/data/allocations-dao.js", 9, finding.High},
	{"scand/ssrf", "app/routes/research.js", 11, finding.High},
	{"security/detect-child-process", "app/routes/research.js", 22, finding.High},
	{"scand/path-traversal", "app/routes/research.js", 28, finding.High},
	{"security/detect-non-literal-regexp", "app/routes/research.js", 29, finding.Medium},
	{"security/detect-non-literal-require", "app/routes/research.js", 30, finding.Medium},
	{"no-unsanitized/property", "app/assets/js/chart.ts", 4, finding.High},
	{"no-unsanitized/method", "app/assets/js/chart.ts", 6, finding.High},
}

func eslintCheckNodeGoat(t *testing.T, fs []finding.Finding) {
	t.Helper()
	wrapTestCheckFindings(t, "eslint", scan.TypeCode, fs)
	wrapIntegrationExpect(t, fs, eslintNodeGoatWant)
	var evalLines []int
	for _, f := range fs {
		if f.FilePath == "app/routes/contributions.js" && f.CWE == "CWE-95" {
			evalLines = append(evalLines, f.Line)
			if also, _ := f.Metadata["also_rules"].([]string); !slices.Contains(also, "no-eval") {
				t.Errorf("eval at line %d: also_rules %v lacks no-eval", f.Line, f.Metadata["also_rules"])
			}
		}
	}
	// The third eval carries an eslint-disable comment: a hostile tree
	// cannot switch rules off.
	if !slices.Equal(evalLines, []int{19, 20, 22}) {
		t.Errorf("eval findings at lines %v, want [19 20 22] (one per eval)", evalLines)
	}
	// The fs path from the request is one finding of two rules.
	if f := wrapTestFind(fs, "scand/path-traversal", "app/routes/research.js"); f != nil {
		if also, _ := f.Metadata["also_rules"].([]string); !slices.Contains(also, "security/detect-non-literal-fs-filename") {
			t.Errorf("path traversal: also_rules %v lacks security/detect-non-literal-fs-filename", f.Metadata["also_rules"])
		}
	}
	// 3 evals, $where, SSRF, child_process, fs, RegExp, require, and the
	// two DOM sinks (each reported by two rules, merged).
	if len(fs) != 11 {
		t.Errorf("got %d findings, want 11: %+v", len(fs), fs)
	}
}

func TestESLintParse(t *testing.T) {
	fs, unparsed, err := eslintParse("/srv/scan/nodegoat", wrapTestRead(t, "eslint/findings.json"))
	if err != nil || len(unparsed) != 0 {
		t.Fatalf("parse: %v (%v unparsed)", err, unparsed)
	}
	eslintCheckNodeGoat(t, fs)
	if empty, _, err := eslintParse("/srv", wrapTestRead(t, "eslint/empty.json")); err != nil || len(empty) != 0 {
		t.Errorf("empty report: %v %v", empty, err)
	}
	if _, _, err := eslintParse("/srv", []byte("Oops! Something went wrong")); err == nil {
		t.Error("a non-JSON report parsed")
	}
	// Messages of rules scand did not enable, and parse errors, are not
	// findings.
	fs, unparsed, err = eslintParse("/srv", []byte(`[{"filePath":"/srv/a.js","messages":[
		{"ruleId":null,"fatal":true,"message":"Parsing error: Unexpected token","line":1},
		{"ruleId":"security/detect-object-injection","message":"x","line":2},
		{"ruleId":"no-eval","message":"eval can be harmful.","line":3}]}]`))
	if err != nil || len(unparsed) != 1 || unparsed[0] != "a.js" || len(fs) != 1 || fs[0].RuleID != "no-eval" || fs[0].FilePath != "a.js" {
		t.Errorf("got %+v, %v unparsed, %v", fs, unparsed, err)
	}
}

// The configuration scand writes loads every plugin from the install
// folder by absolute path and enables exactly the rule table.
func TestESLintConfig(t *testing.T) {
	conf := eslintConfig("/opt/scand/eslint/node_modules", "/tmp/run/scand-rules.cjs")
	if !strings.Contains(conf, `createRequire("/opt/scand/eslint/node_modules/")`) {
		t.Errorf("plugins are not required from the install folder:\n%s", conf)
	}
	if !strings.Contains(conf, `require("/tmp/run/scand-rules.cjs")`) {
		t.Errorf("scand's own rules are not required from the run's folder:\n%s", conf)
	}
	for _, r := range eslintRules {
		if !strings.Contains(conf, `"`+r.id+`":"warn"`) {
			t.Errorf("rule %s not enabled", r.id)
		}
	}
	// Every scand/ rule enabled is one the embedded rule file exports (an
	// unknown rule makes ESLint exit 2, failing every scan).
	exports := eslintOwnRules[strings.LastIndex(eslintOwnRules, "module.exports"):]
	for _, r := range eslintRules {
		if name, ok := strings.CutPrefix(r.id, "scand/"); ok && !strings.Contains(exports, `"`+name+`":`) && !strings.Contains(exports, " "+name+",") {
			t.Errorf("rule %s is not exported by eslint_rules.cjs", r.id)
		}
	}
	if strings.Contains(conf, "detect-object-injection") || strings.Contains(conf, "no-insecure-random") {
		t.Error("a rule left out on purpose is enabled")
	}
	// A folder name cannot break out of the JavaScript string.
	if c := eslintConfig(`/x"); require("child_process`, `/y"); require("child_process`); strings.Contains(c, `"); require("child_process`) {
		t.Errorf("folder name not escaped: %s", c)
	}
}

// The npm pins of the scanner and of .ci/install-scanners.sh are the same.
func TestESLintInstallPins(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", ".ci", "install-scanners.sh"))
	if err != nil {
		t.Fatal(err)
	}
	want := `ESLINT_PACKAGES="` + strings.Join(eslintPackages, " ") + `"`
	if !strings.Contains(string(script), want) {
		t.Errorf("install-scanners.sh does not pin %s", want)
	}
}

// A fake eslint exercises the exit codes: 2 is a crash with ESLint's own
// words, 1 is findings.
func TestESLintExitCodes(t *testing.T) {
	mods := t.TempDir()
	for _, p := range []string{"eslint-plugin-security", "eslint-plugin-no-unsanitized", "@microsoft/eslint-plugin-sdl", "@typescript-eslint/parser", "typescript"} {
		wrapTestWriteFile(t, filepath.Join(mods, filepath.FromSlash(p), "package.json"), "{}")
	}
	dir := t.TempDir()
	crash := wrapTestScript(t, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v9.39.5; exit 0; fi\ncat "+mustAbs(t, filepath.Join(wrapTestData, "eslint", "crash.stderr"))+" >&2\nexit 2\n")
	s := ESLint(wrapTestConfig(map[string]string{"SVC_ESLINT_PATH": crash, "SVC_ESLINT_MODULES": mods}))
	if _, hint, ok := s.Available(t.Context()); !ok {
		t.Fatalf("fake eslint unavailable: %s", hint)
	}
	_, err := s.Scan(t.Context(), scan.Target{Path: dir})
	if err == nil || !strings.Contains(err.Error(), "Something went wrong") && !strings.Contains(err.Error(), "TypeError") {
		t.Errorf("exit 2 = %v, want a crash quoting ESLint", err)
	}
	// Exit 1 with a report is findings; the report goes to --output-file.
	report := mustAbs(t, filepath.Join(wrapTestData, "eslint", "findings.json"))
	found := wrapTestScript(t, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v9.39.5; exit 0; fi\n"+
		"while [ $# -gt 0 ]; do if [ \"$1\" = --output-file ]; then cp "+report+" \"$2\"; fi; shift; done\nexit 1\n")
	s = ESLint(wrapTestConfig(map[string]string{"SVC_ESLINT_PATH": found, "SVC_ESLINT_MODULES": mods}))
	fs, err := s.Scan(t.Context(), scan.Target{Path: dir})
	if err != nil || len(fs) == 0 {
		t.Errorf("exit 1: %d findings, %v", len(fs), err)
	}
	// Without the plugins the scanner is unavailable with a hint.
	s = ESLint(wrapTestConfig(map[string]string{"SVC_ESLINT_PATH": found, "SVC_ESLINT_MODULES": t.TempDir()}))
	if _, hint, ok := s.Available(t.Context()); ok || !strings.Contains(hint, "npm install") {
		t.Errorf("missing plugins: ok=%v hint %q", ok, hint)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The real ESLint on a copy of the NodeGoat-like fixture that also holds a
// hostile eslint.config.js, a hostile local plugin in node_modules and
// .eslintrc: none of them may run, and every expected finding appears.
func TestWrappersIntegrationESLint(t *testing.T) {
	s, v := wrapIntegrationScanner(t, ESLint, nil)
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "projects", "nodegoat"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(t.TempDir(), "pwned")
	payload := `require("fs").writeFileSync(` + strconv.Quote(pwned) + `, "x");`
	wrapTestWriteFile(t, filepath.Join(dir, "eslint.config.js"), payload+"\nmodule.exports = [{ rules: {} }];\n")
	wrapTestWriteFile(t, filepath.Join(dir, "eslint.config.mjs"), "import fs from 'fs'; fs.writeFileSync("+strconv.Quote(pwned)+", 'x'); export default [];\n")
	wrapTestWriteFile(t, filepath.Join(dir, ".eslintrc.json"), `{"plugins": ["security"], "rules": {}}`)
	wrapTestWriteFile(t, filepath.Join(dir, "node_modules", "eslint-plugin-security", "package.json"), `{"name":"eslint-plugin-security","main":"index.js"}`)
	wrapTestWriteFile(t, filepath.Join(dir, "node_modules", "eslint-plugin-security", "index.js"), payload+"\nmodule.exports = {rules: {}};\n")
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: dir})
	eslintCheckNodeGoat(t, fs)
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("code from the scanned tree ran during the eslint scan")
	}
	if _, err := os.Stat(filepath.Join(dir, ".eslintcache")); err == nil {
		t.Error("eslint wrote a cache file into the target")
	}
}
