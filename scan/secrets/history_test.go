package scan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"scand/finding"
)

// secretsGitRepo is a throwaway repository driven by the real git CLI
// through the Runner, isolated from the machine's git configuration.
type secretsGitRepo struct {
	t   *testing.T
	dir string
	n   int
}

func newSecretsGitRepo(t *testing.T) *secretsGitRepo {
	t.Helper()
	r := &secretsGitRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *secretsGitRepo) git(args ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	full := append([]string{"-C", r.dir, "-c", "user.name=scand test", "-c", "user.email=test@scand.invalid",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"}, args...)
	res, err := NewRunner(30*time.Second).Run(ctx, Cmd{Program: "git", Args: full, Env: []string{
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	}})
	if err != nil || res.ExitCode != 0 {
		r.t.Fatalf("git %v: %v exit %d: %s", args, err, res.ExitCode, res.Stderr)
	}
	return strings.TrimSpace(string(res.Stdout))
}

func (r *secretsGitRepo) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

func (r *secretsGitRepo) remove(rel string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.dir, rel)); err != nil {
		r.t.Fatal(err)
	}
}

// commit stages everything and returns the new commit's full sha.
func (r *secretsGitRepo) commit() string {
	r.t.Helper()
	r.n++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", "change "+string(rune('a'+r.n)))
	return r.git("rev-parse", "HEAD")
}

func TestSecretsHistory(t *testing.T) {
	const (
		pat      = "ghp_" + "T4kq9Wm2Xc7Vb5Nz1Lp3Rd8Hs6Jf0Ga2Ye4U"
		slack    = "xoxb-" + "482910375610-5829103746152-" + "Hq7Wc2Vz9Lm4Xp6Rt1Bn8Kd3"
		npmTok   = "npm_" + "Rz5Xw8Qk2Lm7Vb4Nc9Pt1Hs6Jd3Fg0Ae2Wq8"
		vendored = "glpat-" + "Vz9Lm4Xp6Rt1Bn8Kd3Hq"
	)
	key := []string{
		"Xq2Lm8Vb4Nc9Pt1Hs6Jd3Fg0Ae2Wq8Rz5Xw8Qk2Lm7Vb4Nc9Pt1Hs6Jd3Fg0Ae2",
		"Bn8Kd3Hq7Wc2Vz9Lm4Xp6Rt1Bn8Kd3Hq7Wc2Vz9Lm4Xp6Rt1Bn8Kd3Hq7Wc2Vz9",
	}
	r := newSecretsGitRepo(t)
	r.write("config/app.env", "APP=billing\nLOG=info\nGH_TOKEN="+pat+"\n")
	r.write("keep.yml", "slack: "+slack+"\n")
	r.write("node_modules/dep/conf.yml", "token: "+vendored+"\n")
	r.write("docs/readme.md", "nothing here\n")
	first := r.commit()

	// The token moves to an env reference; the key is added in a file
	// that is later deleted; the npm token is added twice.
	r.write("config/app.env", "APP=billing\nLOG=info\nGH_TOKEN=${GH_TOKEN}\n")
	r.write("deploy/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n"+key[0]+"\n"+key[1]+"\n-----END OPENSSH PRIVATE KEY-----\n")
	r.write("docs/readme.md", "nothing here\nnpm token "+npmTok+"\n")
	second := r.commit()

	r.remove("deploy/id_ed25519")
	r.write("docs/readme.md", "nothing here\n")
	r.commit()
	r.write("docs/other name ü.md", "intro\n\nagain: "+npmTok+"\n")
	r.write("docs/readme.md", "nothing here\nstill nothing\nre-added "+npmTok+"\n")
	r.commit()
	r.remove("docs/other name ü.md")
	r.write("docs/readme.md", "nothing here\n")
	r.commit()

	got := secretsTestScan(t, secretsTestScanner(t, true), r.dir)

	type want struct {
		file, rule, commit string
		line               int
		severity           finding.Severity
	}
	wants := []want{
		{"config/app.env", "github-pat", first, 3, finding.High},
		{"deploy/id_ed25519", "private-key-openssh", second, 1, finding.Critical},
		{"docs/other name ü.md", "npm-access-token", "", 3, finding.High},
		{"docs/readme.md", "npm-access-token", second, 2, finding.High},
		{"keep.yml", "slack-bot-token", "", 1, finding.High},
	}
	// The npm token in "other name ü.md" was added in a later commit, so
	// its commit is that one; look it up rather than counting commits.
	wants[2].commit = r.git("log", "--format=%H", "--diff-filter=A", "--", "docs/other name ü.md")

	if len(got) != len(wants) {
		for _, f := range got {
			t.Logf("got %s %s:%d %v", f.RuleID, f.FilePath, f.Line, f.Metadata["commit"])
		}
		t.Fatalf("got %d findings, want %d", len(got), len(wants))
	}
	for _, w := range wants {
		var f *finding.Finding
		for i := range got {
			if got[i].FilePath == w.file && got[i].RuleID == w.rule {
				f = &got[i]
			}
		}
		if f == nil {
			t.Errorf("missing %s in %s", w.rule, w.file)
			continue
		}
		if f.Line != w.line || f.Severity != w.severity {
			t.Errorf("%s in %s: line %d severity %s, want %d %s", w.rule, w.file, f.Line, f.Severity, w.line, w.severity)
		}
		commit, inHistory := f.Metadata["commit"].(string)
		if w.file == "keep.yml" {
			if inHistory || strings.Contains(f.Title, "history") {
				t.Errorf("working-tree secret reported as history: %+v", f)
			}
			continue
		}
		if commit != w.commit || len(commit) != 40 {
			t.Errorf("%s in %s: commit %q, want %q", w.rule, w.file, commit, w.commit)
		}
		if !strings.HasSuffix(f.Title, "in git history") || !strings.Contains(f.Description, w.commit) {
			t.Errorf("%s: title %q description %q", w.rule, f.Title, f.Description)
		}
	}
	for _, f := range got {
		js, _ := json.Marshal(f)
		for _, sec := range append([]string{pat, slack, npmTok, vendored}, key...) {
			if strings.Contains(string(js), sec) || strings.Contains(f.Snippet, sec) {
				t.Errorf("%s in %s leaks a secret", f.RuleID, f.FilePath)
			}
		}
	}
}

