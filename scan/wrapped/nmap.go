package wrapped

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"scand/finding"
	"scand/scan"
	"scand/scan/netguard"
	"scand/scan/request"
)

var nmapPortsRe = regexp.MustCompile(`^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$`)

// nmapTarget accepts a host, an address or a CIDR range of at most
// SVC_NMAP_MAX_HOSTS addresses, and a valid SVC_NMAP_PORTS, before the
// tool is even probed: both are the operator's to fix. nmap runs wherever
// scand runs; it reads no files. The target policy (netguard.Targets) is
// applied here, before nmap sees the host: a range may not overlap the
// metadata and other always-blocked ranges, and a name or an address in
// any spelling is resolved and checked, then nmap gets the checked
// address itself, so it cannot resolve the name to something else.
func nmapTarget(ctx context.Context, c *call, t scan.Target) error {
	// Unset or unparsable means the seam's default, one /24.
	maxHosts, _ := strconv.Atoi(strings.TrimSpace(c.cfg.Env("SVC_NMAP_MAX_HOSTS")))
	if err := request.ValidateTargetHost(t.Host, maxHosts); err != nil {
		return err
	}
	if strings.Contains(t.Host, "/") {
		if err := request.CheckTargetHost(c.cfg.Targets, t.Host); err != nil {
			return err
		}
		c.host = t.Host
	} else {
		addrs, err := c.cfg.Targets.Resolve(ctx, t.Host)
		if err != nil {
			return err
		}
		c.host = nmapPick(addrs).String()
		if _, isAddr := netguard.ParseHost(t.Host); !isAddr {
			c.hostName = t.Host
		}
	}
	_, err := nmapArgs(c.host, c.cfg.Env("SVC_NMAP_PORTS"))
	return err
}

// nmapPick is the address nmap scans for a name: the first IPv4 one, as
// nmap itself would pick without -6, else the first.
func nmapPick(addrs []netip.Addr) netip.Addr {
	for _, a := range addrs {
		if a.Is4() {
			return a
		}
	}
	return addrs[0]
}

// nmapParseCall parses a run's report and puts back the name the scan
// targeted, which nmap never saw (it was given the checked address).
func nmapParseCall(c *call, out []byte) ([]finding.Finding, error) {
	fs, err := nmapParse(out)
	if err != nil || c.hostName == "" {
		return fs, err
	}
	for i := range fs {
		if _, ok := fs[i].Metadata["hostname"]; !ok {
			fs[i].Metadata["hostname"] = c.hostName
		}
	}
	return fs, nil
}

// nmapArgs builds the argument list; the host was validated before.
func nmapArgs(host, ports string) ([]string, error) {
	args := []string{"-sT", "-sV", "-n", "--open", "-oX", "-"}
	if strings.Contains(host, ":") {
		args = append(args, "-6") // nmap scans IPv6 only when told
	}
	if !strings.Contains(host, "/") {
		args = append(args, "-Pn")
	}
	if ports = strings.TrimSpace(ports); ports != "" {
		if !nmapPortsRe.MatchString(ports) {
			return nil, fmt.Errorf("SVC_NMAP_PORTS=%q is not a port list like 22,80,8000-8100", ports)
		}
		args = append(args, "-p", ports)
	}
	return append(args, host), nil
}

type nmapRun struct {
	Hosts []struct {
		Addresses []struct {
			Addr     string `xml:"addr,attr"`
			AddrType string `xml:"addrtype,attr"`
		} `xml:"address"`
		Hostnames []struct {
			Name string `xml:"name,attr"`
		} `xml:"hostnames>hostname"`
		Ports []struct {
			Protocol string `xml:"protocol,attr"`
			PortID   int    `xml:"portid,attr"`
			State    struct {
				State string `xml:"state,attr"`
			} `xml:"state"`
			Service struct {
				Name      string   `xml:"name,attr"`
				Product   string   `xml:"product,attr"`
				Version   string   `xml:"version,attr"`
				ExtraInfo string   `xml:"extrainfo,attr"`
				Tunnel    string   `xml:"tunnel,attr"`
				CPE       []string `xml:"cpe"`
			} `xml:"service"`
		} `xml:"ports>port"`
	} `xml:"host"`
	RunStats struct {
		Finished struct {
			Exit     string `xml:"exit,attr"`
			ErrorMsg string `xml:"errormsg,attr"`
		} `xml:"finished"`
	} `xml:"runstats"`
}

