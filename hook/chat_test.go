package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/sse"
	"scand/store"
)

var updateHook = flag.Bool("update-hook", false, "rewrite testdata/hook/*.golden from the current output")

func TestWebhookChatProviderDetection(t *testing.T) {
	cases := []struct {
		url  string
		want chatProvider
	}{
		{"https://hooks.slack.com/services/T000/B000/XXXX", providerSlack},
		{"https://HOOKS.SLACK.COM/services/T000/B000/XXXX", providerSlack},
		{"https://hooks.slack.com./services/T000/B000/XXXX", providerSlack},
		{"https://discord.com/api/webhooks/123/abc", providerDiscord},
		{"https://discordapp.com/api/webhooks/123/abc", providerDiscord},
		// Look-alikes: substring tricks must get the generic body.
		{"https://evil.example/hooks.slack.com/services/T000", providerGeneric},
		{"https://hooks.slack.com.evil.example/services/T000", providerGeneric},
		{"https://evil.example/?u=https://hooks.slack.com/services/T000", providerGeneric},
		{"https://hooks.slack.com/servicesX/T000", providerGeneric},
		{"https://hooks.slack.com/api/webhooks/1/x", providerGeneric},
		{"https://xhooks.slack.com/services/T000", providerGeneric},
		{"https://discord.com.evil.example/api/webhooks/1/x", providerGeneric},
		{"https://evil-discord.com/api/webhooks/1/x", providerGeneric},
		{"https://discord.com/api/webhooksX/1/x", providerGeneric},
		{"https://discord.com/api/v10/channels/1", providerGeneric},
		{"https://user@evil.example#hooks.slack.com/services/", providerGeneric},
		{"https://receiver.example/webhook", providerGeneric},
	}
	for _, tc := range cases {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := chatProviderOf(u); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.url, got, tc.want)
		}
	}
}

// chatGoldenCases cover every event a webhook can receive, with text that
// needs escaping on both providers.
var chatGoldenCases = []struct {
	name  string
	event string
	data  any
}{
	{"scan_complete", sse.ScanComplete, sse.ScanCompleteData{ScanID: "0b7e5f8c-3c1e-4b0a-9d1e-1f2a3b4c5d6e", TargetPath: "/srv/app_<main>&co", FindingsCount: 12, RiskScore: 73,
		SeverityCounts: sse.SeverityCounts{Critical: 1, High: 3, Medium: 5, Low: 2, Info: 1}, DurationS: 42.5}},
	{"scan_complete_clean", sse.ScanComplete, sse.ScanCompleteData{ScanID: "5d6e0b7e-3c1e-4b0a-9d1e-1f2a3b4c5f8c", TargetPath: "/srv/clean", FindingsCount: 0}},
	{"scan_complete_partial", sse.ScanComplete, sse.ScanCompleteData{ScanID: "5d6e0b7e-3c1e-4b0a-9d1e-1f2a3b4c5f8d", TargetPath: "/srv/go", FindingsCount: 0,
		Partial: true, PartialReasons: []string{"gosec partial: module .: 1 file(s) could not be type-checked (main.go) <!channel>"}}},
	{"scan_failed", sse.ScanFailed, sse.ScanFailedData{ScanID: "0b7e5f8c-3c1e-4b0a-9d1e-1f2a3b4c5d6e", TargetPath: "/srv/app", Error: "target_path vanished: stat /srv/app: no such file or directory <!channel> @everyone"}},
	{"scanner_failed", sse.ScannerFailed, sse.ScannerFailedData{ScanID: "0b7e5f8c-3c1e-4b0a-9d1e-1f2a3b4c5d6e", Name: "semgrep", Error: "exit status 2: *** fatal: `rules` not found"}},
	{"webhook_test", sse.WebhookTest, sse.WebhookTestData{WebhookID: "9a8b7c6d-1111-4222-8333-944455556666", Message: TestMessage}},
	{"scan_new_findings", sse.ScanNewFindings, sse.ScanNewFindingsData{ScanID: "0b7e5f8c-3c1e-4b0a-9d1e-1f2a3b4c5d6e", PreviousScanID: "5d6e0b7e-3c1e-4b0a-9d1e-1f2a3b4c5f8c",
		TargetPath: "/srv/app_<main>&co", New: sse.SeverityCounts{Critical: 1, High: 2}, FixedCount: 3, AlertMinSeverity: "high"}},
}

