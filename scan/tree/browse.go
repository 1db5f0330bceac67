package tree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// BrowseEntry is one directory entry of GET /dashboard/browse.
type BrowseEntry struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Type    string `json:"type" doc:"dir, file or other (socket, device, broken symlink); a symlink has its target's type"`
	Symlink bool   `json:"symlink"`
	Size    int64  `json:"size" doc:"Bytes, for files; 0 otherwise"`
}

// BrowseListing is the body of GET /dashboard/browse.
type BrowseListing struct {
	Path      string        `json:"path" doc:"The listed directory: absolute and cleaned"`
	Parent    *string       `json:"parent" doc:"Parent directory; null at / and at a scan root"`
	Roots     []string      `json:"roots" doc:"The configured scan roots (SVC_SCAN_ROOTS); empty means browsing is not confined"`
	Entries   []BrowseEntry `json:"entries" doc:"Directories first, then the rest, each by name; hidden entries except .git are left out"`
	Truncated bool          `json:"truncated" doc:"More than the returned entries exist"`
}

// BrowseError is why a directory cannot be listed.
type BrowseError struct {
	Kind BrowseErrorKind
	Msg  string
}

func (e *BrowseError) Error() string { return e.Msg }

// BrowseErrorKind classifies a BrowseError.
type BrowseErrorKind int

// The kinds of BrowseError.
const (
	BrowseNotFound BrowseErrorKind = iota
	BrowseForbidden
	BrowseInvalid
)

// browseMax caps one listing; a picker needs no more, and a huge directory
// must not become a huge response.
const browseMax = 500

// browseRoots are the configured scan roots, cleaned.
func browseRoots(scanRoots []string) []string {
	roots := make([]string, 0, len(scanRoots))
	for _, r := range scanRoots {
		if r != "" {
			roots = append(roots, filepath.Clean(r))
		}
	}
	return roots
}

func browseWithin(p, root string) bool {
	return root == "/" || p == root || strings.HasPrefix(p, root+"/")
}

func browseWithinAny(p string, roots []string) bool {
	for _, root := range roots {
		if browseWithin(p, root) {
			return true
		}
	}
	return false
}

// Browse lists one directory for a scan-target picker (the API's
// GET /dashboard/browse and the console's). With scan roots the path must
// lie under a root twice over: as written (checked before touching the
// file system, so a probe outside the roots learns nothing about what
// exists there) and after resolving symlinks (so a link inside a root
// cannot lead out of it).
func Browse(scanRoots []string, raw string) (BrowseListing, error) {
	roots := browseRoots(scanRoots)
	if raw == "" {
		raw = "/"
		if len(roots) > 0 {
			raw = roots[0]
		}
	}
	if !filepath.IsAbs(raw) {
		return BrowseListing{}, &BrowseError{BrowseInvalid, "path must be absolute"}
	}
	p := filepath.Clean(raw)
	outside := &BrowseError{BrowseForbidden, "Path is outside the configured scan roots (SVC_SCAN_ROOTS: " + strings.Join(roots, ":") + ")"}
	if len(roots) > 0 && !browseWithinAny(p, roots) {
		return BrowseListing{}, outside
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return BrowseListing{}, browseFSError(err, p)
	}
	var resolvedRoots []string
	if len(roots) > 0 {
		for _, root := range roots {
			if rr, err := filepath.EvalSymlinks(root); err == nil {
				resolvedRoots = append(resolvedRoots, rr)
			}
		}
		if !browseWithinAny(resolved, resolvedRoots) {
			return BrowseListing{}, &BrowseError{BrowseForbidden, "Path resolves (through a symlink) to " + resolved + ", outside the configured scan roots (SVC_SCAN_ROOTS: " + strings.Join(roots, ":") + ")"}
		}
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return BrowseListing{}, browseFSError(err, p)
	}
	if !info.IsDir() {
		return BrowseListing{}, &BrowseError{BrowseInvalid, "path is not a directory"}
	}
	dirents, err := os.ReadDir(resolved)
	if err != nil {
		return BrowseListing{}, browseFSError(err, p)
	}

	entries := make([]BrowseEntry, 0, min(len(dirents), browseMax))
	for _, d := range dirents {
		name := d.Name()
		if strings.HasPrefix(name, ".") && name != ".git" {
			continue
		}
		e := BrowseEntry{Name: name, Path: filepath.Join(p, name), Type: "other"}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			e.Symlink = true
			if target, err := os.Stat(filepath.Join(resolved, name)); err == nil {
				mode = target.Mode().Type()
			}
		}
		switch {
		case mode.IsDir():
			e.Type = "dir"
		case mode.IsRegular():
			e.Type = "file"
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if (a.Type == "dir") != (b.Type == "dir") {
			return a.Type == "dir"
		}
		if la, lb := strings.ToLower(a.Name), strings.ToLower(b.Name); la != lb {
			return la < lb
		}
		return a.Name < b.Name
	})
	body := BrowseListing{Path: p, Roots: roots, Entries: entries}
	if len(entries) > browseMax {
		body.Entries, body.Truncated = entries[:browseMax], true
	}
	// Sizes only for what is returned: one stat per kept file.
	for i := range body.Entries {
		if e := &body.Entries[i]; e.Type == "file" {
			if fi, err := os.Stat(filepath.Join(resolved, e.Name)); err == nil {
				e.Size = fi.Size()
			}
		}
	}
	atRoot := p == "/" || (len(roots) > 0 && (slices.Contains(roots, p) || slices.Contains(resolvedRoots, resolved)))
	if !atRoot {
		parent := filepath.Dir(p)
		body.Parent = &parent
	}
	return body, nil
}

// browseFSError maps a file-system error on a browse path to a status.
func browseFSError(err error, p string) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return &BrowseError{BrowseNotFound, "Path not found: " + p}
	case errors.Is(err, fs.ErrPermission):
		return &BrowseError{BrowseForbidden, "Permission denied: scand cannot read " + p}
	}
	return err
}