// nmapParse turns nmap's XML report into one finding per open port.
func nmapParse(out []byte) ([]finding.Finding, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, fmt.Errorf("nmap printed no report")
	}
	var run nmapRun
	if err := xml.Unmarshal(out, &run); err != nil {
		return nil, fmt.Errorf("nmap report is not valid XML: %w", err)
	}
	if run.RunStats.Finished.Exit == "error" {
		return nil, fmt.Errorf("nmap: %s", stderrHead([]byte(run.RunStats.Finished.ErrorMsg)))
	}
	var fs []finding.Finding
	for _, h := range run.Hosts {
		addr := ""
		for _, a := range h.Addresses {
			if a.AddrType == "ipv4" || a.AddrType == "ipv6" {
				addr = a.Addr
				break
			}
		}
		if addr == "" {
			continue
		}
		hostname := ""
		if len(h.Hostnames) > 0 {
			hostname = h.Hostnames[0].Name
		}
		for _, p := range h.Ports {
			if p.State.State != "open" || p.PortID <= 0 || p.PortID > 65535 {
				continue
			}
			proto := p.Protocol
			if proto == "" {
				proto = "tcp"
			}
			svc := strings.ToLower(p.Service.Name)
			if svc == "" {
				svc = "unknown"
			}
			class := nmapExposure(svc)
			product := strings.TrimSpace(strings.Join(nmapNonEmpty(p.Service.Product, p.Service.Version), " "))
			where := net.JoinHostPort(addr, strconv.Itoa(p.PortID)) + "/" + proto
			title := fmt.Sprintf("Open port %d/%s: %s", p.PortID, proto, svc)
			if product != "" {
				title += " (" + product + ")"
			}
			desc := fmt.Sprintf("%s exposes %s on %d/%s", addr, svc, p.PortID, proto)
			if product != "" {
				desc += " (" + product + ")"
			}
			desc += ". " + class.why
			if p.Service.Tunnel != "" {
				desc += fmt.Sprintf(" The service runs inside %s.", p.Service.Tunnel)
			}
			meta := map[string]any{
				"host":     addr,
				"port":     p.PortID,
				"protocol": proto,
				"service":  svc,
				"product":  p.Service.Product,
				"version":  p.Service.Version,
			}
			if hostname != "" {
				meta["hostname"] = hostname
			}
			if p.Service.ExtraInfo != "" {
				meta["extrainfo"] = p.Service.ExtraInfo
			}
			if len(p.Service.CPE) > 0 {
				meta["cpe"] = p.Service.CPE
			}
			fs = append(fs, finding.Finding{
				Scanner:     "nmap",
				ScanType:    scan.TypeNetwork,
				Severity:    class.sev,
				Title:       title,
				Description: desc,
				FilePath:    where,
				RuleID:      "open-port/" + svc,
				CWE:         class.cwe,
				Snippet:     strings.TrimSpace(proto + "/" + strconv.Itoa(p.PortID) + " " + svc + " " + product),
				Metadata:    meta,
			})
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].FilePath < fs[j].FilePath })
	return fs, nil
}

func nmapNonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

type nmapClass struct {
	sev finding.Severity
	cwe finding.CWE
	why string
}

