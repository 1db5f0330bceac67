package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"scand/scan/tree"
)

// How layers are unpacked, and why (a layer is attacker-controlled):
//
//   - Everything is created relative to an os.Root on the scan's private
//     directory, under rootfs/. Entry names that are absolute or hold ".."
//     fail the scan; nothing is ever written through a symbolic link: a
//     parent directory that is a link fails the entry (real layers never
//     need it: the kernel resolved such writes when the layer was built),
//     and a file replaces whatever was at its name instead of opening it.
//   - Symbolic links are never followed here. Their targets are rewritten
//     relative to the link, resolved the way the image itself sees them
//     from its own root (an absolute target, or ".." above the root, stays
//     in the image, as in a chroot), so a wrapped tool that follows links
//     reads the image, never the scanning host: "dev/stdout ->
//     /proc/self/fd/1" would otherwise make a tool read its own output
//     pipe and hang. Hard links may only name a regular file that an
//     earlier entry unpacked inside the root.
//   - Devices, fifos and unknown entry types are skipped and counted
//     (ImageInfo.SkippedEntries). Permission bits are kept (setuid and
//     setgid dropped) and the owner may always read files and enter
//     directories; ownership is applied only when scand runs as root.
//   - Whiteouts (.wh.<name>) and opaque directories (.wh..wh..opq) hide
//     what lower layers put there, never what the same layer adds. What
//     they hide, and what a later layer overwrites, is moved to removed/
//     when the scan looks for secrets (those bytes are still in every copy
//     of the image), else deleted.
//   - Limits: total bytes written (and bytes decompressed), entries, one
//     file's size, path length, and the preparation's time limit. A size
//     claim over a limit fails before anything is written, so a sparse
//     "10 GB" entry costs nothing.
//   - Every layer's blob digest (when the archive names it) and diff id are
//     verified as it streams; a mismatch fails the scan.

// maxRemovedFileBytes is the largest removed file kept for the secrets
// check: the secrets scanner reads nothing larger.
const maxRemovedFileBytes = 2 << 20

// removedFile is content a later layer deleted or replaced, kept aside.
type removedFile struct {
	abs       string // where it is kept
	rel       string // its path in the image
	layer     int    // the layer that wrote it
	removedBy int    // the layer that deleted or replaced it
}

// unpacker applies layers, bottom first, to rootfs/ under its work root.
type unpacker struct {
	work        *os.Root
	workPath    string
	limits      Limits
	keepRemoved bool
	chown       bool

	// read is what the scan's scanners read (reading.go); nil writes out
	// every file. virt holds the entries not written out, recent the
	// content of the latest ones, content a file's bytes being judged.
	// links are the links written out, and where they point.
	read    *reading
	virt    virtualIndex
	links   [][2]string
	recent  recent
	content []byte

	layer   int
	owner   map[string]int  // path in the image → the layer that wrote it
	written map[string]bool // paths the current layer wrote
	dirs    map[string]bool // paths known to be real directories
	removed []removedFile
	nextRm  int
	// inflated counts the bytes decompressed so far, over all layers.
	inflated int64
	// roots caches an os.Root per directory of the image, so creating an
	// entry is one openat relative to its directory rather than a walk
	// from the top (five times faster on a 100 MB image). It is emptied
	// whenever a directory moves.
	roots   map[string]*os.Root
	entries int
	bytes   int64
	skipped int
	buf     []byte
}

func newUnpacker(work *os.Root, workPath string, limits Limits, keepRemoved bool, read *reading) (*unpacker, error) {
	if err := work.Mkdir("rootfs", 0o700); err != nil {
		return nil, err
	}
	if err := work.Mkdir("removed", 0o700); err != nil {
		return nil, err
	}
	return &unpacker{work: work, workPath: workPath, limits: limits, keepRemoved: keepRemoved, chown: os.Geteuid() == 0,
		read: read, virt: virtualIndex{}, owner: map[string]int{}, dirs: map[string]bool{}, roots: map[string]*os.Root{}, buf: make([]byte, 256<<10)}, nil
}

