// Package shape judges what a candidate value looks like, whatever rule
// found it: a placeholder, a template, a name, an encoding of a stand-in,
// a version, a public key's shape, or a credential made by a machine. It
// holds no state and reads only the rule book's word lists and patterns.
package shape

import (
	"bytes"
	"encoding/base64"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"scand/scan/secrets/rulebook"
)

// CamelNameRe is a name in camel case, a number after it at most
// (NewEncapsulationKey1024): a random token of 20 characters is never
// made of capitalised words alone.
var CamelNameRe = regexp.MustCompile(`^[A-Za-z][a-z]+(?:[A-Z][a-z]+)+[0-9]{0,6}$`)

// KeyValueOK is the stricter bar a value under a plain "..._key"
// name must clear before the generic one (which turns snake-case names
// away, ec2_metadata_service_endpoint), that name being as often a lookup
// key, a setting's name, a digest or an ID: 20 or more letters and
// digits, _ and -, with two digits and two letters at least; hex only as
// lowerHexKey, not a camel-case name.
// Dotted paths and struct tags fail it; base64 passes only when it
// encodes random bytes (an AES, HMAC or storage account key).
func KeyValueOK(v []byte) bool {
	v = bytes.Trim(v, "\"'`")
	if len(v) < 20 || IsHex(v) && !lowerHexKey(v) || bytes.HasPrefix(v, []byte("LS0tLS1")) || Base64OfText(v) || CamelNameRe.Match(v) {
		return false
	}
	if bytes.ContainsAny(v, "+/=") {
		// Random bytes give every class of character; a path
		// (config/legacyMigrationBundleLog) also decodes.
		return Base64OfRandomBytes(v) && bytes.ContainsFunc(v, unicode.IsDigit) &&
			bytes.ContainsFunc(v, unicode.IsUpper) && bytes.ContainsFunc(v, unicode.IsLower)
	}
	letters, digits := 0, 0
	for _, b := range v {
		switch {
		case '0' <= b && b <= '9':
			digits++
		case 'a' <= b|0x20 && b|0x20 <= 'z':
			letters++
		case b == '_' || b == '-':
		default:
			return false
		}
	}
	return letters >= 2 && digits >= 2
}

// lowerHexKey reports hex that reads as a key under a key's name: 32 to
// 64 lower-case digits with letters and numbers both (diffbot_key,
// GITEA_KEY, RAILS_MASTER_KEY), or upper-case digits of a key's length,
// 128, 192 or 256 bits (KEEN_READ_KEY). Shorter hex is an ID; 40
// upper-case digits under a key's name are a PGP fingerprint
// (releaseManagerKey), and digests under a lookup's name (snapshot_key)
// are turned away by rulebook.NonSecretKeyWords before this.
func lowerHexKey(v []byte) bool {
	if !bytes.ContainsAny(v, "0123456789") {
		return false
	}
	if !bytes.ContainsAny(v, "ABCDEF") {
		return len(v) >= 32 && len(v) <= 64 && bytes.ContainsAny(v, "abcdef")
	}
	return (len(v) == 32 || len(v) == 48 || len(v) == 64) && !bytes.ContainsAny(v, "abcdef")
}

// LooksSnakeName reports a snake- or kebab-case name: two or more
// parts, at least two thirds of them lower-case words or short parts such
// as ec2 and v1 (s3_disable_express_session_auth, tunnel1_preshared_key),
// and no longer part that is not a word. A random token with _ or - has
// mixed case or digits in most parts.
func LooksSnakeName(v []byte) bool {
	parts := bytes.FieldsFunc(v, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ':' })
	if len(parts) < 2 {
		return false
	}
	words := 0
	for _, p := range parts {
		lowerOnly := bytes.IndexFunc(p, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) < 0
		if lowerOnly && (len(p) <= 3 || bytes.IndexFunc(p, func(r rune) bool { return r < 'a' }) < 0) {
			words++
		} else if len(p) > 12 {
			return false // a random run after a vendor's prefix (sk-pyx-h7WWBQ...)
		}
	}
	return 3*words >= 2*len(parts)
}

