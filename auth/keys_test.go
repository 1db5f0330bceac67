package auth

import (
	"regexp"
	"strings"
	"testing"
)

var keyFormat = regexp.MustCompile(`^ssk_([A-Za-z0-9_-]{10})_[A-Za-z0-9_-]{32}$`)

func TestNewKeyFormat(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		id, key := NewKey()
		m := keyFormat.FindStringSubmatch(key)
		if m == nil {
			t.Fatalf("key %q does not match ssk_<10>_<32> base64url", key)
		}
		if m[1] != id {
			t.Fatalf("key %q carries id %q, NewKey returned %q", key, m[1], id)
		}
		if got, ok := ParseKey(key); !ok || got != id {
			t.Fatalf("ParseKey(%q) = %q, %v; want %q, true", key, got, ok, id)
		}
		if !strings.HasPrefix(key, DisplayPrefix(id)+"_") {
			t.Fatalf("display prefix %q is not the head of %q", DisplayPrefix(id), key)
		}
		if seen[key] || seen[id] {
			t.Fatalf("NewKey repeated a value after %d calls", i)
		}
		seen[key], seen[id] = true, true
	}
}

func TestParseKey(t *testing.T) {
	const id = "AbCdEf-_09"
	const secret = "0123456789abcdefghijABCDEFGHIJ-_"
	cases := []struct {
		name, key string
		ok        bool
	}{
		{"valid", "ssk_" + id + "_" + secret, true},
		{"empty", "", false},
		{"wrong prefix", "ssx_" + id + "_" + secret, false},
		{"upper-case prefix", "SSK_" + id + "_" + secret, false},
		{"no prefix", id + "_" + secret + "xxxx", false},
		{"short id", "ssk_" + id[:9] + "_" + secret + "x", false},
		{"long secret", "ssk_" + id + "_" + secret + "x", false},
		{"short secret", "ssk_" + id + "_" + secret[:31], false},
		{"missing separator", "ssk_" + id + "x" + secret, false},
		{"non-base64url in id", "ssk_AbCdEf+/09_" + secret, false},
		{"padding in secret", "ssk_" + id + "_" + secret[:31] + "=", false},
		{"space in secret", "ssk_" + id + "_" + secret[:31] + " ", false},
		{"non-ASCII", "ssk_" + id + "_" + secret[:30] + "é", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseKey(c.key)
			if ok != c.ok {
				t.Fatalf("ParseKey(%q) ok = %v, want %v", c.key, ok, c.ok)
			}
			if ok && got != id {
				t.Fatalf("ParseKey(%q) id = %q, want %q", c.key, got, id)
			}
		})
	}
}

var storedHashFormat = regexp.MustCompile(`^([0-9a-f]+)\$([0-9a-f]{64})$`)

func TestHashKeyIsSaltedSHA256(t *testing.T) {
	_, key := NewKey()
	h1, h2 := HashKey(key), HashKey(key)
	for _, h := range []string{h1, h2} {
		m := storedHashFormat.FindStringSubmatch(h)
		if m == nil {
			t.Fatalf("hash %q is not <salt-hex>$<sha256-hex>", h)
		}
		if len(m[1]) < 32 {
			t.Errorf("salt %q is shorter than 16 bytes", m[1])
		}
		if strings.Contains(h, key) || strings.Contains(h, key[len(key)-32:]) {
			t.Fatalf("stored hash %q contains the secret", h)
		}
	}
	if h1 == h2 {
		t.Fatal("two hashes of one key are equal: the salt is not random")
	}
	if !VerifyKey(h1, key) || !VerifyKey(h2, key) {
		t.Fatal("VerifyKey rejects the key its own hash was made from")
	}
}

func TestVerifyKey(t *testing.T) {
	_, key := NewKey()
	_, other := NewKey()
	stored := HashKey(key)
	salt, sum, _ := strings.Cut(stored, "$")
	flipped := []byte(sum)
	flipped[0] ^= 1
	cases := []struct {
		name, stored, key string
		want              bool
	}{
		{"match", stored, key, true},
		{"other key", stored, other, false},
		{"key with one more byte", stored, key + "x", false},
		{"empty key", stored, "", false},
		{"no separator", salt + sum, key, false},
		{"non-hex salt", "zz" + salt[2:] + "$" + sum, key, false},
		{"tampered digest", salt + "$" + string(flipped), key, false},
		{"other salt", strings.Repeat("0", len(salt)) + "$" + sum, key, false},
		{"empty stored", "", key, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := VerifyKey(c.stored, c.key); got != c.want {
				t.Fatalf("VerifyKey = %v, want %v", got, c.want)
			}
		})
	}
}

func TestScopes(t *testing.T) {
	for _, s := range []string{"read", "write", "admin"} {
		if !ValidScope(s) {
			t.Errorf("ValidScope(%q) = false", s)
		}
	}
	for _, s := range []string{"", "any", "Admin", "root", "read "} {
		if ValidScope(s) {
			t.Errorf("ValidScope(%q) = true", s)
		}
	}
	readOnly := Principal{Scopes: []Scope{ScopeRead}}
	cases := []struct {
		p     Principal
		scope Scope
		want  bool
	}{
		{readOnly, ScopeRead, true},
		{readOnly, ScopeWrite, false},
		{readOnly, ScopeAdmin, false},
		{readOnly, ScopeAny, true},
		// Scopes are levels: admin includes write and read, write includes read.
		{Principal{Scopes: []Scope{ScopeAdmin}}, ScopeRead, true},
		{Principal{Scopes: []Scope{ScopeAdmin}}, ScopeWrite, true},
		{Principal{Scopes: []Scope{ScopeWrite}}, ScopeRead, true},
		{Principal{Scopes: []Scope{ScopeWrite}}, ScopeAdmin, false},
		{Principal{Scopes: []Scope{"bogus"}}, ScopeRead, false},
		{Principal{}, ScopeAny, true},
		{Principal{}, ScopeRead, false},
		{Principal{Scopes: AllScopes}, ScopeAdmin, true},
	}
	for _, c := range cases {
		if got := c.p.Has(c.scope); got != c.want {
			t.Errorf("%v.Has(%q) = %v, want %v", c.p.Scopes, c.scope, got, c.want)
		}
	}
}