// maxCachedDirs bounds the open directory handles.
const maxCachedDirs = 256

// close releases the cached directory handles.
func (u *unpacker) close() { u.resetRoots() }

func (u *unpacker) resetRoots() {
	for _, r := range u.roots {
		r.Close()
	}
	clear(u.roots)
}

// dirRoot is the directory dir of the image ("" is its root); every
// directory on the way must already be known to be real (ensureParents).
func (u *unpacker) dirRoot(dir string) (*os.Root, error) {
	if r, ok := u.roots[dir]; ok {
		return r, nil
	}
	if len(u.roots) >= maxCachedDirs {
		u.resetRoots()
	}
	var r *os.Root
	var err error
	if dir == "" {
		r, err = u.work.OpenRoot("rootfs")
	} else {
		parent, base := splitRel(dir)
		var pr *os.Root
		if pr, err = u.dirRoot(parent); err != nil {
			return nil, err
		}
		r, err = pr.OpenRoot(base)
	}
	if err != nil {
		return nil, err
	}
	u.roots[dir] = r
	return r, nil
}

// at is the directory holding rel, and rel's name in it.
func (u *unpacker) at(rel string) (*os.Root, string, error) {
	dir, base := splitRel(rel)
	r, err := u.dirRoot(dir)
	return r, base, err
}

// splitRel splits "a/b/c" into "a/b" and "c"; the root's children have
// dir "".
func splitRel(rel string) (string, string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}

// layerError names the layer and entry a refusal is about.
func layerError(layer int, entry string, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if entry == "" {
		return fmt.Errorf("layer %d: %s", layer+1, msg)
	}
	return fmt.Errorf("layer %d: entry %q: %s", layer+1, entry, msg)
}

// apply streams one layer blob into the root and verifies its digests.
func (u *unpacker) apply(ctx context.Context, blob io.Reader, idx int, ref layerRef) error {
	u.layer = idx
	u.written = map[string]bool{}
	u.recent.reset()
	// An uncompressed blob is its own tar: one hash serves both digests.
	blobHash := &lazyHash{}
	br := bufio.NewReaderSize(blob, 1<<16)
	compressed := io.TeeReader(br, blobHash) // what the blob's bytes pass through
	var plain io.Reader = br
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		if ref.blobDigest != "" {
			blobHash.h = sha256.New()
		}
		zr, err := gzip.NewReader(compressed)
		if err != nil {
			return layerError(idx, "", "gzip: %v", err)
		}
		plain = zr
	case len(magic) == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd:
		return layerError(idx, "", "zstd-compressed layers are not supported")
	}
	diffHash := sha256.New()
	// Decompressed bytes are capped too: a tar bomb of headers, padding or
	// trailing zeros writes little but would still cost the time to inflate.
	budget := &capReader{r: &ctxReader{ctx: ctx, r: plain}, left: 2*u.limits.MaxBytes - u.inflated, layer: idx}
	defer func() { u.inflated += budget.read }()
	stream := io.TeeReader(budget, diffHash)
	tr := tar.NewReader(stream)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var ce *capError
			if errors.As(err, &ce) {
				return ce
			}
			return layerError(idx, "", "not a readable tar stream: %v", err)
		}
		if err := u.entry(tr, hdr); err != nil {
			return err
		}
	}
	if _, err := io.CopyBuffer(io.Discard, stream, u.buf); err != nil {
		return layerError(idx, "", "reading the end of the layer: %v", err)
	}
	if _, err := io.CopyBuffer(io.Discard, compressed, u.buf); err != nil {
		return layerError(idx, "", "reading the end of the blob: %v", err)
	}
	if err := checkDigest(diffHash, ref.diffID); err != nil {
		return layerError(idx, "", "uncompressed content %v (diff id in the image configuration); the archive is corrupt or was tampered with", err)
	}
	if ref.blobDigest != "" {
		h := blobHash.h
		if h == nil {
			h = diffHash // uncompressed: the blob is the tar
		}
		if err := checkDigest(h, ref.blobDigest); err != nil {
			return layerError(idx, "", "blob %v; the archive is corrupt or was tampered with", err)
		}
	}
	return nil
}