// Base64OfPlaceholder reports base64 of a stand-in: "cGFzc3dvcmQ=" is
// "password", "YWRtaW46cGFzc3dvcmQxMjM=" is admin:password123. Encoding a
// weak word hides nothing.
func Base64OfPlaceholder(v []byte) bool {
	if len(v) < 8 || len(v)%4 != 0 {
		return false
	}
	dec, err := base64.StdEncoding.DecodeString(string(v))
	if err != nil || !utf8.Valid(dec) {
		return false
	}
	word := strings.ToLower(string(dec))
	user, pw, pair := strings.Cut(word, ":")
	if pair {
		word = pw
	}
	if v[len(v)-1] != '=' {
		// Unpadded, a value may decode by chance; a pair that repeats
		// its user as the password (testing:testing) is a stand-in all
		// the same.
		return pair && (user == pw || rulebook.WeakPasswordPlaceholders[pw])
	}
	return rulebook.WeakPasswordPlaceholders[word] || LooksPlaceholder([]byte(word))
}

// Base64OfText reports a base64 value that decodes to words with
// blanks ("oh no this is bad") or to letters alone (a keyboard mash,
// "laskdjflaksdjf..."): encoded text, not key material, whose bytes are
// random. A random key of 16 letters and digits or more has a digit
// but for odds of about 1 in 20.
func Base64OfText(v []byte) bool {
	dec, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(string(v), "="))
	if err != nil || len(dec) < 8 {
		return false
	}
	letters := 0
	for _, b := range dec {
		if b < ' ' || b > '~' {
			return false
		}
		if 'a' <= b|0x20 && b|0x20 <= 'z' {
			letters++
		}
	}
	return bytes.Contains(dec, []byte(" ")) || letters == len(dec) && len(dec) >= 16
}

// WordAndNumber reports a word and then a number (minio123, rootpass123,
// Admin2024): a value a person chose, as documentation's samples are.
func WordAndNumber(v []byte) bool {
	i := bytes.IndexFunc(v, func(r rune) bool { return r < 'A' || r > 'z' || r > 'Z' && r < 'a' })
	return i >= 3 && !bytes.ContainsFunc(v[i:], func(r rune) bool { return r < '0' || r > '9' })
}

// Base64OfRandomBytes reports standard base64 (padded or not) of 16 or
// more bytes of which a quarter or more are not printable ASCII: random
// bytes are so about 63 % of the time per byte, text never.
func Base64OfRandomBytes(v []byte) bool {
	dec, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(string(v), "="))
	if err != nil || len(dec) < 16 {
		return false
	}
	binary := 0
	for _, b := range dec {
		if b < ' ' || b > '~' {
			binary++
		}
	}
	return 4*binary >= len(dec)
}

// WordPassword accepts a password of letters only ("rootpasswd")
// where a value can only be a literal: quoted in Terraform and HCL (a
// reference, var.db_password, is unquoted; an interpolation is caught as a
// template) and any value in a dotenv file (REACT_APP_AUTH_PASSWORD=...,
// which the React and Vite builds also ship to the browser), so the digit the generic rules ask for elsewhere (to
// tell a value from a label or a message) proves nothing there.
func WordPassword(v []byte) bool {
	lv := strings.ToLower(string(v))
	// Words about the password are no password: mypassword,
	// notacpassword, thisismypassword.
	if len(v) < 8 || rulebook.WeakPasswordPlaceholders[lv] || SaysPassword(v) || LooksTemplate(v) || LooksPlaceholder(v) {
		return false
	}
	for _, b := range v {
		if !('a' <= b|32 && b|32 <= 'z') {
			return false
		}
	}
	return true
}

// SaysPassword reports a password that is words about one: letters,
// perhaps joined by _ - or ., one of them password or passphrase
// (mypassword, my_password, db.password). A word password such as
// rootpasswd is a password (WordPassword).
func SaysPassword(v []byte) bool {
	lv := strings.ToLower(string(v))
	return strings.Trim(lv, "abcdefghijklmnopqrstuvwxyz_.-") == "" &&
		(strings.Contains(lv, "password") || strings.Contains(lv, "passphrase"))
}

