package image

import (
	"errors"
	"slices"
	"strings"

	"scand/scan"
	"scand/scan/tree"
)

// Which files an image scan writes out. Creating a file costs far more
// than reading its bytes (about 0.75 ms of kernel time per inode on an
// ext4 disk, so some 4 s for a 100 MB Debian image, against 0.1 s to read
// and verify all its layers), and no scanner of a scan reads most files of
// an operating-system image. So only the files some scanner of the scan's
// types reads are written to disk; the others are kept as names only
// (virtual.go), enough to apply later layers' whiteouts and to map
// findings to the layer that wrote them. Each scanner says what it reads:
//
//   - fileReader (git-hygiene, licenses): by name and
//     by content; data is the file's content when it is a regular file of
//     at most contentLimit bytes, else nil;
//   - exactReader: a scan.Selective scanner whose Reads names every file
//     it opens (osv-scanner's lockfiles, bandit's Python files);
//   - a scan.ImageReader reading the archive itself (trivy image): none;
//   - any other scanner needs the whole tree, and so does a Selective
//     scanner that is not exact once the image holds a file it reads: the
//     image is then unpacked whole (errWhole restarts the unpacking).
//
// The SBOM capture says what it reads with Options.CaptureReads. The
// secrets rules are run on each file as it streams (secrets.Content): a
// file they match is written out for the secrets scanner, and kept aside
// for layer-secrets if a later layer removes it. Without Options.Scanners
// every file is written out.

// fileReader is implemented by a scanner that reads every file of a tree
// but can tell, from a file's name and content, whether it has anything to
// say about it.
type fileReader interface {
	ReadsFile(rel string, data []byte) bool
}

// exactReader is a scan.Selective scanner that can vouch for its Reads.
type exactReader interface {
	scan.Selective
	ReadsExactly() bool
}

// contentLimit is the largest file whose content fileReaders are shown:
// the secrets scanner reads nothing larger.
const contentLimit = 2 << 20

// errWhole restarts an unpacking that met a file a scanner reads without
// saying what else it needs.
var errWhole = errors.New("a scanner needs the whole image")

// reading is what one scan's scanners read of an image; nil reads all.
type reading struct {
	names   []func(rel string) bool
	content []func(rel string, data []byte) bool
	partial []func(rel string) bool
}

// readingFor collects what the scanners of scanTypes read; nil when one
// of them needs every file.
func (p *Preparer) readingFor(scanTypes []string, keepRemoved bool) *reading {
	if p.o.Scanners == nil {
		return nil
	}
	r := &reading{}
	if scan.ReadsTree(scanTypes) {
		if p.o.CaptureReads == nil {
			return nil
		}
		r.names = append(r.names, p.o.CaptureReads)
	}
	if keepRemoved {
		r.content = append(r.content, p.secrets.ReadsFile) // layer-secrets
	}
	for _, s := range scan.ExpandScanTypes(p.o.Scanners, scanTypes) {
		if ir, ok := s.(scan.ImageReader); ok && ir.ReadsImage() || keepRemoved && p.secrets.Covers(s) {
			continue
		}
		switch s := s.(type) {
		case fileReader:
			r.content = append(r.content, s.ReadsFile)
		case exactReader:
			if s.ReadsExactly() {
				r.names = append(r.names, s.Reads)
			} else {
				r.partial = append(r.partial, s.Reads)
			}
		case scan.Selective:
			r.partial = append(r.partial, s.Reads)
		default:
			return nil
		}
	}
	return r
}

// needsWhole reports a file that makes a scanner run which did not say
// what else it reads (a file under a directory the idle check does not
// enter, tree.SkipDir, does not), and a repository at the image's root:
// git reads its whole work tree (git-hygiene, the secrets history).
func (r *reading) needsWhole(rel string) bool {
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return true
	}
	return slices.ContainsFunc(r.partial, func(reads func(string) bool) bool { return reads(rel) }) && !tree.UnderSkippedDir(rel)
}

// followed reports a symbolic link some scanner reads through: the
// fileReaders read regular files only (the tree walks skip links), so
// only the named readers (the OS package discovery, the exact tools) can.
func (r *reading) followed(rel string) bool {
	return slices.ContainsFunc(r.names, func(reads func(string) bool) bool { return reads(rel) })
}

// byName reports a file some scanner reads whatever it holds.
func (r *reading) byName(rel string) bool {
	return slices.ContainsFunc(r.names, func(reads func(string) bool) bool { return reads(rel) }) ||
		slices.ContainsFunc(r.content, func(reads func(string, []byte) bool) bool { return reads(rel, nil) })
}

// byContent reports a file some scanner reads for what it holds.
func (r *reading) byContent(rel string, data []byte) bool {
	return slices.ContainsFunc(r.content, func(reads func(string, []byte) bool) bool { return reads(rel, data) })
}
