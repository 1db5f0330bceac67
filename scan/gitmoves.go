package scan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"scand/scan/proc"
	"scand/scan/tree"
)

// gitTimeout bounds each git command move detection runs.
const gitTimeout = 30 * time.Second

var commitRe = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// gitRun runs git in the tree at root with the settings that keep the
// repository's own configuration from running programs (proc.GitInTree),
// and returns its output, or nil when git is missing, fails or times out:
// move detection then falls back to the tree alone.
func gitRun(ctx context.Context, root string, args ...string) []byte {
	r := proc.NewRunner(gitTimeout)
	r.MaxStdout = 8 << 20
	res, err := r.Run(ctx, proc.Cmd{Program: "git", Args: append(append(proc.GitInTree(root), "--literal-pathspecs"), args...),
		Env: []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"}})
	if err != nil || res.ExitCode != 0 || res.Truncated {
		return nil
	}
	return res.Stdout
}

// gitHead returns the commit HEAD names when root is the top of a git
// work tree whose .git stays inside it; "" otherwise.
func gitHead(ctx context.Context, root string) string {
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil || tree.GitDirLeavesTree(root) {
		return ""
	}
	out := strings.TrimSpace(string(gitRun(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")))
	if !commitRe.MatchString(out) {
		return ""
	}
	return out
}

// gitRenames returns, for each file git's rename detection (-M) sees moved
// between commit from and the work tree at root, its new path mapped to
// its old one (slash-separated, relative to root). A renamed file whose
// lines changed a little is still a rename to git.
func gitRenames(ctx context.Context, root, from string) map[string]string {
	if !commitRe.MatchString(from) || gitHead(ctx, root) == "" {
		return nil
	}
	out := gitRun(ctx, root, "-c", "diff.renames=true", "-c", "diff.renameLimit=2000", "-c", "core.quotePath=false",
		"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "-M", "--name-status", "-z", from, "--")
	renames := map[string]string{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+2 < len(fields); {
		status := string(fields[i])
		if strings.HasPrefix(status, "C") {
			i += 3
			continue
		}
		if !strings.HasPrefix(status, "R") {
			i += 2 // one path: added, deleted, modified
			continue
		}
		renames[string(fields[i+2])] = string(fields[i+1])
		i += 3
	}
	return renames
}

// lineMap maps a renamed file's lines back to the old file's: unchanged
// lines by the hunks' offsets, and a changed line to the old line at the
// same place of a hunk that replaced as many lines as it removed (a line
// edited in place). A line added or in an uneven hunk has no old line.
type lineMap struct{ hunks [][4]int } // old start, old count, new start, new count

var hunkRe = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// gitLineMap asks git how the file at newPath changed from oldPath at
// commit from; nil when git cannot say.
func gitLineMap(ctx context.Context, root, from, oldPath, newPath string) *lineMap {
	out := gitRun(ctx, root, "-c", "diff.noprefix=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", "-M", from, "--", oldPath, newPath)
	if out == nil {
		return nil
	}
	m := &lineMap{}
	for _, l := range bytes.Split(out, []byte{'\n'}) {
		g := hunkRe.FindSubmatch(l)
		if g == nil {
			continue
		}
		num := func(b []byte, def int) int {
			if len(b) == 0 {
				return def
			}
			n := 0
			for _, c := range b {
				n = n*10 + int(c-'0')
				if n > 1<<30 {
					return -1
				}
			}
			return n
		}
		h := [4]int{num(g[1], 0), num(g[2], 1), num(g[3], 0), num(g[4], 1)}
		if h[0] < 0 || h[1] < 0 || h[2] < 0 || h[3] < 0 {
			return nil
		}
		m.hunks = append(m.hunks, h)
	}
	return m
}

// old returns the old line of new line n, and whether there is one.
func (m *lineMap) old(n int) (int, bool) {
	if m == nil {
		return 0, false
	}
	shift := 0 // old minus new, past the hunks before n
	for _, h := range m.hunks {
		oldStart, oldCount, newStart, newCount := h[0], h[1], h[2], h[3]
		if newCount == 0 {
			// Lines removed after new line newStart.
			if newStart < n {
				shift += oldCount
			}
			continue
		}
		if n < newStart {
			break
		}
		if n < newStart+newCount {
			if oldCount == newCount {
				return oldStart + (n - newStart), true
			}
			return 0, false
		}
		shift += oldCount - newCount
	}
	return n + shift, true
}
