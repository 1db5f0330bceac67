package auth

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

func TestEventTokenRoundTrip(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	minted := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const scan = "2f1c7c1e-8c53-4c55-9a57-3f8a7c1f0a11"
	tok, exp := MintEventToken(secret, scan, "AbCdEf-_09", minted)
	if want := minted.Add(5 * time.Minute); !exp.Equal(want) {
		t.Fatalf("expiry = %v, want %v (5 minutes)", exp, want)
	}
	if strings.ContainsAny(tok, "+/= ") {
		t.Fatalf("token %q is not URL-safe", tok)
	}
	cases := []struct {
		name   string
		secret []byte
		scan   string
		at     time.Time
		ok     bool
	}{
		{"at mint time", secret, scan, minted, true},
		{"one second before expiry", secret, scan, exp.Add(-time.Second), true},
		{"one nanosecond before expiry", secret, scan, exp.Add(-time.Nanosecond), true},
		{"at expiry", secret, scan, exp, false},
		{"after expiry", secret, scan, exp.Add(time.Hour), false},
		{"other scan", secret, "2f1c7c1e-8c53-4c55-9a57-3f8a7c1f0a12", minted, false},
		{"empty scan", secret, "", minted, false},
		{"other secret", []byte("0123456789abcdef0123456789abcdeX"), scan, minted, false},
		{"empty secret", nil, scan, minted, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keyID, err := VerifyEventToken(c.secret, tok, c.scan, c.at)
			if c.ok {
				if err != nil || keyID != "AbCdEf-_09" {
					t.Fatalf("VerifyEventToken = %q, %v; want the minting key id", keyID, err)
				}
				return
			}
			if err != ErrBadEventToken || keyID != "" {
				t.Fatalf("VerifyEventToken = %q, %v; want \"\", ErrBadEventToken", keyID, err)
			}
		})
	}
}

func TestEventTokenRejectsTampering(t *testing.T) {
	secret := []byte("s3cret-s3cret-s3cret-s3cret-s3cret")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const scan = "scan-1"
	tok, _ := MintEventToken(secret, scan, "AbCdEf-_09", now)
	parts := strings.Split(tok, ".")
	if len(parts) != 5 {
		t.Fatalf("token %q: want 5 dot-separated parts", tok)
	}
	enc := base64.RawURLEncoding
	replace := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, ".")
	}
	flip := func(s string) string {
		b := []byte(s)
		if b[0] == 'A' {
			b[0] = 'B'
		} else {
			b[0] = 'A'
		}
		return string(b)
	}
	cases := map[string]string{
		"empty":                "",
		"garbage":              "not-a-token",
		"version changed":      replace(0, "v2"),
		"scan swapped":         replace(1, enc.EncodeToString([]byte("scan-2"))),
		"key swapped to dev":   replace(2, enc.EncodeToString([]byte(DevKeyID))),
		"key swapped to env":   replace(2, enc.EncodeToString([]byte(SourceEnv))),
		"expiry extended":      replace(3, "99999999999"),
		"signature flipped":    replace(4, flip(parts[4])),
		"signature not base64": replace(4, "!!!"),
		"signature missing":    strings.Join(parts[:4], "."),
		"extra part":           tok + ".x",
		"signature truncated":  replace(4, parts[4][:len(parts[4])-3]),
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			if keyID, err := VerifyEventToken(secret, bad, scan, now); err != ErrBadEventToken {
				t.Fatalf("VerifyEventToken(%q) = %q, %v; want ErrBadEventToken", bad, keyID, err)
			}
		})
	}
	// The untouched token still verifies, so the cases above failed for
	// the reason they name.
	if _, err := VerifyEventToken(secret, tok, scan, now); err != nil {
		t.Fatalf("untouched token rejected: %v", err)
	}
}

func TestEventTokenLifetimeIsFiveMinutes(t *testing.T) {
	if EventTokenTTL != 5*time.Minute {
		t.Fatalf("EventTokenTTL = %v, SPEC.md says 5 minutes", EventTokenTTL)
	}
	// A mint time with a fractional second never extends the lifetime.
	now := time.Date(2026, 3, 1, 12, 0, 0, 999_000_000, time.UTC)
	tok, exp := MintEventToken([]byte("k"), "s", "dev", now)
	if exp.After(now.Add(EventTokenTTL)) {
		t.Fatalf("expiry %v is later than mint time + 5 minutes", exp)
	}
	if _, err := VerifyEventToken([]byte("k"), tok, "s", now.Add(EventTokenTTL)); err == nil {
		t.Fatal("token still valid 5 minutes after minting")
	}
}
