package wrapped

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scand/scan"
	"scand/scan/netguard"
)

// TestNmapTargetPolicy: the metadata service in any spelling, by name or
// by a name resolving to it, never reaches nmap; a name nmap does get is
// replaced by the address it was checked as; SVC_TARGET_ALLOW confines.
func TestNmapTargetPolicy(t *testing.T) {
	argsFile := filepath.Join(t.TempDir(), "args")
	fixture, err := filepath.Abs(filepath.Join(wrapTestData, "nmap/findings.xml"))
	if err != nil {
		t.Fatal(err)
	}
	tool := wrapTestScript(t, fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Nmap version 7.93'; exit 0; fi\necho \"$@\" > %q\ncat %q\n", argsFile, fixture))
	answers := map[string]string{"169.254.169.254.nip.io": "169.254.169.254", "db.internal": "127.0.0.1", "v6.internal": "fd12::7"}
	lookup := func(_ context.Context, h string) ([]netip.Addr, error) {
		a, ok := answers[h]
		if !ok {
			return nil, fmt.Errorf("no such host %s", h)
		}
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	newNmap := func(allow string) scan.Scanner {
		cfg := wrapTestConfig(map[string]string{"SVC_NMAP_PATH": tool, "SVC_NMAP_MAX_HOSTS": "16"})
		a, err := netguard.ParseAllow(allow)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Targets = netguard.Targets{Allow: a, Lookup: lookup}
		return Nmap(cfg)
	}
	ran := func() string {
		b, err := os.ReadFile(argsFile)
		if err != nil {
			return ""
		}
		os.Remove(argsFile)
		return strings.TrimSpace(string(b))
	}

	s := newNmap("")
	for _, h := range []string{
		"169.254.169.254", "0xa9fea9fe", "2852039166", "0251.0376.0251.0376", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
		"100.100.100.200", "fd00:ec2::254", "metadata.google.internal", "169.254.169.254.nip.io", "169.254.169.0/28", "::ffff:169.254.169.0/124",
	} {
		_, err := s.Scan(context.Background(), scan.Target{Host: h})
		if err == nil || !strings.Contains(err.Error(), "never reach it") {
			t.Errorf("%s: %v, want a refusal", h, err)
		}
		if args := ran(); args != "" {
			t.Errorf("%s reached nmap: %s", h, args)
		}
	}

	fs, err := s.Scan(context.Background(), scan.Target{Host: "db.internal"})
	if err != nil || len(fs) == 0 {
		t.Fatalf("db.internal: %d findings, %v", len(fs), err)
	}
	if args := ran(); !strings.HasSuffix(args, " 127.0.0.1") {
		t.Errorf("nmap was run with %q, want the checked address, not the name", args)
	}
	for _, f := range fs {
		if f.Metadata["hostname"] == nil {
			t.Errorf("finding %s lost the target's name", f.FilePath)
		}
	}
	if _, err := s.Scan(context.Background(), scan.Target{Host: "v6.internal"}); err != nil {
		t.Fatal(err)
	}
	if args := ran(); !strings.Contains(args, "-6 ") || !strings.HasSuffix(args, " fd12::7") {
		t.Errorf("an IPv6 target ran as %q, want -6 and the address", args)
	}

	confined := newNmap("10.0.0.0/8")
	for h, ok := range map[string]bool{"127.0.0.1": false, "db.internal": false, "10.0.0.0/28": true, "10.1.2.3": true, "192.168.0.0/28": false} {
		_, err := confined.Scan(context.Background(), scan.Target{Host: h})
		if ok != (err == nil) {
			t.Errorf("with SVC_TARGET_ALLOW=10.0.0.0/8, %s: %v, want allowed=%v", h, err, ok)
		}
		if args := ran(); (args != "") != ok {
			t.Errorf("with SVC_TARGET_ALLOW=10.0.0.0/8, %s ran nmap: %q", h, args)
		}
	}
}