// wordsJoinedBy reports lv made of lower-case words, two or more, joined
// by sep.
func wordsJoinedBy(lv, sep string) bool {
	return strings.Contains(lv, sep) && !strings.Contains(lv, sep+sep) && !strings.HasPrefix(lv, sep) && !strings.HasSuffix(lv, sep) &&
		strings.Trim(lv, "abcdefghijklmnopqrstuvwxyz"+sep) == ""
}

// CallOrIndexRe is a whole value that is a call or an index of a dotted
// name (request.form["password"], users.get(username)): code where a
// literal was expected, as when code is pasted into an .env file.
var CallOrIndexRe = regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\[[^\]]*\]|\([^)]*\))$`)

var ConcatRe = regexp.MustCompile("^\\+[A-Za-z_][A-Za-z0-9_.]*[(+]|[\"'`]\\+|\\+[\"'`]")

// GenericValueOK decides whether an assigned literal looks like a
// real credential rather than a word, an expression, a path or a
// placeholder. Values made only of letters are rejected (identifiers such
// as "Bearer" or "refresh_token"), which also skips pass-phrases made only
// of words: an accepted false negative, documented.
func GenericValueOK(v, ident []byte, entropyFactor, entropyCap float64, weakOK bool) bool {
	// A value that opens with the other quote is a concatenation:
	// "'$PRECOMPILE_PASSWORD'" closes the string around a variable.
	v = bytes.Trim(v, "\"'`")
	if len(v) < rulebook.GenericMinLen || len(v) > rulebook.GenericTokenMaxLen ||
		len(v) > rulebook.GenericMaxLen && bytes.ContainsFunc(v, func(r rune) bool { return !IsTokenByte(r) }) {
		return false
	}
	letters, others := 0, 0
	for _, b := range v {
		switch {
		case b <= ' ' || b == 0x7f:
			return false
		case b >= 0x80:
			// Non-ASCII: natural language ("请输入密码", "Passwörter"),
			// which machine-made secrets never contain.
			return false
		case 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_' || b == '-' || b == '.':
			letters++
		default:
			others++
		}
	}
	if others == 0 || others == 1 && (v[len(v)-1] == ',' || v[len(v)-1] == ';') || bytes.IndexAny(v, "_-.:") > 0 && LooksSnakeName(v) {
		// Only letters, or an identifier and the list's comma the quotes
		// took in (_kHMSymptomhf_generatedByHomeAppForDebuggingPurposesKey,).
		return false
	}
	if LooksEncrypted(v) || NotACredentialShape(v) || Base64OfText(v) {
		return false
	}
	// A value opened by a separator is the rest of a list whose value was
	// empty (`SharedAccessKey=superSecret1234=;EntityPath=hub` read from
	// the name superSecret1234).
	if v[0] == ';' || v[0] == ',' || v[0] == '&' {
		return false
	}
	// A list of stand-ins (PASSWORD1,PASSWORD2): every item a placeholder.
	if bytes.IndexByte(v, ',') >= 0 && !slices.ContainsFunc(strings.Split(strings.ToLower(string(v)), ","), func(it string) bool {
		return !rulebook.WeakPasswordPlaceholders[it] && !CredentialWordAndDigits(it)
	}) {
		return false
	}
	// A name and the operator after it: the value was empty and the next
	// pair's name was taken (`auth_token= client_cert=`), or a label that
	// a colon ends (`presenting token: gandiv5: unexpected ...`).
	if n := len(v); v[n-1] == ':' && !bytes.ContainsFunc(v[:n-1], func(r rune) bool { return !IdentByte(byte(r)) && r != '.' && r != '-' }) ||
		v[n-1] == '=' && LooksSnakeName(v[:n-1]) {
		return false
	}
	// A quote next to a + inside the value, or + and a call or a
	// variable joined on: the quotes taken were those of two literals
	// joined in code (`"key": `+fmt.Sprintf(...), "?apikey="+key+"&").
	// A base64 key may start with + alone.
	if bytes.IndexByte(v, '+') >= 0 && ConcatRe.Match(v) || len(v) > 0 && (v[len(v)-1] == ']' || v[len(v)-1] == ')') && CallOrIndexRe.Match(v) {
		return false
	}
	lv := strings.ToLower(string(v))
	// arn: is an AWS resource name (IAMUserChangePassword = "arn:aws:iam::aws:policy/…").
	for _, p := range []string{"http://", "https://", "file:", "(", "sha256:", "sha512-", "sha1-", "arn:"} {
		if strings.HasPrefix(lv, p) {
			return false
		}
	}
	// A path; a generated key that happens to start with a slash
	// (WordPress's salts: "/t<^}8SH...") has characters no path has.
	for _, p := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(lv, p) && strings.Trim(lv, "abcdefghijklmnopqrstuvwxyz0123456789_./~-") == "" {
			return false
		}
	}
	// Words joined by | or /: a choice from help text
	// (CSIServiceAccountToken=true|false) or a relative path of words
	// (JSSResource/osxconfigurationprofiles, an API resource under a key's
	// name); a random base64 value of that length nearly always holds a digit.
	if wordsJoinedBy(lv, "|") || wordsJoinedBy(lv, "/") {
		return false
	}
	// A URL, an image pinned by digest (aws-cli@sha256:eaaa7b...), a host
	// and its port or path (core.harbor.domain:8080, rg.pl-waw.scw.cloud/x).
	if strings.Contains(lv, "://") || strings.Contains(lv, "@sha256:") || strings.Contains(lv, "@sha512:") || bytes.IndexByte(v, '.') >= 0 && HostRe.Match(v) {
		return false
	}
	switch path.Ext(lv) {
	case ".pem", ".key", ".json", ".txt", ".yaml", ".yml", ".crt", ".p12", ".pfx", ".env", ".conf", ".cfg", ".ini", ".xml", ".jks", ".toml", ".properties":
		return false
	}
	if StripSeparators([]byte(lv)) == StripSeparators(ident) {
		return false // password: "password", apiKey: "api_key", Secret_Base64String: "secret_base64String"
	}
	if Base64OfPlaceholder(v) {
		return false
	}
	if weakOK {
		return !rulebook.WeakPasswordPlaceholders[lv] && !LooksTemplate(v)
	}
	// With a base64 value's padding written after it (superSecret1234=).
	if CredentialWordAndDigits(strings.TrimRight(lv, "=")) {
		return false
	}
	// In source code, a value without a digit that names the credential is
	// a label, a CSS selector or a message: "#add-password", "Password:", "token-field".
	if !bytes.ContainsAny(v, "0123456789") {
		for _, kw := range []string{"password", "passwd", "secret", "token"} {
			if strings.Contains(lv, kw) {
				return false
			}
		}
	}
	if LooksPlaceholder(v) {
		return false
	}
	bar := math.Min(entropyCap, entropyFactor*math.Log2(float64(len(v))))
	if IsHex(v) && bytes.Contains(ident, []byte("secret")) {
		// Sixteen symbols carry at most 4 bits: a random 32-hex secret
		// measures 3.3 to 3.7, so the bar scales with the alphabet. Only
		// under a name that says secret: a hex "API key" is as often a
		// public client ID (Shopify's SHOPIFY_API_KEY).
		bar = math.Min(bar, 3.0)
	}
	return Entropy(v) >= bar
}

