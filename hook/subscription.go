// Package hook delivers events to webhook subscriptions: the persisted
// delivery queue, one worker per subscription, signing, the chat-provider
// body shapes and the outbound address policy.
package hook

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"strings"

	"scand/scan/netguard"
	"scand/sse"
)

// Events are the only event names that reach webhooks (and notifications);
// the rest of the lifecycle stays on the SSE stream. scan.new_findings is
// the change alert of issue 17, finding.acceptance_expired the end of an
// expiring verdict (issue 26), finding.sla_breached a fix deadline passed
// (issue 25); all additive to SPEC.md's four.
var Events = []string{sse.ScanComplete, sse.ScanFailed, sse.ScannerFailed, sse.WebhookTest, sse.ScanNewFindings, sse.FindingAcceptanceExpired, sse.FindingSLABreached, sse.AdvisoryNewMatches}

// IsEvent reports whether name may appear in an event_filter.
func IsEvent(name string) bool { return slices.Contains(Events, name) }

// SecretLen is the length of a subscription secret (SPEC.md).
const SecretLen = 32

// NewSecret returns SecretLen base64url characters from crypto/rand
// (192 bits of entropy).
func NewSecret() string {
	b := make([]byte, SecretLen*3/4)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// MaxURLLen bounds a receiver address.
const MaxURLLen = 2048

// ValidateURL checks a receiver address when it is saved: absolute http or
// https, a host, no credentials (they would be stored and shown in clear),
// and not a literal address that delivery would always refuse. Names are
// only checked at delivery time, on the address they resolve to then.
func ValidateURL(raw string) error {
	if raw == "" || len(raw) > MaxURLLen {
		return errors.New("url must be 1 to 2048 characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("url is not a valid URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return errors.New("url must be an absolute http or https URL")
	}
	if u.Host == "" || u.Hostname() == "" {
		return errors.New("url must name a host")
	}
	if u.User != nil {
		return errors.New("url must not contain credentials; authenticate receivers with the signature instead")
	}
	// Only the always-refused ranges, in any spelling of an address:
	// private ones depend on the daemon's setting, which may change
	// before delivery.
	if addr, ok := netguard.ParseHost(u.Hostname()); ok {
		if err := (AddressPolicy{AllowPrivate: true}).Check(addr); err != nil {
			return errors.New("url " + err.Error())
		}
	}
	if netguard.MetadataName(u.Hostname()) {
		return errors.New("url names a cloud metadata service; webhook receivers may never use it")
	}
	return nil
}