func TestWebhookChatBodiesGolden(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 890000000, time.UTC)
	providers := []struct {
		name string
		url  string
	}{
		{"slack", "https://hooks.slack.com/services/T000/B000/XXXX"},
		{"discord", "https://discord.com/api/webhooks/123/abc"},
		{"generic", "https://receiver.example/hook"},
	}
	for _, p := range providers {
		u, _ := url.Parse(p.url)
		for _, tc := range chatGoldenCases {
			t.Run(p.name+"_"+tc.name, func(t *testing.T) {
				data, err := compactJSON(tc.data)
				if err != nil {
					t.Fatal(err)
				}
				body, err := message{DeliveryID: "d-0001", WebhookID: "w-0001", Event: tc.event, Data: data, DeliveredAt: at}.body(u)
				if err != nil {
					t.Fatal(err)
				}
				var compact bytes.Buffer
				if err := json.Compact(&compact, body); err != nil || !bytes.Equal(compact.Bytes(), body) {
					t.Fatalf("body is not compact JSON: %s", body)
				}
				// Goldens are indented for review; indenting keeps key order,
				// so the comparison still pins it.
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, body, "", "  "); err != nil {
					t.Fatal(err)
				}
				pretty.WriteByte('\n')
				path := filepath.Join("..", "testdata", "hook", p.name+"_"+tc.name+".golden")
				if *updateHook {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update-hook to create it)", err)
				}
				if !bytes.Equal(pretty.Bytes(), want) {
					t.Errorf("%s differs from the golden file:\n--- got\n%s--- want\n%s", path, pretty.Bytes(), want)
				}
			})
		}
	}
}

// The chat bodies must not let scanned text ping a whole channel.
func TestWebhookChatBodiesNeutraliseMentions(t *testing.T) {
	data, _ := json.Marshal(sse.ScanFailedData{ScanID: "s", TargetPath: "/x", Error: "<!channel> <!here> @everyone"})
	m := message{DeliveryID: "d", Event: sse.ScanFailed, Data: data, DeliveredAt: time.Unix(0, 0)}
	slack, _ := slackBody(m)
	if bytes.Contains(slack, []byte("<!")) {
		t.Errorf("Slack body keeps a raw mention: %s", slack)
	}
	discord, _ := discordBody(m)
	var p discordPayload
	if err := json.Unmarshal(discord, &p); err != nil {
		t.Fatal(err)
	}
	if p.AllowedMentions.Parse == nil || len(p.AllowedMentions.Parse) != 0 {
		t.Errorf("Discord allowed_mentions.parse = %v, want an empty list", p.AllowedMentions.Parse)
	}
}

// A Slack address gets Slack's body end to end, still signed; the dial is
// redirected to a loopback receiver since tests never leave the machine.
func TestWebhookSlackDeliveryEndToEnd(t *testing.T) {
	st := openTestStore(t)
	rec := newRecorder(t, nil)
	d := New(Config{Store: st, AllowPrivate: true})
	receiver := rec.srv.Listener.Addr().String()
	d.dialOverride = func(addr string) string {
		if addr == "hooks.slack.com:80" {
			return receiver
		}
		return "127.0.0.1:1" // anything else must not be dialled
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	wh := createTestWebhook(t, st, "http://hooks.slack.com/services/T000/B000/XXXX", sse.ScanComplete)
	ds, _ := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(3))
	waitDeliveryStatus(t, st, ds[0].ID, store.DeliverySucceeded)
	r := rec.requests()[0]
	if r.Path != "/services/T000/B000/XXXX" {
		t.Errorf("path %q", r.Path)
	}
	var body slackPayload
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Blocks) == 0 || !strings.Contains(body.Text, "3 findings") {
		t.Errorf("not a Slack body: %s (%v)", r.Body, err)
	}
	verifySignature(t, wh.Secret, r.Header.Get("X-Svc-Signature"), r.Body, time.Now())
	if r.Header.Get("X-Svc-Delivery") != ds[0].ID {
		t.Errorf("X-Svc-Delivery %q", r.Header.Get("X-Svc-Delivery"))
	}
}

