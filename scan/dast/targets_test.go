package dast

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"scand/scan"
	"scand/scan/netguard"
)

// TestBuiltinDASTTargetPolicy runs the scanner against a real loopback
// server: scanned by default, refused when SVC_TARGET_ALLOW leaves
// loopback out, and never sent to the metadata service, however the
// target spells it, whatever a name resolves to on the second lookup.
func TestBuiltinDASTTargetPolicy(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>app</body></html>"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	fs, err := New(scan.Config{}).Scan(context.Background(), scan.Target{URL: srv.URL})
	if err != nil || len(fs) == 0 || hits.Load() == 0 {
		t.Fatalf("loopback by default: %d findings, %d requests, %v", len(fs), hits.Load(), err)
	}

	allow, err := netguard.ParseAllow("10.0.0.0/8,app.internal.example")
	if err != nil {
		t.Fatal(err)
	}
	hits.Store(0)
	_, err = New(scan.Config{Targets: netguard.Targets{Allow: allow}}).Scan(context.Background(), scan.Target{URL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "SVC_TARGET_ALLOW") || hits.Load() != 0 {
		t.Fatalf("loopback outside SVC_TARGET_ALLOW: %v after %d requests, want a refusal before any", err, hits.Load())
	}

	// A name the allow list names, resolving to loopback, is scanned.
	named := netguard.Targets{Allow: allow, Lookup: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}}
	if _, err := New(scan.Config{Targets: named}).Scan(context.Background(), scan.Target{URL: "http://app.internal.example:" + port + "/"}); err != nil || hits.Load() == 0 {
		t.Fatalf("allowed name: %v after %d requests", err, hits.Load())
	}

	// DNS rebinding: the first answer is the loopback app, every later
	// one the metadata service. The dialer resolves for itself and checks
	// what it dials, so not one request reaches a refused address.
	var lookups atomic.Int64
	rebind := netguard.Targets{Lookup: func(context.Context, string) ([]netip.Addr, error) {
		if lookups.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}}
	hits.Store(0)
	_, err = New(scan.Config{Targets: rebind}).Scan(context.Background(), scan.Target{URL: "http://rebind.example:" + port + "/"})
	if err == nil || !strings.Contains(err.Error(), "169.254.169.254") || hits.Load() != 0 {
		t.Fatalf("rebinding name: %v after %d requests, want the dial refused", err, hits.Load())
	}

	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://[64:ff9b::a9fe:a9fe]/",
		"http://0xa9fea9fe/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://metadata.google.internal/computeMetadata/v1/",
		"http://100.100.100.200/", "http://[fd00:ec2::254]/", "https://169.254.169.254./",
	} {
		_, err := New(scan.Config{}).Scan(context.Background(), scan.Target{URL: u})
		if err == nil || !strings.Contains(err.Error(), "never reach it") {
			t.Errorf("%s: %v, want a refusal", u, err)
		}
	}
}
