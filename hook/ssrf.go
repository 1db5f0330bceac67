package hook

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// AddressPolicy decides which addresses a webhook may connect to. It runs
// inside net.Dialer.Control, on the address actually being dialled after
// DNS resolution, so a name that resolves to a safe address when the
// subscription is saved and to the metadata service at delivery time
// (DNS rebinding) is still refused.
type AddressPolicy struct {
	// AllowPrivate permits loopback and private ranges (SVC_WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
}

// BlockedAddressError is the refusal of one dialled address.
type BlockedAddressError struct {
	Addr   netip.Addr
	Reason string
}

func (e *BlockedAddressError) Error() string {
	return fmt.Sprintf("refused to connect to %s: %s", e.Addr, e.Reason)
}

// alwaysBlocked are never a webhook receiver: link-local ranges hold the
// cloud metadata services, whose credentials are the classic SSRF prize,
// and the unspecified/multicast ranges are not unicast hosts at all
// (0.0.0.0 even reaches the local machine on Linux).
var alwaysBlocked = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local address (cloud metadata services live here)"},
	{netip.MustParsePrefix("fe80::/10"), "IPv6 link-local address"},
	{netip.MustParsePrefix("100.100.100.200/32"), "cloud metadata service address"},
	{netip.MustParsePrefix("fd00:ec2::254/128"), "cloud metadata service address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified address"},
	{netip.MustParsePrefix("::/128"), "unspecified address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast address"},
	{netip.MustParsePrefix("ff00::/8"), "multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast address"},
}

// privateRanges are refused only when AllowPrivate is off.
var privateRanges = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback address"},
	{netip.MustParsePrefix("::1/128"), "loopback address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private address"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("fc00::/7"), "unique local address"},
}

// nat64 embeds an IPv4 address in its last 32 bits; a NAT64 gateway
// would forward 64:ff9b::a9fe:a9fe to 169.254.169.254.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Check returns a *BlockedAddressError when addr may not be dialled.
func (p AddressPolicy) Check(addr netip.Addr) error {
	addr = addr.Unmap().WithZone("")
	if nat64.Contains(addr) {
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, r := range alwaysBlocked {
		if r.prefix.Contains(addr) {
			return &BlockedAddressError{Addr: addr, Reason: r.reason + "; webhook receivers may never use it"}
		}
	}
	if p.AllowPrivate {
		return nil
	}
	for _, r := range privateRanges {
		if r.prefix.Contains(addr) {
			return &BlockedAddressError{Addr: addr, Reason: r.reason + " while SVC_WEBHOOK_ALLOW_PRIVATE=0"}
		}
	}
	return nil
}

// control is a net.Dialer.Control: it sees "ip:port" after resolution,
// for every address the dialer tries.
func (p AddressPolicy) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		host, _, splitErr := net.SplitHostPort(address)
		if splitErr != nil {
			return fmt.Errorf("refused to connect to unparsable address %q", address)
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("refused to connect to unparsable address %q", address)
		}
		return p.Check(a)
	}
	return p.Check(ap.Addr())
}
