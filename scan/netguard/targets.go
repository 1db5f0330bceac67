package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Allow is SVC_TARGET_ALLOW: the CIDR ranges, addresses and host names
// DAST and network scans may target. The zero Allow confines nothing
// beyond the always-blocked ranges.
type Allow struct {
	prefixes []netip.Prefix
	names    []string // lowercase; ".example.com" stands for *.example.com
}

// ParseAllow reads a comma-separated list of CIDR ranges, addresses and
// host names; "*.example.com" allows every name under example.com.
func ParseAllow(s string) (Allow, error) {
	var a Allow
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case strings.Contains(item, "/"):
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return Allow{}, fmt.Errorf("%q is not a CIDR range", item)
			}
			a.prefixes = append(a.prefixes, canonicalPrefix(p))
		default:
			if addr, err := netip.ParseAddr(item); err == nil {
				c := Canonical(addr)
				a.prefixes = append(a.prefixes, netip.PrefixFrom(c, c.BitLen()))
				continue
			}
			name := strings.ToLower(strings.TrimSuffix(item, "."))
			wild := strings.HasPrefix(name, "*.")
			if wild {
				name = name[1:]
			}
			if !validName(strings.TrimPrefix(name, ".")) {
				return Allow{}, fmt.Errorf("%q is neither a CIDR range, an address nor a host name", item)
			}
			a.names = append(a.names, name)
		}
	}
	return a, nil
}

func validName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// IsZero reports whether the list is empty: nothing beyond the always
// blocked ranges is refused.
func (a Allow) IsZero() bool { return len(a.prefixes) == 0 && len(a.names) == 0 }

// String is the list as an operator wrote it, canonicalized.
func (a Allow) String() string {
	var out []string
	for _, p := range a.prefixes {
		out = append(out, p.String())
	}
	for _, n := range a.names {
		if strings.HasPrefix(n, ".") {
			n = "*" + n
		}
		out = append(out, n)
	}
	return strings.Join(out, ",")
}

// AllowsName reports whether host is one of the listed names.
func (a Allow) AllowsName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, n := range a.names {
		if h == n || strings.HasPrefix(n, ".") && strings.HasSuffix(h, n) {
			return true
		}
	}
	return false
}

