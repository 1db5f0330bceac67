package secrets

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/secrets/rulebook"
	"scand/scan/tree"
)

// Bounds of the history scan. `git log -p` over a large, old repository can
// produce gigabytes; the scan must end in predictable time and memory, so:
//   - at most secretsHistoryMaxCommits commits (newest first, all refs);
//   - at most secretsHistoryMaxBytes of patch text; past it git's output is
//     cut and the oldest commits go unscanned (logged as a warning);
//   - secretsHistoryTimeout for the git process, after which the history
//     part is abandoned (logged) and the working-tree findings stand.
//
// The byte cap is 128 MiB because the Runner buffers a process's output in
// memory (and copies it once), so the peak is about three times the cap.
//
// Only lines a commit added are scanned, with their line numbers in that
// commit's version of the file. Merge commits show no patch (git's default
// for log -p), so a secret introduced only while resolving a merge conflict
// is missed. History is scanned only when the target is the repository's
// root, so that paths are relative to the target as everywhere else.
const (
	secretsHistoryMaxCommits = 20000
	secretsHistoryMaxBytes   = 128 << 20
	secretsHistoryTimeout    = 3 * time.Minute
)

// secretsCommitMarker starts each commit's header line in the log output;
// \x01 cannot begin a patch line.
const secretsCommitMarker = "\x01"

// secretsHistoryHit is a secret found in an added line of some commit.
type secretsHistoryHit struct {
	commit string
	path   string
	hit    secretsHit
}

// secretsIsRepoRoot reports whether dir is the top of a git work tree (.git
// is a directory, or a file for linked worktrees and submodules) whose
// repository lies inside dir: a .git that leads out (a symbolic link, a
// gitfile naming another directory) would have git read, and scand report,
// another repository's history.
func secretsIsRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil && !tree.GitDirLeavesTree(dir)
}

// secretsHistoryArgs is the git command line. Every option that user or
// repository configuration could change in the output is pinned: prefixes,
// quoting, colour, external diff drivers, textconv filters, signatures.
func secretsHistoryArgs(root string, maxCommits int) []string {
	return append(proc.GitInTree(root),
		"-c", "core.quotePath=true",
		"-c", "log.showSignature=false",
		"-c", "diff.noprefix=false",
		"log", "-p", "--all", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", "-M",
		"--src-prefix=a/", "--dst-prefix=b/",
		"--format="+"%x01%H",
		"--max-count="+strconv.Itoa(maxCommits),
	)
}

// scanHistory returns the secrets of root's git history; capped is true
// when the output cap cut the oldest commits off.
func (s *secretsScanner) scanHistory(ctx context.Context, root string) (hits []secretsHistoryHit, capped bool, err error) {
	var r proc.Runner
	if s.cfg.Runner != nil {
		r = *s.cfg.Runner
	} else {
		r = *proc.NewRunner(secretsHistoryTimeout)
	}
	// A runner copy with the history's own output cap: the runner still
	// owns timeouts, process groups and the not-installed case.
	r.MaxStdout = s.historyMaxBytes
	res, err := r.Run(ctx, proc.Cmd{
		Program: "git",
		Args:    secretsHistoryArgs(root, s.historyMaxCommits),
		Env:     []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"},
		Timeout: s.historyTimeout,
	})
	if errors.Is(err, proc.ErrNotInstalled) {
		return nil, false, errors.New("git is not installed")
	}
	if err != nil {
		return nil, false, err
	}
	if res.ExitCode != 0 {
		return nil, false, fmt.Errorf("git log exited %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr[:min(len(res.Stderr), 512)])))
	}
	out := res.Stdout
	if res.Truncated {
		capped = true
		// The last line may be cut mid-way.
		if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
			out = out[:i+1]
		}
	}
	// As many commits as the commit cap allows: older ones were cut off
	// (or there are exactly that many, which costs one line of caution).
	capped = capped || bytes.Count(out, []byte{0x01}) >= s.historyMaxCommits
	hits, err = s.parseHistory(ctx, out)
	return hits, capped, err
}

// historyLimits are the parts of root's history a successful history scan
// still did not see: a shallow clone's missing commits, the commits the
// output cap or the commit cap cut off.
func (s *secretsScanner) historyLimits(root string, capped bool) []scan.SkippedPart {
	var out []scan.SkippedPart
	if _, err := os.Stat(filepath.Join(root, ".git", "shallow")); err == nil {
		out = append(out, scan.SkippedPart{Part: "git history", Reason: "shallow clone: only the fetched commits were scanned",
			Hint: "git fetch --unshallow (or clone with full history) to scan every commit"})
	}
	if capped {
		out = append(out, scan.SkippedPart{Part: "git history", Reason: fmt.Sprintf("history limited to %d bytes of output and %d commits: the oldest commits were not scanned", s.historyMaxBytes, s.historyMaxCommits)})
	}
	return out
}

