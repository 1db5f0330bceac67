package hook

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"scand/scan/netguard"
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

// Check returns a *BlockedAddressError when addr may not be dialled. The
// classification is netguard's, the one scan targets use too.
func (p AddressPolicy) Check(addr netip.Addr) error {
	canon := netguard.Canonical(addr)
	if reason, blocked := netguard.AlwaysBlocked(addr); blocked {
		return &BlockedAddressError{Addr: canon, Reason: reason + "; webhook receivers may never use it"}
	}
	if p.AllowPrivate {
		return nil
	}
	if reason, private := netguard.Private(addr); private {
		return &BlockedAddressError{Addr: canon, Reason: reason + " while SVC_WEBHOOK_ALLOW_PRIVATE=0"}
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