// lazyHash hashes only once h is set.
type lazyHash struct{ h hash.Hash }

func (l *lazyHash) Write(p []byte) (int, error) {
	if l.h != nil {
		l.h.Write(p)
	}
	return len(p), nil
}

func checkDigest(h hash.Hash, want string) error {
	got := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if got != want {
		return fmt.Errorf("has digest %s, not %s", got, want)
	}
	return nil
}

// capReader fails once more than left bytes were read.
type capReader struct {
	r     io.Reader
	left  int64
	read  int64
	layer int
}

type capError struct{ layer int }

func (e *capError) Error() string {
	return fmt.Sprintf("layer %d: the image decompresses to more than twice SVC_TARGET_MAX_BYTES (a decompression bomb?)", e.layer+1)
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, &capError{layer: c.layer}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.read += int64(n)
	return n, err
}

// entryPath cleans an entry name into a path relative to the root ("" is
// the root itself). Absolute names and ".." fail: a real layer has
// neither, and an archive that does is trying to escape.
func (u *unpacker) entryPath(name string) (string, error) {
	if len(name) > u.limits.MaxPath {
		return "", fmt.Errorf("path is longer than %d bytes", u.limits.MaxPath)
	}
	if strings.HasPrefix(name, "/") {
		return "", errors.New("absolute path")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", errors.New("NUL byte in path")
	}
	parts := strings.Split(name, "/")
	out := parts[:0]
	for _, p := range parts {
		switch p {
		case "", ".":
		case "..":
			return "", errors.New(`".." in path`)
		default:
			if len(p) > 255 {
				return "", errors.New("path component longer than 255 bytes")
			}
			out = append(out, p)
		}
	}
	return strings.Join(out, "/"), nil
}

func (u *unpacker) entry(tr *tar.Reader, hdr *tar.Header) error {
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		return nil
	}
	u.entries++
	if u.entries > u.limits.MaxFiles {
		return layerError(u.layer, "", "more than %d entries in the image (SVC_TARGET_MAX_FILES)", u.limits.MaxFiles)
	}
	rel, err := u.entryPath(hdr.Name)
	if err != nil {
		return layerError(u.layer, hdr.Name, "%v", err)
	}
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if strings.HasPrefix(base, ".wh.") {
		if base == ".wh..wh..opq" {
			return u.opaque(dir)
		}
		return u.whiteout(path.Join(dir, strings.TrimPrefix(base, ".wh.")))
	}
	if rel == "" {
		return nil // the root directory's own entry
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		return u.mkdir(rel, hdr)
	case tar.TypeReg, tar.TypeGNUSparse:
		return u.file(rel, hdr, tr)
	case tar.TypeSymlink:
		return u.symlink(rel, hdr)
	case tar.TypeLink:
		return u.hardlink(rel, hdr)
	default:
		u.skipped++
		return nil
	}
}

// in is the name of a path of the image under the work root.
func in(rel string) string {
	if rel == "" {
		return "rootfs"
	}
	return "rootfs/" + rel
}

// ensureParents makes sure every directory above rel is a real directory,
// creating missing ones; a link or a file in the way fails the entry.
func (u *unpacker) ensureParents(rel string) error {
	dir := path.Dir(rel)
	if dir == "." || u.dirs[dir] {
		return nil
	}
	if err := u.ensureParents(dir); err != nil {
		return err
	}
	pr, base, err := u.at(dir)
	if err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	if n := u.virt.get(dir); n != nil {
		return u.realize(rel, dir, n, pr, base)
	}
	info, err := pr.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := pr.Mkdir(base, 0o755); err != nil {
			return layerError(u.layer, rel, "%v", err)
		}
		u.owner[dir] = u.layer
		u.written[dir] = true
	case err != nil:
		return layerError(u.layer, rel, "%v", err)
	case info.Mode()&fs.ModeSymlink != 0:
		return layerError(u.layer, rel, "its parent %q is a symbolic link; scand never writes through links", dir)
	case !info.IsDir():
		return layerError(u.layer, rel, "its parent %q is not a directory", dir)
	}
	u.dirs[dir] = true
	return nil
}

