package dockerfile

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

const dockerfileTestdata = "../../testdata/dockerfile"

func dockerfileScanDir(t *testing.T, dir string) []finding.Finding {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := New(scan.Config{}).Scan(context.Background(), scan.Target{Path: abs})
	if err != nil {
		t.Fatalf("scan %s: %v", dir, err)
	}
	return got
}

func dockerfileByRule(fs []finding.Finding, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.RuleID == rule {
			out = append(out, f)
		}
	}
	return out
}

// TestDockerfileRules runs every rule against its bad fixture (exact lines,
// severity and CWE) and its good fixture (no finding of that rule).
func TestDockerfileRules(t *testing.T) {
	cases := []struct {
		rule  string
		sev   finding.Severity
		cwe   finding.CWE
		lines []int
	}{
		{"DF001", finding.Medium, "CWE-1104", []int{2, 4}},
		{"DF002", finding.Medium, "CWE-1104", []int{1, 2}},
		{"DF003", finding.Info, "CWE-829", []int{1}},
		{"DF004", finding.Medium, "CWE-250", []int{4}},
		{"DF005", finding.Medium, "CWE-250", []int{4}},
		{"DF006", finding.Medium, "CWE-494", []int{2, 4}},
		{"DF007", finding.Low, "CWE-16", []int{2}},
		{"DF008", finding.High, "CWE-494", []int{2, 4, 6, 9}},
		{"DF009", finding.High, "CWE-798", []int{1, 3, 5, 6}},
		{"DF010", finding.Low, "CWE-16", []int{3}},
		{"DF011", finding.Low, "CWE-16", []int{2, 3}},
		{"DF012", finding.Info, "CWE-16", []int{3}},
		{"DF013", finding.Medium, "CWE-250", []int{3, 5}},
		{"DF014", finding.Medium, "CWE-16", []int{3, 4}},
		{"DF015", finding.Medium, "CWE-732", []int{2, 3, 4, 5}},
		{"DF016", finding.Info, "CWE-16", []int{3}},
		{"DF017", finding.Medium, "CWE-538", []int{4}},
		{"DF018", finding.Low, "CWE-16", []int{2}},
		{"DF019", finding.Low, "CWE-16", []int{2, 3}},
		{"DF020", finding.Low, "CWE-16", []int{2}},
		{"DF021", finding.Info, "CWE-477", []int{2}},
		{"DF022", finding.Low, "CWE-1164", []int{2}},
		{"DF023", finding.Info, "CWE-16", []int{2, 4}},
		{"DF024", finding.High, "CWE-295", []int{2, 3, 5}},
		{"DF025", finding.Medium, "CWE-319", []int{2, 3, 4}},
		{"DF026", finding.Medium, "CWE-250", []int{2, 3}},
		{"DF027", finding.Low, "CWE-16", []int{2}},
		{"DF028", finding.Low, "CWE-1357", []int{2, 4}},
		{"DF029", finding.Low, "CWE-1357", []int{2, 3}},
		{"DF030", finding.Low, "CWE-1357", []int{2, 3}},
		{"DF031", finding.Low, "CWE-1357", []int{2, 3}},
		{"DF032", finding.Low, "CWE-1357", []int{2, 3}},
		{"DF033", finding.Low, "CWE-754", []int{2, 4}},
		{"DF034", finding.Low, "CWE-16", []int{2, 3, 5}},
		{"DF035", finding.Low, "CWE-16", []int{2, 3}},
		{"DF036", finding.Low, "CWE-1357", []int{2, 3}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.rule] = true
		t.Run(c.rule, func(t *testing.T) {
			dir := filepath.Join(dockerfileTestdata, "rules", c.rule)
			bad := dockerfileByRule(dockerfileScanDir(t, filepath.Join(dir, "bad")), c.rule)
			var lines []int
			for _, f := range bad {
				lines = append(lines, f.Line)
				if f.FilePath != "Dockerfile" {
					t.Errorf("file_path = %q, want Dockerfile", f.FilePath)
				}
				if f.Severity != c.sev || f.CWE != c.cwe {
					t.Errorf("line %d: severity/cwe = %s/%s, want %s/%s", f.Line, f.Severity, f.CWE, c.sev, c.cwe)
				}
				if f.Scanner != "dockerfile" || f.ScanType != scan.TypeIaC || f.Title == "" || f.Description == "" || f.Snippet == "" {
					t.Errorf("incomplete finding: %+v", f)
				}
				if name, _ := f.Metadata["rule_name"].(string); name == "" {
					t.Errorf("no rule_name in metadata: %v", f.Metadata)
				}
			}
			sort.Ints(lines)
			if !reflect.DeepEqual(lines, c.lines) {
				t.Errorf("bad fixture lines = %v, want %v", lines, c.lines)
			}
			if good := dockerfileByRule(dockerfileScanDir(t, filepath.Join(dir, "good")), c.rule); len(good) > 0 {
				for _, f := range good {
					t.Errorf("good fixture: unexpected %s at line %d: %s", f.RuleID, f.Line, f.Description)
				}
			}
		})
	}
	for _, r := range dockerfileRules.Rules {
		if !covered[r.ID] {
			t.Errorf("rule %s (%s) has no fixture case", r.ID, r.Name)
		}
	}
}

