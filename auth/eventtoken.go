package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// EventTokenTTL is the lifetime of an event token (SPEC.md).
const EventTokenTTL = 5 * time.Minute

// ErrBadEventToken covers every way an event token can be unusable; the
// client learns nothing about which check failed.
var ErrBadEventToken = errors.New("invalid event token")

// Event token wire format: "v1.<b64url scan id>.<b64url key id>.<unix
// expiry>.<b64url HMAC-SHA256 over everything before the last dot>". The
// version prefix lets the format change without accepting old tokens.
const eventTokenVersion = "v1"

// MintEventToken binds a token to one scan and to the minting key id.
func MintEventToken(secret []byte, scanID, keyID string, now time.Time) (token string, expires time.Time) {
	expires = now.Add(EventTokenTTL).UTC().Truncate(time.Second)
	enc := base64.RawURLEncoding
	body := eventTokenVersion + "." + enc.EncodeToString([]byte(scanID)) + "." + enc.EncodeToString([]byte(keyID)) + "." + strconv.FormatInt(expires.Unix(), 10)
	return body + "." + enc.EncodeToString(eventTokenMAC(secret, body)), expires
}

// VerifyEventToken checks signature, expiry and scan binding and returns
// the minting key id, which the caller must re-check for revocation.
func VerifyEventToken(secret []byte, token, scanID string, now time.Time) (keyID string, err error) {
	parts := strings.Split(token, ".")
	if len(parts) != 5 || parts[0] != eventTokenVersion {
		return "", ErrBadEventToken
	}
	enc := base64.RawURLEncoding
	mac, err := enc.DecodeString(parts[4])
	if err != nil {
		return "", ErrBadEventToken
	}
	body := strings.Join(parts[:4], ".")
	if !hmac.Equal(mac, eventTokenMAC(secret, body)) {
		return "", ErrBadEventToken
	}
	tokenScan, err1 := enc.DecodeString(parts[1])
	tokenKey, err2 := enc.DecodeString(parts[2])
	exp, err3 := strconv.ParseInt(parts[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return "", ErrBadEventToken
	}
	if string(tokenScan) != scanID || !now.Before(time.Unix(exp, 0)) {
		return "", ErrBadEventToken
	}
	return string(tokenKey), nil
}

func eventTokenMAC(secret []byte, body string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(body))
	return m.Sum(nil)
}
