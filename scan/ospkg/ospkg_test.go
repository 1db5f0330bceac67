package ospkg

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func discover(t *testing.T, root string) Result {
	t.Helper()
	res, err := Discover(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func purls(res Result) []string {
	var out []string
	for _, p := range res.Packages {
		out = append(out, p.PURL)
	}
	return out
}

const dpkgStatusFixture = `Package: openssl
Status: install ok installed
Priority: optional
Architecture: amd64
Multi-Arch: foreign
Version: 3.0.15-1~deb12u1
Description: Secure Sockets Layer toolkit
 This package contains the openssl binary.

Package: zlib1g
Status: install ok installed
Architecture: amd64
Source: zlib
Version: 1:1.2.13.dfsg-1
Description: compression library

Package: oldpkg
Status: deinstall ok config-files
Architecture: amd64
Version: 1.0-1

Package: libc6
Status: install ok installed
Architecture: i386
Version: 2.36-9+deb12u7
`

const dep5Fixture = `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: OpenSSL

Files: *
Copyright: 1998-2024 The OpenSSL Project
License: Apache-2.0

Files: debian/*
License: GPL-2+ or Artistic

License: Apache-2.0
 Licensed under the Apache License, Version 2.0
`

func TestDpkg(t *testing.T) {
	root := t.TempDir()
	write(t, root, "etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n")
	write(t, root, "var/lib/dpkg/status", dpkgStatusFixture)
	write(t, root, "usr/share/doc/openssl/copyright", dep5Fixture)
	write(t, root, "usr/share/doc/zlib1g/copyright", "This is a free-form copyright file.\nLicense: whatever\n")
	// distroless: one file per package, no Status field
	write(t, root, "var/lib/dpkg/status.d/tzdata", "Package: tzdata\nVersion: 2024a-0+deb12u1\nArchitecture: all\n")
	write(t, root, "var/lib/dpkg/status.d/tzdata.md5sums", "abc  usr/share/zoneinfo/UTC\n")
	res := discover(t, root)
	want := []string{
		"pkg:deb/debian/libc6@2.36-9%2Bdeb12u7?arch=i386&distro=debian-12",
		"pkg:deb/debian/openssl@3.0.15-1~deb12u1?arch=amd64&distro=debian-12",
		"pkg:deb/debian/tzdata@2024a-0%2Bdeb12u1?arch=all&distro=debian-12",
		"pkg:deb/debian/zlib1g@1.2.13.dfsg-1?arch=amd64&distro=debian-12&epoch=1",
	}
	if got := purls(res); !slices.Equal(got, want) {
		t.Fatalf("purls:\n got %q\nwant %q", got, want)
	}
	for _, p := range res.Packages {
		switch p.Name {
		case "openssl":
			if !slices.Equal(p.Licenses, []string{"Apache-2.0", "Artistic", "GPL-2.0-or-later"}) || p.LicenseSource != "usr/share/doc/openssl/copyright" {
				t.Errorf("openssl licences = %q from %q", p.Licenses, p.LicenseSource)
			}
			if p.Source != "var/lib/dpkg/status" || p.Line != 1 || p.Version != "3.0.15-1~deb12u1" {
				t.Errorf("openssl = %+v", p)
			}
		case "zlib1g":
			if len(p.Licenses) != 0 || p.Version != "1:1.2.13.dfsg-1" {
				t.Errorf("zlib1g (free-form copyright) = %+v", p)
			}
		}
	}
}

func TestApk(t *testing.T) {
	root := t.TempDir()
	write(t, root, "etc/os-release", "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.20.3\n")
	write(t, root, "lib/apk/db/installed", "C:Q1abc=\nP:musl\nV:1.2.5-r0\nA:x86_64\nL:MIT\no:musl\n\nC:Q1def=\nP:busybox\nV:1.36.1-r29\nA:x86_64\nL:GPL-2.0-only\n")
	res := discover(t, root)
	want := []string{
		"pkg:apk/alpine/busybox@1.36.1-r29?arch=x86_64&distro=alpine-3.20.3",
		"pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64&distro=alpine-3.20.3",
	}
	if got := purls(res); !slices.Equal(got, want) {
		t.Fatalf("purls:\n got %q\nwant %q", got, want)
	}
	if p := res.Packages[1]; !slices.Equal(p.Licenses, []string{"MIT"}) || p.Line != 1 {
		t.Errorf("musl = %+v", p)
	}
}

// A real rpmdb.sqlite, made by the rpm CLI from two packages rpmbuild
// builds here.
func TestRPMSQLite(t *testing.T) {
	for _, tool := range []string{"rpm", "rpmbuild"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (apt-get install rpm)", tool)
			}
			t.Skip(tool + " not installed")
		}
	}
	top := t.TempDir()
	specs := map[string]string{
		"hello": "Name: scand-hello\nVersion: 1.2.3\nRelease: 4.fc40\nEpoch: 2\nSummary: t\nLicense: MIT AND (Apache-2.0 OR GPL-2.0-or-later)\nBuildArch: x86_64\n%description\nt\n%files\n",
		"world": "Name: scand-world\nVersion: 0.9\nRelease: 1.fc40\nSummary: t\nLicense: BSD-3-Clause\nBuildArch: noarch\n%description\nt\n%files\n",
	}
	for name, spec := range specs {
		write(t, top, "SPECS/"+name+".spec", spec)
		out, err := exec.Command("rpmbuild", "--define", "_topdir "+top, "--define", "_build_id_links none", "-bb", filepath.Join(top, "SPECS", name+".spec")).CombinedOutput()
		if err != nil {
			t.Fatalf("rpmbuild: %v\n%s", err, out)
		}
	}
	root := t.TempDir()
	write(t, root, "etc/os-release", "NAME=\"Fedora Linux\"\nID=fedora\nVERSION_ID=40\n")
	rpms, _ := filepath.Glob(filepath.Join(top, "RPMS", "*", "*.rpm"))
	for _, args := range [][]string{{"--initdb"}, append([]string{"-i", "--nodeps", "--ignorearch", "--ignoreos", "--justdb"}, rpms...)} {
		cmd := exec.Command("rpm", append([]string{"--root", root, "--dbpath", "/var/lib/rpm", "--define", "_db_backend sqlite"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("rpm %v: %v\n%s", args, err, out)
		}
	}
	res := discover(t, root)
	want := []string{
		"pkg:rpm/fedora/scand-hello@1.2.3-4.fc40?arch=x86_64&distro=fedora-40&epoch=2",
		"pkg:rpm/fedora/scand-world@0.9-1.fc40?arch=noarch&distro=fedora-40",
	}
	if got := purls(res); !slices.Equal(got, want) {
		t.Fatalf("purls:\n got %q\nwant %q\nskipped %q", got, want, res.Skipped)
	}
	if p := res.Packages[0]; p.Version != "2:1.2.3-4.fc40" || !slices.Equal(p.Licenses, []string{"MIT AND (Apache-2.0 OR GPL-2.0-or-later)"}) {
		t.Errorf("scand-hello = %+v", p)
	}
}

func TestRPMBerkeleyDBIsSkippedClearly(t *testing.T) {
	root := t.TempDir()
	write(t, root, "var/lib/rpm/Packages", strings.Repeat("\x00", 64))
	res := discover(t, root)
	if len(res.Packages) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "Berkeley DB") {
		t.Fatalf("result = %+v", res)
	}
}

// Hostile headers fail cleanly: every offset is checked.
func TestRPMHeaderBounds(t *testing.T) {
	entry := func(tag, typ, off, count uint32) []byte {
		b := make([]byte, 16)
		binary.BigEndian.PutUint32(b[0:], tag)
		binary.BigEndian.PutUint32(b[4:], typ)
		binary.BigEndian.PutUint32(b[8:], off)
		binary.BigEndian.PutUint32(b[12:], count)
		return b
	}
	header := func(data []byte, entries ...[]byte) []byte {
		b := make([]byte, 8)
		binary.BigEndian.PutUint32(b[0:], uint32(len(entries)))
		binary.BigEndian.PutUint32(b[4:], uint32(len(data)))
		for _, e := range entries {
			b = append(b, e...)
		}
		return append(b, data...)
	}
	good := header([]byte("pkg\x001.0\x00"), entry(rpmTagName, rpmTypeString, 0, 1), entry(rpmTagVersion, rpmTypeString, 4, 1))
	if h, err := parseRPMHeader(good); err != nil || h.name != "pkg" || h.version != "1.0" {
		t.Fatalf("good header: %+v, %v", h, err)
	}
	for name, b := range map[string][]byte{
		"empty":              nil,
		"index past the end": header(nil, entry(rpmTagName, rpmTypeString, 0, 1))[:20],
		"offset past data":   header([]byte("x\x00"), entry(rpmTagName, rpmTypeString, 99, 1)),
		"unterminated":       header([]byte("pkg"), entry(rpmTagName, rpmTypeString, 0, 1)),
		"epoch past data":    header([]byte("pkg\x00"), entry(rpmTagName, rpmTypeString, 0, 1), entry(rpmTagEpoch, rpmTypeInt32, 2, 1)),
		"huge index":         {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0},
	} {
		if _, err := parseRPMHeader(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// A package database reached through a link that leaves the root is not
// read: the root is an image, the link's target the scanning host.
func TestLinksOutOfTheRootAreNotFollowed(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, "status", "Package: host-secret\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n")
	write(t, outside, "os-release", "ID=hostos\n")
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "var/lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "os-release"), filepath.Join(root, "etc/os-release")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "var/lib/dpkg")); err != nil {
		t.Fatal(err)
	}
	res := discover(t, root)
	if len(res.Packages) != 0 || res.Distro.ID != "" {
		t.Fatalf("read through a link out of the root: %+v", res)
	}
}