// realize writes out the virtual directory dir, above rel, because
// something under it is written out; its children stay virtual.
func (u *unpacker) realize(rel, dir string, n *vnode, pr *os.Root, base string) error {
	if err := notADir(dir, n); err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	if err := pr.Mkdir(base, 0o700); err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	if err := pr.Chmod(base, n.mode); err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	if u.chown {
		_ = pr.Lchown(base, n.uid, n.gid)
	}
	parent, _ := splitRel(dir)
	delete(u.virt[parent], base)
	u.dirs[dir] = true
	return nil
}

// notADir refuses an entry under the virtual link or file dir, as
// ensureParents refuses one under a real one; nil for a directory.
func notADir(dir string, n *vnode) error {
	switch {
	case n.dir:
		return nil
	case n.link:
		return fmt.Errorf("its parent %q is a symbolic link; scand never writes through links", dir)
	}
	return fmt.Errorf("its parent %q is not a directory", dir)
}

// ensureVirtualParents is ensureParents for a virtual entry: missing
// directories above rel are made virtual, none is written out.
func (u *unpacker) ensureVirtualParents(rel string) error {
	dir := path.Dir(rel)
	if dir == "." || u.dirs[dir] {
		return nil
	}
	if n := u.virt.get(dir); n != nil {
		if err := notADir(dir, n); err != nil {
			return layerError(u.layer, rel, "%v", err)
		}
		return nil
	}
	if err := u.ensureVirtualParents(dir); err != nil {
		return err
	}
	if u.mayBeReal(dir) {
		info, err := u.work.Lstat(in(dir))
		switch {
		case err == nil && info.Mode()&fs.ModeSymlink != 0:
			return layerError(u.layer, rel, "its parent %q is a symbolic link; scand never writes through links", dir)
		case err == nil && !info.IsDir():
			return layerError(u.layer, rel, "its parent %q is not a directory", dir)
		case err == nil:
			u.dirs[dir] = true
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return layerError(u.layer, rel, "%v", err)
		}
	}
	u.virt.put(dir, &vnode{dir: true, mode: 0o755})
	u.owner[dir] = u.layer
	u.written[dir] = true
	return nil
}

// mayBeReal reports whether rel can be on disk: its parent is not virtual.
func (u *unpacker) mayBeReal(rel string) bool {
	parent, _ := splitRel(rel)
	return parent == "" || u.dirs[parent] || u.virt.get(parent) == nil
}

// makeVirtual clears rel, real or virtual, for a virtual entry n.
func (u *unpacker) makeVirtual(rel string, n *vnode) error {
	if err := u.ensureVirtualParents(rel); err != nil {
		return err
	}
	if old := u.virt.get(rel); old != nil {
		if n.dir && old.dir {
			old.mode, old.uid, old.gid = n.mode, n.uid, n.gid
			n = old // layers merge directories
		} else {
			u.virt.drop(rel, u.owner)
		}
	} else if u.mayBeReal(rel) {
		if info, err := u.work.Lstat(in(rel)); err == nil {
			if err := u.displace(rel, info); err != nil {
				return err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return layerError(u.layer, rel, "%v", err)
		}
	}
	u.virt.put(rel, n)
	u.owner[rel] = u.layer
	u.written[rel] = true
	return nil
}

// clear makes room at rel for a new entry: a directory stays when a
// directory replaces it (layers merge directories); anything else moves
// aside. It reports whether a directory is already there.
func (u *unpacker) clear(rel string, dirEntry bool) (bool, error) {
	dr, base, err := u.at(rel)
	if err != nil {
		return false, layerError(u.layer, rel, "%v", err)
	}
	info, err := dr.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, layerError(u.layer, rel, "%v", err)
	}
	if dirEntry && info.IsDir() {
		return true, nil
	}
	return false, u.displace(rel, info)
}

