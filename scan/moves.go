package scan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"scand/finding"
	"scand/store"
)

// maxVanishedFiles bounds the files a scan looks for moved findings from:
// each finding in a new file is checked against each of them.
const maxVanishedFiles = 500

// moveTracker finds the old selves of findings whose file was renamed,
// moved or copied then deleted since the previous completed scan of the
// target. A fingerprint covers the file path, so a moved finding has a new
// one; the same scanner, rule, CWE and normalized line context at a path
// that vanished from the target gives the old one back. Works on any
// directory, git or not: a git mv is a file that vanished and one that
// appeared.
type moveTracker struct {
	prevPaths map[string]bool
	vanished  []string
	oldFPs    map[string]store.OldFinding // findings of vanished files by fingerprint
	// renamed maps a file's new path to its old one where git's rename
	// detection says it moved (a repository target), and lines maps its
	// lines back to the old file's: there a finding whose line was edited
	// in place still finds its old self, by rule at the old line.
	renamed map[string]string
	lines   map[string]*lineMap

	mu    sync.Mutex
	cands map[string]*moveCandidates // new fingerprint -> its old candidates
	order []string
}

type moveCandidates struct {
	newPath string
	old     []string // old fingerprints
	// byRule: the candidates share the rule and the file git renamed,
	// not the line context; an old finding another new one matches
	// exactly is not one of them.
	byRule bool
}

// newMoveTracker prepares the tracker of a scan of the tree at root, or
// returns nil when there is nothing to look for (no previous completed
// scan of the target, or no file of it vanished).
func newMoveTracker(ctx context.Context, st *store.Store, scanID, root string, git *gitMoves) (*moveTracker, error) {
	tgt, err := st.TargetOfScan(ctx, scanID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	prev, err := st.PreviousCompletedScanOfTarget(ctx, tgt.ID, scanID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	paths, err := st.ScanFilePaths(ctx, prev)
	if err != nil {
		return nil, err
	}
	t := &moveTracker{prevPaths: map[string]bool{}, cands: map[string]*moveCandidates{}}
	for _, p := range paths {
		if p == "" || strings.Contains(p, "..") || filepath.IsAbs(p) {
			continue
		}
		t.prevPaths[p] = true
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); errors.Is(err, os.ErrNotExist) {
			t.vanished = append(t.vanished, p)
		}
	}
	if len(t.vanished) == 0 || len(t.vanished) > maxVanishedFiles {
		return nil, nil
	}
	if t.oldFPs, err = st.FingerprintsInFiles(ctx, prev, t.vanished); err != nil {
		return nil, err
	}
	if git != nil && prev.Commit != "" {
		t.renamed, t.lines = map[string]string{}, map[string]*lineMap{}
		withFindings := map[string]bool{}
		for _, o := range t.oldFPs {
			withFindings[o.Path] = true
		}
		for newPath, oldPath := range gitRenames(ctx, git.root, prev.Commit) {
			if withFindings[oldPath] && len(t.lines) < maxVanishedFiles {
				t.renamed[newPath] = oldPath
				t.lines[newPath] = gitLineMap(ctx, git.root, prev.Commit, oldPath, newPath)
			}
		}
	}
	return t, nil
}

// gitMoves says a scan's tree is a git work tree whose HEAD was recorded.
type gitMoves struct{ root string }

// observe checks one prepared finding (with its line context).
func (t *moveTracker) observe(f finding.Finding, context string) {
	if t == nil || f.FilePath == "" || t.prevPaths[f.FilePath] {
		return // the file was there before: its findings did not move
	}
	var old []string
	for _, p := range t.vanished {
		fp := finding.Fingerprint(f.Scanner, f.RuleID, p, context, f.CWE)
		if o, ok := t.oldFPs[fp]; ok && o.Path == p {
			old = append(old, fp)
		}
	}
	byRule := false
	if from, ok := t.renamed[f.FilePath]; ok && len(old) == 0 {
		if oldLine, ok := t.lines[f.FilePath].old(f.Line); ok {
			for fp, o := range t.oldFPs {
				if o.Path == from && o.Line == oldLine && o.Scanner == f.Scanner && o.RuleID == f.RuleID && o.CWE == string(f.CWE) {
					old = append(old, fp)
				}
			}
			slices.Sort(old)
			byRule = true
		}
	}
	if len(old) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.cands[f.Fingerprint]
	if c == nil {
		c = &moveCandidates{newPath: f.FilePath, byRule: byRule}
		t.cands[f.Fingerprint] = c
		t.order = append(t.order, f.Fingerprint)
	}
	for _, o := range old {
		if !slices.Contains(c.old, o) {
			c.old = append(c.old, o)
		}
	}
}

// links decides: a new finding with exactly one candidate that no other
// new finding also claims is linked; anything else is recorded as
// ambiguous and carries nothing.
func (t *moveTracker) links() []store.FindingLink {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// An old finding a new one matches exactly (same line context) is
	// that one's; a match by rule alone does not compete for it.
	exact := map[string]bool{}
	for _, c := range t.cands {
		if !c.byRule {
			for _, o := range c.old {
				exact[o] = true
			}
		}
	}
	for _, c := range t.cands {
		if c.byRule {
			c.old = slices.DeleteFunc(c.old, func(o string) bool { return exact[o] })
		}
	}
	claims := map[string]int{}
	for _, c := range t.cands {
		for _, o := range c.old {
			claims[o]++
		}
	}
	var out []store.FindingLink
	for _, newFP := range t.order {
		c := t.cands[newFP]
		l := store.FindingLink{NewFP: newFP, NewPath: c.newPath}
		switch {
		case len(c.old) == 0:
			continue // its only candidates belong to exact matches
		case len(c.old) > 1 && c.byRule:
			l.Reason = "ambiguous: git renamed " + t.oldFPs[c.old[0]].Path + " to " + c.newPath + " and " + strconv.Itoa(len(c.old)) +
				" of its findings of rule " + t.oldFPs[c.old[0]].RuleID + " sat on the edited line"
		case len(c.old) > 1:
			var paths []string
			for _, o := range c.old {
				paths = append(paths, t.oldFPs[o].Path)
			}
			slices.Sort(paths)
			l.Reason = "ambiguous: " + strconv.Itoa(len(c.old)) + " vanished findings match (" + strings.Join(paths, ", ") + ")"
		case claims[c.old[0]] > 1:
			l.OldFP, l.OldPath = c.old[0], t.oldFPs[c.old[0]].Path
			l.Reason = "ambiguous: " + strconv.Itoa(claims[c.old[0]]) + " new findings match the finding of " + l.OldPath
		default:
			l.OldFP, l.OldPath, l.Linked = c.old[0], t.oldFPs[c.old[0]].Path, true
			if c.byRule {
				l.Reason = "git rename: the line was edited in place; matched by rule at the old line"
			}
		}
		out = append(out, l)
	}
	return out
}