// secretsHistoryChunk accumulates the added lines of one file in one commit.
type secretsHistoryChunk struct {
	commit, path string
	data         []byte
	lines        []int // line number in the commit's file of each added line
}

// parseHistory walks `git log -p -U0` output and scans each file's added
// lines as one piece of content, so multi-line secrets (PEM blocks) and
// file-level context (service-account JSON) work as in the working tree.
// A value seen in several commits is reported once per path, for the
// oldest commit that added it (log order is newest first).
func (s *secretsScanner) parseHistory(ctx context.Context, out []byte) ([]secretsHistoryHit, error) {
	type key struct {
		hash [32]byte
		path string
	}
	oldest := map[key]secretsHistoryHit{}
	sc := &secretsScratch{}
	var chunk secretsHistoryChunk
	flush := func() {
		if len(chunk.lines) > 0 && chunk.path != "" && !secretsSkipPath(chunk.path) {
			s.engine().scanContent(chunk.data, chunk.path, sc, func(h secretsHit) {
				h.line = chunk.lines[h.line-1]
				oldest[key{h.hash, chunk.path}] = secretsHistoryHit{commit: chunk.commit, path: chunk.path, hit: h}
			})
		}
		chunk.data, chunk.lines = chunk.data[:0], chunk.lines[:0]
	}
	commit, inHunk, newLine := "", false, 0
	for n := 0; len(out) > 0; n++ {
		if n&0xfff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var line []byte
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			line, out = out[:i], out[i+1:]
		} else {
			line, out = out, nil
		}
		switch {
		case bytes.HasPrefix(line, []byte(secretsCommitMarker)):
			flush()
			commit = string(bytes.TrimSpace(line[len(secretsCommitMarker):]))
			chunk.path, inHunk = "", false
		case bytes.HasPrefix(line, []byte("diff --git ")):
			flush()
			chunk.path, inHunk = "", false
		case !inHunk && bytes.HasPrefix(line, []byte("+++ ")):
			chunk.commit, chunk.path = commit, secretsDiffPath(line[4:])
		case bytes.HasPrefix(line, []byte("@@ ")):
			inHunk = true
			newLine = secretsHunkNewStart(line)
		case inHunk && len(line) > 0 && line[0] == '+':
			chunk.data = append(chunk.data, line[1:]...)
			chunk.data = append(chunk.data, '\n')
			chunk.lines = append(chunk.lines, newLine)
			newLine++
		}
	}
	flush()
	hits := make([]secretsHistoryHit, 0, len(oldest))
	for _, h := range oldest {
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b secretsHistoryHit) int {
		return cmp.Or(strings.Compare(a.path, b.path), cmp.Compare(a.hit.line, b.hit.line),
			cmp.Compare(a.hit.rule, b.hit.rule), strings.Compare(a.commit, b.commit))
	})
	return hits, nil
}

// secretsDiffPath turns the "+++ " operand into a path relative to the
// repository: "b/dir/f.go" → "dir/f.go", a C-quoted name is unquoted, and
// /dev/null (a deletion) becomes "".
func secretsDiffPath(p []byte) string {
	s := strings.TrimRight(string(p), "\t\r")
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	if s == "/dev/null" {
		return ""
	}
	return strings.TrimPrefix(s, "b/")
}

// secretsHunkNewStart reads c from "@@ -a,b +c,d @@".
func secretsHunkNewStart(line []byte) int {
	i := bytes.Index(line, []byte(" +"))
	if i < 0 {
		return 1
	}
	rest := line[i+2:]
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(string(rest[:end]))
	if err != nil {
		return 1
	}
	return n
}

func (s *secretsScanner) historyFinding(h secretsHistoryHit) finding.Finding {
	rule := &s.engine().rules[h.hit.rule]
	f := s.newFinding(rule, h.path, h.hit)
	f.Title = rule.title + " in git history"
	f.Description = rule.title + " found in git history: commit " + h.commit + " added it to " + h.path +
		". It is no longer in the working tree, but every clone still holds it. " + rule.remediation + rulebook.CommonRemediation
	f.Metadata["commit"] = h.commit
	return f
}