// TestDockerfileCleanHasNoFindings is the false-positive guard: a
// well-written multi-stage Dockerfile must produce nothing.
func TestDockerfileCleanHasNoFindings(t *testing.T) {
	for _, f := range dockerfileScanDir(t, filepath.Join(dockerfileTestdata, "clean")) {
		t.Errorf("unexpected %s line %d: %s", f.RuleID, f.Line, f.Description)
	}
}

func TestDockerfileSecretNeverStoredWhole(t *testing.T) {
	raw := []string{"fake-npm-token-for-tests", "not-a-real-password", "fake-api-key-value", "example-pass"}
	got := dockerfileByRule(dockerfileScanDir(t, filepath.Join(dockerfileTestdata, "rules", "DF009", "bad")), "DF009")
	if len(got) == 0 {
		t.Fatal("no DF009 findings")
	}
	for _, f := range got {
		all := f.Title + f.Description + f.Snippet
		for k, v := range f.Metadata {
			all += k + dockerfileMetaString(v)
		}
		for _, secret := range raw {
			if strings.Contains(all, secret) {
				t.Errorf("line %d leaks %q", f.Line, secret)
			}
		}
	}
}

func dockerfileMetaString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// TestDockerfileParser checks the parts of the parser the rules depend on:
// heredoc bodies are not instructions, comment and blank lines inside a
// continuation are dropped, and the escape directive changes the
// continuation character.
func TestDockerfileParser(t *testing.T) {
	t.Run("heredoc and continuation", func(t *testing.T) {
		got := dockerfileScanDir(t, filepath.Join(dockerfileTestdata, "parser"))
		rules := map[string][]int{}
		for _, f := range got {
			if f.FilePath != "Dockerfile.heredoc" {
				continue
			}
			rules[f.RuleID] = append(rules[f.RuleID], f.Line)
		}
		want := map[string][]int{
			"DF003": {1},     // only the real FROM; the one in the COPY heredoc is content
			"DF015": {8, 17}, // bash heredoc body line, continuation line after comment+blank
			"DF016": {1},
		}
		if !reflect.DeepEqual(rules, want) {
			t.Errorf("findings = %v, want %v", rules, want)
		}
	})
	t.Run("escape directive", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(dockerfileTestdata, "parser", "Dockerfile.windows"))
		if err != nil {
			t.Fatal(err)
		}
		f := dockerfileParse(string(data))
		if f.escape != '`' {
			t.Fatalf("escape = %q", f.escape)
		}
		var kw []string
		var lines []int
		for _, in := range f.instructions {
			kw = append(kw, in.keyword)
			lines = append(lines, in.line)
		}
		if !reflect.DeepEqual(kw, []string{"FROM", "RUN", "ENV"}) || !reflect.DeepEqual(lines, []int{2, 3, 5}) {
			t.Errorf("instructions = %v at %v", kw, lines)
		}
		got := dockerfileAnalyze("Dockerfile.windows", f, false)
		rules := map[string][]int{}
		for _, g := range got {
			rules[g.RuleID] = append(rules[g.RuleID], g.Line)
		}
		// Windows stage: no RUN rules (the plain-http download in
		// PowerShell is not read as sh), no USER rule; the secret on the
		// backtick-continued ENV is on line 5.
		want := map[string][]int{"DF003": {2}, "DF009": {5}, "DF016": {2}}
		if !reflect.DeepEqual(rules, want) {
			t.Errorf("findings = %v, want %v", rules, want)
		}
	})
	t.Run("exec form and words", func(t *testing.T) {
		f := dockerfileParse("FROM a:1\nRUN [\"sh\", \"-c\", \"curl -k https://x | sh\"]\nCMD [\"a\",\n")
		run := f.instructions[1]
		if !run.isExec() || len(run.exec) != 3 {
			t.Fatalf("RUN exec = %#v", run.exec)
		}
		if cmd := f.instructions[2]; cmd.isExec() {
			t.Errorf("malformed JSON must fall back to shell form, got %#v", cmd.exec)
		}
		got := dockerfileAnalyze("Dockerfile", f, true)
		var ids []string
		for _, g := range got {
			if g.RuleID == "DF008" || g.RuleID == "DF024" {
				ids = append(ids, g.RuleID)
				if g.Line != 2 {
					t.Errorf("%s line = %d, want 2", g.RuleID, g.Line)
				}
			}
		}
		sort.Strings(ids)
		if !reflect.DeepEqual(ids, []string{"DF008", "DF024"}) {
			t.Errorf("exec-form sh -c rules = %v", ids)
		}
	})
}

