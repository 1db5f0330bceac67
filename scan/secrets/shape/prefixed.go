package shape

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"

	"scand/scan/secrets/rulebook"
)

// Bounds of a prefixed token's random body: GitHub's 36 characters and
// Stripe's 99 sit well inside; a shorter body is too often a test ID.
const (
	prefixedBodyMin = 30
	prefixedBodyMax = 120
)

// FindPrefixedTokens calls fn with the bounds of each token in data that
// has the shape most vendors now give their keys (GitHub's ghp_, Stripe's
// sk_live_, Vercel's vcp_, PostHog's phx_): a lower-case prefix of one or
// two short parts, each closed by "_", then a machine-made body (see
// prefixedBody). Tokens that open with a prefix the rule book knows are
// left to that vendor's rule, which knows the real length: a near miss of
// its format (one character short, a neighbouring prefix) is its
// negative, not a new vendor's key.
func FindPrefixedTokens(data []byte, fn func(start, end int)) {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '_')
		if j < 0 {
			return
		}
		at := i + j
		start, end := at, at
		for start > 0 && tokenRunByte(data[start-1]) {
			start--
		}
		for end < len(data) && tokenRunByte(data[end]) {
			end++
		}
		i = end + 1
		if end-start < prefixedBodyMin+3 || !prefixedBoundary(data, start, end) {
			continue
		}
		if bodyAt := prefixedBodyStart(data[start:end]); bodyAt > 0 && prefixedBody(data[start+bodyAt:end]) && !knownVendorPrefix(data[start:end]) {
			fn(start, end)
		}
	}
}

func tokenRunByte(b byte) bool { return IsAlnum(b) || b == '_' || b == '-' }

// prefixedBoundary turns away a run that continues a path, a URL, base64
// or a dotted name on either side.
func prefixedBoundary(data []byte, start, end int) bool {
	if start > 0 && strings.IndexByte("./+=\\%@", data[start-1]) >= 0 {
		return false
	}
	if end < len(data) {
		switch data[end] {
		case '/', '+', '=', '\\', '%', '@':
			return false
		case '.':
			return end+1 >= len(data) || !IsAlnum(data[end+1])
		}
	}
	return true
}

// prefixedBodyStart is the offset of the body after a prefix of one or
// two parts of lower-case letters and digits (the first opening with a
// letter, 2 to 10 long; a second of 1 to 8: sk_live_, tgp_v1_), or 0.
func prefixedBodyStart(tok []byte) int {
	i := bytes.IndexByte(tok, '_')
	if i < 2 || i > 10 || tok[0] < 'a' || tok[0] > 'z' || !lowerAlnum(tok[:i]) {
		return 0
	}
	body := i + 1
	if k := bytes.IndexByte(tok[body:], '_'); k >= 1 && k <= 8 && lowerAlnum(tok[body:body+k]) {
		body += k + 1
	}
	return body
}

func lowerAlnum(b []byte) bool {
	return bytes.IndexFunc(b, func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) < 0
}

// prefixedBody reports a machine-made body: letters and digits only
// (an inner _ or - is how generated names join words:
// file_envoy_admin_proto_rawDescGZIP), upper case, lower case and digits
// all present, the entropy of random base62, no run of seven lower-case
// letters (a word: test_validateExpiryOf...) and nothing a placeholder
// has.
func prefixedBody(v []byte) bool {
	if len(v) < prefixedBodyMin || len(v) > prefixedBodyMax {
		return false
	}
	var upper, lower, digit, lowerRun int
	for _, b := range v {
		switch {
		case 'a' <= b && b <= 'z':
			lower++
			lowerRun++
			if lowerRun >= 7 {
				return false
			}
			continue
		case 'A' <= b && b <= 'Z':
			upper++
		case '0' <= b && b <= '9':
			digit++
		default:
			return false
		}
		lowerRun = 0
	}
	return upper > 0 && lower > 0 && digit > 0 && Entropy(v) >= 4 && !LooksPlaceholder(v)
}

// tokenPrefixes are the rule book's keywords shaped like a token's
// prefix (ghp_, sk_live_, r8_), gathered once.
var tokenPrefixes = func() [][]byte {
	var out [][]byte
	for _, r := range rulebook.Rules() {
		for _, k := range append(slices.Clone(r.Keywords), r.CSKeywords...) {
			if at := prefixedBodyStart([]byte(k + "x")); at == len(k) {
				out = append(out, []byte(k))
			}
		}
	}
	return out
}()

// knownVendorPrefix reports a token that a vendor's rule already judged,
// or whose prefix is one character away from a vendor's (vct_ beside
// Vercel's vcp_, r9_ beside Replicate's r8_): a rule that knows the
// format turned it away. Tokens public by design are left alone too.
func knownVendorPrefix(tok []byte) bool {
	if publicTokenPrefix(tok) {
		return true
	}
	for _, p := range VendorPrefixes {
		if bytes.HasPrefix(tok, []byte(p)) {
			return true
		}
	}
	for _, p := range tokenPrefixes {
		if len(tok) <= len(p) || tok[len(p)-1] != '_' {
			continue
		}
		diff := 0
		for i := range p {
			if tok[i] != p[i] {
				diff++
			}
		}
		if diff <= 1 {
			return true
		}
	}
	return false
}

func publicTokenPrefix(v []byte) bool {
	for _, p := range rulebook.PublicTokenPrefixes {
		if bytes.HasPrefix(v, []byte(p)) {
			return true
		}
	}
	return false
}

// VendorShaped reports a value written in a vendor's shape rather than as
// one random run: a short lower-case prefix and its separator (ghp_,
// sk-, glpat-), or base64 that decodes to an ID and a colon (Atlassian's
// <id>:<random>). Where a name's value is read without quotes only by
// convention (a script's export), such a value failed its vendor's rule
// and is that rule's to judge.
func VendorShaped(v []byte) bool {
	i := 0
	for i < len(v) && i <= 10 && 'a' <= v[i] && v[i] <= 'z' {
		i++
	}
	if i >= 2 && i <= 10 && i < len(v) && (v[i] == '_' || v[i] == '-') {
		return true
	}
	dec, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(string(v), "="))
	if err != nil {
		return false
	}
	id, _, found := bytes.Cut(dec, []byte(":"))
	return found && len(id) >= 4 && !bytes.ContainsFunc(id, func(r rune) bool { return !IsAlnum(byte(r)) || r >= 128 })
}