// displace takes rel out of the root: kept under removed/ (with its
// regular files recorded) when removed content is scanned, else deleted.
func (u *unpacker) displace(rel string, info fs.FileInfo) error {
	if info.IsDir() {
		// Paths under it may be reused differently, and cached handles
		// would follow the directory to where it goes.
		u.dirs = map[string]bool{}
		u.resetRoots()
		if err := u.dropVirtualUnder(rel); err != nil {
			return err
		}
	}
	if !u.keepRemoved {
		if err := u.work.RemoveAll(in(rel)); err != nil {
			return layerError(u.layer, rel, "removing what a lower layer put there: %v", err)
		}
		delete(u.owner, rel)
		return nil
	}
	u.nextRm++
	aside := "removed/" + strconv.Itoa(u.nextRm)
	if err := u.work.Rename(in(rel), aside); err != nil {
		return layerError(u.layer, rel, "moving aside what a lower layer put there: %v", err)
	}
	record := func(sub string, fi fs.FileInfo) {
		r := rel
		if sub != "" {
			r = rel + "/" + sub
		}
		layer, ok := u.owner[r]
		delete(u.owner, r)
		if ok && fi.Mode().IsRegular() && fi.Size() <= maxRemovedFileBytes && fi.Size() > 0 {
			abs := u.workPath + "/" + aside
			if sub != "" {
				abs += "/" + sub
			}
			u.removed = append(u.removed, removedFile{abs: abs, rel: r, layer: layer, removedBy: u.layer})
		}
	}
	if !info.IsDir() {
		record("", info)
		return nil
	}
	delete(u.owner, rel)
	sub, err := u.work.OpenRoot(aside)
	if err != nil {
		return err
	}
	defer sub.Close()
	return fs.WalkDir(sub.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		fi, err := d.Info()
		if err == nil {
			record(p, fi)
		}
		return nil
	})
}

// dropVirtualUnder forgets the virtual entries under the real directory
// rel, which is leaving the root: those of rel and of every real directory
// under it.
func (u *unpacker) dropVirtualUnder(rel string) error {
	if len(u.virt) == 0 {
		return nil
	}
	u.virt.dropUnder(rel, u.owner)
	sub, err := u.work.OpenRoot(in(rel))
	if err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	defer sub.Close()
	return fs.WalkDir(sub.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != "." {
			u.virt.dropUnder(rel+"/"+p, u.owner)
		}
		return nil
	})
}

// parentsExist reports whether every directory above rel exists as a
// directory, real or virtual, without creating any.
func (u *unpacker) parentsExist(rel string) bool {
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if u.dirs[dir] {
			return true
		}
		if n := u.virt.get(dir); n != nil {
			if !n.dir {
				return false
			}
			continue
		}
		info, err := u.work.Lstat(in(dir))
		if err != nil || !info.IsDir() {
			return false
		}
	}
	return true
}