func TestDockerfileShellParse(t *testing.T) {
	cases := []struct {
		script string
		want   [][]string
	}{
		{`a && b || c; d`, [][]string{{"a"}, {"b"}, {"c"}, {"d"}}},
		{`echo "x && y" 'a|b' c\ d`, [][]string{{"echo", "x && y", "a|b", "c d"}}},
		{`make 2>&1 | tee log &>/dev/null`, [][]string{{"make", "2>&1"}, {"tee", "log", "&>/dev/null"}}},
		{`(cd /x && make)`, [][]string{{"cd", "/x"}, {"make"}}},
		{`sh -c "$(curl -fsSL u)"`, [][]string{{"sh", "-c", "$(curl -fsSL u)"}, {"curl", "-fsSL", "u"}}},
		{`echo $((1<<2)) # curl | sh`, [][]string{{"echo", "$((1<<2))"}}},
		{`bash <(wget -qO- u)`, [][]string{{"bash", "<(wget -qO- u)"}, {"wget", "-qO-", "u"}}},
	}
	for _, c := range cases {
		cmds := dockerfileShellParse(dockerfileSingleLine(c.script, 1))
		var got [][]string
		for _, cmd := range cmds {
			var ws []string
			for _, w := range cmd.words {
				ws = append(ws, w.text)
			}
			got = append(got, ws)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q\n got %q\nwant %q", c.script, got, c.want)
		}
	}
}

