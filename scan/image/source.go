package image

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// source is where an image's files (manifest.json, index.json, blobs)
// come from: an OCI layout directory, or a tar archive indexed once.
type source interface {
	// open returns a reader of the named file (slash-separated, relative)
	// and its size; errNoFile when there is none.
	open(name string) (io.ReadCloser, int64, error)
	has(name string) bool
	close() error
}

var errNoFile = errors.New("no such file in the image")

// Caps on the outer archive, separate from the unpacking limits: a real
// image has a handful of blobs and small JSON documents.
const (
	maxArchiveEntries = 100_000
	maxJSONBytes      = 8 << 20
)

// openSource opens an image at p: a directory is an OCI layout (or an
// extracted docker save); a file is a tar archive, gzip-compressed or not.
// A compressed archive is decompressed into work first, under the byte
// limit, because reading blobs needs random access.
func openSource(ctx context.Context, p, work string, limits Limits) (source, string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, "", err
	}
	if info.IsDir() {
		root, err := os.OpenRoot(p)
		if err != nil {
			return nil, "", err
		}
		return dirSource{root: root}, "directory", nil
	}
	if !info.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s is neither a file nor a directory", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, "", err
	}
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	switch {
	case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		plain, err := gunzipTo(ctx, f, filepath.Join(work, "archive.tar"), limits.MaxBytes)
		f.Close()
		if err != nil {
			return nil, "", err
		}
		if f, err = os.Open(plain); err != nil {
			return nil, "", err
		}
	case n == 4 && magic == [4]byte{0x28, 0xb5, 0x2f, 0xfd}:
		f.Close()
		return nil, "", errors.New("zstd-compressed archives are not supported; decompress it first (zstd -d)")
	}
	src, err := indexTar(ctx, f)
	if err != nil {
		f.Close()
		return nil, "", err
	}
	return src, "archive", nil
}

// gunzipTo writes the decompressed stream to dst, refusing more than max
// bytes.
func gunzipTo(ctx context.Context, f *os.File, dst string, max int64) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return "", fmt.Errorf("archive: %w", err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	defer out.Close()
	n, err := io.Copy(out, &ctxReader{ctx: ctx, r: io.LimitReader(zr, max+1)})
	if err != nil {
		return "", fmt.Errorf("archive: %w", err)
	}
	if n > max {
		return "", fmt.Errorf("archive decompresses to more than %d bytes (SVC_TARGET_MAX_BYTES)", max)
	}
	return dst, out.Close()
}

// ctxReader stops a long copy when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// dirSource reads a layout directory through os.Root, so a symbolic link
// in it cannot lead outside the directory.
type dirSource struct{ root *os.Root }

func (d dirSource) open(name string) (io.ReadCloser, int64, error) {
	f, err := d.root.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, fmt.Errorf("%s: %w", name, errNoFile)
	}
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is not a regular file", name)
	}
	return f, info.Size(), nil
}

func (d dirSource) has(name string) bool {
	info, err := d.root.Stat(name)
	return err == nil && info.Mode().IsRegular()
}

func (d dirSource) close() error { return d.root.Close() }

// tarSource is a tar archive with the offset and size of each regular
// file, read in place.
type tarSource struct {
	f       *os.File
	entries map[string][2]int64
	// links are symbolic links between entries (docker save links a layer
	// it already wrote instead of writing it twice), resolved on open.
	links map[string]string
}

// indexTar reads every header once. Only plain regular files are
// indexed; a name that is absolute or climbs out is ignored (it cannot be
// a blob of the layout), and a later entry of the same name wins, as it
// would when the archive is extracted.
func indexTar(ctx context.Context, f *os.File) (*tarSource, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	pr := &posReader{f: f}
	tr := tar.NewReader(pr)
	src := &tarSource{f: f, entries: map[string][2]int64{}, links: map[string]string{}}
	for n := 0; ; n++ {
		if n > maxArchiveEntries {
			return nil, fmt.Errorf("archive holds more than %d entries; not an image archive", maxArchiveEntries)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("archive is not a readable tar file: %w", err)
		}
		name, ok := archiveName(hdr.Name)
		if !ok {
			continue
		}
		switch {
		case hdr.Typeflag == tar.TypeSymlink:
			if target, ok := archiveName(path.Join(path.Dir(name), hdr.Linkname)); ok && !path.IsAbs(hdr.Linkname) {
				src.links[name] = target
			}
		case hdr.Typeflag == tar.TypeReg && !isSparse(hdr) && hdr.Size >= 0:
			src.entries[name] = [2]int64{pr.pos, hdr.Size}
			delete(src.links, name)
		}
	}
	if len(src.entries) == 0 {
		return nil, errors.New("archive holds no files; not an image archive")
	}
	return src, nil
}

// isSparse reports a GNU sparse entry, whose stored bytes are not its
// content.
func isSparse(hdr *tar.Header) bool {
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// archiveName cleans an entry name; ok is false for a name that is
// absolute or climbs out, which cannot be a file of an image archive.
func archiveName(n string) (string, bool) {
	name := path.Clean(strings.TrimPrefix(n, "./"))
	if name == "." || strings.HasPrefix(name, "/") || name == ".." || strings.HasPrefix(name, "../") {
		return "", false
	}
	return name, true
}

// lookup follows at most a few links between entries.
func (t *tarSource) lookup(name string) ([2]int64, bool) {
	name = path.Clean(name)
	for hops := 0; hops < 8; hops++ {
		if e, ok := t.entries[name]; ok {
			return e, true
		}
		next, ok := t.links[name]
		if !ok {
			break
		}
		name = next
	}
	return [2]int64{}, false
}

func (t *tarSource) open(name string) (io.ReadCloser, int64, error) {
	e, ok := t.lookup(name)
	if !ok {
		return nil, 0, fmt.Errorf("%s: %w", name, errNoFile)
	}
	return io.NopCloser(io.NewSectionReader(t.f, e[0], e[1])), e[1], nil
}

func (t *tarSource) has(name string) bool {
	_, ok := t.lookup(name)
	return ok
}

func (t *tarSource) close() error { return t.f.Close() }

// writeLayout copies the archive's files (an OCI layout) into dir, at
// most max bytes, and returns dir.
func (t *tarSource) writeLayout(ctx context.Context, dir string, max int64) (string, error) {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	var total int64
	names := make([]string, 0, len(t.entries)+len(t.links))
	for n := range t.entries {
		names = append(names, n)
	}
	for n := range t.links {
		names = append(names, n)
	}
	for _, name := range names {
		rc, size, err := t.open(name)
		if err != nil {
			continue // a dangling link
		}
		if total += size; total > max {
			return "", fmt.Errorf("archive holds more than %d bytes (SVC_TARGET_MAX_BYTES)", max)
		}
		if err := root.MkdirAll(path.Dir(name), 0o700); err != nil {
			return "", err
		}
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(f, &ctxReader{ctx: ctx, r: rc})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", err
		}
	}
	return dir, nil
}

// posReader tracks the offset tar.Reader has consumed, so each header's
// data offset is known; it seeks to skip file contents.
type posReader struct {
	f   *os.File
	pos int64
}

func (r *posReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.pos += int64(n)
	return n, err
}

func (r *posReader) Seek(offset int64, whence int) (int64, error) {
	n, err := r.f.Seek(offset, whence)
	if err == nil {
		r.pos = n
	}
	return n, err
}

// readAllCapped reads a small document (manifest, index, config).
func readAllCapped(src source, name string, max int64) ([]byte, error) {
	rc, size, err := src.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if size > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d an image document may have", name, size, max)
	}
	return io.ReadAll(io.LimitReader(rc, max))
}