// whiteout hides rel from the layers below. A name under a missing
// directory or a link hides nothing: no lower layer put anything there.
func (u *unpacker) whiteout(rel string) error {
	if rel == "" || u.written[rel] || !u.parentsExist(rel) {
		return nil // hides nothing of its own layer
	}
	if u.virt.get(rel) != nil {
		u.virt.drop(rel, u.owner)
		return nil
	}
	info, err := u.work.Lstat(in(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	return u.displace(rel, info)
}

// opaque hides everything lower layers put under dir, keeping what this
// layer wrote there (before or after the marker).
func (u *unpacker) opaque(dir string) error {
	if dir != "" {
		if !u.parentsExist(dir) {
			return nil
		}
		if n := u.virt.get(dir); n != nil {
			if n.dir {
				u.clearLowerVirtual(dir)
			}
			return nil
		}
		info, err := u.work.Lstat(in(dir))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || !info.IsDir() {
			return nil // not a directory: nothing to make opaque
		}
	}
	return u.clearLower(dir)
}

func (u *unpacker) clearLower(dir string) error {
	f, err := u.work.Open(in(dir))
	if err != nil {
		return layerError(u.layer, dir, "%v", err)
	}
	children, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return layerError(u.layer, dir, "%v", err)
	}
	for _, c := range children {
		child := c.Name()
		if dir != "" {
			child = dir + "/" + c.Name()
		}
		info, err := c.Info()
		if err != nil {
			continue
		}
		if u.written[child] {
			if info.IsDir() {
				if err := u.clearLower(child); err != nil {
					return err
				}
			}
			continue
		}
		if err := u.displace(child, info); err != nil {
			return err
		}
	}
	u.clearLowerVirtual(dir)
	return nil
}

// clearLowerVirtual is clearLower for the virtual children of dir.
func (u *unpacker) clearLowerVirtual(dir string) {
	for name, n := range u.virt[dir] {
		child := path.Join(dir, name)
		switch {
		case !u.written[child]:
			u.virt.drop(child, u.owner)
		case n.dir:
			u.clearLowerVirtual(child)
		}
	}
}

// dirMode keeps a directory's permission bits and sticky bit and lets the
// owner (scand) enter and clean it.
func dirMode(hdr *tar.Header) fs.FileMode {
	m := fs.FileMode(hdr.Mode)&0o777 | 0o700
	if hdr.Mode&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

func (u *unpacker) mkdir(rel string, hdr *tar.Header) error {
	if u.read != nil {
		// A directory is written out when something in it is (realize),
		// or stays what it is when it already is.
		if err := u.ensureVirtualParents(rel); err != nil {
			return err
		}
		if u.virt.get(rel) != nil || !u.mayBeReal(rel) {
			return u.makeVirtual(rel, &vnode{dir: true, mode: dirMode(hdr), uid: hdr.Uid, gid: hdr.Gid})
		}
		if info, err := u.work.Lstat(in(rel)); err != nil || !info.IsDir() {
			return u.makeVirtual(rel, &vnode{dir: true, mode: dirMode(hdr), uid: hdr.Uid, gid: hdr.Gid})
		}
	}
	if err := u.ensureParents(rel); err != nil {
		return err
	}
	// Creating first and looking only on a clash saves a system call per
	// entry; the same goes for files and links below.
	dr, base, err := u.at(rel)
	if err == nil {
		if err = dr.Mkdir(base, 0o700); errors.Is(err, fs.ErrExist) {
			var exists bool
			if exists, err = u.clear(rel, true); err == nil && !exists {
				if dr, base, err = u.at(rel); err == nil {
					err = dr.Mkdir(base, 0o700)
				}
			}
		}
	}
	if err == nil {
		err = dr.Chmod(base, dirMode(hdr))
	}
	if err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	if u.chown {
		_ = dr.Lchown(base, hdr.Uid, hdr.Gid)
	}
	u.dirs[rel] = true
	u.owner[rel] = u.layer
	u.written[rel] = true
	return nil
}

// create makes a non-directory entry at rel with make; when something is
// already there it moves that aside first (never opening it) and tries
// again.
func (u *unpacker) create(rel string, make func(dr *os.Root, base string) (*os.File, error)) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		dr, base, err := u.at(rel)
		if err != nil {
			return nil, layerError(u.layer, rel, "%v", err)
		}
		f, err := make(dr, base)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt > 0 {
			return nil, layerError(u.layer, rel, "%v", err)
		}
		if _, err := u.clear(rel, false); err != nil {
			return nil, err
		}
	}
}

