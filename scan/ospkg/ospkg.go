// Package ospkg discovers the operating-system packages installed in a
// root file system (an unpacked container image, a chroot): Debian and
// Ubuntu (dpkg's status file and status.d), Alpine (apk's installed
// database) and RPM distributions (rpmdb.sqlite, read through the SQLite
// driver scand already links; the older Berkeley DB and NDB formats are
// reported as skipped, not guessed at). Each package gets a purl with the
// distribution qualifier, e.g.
// pkg:deb/debian/openssl@3.0.15-1~deb12u1?arch=amd64&distro=debian-12, and
// its licences where the package metadata has them. scan/components adds
// the packages to the components captured for the SBOM.
//
// The root is hostile: every read goes through os.Root, so a symbolic link
// in it (etc/os-release -> /etc/shadow) is never followed out of it.
package ospkg

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"scand/scan/purl"
)

// Package is one installed operating-system package.
type Package struct {
	// Type is the purl type: deb, apk or rpm.
	Type string
	Name string
	// Version is as the package manager shows it, epoch included
	// ("1:1.2.13.dfsg-1"; "3.0.15-1~deb12u1"; rpm "version-release").
	Version  string
	Arch     string
	PURL     string
	Licenses []string
	// LicenseSource is the file the licences were read from; "" when the
	// metadata has none.
	LicenseSource string
	// Source is the package database (slash-separated, relative to the
	// root) and Line the line of the package's entry; 0 for rpm.
	Source string
	Line   int
}

// Distro is the distribution named by etc/os-release.
type Distro struct {
	ID        string
	VersionID string
}

// Qualifier is the purl distro qualifier, e.g. debian-12; "" when unknown.
func (d Distro) Qualifier() string {
	switch {
	case d.ID == "":
		return ""
	case d.VersionID == "":
		return d.ID
	}
	return d.ID + "-" + d.VersionID
}

// Bounds on what is read.
const (
	maxDBBytes      = 64 << 20 // a package database file
	maxMetaBytes    = 1 << 20  // os-release, one copyright file
	maxStatusDFiles = 20_000
	maxRPMHeaders   = 100_000
	maxRPMBytes     = 512 << 20
)

// Result is what Discover found.
type Result struct {
	Distro   Distro
	Packages []Package
	// Skipped says why a package database that exists was not read (an
	// unsupported format, a limit); the packages in it are missing.
	Skipped []string
}

// Discover reads every package database found under root. A database that
// cannot be read is skipped with its reason; only a cancelled ctx or an
// unreadable root is an error.
func Discover(ctx context.Context, root string) (Result, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	res := Result{Distro: readOSRelease(r)}
	for _, d := range []func(context.Context, *os.Root, string, *Result) error{discoverDpkg, discoverApk, discoverRPM} {
		if err := d(ctx, r, root, &res); err != nil {
			return Result{}, err
		}
	}
	slices.SortFunc(res.Packages, func(a, b Package) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.PURL, b.PURL)
	})
	return res, nil
}

// readFile reads rel under the root if it is a regular file of at most
// max bytes; a missing file is (nil, fs.ErrNotExist).
func readFile(r *os.Root, rel string, max int64) ([]byte, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New(rel + " is not a regular file")
	}
	if info.Size() > max {
		return nil, errors.New(rel + " is larger than the limit")
	}
	return io.ReadAll(io.LimitReader(f, max))
}

func exists(r *os.Root, rel string) bool {
	_, err := r.Lstat(rel)
	return err == nil
}

// readOSRelease reads etc/os-release, else usr/lib/os-release.
func readOSRelease(r *os.Root) Distro {
	for _, rel := range []string{"etc/os-release", "usr/lib/os-release"} {
		data, err := readFile(r, rel, maxMetaBytes)
		if err != nil {
			continue
		}
		var d Distro
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
			if !ok {
				continue
			}
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			switch k {
			case "ID":
				d.ID = strings.ToLower(v)
			case "VERSION_ID":
				d.VersionID = v
			}
		}
		if d.ID != "" {
			return d
		}
	}
	return Distro{}
}

// osPURL builds pkg:<typ>/<namespace>/<name>@<version>?<qualifiers>,
// spelled as Trivy spells OS packages' purls (purl.EscapeColon), so the
// two agree on the packages of an image.
func osPURL(typ, namespace, name, version string, qualifiers ...[2]string) string {
	return purl.Build(purl.EscapeColon, typ, []string{namespace}, name, version, qualifiers...)
}

// splitEpoch splits "1:2.3-4" into "1" and "2.3-4".
func splitEpoch(v string) (epoch, rest string) {
	if i := strings.IndexByte(v, ':'); i > 0 && strings.Trim(v[:i], "0123456789") == "" {
		return v[:i], v[i+1:]
	}
	return "", v
}

// stanzas splits an RFC 822-style database (dpkg status, apk installed)
// into paragraphs separated by blank lines, with the 1-based line each
// starts on.
func stanzas(data []byte, visit func(lines []string, line int) error) error {
	var cur []string
	start := 0
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) == "" {
			if len(cur) > 0 {
				if err := visit(cur, start); err != nil {
					return err
				}
			}
			cur = nil
			continue
		}
		if cur == nil {
			start = i + 1
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		return visit(cur, start)
	}
	return nil
}

// isNotExist reports a missing file, also when a link in the way points
// out of the root (which, for discovery, is as good as missing).
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "path escapes")
}

func cleanRel(p string) string { return strings.TrimPrefix(path.Clean("/"+p), "/") }

// Reads reports whether Discover reads the file at rel (slash-separated,
// relative to the root), or a link on the way to one: the release files,
// the package databases, and the Debian copyright files (each under a
// package's documentation folder, which may itself be a link). A folder
// on the way counts too: Discover follows a link there.
func Reads(rel string) bool {
	for _, p := range readPaths {
		if rel == p || strings.HasPrefix(p, rel+"/") || strings.HasPrefix(rel, p+"/") && p != "usr/share/doc" {
			return true
		}
	}
	doc, ok := strings.CutPrefix(rel, "usr/share/doc/")
	if !ok {
		return false
	}
	pkg, file, nested := strings.Cut(doc, "/")
	return pkg != "" && (!nested || file == "copyright")
}

// readPaths are what Discover reads: each file, or everything under each
// folder (but for usr/share/doc, of which Reads takes the copyright files).
var readPaths = []string{"etc/os-release", "usr/lib/os-release", apkInstalled, dpkgStatus, dpkgStatusD,
	"var/lib/rpm", "usr/lib/sysimage/rpm", "usr/share/rpm", "usr/share/doc"}
