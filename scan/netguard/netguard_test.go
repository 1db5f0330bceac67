package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestMetadataInEverySpelling: each way of writing the metadata service
// (and its cousins) is refused as a scan target, statically or, for a
// name, once it resolves.
func TestMetadataInEverySpelling(t *testing.T) {
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "169.254.169.254.nip.io", "rebind.example":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		case "mixed.example":
			return []netip.Addr{netip.MustParseAddr("192.0.2.10"), netip.MustParseAddr("::ffff:169.254.169.254")}, nil
		case "metadata.google.internal":
			t.Errorf("a metadata name was looked up instead of refused")
		}
		return nil, errors.New("no such host")
	}
	guard := Targets{Lookup: lookup}
	for _, host := range []string{
		"169.254.169.254", "169.254.169.254.", "[169.254.169.254]",
		"::ffff:169.254.169.254", "[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe", "0:0:0:0:0:ffff:a9fe:a9fe",
		"64:ff9b::169.254.169.254", "64:ff9b::a9fe:a9fe", "::169.254.169.254", "::a9fe:a9fe",
		"0xa9fea9fe", "0XA9FEA9FE", "2852039166", "0251.0376.0251.0376", "0xa9.0xfe.0xa9.0xfe", "169.254.43518", "169.16689662",
		"0251.0xfe.43518", "0x0a9fea9fe",
		"metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "metadata", "metadata.goog", "instance-data",
		"100.100.100.200", "::ffff:100.100.100.200", "fd00:ec2::254", "[fd00:ec2::254]",
		"fe80::1", "fe80::a9fe:a9fe%eth0", "0.0.0.0", "0", "::", "224.0.0.1", "ff02::1", "255.255.255.255",
		"169.254.169.254.nip.io", "rebind.example", "mixed.example",
	} {
		_, err := guard.Resolve(context.Background(), host)
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("%s: %v, want a refusal", host, err)
			continue
		}
		if !strings.Contains(err.Error(), "never reach it") {
			t.Errorf("%s: %q does not say it is always refused", host, err)
		}
	}
}

func TestPrivateAndPublicTargetsAllowedByDefault(t *testing.T) {
	guard := Targets{Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
	}}
	for host, want := range map[string]string{
		"127.0.0.1": "127.0.0.1", "::1": "::1", "[::1]": "::1", "2130706433": "127.0.0.1", "0x7f.1": "127.0.0.1",
		"10.0.0.5": "10.0.0.5", "192.168.1.1": "192.168.1.1", "172.16.0.1": "172.16.0.1", "fd12::1": "fd12::1",
		"100.64.0.1": "100.64.0.1", "93.184.216.34": "93.184.216.34", "::ffff:10.0.0.1": "10.0.0.1",
		"intranet.example": "10.1.2.3",
	} {
		got, err := guard.Resolve(context.Background(), host)
		if err != nil || len(got) != 1 || got[0].String() != want {
			t.Errorf("%s: %v %v, want %s", host, got, err, want)
		}
	}
}

func TestParseHostIsNotFooledByNames(t *testing.T) {
	for _, name := range []string{"example.com", "1.2.3.4.5", "0x", "1.2.3.256", "08", "1e5", "a9fea9fe", "256.1", "-1", "1..2", ""} {
		if a, ok := ParseHost(name); ok && name != "0x" {
			t.Errorf("ParseHost(%q) = %v, want a name", name, a)
		}
	}
	if a, ok := ParseHost("0x"); !ok || a != netip.MustParseAddr("0.0.0.0") {
		t.Errorf(`ParseHost("0x") = %v %v; inet_aton reads it as 0`, a, ok)
	}
}

