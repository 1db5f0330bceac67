package vulndb

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Bounds of an import. Archives are hostile input (an upload, a file from
// a USB stick): every size is capped before anything is written.
const (
	// maxRecordBytes caps one OSV record (real ones are a few KiB).
	maxRecordBytes = 16 << 20
	// maxZipEntries caps the records of one zip (npm's all.zip holds a few
	// hundred thousand).
	maxZipEntries = 4_000_000
	// maxGoVulnDBBytes caps the unpacked Go vulnerability database.
	maxGoVulnDBBytes = 2 << 30
	// maxTrivyDBBytes caps trivy.db unpacked (about 1 GiB today).
	maxTrivyDBBytes = 8 << 30
	// maxTrivyMetaBytes caps metadata.json.
	maxTrivyMetaBytes = 64 << 10
)

// Importer installs archives into Dir.
type Importer struct {
	Dir string
	Now func() time.Time
}

// Archive is one file to import.
type Archive struct {
	// Path is the archive on disk.
	Path string
	// Name is how it is shown and recorded (the uploaded or given file
	// name); the base of Path when empty.
	Name string
	// SHA256 is the expected checksum (hex); empty means none was given.
	SHA256 string
}

// Import verifies an archive (format; sha256 when expected) and installs
// it, atomically, replacing the database of the same name. It returns the
// installed database(s).
func (im Importer) Import(ctx context.Context, a Archive) (Info, error) {
	if im.Dir == "" {
		return Info{}, errors.New("no vulnerability database directory (SVC_VULNDB_DIR)")
	}
	now := time.Now
	if im.Now != nil {
		now = im.Now
	}
	if a.Name == "" {
		a.Name = filepath.Base(a.Path)
	}
	if err := os.MkdirAll(filepath.Join(im.Dir, "store"), 0o750); err != nil {
		return Info{}, err
	}
	unlock, err := lockDir(ctx, im.Dir)
	if err != nil {
		return Info{}, err
	}
	defer unlock()

	sum, size, magic, err := hashFile(a.Path)
	if err != nil {
		return Info{}, err
	}
	if want := strings.ToLower(strings.TrimSpace(a.SHA256)); want != "" && want != sum {
		return Info{}, fmt.Errorf("%w: %s has sha256 %s, the checksum given is %s", ErrChecksum, a.Name, sum, want)
	}
	m := readManifest(im.Dir)
	var info Info
	var previous []string
	switch {
	case bytes.HasPrefix(magic, []byte("PK\x03\x04")):
		info, previous, err = im.importZip(ctx, a, sum)
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		info, previous, err = im.importTrivy(ctx, a, sum)
	default:
		err = formatErr("%s is neither a zip (OSV all.zip, Go vulndb zip) nor a gzip tarball (Trivy db.tar.gz)", a.Name)
	}
	if err != nil {
		return Info{}, err
	}
	at := now().UTC().Truncate(time.Second)
	entry := manifestEntry{BuiltAt: info.BuiltAt, ImportedAt: at, SHA256: sum, Archive: path.Base(filepath.ToSlash(a.Name)), Size: size}
	if info.Name == "govulndb" || info.Name == "trivy" {
		entry.Folder = filepath.Base(mustReadlink(filepath.Join(im.Dir, info.Name)))
	}
	m.Databases[info.Name] = entry
	if err := writeManifest(im.Dir, m); err != nil {
		return Info{}, err
	}
	prune(im.Dir, m, previous)
	info.ImportedAt, info.SHA256, info.Source = &at, sum, "imported"
	return info, nil
}

func mustReadlink(p string) string {
	t, _ := os.Readlink(p)
	return t
}

// hashFile returns the sha256, size and first bytes of a file.
func hashFile(p string) (string, int64, []byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, nil, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, nil, fmt.Errorf("%s is not a regular file", p)
	}
	h := sha256.New()
	br := bufio.NewReader(f)
	magic, _ := br.Peek(4)
	magic = bytes.Clone(magic)
	n, err := io.Copy(h, br)
	if err != nil {
		return "", 0, nil, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, magic, nil
}

// importZip tells a Go vulnerability database zip (index/db.json) from an
// OSV ecosystem zip (top-level <id>.json records) and installs it.
func (im Importer) importZip(ctx context.Context, a Archive, sum string) (Info, []string, error) {
	zr, err := zip.OpenReader(a.Path)
	if err != nil {
		return Info{}, nil, formatErr("%s: %v", a.Name, err)
	}
	defer zr.Close()
	if len(zr.File) > maxZipEntries {
		return Info{}, nil, formatErr("%s holds %d entries, more than %d", a.Name, len(zr.File), maxZipEntries)
	}
	for _, f := range zr.File {
		if f.Name == "index/db.json" {
			return im.installGoVulnDB(ctx, a, sum, zr)
		}
	}
	return im.installOSV(ctx, a, zr)
}

// osvRecordHead is what an OSV record must have.
type osvRecordHead struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Affected []struct {
		Package struct {
			Ecosystem string `json:"ecosystem"`
		} `json:"package"`
	} `json:"affected"`
}

