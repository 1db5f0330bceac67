package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
	"scand/scan/internal/scantest"
)

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
	r := scantest.NewGitRepo(t)
	r.Write("config/app.env", "APP=billing\nLOG=info\nGH_TOKEN="+pat+"\n")
	r.Write("keep.yml", "slack: "+slack+"\n")
	r.Write("node_modules/dep/conf.yml", "token: "+vendored+"\n")
	r.Write("docs/readme.md", "nothing here\n")
	first := r.Commit()

	// The token moves to an env reference; the key is added in a file
	// that is later deleted; the npm token is added twice.
	r.Write("config/app.env", "APP=billing\nLOG=info\nGH_TOKEN=${GH_TOKEN}\n")
	r.Write("deploy/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n"+key[0]+"\n"+key[1]+"\n-----END OPENSSH PRIVATE KEY-----\n")
	r.Write("docs/readme.md", "nothing here\nnpm token "+npmTok+"\n")
	second := r.Commit()

	r.Remove("deploy/id_ed25519")
	r.Write("docs/readme.md", "nothing here\n")
	r.Commit()
	r.Write("docs/other name ü.md", "intro\n\nagain: "+npmTok+"\n")
	r.Write("docs/readme.md", "nothing here\nstill nothing\nre-added "+npmTok+"\n")
	r.Commit()
	r.Remove("docs/other name ü.md")
	r.Write("docs/readme.md", "nothing here\n")
	r.Commit()

	got := scantest.Scan(t, secretsTestScanner(t, true), r.Dir)

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
	wants[2].commit = r.Git("log", "--format=%H", "--diff-filter=A", "--", "docs/other name ü.md")

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
	r := scantest.NewGitRepo(t)
	r.Write("a.yml", "x: 1\ntoken: "+tok+"\n")
	r.Commit()
	r.Write("a.yml", "# moved\nx: 1\ny: 2\ntoken: "+tok+"\n")
	r.Commit()
	got := scantest.Scan(t, secretsTestScanner(t, true), r.Dir)
	if len(got) != 1 || got[0].Line != 4 || got[0].Metadata["commit"] != nil {
		t.Fatalf("got %+v", got)
	}
}

func TestSecretsHistoryOffAndSubdirectory(t *testing.T) {
	tok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	r := scantest.NewGitRepo(t)
	r.Write("sub/a.yml", "token: "+tok+"\n")
	r.Commit()
	r.Write("sub/a.yml", "token: none\n")
	r.Commit()
	if got := scantest.Scan(t, secretsTestScanner(t, true), r.Dir); len(got) != 1 {
		t.Fatalf("history on: %d findings, want 1", len(got))
	}
	if got := scantest.Scan(t, secretsTestScanner(t, false), r.Dir); len(got) != 0 {
		t.Errorf("SVC_SECRETS_HISTORY=0: %d findings, want 0", len(got))
	}
	// Paths in history are relative to the repository root, so a target
	// below it gets no history scan rather than wrong paths.
	if got := scantest.Scan(t, secretsTestScanner(t, true), filepath.Join(r.Dir, "sub")); len(got) != 0 {
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
	got, err := secretsTestScanner(t, true).Scan(context.Background(), scan.Target{Path: dir})
	var partial *scan.PartialSkip
	if len(got) != 1 || !errors.As(err, &partial) || partial.Parts[0].Part != "git history" || !strings.Contains(partial.Parts[0].Reason, "not scanned") {
		t.Fatalf("got %d findings, %v; want 1 and the history reported as not scanned", len(got), err)
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
	r := scantest.NewGitRepo(t)
	r.Write("old.yml", "token: "+oldTok+"\n"+strings.Repeat("filler line\n", 2000))
	r.Commit()
	r.Remove("old.yml")
	r.Commit()
	r.Write("new.yml", "token: "+newTok+"\n")
	r.Commit()
	r.Remove("new.yml")
	r.Commit()

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
			fs, err := s.Scan(context.Background(), scan.Target{Path: r.Dir})
			var partial *scan.PartialSkip
			// A cap that cut commits off is said on the scan.
			if capped := tc.name != "unbounded"; capped != errors.As(err, &partial) || !capped && err != nil {
				t.Fatalf("Scan: %v (capped %v)", err, capped)
			}
			for _, f := range fs {
				files = append(files, f.FilePath)
			}
			if strings.Join(files, " ") != strings.Join(tc.want, " ") {
				t.Errorf("findings in %v, want %v", files, tc.want)
			}
		})
	}
}
