package ospkg

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"scand/scan/spdx"
)

const (
	dpkgStatus  = "var/lib/dpkg/status"
	dpkgStatusD = "var/lib/dpkg/status.d"
)

// discoverDpkg reads dpkg's status file (installed packages only) and the
// status.d directory distroless images use instead (one file per package,
// no Status field).
func discoverDpkg(ctx context.Context, r *os.Root, _ string, res *Result) error {
	if data, err := readFile(r, dpkgStatus, maxDBBytes); err == nil {
		parseDpkg(r, data, dpkgStatus, true, res)
	} else if !isNotExist(err) {
		res.Skipped = append(res.Skipped, fmt.Sprintf("%s: not read: %v", dpkgStatus, err))
	}
	dir, err := r.Open(dpkgStatusD)
	if err != nil {
		return nil
	}
	names, err := dir.Readdirnames(maxStatusDFiles + 1)
	dir.Close()
	if err != nil && len(names) == 0 {
		return nil
	}
	if len(names) > maxStatusDFiles {
		res.Skipped = append(res.Skipped, fmt.Sprintf("%s: more than %d files; not read", dpkgStatusD, maxStatusDFiles))
		return nil
	}
	sort.Strings(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.HasSuffix(n, ".md5sums") || strings.HasPrefix(n, ".") {
			continue
		}
		rel := dpkgStatusD + "/" + n
		data, err := readFile(r, rel, maxMetaBytes)
		if err != nil {
			continue
		}
		parseDpkg(r, data, rel, false, res)
	}
	return ctx.Err()
}

func parseDpkg(r *os.Root, data []byte, rel string, needStatus bool, res *Result) {
	ns := res.Distro.ID
	if ns == "" {
		ns = "debian"
	}
	licenses := map[string][]string{}
	_ = stanzas(data, func(lines []string, line int) error {
		f := fields(lines)
		name, version := f["package"], f["version"]
		if name == "" || version == "" {
			return nil
		}
		if needStatus {
			if st := strings.Fields(f["status"]); len(st) != 3 || st[2] != "installed" {
				return nil
			}
		}
		arch := f["architecture"]
		epoch, v := splitEpoch(version)
		p := Package{Type: "deb", Name: name, Version: version, Arch: arch, Source: rel, Line: line,
			PURL: osPURL("deb", ns, name, v, [2]string{"arch", arch}, [2]string{"distro", res.Distro.Qualifier()}, [2]string{"epoch", epoch})}
		copyright := "usr/share/doc/" + name + "/copyright"
		ls, seen := licenses[copyright]
		if !seen {
			ls = dpkgCopyrightLicenses(r, copyright)
			licenses[copyright] = ls
		}
		if len(ls) > 0 {
			p.Licenses, p.LicenseSource = ls, copyright
		}
		res.Packages = append(res.Packages, p)
		return nil
	})
}

// fields reads "Key: value" lines (continuation lines, which start with
// a space, are ignored); keys are lower-cased.
func fields(lines []string) map[string]string {
	out := map[string]string{}
	for _, l := range lines {
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if _, dup := out[k]; !dup {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// maxLicensesPerPackage bounds what one copyright file contributes.
const maxLicensesPerPackage = 64

// dpkgCopyrightLicenses reads the licences of a machine-readable Debian
// copyright file (DEP-5: a Format line naming copyright-format, then
// paragraphs with License fields), each short name mapped to its SPDX id
// where one fits ("GPL-2+" is GPL-2.0-or-later, "Expat" MIT). A
// free-form copyright file names no licence reliably: none is returned.
func dpkgCopyrightLicenses(r *os.Root, rel string) []string {
	data, err := readFile(r, rel, maxMetaBytes)
	if err != nil {
		return nil
	}
	text := string(data)
	first, _, _ := strings.Cut(text, "\n")
	if k, v, _ := strings.Cut(first, ":"); !strings.HasPrefix(strings.ToLower(k), "format") || !strings.Contains(v, "copyright-format") {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(k, "License") {
			continue
		}
		for _, alt := range splitLicenseExpr(strings.TrimSpace(v)) {
			id := spdx.Normalize(alt)
			if id == "" || seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, id)
			if len(out) == maxLicensesPerPackage {
				return out
			}
		}
	}
	sort.Strings(out)
	return out
}

// splitLicenseExpr splits a DEP-5 licence expression ("GPL-2+ or
// Artistic", "LGPL-2.1+ and BSD-3-clause") into its short names; every
// licence that applies to some file of the package is listed, as the
// copyright file does.
func splitLicenseExpr(s string) []string {
	s = strings.NewReplacer(",", " ", "(", " ", ")", " ").Replace(s)
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, w := range strings.Fields(s) {
		switch strings.ToLower(w) {
		case "or", "and":
			flush()
		default:
			cur = append(cur, w)
		}
	}
	flush()
	return out
}
