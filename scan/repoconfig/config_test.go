package repoconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"scand/finding"
)

const example = `# scand configuration of this repository
scan_types = ["code", "dependency", "code"]  # duplicates fold
fail_on = "high"

[ignore]
paths = [
  "testdata/**",     # fixtures
  "*.min.js",
  "!testdata/keep.go",
  'docs\drafts/',
]
rules = ["generic-api-key", "B101"]

[severity]
G104 = "low"
"security/detect-object-injection" = 'info'

[scanners]
disable = ["eslint"]
`

func TestParseExample(t *testing.T) {
	c, err := Parse(".scand.toml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.ScanTypes, ",") != "code,dependency" || c.FailOn != "high" {
		t.Errorf("top level: %v %q", c.ScanTypes, c.FailOn)
	}
	if strings.Join(c.IgnorePaths, "|") != `testdata/**|*.min.js|!testdata/keep.go|docs\drafts/` {
		t.Errorf("paths %q", c.IgnorePaths)
	}
	if strings.Join(c.IgnoreRules, ",") != "generic-api-key,B101" {
		t.Errorf("rules %q", c.IgnoreRules)
	}
	if c.Severity["G104"] != finding.Low || c.Severity["security/detect-object-injection"] != finding.Info || len(c.Severity) != 2 {
		t.Errorf("severity %v", c.Severity)
	}
	if !c.Disabled("eslint") || c.Disabled("gosec") {
		t.Errorf("disable %v", c.Disable)
	}
	if err := c.CheckScanners([]string{"secrets", "gosec"}); err == nil || err.Error() != `.scand.toml:19: scanners.disable: unknown scanner "eslint" (scanners: secrets, gosec)` {
		t.Errorf("CheckScanners: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"unknown top-level key", "scan_type = [\"code\"]\n", `f:1: scan_type: unknown key`},
		{"unknown table", "\n[ignores]\npaths = []\n", `f:3: ignores.paths: unknown table [ignores]`},
		{"unknown key in table", "[ignore]\nfiles = [\"a\"]\n", `f:2: ignore.files: unknown key ([ignore] has paths and rules)`},
		{"bad scan type", "scan_types = [\"code\", \"sast\"]", `f:1: scan_types: unknown scan type "sast"`},
		{"empty scan types", "scan_types = []", `f:1: scan_types: must name at least one scan type`},
		{"bad fail_on", "\n\nfail_on = \"severe\"", `f:3: fail_on: must be one of critical, high, medium, low, info, none, got "severe"`},
		{"fail_on array", "fail_on = [\"high\"]", `f:1: fail_on: must be a string, not an array`},
		{"paths not an array", "[ignore]\npaths = \"a\"", `f:2: ignore.paths: must be an array of strings`},
		{"bad severity", "[severity]\nG104 = \"urgent\"", `f:2: severity.G104: must be critical, high, medium, low or info, got "urgent"`},
		{"severity twice by case", "[severity]\nG104 = \"low\"\ng104 = \"high\"", `f:3: severity.g104: rule "g104" is overridden twice`},
		{"duplicate key", "fail_on = \"high\"\nfail_on = \"low\"", `f:2: fail_on: defined twice (first on line 1)`},
		{"duplicate table", "[ignore]\n[scanners]\n[ignore]", `f:3: ignore: table [ignore] is defined twice (first on line 1)`},
		{"number", "fail_on = 3", `f:1: fail_on: values are strings in quotes or arrays of them`},
		{"boolean", "[scanners]\ndisable = true", `f:2: scanners.disable: values are strings in quotes or arrays of them`},
		{"unterminated string", "fail_on = \"high", `f:1: fail_on: string is not closed on its line`},
		{"unterminated array", "[ignore]\npaths = [\"a\",\n\"b\"\n", `f:2: ignore.paths: array is not closed with ]`},
		{"missing comma", "[ignore]\npaths = [\"a\"\n\"b\"]\n", `f:3: ignore.paths: expected , or ] in the array`},
		{"number in array", "[ignore]\nrules = [\"a\", 2]", `f:2: ignore.rules: array elements must be strings in quotes`},
		{"trailing garbage", "fail_on = \"high\" x", `f:1: fail_on: unexpected 'x' after the value`},
		{"dotted key", "ignore.paths = [\"a\"]", `f:1: ignore: dotted keys are not part of .scand.toml`},
		{"array of tables", "[[ignore]]", `f:1: arrays of tables`},
		{"bad escape", `fail_on = "a\qb"`, `f:1: fail_on: invalid escape \q`},
		{"multi-line string", `fail_on = """high"""`, `f:1: fail_on: multi-line strings are not part of .scand.toml`},
		{"malformed glob", "[ignore]\npaths = [\"a[\"]", `f:2: ignore.paths: "a[": malformed pattern "a["`},
		{"dot-dot glob", "[ignore]\npaths = [\"../x\"]", `f:2: ignore.paths: "../x": . and .. segments never match`},
		{"empty pattern", "[ignore]\npaths = [\"!\"]", `f:2: ignore.paths: "!": an empty pattern matches nothing`},
		{"empty rule", "[ignore]\nrules = [\" \"]", `f:2: ignore.rules: an empty rule id matches nothing`},
		{"control character", "fail_on = \"hi\x01gh\"", `f:1: fail_on: control character`},
		{"invalid utf-8", "fail_on = \"\xff\"", `f:1: not valid UTF-8`},
		{"missing equals", "fail_on \"high\"", `f:1: fail_on: expected = after the key`},
		{"table header garbage", "[ignore] x", `f:1: ignore: unexpected 'x'`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f", []byte(tc.doc))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want a *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestParseEmptyAndComments(t *testing.T) {
	for _, doc := range []string{"", "# nothing\n\n   \n", "[ignore]\n[severity]\n[scanners]\n"} {
		c, err := Parse("f", []byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if c.Paths() != nil || c.ScanTypes != nil || c.FailOn != "" {
			t.Errorf("%q: %+v", doc, c)
		}
	}
}

func TestPathsMatchLikeGitignore(t *testing.T) {
	cases := []struct {
		patterns []string
		path     string
		dir      bool
		want     bool
	}{
		{[]string{"*.min.js"}, "app.min.js", false, true},
		{[]string{"*.min.js"}, "web/static/app.min.js", false, true},
		{[]string{"*.min.js"}, "app.js", false, false},
		{[]string{"fixtures"}, "a/b/fixtures/key.pem", false, true}, // a name at any depth, and what is under it
		{[]string{"fixtures"}, "a/fixturesX/key.pem", false, false},
		{[]string{"/build"}, "build/out.txt", false, true},
		{[]string{"/build"}, "src/build/out.txt", false, false}, // anchored
		{[]string{"docs/*.md"}, "docs/a.md", false, true},
		{[]string{"docs/*.md"}, "docs/sub/a.md", false, false}, // * stops at /
		{[]string{"docs/*.md"}, "x/docs/a.md", false, false},   // a slash anchors
		{[]string{"**/testdata"}, "testdata/a.go", false, true},
		{[]string{"**/testdata"}, "x/y/testdata/a.go", false, true},
		{[]string{"a/**/b"}, "a/b/f", false, true},
		{[]string{"a/**/b"}, "a/x/y/b/f", false, true},
		{[]string{"a/**/b"}, "a/x/c/f", false, false},
		{[]string{"generated/**"}, "generated/x.go", false, true},
		{[]string{"generated/**"}, "generated", true, false}, // everything inside, not the directory itself
		{[]string{"vendor/"}, "vendor/lib/x.go", false, true},
		{[]string{"vendor/"}, "vendor", false, false}, // a file named vendor is not a directory
		{[]string{"vendor/"}, "vendor", true, true},
		{[]string{"*.key", "!public.key"}, "certs/public.key", false, false},
		{[]string{"*.key", "!public.key"}, "certs/private.key", false, true},
		{[]string{"!public.key", "*.key"}, "certs/public.key", false, true},      // the last match wins
		{[]string{"secrets/", "!secrets/ok.txt"}, "secrets/ok.txt", false, true}, // no way back out of an excluded directory
		{[]string{"testdata/**", "!testdata/keep.go"}, "testdata/keep.go", false, false},
		{[]string{"fi?e.txt"}, "file.txt", false, true},
		{[]string{"[ab].txt"}, "b.txt", false, true},
		{[]string{"[ab].txt"}, "c.txt", false, false},
		{[]string{`\!important`}, "!important", false, true},
		{[]string{"x"}, "", true, false},
	}
	for _, tc := range cases {
		ps, err := compilePaths(tc.patterns)
		if err != nil {
			t.Fatal(err)
		}
		if got := ps.Ignored(tc.path, tc.dir); got != tc.want {
			t.Errorf("%q on %q (dir %v) = %v, want %v", tc.patterns, tc.path, tc.dir, got, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	c, err := Parse(".scand.toml", []byte("[ignore]\nrules = [\"generic-api-key\"]\n[severity]\nB105 = \"critical\"\nGeneric-API-Key = \"low\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]any{finding.MetaSuppressedBy: nil}
	f := finding.Finding{RuleID: "generic-api-key", Severity: finding.High, Metadata: meta}
	if !c.Apply(&f) {
		t.Fatal("nothing applied")
	}
	if f.Severity != finding.Low || f.Metadata[finding.MetaOriginalSeverity] != "high" {
		t.Errorf("override: %s %v", f.Severity, f.Metadata)
	}
	if f.Metadata[finding.MetaSuppressedBy] != "config: .scand.toml [ignore] rules generic-api-key" {
		t.Errorf("suppressed_by %v", f.Metadata[finding.MetaSuppressedBy])
	}
	if meta[finding.MetaSuppressedBy] != nil {
		t.Error("Apply modified the caller's metadata map")
	}
	inline := finding.Finding{RuleID: "generic-api-key", Severity: finding.Low, Metadata: map[string]any{finding.MetaSuppressedBy: "inline: scand:ignore"}}
	c.Apply(&inline)
	if inline.Metadata[finding.MetaSuppressedBy] != "inline: scand:ignore" {
		t.Errorf("an inline suppression was replaced: %v", inline.Metadata)
	}
	other := finding.Finding{RuleID: "B101", Severity: finding.Low, Metadata: map[string]any{}}
	if c.Apply(&other) || len(other.Metadata) != 0 {
		t.Errorf("an unlisted rule changed: %+v", other)
	}
	if c.PathIgnored("a.go") || (*Config)(nil).PathIgnored("a.go") {
		t.Error("no [ignore] paths ignores a path")
	}
}

func TestLoadRefusesLinksAndBigFiles(t *testing.T) {
	dir := t.TempDir()
	if c, err := LoadTree(dir); c != nil || err != nil {
		t.Fatalf("a tree without a config: %v %v", c, err)
	}
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("fail_on = \"high\"\n"), 0o600)
	if err := os.Symlink(outside, filepath.Join(dir, FileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTree(dir); err == nil || err.Error() != FileName+": is a symbolic link; scand reads only a regular file" {
		t.Errorf("a symlinked config was read: %v", err)
	}
	os.Remove(filepath.Join(dir, FileName))
	// A FIFO would block a plain open forever; a directory is no file.
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTree(dir); err == nil || err.Error() != FileName+": "+ErrNotRegular.Error() {
		t.Errorf("a FIFO config: %v", err)
	}
	os.Remove(filepath.Join(dir, FileName))
	os.Mkdir(filepath.Join(dir, FileName), 0o700)
	if _, err := LoadTree(dir); err == nil || err.Error() != FileName+": not a regular file" {
		t.Errorf("a directory config: %v", err)
	}
	os.Remove(filepath.Join(dir, FileName))
	os.WriteFile(filepath.Join(dir, FileName), []byte(strings.Repeat("# x\n", MaxSize/4+1)), 0o600)
	if _, err := LoadTree(dir); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an oversized config was read: %v", err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte("fail_on = \"low\"\n"), 0o600)
	if c, err := LoadTree(dir); err != nil || c.FailOn != "low" || c.File != FileName {
		t.Errorf("LoadTree: %+v %v", c, err)
	}
}

// TestApplyMatchesAnyAdvisoryID: a rule naming a vulnerability's CVE
// suppresses (and overrides the severity of) the tools' findings that
// key it by GO or GHSA id, so merging them never unsuppresses it.
func TestApplyMatchesAnyAdvisoryID(t *testing.T) {
	c, err := Parse(".scand.toml", []byte("[ignore]\nrules = [\"cve-2021-38561\"]\n[severity]\nGHSA-ppp9-7jff-5vj2 = \"low\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	raw := finding.Finding{Scanner: "govulncheck", RuleID: "GO-2021-0113", Severity: finding.High, FilePath: "go.mod",
		Metadata: map[string]any{"package": "golang.org/x/text", "version": "v0.3.6", "aliases": []string{"CVE-2021-38561", "GHSA-ppp9-7jff-5vj2"}}}
	f := finding.PrepareOne("s", raw, nil)
	if !c.Apply(&f) || !finding.IsSuppressed(f) || f.Severity != finding.Low {
		t.Fatalf("GO-2021-0113 with alias CVE-2021-38561: suppressed %v, severity %s", finding.IsSuppressed(f), f.Severity)
	}
	other := finding.PrepareOne("s", finding.Finding{Scanner: "govulncheck", RuleID: "GO-2022-1059", Severity: finding.High, FilePath: "go.mod",
		Metadata: map[string]any{"package": "golang.org/x/text", "version": "v0.3.6", "aliases": []string{"CVE-2022-32149"}}}, nil)
	if c.Apply(&other) || finding.IsSuppressed(other) {
		t.Error("another vulnerability was suppressed")
	}
}