func TestWebhookAddressPolicy(t *testing.T) {
	cases := []struct {
		addr         string
		allowPrivate bool
		refused      bool
	}{
		{"169.254.169.254", true, true},
		{"169.254.170.2", true, true},
		{"fe80::1", true, true},
		{"fe80::1%eth0", true, true},
		{"100.100.100.200", true, true},
		{"fd00:ec2::254", true, true},
		{"::ffff:169.254.169.254", true, true},
		{"64:ff9b::a9fe:a9fe", true, true},
		{"0.0.0.0", true, true},
		{"::", true, true},
		{"224.0.0.1", true, true},
		{"127.0.0.1", true, false},
		{"10.0.0.1", true, false},
		{"fd12::1", true, false},
		{"127.0.0.1", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"10.0.0.1", false, true},
		{"172.16.0.1", false, true},
		{"172.32.0.1", false, false},
		{"192.168.1.1", false, true},
		{"100.64.0.1", false, true},
		{"fd12::1", false, true},
		{"64:ff9b::a00:1", false, true},
		{"93.184.216.34", false, false},
		{"2606:2800:220:1:248:1893:25c8:1946", false, false},
		{"100.128.0.1", false, false},
		{"100.100.100.201", true, false},
	}
	for _, tc := range cases {
		err := AddressPolicy{AllowPrivate: tc.allowPrivate}.Check(netip.MustParseAddr(tc.addr))
		if (err != nil) != tc.refused {
			t.Errorf("Check(%s, allowPrivate=%v) = %v, want refused=%v", tc.addr, tc.allowPrivate, err, tc.refused)
		}
	}
	// The dialer hook receives "ip:port" strings.
	if err := (AddressPolicy{}).control("tcp", net.JoinHostPort("169.254.169.254", "80"), nil); err == nil {
		t.Error("control accepted the metadata address")
	}
	if err := (AddressPolicy{}).control("tcp6", "[fe80::1%eth0]:80", nil); err == nil {
		t.Error("control accepted a zoned link-local address")
	}
}

func TestWebhookValidateURL(t *testing.T) {
	cases := []struct {
		url string
		ok  bool
	}{
		{"https://receiver.example/hook", true},
		{"http://127.0.0.1:8080/hook", true},
		{"HTTPS://receiver.example", true},
		{"https://hooks.slack.com/services/T/B/X", true},
		{"", false},
		{"/relative/path", false},
		{"receiver.example/hook", false},
		{"ftp://receiver.example/", false},
		{"file:///etc/passwd", false},
		{"javascript:alert(1)", false},
		{"https://user:pass@receiver.example/", false},
		{"https://token@receiver.example/", false},
		{"https:///nohost", false},
		{"http://169.254.169.254/latest/meta-data/", false},
		{"http://[fe80::1]/", false},
		{"http://100.100.100.200/", false},
		{"http://0xa9fea9fe/", false},
		{"http://2852039166/latest/", false},
		{"http://[::ffff:a9fe:a9fe]/", false},
		{"http://metadata.google.internal/computeMetadata/v1/", false},
		{"http://2130706433:8080/hook", true}, // 127.0.0.1: private stays the daemon's setting
		{"https://receiver.example/" + strings.Repeat("a", MaxURLLen), false},
	}
	for _, tc := range cases {
		if err := ValidateURL(tc.url); (err == nil) != tc.ok {
			t.Errorf("ValidateURL(%.60q) = %v, want ok=%v", tc.url, err, tc.ok)
		}
	}
}

func TestWebhookSecretShape(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		s := NewSecret()
		if len(s) != 32 {
			t.Fatalf("secret %q has %d characters, want 32", s, len(s))
		}
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				t.Fatalf("secret %q has a non-base64url character %q", s, c)
			}
		}
		if seen[s] {
			t.Fatalf("secret repeated: %q", s)
		}
		seen[s] = true
	}
}
