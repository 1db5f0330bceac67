package vex

import (
	"errors"
	"net/url"
	"strings"

	"scand/finding"
)

// PURL is a parsed package URL, enough of it to match a finding:
// qualifiers are kept only for an epoch, which is part of a Debian or RPM
// version.
type PURL struct {
	Type, Namespace, Name, Version string
}

// ErrNotPURL means a string is not a package URL.
var ErrNotPURL = errors.New("not a package URL (pkg:type/name@version)")

// ParsePURL reads pkg:type/namespace/name@version?qualifiers#subpath.
// Percent-encoded parts are decoded, so pkg:npm/%40a/b and pkg:npm/@a/b
// are the same package.
func ParsePURL(s string) (PURL, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "pkg:")
	if !ok {
		return PURL{}, ErrNotPURL
	}
	rest = strings.TrimLeft(rest, "/")
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	var quals string
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, quals = rest[:i], rest[i+1:]
	}
	var p PURL
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 {
		return PURL{}, ErrNotPURL
	}
	p.Type, rest = strings.ToLower(rest[:slash]), rest[slash+1:]
	if at := strings.LastIndexByte(rest, '@'); at > strings.LastIndexByte(rest, '/') && at >= 0 {
		v, err := url.PathUnescape(rest[at+1:])
		if err != nil {
			return PURL{}, ErrNotPURL
		}
		p.Version, rest = v, rest[:at]
	}
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	for i, seg := range segs {
		d, err := url.PathUnescape(seg)
		if err != nil || d == "" {
			return PURL{}, ErrNotPURL
		}
		segs[i] = d
	}
	p.Name = segs[len(segs)-1]
	p.Namespace = strings.Join(segs[:len(segs)-1], "/")
	for _, q := range strings.Split(quals, "&") {
		if k, v, ok := strings.Cut(q, "="); ok && strings.EqualFold(k, "epoch") && v != "" && v != "0" && p.Version != "" {
			p.Version = v + ":" + p.Version
		}
	}
	return p, nil
}

// Key is the package a purl names, without version and qualifiers, in
// the form findings are matched on: type/namespace/name, lower-cased,
// Python names normalized as PyPI does.
func (p PURL) Key() string {
	return packageKey(p.Type, p.Namespace, p.Name)
}

func packageKey(typ, ns, name string) string {
	path := name
	if ns != "" {
		path = ns + "/" + name
	}
	path = strings.ToLower(path)
	if typ == "pypi" {
		path = strings.NewReplacer("_", "-", ".", "-").Replace(path)
	}
	return typ + "/" + path
}

// NormalizeVersion is a version as matching compares it (Go's "v"
// prefix dropped, so v1.2.3 and 1.2.3 are one version).
func NormalizeVersion(v string) string { return strings.TrimPrefix(strings.TrimSpace(v), "v") }

// ecosystemPURL maps the ecosystem names scanners write (OSV's and
// Trivy's) to a purl type and, for OS packages, its namespace.
var ecosystemPURL = map[string][2]string{
	"npm": {"npm"}, "yarn": {"npm"}, "pnpm": {"npm"}, "bun": {"npm"}, "node-pkg": {"npm"},
	"go": {"golang"}, "gomod": {"golang"}, "gobinary": {"golang"}, "golang": {"golang"},
	"pypi": {"pypi"}, "pip": {"pypi"}, "pipenv": {"pypi"}, "poetry": {"pypi"}, "uv": {"pypi"}, "python-pkg": {"pypi"},
	"crates.io": {"cargo"}, "cargo": {"cargo"}, "rust-binary": {"cargo"},
	"maven": {"maven"}, "jar": {"maven"}, "pom": {"maven"}, "gradle": {"maven"}, "sbt": {"maven"},
	"rubygems": {"gem"}, "bundler": {"gem"}, "gemspec": {"gem"},
	"packagist": {"composer"}, "composer": {"composer"}, "composer-vendor": {"composer"},
	"nuget": {"nuget"}, "dotnet-core": {"nuget"}, "packages-props": {"nuget"},
	"pub": {"pub"}, "hex": {"hex"}, "mix": {"hex"}, "swift": {"swift"}, "cocoapods": {"cocoapods"}, "conan": {"conan"},
	"debian": {"deb", "debian"}, "ubuntu": {"deb", "ubuntu"}, "alpine": {"apk", "alpine"}, "wolfi": {"apk", "wolfi"},
	"redhat": {"rpm", "redhat"}, "centos": {"rpm", "centos"}, "rocky": {"rpm", "rocky"}, "alma": {"rpm", "alma"},
	"fedora": {"rpm", "fedora"}, "amazon": {"rpm", "amazon"}, "oracle": {"rpm", "oracle"}, "opensuse": {"rpm", "opensuse"},
}

// packageOf reads a dependency finding's purl type, namespace, name and
// version from its metadata; ok is false when the ecosystem is unknown.
func packageOf(f finding.Finding) (typ, ns, name, version string, ok bool) {
	name, _ = f.Metadata[finding.MetaPackage].(string)
	version, _ = f.Metadata[finding.MetaVersion].(string)
	eco, _ := f.Metadata["ecosystem"].(string)
	eco = strings.ToLower(strings.TrimSpace(eco))
	if i := strings.IndexByte(eco, ':'); i > 0 {
		eco = eco[:i] // OSV's "Debian:12"
	}
	m, known := ecosystemPURL[eco]
	if name == "" || !known {
		return "generic", "", name, version, false
	}
	typ, ns = m[0], m[1]
	switch typ {
	case "maven":
		if g, a, ok := strings.Cut(name, ":"); ok {
			return typ, g, a, version, true
		}
	case "npm", "golang", "composer":
		if i := strings.LastIndexByte(name, '/'); i > 0 {
			return typ, name[:i], name[i+1:], version, true
		}
	}
	return typ, ns, name, version, true
}

// PURLOf is the package URL of a dependency finding, built from the
// package, version and ecosystem its scanner reported (pkg:generic/ when
// the ecosystem is not one scand knows; "" for a finding without a
// package).
func PURLOf(f finding.Finding) string {
	typ, ns, name, version, _ := packageOf(f)
	if name == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("pkg:" + typ + "/")
	if ns != "" {
		for _, seg := range strings.Split(ns, "/") {
			b.WriteString(escape(seg) + "/")
		}
	}
	b.WriteString(escape(name))
	if version != "" {
		b.WriteString("@" + escape(version))
	}
	return b.String()
}

// FindingKey is the package key and normalized version a finding is
// matched on; ok is false for a finding that names no package.
func FindingKey(f finding.Finding) (key, version string, ok bool) {
	typ, ns, name, v, known := packageOf(f)
	if name == "" || !known {
		return "", "", false
	}
	return packageKey(typ, ns, name), NormalizeVersion(v), true
}

// escape percent-encodes all but the purl spec's unreserved characters
// and ':'.
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~:", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
