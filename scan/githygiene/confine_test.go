package githygiene

import (
	"os"
	"path/filepath"
	"testing"

	"scand/scan/internal/scantest"
)

// TestGitHygieneStaysInTheTarget: a .git that is a symbolic link (or a
// gitfile) to another repository must not have that repository's index
// reported as the target's tracked files.
func TestGitHygieneStaysInTheTarget(t *testing.T) {
	victim := scantest.NewGitRepo(t)
	victim.Write(".env", "DB_PASSWORD=x\n")
	victim.Write("id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
	victim.Commit()
	if got := scantest.Scan(t, gitHygieneTestScanner(), victim.Dir); len(got) == 0 {
		t.Fatal("the repository itself: no findings; the test tree proves nothing")
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
		for _, f := range scantest.Scan(t, gitHygieneTestScanner(), dir) {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.FilePath))); err != nil {
				t.Errorf("%s: finding %s on %s, a file of the other repository", name, f.RuleID, f.FilePath)
			}
		}
	}
}

// A scanned repository's own .git/config must not make scand's git run a
// program (core.fsmonitor runs on "git ls-files", hooks, pager, diff).
func TestGitHygieneRunsNoProgramOfTheRepository(t *testing.T) {
	r := scantest.NewGitRepo(t)
	r.Write(".env", "DB_PASSWORD=x\n")
	r.Commit()
	r.Write("untracked.pem", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
	marker := r.ArmHostileConfig()
	if got := scantest.Scan(t, gitHygieneTestScanner(), r.Dir); len(got) == 0 {
		t.Fatal("no findings: the scanner did not read the repository")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git ran a program named by the scanned repository's configuration")
	}
}
