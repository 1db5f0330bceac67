// Package tree owns what the scanners share about reading a scanned source
// tree: the one list of directories no project owns (version-control
// metadata and installed third-party dependencies), the walk that applies
// it, binary-file detection and capped reads. A scanned tree is hostile
// input, so a fix here (a new dependency folder, a tighter cap) lands in
// every scanner at once.
package tree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// BinaryExt reports whether a lowercase extension marks a file that is
// binary without opening it (images, archives, objects, fonts, media) or a
// source map, which repeats the real sources on kilobyte-long lines.
func BinaryExt(ext string) bool {
	switch ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd",
		".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar",
		".jar", ".war", ".ear", ".class", ".so", ".dll", ".dylib", ".exe", ".o", ".a",
		".lib", ".obj", ".pyc", ".pyo", ".wasm", ".woff", ".woff2", ".ttf", ".otf", ".eot",
		".mp3", ".mp4", ".m4a", ".wav", ".ogg", ".flac", ".avi", ".mov", ".mkv", ".webm",
		".iso", ".dmg", ".deb", ".rpm", ".map":
		return true
	}
	return false
}

// BinarySniff is how much of a file LooksBinary inspects.
const BinarySniff = 8 << 10

// LooksBinary reports whether content is binary: a NUL byte in its first
// BinarySniff bytes, which no text encoding a scanner reads produces.
func LooksBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), BinarySniff)], 0) >= 0
}

// ErrTooLarge is what ReadCapped's error for a file over its cap matches.
var ErrTooLarge = errors.New("file over the size cap")

type tooLargeError struct {
	path      string
	size, max int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s: %d bytes, over the %d-byte cap", e.path, e.size, e.max)
}

func (e *tooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ReadCapped reads a regular file of at most max bytes. A symbolic link is
// refused, so a target cannot make the daemon read outside itself, and the
// read stays bounded even if the file grows after the size check.
func ReadCapped(p string, max int64) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	if fi.Size() > max {
		return nil, &tooLargeError{path: p, size: fi.Size(), max: max}
	}
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err == nil && int64(len(b)) > max {
		return nil, &tooLargeError{path: p, size: int64(len(b)), max: max}
	}
	return b, err
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
}

// Files calls visit for every regular file under root in lexical order,
// with its absolute path and its slash-separated path relative to root.
// Symbolic links are neither followed nor visited, so a link cannot lead a
// scanner outside the target. It stops at the first error visit returns
// and when ctx ends.
func (w Walk) Files(ctx context.Context, root string, visit func(abs, rel string, d fs.DirEntry) error) error {
	skip := w.Skip
	if skip == nil {
		skip = SkipDir
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == root {
				return err
			}
			if w.Unreadable != nil {
				w.Unreadable(p, err)
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != root && skip(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		return visit(p, filepath.ToSlash(rel), d)
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
	_ = Walk{Skip: skip}.Files(context.Background(), root, func(abs, _ string, d fs.DirEntry) error {
		if want[d.Name()] {
			found = append(found, abs)
		}
		return nil
	})
	sort.Strings(found)
	return found
}