// jwtWithWordSignature reports a JWT whose signature is a word
// (eyJ...eyJ....signature): written for a document, which the jwt rule
// turns away; no generic rule may report it instead. An unsigned token
// (alg none, nothing after the last dot) still opens an API that accepts
// it, and stays the generic rules' to judge.
func jwtWithWordSignature(v []byte) bool {
	if !bytes.HasPrefix(v, []byte("eyJ")) || bytes.Count(v, []byte(".")) != 2 {
		return false
	}
	sig := v[bytes.LastIndexByte(v, '.')+1:]
	return len(sig) > 0 && len(sig) < 16 && IsLowerWord(sig)
}

var QualifiedNameRe = regexp.MustCompile(rulebook.QualifiedNamePattern)

var HostRe = regexp.MustCompile(rulebook.HostPattern)

var VendorShapeRe = regexp.MustCompile(rulebook.VendorShapePattern)

// NotACredentialShape reports values the generic rules must leave
// alone whatever their name: an Ethereum address (public by nature), a
// key public by design (rulebook.PublicTokenPrefixes), a JWT signed with
// a word, a qualified type name, a value in a Telegram bot token's shape.
func NotACredentialShape(v []byte) bool {
	if publicTokenPrefix(v) || jwtWithWordSignature(v) {
		return true
	}
	if len(v) == 42 && bytes.HasPrefix(v, []byte("0x")) && !bytes.ContainsFunc(v[2:], func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r|32 && r|32 <= 'f')
	}) {
		return true
	}
	colon := bytes.IndexByte(v, ':') >= 0
	return colon && QualifiedNameRe.Match(v) ||
		(colon || bytes.HasPrefix(v, []byte("AIza")) || bytes.HasPrefix(v, []byte("pk"))) && VendorShapeRe.Match(v) ||
		bytes.IndexByte(v, '.') >= 0 && VersionRe.Match(v) || VendorSample(v)
}

