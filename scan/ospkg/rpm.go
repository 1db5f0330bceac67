package ospkg

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"scand/scan/spdx"
	"scand/store/rpmdb"
)

// RPM keeps its database in one of three formats. Only the SQLite one
// (Fedora 33+, RHEL 9+, Amazon Linux 2023, openSUSE) is read: the Berkeley
// DB (Packages; RHEL 8 and older, CentOS 7) and NDB (Packages.db; SUSE)
// formats would need their own parsers, so a database in them is reported
// as skipped rather than half-read.
var (
	rpmSQLite = []string{"usr/lib/sysimage/rpm/rpmdb.sqlite", "var/lib/rpm/rpmdb.sqlite"}
	rpmOther  = [][2]string{
		{"usr/lib/sysimage/rpm/Packages", "Berkeley DB"},
		{"usr/lib/sysimage/rpm/Packages.db", "NDB"},
		{"usr/share/rpm/Packages", "Berkeley DB"},
		{"var/lib/rpm/Packages", "Berkeley DB"},
		{"var/lib/rpm/Packages.db", "NDB"},
	}
)

func discoverRPM(ctx context.Context, r *os.Root, root string, res *Result) error {
	for _, rel := range rpmSQLite {
		abs, err := realFile(r, root, rel)
		if err != nil {
			continue
		}
		blobs, err := rpmdb.Headers(ctx, abs, maxRPMHeaders, maxRPMBytes)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: not read: %v", rel, err))
			return nil
		}
		bad := 0
		for _, b := range blobs {
			h, err := parseRPMHeader(b)
			if err != nil {
				bad++
				continue
			}
			if h.name == "" || h.name == "gpg-pubkey" {
				continue // gpg-pubkey entries are imported keys, not software
			}
			res.Packages = append(res.Packages, h.pkg(rel, res.Distro))
		}
		if bad > 0 {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %d package headers could not be parsed", rel, bad))
		}
		return nil // one database per root
	}
	for _, o := range rpmOther {
		if rel, format := o[0], o[1]; exists(r, rel) {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: the RPM database is in the %s format, which scand does not read; its packages are not in the SBOM (Trivy's image scan still reads them)", rel, format))
		}
	}
	return nil
}

// realFile returns the path on disk of rel if it is a regular file
// reached without any symbolic link: SQLite opens it by name, so it must
// not be able to lead outside the root.
func realFile(r *os.Root, root, rel string) (string, error) {
	p := ""
	for _, part := range strings.Split(rel, "/") {
		p = path.Join(p, part)
		info, err := r.Lstat(p)
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return "", errors.New(p + " is a symbolic link")
		}
	}
	info, err := r.Lstat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return "", errors.New(rel + " is not a regular file")
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// RPM header tags and types scand reads.
const (
	rpmTagName    = 1000
	rpmTagVersion = 1001
	rpmTagRelease = 1002
	rpmTagEpoch   = 1003
	rpmTagLicense = 1014
	rpmTagArch    = 1022

	rpmTypeInt32       = 4
	rpmTypeString      = 6
	rpmTypeStringArray = 8
	rpmTypeI18NString  = 9
)

type rpmHeader struct {
	name, version, release, arch, license string
	epoch                                 int
	hasEpoch                              bool
}

func (h rpmHeader) pkg(source string, d Distro) Package {
	version := h.version + "-" + h.release
	full := version
	epoch := ""
	if h.hasEpoch {
		epoch = strconv.Itoa(h.epoch)
		full = epoch + ":" + version
	}
	ns := d.ID
	if ns == "" {
		ns = "redhat"
	}
	p := Package{Type: "rpm", Name: h.name, Version: full, Arch: h.arch, Source: source,
		PURL: osPURL("rpm", ns, h.name, version, [2]string{"arch", h.arch}, [2]string{"distro", d.Qualifier()}, [2]string{"epoch", epoch})}
	if h.license != "" {
		p.Licenses, p.LicenseSource = []string{spdx.Normalize(h.license)}, source
	}
	return p
}

// parseRPMHeader reads an RPM header blob as rpmdb.sqlite stores it: the
// index length and data length (big-endian uint32), the index entries
// (tag, type, offset, count; 16 bytes each), then the data store. Every
// offset is checked against the blob: it came from the image.
func parseRPMHeader(b []byte) (rpmHeader, error) {
	var h rpmHeader
	if len(b) < 8 {
		return h, errors.New("short header")
	}
	il := binary.BigEndian.Uint32(b[0:4])
	dl := binary.BigEndian.Uint32(b[4:8])
	if il > 1<<16 || uint64(dl) > uint64(len(b)) {
		return h, errors.New("header sizes out of range")
	}
	start := 8 + uint64(il)*16
	if start+uint64(dl) > uint64(len(b)) {
		return h, errors.New("header truncated")
	}
	data := b[start : start+uint64(dl)]
	str := func(off uint32) (string, bool) {
		if uint64(off) >= uint64(len(data)) {
			return "", false
		}
		end := strings.IndexByte(string(data[off:]), 0)
		if end < 0 {
			return "", false
		}
		return string(data[off : off+uint32(end)]), true
	}
	for i := uint32(0); i < il; i++ {
		e := b[8+i*16 : 8+i*16+16]
		tag := binary.BigEndian.Uint32(e[0:4])
		typ := binary.BigEndian.Uint32(e[4:8])
		off := binary.BigEndian.Uint32(e[8:12])
		count := binary.BigEndian.Uint32(e[12:16])
		var dst *string
		switch tag {
		case rpmTagName:
			dst = &h.name
		case rpmTagVersion:
			dst = &h.version
		case rpmTagRelease:
			dst = &h.release
		case rpmTagArch:
			dst = &h.arch
		case rpmTagLicense:
			dst = &h.license
		case rpmTagEpoch:
			if typ != rpmTypeInt32 || count < 1 || uint64(off)+4 > uint64(len(data)) {
				return h, errors.New("bad epoch entry")
			}
			h.epoch, h.hasEpoch = int(int32(binary.BigEndian.Uint32(data[off:off+4]))), true
			continue
		default:
			continue
		}
		if typ != rpmTypeString && typ != rpmTypeI18NString && typ != rpmTypeStringArray {
			return h, fmt.Errorf("tag %d has type %d, not a string", tag, typ)
		}
		s, ok := str(off)
		if !ok {
			return h, fmt.Errorf("tag %d points outside the header", tag)
		}
		*dst = s
	}
	if h.name == "" || h.version == "" {
		return h, errors.New("header without name or version")
	}
	return h, nil
}
