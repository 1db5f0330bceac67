package tree

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

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
	fh, fi, err := OpenFile(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if fi.Size() > max {
		return nil, &tooLargeError{path: p, size: fi.Size(), max: max}
	}
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err == nil && int64(len(b)) > max {
		return nil, &tooLargeError{path: p, size: int64(len(b)), max: max}
	}
	return b, err
}

// What OpenFile's errors match when p is not a regular file: a final
// symbolic link, or a directory, FIFO, socket or device.
var (
	ErrSymlink    = errors.New("a symbolic link, not followed")
	ErrNotRegular = errors.New("not a regular file")
)

// OpenFile opens a regular file of a scanned tree for reading and returns
// what it is (its size for a capped read). A final symbolic link is
// refused by the kernel (O_NOFOLLOW), not by a check that a swap could
// race; a FIFO or device is refused without blocking on it.
func OpenFile(p string) (*os.File, fs.FileInfo, error) {
	fh, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, fmt.Errorf("%s: %w", p, ErrSymlink)
		}
		return nil, nil, err
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: %w", p, ErrNotRegular)
	}
	return fh, fi, nil
}

// CheckDir reports whether root is an existing directory, following a
// symbolic link: the one thing a scan of a tree needs before it starts.
func CheckDir(root string) error {
	st, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", root)
	}
	return nil
}

// Within reports whether p lies under root and is reached from root
// through no symbolic link, so opening p cannot leave root. Paths a tree
// names itself (a module path in vendor/modules.txt, a Cargo license-file,
// a yarn workspace) pass through it before they are read: "../" and
// symlinked directories in them are the attacker's way out.
func Within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return false
		}
	}
	return true
}