// VendorPrefixes are the vendor rules' keywords that open a token
// (xoxb-, HRKU-AA, ghp_, sk-ant-), gathered once from the rule book.
// Plain words a value may start with (live_, test_, key-, API-) are left
// out: they open other values too.
var VendorPrefixes = func() []string {
	var out []string
	for _, r := range rulebook.Rules() {
		if strings.HasPrefix(r.ID, "generic-") {
			continue
		}
		for _, k := range append(slices.Clone(r.Keywords), r.CSKeywords...) {
			word := strings.ToLower(strings.Trim(k, "-_."))
			if len(k) < 4 || !strings.ContainsAny(k, "-_.") || strings.ContainsAny(k, " =:\"'?&") || k[0] == '.' ||
				slices.Contains([]string{"live", "test", "key", "api", "pat", "sat"}, word) {
				continue
			}
			out = append(out, k)
		}
	}
	return out
}()

// VendorPrefixed reports a rule whose value opens with a vendor's own
// prefix (one of VendorPrefixes: ghp_, glrt-, dop_v1_, not live_); private
// keys and JWTs open with a format's marker, not a vendor's.
func VendorPrefixed(r rulebook.Rule) bool {
	if strings.HasPrefix(r.ID, "private-key") || strings.HasPrefix(r.ID, "jwt") {
		return false
	}
	for _, k := range r.CSKeywords {
		if slices.Contains(VendorPrefixes, k) {
			return true
		}
	}
	return false
}

// VendorSample reports a value that opens with a vendor's prefix
// and carries two or more numeric IDs of four digits or fewer
// (xoxb-123-456-..., xoxp-1234-1234-1234-...): the IDs of a sample. The
// vendor's rule, which knows the real IDs' lengths, turned it away; the
// generic rules must not report the lookalike instead. A lone short
// number is a version (xapp-1-, xoxe-1-) and does not count.
func VendorSample(v []byte) bool {
	prefixed := false
	for _, p := range VendorPrefixes {
		if bytes.HasPrefix(v, []byte(p)) {
			prefixed = true
			break
		}
	}
	if !prefixed {
		return false
	}
	short := 0
	for _, part := range bytes.Split(v, []byte("-")) {
		if len(part) > 0 && len(part) <= 4 && !bytes.ContainsFunc(part, func(r rune) bool { return r < '0' || r > '9' }) {
			short++
		}
	}
	return short >= 2
}

var VersionRe = regexp.MustCompile(rulebook.VersionPattern)

