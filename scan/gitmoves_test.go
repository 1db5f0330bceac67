package scan

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"scand/finding"
	"scand/store"
)

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestGitRenamesAndLineMap: git's rename detection names the moved file
// (committed or only staged), and the line map sends unchanged lines by
// offset, a line edited in place to its old line, and an added line or
// one in an uneven hunk nowhere.
func TestGitRenamesAndLineMap(t *testing.T) {
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	var old []string
	for i := 1; i <= 30; i++ {
		old = append(old, "line number "+strings.Repeat("x", i))
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Join(old, "\n")+"\n"), 0o644)
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-qm", "one")
	from := gitHead(context.Background(), dir)
	if from == "" || from != runGit(t, dir, "rev-parse", "HEAD") {
		t.Fatalf("gitHead %q", from)
	}
	if gitHead(context.Background(), t.TempDir()) != "" {
		t.Fatal("a directory without .git has a HEAD")
	}
	runGit(t, dir, "mv", "a.txt", "b.txt")
	cur := append([]string{"added at the top"}, old...)
	cur[10] = "edited in place"                                        // old line 10
	cur = append(cur[:20], append([]string{"x", "y"}, cur[21:]...)...) // old line 20 becomes two lines
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte(strings.Join(cur, "\n")+"\n"), 0o644)
	runGit(t, dir, "add", "-A") // staged, not committed
	ren := gitRenames(context.Background(), dir, from)
	if ren["b.txt"] != "a.txt" || len(ren) != 1 {
		t.Fatalf("renames %v", ren)
	}
	m := gitLineMap(context.Background(), dir, from, "a.txt", "b.txt")
	for newLine, want := range map[int]int{1: 0, 2: 1, 10: 9, 11: 10, 12: 11, 20: 19, 21: 0, 22: 0, 23: 21, 32: 30} {
		got, ok := m.old(newLine)
		if want == 0 && ok || want != 0 && (!ok || got != want) {
			t.Errorf("new line %d: old %d %v, want %d", newLine, got, ok, want)
		}
	}
	if gitRenames(context.Background(), dir, "not-a-commit") != nil {
		t.Error("a bad commit was passed to git")
	}
}

// TestMoveAmbiguityByRule: two old findings of one rule on the old line of
// an edited line are refused with a reason; an old finding one new finding
// matches exactly is not a by-rule candidate of another.
func TestMoveAmbiguityByRule(t *testing.T) {
	tr := &moveTracker{prevPaths: map[string]bool{}, cands: map[string]*moveCandidates{},
		vanished: []string{"a.py"}, renamed: map[string]string{"b.py": "a.py"},
		lines:  map[string]*lineMap{"b.py": {hunks: [][4]int{{5, 1, 5, 1}}}},
		oldFPs: map[string]store.OldFinding{}}
	exactCtx := "keep = 1"
	exactOld := finding.Fingerprint("s", "r", "a.py", exactCtx, "")
	tr.oldFPs[exactOld] = store.OldFinding{Path: "a.py", Scanner: "s", RuleID: "r", Line: 5}
	tr.oldFPs["o2"] = store.OldFinding{Path: "a.py", Scanner: "s", RuleID: "r", Line: 5}
	tr.oldFPs["o3"] = store.OldFinding{Path: "a.py", Scanner: "s", RuleID: "r", Line: 7}
	tr.oldFPs["o4"] = store.OldFinding{Path: "a.py", Scanner: "s", RuleID: "r", Line: 7}
	tr.observe(finding.Finding{Fingerprint: "n1", Scanner: "s", RuleID: "r", FilePath: "b.py", Line: 5}, exactCtx) // exact
	tr.observe(finding.Finding{Fingerprint: "n2", Scanner: "s", RuleID: "r", FilePath: "b.py", Line: 5}, "edited") // by rule: o2 only
	tr.observe(finding.Finding{Fingerprint: "n3", Scanner: "s", RuleID: "r", FilePath: "b.py", Line: 7}, "edited") // o3 and o4
	got := map[string]store.FindingLink{}
	for _, l := range tr.links() {
		got[l.NewFP] = l
	}
	if l := got["n1"]; !l.Linked || l.OldFP != exactOld {
		t.Errorf("exact: %+v", l)
	}
	if l := got["n2"]; !l.Linked || l.OldFP != "o2" || !strings.Contains(l.Reason, "git rename") {
		t.Errorf("by rule: %+v", l)
	}
	if l := got["n3"]; l.Linked || !strings.Contains(l.Reason, "ambiguous") || !strings.Contains(l.Reason, "2 of its findings") {
		t.Errorf("two candidates: %+v", l)
	}
}