// A secret still in the working tree is reported once, for the working
// tree, even though history holds it too.
func TestSecretsHistoryDedupWithWorkingTree(t *testing.T) {
	tok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	r := newSecretsGitRepo(t)
	r.write("a.yml", "x: 1\ntoken: "+tok+"\n")
	r.commit()
	r.write("a.yml", "# moved\nx: 1\ny: 2\ntoken: "+tok+"\n")
	r.commit()
	got := secretsTestScan(t, secretsTestScanner(t, true), r.dir)
	if len(got) != 1 || got[0].Line != 4 || got[0].Metadata["commit"] != nil {
		t.Fatalf("got %+v", got)
	}
}

func TestSecretsHistoryOffAndSubdirectory(t *testing.T) {
	tok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	r := newSecretsGitRepo(t)
	r.write("sub/a.yml", "token: "+tok+"\n")
	r.commit()
	r.write("sub/a.yml", "token: none\n")
	r.commit()
	if got := secretsTestScan(t, secretsTestScanner(t, true), r.dir); len(got) != 1 {
		t.Fatalf("history on: %d findings, want 1", len(got))
	}
	if got := secretsTestScan(t, secretsTestScanner(t, false), r.dir); len(got) != 0 {
		t.Errorf("SVC_SECRETS_HISTORY=0: %d findings, want 0", len(got))
	}
	// Paths in history are relative to the repository root, so a target
	// below it gets no history scan rather than wrong paths.
	if got := secretsTestScan(t, secretsTestScanner(t, true), filepath.Join(r.dir, "sub")); len(got) != 0 {
		t.Errorf("subdirectory target: %d findings, want 0", len(got))
	}
}

// A repository git refuses to read does not fail the scan: the working
// tree is still reported.
func TestSecretsHistoryBrokenRepo(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /nonexistent/scand\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	if err := os.WriteFile(filepath.Join(dir, "a.yml"), []byte("token: "+tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := secretsTestScan(t, secretsTestScanner(t, true), dir); len(got) != 1 {
		t.Fatalf("got %d findings, want 1", len(got))
	}
}

func TestSecretsHistoryParse(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	tok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	out := "\x01" + sha + "\n\n" +
		"diff --git a/x.txt b/x.txt\n" +
		"--- a/x.txt\n+++ b/x.txt\n" +
		"@@ -10,0 +11,2 @@ func f()\n" +
		"+++ not a header: " + tok + "\n" +
		"+plain\n" +
		"@@ -40 +43 @@\n" +
		"-old\n" +
		"+t = " + tok + "x\n" + // longer value: a different secret
		"diff --git \"a/q\\303\\274.yml\" \"b/q\\303\\274.yml\"\n" +
		"--- /dev/null\n+++ \"b/q\\303\\274.yml\"\n" +
		"@@ -0,0 +1 @@\n" +
		"+k: " + tok + "\n" +
		"diff --git a/gone.yml b/gone.yml\n" +
		"--- a/gone.yml\n+++ /dev/null\n" +
		"@@ -1 +0,0 @@\n" +
		"-k: " + tok + "\n"
	s := secretsTestScanner(t, false)
	hits, err := s.parseHistory(context.Background(), []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.path+":"+strconv.Itoa(h.hit.line)+":"+h.commit[:4])
	}
	want := []string{"qü.yml:1:abab", "x.txt:11:abab", "x.txt:43:abab"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Past the byte cap the oldest commits go unscanned, and the scan still
// succeeds with what fitted; past the commit cap likewise.
func TestSecretsHistoryBounds(t *testing.T) {
	oldTok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	newTok := "glrt-" + "Qz8Wx3Ec5Rv7Tb9Yn2Um"
	r := newSecretsGitRepo(t)
	r.write("old.yml", "token: "+oldTok+"\n"+strings.Repeat("filler line\n", 2000))
	r.commit()
	r.remove("old.yml")
	r.commit()
	r.write("new.yml", "token: "+newTok+"\n")
	r.commit()
	r.remove("new.yml")
	r.commit()

	for _, tc := range []struct {
		name     string
		maxBytes int
		commits  int
		want     []string
	}{
		{"unbounded", secretsHistoryMaxBytes, secretsHistoryMaxCommits, []string{"new.yml", "old.yml"}},
		{"byte cap", 4 << 10, secretsHistoryMaxCommits, []string{"new.yml"}},
		{"commit cap", secretsHistoryMaxBytes, 2, []string{"new.yml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := secretsTestScanner(t, true)
			s.historyMaxBytes, s.historyMaxCommits = tc.maxBytes, tc.commits
			var files []string
			for _, f := range secretsTestScan(t, s, r.dir) {
				files = append(files, f.FilePath)
			}
			if strings.Join(files, " ") != strings.Join(tc.want, " ") {
				t.Errorf("findings in %v, want %v", files, tc.want)
			}
		})
	}
}
