// Package excerpt cuts the code excerpt of each finding out of the scanned
// tree at scan time (finding/excerpt is the excerpt itself). The tree is
// attacker-controlled: files are opened through an os.Root, so no path
// and no symbolic link leads outside the scanned root, only regular files
// up to MaxFileBytes are read, and binary content is skipped.
package excerpt

import (
	"bytes"
	"io"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"scand/finding"
	"scand/finding/excerpt"
)

// MaxFileBytes is the largest file an excerpt is cut from: the secrets
// scanner reads files up to this size, so every line shown has been
// through its rules.
const MaxFileBytes = 2 << 20

// cachedFiles bounds the files kept split into lines: findings arrive
// grouped by file.
const cachedFiles = 8

// Redactor returns the lines of a file at rel that hold secrets, each
// with the secrets redacted as the findings show them, by 1-based line
// number (secrets.Content.RedactedLines).
type Redactor func(data []byte, rel string) map[int]string

// Builder cuts excerpts from one scanned tree. It is safe for concurrent
// use. A nil Builder cuts none.
type Builder struct {
	root   *os.Root
	unmap  func(string) (string, bool)
	redact Redactor

	mu     sync.Mutex
	files  map[string]*file
	order  []string
	closed atomic.Bool
}

type file struct {
	lines    []string
	redacted map[int]string

	// cleaned holds each line as an excerpt shows it once it has been
	// cleaned: neighbouring findings share most of their windows, and a
	// file dense with findings would clean every line seven times.
	mu      sync.Mutex
	cleaned []string
	done    []bool
}

// line returns line n (1-based) redacted and cleaned.
func (fl *file) line(n int) string {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.done == nil {
		fl.cleaned, fl.done = make([]string, len(fl.lines)), make([]bool, len(fl.lines))
	}
	if !fl.done[n-1] {
		line := fl.lines[n-1]
		if red, ok := fl.redacted[n]; ok {
			line = red
		}
		fl.cleaned[n-1], fl.done[n-1] = excerpt.Clean(line), true
	}
	return fl.cleaned[n-1]
}

// New opens the tree at root. unmap (nil: identity) turns a finding's
// file path into the path under root (an unpacked image's layout). With
// no redactor there is no excerpt: nothing is shown that the secret rules
// have not read.
func New(root string, unmap func(string) (string, bool), redact Redactor) (*Builder, error) {
	if redact == nil {
		return nil, nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	Scanned.open()
	return &Builder{root: r, unmap: unmap, redact: redact, files: map[string]*file{}}, nil
}

// Close releases the root.
func (b *Builder) Close() error {
	if b == nil {
		return nil
	}
	if b.closed.CompareAndSwap(false, true) {
		Scanned.close()
	}
	return b.root.Close()
}

// Excerpt returns the excerpt of a finding, or nil when it has no file
// and line, or its file cannot be read within the root.
func (b *Builder) Excerpt(f finding.Finding) *excerpt.Excerpt {
	if b == nil || f.FilePath == "" || f.Line <= 0 {
		return nil
	}
	rel := f.FilePath
	if b.unmap != nil {
		var ok bool
		if rel, ok = b.unmap(rel); !ok {
			return nil
		}
	}
	fl := b.file(rel)
	if fl == nil || f.Line > len(fl.lines) {
		return nil
	}
	first, last := excerpt.Window(f.Line, len(fl.lines))
	e := &excerpt.Excerpt{StartLine: first, Line: f.Line, Lines: make([]string, 0, last-first+1)}
	for n := first; n <= last; n++ {
		e.Lines = append(e.Lines, fl.line(n))
	}
	return e
}

func (b *Builder) file(rel string) *file {
	clean := path.Clean("/" + rel)[1:]
	if clean == "" || clean != strings.TrimPrefix(rel, "./") {
		return nil
	}
	b.mu.Lock()
	fl, ok := b.files[clean]
	b.mu.Unlock()
	if ok {
		return fl
	}
	fl = b.read(clean)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, raced := b.files[clean]; !raced {
		b.files[clean] = fl
		b.order = append(b.order, clean)
		if len(b.order) > cachedFiles {
			delete(b.files, b.order[0])
			b.order = b.order[1:]
		}
	}
	return fl
}

// read loads one file through the root (nil when it is missing, outside
// the root, not regular, too large or binary).
func (b *Builder) read(rel string) *file {
	f, err := b.root.Open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > MaxFileBytes {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil || len(data) > MaxFileBytes || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return nil
	}
	redacted, ok := Scanned.Take(rel, data)
	if !ok {
		redacted = b.redact(data, rel)
	}
	text := strings.TrimSuffix(string(data), "\n")
	return &file{lines: strings.Split(text, "\n"), redacted: redacted}
}
