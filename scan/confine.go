package scan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// treeTypes are the scan types whose scanners read target_path; dast and
// network scans carry a target_path but never look at it.
var treeTypes = []string{TypeCode, TypeDependency, TypeIaC, TypeBaseline}

// ReadsTree reports whether a scan of these types reads its target_path.
// Only such a scan has its path confined again at start, walked for the
// SBOM's components, or failed when the path is gone.
func ReadsTree(types []string) bool {
	for _, t := range types {
		if slices.Contains(treeTypes, t) {
			return true
		}
	}
	return false
}

// confine resolves a tree-reading scan's target_path when the scan starts
// and returns the real path the scanners get. With scan roots the API
// stored the real path it confined, so a path that no longer resolves to
// itself means a directory in it was swapped for a symlink since: the scan
// fails rather than read wherever the link points now. The real path is
// logged, never put in the error a client sees, when it lies outside the
// roots.
func (o *Orchestrator) confine(scanID, stored string) (string, error) {
	real, err := filepath.EvalSymlinks(stored)
	if err != nil {
		return "", fmt.Errorf("target_path %s cannot be read at scan start: %w", stored, err)
	}
	if len(o.roots) == 0 {
		return real, nil
	}
	if !UnderRoots(real, o.roots) {
		o.log.Warn("scan target left the scan roots after it was accepted", "scan_id", scanID, "target_path", stored, "resolves_to", real)
		return "", fmt.Errorf("target_path %s now resolves outside the allowed scan roots (SVC_SCAN_ROOTS): a symlink in it changed after the scan was accepted; nothing was scanned", stored)
	}
	if real != stored {
		return "", fmt.Errorf("target_path %s now resolves to %s: a symlink in it changed after the scan was accepted; nothing was scanned, start a new scan of the directory you mean", stored, real)
	}
	return real, nil
}

// UnderRoots reports whether the resolved path lies under one of roots
// (also resolved, so a symlinked root still matches). No roots = anywhere.
func UnderRoots(real string, roots []string) bool {
	if len(roots) == 0 {
		return true
	}
	for _, root := range roots {
		rr, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if real == rr || strings.HasPrefix(real, strings.TrimSuffix(rr, "/")+"/") {
			return true
		}
	}
	return false
}