func TestDockerfileHelpers(t *testing.T) {
	modes := map[string]bool{
		"777": true, "0777": true, "666": true, "757": true, "1777": false, "755": false, "0644": false,
		"a+rwx": true, "o+w": true, "ugo+w": true, "a=rw": true, "u+x": false, "+w": false, "g+w": false, "o-w": false, "a+rx": false,
	}
	for m, want := range modes {
		if got := dockerfileModeWorldWritable(m); got != want {
			t.Errorf("mode %q world-writable = %v, want %v", m, got, want)
		}
	}
	names := map[string]bool{
		"DB_PASSWORD": true, "GITHUB_TOKEN": true, "API_KEY": true, "AWS_SECRET_ACCESS_KEY": true, "PRIVATE_KEY": true,
		"MYSQL_ROOT_PASSWORD": true, "DB_PASS": true, "apikey": true,
		"PASSWORD_FILE": false, "TOKENIZERS_PARALLELISM": false, "PWD": false, "SECRET_NAME": false, "KEY": false, "PASSENGER_APP_ENV": false,
	}
	for n, want := range names {
		if got := dockerfileIsSecretName(n); got != want {
			t.Errorf("secret name %q = %v, want %v", n, got, want)
		}
	}
	refs := map[string]dockerfileImageRef{
		"alpine":                        {name: "alpine"},
		"alpine:3.20":                   {name: "alpine", tag: "3.20"},
		"reg:5000/a/b":                  {name: "reg:5000/a/b"},
		"reg:5000/a/b:1@sha256:ff":      {name: "reg:5000/a/b", tag: "1", digest: "sha256:ff"},
		"ghcr.io/o/i@sha256:0123456789": {name: "ghcr.io/o/i", digest: "sha256:0123456789"},
	}
	for in, want := range refs {
		if got := dockerfileParseImageRef(in); got != want {
			t.Errorf("ref %q = %+v, want %+v", in, got, want)
		}
	}
	vars := map[string]string{"A": "alpine", "T": "3.20", "E": ""}
	expand := []struct {
		in, out  string
		resolved bool
	}{
		{"$A:$T", "alpine:3.20", true},
		{"${A}:${T}", "alpine:3.20", true},
		{"node:${V:-20}", "node:20", true},
		{"node:${E:-20}", "node:20", true},
		{"node:${E-20}", "node:", true},
		{"node:${V}", "node:${V}", false},
		{"x${A:+-slim}", "x-slim", true},
	}
	for _, e := range expand {
		out, ok := dockerfileExpandArgs(e.in, vars)
		if out != e.out || ok != e.resolved {
			t.Errorf("expand %q = %q,%v want %q,%v", e.in, out, ok, e.out, e.resolved)
		}
	}
}

// TestDockerfileDiscovery checks which file names are Dockerfiles and that
// dependency and VCS directories are skipped.
func TestDockerfileDiscovery(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dockerfileTestdata, "discovery")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// git cannot store a .git directory in a fixture, so make one here.
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "Dockerfile"), []byte("FROM alpine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "Dockerfile"), filepath.Join(dir, "Dockerfile.link")); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range dockerfileScanDir(t, dir) {
		if f.RuleID == "DF002" {
			files = append(files, f.FilePath)
		}
	}
	sort.Strings(files)
	want := []string{"Containerfile", "Containerfile.dev", "Dockerfile", "Dockerfile.prod", "api.Dockerfile", "sub/Dockerfile", "web.dockerfile"}
	if !reflect.DeepEqual(files, want) {
		t.Errorf("scanned %v, want %v", files, want)
	}
}

func TestDockerfileScannerContract(t *testing.T) {
	s := New(scan.Config{})
	if s.Name() != "dockerfile" || s.Type() != scan.TypeIaC {
		t.Errorf("name/type = %s/%s", s.Name(), s.Type())
	}
	if v, _, ok := s.Available(context.Background()); !ok || v != "builtin" {
		t.Errorf("available = %s %v", v, ok)
	}
	if _, err := s.Scan(context.Background(), scan.Target{Path: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("missing target: want error")
	}
	got, err := s.Scan(context.Background(), scan.Target{Path: t.TempDir()})
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("empty dir = %v, %v; want empty non-nil slice", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Scan(ctx, scan.Target{Path: dockerfileTestdata}); err == nil {
		t.Error("cancelled context: want error")
	}
}

// A finding on a continuation line records the instruction's first line,
// where KICS reports the same problem.
func TestDockerfileInstructionLine(t *testing.T) {
	dir := t.TempDir()
	src := "FROM alpine:3.20\nRUN echo hi && \\\n    apk add \\\n      curl\nUSER 1000\n"
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := dockerfileByRule(dockerfileScanDir(t, dir), "DF018")
	if len(got) != 1 || got[0].Line != 3 || got[0].Metadata[finding.MetaInstructionLine] != 2 {
		t.Fatalf("DF018 = %+v, want line 3 with instruction_line 2", got)
	}
	for _, f := range dockerfileScanDir(t, dir) {
		if _, ok := f.Metadata[finding.MetaInstructionLine]; !ok {
			t.Errorf("%s at line %d has no instruction_line", f.RuleID, f.Line)
		}
	}
}