// judge decides whether the file rel is written out; when it is not, it
// becomes virtual here. data is its content when judging read it.
func (u *unpacker) judge(rel string, size int64, tr io.Reader) (data []byte, need bool, err error) {
	if u.read.needsWhole(rel) {
		return nil, false, errWhole
	}
	if u.read.byName(rel) {
		return nil, true, nil
	}
	if size <= contentLimit && len(u.read.content) > 0 {
		if int64(cap(u.content)) < size {
			u.content = make([]byte, size)
		}
		data = u.content[:size]
		if _, err := io.ReadFull(tr, data); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			var ce *capError
			if errors.As(err, &ce) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				return nil, false, err
			}
			return nil, false, layerError(u.layer, rel, "%v", err)
		}
		if u.read.byContent(rel, data) {
			return data, true, nil
		}
	}
	u.bytes += size
	// Binary content is never wanted for what it holds (the rules skip
	// it; git-hygiene judges a binary key file by its name): only text is
	// kept for a hard link under another name.
	text := data != nil && !tree.LooksBinary(data)
	if err := u.makeVirtual(rel, &vnode{readable: text}); err != nil {
		return nil, false, err
	}
	if text {
		u.recent.add(rel, data)
	}
	return nil, false, nil
}

// writeOut prepares rel for an entry written out: its directories real,
// no virtual entry left at its name.
func (u *unpacker) writeOut(rel string) error {
	if err := u.ensureParents(rel); err != nil {
		return err
	}
	u.virt.drop(rel, u.owner)
	return nil
}

// writerOnly hides os.File's ReadFrom so copies use the unpacker's buffer.
type writerOnly struct{ io.Writer }

func (u *unpacker) file(rel string, hdr *tar.Header, tr io.Reader) error {
	size := hdr.Size
	switch {
	case size < 0:
		return layerError(u.layer, rel, "negative size")
	case size > u.limits.MaxFileBytes:
		return layerError(u.layer, rel, "claims %d bytes, more than the %d one file may have", size, u.limits.MaxFileBytes)
	case u.bytes+size > u.limits.MaxBytes:
		return layerError(u.layer, rel, "claims %d bytes; the image would exceed %d bytes unpacked (SVC_TARGET_MAX_BYTES)", size, u.limits.MaxBytes)
	}
	var content io.Reader = tr
	if u.read != nil {
		data, need, err := u.judge(rel, size, tr)
		if err != nil || !need {
			return err
		}
		if data != nil {
			content = bytes.NewReader(data)
		}
	}
	if err := u.writeOut(rel); err != nil {
		return err
	}
	f, err := u.create(rel, func(dr *os.Root, base string) (*os.File, error) {
		return dr.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	})
	if err != nil {
		return err
	}
	n, err := io.CopyBuffer(writerOnly{f}, io.LimitReader(content, size), u.buf)
	u.bytes += n
	if err == nil && n != size {
		err = io.ErrUnexpectedEOF
	}
	if err == nil {
		err = f.Chmod(fs.FileMode(hdr.Mode)&0o777 | 0o400)
	}
	if err == nil && u.chown {
		_ = f.Chown(hdr.Uid, hdr.Gid)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		var ce *capError
		if errors.As(err, &ce) {
			return ce
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return err
		}
		return layerError(u.layer, rel, "%v", err)
	}
	u.owner[rel] = u.layer
	u.written[rel] = true
	return nil
}

func (u *unpacker) symlink(rel string, hdr *tar.Header) error {
	if len(hdr.Linkname) > u.limits.MaxPath || hdr.Linkname == "" || strings.IndexByte(hdr.Linkname, 0) >= 0 {
		return layerError(u.layer, rel, "invalid symbolic link target")
	}
	if u.read != nil {
		if u.read.needsWhole(rel) {
			return errWhole
		}
		if !u.read.followed(rel) {
			return u.makeVirtual(rel, &vnode{link: true})
		}
	}
	if err := u.writeOut(rel); err != nil {
		return err
	}
	target := inImageLink(rel, hdr.Linkname)
	if _, err := u.create(rel, func(dr *os.Root, base string) (*os.File, error) {
		if err := dr.Symlink(target, base); err != nil {
			return nil, err
		}
		if u.chown {
			_ = dr.Lchown(base, hdr.Uid, hdr.Gid)
		}
		return nil, nil
	}); err != nil {
		return err
	}
	if u.read != nil {
		u.links = append(u.links, [2]string{rel, linkDest(rel, hdr.Linkname)})
	}
	u.owner[rel] = u.layer
	u.written[rel] = true
	return nil
}

