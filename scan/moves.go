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
	oldFPs    map[string]string // fingerprint -> path, findings of vanished files

	mu    sync.Mutex
	cands map[string]*moveCandidates // new fingerprint -> its old candidates
	order []string
}

type moveCandidates struct {
	newPath string
	old     []string // old fingerprints
}

// newMoveTracker prepares the tracker of a scan of the tree at root, or
// returns nil when there is nothing to look for (no previous completed
// scan of the target, or no file of it vanished).
func newMoveTracker(ctx context.Context, st *store.Store, scanID, root string) (*moveTracker, error) {
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
	return t, nil
}

// observe checks one prepared finding (with its line context).
func (t *moveTracker) observe(f finding.Finding, context string) {
	if t == nil || f.FilePath == "" || t.prevPaths[f.FilePath] {
		return // the file was there before: its findings did not move
	}
	var old []string
	for _, p := range t.vanished {
		fp := finding.Fingerprint(f.Scanner, f.RuleID, p, context, f.CWE)
		if t.oldFPs[fp] == p {
			old = append(old, fp)
		}
	}
	if len(old) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.cands[f.Fingerprint]
	if c == nil {
		c = &moveCandidates{newPath: f.FilePath}
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
		case len(c.old) > 1:
			var paths []string
			for _, o := range c.old {
				paths = append(paths, t.oldFPs[o])
			}
			slices.Sort(paths)
			l.Reason = "ambiguous: " + strconv.Itoa(len(c.old)) + " vanished findings match (" + strings.Join(paths, ", ") + ")"
		case claims[c.old[0]] > 1:
			l.OldFP, l.OldPath = c.old[0], t.oldFPs[c.old[0]]
			l.Reason = "ambiguous: " + strconv.Itoa(claims[c.old[0]]) + " new findings match the finding of " + l.OldPath
		default:
			l.OldFP, l.OldPath, l.Linked = c.old[0], t.oldFPs[c.old[0]], true
		}
		out = append(out, l)
	}
	return out
}
