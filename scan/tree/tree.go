// Package tree owns what the scanners share about reading a scanned source
// tree: the one list of directories no project owns (version-control
// metadata and installed third-party dependencies), the walk that applies
// it, binary-file detection and capped reads, and the confined directory
// listing of the scan-target picker (Browse). A scanned tree is hostile
// input, so a fix here (a new dependency folder, a tighter cap) lands in
// every scanner at once.
package tree

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// SkipDir reports whether a directory name is never entered: version-control
// metadata and third-party dependency trees (node_modules, vendor,
// site-packages, virtualenvs, tool caches), whose files are upstream's, not
// the team's. dist/ and build/ are NOT skipped: bundlers inline API keys
// into them and build directories hold generated configuration.
func SkipDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".bzr",
		"node_modules", "bower_components", "jspm_packages",
		"vendor", "site-packages", "__pycache__",
		".tox", ".nox", ".venv", ".mypy_cache", ".pytest_cache", ".gradle":
		return true
	}
	return false
}

// UnderSkippedDir reports whether a slash-separated path relative to the
// target lies inside a directory SkipDir names, for paths that do not come
// from a walk (git's file lists, history).
func UnderSkippedDir(rel string) bool {
	for dir := path.Dir(rel); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if SkipDir(path.Base(dir)) {
			return true
		}
	}
	return false
}

// Walk is one walk over a target.
type Walk struct {
	// Skip names the directories not entered; nil means SkipDir. The root
	// itself is always entered.
	Skip func(name string) bool
	// Unreadable hears of an entry below the root that could not be read;
	// the walk skips it and goes on. Nil ignores them. An unreadable root
	// fails the walk.
	Unreadable func(path string, err error)
	// Ignore names the paths (slash-separated, relative to the root) the
	// repository's configuration excludes: an ignored directory is not
	// entered, an ignored file not visited. Nil excludes nothing.
	Ignore func(rel string, isDir bool) bool
}

// Files calls visit for every regular file under root in lexical order,
// with its absolute path and its slash-separated path relative to root.
// Symbolic links are neither followed nor visited, so a link cannot lead a
// scanner outside the target, and directories are listed through an
// os.Root opened on root: a directory swapped for a symlink while the walk
// runs cannot take the listing outside the target either. It stops at the
// first error visit returns and when ctx ends.
func (w Walk) Files(ctx context.Context, root string, visit func(abs, rel string) error) error {
	skip := w.Skip
	if skip == nil {
		skip = SkipDir
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return err
	}
	defer r.Close()
	return fs.WalkDir(r.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err != nil {
			if rel == "." {
				return err
			}
			if w.Unreadable != nil {
				w.Unreadable(abs, err)
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if rel != "." && (skip(d.Name()) || w.Ignore != nil && w.Ignore(rel, true)) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || w.Ignore != nil && w.Ignore(rel, false) {
			return nil
		}
		return visit(abs, rel)
	})
}

// FindFiles lists, sorted, the files under root whose base name is one of
// names, outside the directories skip names (nil: SkipDir). A tree that
// cannot be read yields what could be.
func FindFiles(root string, skip func(name string) bool, names ...string) []string {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var found []string
	_ = Walk{Skip: skip}.Files(context.Background(), root, func(abs, _ string) error {
		if want[filepath.Base(abs)] {
			found = append(found, abs)
		}
		return nil
	})
	sort.Strings(found)
	return found
}