// CredentialWordAndDigits reports a value that is a credential's
// word and a number (token123, Password1234, secret1): in source code
// that is a test's stand-in, not something issued.
func CredentialWordAndDigits(lv string) bool {
	w := strings.TrimRight(lv, "0123456789")
	if len(w) == len(lv) {
		return false
	}
	switch w {
	case "token", "secret", "password", "passwd", "pass", "pwd", "key", "apikey", "api_key", "api-key":
		return true
	}
	// Words ending in the credential's word, then the number
	// (CleartextPassword1, mySecret42, testtoken7).
	for _, word := range []string{"password", "passwd", "secret", "token"} {
		if head, ok := strings.CutSuffix(w, word); ok && strings.Trim(head, "abcdefghijklmnopqrstuvwxyz") == "" {
			return true
		}
	}
	return false
}

func StripSeparators(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c != '_' && c != '-' && c != '.' {
			out = append(out, c)
		}
	}
	return string(out)
}

var TemplateRe = regexp.MustCompile(rulebook.TemplatePattern)

// MatchesTemplate is TemplateRe.Match behind the bytes every form of it
// holds: the regexp has no literal prefix to skip ahead with, and most
// values hold none of them.
func MatchesTemplate(v []byte) bool {
	return bytes.ContainsAny(v, "<>[({") && TemplateRe.Match(v)
}

// AlphabetRun reports values written by walking the alphabet or
// the digits ("abCD1EF+GHIJxLMnOPqRS..."): at least 8 neighbouring pairs,
// and a quarter of all pairs, are successors (b after a, 4 after 3), case
// aside. In a random value about one pair in 26 is. A short value
// (AbCeFG123) needs three quarters of its pairs and at least 5, and so
// does a short value of two walks interleaved (1a2b3c4d), counted at
// stride 2. A long one (a1b2c3d4e5f6...) is how people write out a
// vendor's format by hand, and the corpora label it a secret.
func AlphabetRun(v []byte) bool {
	succ, succ2 := 0, 0
	for i := 1; i < len(v); i++ {
		if successor(v[i-1], v[i]) {
			succ++
		}
		if i >= 2 && successor(v[i-2], v[i]) {
			succ2++
		}
	}
	pairs := len(v) - 1
	return succ >= 8 && 4*succ >= pairs || succ >= 5 && 4*succ >= 3*pairs || len(v) <= 12 && succ2 >= 5 && 4*succ2 >= 3*(pairs-1)
}

// successor reports b right after a in the alphabet or the digits, case
// aside.
func successor(a, b byte) bool {
	a, b = LowerByte(a), LowerByte(b)
	return b == a+1 && ('a' <= a && a < 'z' || '0' <= a && a < '9')
}

// LooksFormatPlaceholder is LooksPlaceholder for values of a
// vendor's exact format: fillers, repetitions, templates, documented
// examples and the words of rulebook.FormatPlaceholderMarkers.
func LooksFormatPlaceholder(v []byte) bool {
	lv := strings.ToLower(string(v))
	for _, m := range rulebook.FormatPlaceholderMarkers {
		if strings.Contains(lv, m) {
			return true
		}
	}
	if IsDocumentedExample(v) || MatchesTemplate(v) || RepeatsOverHalf(v) {
		return true
	}
	return LowVariety(v)
}

// LooksEncrypted reports a committed ciphertext value: it is
// what encryption-at-rest tools are for, not a leak.
func LooksEncrypted(v []byte) bool {
	if len(v) >= 18 && v[0] == '{' && v[len(v)-1] == '}' && !bytes.ContainsFunc(v[1:len(v)-1], func(r rune) bool { return r >= 128 || !IsBase64Byte(byte(r)) }) {
		// Maven's encrypted passwords ({base64=} in settings.xml, the
		// master password decrypts them) and Jenkins' secrets.
		return true
	}
	for _, p := range rulebook.EncryptedPrefixes {
		if bytes.HasPrefix(v, []byte(p)) {
			switch p {
			case "ENC[":
				return bytes.Contains(v, []byte(",iv:")) || bytes.Contains(v, []byte("data:"))
			case "ENC(":
				// Jasypt's ciphertext is base64 of at least a salt and a block.
				body := bytes.TrimSuffix(v[len(p):], []byte(")"))
				return len(body) >= 24 && !bytes.ContainsFunc(body, func(r rune) bool { return r >= 128 || !IsBase64Byte(byte(r)) })
			}
			return true
		}
	}
	return false
}

