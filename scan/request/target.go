package request

import (
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"scand/scan/netguard"
)

// DefaultMaxHosts bounds a network target's CIDR size (SVC_NMAP_MAX_HOSTS).
const DefaultMaxHosts = 256

// ValidateTargetURL accepts only absolute http(s) URLs with a host and
// returns the parsed URL: the value ends up in a subprocess argument list
// and in outbound requests. The API and the DAST scanners share it.
func ValidateTargetURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("URL is empty")
	}
	if strings.HasPrefix(raw, "-") {
		return nil, errors.New("URL must not start with '-'")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("scheme must be http or https")
	}
	if u.Hostname() == "" || strings.HasPrefix(u.Host, "-") {
		return nil, errors.New("URL must include a valid host")
	}
	return u, nil
}

// ValidateTargetHost accepts a hostname, an IP address, or a CIDR range of
// at most maxHosts addresses. A leading '-' is refused so the value can
// never be read as an option by the port scanner.
func ValidateTargetHost(h string, maxHosts int) error {
	if h == "" {
		return errors.New("host must not be empty")
	}
	if strings.HasPrefix(h, "-") {
		return errors.New("host must not start with '-'")
	}
	if maxHosts <= 0 {
		maxHosts = DefaultMaxHosts
	}
	if strings.Contains(h, "/") {
		_, n, err := net.ParseCIDR(h)
		if err != nil {
			return fmt.Errorf("not a valid CIDR range: %v", err)
		}
		ones, bits := n.Mask.Size()
		size := new(big.Int).Lsh(big.NewInt(1), uint(bits-ones))
		if size.Cmp(big.NewInt(int64(maxHosts))) > 0 {
			return fmt.Errorf("CIDR range %s holds %s addresses, more than the limit of %d", h, size, maxHosts)
		}
		return nil
	}
	if net.ParseIP(h) != nil {
		return nil
	}
	if len(h) > 253 {
		return errors.New("hostname longer than 253 characters")
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return fmt.Errorf("invalid hostname label %q", label)
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("invalid character %q in hostname", c)
			}
		}
	}
	return nil
}

// CheckTargetHost applies the target policy to a valid network target
// without resolving names: a CIDR range may not overlap the always-blocked
// ranges and must lie in SVC_TARGET_ALLOW; an address (in any spelling) or
// a name is checked as netguard.Targets.CheckStatic does. The scanner
// resolves and checks names again before handing them to nmap.
func CheckTargetHost(t netguard.Targets, host string) error {
	if strings.Contains(host, "/") {
		p, err := netip.ParsePrefix(host)
		if err != nil {
			return fmt.Errorf("not a valid CIDR range: %v", err)
		}
		return t.CheckPrefix(p)
	}
	return t.CheckStatic(host)
}
