package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// Key format: ssk_<10 base64url id>_<32 base64url secret>.
const (
	keyPrefix    = "ssk_"
	keyIDLen     = 10
	keySecretLen = 32
	saltLen      = 16
)

// NewKey returns a fresh key id and the full plaintext key.
func NewKey() (id, plaintext string) {
	id = randomBase64URL(keyIDLen)
	return id, keyPrefix + id + "_" + randomBase64URL(keySecretLen)
}

// DisplayPrefix is the part of a key that is safe to show: "ssk_<id>".
func DisplayPrefix(id string) string { return keyPrefix + id }

// ParseKey splits a presented key into its id. It rejects anything not in
// the exact format without touching the database.
func ParseKey(key string) (id string, ok bool) {
	if len(key) != len(keyPrefix)+keyIDLen+1+keySecretLen || !strings.HasPrefix(key, keyPrefix) {
		return "", false
	}
	id = key[len(keyPrefix) : len(keyPrefix)+keyIDLen]
	if key[len(keyPrefix)+keyIDLen] != '_' || !isBase64URL(id) || !isBase64URL(key[len(keyPrefix)+keyIDLen+1:]) {
		return "", false
	}
	return id, true
}

// HashKey returns "<salt-hex>$<sha256-hex>" of the whole plaintext key.
func HashKey(plaintext string) string {
	salt := make([]byte, saltLen)
	mustRead(salt)
	return hashWithSalt(salt, plaintext)
}

func hashWithSalt(salt []byte, plaintext string) string {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(plaintext))
	return hex.EncodeToString(salt) + "$" + hex.EncodeToString(h.Sum(nil))
}

// VerifyKey compares a plaintext key with a stored hash in constant time.
func VerifyKey(stored, plaintext string) bool {
	saltHex, _, ok := strings.Cut(stored, "$")
	if !ok {
		return false
	}
	salt, err := hex.DecodeString(saltHex)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(hashWithSalt(salt, plaintext)), []byte(stored)) == 1
}

func randomBase64URL(n int) string {
	// 3 random bytes make 4 characters; read enough and cut.
	b := make([]byte, (n*3+3)/4)
	mustRead(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}

func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func mustRead(b []byte) {
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
}