// LooksPlaceholder reports whether v is a template reference, a
// documentation value or a repeated-character filler.
func LooksPlaceholder(v []byte) bool {
	if bytes.HasPrefix(v, []byte("...")) || bytes.HasSuffix(v, []byte("...")) {
		return true // elided in documentation: "...6wqX6fNUXA/rYqRv..."
	}
	if len(bytes.Trim(v, "*• ")) == 0 {
		return true // a masked value: "*** ", "••••••••"
	}
	lv := strings.ToLower(string(v))
	for _, m := range rulebook.SequenceMarkers {
		if strings.Contains(lv, m) {
			return true
		}
	}
	return HasRepeatedPattern(v) || AlphabetRun(v) || LooksTemplate(v)
}

// HasRepeatedPattern reports values built by repeating a short
// chunk (AKIADEADBEEFDEADBEEF, AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZ...): some
// period p (up to 32) at which at least 8 consecutive bytes repeat, the repetition
// spanning half the value or more. A random value repeats 8 bytes by
// chance with probability around 62^-8.
func HasRepeatedPattern(v []byte) bool { return repeatedRun(v, true) }

// RepeatsOverHalf is HasRepeatedPattern for values of a
// vendor's exact format, whose alphabet is small (hex) and whose fixtures
// repeat a short run by hand: the repeated run itself must cover half the
// value (AKIADEADBEEFDEADBEEF, sgp_5555555dAAAAA...).
func RepeatsOverHalf(v []byte) bool { return repeatedRun(v, false) }

// repeatedRun finds a run of 8 or more bytes that repeat at some period p
// up to 32 and covers half of v: the run alone, or the run and the period
// it repeats (withPeriod).
func repeatedRun(v []byte, withPeriod bool) bool {
	for p := 1; p <= min(len(v)/2, 32); p++ {
		run := 0
		for i := 0; i+p < len(v); i++ {
			// Case aside: iNValIdinValiDinvalid is one word repeated.
			if v[i] != v[i+p] && !(v[i]|0x20 == v[i+p]|0x20 && 'a' <= v[i]|0x20 && v[i]|0x20 <= 'z') {
				run = 0
				continue
			}
			run++
			covered := run
			if withPeriod {
				covered += p
			}
			if run >= 8 && 2*covered >= len(v) {
				return true
			}
		}
	}
	return false
}

// TestModeRe is a key in a vendor's test mode: a short prefix, _test_
// and a random run (dk_test_..., key_test_..., bb_test_...). Its "test"
// names the mode the key works in, not a fixture; the random run is still
// judged for markers.
var TestModeRe = regexp.MustCompile(`^[a-z]{2,8}_test_[A-Za-z0-9]{20,}$`)

// LooksTemplate is LooksPlaceholder without the sequence
// markers.
func LooksTemplate(v []byte) bool {
	lv := strings.ToLower(string(v))
	if bytes.Contains(v, []byte("_test_")) && TestModeRe.Match(v) {
		lv = lv[strings.Index(lv, "_test_")+len("_test_"):]
	}
	for _, m := range rulebook.PlaceholderMarkers {
		if strings.Contains(lv, m) {
			return true
		}
	}
	if IsDocumentedExample(v) || MatchesTemplate(v) {
		return true
	}
	for _, suf := range rulebook.InstructionSuffixes {
		if len(lv) > len(suf)+3 && strings.HasSuffix(lv, suf) {
			return true
		}
	}
	// $VAR; ${VAR} is caught above.
	if len(v) > 1 && v[0] == '$' && (IdentByte(v[1]) || v[1] == '{') {
		return true
	}
	// %VAR% (Windows), @VAR@ (Maven/Gradle resource filtering).
	if len(v) > 2 && (v[0] == '%' || v[0] == '@') && v[len(v)-1] == v[0] {
		return true
	}
	return LowVariety(v)
}