// readOSVRecord reads and checks one record of a zip.
func readOSVRecord(f *zip.File) (osvRecordHead, error) {
	var rec osvRecordHead
	if f.UncompressedSize64 > maxRecordBytes {
		return rec, fmt.Errorf("%s is larger than %d bytes", f.Name, maxRecordBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return rec, err
	}
	defer rc.Close()
	if err := json.NewDecoder(io.LimitReader(rc, maxRecordBytes)).Decode(&rec); err != nil {
		return rec, fmt.Errorf("%s is not an OSV record: %v", f.Name, err)
	}
	if rec.ID == "" || rec.Modified.IsZero() {
		return rec, fmt.Errorf("%s is not an OSV record (no id or modified)", f.Name)
	}
	return rec, nil
}

// installOSV checks every record of an ecosystem zip (one ecosystem, each
// entry an OSV record at the top level) and copies the zip, unchanged, to
// osv/osv-scalibr/<Ecosystem>/all.zip.
func (im Importer) installOSV(ctx context.Context, a Archive, zr *zip.ReadCloser) (Info, []string, error) {
	var eco string
	records := 0
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Info{}, nil, err
		}
		if strings.Contains(f.Name, "/") || !strings.HasSuffix(f.Name, ".json") {
			return Info{}, nil, formatErr("%s: entry %q is not a top-level OSV record (<id>.json)", a.Name, f.Name)
		}
		rec, err := readOSVRecord(f)
		if err != nil {
			return Info{}, nil, formatErr("%s: %v", a.Name, err)
		}
		records++
		for _, af := range rec.Affected {
			e, _, _ := strings.Cut(af.Package.Ecosystem, ":")
			switch {
			case e == "":
			case eco == "":
				eco = e
			case e != eco:
				return Info{}, nil, formatErr("%s mixes ecosystems %s and %s; OSV publishes one zip per ecosystem", a.Name, eco, e)
			}
		}
	}
	if records == 0 || eco == "" {
		return Info{}, nil, formatErr("%s holds no OSV record naming an ecosystem", a.Name)
	}
	if strings.ContainsAny(eco, `/\`) || eco == "." || eco == ".." {
		return Info{}, nil, formatErr("%s: ecosystem %q cannot be a folder name", a.Name, eco)
	}
	dst := filepath.Join(im.Dir, DirOSV, "osv-scalibr", eco, "all.zip")
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return Info{}, nil, err
	}
	if err := copyFileAtomic(a.Path, dst); err != nil {
		return Info{}, nil, err
	}
	built, err := osvZipModified(dst)
	if err != nil {
		return Info{}, nil, err
	}
	return Info{Name: "osv/" + eco, Tool: ToolOSV, Path: dst, BuiltAt: &built}, nil, nil
}

// installGoVulnDB checks a Go vulnerability database zip (index/db.json
// with its modified date, index/modules.json, ID/<id>.json records) and
// unpacks it into a new store folder the govulndb link then points at.
func (im Importer) installGoVulnDB(ctx context.Context, a Archive, sum string, zr *zip.ReadCloser) (Info, []string, error) {
	var modified time.Time
	haveModules, records := false, 0
	var total uint64
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Info{}, nil, err
		}
		if !safeRel(f.Name) {
			return Info{}, nil, formatErr("%s: entry %q escapes the database folder", a.Name, f.Name)
		}
		total += f.UncompressedSize64
		if total > maxGoVulnDBBytes {
			return Info{}, nil, formatErr("%s unpacks to more than %d bytes", a.Name, int64(maxGoVulnDBBytes))
		}
		switch {
		case f.Name == "index/db.json":
			var db struct {
				Modified time.Time `json:"modified"`
			}
			if err := decodeZipJSON(f, &db); err != nil || db.Modified.IsZero() {
				return Info{}, nil, formatErr("%s: index/db.json has no modified date", a.Name)
			}
			modified = db.Modified
		case f.Name == "index/modules.json":
			var mods []json.RawMessage
			if err := decodeZipJSON(f, &mods); err != nil {
				return Info{}, nil, formatErr("%s: index/modules.json is not a list: %v", a.Name, err)
			}
			haveModules = true
		case strings.HasPrefix(f.Name, "ID/") && strings.HasSuffix(f.Name, ".json"):
			if _, err := readOSVRecord(f); err != nil {
				return Info{}, nil, formatErr("%s: %v", a.Name, err)
			}
			records++
		}
	}
	if modified.IsZero() || !haveModules || records == 0 {
		return Info{}, nil, formatErr("%s is not a Go vulnerability database (index/db.json, index/modules.json and ID/*.json are needed)", a.Name)
	}
	folder := "govulndb-" + sum[:16]
	final := filepath.Join(im.Dir, "store", folder)
	if _, err := os.Stat(final); err != nil {
		tmp := final + ".tmp"
		os.RemoveAll(tmp)
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			if err := unzipFile(f, filepath.Join(tmp, filepath.FromSlash(f.Name))); err != nil {
				os.RemoveAll(tmp)
				return Info{}, nil, err
			}
		}
		if err := os.Rename(tmp, final); err != nil {
			os.RemoveAll(tmp)
			return Info{}, nil, err
		}
	}
	prev, err := swapLink(filepath.Join(im.Dir, DirGoVulnDB), filepath.Join("store", folder))
	if err != nil {
		return Info{}, nil, err
	}
	// The date recorded is read back from the installed data by the
	// reader Describe uses, so an imported and a named folder agree.
	built, err := govulnModified(filepath.Join(final, "index", "db.json"))
	if err != nil {
		return Info{}, prev, err
	}
	return Info{Name: "govulndb", Tool: ToolGovulncheck, Path: filepath.Join(im.Dir, DirGoVulnDB), BuiltAt: &built}, prev, nil
}

// importTrivy checks a Trivy DB tarball (trivy.db, a bbolt file, and
// metadata.json with UpdatedAt) and unpacks it as a Trivy cache folder
// (db/trivy.db, db/metadata.json) the trivy link then points at.
func (im Importer) importTrivy(ctx context.Context, a Archive, sum string) (Info, []string, error) {
	f, err := os.Open(a.Path)
	if err != nil {
		return Info{}, nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return Info{}, nil, formatErr("%s: %v", a.Name, err)
	}
	folder := "trivy-" + sum[:16]
	final := filepath.Join(im.Dir, "store", folder)
	tmp := final + ".tmp"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Join(tmp, "db"), 0o750); err != nil {
		return Info{}, nil, err
	}
	fail := func(err error) (Info, []string, error) {
		os.RemoveAll(tmp)
		return Info{}, nil, err
	}
	tr := tar.NewReader(gz)
	var updated time.Time
	haveDB := false
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(formatErr("%s: %v", a.Name, err))
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if h.Typeflag == tar.TypeDir && (name == "." || name == "db") {
			continue
		}
		name = strings.TrimPrefix(name, "db/")
		if h.Typeflag != tar.TypeReg {
			return fail(formatErr("%s: entry %q is not a regular file", a.Name, h.Name))
		}
		switch name {
		case "metadata.json":
			var meta struct {
				Version   int       `json:"Version"`
				UpdatedAt time.Time `json:"UpdatedAt"`
			}
			b, err := io.ReadAll(io.LimitReader(tr, maxTrivyMetaBytes+1))
			if err != nil || len(b) > maxTrivyMetaBytes || json.Unmarshal(b, &meta) != nil || meta.Version == 0 || meta.UpdatedAt.IsZero() {
				return fail(formatErr("%s: metadata.json is not Trivy DB metadata (Version, UpdatedAt)", a.Name))
			}
			updated = meta.UpdatedAt
			if err := os.WriteFile(filepath.Join(tmp, "db", "metadata.json"), b, 0o640); err != nil {
				return fail(err)
			}
		case "trivy.db":
			if h.Size > maxTrivyDBBytes {
				return fail(formatErr("%s: trivy.db is larger than %d bytes", a.Name, int64(maxTrivyDBBytes)))
			}
			if err := writeBolt(tr, filepath.Join(tmp, "db", "trivy.db"), h.Size); err != nil {
				return fail(formatErr("%s: %v", a.Name, err))
			}
			haveDB = true
		default:
			return fail(formatErr("%s: unexpected entry %q (a Trivy DB holds trivy.db and metadata.json)", a.Name, h.Name))
		}
	}
	if !haveDB || updated.IsZero() {
		return fail(formatErr("%s is not a Trivy DB (trivy.db and metadata.json are needed)", a.Name))
	}
	os.RemoveAll(final)
	if err := os.Rename(tmp, final); err != nil {
		return fail(err)
	}
	prev, err := swapLink(filepath.Join(im.Dir, DirTrivy), filepath.Join("store", folder))
	if err != nil {
		return Info{}, nil, err
	}
	built, err := trivyUpdatedAt(filepath.Join(final, "db", "metadata.json"))
	if err != nil {
		return Info{}, prev, err
	}
	return Info{Name: "trivy", Tool: ToolTrivy, Path: filepath.Join(im.Dir, DirTrivy), BuiltAt: &built}, prev, nil
}

// boltMagic is bbolt's meta page magic, at offset 16 of the file.
const boltMagic = 0xED0CDAED

// writeBolt copies a tar entry to p and checks it is a bbolt database.
func writeBolt(r io.Reader, p string, size int64) error {
	out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(r, size))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("trivy.db is truncated")
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 20)
	if _, err := io.ReadFull(f, head); err != nil || binary.LittleEndian.Uint32(head[16:20]) != boltMagic {
		return fmt.Errorf("trivy.db is not a bbolt database")
	}
	return nil
}

func decodeZipJSON(f *zip.File, v any) error {
	if f.UncompressedSize64 > maxRecordBytes*16 {
		return fmt.Errorf("%s is too large", f.Name)
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return json.NewDecoder(io.LimitReader(rc, maxRecordBytes*16)).Decode(v)
}

// safeRel accepts a zip entry name that stays inside the folder it is
// unpacked to.
func safeRel(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || strings.ContainsRune(name, 0) {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." || part == "." {
			return false
		}
	}
	return path.Clean(name) == name
}

// unzipFile writes one entry to dst (created, never followed: the folder
// is new and scand's).
func unzipFile(f *zip.File, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(rc, int64(f.UncompressedSize64)))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyFileAtomic copies src over dst (replaceFile), group-readable like
// the rest of the store.
func copyFileAtomic(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return replaceFile(dst, 0o640, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// writeFileAtomic writes data over dst (replaceFile), readable by scand's
// user only.
func writeFileAtomic(dst string, data []byte) error {
	return replaceFile(dst, 0o600, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// replaceFile has write fill a temporary file beside dst, syncs it, gives
// it perm and renames it over dst, so a reader sees the old file or the
// whole new one, and a crash leaves dst as it was.
func replaceFile(dst string, perm os.FileMode, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".write-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// swapLink points the symlink link at target (relative to the link's
// folder) by renaming a new link over it, and returns the folder the link
// pointed at before, if any.
func swapLink(link, target string) ([]string, error) {
	var prev []string
	if old, err := os.Readlink(link); err == nil {
		prev = append(prev, filepath.Base(old))
	} else if st, err := os.Lstat(link); err == nil && st.Mode()&os.ModeSymlink == 0 {
		return nil, fmt.Errorf("%s exists and is not a link scand made; move it away", link)
	}
	tmp := link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return prev, nil
}

// lockDir takes the directory's import lock (flock on .lock), waiting while
// another import holds it, at most until ctx ends.
func lockDir(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("another import into %s is running: %w", dir, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func ioLimit(r io.Reader, n int64) io.Reader { return io.LimitReader(r, n) }

// osvZipModified is an OSV ecosystem zip's build date: the newest
// "modified" of its records. It is the one reader of that date, for a zip
// being imported and for one SVC_OSV_DB or SVC_VULNDB_DIR holds: the zip's
// own entry times say when it was packed, not how old its advisories are
// (a zip packed today from a 2023 data set is 2023's data). Each record is
// read only up to its top-level "modified" key.
func osvZipModified(p string) (time.Time, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return time.Time{}, err
	}
	defer zr.Close()
	if len(zr.File) > maxZipEntries {
		return time.Time{}, fmt.Errorf("%s holds %d entries, more than %d", p, len(zr.File), maxZipEntries)
	}
	var newest time.Time
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || !strings.HasSuffix(f.Name, ".json") {
			continue
		}
		if m, ok := osvRecordModified(f); ok && m.After(newest) {
			newest = m
		}
	}
	if newest.IsZero() {
		return time.Time{}, fmt.Errorf("%s has no OSV record with a modified date", p)
	}
	return newest.UTC(), nil
}

// osvRecordModified reads one record's top-level "modified", skipping the
// keys before it without decoding them.
func osvRecordModified(f *zip.File) (time.Time, bool) {
	rc, err := f.Open()
	if err != nil {
		return time.Time{}, false
	}
	defer rc.Close()
	dec := json.NewDecoder(io.LimitReader(rc, maxRecordBytes))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return time.Time{}, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return time.Time{}, false
		}
		if key == "modified" {
			var m time.Time
			if dec.Decode(&m) != nil || m.IsZero() {
				return time.Time{}, false
			}
			return m, true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return time.Time{}, false
		}
	}
	return time.Time{}, false
}

// govulnModified is a Go vulnerability database's build date: the
// "modified" of its index/db.json.
func govulnModified(p string) (time.Time, error) {
	var db struct {
		Modified time.Time `json:"modified"`
	}
	return jsonDate(p, 1<<20, "modified date", &db, &db.Modified)
}

// trivyUpdatedAt is a Trivy database's build date: the UpdatedAt of its
// metadata.json.
func trivyUpdatedAt(p string) (time.Time, error) {
	var meta struct {
		UpdatedAt time.Time `json:"UpdatedAt"`
	}
	return jsonDate(p, maxTrivyMetaBytes, "UpdatedAt", &meta, &meta.UpdatedAt)
}

// jsonDate decodes the JSON file p (its first max bytes) into doc and
// returns *date, a field of doc, in UTC; a file without it is an error
// naming what is missing.
func jsonDate(p string, max int64, what string, doc any, date *time.Time) (time.Time, error) {
	b, err := readSmall(p, max)
	if err != nil {
		return time.Time{}, err
	}
	if err := json.Unmarshal(b, doc); err != nil || date.IsZero() {
		return time.Time{}, fmt.Errorf("%s has no %s", p, what)
	}
	return date.UTC(), nil
}

func readSmall(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}