const (
	nmapWhyCleartext = "It carries logins and data in cleartext; anyone on the path can read the credentials. Disable it or replace it with an encrypted protocol, and restrict who can reach it."
	nmapWhyDatabase  = "A database or cache reachable over the network invites credential brute force and exploits of the server. Bind it to the hosts that need it or put it behind a firewall."
	nmapWhySharing   = "File sharing and remote desktop services are favourite targets of worms and brute force. Do not expose them beyond the networks that need them."
	nmapWhyAdmin     = "A remote administration or infrastructure service: keep it patched, require strong authentication and restrict who can reach it."
	nmapWhyUnknown   = "nmap could not identify this service; confirm it is meant to be reachable."
	nmapWhyWeb       = "A web service; the dast scanners test what it serves."
)

// nmapExposure classifies a service by nmap's service name.
func nmapExposure(svc string) nmapClass {
	switch svc {
	case "telnet", "ftp", "tftp", "login", "shell", "exec", "rlogin", "rsh", "rexec", "vnc", "x11":
		return nmapClass{finding.High, "CWE-319", nmapWhyCleartext}
	case "mysql", "postgresql", "ms-sql-s", "ms-sql-m", "oracle", "oracle-tns", "mongodb", "mongod",
		"redis", "memcache", "memcached", "couchdb", "cassandra", "elasticsearch", "docker", "zookeeper":
		return nmapClass{finding.High, "", nmapWhyDatabase}
	case "microsoft-ds", "netbios-ssn", "smb", "ms-wbt-server", "rdp", "nfs":
		return nmapClass{finding.High, "", nmapWhySharing}
	case "ssh", "smtp", "submission", "smtps", "pop3", "pop3s", "imap", "imaps", "ldap", "ldaps", "domain",
		"snmp", "rpcbind", "msrpc", "sip", "ntp", "kerberos-sec", "bgp":
		return nmapClass{finding.Medium, "", nmapWhyAdmin}
	case "http", "https", "http-proxy", "http-alt", "https-alt", "http-mgmt":
		return nmapClass{finding.Low, "", nmapWhyWeb}
	}
	return nmapClass{finding.Medium, "", nmapWhyUnknown}
}

// Nmap wraps nmap, the port scanner (scan type network).
//
// Run: `nmap -sT -sV -n --open -oX - [-Pn] [-p <SVC_NMAP_PORTS>] <target_host>`.
// -sT (connect scan) needs no raw-socket privilege, so a hardened daemon
// can run it; -sV reads each service's banner for product and version; -n
// skips reverse DNS, which offline would only time out; -Pn (no ping
// first) is used for a single host, so a host that drops pings is still
// scanned, but not for ranges, where it would probe every absent address.
// Ports default to nmap's top 1000; SVC_NMAP_PORTS (e.g. "1-65535" or
// "22,80,443") overrides. A target is a hostname, an IP address or a CIDR
// range of at most SVC_NMAP_MAX_HOSTS addresses (default 256).
// Exit 0 = done; anything else is an error.
//
// One finding per open port. Severity by what the exposure invites:
//
//	high    cleartext logins and file transfer (telnet, ftp, tftp, r-services, vnc, x11),
//	        Windows file sharing and remote desktop (smb, netbios, rdp), nfs,
//	        databases and caches (mysql, postgresql, mssql, oracle, mongodb,
//	        redis, memcached, couchdb, cassandra, elasticsearch), docker's API
//	medium  remote administration and infrastructure (ssh, smtp, pop3, imap, ldap,
//	        dns, snmp, rpc, sip) and any service nmap cannot name
//	low     web (http, https and proxies): expected on most hosts
func Nmap(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "nmap", scanType: scan.TypeNetwork,
		target:      nmapTarget,
		args:        func(c *call) ([]string, error) { return nmapArgs(c.host, c.cfg.Env("SVC_NMAP_PORTS")) },
		exits:       exits{report: []int{0}},
		parse:       nmapParseCall,
		version:     probeVersion(`Nmap version v?(\d+\.\d+(?:\.\d+)?)`, "--version"),
		installHint: "install the Debian package nmap (apt-get install -y nmap, from a local mirror when offline) or set SVC_NMAP_PATH",
	})
}