// inImageLink is the target of the link at rel, relative to the link's
// directory and resolved as inside the image: absolute targets are
// absolute in the image, and ".." stops at its root.
func inImageLink(rel, target string) string {
	dir := path.Dir("/" + rel)
	r, err := filepath.Rel(dir, linkDest(rel, target))
	if err != nil {
		return "."
	}
	return filepath.ToSlash(r)
}

// linkDest is where the link at rel points in the image, as an absolute
// path ("/" is the image's root).
func linkDest(rel, target string) string {
	if path.IsAbs(target) {
		return path.Clean(target)
	}
	return path.Clean(path.Dir("/"+rel) + "/" + target)
}

// linksIntoVirtual reports a link written out (a scanner reads it) that
// leads to, or through, an entry that was not: what the scanner would
// read there is not on disk, so the image must be unpacked whole.
func (u *unpacker) linksIntoVirtual() bool {
	for _, l := range u.links {
		if u.virt.get(l[0]) != nil {
			continue // replaced since
		}
		for p := strings.TrimPrefix(l[1], "/"); p != "" && p != "."; p = path.Dir(p) {
			if u.virt.get(p) != nil {
				return true
			}
		}
	}
	return false
}

func (u *unpacker) hardlink(rel string, hdr *tar.Header) error {
	target, err := u.entryPath(hdr.Linkname)
	if err != nil {
		return layerError(u.layer, rel, "hard link target: %v", err)
	}
	if target == "" || target == rel {
		return layerError(u.layer, rel, "hard link to %q", hdr.Linkname)
	}
	if u.read != nil {
		if u.read.needsWhole(rel) {
			return errWhole
		}
		if n := u.virt.get(target); n != nil {
			if n.dir || n.link || !u.parentsExist(target) {
				return layerError(u.layer, rel, "hard link to %q, which is not a regular file unpacked earlier in the image", hdr.Linkname)
			}
			return u.linkVirtual(rel, target, n, hdr)
		}
	}
	info, err := u.work.Lstat(in(target))
	if err != nil || !info.Mode().IsRegular() || !u.parentsExist(target) {
		return layerError(u.layer, rel, "hard link to %q, which is not a regular file unpacked earlier in the image", hdr.Linkname)
	}
	if err := u.writeOut(rel); err != nil {
		return err
	}
	if _, err := u.clear(rel, false); err != nil {
		return err
	}
	if err := u.work.Link(in(target), in(rel)); err != nil {
		return layerError(u.layer, rel, "%v", err)
	}
	u.owner[rel] = u.layer
	u.written[rel] = true
	return nil
}

// linkVirtual makes rel a hard link to the virtual file target: virtual
// as well, or, when a scanner reads it, a copy of target's content kept
// in recent. A link whose content is needed but no longer known unpacks
// the image whole.
func (u *unpacker) linkVirtual(rel, target string, n *vnode, hdr *tar.Header) error {
	data, known := u.recent.get(target)
	if n.readable && !known {
		return errWhole // a scanner may read this content under the new name
	}
	if !u.read.byName(rel) && !(known && u.read.byContent(rel, data)) {
		return u.makeVirtual(rel, &vnode{readable: n.readable})
	}
	if !known {
		return errWhole // needed by name; its content was never kept
	}
	h := *hdr
	h.Typeflag, h.Size = tar.TypeReg, int64(len(data))
	return u.file(rel, &h, bytes.NewReader(data))
}
