package secrets

import (
	"os"
	"path/filepath"
	"testing"

	"scand/scan/internal/scantest"
)

// TestSecretsHistoryStaysInTheTarget: a tree whose .git is a symbolic
// link, or a gitfile, to another repository must not have that
// repository's history scanned and reported as its own.
func TestSecretsHistoryStaysInTheTarget(t *testing.T) {
	tok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	victim := scantest.NewGitRepo(t)
	victim.Write("deploy.yml", "token: "+tok+"\n")
	victim.Commit()
	victim.Write("deploy.yml", "token: from-the-vault\n")
	victim.Commit()
	if got := scantest.Scan(t, secretsTestScanner(t, true), victim.Dir); len(got) != 1 {
		t.Fatalf("the repository itself: %d findings, want its history's 1", len(got))
	}

	linked := t.TempDir()
	if err := os.Symlink(filepath.Join(victim.Dir, ".git"), filepath.Join(linked, ".git")); err != nil {
		t.Fatal(err)
	}
	gitfile := t.TempDir()
	if err := os.WriteFile(filepath.Join(gitfile, ".git"), []byte("gitdir: "+filepath.Join(victim.Dir, ".git")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{".git symlink": linked, "gitfile": gitfile} {
		if got := scantest.Scan(t, secretsTestScanner(t, true), dir); len(got) != 0 {
			t.Errorf("%s to another repository: %d findings from its history: %+v", name, len(got), got)
		}
	}
}

// The history scan must not let the scanned repository's .git/config make
// git run a program (textconv, external diff, pager, fsmonitor, hooks).
func TestSecretsHistoryRunsNoProgramOfTheRepository(t *testing.T) {
	tok := "glpat-" + "Lm4Xp6Rt1Bn8Kd3Hq7Wc"
	r := scantest.NewGitRepo(t)
	r.Write("deploy.yml", "token: "+tok+"\n")
	r.Commit()
	r.Write("deploy.yml", "token: from-the-vault\n")
	r.Commit()
	marker := r.ArmHostileConfig()
	if got := scantest.Scan(t, secretsTestScanner(t, true), r.Dir); len(got) != 1 {
		t.Fatalf("%d findings, want the history's 1", len(got))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran a program named by the scanned repository's configuration")
	}
}
