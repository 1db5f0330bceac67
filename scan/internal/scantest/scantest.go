// Package scantest holds what the scanner packages' tests share: a
// throwaway git repository driven by the real git CLI, and a Scan that
// fails the test on an error or a nil result. Only tests import it.
package scantest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
)

// GitRepo is a repository in a temporary directory, isolated from the
// machine's git configuration, with pinned dates so commits are stable.
type GitRepo struct {
	t   *testing.T
	Dir string
	n   int
}

// NewGitRepo initializes an empty repository on branch main.
func NewGitRepo(t *testing.T) *GitRepo {
	t.Helper()
	r := &GitRepo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Git runs git in the repository through the one runner and returns its
// trimmed stdout; a failure fails the test.
func (r *GitRepo) Git(args ...string) string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	full := append([]string{"-C", r.Dir, "-c", "user.name=scand test", "-c", "user.email=test@scand.invalid",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"}, args...)
	res, err := proc.NewRunner(30*time.Second).Run(ctx, proc.Cmd{Program: "git", Args: full, Env: []string{
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	}})
	if err != nil || res.ExitCode != 0 {
		r.t.Fatalf("git %v: %v exit %d: %s", args, err, res.ExitCode, res.Stderr)
	}
	return strings.TrimSpace(string(res.Stdout))
}

// Write creates or replaces a file of the work tree.
func (r *GitRepo) Write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// Remove deletes a file of the work tree.
func (r *GitRepo) Remove(rel string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.Dir, rel)); err != nil {
		r.t.Fatal(err)
	}
}

// Commit stages everything and returns the new commit's full sha.
func (r *GitRepo) Commit() string {
	r.t.Helper()
	r.n++
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", "change "+string(rune('a'+r.n)))
	return r.Git("rev-parse", "HEAD")
}

// Scan scans dir and fails the test on an error or on a nil slice, which
// the Scanner contract forbids.
func Scan(t testing.TB, s scan.Scanner, dir string) []finding.Finding {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fs, err := s.Scan(ctx, scan.Target{Path: dir})
	if err != nil {
		t.Fatalf("Scan(%s): %v", dir, err)
	}
	if fs == nil {
		t.Fatalf("Scan(%s) returned a nil slice; the Scanner contract wants an empty one", dir)
	}
	return fs
}

// ArmHostileConfig gives the repository a .git/config (and attributes)
// that make git run a program of the repository's choosing wherever git
// lets the repository decide: the fsmonitor hook, every hook, the pager,
// an external diff and a textconv filter. The program creates the
// returned file, so a test proves none of them ran by its absence.
func (r *GitRepo) ArmHostileConfig() (marker string) {
	r.t.Helper()
	marker = filepath.Join(r.t.TempDir(), "repository-command-ran")
	cmd := "touch " + marker
	hooks := filepath.Join(r.Dir, ".git", "evil-hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		r.t.Fatal(err)
	}
	for _, hook := range []string{"post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman"} {
		if err := os.WriteFile(filepath.Join(hooks, hook), []byte("#!/bin/sh\n"+cmd+"\n"), 0o755); err != nil {
			r.t.Fatal(err)
		}
	}
	r.Git("config", "core.fsmonitor", cmd)
	r.Git("config", "core.hooksPath", hooks)
	r.Git("config", "core.pager", cmd)
	r.Git("config", "diff.external", cmd)
	r.Git("config", "diff.evil.textconv", cmd+"; cat")
	r.Write(".gitattributes", "* diff=evil\n")
	return marker
}