// AllowsAddr reports whether addr lies in a listed range.
func (a Allow) AllowsAddr(addr netip.Addr) bool {
	addr = Canonical(addr)
	for _, p := range a.prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// AllowsPrefix reports whether the whole range p lies in a listed range.
func (a Allow) AllowsPrefix(p netip.Prefix) bool {
	p = canonicalPrefix(p)
	for _, q := range a.prefixes {
		if q.Bits() <= p.Bits() && q.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

// RefusedError is the refusal of a scan target or a dialled address.
type RefusedError struct {
	Host   string     // the host as the target names it
	Addr   netip.Addr // the address refused; invalid when the name itself is
	Reason string
}

func (e *RefusedError) Error() string {
	if !e.Addr.IsValid() {
		return fmt.Sprintf("refused to scan %s: %s", e.Host, e.Reason)
	}
	if _, ok := ParseHost(e.Host); ok {
		if strings.Trim(e.Host, "[]") == e.Addr.String() {
			return fmt.Sprintf("refused to scan %s: %s", e.Host, e.Reason)
		}
		return fmt.Sprintf("refused to scan %s (%s): %s", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("refused to scan %s: it resolves to %s, %s", e.Host, e.Addr, e.Reason)
}

// Targets is the policy for DAST and network scan targets: always-blocked
// addresses and metadata names are refused, loopback and private networks
// are allowed, and a non-empty Allow confines targets to its ranges and
// names.
type Targets struct {
	Allow Allow
	// Lookup resolves a name; nil uses the system resolver. Tests use it
	// to make a name resolve to whatever the test needs.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// lookupTimeout bounds one name resolution.
const lookupTimeout = 10 * time.Second

const alwaysSuffix = "; scan targets may never reach it"

func (t Targets) checkAddr(host string, a netip.Addr, nameAllowed bool) error {
	if reason, blocked := AlwaysBlocked(a); blocked {
		return &RefusedError{Host: host, Addr: Canonical(a), Reason: reason + alwaysSuffix}
	}
	if !t.Allow.IsZero() && !nameAllowed && !t.Allow.AllowsAddr(a) {
		return &RefusedError{Host: host, Addr: Canonical(a), Reason: "outside SVC_TARGET_ALLOW (" + t.Allow.String() + ")"}
	}
	return nil
}

// CheckStatic checks a target host without resolving it: what the API can
// refuse at once. An address in any spelling is classified; a metadata
// service name is refused; with an allow list of names only, a name not
// on it is refused. Any other name is decided when the scan resolves it.
func (t Targets) CheckStatic(host string) error {
	if a, ok := ParseHost(host); ok {
		return t.checkAddr(host, a, false)
	}
	if MetadataName(host) {
		return &RefusedError{Host: host, Reason: "a cloud metadata service name" + alwaysSuffix}
	}
	if !t.Allow.IsZero() && len(t.Allow.prefixes) == 0 && !t.Allow.AllowsName(host) {
		return &RefusedError{Host: host, Reason: "outside SVC_TARGET_ALLOW (" + t.Allow.String() + ")"}
	}
	return nil
}

// CheckPrefix checks a CIDR network target: it may not overlap an
// always-blocked range and, with an allow list, must lie inside it.
func (t Targets) CheckPrefix(p netip.Prefix) error {
	if reason, blocked := PrefixBlocked(p); blocked {
		return &RefusedError{Host: p.String(), Reason: "it overlaps " + reason + alwaysSuffix}
	}
	if !t.Allow.IsZero() && !t.Allow.AllowsPrefix(p) {
		return &RefusedError{Host: p.String(), Reason: "outside SVC_TARGET_ALLOW (" + t.Allow.String() + ")"}
	}
	return nil
}

// Resolve returns the addresses a scan of host may connect to: host's own
// address in any spelling, or every address the name resolves to, each
// checked. A name with one refused address is refused whole: a name that
// answers with the metadata service among others is an attack.
func (t Targets) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	addrs, _, err := t.resolve(ctx, host)
	return addrs, err
}

func (t Targets) resolve(ctx context.Context, host string) ([]netip.Addr, bool, error) {
	if err := t.CheckStatic(host); err != nil {
		return nil, false, err
	}
	if a, ok := ParseHost(host); ok {
		return []netip.Addr{a.Unmap()}, false, nil
	}
	name := strings.TrimSuffix(host, ".")
	lookup := t.Lookup
	if lookup == nil {
		lookup = func(ctx context.Context, h string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", h)
		}
	}
	lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := lookup(lctx, name)
	if err != nil {
		return nil, false, fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, false, fmt.Errorf("cannot resolve %s: no addresses", host)
	}
	nameAllowed := t.Allow.AllowsName(name)
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if err := t.checkAddr(host, a, nameAllowed); err != nil {
			return nil, false, err
		}
		out = append(out, a.Unmap())
	}
	return out, nameAllowed, nil
}

// DialContext wraps d for an HTTP client or a TLS probe of a scan target:
// the host is resolved and checked here and the connection made to the
// checked address itself, so a name that resolves differently the second
// time (DNS rebinding) or a redirect to another host is checked on what
// is really dialled. d's Control, when the connection is made, refuses
// anything that is not the checked address's class all the same.
func (t Targets) DialContext(d *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		addrs, nameAllowed, err := t.resolve(ctx, host)
		if err != nil {
			return nil, err
		}
		guarded := *d
		inner := d.Control
		guarded.Control = func(network, dialled string, c syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(dialled)
			if err != nil {
				return fmt.Errorf("refused to connect to unparsable address %q", dialled)
			}
			if err := t.checkAddr(host, ap.Addr(), nameAllowed); err != nil {
				return err
			}
			if inner != nil {
				return inner(network, dialled, c)
			}
			return nil
		}
		var errs []error
		for _, a := range addrs {
			c, err := guarded.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return c, nil
			}
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
		}
		return nil, errors.Join(errs...)
	}
}
