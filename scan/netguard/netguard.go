// Package netguard is the one classification of outbound addresses that
// webhook deliveries (hook) and scan targets (scan, its DAST and network
// scanners) share: which addresses are never dialled, in whatever spelling
// they arrive, which are private, and the optional SVC_TARGET_ALLOW list
// that confines scan targets further. It imports nothing of scand's, so
// hook and scan both use it without importing each other.
package netguard

import (
	"net/netip"
	"strconv"
	"strings"
)

// blockedRange is a range of addresses and what it is, said as the
// reason a connection to it is refused.
type blockedRange struct {
	prefix netip.Prefix
	reason string
}

// rangeList is a classification: the ranges of one kind of address.
type rangeList []blockedRange

// containing says which range of l holds a, compared in its Canonical
// form, or ok=false.
func (l rangeList) containing(a netip.Addr) (reason string, ok bool) {
	a = Canonical(a)
	for _, r := range l {
		if r.prefix.Contains(a) {
			return r.reason, true
		}
	}
	return "", false
}

// alwaysBlocked: link-local ranges hold the cloud metadata services, whose
// credentials are the classic SSRF prize, and the unspecified, multicast
// and broadcast ranges are not unicast hosts at all (0.0.0.0 even reaches
// the local machine on Linux). Read-only.
var alwaysBlocked = rangeList{
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (cloud metadata services live here)"},
	{netip.MustParsePrefix("fe80::/10"), "an IPv6 link-local address"},
	{netip.MustParsePrefix("100.100.100.200/32"), "a cloud metadata service address"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), "a cloud metadata service address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified address"},
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
}

// privateRanges are loopback and private networks: refused for webhooks
// when SVC_WEBHOOK_ALLOW_PRIVATE=0, always allowed as scan targets
// (scanning internal applications is what an internal scanner is for).
// Read-only.
var privateRanges = rangeList{
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique local address"},
}

// Prefixes that carry an IPv4 address in their last 32 bits: IPv4-mapped,
// NAT64 (a NAT64 gateway forwards 64:ff9b::a9fe:a9fe to 169.254.169.254)
// and the deprecated IPv4-compatible form.
var (
	mapped   = netip.MustParsePrefix("::ffff:0:0/96")
	nat64    = netip.MustParsePrefix("64:ff9b::/96")
	v4compat = netip.MustParsePrefix("::/96")
)

// Canonical is the address a connection to a really reaches, for
// classification: the zone dropped and an IPv4 address embedded in an
// IPv4-mapped, NAT64 or IPv4-compatible IPv6 address taken out.
func Canonical(a netip.Addr) netip.Addr {
	a = a.WithZone("")
	if a.Is4In6() {
		return a.Unmap()
	}
	if a.Is6() && (nat64.Contains(a) || v4compat.Contains(a) && a.Compare(netip.MustParseAddr("::1")) > 0) {
		b := a.As16()
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return a
}

// AlwaysBlocked says why a may never be dialled (link-local, metadata,
// unspecified, multicast, broadcast), or ok=false.
func AlwaysBlocked(a netip.Addr) (reason string, blocked bool) {
	return alwaysBlocked.containing(a)
}

// Private says which private or loopback range a lies in, or ok=false.
func Private(a netip.Addr) (reason string, private bool) {
	return privateRanges.containing(a)
}

// PrefixBlocked says why a range may not be targeted: it overlaps an
// always-blocked range (a network scan of 169.254.0.0/24 reaches the
// metadata service like a scan of its address would).
func PrefixBlocked(p netip.Prefix) (reason string, blocked bool) {
	p = canonicalPrefix(p)
	if p.Addr().Is6() {
		for _, e := range []netip.Prefix{mapped, nat64, v4compat} {
			if p.Overlaps(e) && p.Bits() < e.Bits() {
				return "a range holding every IPv4 address in " + e.String() + " form, the metadata services' among them", true
			}
		}
	}
	for _, r := range alwaysBlocked {
		if r.prefix.Overlaps(p) {
			return r.reason, true
		}
	}
	return "", false
}

// canonicalPrefix turns an IPv6 range that lies inside one of the IPv4
// embedding prefixes into the IPv4 range it stands for; a wider range
// that contains a whole embedding prefix is left as is (PrefixBlocked
// refuses it).
func canonicalPrefix(p netip.Prefix) netip.Prefix {
	p = p.Masked()
	if !p.Addr().Is6() || p.Bits() < 96 {
		return p
	}
	for _, e := range []netip.Prefix{mapped, nat64, v4compat} {
		if e.Contains(p.Addr()) && (e != v4compat || p.Bits() > 96) {
			b := p.Addr().As16()
			return netip.PrefixFrom(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), p.Bits()-96).Masked()
		}
	}
	return p
}

// ParseHost reads host as an address the way a C resolver, nmap or curl
// would: an IPv4 or IPv6 literal (brackets, a zone and one trailing dot
// allowed), or one of the inet_aton spellings of IPv4 (0xa9fea9fe,
// 2852039166, 0251.0376.0251.0376, 169.254.43518). ok is false for a
// name.
func ParseHost(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true
	}
	return parseInetAton(h)
}

// parseInetAton parses 1 to 4 dot-separated numbers, each decimal, octal
// (leading 0) or hexadecimal (0x); the last fills the remaining bytes.
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0" // "0x" alone is 0 to inet_aton
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" || strings.ContainsAny(digits, "+-_") {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// metadataNames are the host names of cloud metadata services. They
// resolve to always-blocked addresses where they exist; naming them lets
// a request be refused before any lookup, and on hosts where a resolver
// would answer them differently. Read-only.
var metadataNames = []string{
	"metadata.google.internal", "metadata.goog", "metadata",
	"instance-data", "instance-data.ec2.internal",
}

// MetadataName reports whether host names a cloud metadata service.
func MetadataName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, n := range metadataNames {
		if h == n {
			return true
		}
	}
	return false
}