// LowVariety reports fillers like "aaaaaaaa" or "abababab": too
// few distinct bytes, or one byte making up more than half the value.
func LowVariety(v []byte) bool {
	var counts [256]int
	distinct, most := 0, 0
	for _, b := range v {
		if counts[b] == 0 {
			distinct++
		}
		counts[b]++
		most = max(most, counts[b])
	}
	if len(v) >= 6 && distinct <= 3 {
		return true
	}
	return len(v) >= 8 && most*2 > len(v)
}

// Entropy is the Shannon entropy of v in bits per byte.
func Entropy(v []byte) float64 {
	if len(v) == 0 {
		return 0
	}
	var counts [256]int
	for _, b := range v {
		counts[b]++
	}
	n := float64(len(v))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// DocumentedExamples is rulebook.DocumentedExamples as a set: every
// generic value is looked up in it.
var DocumentedExamples = func() map[string]bool {
	m := make(map[string]bool, len(rulebook.DocumentedExamples))
	for _, ex := range rulebook.DocumentedExamples {
		m[ex] = true
	}
	return m
}()

func IsDocumentedExample(v []byte) bool { return DocumentedExamples[string(v)] }

func IsBase64Byte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '+' || b == '/' || b == '='
}

// IsTokenByte reports the bytes of base64, base64url and
// dotted tokens (JWTs, Entra refresh tokens).
func IsTokenByte(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("._~+/=-", r)
}

func IsAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// IsHex reports a value made of hexadecimal digits only.
func IsHex(v []byte) bool {
	for _, b := range v {
		if !('0' <= b && b <= '9' || 'a' <= b|32 && b|32 <= 'f') {
			return false
		}
	}
	return len(v) > 0
}

// HasHexRun reports n or more hex digits in a row in b.
func HasHexRun(b []byte, n int) bool {
	run := 0
	for _, c := range b {
		if '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// IsLowerWord reports a run of lower-case ASCII letters only
// (resourcekey, apilayerkey): one word, or words run together.
func IsLowerWord(b []byte) bool {
	return bytes.IndexFunc(b, func(r rune) bool { return r < 'a' || r > 'z' }) < 0
}

// LowerByte folds an ASCII letter to lower case, leaving every other byte.
func LowerByte(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + ('a' - 'A')
	}
	return b
}

// IdentByte reports a byte of an identifier as names are written in
// configuration and code: letters, digits, _ - and the dot of a path.
func IdentByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_' || b == '-' || b == '.'
}

// CutAtNextPair ends an unquoted value where the next pair of a
// list begins: JDBC's (host=h,user=u,password=secret),(host=...) and
// key=value lists joined by ';' or '&' hold one value per pair, and
// closing brackets the value did not open belong to the list.
func CutAtNextPair(line []byte, p, e int) int {
	opened := false
scan:
	for i := p; i < e; i++ {
		switch c := line[i]; {
		case c == '(' || c == '[':
			opened = true
		case i == p:
		case (c == ')' || c == ']') && !opened && i+1 < e && strings.IndexByte(")],;/", line[i+1]) >= 0:
			e = i // the list's own brackets close: (...,password=secret)]/db
			break scan
		case (c == ',' || c == ';' || c == '&') && startsPair(line[i+1:e]):
			e = i
			break scan
		}
	}
	for !opened && e > p+1 && (line[e-1] == ')' || line[e-1] == ']') {
		e--
	}
	return e
}

// startsPair reports whether b opens with name= (after any opening
// brackets), a name not starting with a digit.
func startsPair(b []byte) bool {
	b = bytes.TrimLeft(b, "([")
	k := 0
	for k < len(b) && IdentByte(b[k]) {
		k++
	}
	return k > 0 && k < len(b) && b[k] == '=' && (b[0] < '0' || b[0] > '9')
}
