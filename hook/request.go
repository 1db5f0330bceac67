package hook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// UserAgent of every outbound delivery (SPEC.md).
const UserAgent = "Svc-Webhook/0.9"

// Outbound header names.
const (
	HeaderEvent     = "X-Svc-Event"
	HeaderWebhookID = "X-Svc-Webhook-Id"
	HeaderSignature = "X-Svc-Signature"
	// HeaderDelivery is the delivery id, identical on every retry so a
	// receiver can drop duplicates of an at-least-once delivery.
	HeaderDelivery = "X-Svc-Delivery"
)

// envelope is the generic body. A struct, not a map, so the key order is
// event, data, delivered_at as SPEC.md requires.
type envelope struct {
	Event       string          `json:"event"`
	Data        json.RawMessage `json:"data"`
	DeliveredAt time.Time       `json:"delivered_at"`
}

// message is what one attempt sends, before provider shaping.
type message struct {
	DeliveryID  string
	WebhookID   string
	Event       string
	Data        json.RawMessage
	DeliveredAt time.Time
}

// body returns the compact JSON body for the receiver at u.
func (m message) body(u *url.URL) ([]byte, error) {
	data := m.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	m.Data = data
	switch chatProviderOf(u) {
	case providerSlack:
		return slackBody(m)
	case providerDiscord:
		return discordBody(m)
	}
	return compactJSON(envelope{Event: m.Event, Data: data, DeliveredAt: m.DeliveredAt.UTC().Truncate(time.Microsecond)})
}

// compactJSON marshals v without HTML escaping (receivers and chat
// previews should see "<" not "\u003c") and without the trailing newline
// json.Encoder adds.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var compact bytes.Buffer
	// RawMessage fields are copied verbatim by the encoder; compacting
	// the whole document guarantees no whitespace between tokens.
	if err := json.Compact(&compact, out); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

// Sign returns the X-Svc-Signature value for body sent at t:
// "t=<unix>,v1=<hex HMAC-SHA256(secret, "<unix>." + body)>".
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}
