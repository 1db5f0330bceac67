// Package purl writes package URLs (pkg:type/namespace/name@version?
// qualifiers): the one writer behind the purls of lockfile components
// (scan/components) and of installed OS packages (scan/ospkg). Each
// caller brings its own percent-encoding (Escape is the purl spec's),
// since OS packages' purls are spelled the way Trivy spells them.
package purl

import (
	"slices"
	"strings"
)

// Build writes pkg:typ/ns1/ns2/name@version?k1=v1&k2=v2. Every namespace
// segment, the name, the version and every qualifier value goes through
// escape; empty namespace segments and qualifiers with an empty value are
// left out, qualifiers are sorted by key, and an empty version leaves the
// @version part out rather than inventing one. Types and qualifier keys
// are the caller's constants and are written as they are.
func Build(escape func(string) string, typ string, namespace []string, name, version string, qualifiers ...[2]string) string {
	var b strings.Builder
	b.WriteString("pkg:" + typ + "/")
	for _, seg := range namespace {
		if seg != "" {
			b.WriteString(escape(seg) + "/")
		}
	}
	b.WriteString(escape(name))
	if version != "" {
		b.WriteString("@" + escape(version))
	}
	var qs [][2]string
	for _, q := range qualifiers {
		if q[1] != "" {
			qs = append(qs, q)
		}
	}
	slices.SortFunc(qs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for i, q := range qs {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(q[0] + "=" + escape(q[1]))
	}
	return b.String()
}

// Escape percent-encodes everything but the purl spec's unreserved
// characters and ':' (which the spec says stays as is).
func Escape(s string) string { return escapeExcept(s, "-._~:") }

// EscapeColon is Escape with ':' encoded too (%3A), as Trivy writes the
// purls of OS packages; scan/ospkg's purls match Trivy's that way.
func EscapeColon(s string) string { return escapeExcept(s, "-._~") }

// escapeExcept percent-encodes every byte but ASCII letters, digits and
// the bytes of keep.
func escapeExcept(s, keep string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