func TestAllowList(t *testing.T) {
	if _, err := ParseAllow("10.0.0.0/8,nope!"); err == nil {
		t.Error("a bad entry was accepted")
	}
	if _, err := ParseAllow("10.0.0.0/33"); err == nil {
		t.Error("a bad CIDR was accepted")
	}
	allow, err := ParseAllow(" 10.0.0.0/8 , 192.168.1.7, app.internal.example, *.corp.example ,")
	if err != nil {
		t.Fatal(err)
	}
	lookups := map[string][]netip.Addr{
		"app.internal.example": {netip.MustParseAddr("203.0.113.5")},
		"x.corp.example":       {netip.MustParseAddr("203.0.113.6")},
		"ten.example":          {netip.MustParseAddr("10.9.9.9")},
		"public.example":       {netip.MustParseAddr("203.0.113.7")},
		"half.example":         {netip.MustParseAddr("10.9.9.9"), netip.MustParseAddr("203.0.113.7")},
		"evil.corp.example":    {netip.MustParseAddr("169.254.169.254")},
	}
	guard := Targets{Allow: allow, Lookup: func(_ context.Context, h string) ([]netip.Addr, error) { return lookups[h], nil }}
	for host, ok := range map[string]bool{
		"10.1.1.1": true, "::ffff:10.1.1.1": true, "192.168.1.7": true, "192.168.1.8": false, "127.0.0.1": false,
		"app.internal.example": true, "x.corp.example": true, "ten.example": true,
		"public.example": false, "half.example": false, "evil.corp.example": false, "corp.example": false,
	} {
		_, err := guard.Resolve(context.Background(), host)
		if (err == nil) != ok {
			t.Errorf("%s: %v, want allowed=%v", host, err, ok)
		}
	}
	for cidr, ok := range map[string]bool{"10.1.0.0/16": true, "10.0.0.0/8": true, "0.0.0.0/0": false, "192.168.1.7/32": true, "192.168.1.0/30": false} {
		if err := guard.CheckPrefix(netip.MustParsePrefix(cidr)); (err == nil) != ok {
			t.Errorf("CheckPrefix(%s): %v, want allowed=%v", cidr, err, ok)
		}
	}
	names, _ := ParseAllow("app.internal.example")
	if err := (Targets{Allow: names}).CheckStatic("other.example"); err == nil {
		t.Error("a name outside a names-only allow list passed the static check")
	}
	if err := (Targets{Allow: allow}).CheckStatic("other.example"); err != nil {
		t.Errorf("a name that may resolve into an allowed range was refused before resolution: %v", err)
	}
}

func TestPrefixesThatReachTheMetadataService(t *testing.T) {
	var guard Targets
	for cidr, blocked := range map[string]bool{
		"169.254.169.0/24": true, "169.254.0.0/16": true, "160.0.0.0/4": true, "::ffff:169.254.169.0/120": true,
		"64:ff9b::a9fe:a900/120": true, "64:ff9b::/64": true, "::ffff:0:0/95": true, "fe80::/64": true,
		"100.100.100.0/24": true, "10.0.0.0/24": false, "192.168.0.0/24": false, "2001:db8::/120": false,
	} {
		if err := guard.CheckPrefix(netip.MustParsePrefix(cidr)); (err != nil) != blocked {
			t.Errorf("CheckPrefix(%s) = %v, want blocked=%v", cidr, err, blocked)
		}
	}
}

// TestDialChecksWhatItDials: the dialer connects only to the address it
// checked, so a rebinding name is refused and a loopback server is still
// reached by default.
func TestDialChecksWhatItDials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	answers := map[string]string{"app.example": "127.0.0.1", "rebind.example": "169.254.169.254"}
	guard := Targets{Lookup: func(_ context.Context, h string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr(answers[h])}, nil
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: guard.DialContext(&net.Dialer{})}}
	resp, err := client.Get("http://app.example:" + port + "/")
	if err != nil {
		t.Fatalf("loopback by name: %v", err)
	}
	resp.Body.Close()
	for _, u := range []string{"http://rebind.example:" + port + "/", "http://0xa9fea9fe:" + port + "/", "http://[::ffff:169.254.169.254]:" + port + "/"} {
		_, err := client.Get(u)
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("GET %s: %v, want a refusal", u, err)
		}
	}
	allow, _ := ParseAllow("10.0.0.0/8")
	confined := &http.Client{Transport: &http.Transport{DialContext: Targets{Allow: allow}.DialContext(&net.Dialer{})}}
	if _, err := confined.Get(srv.URL); err == nil || !strings.Contains(err.Error(), "SVC_TARGET_ALLOW") {
		t.Errorf("loopback outside SVC_TARGET_ALLOW: %v, want a refusal", err)
	}
}
