package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"scand/finding"
	"scand/scan/secrets/filekind"
	"scand/scan/secrets/rulebook"
	"scand/scan/secrets/shape"
)

// secretsRule is one kind of credential the secrets scanner knows. The
// table's data (titles, keywords, patterns, in priority order: the first
// rule to claim a span of a line wins) is scan/secrets/rulebook;
// secretsRuleTable attaches the code each entry names (validators,
// finders, prefilters).
//
// What is not reported: placeholders and documentation values (the markers
// in rulebook.PlaceholderMarkers, the exact dictionary
// rulebook.WeakPasswordPlaceholders, vendors' documented example keys,
// template references such as ${VAR}); unsigned JWTs; certificates and
// public keys; generic assignments in translation catalogues
// (filekind.Translation) or whose value is natural language.
// Passwords in configuration and IaC files need no entropy (a weak
// password is still a password); in source code they do.
//
// Severity policy (a security team reads these as "how fast must we act"):
//   - critical: live cloud-provider and payment credentials and unencrypted
//     private keys: whoever holds them can spend money, read customer data
//     or impersonate a server right now (AWS, Azure, GCP service accounts,
//     DigitalOcean, Stripe live keys, RSA/EC/DSA/OpenSSH/PGP/PKCS#8 keys).
//   - high: tokens for source hosting, CI, package registries, chat, mail
//     and AI APIs (GitHub, GitLab, Bitbucket/Atlassian, npm, PyPI, Docker
//     Hub, Slack and Discord bots, Twilio, SendGrid, Mailgun, OpenAI,
//     Anthropic, Hugging Face, Google API keys and OAuth client secrets,
//     Shopify) and database URLs with a password: they grant code, supply-
//     chain or data access, but within one service.
//   - medium: incoming-webhook URLs (post-only), JWTs (usually short-lived),
//     passphrase-protected private keys, and the generic
//     password/secret assignments, which are heuristic.
//
// CWE: CWE-798 (hard-coded credentials) for tokens and keys used as
// credentials; CWE-321 (hard-coded cryptographic key) for private keys;
// CWE-259 (hard-coded password) for passwords, including the password in a
// database URL.
type secretsRule struct {
	id          string
	title       string
	severity    finding.Severity
	cwe         finding.CWE
	remediation string // where and how to revoke this kind of credential

	// keywords (ASCII case-insensitive) and csKeywords (case-sensitive)
	// are literals of which a line must contain at least one for the rule
	// to be tried on it. A rule with neither is only ever produced by
	// another rule's finder (the private-key family).
	keywords   []string
	csKeywords []string
	// fileContext lists literals (case-insensitive) of which at least one
	// must appear somewhere in the same file, for rules whose line alone
	// is ambiguous (a PKCS#8 key is a GCP service-account key only inside
	// a service-account JSON file).
	fileContext []string
	// fileNames are base names of files whose every line the rule reads
	// (see rulebook.Rule.FileNames).
	fileNames []string

	// pattern is matched against candidate lines; the value is the group
	// named "secret", else group 1, else the whole match.
	pattern string
	// minEntropy is the minimum Shannon entropy (bits per byte) of the
	// value; it rejects fixtures such as "ghp_aaaa...".
	minEntropy float64
	// validate is an extra check on the value (decode a JWT header, skip
	// AWS's documented example keys, ...).
	validate func(value []byte, c *secretsMatchCtx) bool
	// find replaces pattern for rules that need more than a regexp.
	find func(c *secretsMatchCtx) []secretsSpan
	// prefilter, when set, is a cheap test of the line that must pass
	// before pattern or find runs: for rules whose keywords are common
	// words (key, token), it keeps the regexp off the lines that cannot
	// hold the value's shape.
	prefilter func(line []byte) bool
	// nested is the pattern of a vendor-name rule (secretsNear) for a line
	// inside a block that the vendor's name opens (sumologic:, "facebook":
	// {, provider "sumologic" {): there the name is on the block's line,
	// and the value's own key only has to say it holds a credential.
	nested string
	// modeWords marks formats whose prefix names a mode (sk_test_,
	// duffel_live_, FLWSECK_TEST-): "test" there is the vendor's word, not
	// a sign of a placeholder, so the placeholder check skips it.
	modeWords bool
	// vendorFormat marks rules whose value is pinned down by the vendor's
	// format (a prefix, a fixed length, a vendor name right before it):
	// shape.LooksFormatPlaceholder judges them, which looks for fillers,
	// templates and placeholder words but not for counting runs or words
	// such as "test" and "fake" that hand-made fixtures of the real format
	// contain (12345678-ABCD-..., sk-ant-admin01-abc12fake-...): such a
	// value passes every client-side check of the format, and the scanners
	// teams compare scand with report it.
	vendorFormat bool
	// formatPlaceholder: the placeholder check is vendorFormat's for
	// these rules, and for the core rules of a prefixed token (ghp_,
	// glrt-, sk_live_): the prefix pins the format down as much.
	formatPlaceholder bool

	re           *regexp.Regexp
	nestedRe     *regexp.Regexp
	secretGroups []int
	nestedGroups []int
}

// secretsMatchCtx is what a rule sees of one candidate line.
type secretsMatchCtx struct {
	data               []byte // the whole file (or history chunk)
	lineStart, lineEnd int    // the line is data[lineStart:lineEnd], without '\n'
	line               []byte
	secretsKinds
	k8sSecret bool           // the file declares a Kubernetes Secret: kubernetes-secret judges its data
	nested    secretsRuleSet // rules whose vendor name opens a block this line is in
	lower     []byte         // see lowerLine
	scratch   *secretsScratch
	engine    *secretsEngine
}

// secretsKinds says how the values of a line are written: the answers of
// filekind for the format the line is judged by.
type secretsKinds struct {
	configFile  bool   // unquoted values count (.env, .ini, YAML, ...)
	dockerfile  bool   // ENV NAME value, the older form, is an assignment
	plainText   bool   // a file of no language (.txt, .log): configFile, with caveats
	iacFile     bool   // Terraform, HCL, Bicep, ...: values are deployed as written
	translation bool   // an i18n catalogue: values are natural language
	format      string // the name the format is judged by (filekind.FormatName, or a code block's language)
	// docBlock: the line is documentation (Markdown, prose or code
	// block), whose values are samples unless machine-made: a weak
	// password there is one, where in the file it shows it is deployed.
	docBlock bool
}

func secretsKindsOf(format string) secretsKinds {
	return secretsKinds{configFile: filekind.Config(format), dockerfile: filekind.Dockerfile(format), plainText: filekind.PlainText(format),
		iacFile: filekind.IaC(format), translation: filekind.Translation(format), format: format}
}

// secretsSpan is one accepted match on a line. [matchStart, matchEnd) is
// the region that claims the line against lower-priority rules; [start,
// end) is where the value sits on the line (empty when it is on the
// following lines, as with a PEM body) and value is the secret itself.
type secretsSpan struct {
	rule                 int
	matchStart, matchEnd int
	start, end           int
	value                []byte
	// onValueLine reports the hit on the line below that holds the value
	// (an element's text on its own line) rather than on the name's.
	onValueLine bool
}

// secretsFindPasswordAssignments is generic-password. In configuration
// and IaC files (where `password = "..."` is a value someone will deploy)
// a password needs no entropy: "Aa12345678" in a Terraform file is a weak
// password, and weak is worse, not better. There only placeholders (the
// exact dictionary rulebook.WeakPasswordPlaceholders and the template
// markers) are skipped. Translation files are never searched: their
// "password" entries are labels in natural language.
func secretsFindPasswordAssignments(c *secretsMatchCtx) []secretsSpan {
	if c.translation || c.inK8sSecretData() {
		return nil
	}
	return secretsFindAssignments(c, rulebook.PasswordKeywords, rulebook.PasswordSuffixes, "generic-password",
		rulebook.PasswordEntropyFactor, rulebook.PasswordEntropyCap, (c.configFile || c.iacFile || filekind.JSON(c.format)) && !c.docBlock)
}

// secretsFindSecretAssignments is generic-secret; like generic-password it
// skips translation files.
func secretsFindSecretAssignments(c *secretsMatchCtx) []secretsSpan {
	if c.translation || c.inK8sSecretData() {
		return nil
	}
	return secretsFindAssignments(c, rulebook.SecretFinderKeywords, rulebook.SecretSuffixes, "generic-secret",
		rulebook.SecretEntropyFactor, rulebook.SecretEntropyCap, false)
}

// secretsFindAssignments finds `<name> <op> <value>` where name ends in one
// of suffixes: `password = "..."`, `"apiKey": "..."`, `token := "..."`,
// `SECRET_KEY: '...'`, `client_secret => "..."`. Quoted values count in
// any file; unquoted values only in configuration files (.env, .ini, YAML,
// TOML, properties), where they are the norm, because in source code an
// unquoted right-hand side is an expression, not a literal.
func secretsFindAssignments(c *secretsMatchCtx, keywords, suffixes []string, ruleID string, entropyFactor, entropyCap float64, weakOK bool) []secretsSpan {
	line, lower := c.line, c.lowerLine()
	var spans []secretsSpan
	var seen []int           // identifier starts already judged (db_secret_token holds two keywords)
	var seenSet map[int]bool // the same, once a long line has many
	for _, kw := range keywords {
		k := []byte(kw)
		for off := 0; off < len(lower); {
			i := bytes.Index(lower[off:], k)
			if i < 0 {
				break
			}
			i += off
			off = i + len(k)
			s := i
			for s > 0 && shape.IdentByte(lower[s-1]) {
				s--
			}
			e := off
			for e < len(lower) && shape.IdentByte(lower[e]) {
				e++
			}
			if seenSet != nil {
				if seenSet[s] {
					continue
				}
				seenSet[s] = true
			} else if slices.Contains(seen, s) {
				continue
			} else if seen = append(seen, s); len(seen) > 32 {
				seenSet = make(map[int]bool, 2*len(seen))
				for _, x := range seen {
					seenSet[x] = true
				}
			}
			// "key" and "auth" come last among the keywords: a name only
			// they find (clarifai_key, braintreeKey, authKey, proxyAuth) is
			// judged as a plain key name, with its stricter bar.
			// The name without its environment or version (SECRET_KEY_PROD,
			// api_token_v2) is what says what the value is.
			name := secretsNameWithoutQualifiers(line[s:e])
			lname := lower[s : s+len(name)]
			keyName := (kw == "key" || kw == "auth") && !secretsIdentEndsWith(lname, suffixes)
			if keyName {
				// ?key=... is an API key in a URL (Google's APIs and many
				// others), the one place a bare "key" names one.
				inQuery := s > 0 && (line[s-1] == '?' || line[s-1] == '&')
				queryKey := kw == "key" && e-s == 3 && inQuery && e < len(line) && line[e] == '='
				if inQuery && !queryKey && shape.IsLowerWord(name) {
					continue // a URL's own parameter (?resourcekey=), not a compound name
				}
				if ruleID != "generic-secret" || !queryKey && !secretsIdentIsKeyName(secretsLabelName(line, s, name), kw) {
					continue
				}
			} else if !secretsIdentEndsWith(lname, suffixes) && !(ruleID == "generic-password" && secretsIdentIsPass(name)) {
				continue
			}
			if rulebook.SessionTokenNames[shape.StripSeparators(lname)] || rulebook.TagNames[shape.StripSeparators(lname)] || secretsNameSaysPublic(lname, suffixes) {
				continue
			}
			// $name:key is a reference to another secret's key (Argo CD's
			// `$oidc-secret:clientSecret`), read where it is written.
			if s > 0 && line[s-1] == '$' && e < len(line) && line[e] == ':' {
				continue
			}
			// '/forgot-password' is a route; a name opened by a quote that an
			// operator follows ("Password:") sits inside a string, a label.
			if s > 0 && (line[s-1] == '/' || secretsIsQuote(line[s-1]) && e < len(line) && line[e] == ':') {
				continue
			}
			// In plain text a name inside quotes is quoted output
			// (stdout '--- PASS: ...'), not a setting. In a shell script
			// an unquoted password is a literal (PGPASSWORD=... psql), and
			// so is an exported variable's value (export NAME=...), as in
			// a dotenv file, unless it is in a vendor's shape: then it is a
			// lookalike the vendor rules rejected (shape.VendorShaped).
			unquotedOK := c.configFile && !(c.plainText && bytes.ContainsAny(line[:s], "'\"`")) || e < len(line) && line[e] == '=' && shape.CommandSetsValue(line[:s])
			shellExport := !unquotedOK && filekind.Shell(c.format) && shellExportRe.Match(line[:s])
			unquotedOK = unquotedOK || shellExport
			// ${NAME:default}, ${NAME:-default}: the default of a Spring or
			// shell reference is a literal in any file.
			inReference := s >= 2 && line[s-2] == '$' && line[s-1] == '{'
			vs, ve, ok := secretsAssignedValue(line, e, unquotedOK || inReference || ruleID == "generic-password" && filekind.Shell(c.format))
			if ok && inReference {
				if vs < ve && line[vs] == '-' {
					vs++
				}
				ve = vs + max(0, bytes.IndexByte(line[vs:ve], '}'))
				ok = ve > vs
			}
			if !ok {
				vs, ve, ok = secretsXMLKeyValue(line, s, e)
			}
			if !ok {
				vs, ve, ok = secretsXMLElementValue(line, s, e)
			}
			if !ok {
				vs, ve, ok = secretsCallPairValue(line, s, e)
			}
			if !ok {
				vs, ve, ok = secretsInStringValue(line, s, e)
			}
			if !ok {
				vs, ve, ok = secretsPairValue(line, s, e, c.configFile)
			}
			if !ok {
				// The value is on the next line: judged here, reported there.
				v, below := secretsXMLElementBelow(c, s, e)
				if !below {
					v, below = secretsAssignmentBelow(c, e)
				}
				if !below {
					v, below = secretsPairValueBelow(c, s, e)
				}
				if below {
					if (!keyName || shape.KeyValueOK(v)) && shape.GenericValueOK(v, lower[s:e], entropyFactor, entropyCap, weakOK) && !(c.docBlock && shape.WordAndNumber(v)) {
						spans = append(spans, secretsSpan{rule: c.engine.ruleIndex[ruleID], matchStart: s, matchEnd: e, start: e, end: e, value: v, onValueLine: true})
					}
					continue
				}
			}
			if !ok {
				vs, ve, ok = secretsDirectiveValue(line, s, e, c.configFile && filekind.BareDirectives(c.format))
			}
			if !ok && c.dockerfile {
				vs, ve, ok = secretsDockerEnvValue(line, s, e)
			}
			if !ok {
				vs, ve, ok = secretsQueryValue(line, s, e)
			}
			if !ok {
				vs, ve, ok = secretsCurlDataValue(c, s, e)
			}
			if !ok {
				vs, ve, ok = secretsFallbackValue(line, e)
			}
			if !ok {
				continue
			}
			// A value padded with blanks at both ends inside its quotes
			// (" I4_XpH... ") is the token copied with them; a blank at
			// one end is as often the gap between two joined literals.
			if vs > 0 && secretsIsQuote(line[vs-1]) && ve-vs > 2 && line[vs] == ' ' && line[ve-1] == ' ' {
				ts, te := vs, ve
				for ts < te && line[ts] == ' ' {
					ts++
				}
				for te > ts && line[te-1] == ' ' {
					te--
				}
				if ts < te && bytes.IndexByte(line[ts:te], ' ') < 0 {
					vs, ve = ts, te
				}
			}
			v := line[vs:ve]
			// A header's value kept whole ("Bearer <token>"): the token
			// after the scheme is the value.
			for _, scheme := range []string{"Bearer ", "bearer ", "Token ", "token ", "Bot "} {
				if len(v) > len(scheme)+8 && bytes.HasPrefix(v, []byte(scheme)) && bytes.IndexByte(v[len(scheme):], ' ') < 0 {
					vs += len(scheme)
					v = line[vs:ve]
					break
				}
			}
			if shellExport && (vs == 0 || !secretsIsQuote(line[vs-1])) && shape.VendorShaped(v) {
				continue
			}
			if vs > 0 && !secretsIsQuote(line[vs-1]) && (v[0] == '!' || v[0] == '&' || v[0] == '*') {
				continue // unquoted YAML tag, anchor or alias: `password: !vault |`
			}
			if keyName && !shape.KeyValueOK(v) {
				continue
			}
			// Documentation's samples are chosen by people: a word and a
			// number (minio123, rootpass123) there is the sample a reader
			// replaces, where in a configuration file it is what is deployed.
			if c.docBlock && shape.WordAndNumber(v) {
				continue
			}
			if !shape.GenericValueOK(v, lower[s:e], entropyFactor, entropyCap, weakOK) &&
				!(ruleID == "generic-password" && (c.iacFile && vs > 0 && secretsIsQuote(line[vs-1]) || filekind.Dotenv(c.format)) && shape.WordPassword(v)) {
				continue
			}
			// Where no syntax ends a value, a token's end is where its
			// characters end: KRXaU9GK3f[yHG1FS$]bwh... is no token.
			if c.plainText && ruleID != "generic-password" && (vs == 0 || !secretsIsQuote(line[vs-1])) &&
				bytes.ContainsFunc(v, func(r rune) bool { return !shape.IsTokenByte(r) && r != ':' }) {
				continue
			}
			if c.configFile && secretsInSealedSecret(c) {
				continue
			}
			spans = append(spans, secretsSpan{rule: c.engine.ruleIndex[ruleID], matchStart: s, matchEnd: ve, start: vs, end: ve, value: v})
		}
	}
	return spans
}

// secretsNameSaysPublic reports a name whose words before the credential's
// kind are rulebook.PublicNameWords (PUBLIC_TOKEN, publicApiKey).
func secretsNameSaysPublic(ident []byte, suffixes []string) bool {
	norm := shape.StripSeparators(ident)
	for _, suf := range suffixes {
		if head, ok := strings.CutSuffix(norm, suf); ok {
			for _, w := range rulebook.PublicNameWords {
				if strings.HasSuffix(head, w) {
					return true
				}
			}
		}
	}
	return false
}

// secretsFollowedByAsset reports a value that a file extension of
// rulebook.AssetExtensions follows: the hash in a fingerprinted asset's
// name.
func secretsFollowedByAsset(line []byte, end int) bool {
	if end >= len(line) || line[end] != '.' {
		return false
	}
	p := end + 1
	for p < len(line) && shape.IsAlnum(line[p]) {
		p++
	}
	return slices.Contains(rulebook.AssetExtensions, strings.ToLower(string(line[end+1:p])))
}

// secretsIdentIsPass reports a name that is a short form of password as
// a word, alone or at its end (DB_PASS, ftp.pass, smtpPass, "pass",
// database_pw, client.pw, psw): the short forms of .env files and FTP/SFTP
// tool configurations. bypass, compass and npw are not.
func secretsIdentIsPass(ident []byte) bool {
	for _, w := range rulebook.PasswordShortWords {
		n, k := len(ident), len(w)
		switch {
		case n < k:
		case n == k:
			if bytes.EqualFold(ident, []byte(w)) {
				return true
			}
		default:
			tail, before := ident[n-k:], ident[n-k-1]
			camel := tail[0] == w[0]-('a'-'A') && bytes.Equal(tail[1:], []byte(w[1:])) && before != '_'
			if camel || bytes.EqualFold(tail, []byte(w)) && (before == '_' || before == '-' || before == '.') {
				return true
			}
		}
	}
	return false
}

var secretsCallPairRe = regexp.MustCompile(rulebook.CallPairPattern)

// secretsCallPairValue returns the second argument of such a call whose
// first argument is the quoted name line[s:e].
func secretsCallPairValue(line []byte, s, e int) (int, int, bool) {
	if s == 0 || e >= len(line) || !secretsIsQuote(line[s-1]) || line[e] != line[s-1] || !secretsBefore(line, s-1, "(") || !secretsCallPairRe.Match(shape.Tail(line[:s-1])) {
		return 0, 0, false
	}
	p := secretsSkipBlanks(line, e+1)
	if p >= len(line) || line[p] != ',' {
		return 0, 0, false
	}
	p = secretsSkipBlanks(line, p+1)
	if p >= len(line) || !secretsIsQuote(line[p]) {
		return 0, 0, false
	}
	if q := bytes.IndexByte(line[p+1:], line[p]); q > 0 {
		return p + 1, p + 1 + q, true
	}
	return 0, 0, false
}

// secretsInSealedSecret reports a line under encryptedData of a Sealed
// Secrets manifest: ciphertext that only the cluster's controller can
// open, written to be committed.
func secretsInSealedSecret(c *secretsMatchCtx) bool {
	if !bytes.Contains(c.data, []byte("SealedSecret")) {
		return false
	}
	_, parent := secretsYAMLParent(c.data, c.lineStart)
	return parent == "encryptedData"
}

// secretsQueryValue returns the value of a URL query parameter whose
// name is line[s:e] (?client_secret=...&, &access_token=...): a URL is a
// literal in any file.
func secretsQueryValue(line []byte, s, e int) (int, int, bool) {
	if s == 0 || line[s-1] != '?' && line[s-1] != '&' {
		return 0, 0, false
	}
	return secretsParamValue(line, e)
}

// secretsParamValue reads a form parameter's value after its name, which
// ends at e: name=value, up to the next parameter or the string's end.
func secretsParamValue(line []byte, e int) (int, int, bool) {
	if e >= len(line) || line[e] != '=' {
		return 0, 0, false
	}
	p, q := e+1, e+1
	for q < len(line) && bytes.IndexByte([]byte("&#\"' \t<>)`"), line[q]) < 0 {
		q++
	}
	if q == p {
		return 0, 0, false
	}
	return p, q, true
}

var secretsCurlDataFlagRe = regexp.MustCompile(rulebook.CurlDataFlagPattern)

// secretsCurlDataValue returns the value of a form field that curl sends
// (curl -d access_token=... , -F 'api_key=...'): a literal, as in a URL.
func secretsCurlDataValue(c *secretsMatchCtx, s, e int) (int, int, bool) {
	p := s
	if p > 0 && secretsIsQuote(c.line[p-1]) {
		p--
	}
	if p == 0 || strings.IndexByte(" \t=", c.line[p-1]) < 0 || !secretsCurlDataFlagRe.Match(shape.Tail(c.line[:s])) || !bytes.Contains(c.lowerLine(), []byte("curl")) && !secretsContinuesCurl(c.data, c.lineStart) {
		return 0, 0, false
	}
	return secretsParamValue(c.line, e)
}

// secretsFallbackValue returns the literal used when the name is unset:
// process.env.API_SECRET || "...", config.apiSecret ?? "...",
// System.getenv("API_SECRET") ?: "..." (Kotlin).
func secretsFallbackValue(line []byte, e int) (int, int, bool) {
	p := e
	// The name may close a lookup first: process.env["X"] || ..., Kotlin's
	// System.getenv("X") ?: ...
	for k := 0; k < 3 && p < len(line) && bytes.IndexByte([]byte("\"'`)]"), line[p]) >= 0; k++ {
		p++
	}
	p = secretsSkipBlanks(line, p)
	if p+1 >= len(line) || !(line[p] == '|' && line[p+1] == '|' || line[p] == '?' && (line[p+1] == '?' || line[p+1] == ':')) {
		return 0, 0, false
	}
	p = secretsSkipBlanks(line, p+2)
	if p >= len(line) || !secretsIsQuote(line[p]) {
		return 0, 0, false
	}
	if q := bytes.IndexByte(line[p+1:], line[p]); q > 0 {
		return p + 1, p + 1 + q, true
	}
	return 0, 0, false
}

// secretsDirectiveValue returns the value of an rc-file directive, a name
// at the start of the line followed by a quoted value and nothing else:
// password "..." in .esmtprc, msmtprc, a Ruby DSL. Where directives take
// bare words (a .conf file: db_password <password>), one unquoted word
// counts too.
func secretsDirectiveValue(line []byte, s, e int, bare bool) (int, int, bool) {
	if len(bytes.TrimLeft(line[:s], " \t")) != 0 || e >= len(line) || line[e] != ' ' && line[e] != '\t' {
		return 0, 0, false
	}
	p := secretsSkipBlanks(line, e)
	rest := bytes.TrimRight(line[p:], " \t\r;")
	if bare && len(rest) > 0 && !secretsIsQuote(rest[0]) && !bytes.ContainsAny(rest, " \t\"'`=:") {
		return p, p + len(rest), true
	}
	if len(rest) < 3 || (rest[0] != '"' && rest[0] != '\'') || rest[len(rest)-1] != rest[0] || bytes.IndexByte(rest[1:len(rest)-1], rest[0]) >= 0 {
		return 0, 0, false
	}
	return p + 1, p + len(rest) - 1, true
}

var shellExportRe = regexp.MustCompile(`^[ \t]*(?:export|readonly|declare[ \t]+-x)[ \t]+$`)

var secretsDockerEnvRe = regexp.MustCompile(`(?i)^[ \t]*(?:ENV|ARG)[ \t]+$`)

// secretsDockerEnvValue returns the value of a Dockerfile's ENV in its
// older form, a name, a blank and the value (ENV API_TOKEN abc...), which
// runs to the end of the line.
func secretsDockerEnvValue(line []byte, s, e int) (int, int, bool) {
	if !secretsDockerEnvRe.Match(line[:s]) || e >= len(line) || line[e] != ' ' && line[e] != '\t' {
		return 0, 0, false
	}
	p := secretsSkipBlanks(line, e)
	rest := bytes.TrimRight(line[p:], " \t\r")
	if len(rest) == 0 || bytes.ContainsAny(rest, " \t") {
		return 0, 0, false
	}
	if len(rest) >= 2 && secretsIsQuote(rest[0]) && rest[len(rest)-1] == rest[0] {
		return p + 1, p + len(rest) - 1, true
	}
	return p, p + len(rest), true
}

var secretsXMLKeyValueRe = regexp.MustCompile(rulebook.XMLKeyValuePattern)

// secretsXMLKeyValue returns the value of a key/value element whose key
// or name attribute is the identifier line[s:e] (.NET appSettings, Spring
// beans' <property name="password" value="..."/>, Ant/MSBuild property
// lists, Java's XML properties).
func secretsXMLKeyValue(line []byte, s, e int) (int, int, bool) {
	if s == 0 || line[s-1] != '"' {
		return 0, 0, false
	}
	before := bytes.TrimRight(line[:s-1], " \t")
	if !bytes.HasSuffix(before, []byte("=")) {
		return 0, 0, false
	}
	before = bytes.TrimRight(before[:len(before)-1], " \t")
	n := len(before)
	attr := 0
	for _, a := range []string{"key", "name"} {
		if k := n - len(a); k >= 0 && bytes.EqualFold(before[k:], []byte(a)) && (k == 0 || !shape.IdentByte(before[k-1])) {
			attr = len(a)
		}
	}
	if attr == 0 {
		return 0, 0, false
	}
	if m := secretsXMLKeyValueRe.FindSubmatchIndex(line[e:]); m != nil && m[3] > m[2] {
		return e + m[2], e + m[3], true
	}
	// The element's text: <entry key="apiToken">...</entry> (Java's
	// properties in XML).
	if m := secretsXMLKeyTextRe.FindSubmatchIndex(line[e:]); m != nil && m[3] > m[2] {
		return e + m[2], e + m[3], true
	}
	return 0, 0, false
}

var secretsXMLKeyTextRe = regexp.MustCompile(`^"\s*>([^<>\s]+)</`)

// secretsXMLElementValue returns the text of an element named by the
// identifier line[s:e] when it closes on the same line:
// <apiToken>...</apiToken>.
func secretsXMLElementValue(line []byte, s, e int) (int, int, bool) {
	if s == 0 || line[s-1] != '<' || e >= len(line) || line[e] != '>' {
		return 0, 0, false
	}
	end := bytes.Index(line[e+1:], []byte("</"))
	if end <= 0 || bytes.IndexByte(line[e+1:e+1+end], '<') >= 0 {
		return 0, 0, false
	}
	return e + 1, e + 1 + end, true
}

// secretsInStringValue returns the unquoted value of NAME=value written
// inside a string, where the name opens the string or follows an escaped
// line break: a container's environment ("Env": ["DB_PASSWORD=..."]), a
// dotenv file carried in a JSON string ("X_TOKEN=...\nY=1"), a
// --password=... argument. The value ends at the string's end, an escape
// or a blank.
func secretsInStringValue(line []byte, s, e int) (int, int, bool) {
	// After an escaped line break the identifier scan took the escape's
	// letter as the name's first: \nAPI_TOKEN reads as "nAPI_TOKEN".
	opens := s > 0 && secretsIsQuote(line[s-1]) ||
		s > 0 && line[s-1] == '\\' && (line[s] == 'n' || line[s] == 'r' || line[s] == 't')
	if !opens || e >= len(line) || line[e] != '=' || e+1 < len(line) && line[e+1] == '=' {
		return 0, 0, false
	}
	p, q := e+1, e+1
	for q < len(line) && strings.IndexByte("\"'`\\ \t", line[q]) < 0 {
		q++
	}
	// A value ending in a slash is the start of a path being looked for
	// (strings.Contains(auth, "Credential=profile-key/")).
	if q == p || line[q-1] == '/' {
		return 0, 0, false
	}
	return p, q, true
}

// secretsXMLElementBelow returns the text of an element named by the
// identifier line[s:e] that opens alone on its line and holds one word
// on the next, closed on the line after: <apiToken>\n  value\n</apiToken>.
func secretsXMLElementBelow(c *secretsMatchCtx, s, e int) ([]byte, bool) {
	line := c.line
	if s == 0 || line[s-1] != '<' || e >= len(line) || line[e] != '>' || len(bytes.TrimSpace(line[e+1:])) != 0 {
		return nil, false
	}
	rest := c.below()
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, false
	}
	value := bytes.TrimSpace(rest[:nl])
	closing := bytes.TrimSpace(rest[nl+1:])
	if len(value) == 0 || bytes.ContainsAny(value, "<> \t") ||
		!bytes.HasPrefix(closing, []byte("</")) || !bytes.HasPrefix(closing[2:], line[s:e]) {
		return nil, false
	}
	return value, true
}

// secretsLabelName joins the word written before a bare name to it, as a
// label that opens a line of a note or a form spells one name ("API
// Key:", "Stripe Secret Key =", "aylien key:"): it returns "Secret_Key".
// Any other name, and one after a declaration (var key), comes back as it is.
func secretsLabelName(line []byte, s int, name []byte) []byte {
	if s < 2 || line[s-1] != ' ' || bytes.IndexAny(name, "_-") >= 0 {
		return name
	}
	prev := -1 // start of the word right before the name
	w := s - 1 // the blank before the word being read
	for words := 0; ; words++ {
		start := w
		for start > 0 && shape.IsAlnum(line[start-1]) {
			start--
		}
		if start == w || words == 4 {
			return name
		}
		if prev < 0 {
			prev = start
		}
		if start >= 2 && line[start-1] == ' ' && shape.IsAlnum(line[start-2]) {
			w = start - 1
			continue
		}
		if len(bytes.Trim(line[:start], " \t\"'`-*")) != 0 {
			return name // the words do not open the line: prose
		}
		break
	}
	if words := line[prev : s-1]; slices.Contains(rulebook.DeclarationWords, string(words)) {
		return name
	}
	return append(append(append([]byte{}, line[prev:s-1]...), '_'), name...)
}

// secretsIdentIsKeyName reports a name whose last word is word ("key" or
// "auth") after at least one other word, which for a key must not make it
// a lookup or database key (rulebook.NonSecretKeyWords): clarifai_key,
// braintreeKey, BING_KEY, proxyAuth, registry_auth. Words are split at
// _ - . and at a lower-case letter before an upper-case one.
func secretsIdentIsKeyName(ident []byte, word string) bool {
	n, w := len(ident), len(word)
	if n < w+2 || !bytes.EqualFold(ident[n-w:], []byte(word)) {
		return false
	}
	head := ident[:n-w]
	switch last := head[len(head)-1]; {
	case last == '_' || last == '-' || last == '.':
		head = head[:len(head)-1]
	case 'A' <= ident[n-w] && ident[n-w] <= 'Z' && 'a' <= last && last <= 'z' || 'a' <= ident[n-w] && ident[n-w] <= 'z' && '0' <= last && last <= '9':
	case word == "key" && len(head) >= 5 && shape.IsLowerWord(ident):
		// A lower-case compound with a long first word (apilayerkey,
		// signingkey); the short ones are words (monkey, hotkey, passkey).
	default:
		return false // monkey, hotkey, passkey, oauth: one word
	}
	if len(head) == 0 {
		return false
	}
	i := len(head)
	for i > 0 && head[i-1] != '_' && head[i-1] != '-' && head[i-1] != '.' && !('a' <= head[i-1] && head[i-1] <= 'z' && i < len(head) && 'A' <= head[i] && head[i] <= 'Z') {
		i--
	}
	prev := strings.ToLower(string(head[i:]))
	// The words that make a key a lookup or database key (cache_key,
	// registry key) say nothing of an auth: registry_auth is a login.
	if word == "key" && slices.Contains(rulebook.NonSecretKeyWords, prev) {
		return false
	}
	// An acronym runs into the next word (VAPIDPublicKey): public ends it.
	return !strings.HasSuffix(prev, "public") && !strings.HasSuffix(prev, "publishable")
}

var (
	secretsPairNameRe      = regexp.MustCompile(`(?i)(?:^|[\s{,\[-])["']?(?:name|key|parameterkey)["']?[ \t]*[:=][ \t]*["']?$`)
	secretsPairValueKeyRe  = regexp.MustCompile(`(?i)^["']?[ \t]*,[ \t]*["']?(?:value|parametervalue)["']?[ \t]*[:=][ \t]*`)
	secretsPairValueLineRe = regexp.MustCompile(`(?i)^[ \t]*["']?(?:value|parametervalue)["']?[ \t]*:[ \t]*(.+?)[ \t,]*\r?$`)
	secretsTFVariableRe    = regexp.MustCompile(`^[ \t]*variable[ \t]+"$`)
	secretsTFDefaultRe     = regexp.MustCompile(`^[ \t]*default[ \t]*=[ \t]*"([^"\\]*)"`)
)

// secretsPairValue returns the value of a name/value pair on one line
// whose name is line[s:e]: a container's environment in JSON or YAML's
// flow style ({"name": "DB_PASSWORD", "value": "..."}, {name: API_TOKEN,
// value: ...}), as ECS task definitions and Kubernetes manifests write it;
// key/value alike (Postman's headers, SSM's and CloudFormation's
// parameters: {"Key": ..., "Value": ...}, ParameterKey/ParameterValue).
func secretsPairValue(line []byte, s, e int, configFile bool) (int, int, bool) {
	if !secretsBefore(line, s, ":=") || !secretsPairNameRe.Match(shape.Tail(line[:s])) || !configFile && !secretsQuotedName(line, s, e) {
		return 0, 0, false
	}
	m := secretsPairValueKeyRe.Find(line[e:])
	if m == nil {
		return 0, 0, false
	}
	p := e + len(m)
	if p < len(line) && secretsIsQuote(line[p]) {
		end := bytes.IndexByte(line[p+1:], line[p])
		if end < 0 {
			return 0, 0, false
		}
		return p + 1, p + 1 + end, true
	}
	end := p
	for end < len(line) && strings.IndexByte(" \t,}]\r", line[end]) < 0 {
		end++
	}
	return p, end, end > p
}

// secretsBefore reports whether, before line[p] and past the blanks and
// the one quote that may open a name, the line shows one of ops: the
// check a $-anchored pattern ends with, done before running it.
func secretsBefore(line []byte, p int, ops string) bool {
	if p > 0 && secretsIsQuote(line[p-1]) {
		p--
	}
	for p > 0 && (line[p-1] == ' ' || line[p-1] == '\t') {
		p--
	}
	return p > 0 && strings.IndexByte(ops, line[p-1]) >= 0
}

// secretsQuotedName reports a name written as a string literal: in
// source code an unquoted name of a pair is an expression
// (Key: jws.X509CertThumbprintKey), not the credential's name.
func secretsQuotedName(line []byte, s, e int) bool {
	return s > 0 && e < len(line) && secretsIsQuote(line[s-1]) && line[e] == line[s-1]
}

// secretsPairValueBelow returns the value of a name/value pair written
// over lines: Kubernetes' `- name: API_TOKEN` with `value: ...` on the
// next line (a pretty-printed JSON object alike), and a Terraform
// variable whose default a few lines down is the value
// (variable "db_password" { ... default = "..." }).
func secretsPairValueBelow(c *secretsMatchCtx, s, e int) ([]byte, bool) {
	line := c.line
	rest := c.below()
	if secretsTFVariableRe.Match(line[:s]) {
		if t := bytes.TrimSpace(line[e:]); !bytes.Equal(t, []byte(`" {`)) && !bytes.Equal(t, []byte(`"{`)) {
			return nil, false
		}
		for range 8 {
			nl := bytes.IndexByte(rest, '\n')
			if nl < 0 {
				nl = len(rest)
			}
			next := rest[:nl]
			if bytes.HasPrefix(bytes.TrimSpace(next), []byte("}")) {
				return nil, false
			}
			if m := secretsTFDefaultRe.FindSubmatch(next); m != nil {
				return m[1], len(m[1]) > 0
			}
			if nl == len(rest) {
				return nil, false
			}
			rest = rest[nl+1:]
		}
		return nil, false
	}
	if len(bytes.Trim(line[e:], "\"', \t\r")) != 0 || !c.configFile && !secretsQuotedName(line, s, e) || !secretsBefore(line, s, ":=") || !secretsPairNameRe.Match(shape.Tail(line[:s])) {
		return nil, false
	}
	if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	m := secretsPairValueLineRe.FindSubmatch(rest)
	if m == nil {
		return nil, false
	}
	v := m[1]
	if len(v) >= 2 && secretsIsQuote(v[0]) {
		end := bytes.IndexByte(v[1:], v[0])
		if end < 0 {
			return nil, false
		}
		v = v[1 : 1+end]
	}
	return v, len(v) > 0
}

// secretsAssignmentBelow returns the literal of an assignment wrapped
// over two lines (shape.WrappedLiteral).
func secretsAssignmentBelow(c *secretsMatchCtx, e int) ([]byte, bool) {
	next := c.below()
	if nl := bytes.IndexByte(next, '\n'); nl >= 0 {
		next = next[:nl]
	}
	return shape.WrappedLiteral(c.line[e:], next)
}

// below is what follows the line, up to 4 KiB: where the finders that
// read a value written under its name look.
func (c *secretsMatchCtx) below() []byte {
	rest := c.data[min(len(c.data), c.lineEnd+1):]
	return rest[:min(len(rest), 4<<10)]
}

// secretsNameWithoutQualifiers drops up to two last words of a name that
// say which environment, version, encoding or copy the value is for
// (rulebook.NameQualifierWords, a number, v2): SECRET_KEY_PROD,
// api_token_v2, client_secret_b64, stripeKeyLive, token2 name the same
// credential as SECRET_KEY and api_token. Words are split at _ - . and
// where an upper-case letter follows a lower-case one or a digit; a name
// in one case with no separator (apikeydev) is one word and kept.
func secretsNameWithoutQualifiers(ident []byte) []byte {
	isDigit := func(b byte) bool { return '0' <= b && b <= '9' }
	isLower := func(b byte) bool { return 'a' <= b && b <= 'z' }
	isUpper := func(b byte) bool { return 'A' <= b && b <= 'Z' }
	for range 2 {
		j := len(ident)
		if j == 0 {
			return ident
		}
		for _, q := range []string{"b64", "base64"} {
			if k := j - len(q); k > 1 && bytes.EqualFold(ident[k:], []byte(q)) && !shape.IsAlnum(ident[k-1]) {
				j = k
			}
		}
		switch last := ident[j-1]; {
		case j < len(ident): // b64 or base64, found above
		case isDigit(last):
			for j > 0 && isDigit(ident[j-1]) {
				j--
			}
			if j > 0 && ident[j-1]|0x20 == 'v' && (j == 1 || !shape.IsAlnum(ident[j-2]) || ident[j-1] == 'V' && !isUpper(ident[j-2])) {
				j-- // v2, apiKeyV2
			}
		case isLower(last):
			for j > 0 && isLower(ident[j-1]) {
				j--
			}
			if j > 0 && isUpper(ident[j-1]) {
				j-- // Live in stripeKeyLive
			}
		case isUpper(last):
			for j > 0 && isUpper(ident[j-1]) {
				j--
			}
		default:
			return ident
		}
		if j == 0 {
			return ident
		}
		word := ident[j:]
		separated := ident[j-1] == '_' || ident[j-1] == '-' || ident[j-1] == '.'
		camel := isUpper(word[0]) && (isLower(ident[j-1]) || isDigit(ident[j-1]))
		number := isDigit(word[len(word)-1])
		if !separated && !camel && !number || !number && !slices.Contains(rulebook.NameQualifierWords, strings.ToLower(string(word))) {
			return ident
		}
		head := bytes.TrimRight(ident[:j], "_-.")
		if len(head) == 0 {
			return ident
		}
		ident = head
	}
	return ident
}

// secretsIdentEndsWith reports whether the identifier, with separators
// removed (db_password, dbPassword and db.password are all "dbpassword"),
// ends in one of suffixes.
func secretsIdentEndsWith(ident []byte, suffixes []string) bool {
	var buf [128]byte
	norm := buf[:0]
	for _, b := range ident {
		if b != '_' && b != '-' && b != '.' {
			norm = append(norm, b)
		}
	}
	for _, s := range suffixes {
		if bytes.HasSuffix(norm, []byte(s)) {
			return true
		}
	}
	return false
}

// secretsAssignedValue parses what follows an identifier ending at p: an
// optional closing quote or bracket of the key (a JSON key inside a
// string has an escaped quote, \"), an optional type (var apiToken string
// = "..."; const apiToken: string = "..."), an assignment operator (=, :=,
// :, =>, and Makefile's ::=, :::=, ?=, +=, PHP's .=; never == or other
// comparisons), and a quoted literal, or an unquoted word when unquoted is
// true. It returns the value's bounds.
func secretsAssignedValue(line []byte, p int, unquoted bool) (int, int, bool) {
	n := len(line)
	quotedName := false
	for k := 0; k < 2 && p < n && (line[p] == '"' || line[p] == '\'' || line[p] == ']' || line[p] == '`' || line[p] == '\\' && p+1 < n && line[p+1] == '"'); k++ {
		if line[p] == '\\' {
			p++
		}
		quotedName = quotedName || line[p] != ']'
		p++
	}
	if vs, ve, ok := shape.BraceInitLiteral(line, p); ok && !quotedName {
		return vs, ve, true
	}
	p = secretsSkipBlanks(line, p)
	typed := false
	// A quoted name takes no type: name="x_key" id="..." is two HTML
	// attributes, not Go's `apiKey string = "..."`.
	if q, ok := secretsTypeAnnotation(line, p); ok && !quotedName {
		p, typed = q, true
	}
	switch {
	case p+3 < n && line[p] == ':' && line[p+1] == ':' && line[p+2] == ':' && line[p+3] == '=':
		p += 4
	case p+2 < n && line[p] == ':' && line[p+1] == ':' && line[p+2] == '=':
		p += 3
	case p+2 < n && line[p] == '?' && line[p+1] == '?' && line[p+2] == '=':
		p += 3
	case p+1 < n && (line[p] == ':' || line[p] == '?' || line[p] == '+' || line[p] == '.') && line[p+1] == '=':
		p += 2
	case p+1 < n && line[p] == '=' && line[p+1] == '>':
		p += 2
	case p+2 < n && line[p] == '<' && line[p+1] == '-' && (line[p+2] == ' ' || line[p+2] == '"' || line[p+2] == '\''):
		p += 2 // R's assignment
	case p < n && line[p] == '=':
		if p+1 < n && line[p+1] == '=' {
			return 0, 0, false
		}
		p++
	case p < n && line[p] == ':':
		if p+1 < n && line[p+1] == ':' {
			return 0, 0, false
		}
		p++
	default:
		return 0, 0, false
	}
	p = secretsSkipBlanks(line, p)
	if p+1 < n && strings.IndexByte("bBrRuUfF@", line[p]) >= 0 && (line[p+1] == '"' || line[p+1] == '\'') {
		p++ // Python b"..", r"..", f"..", C# @".."
	}
	if p >= n {
		return 0, 0, false
	}
	if p+1 < n && line[p] == '\\' && line[p+1] == '"' {
		// A string inside a string: \"value\".
		if e := bytes.Index(line[p+2:], []byte(`\"`)); e > 0 {
			return p + 2, p + 2 + e, true
		}
		return 0, 0, false
	}
	if q := line[p]; q == '"' || q == '\'' || q == '`' {
		for e := p + 1; e < n; e++ {
			switch line[e] {
			case '\\':
				e++
			case q:
				// A literal that a + continues is a piece of a built
				// string ("application:" + appKey + ":" + appSecret).
				if a := secretsSkipBlanks(line, e+1); a < n && line[a] == '+' && (a+1 == n || line[a+1] != '=') {
					return 0, 0, false
				}
				return p + 1, e, true
			}
		}
		return 0, 0, false
	}
	if !unquoted || typed {
		return 0, 0, false
	}
	e := p
	for e < n && line[e] != ' ' && line[e] != '\t' && line[e] != '\r' {
		e++
	}
	e = shape.CutAtNextPair(line, p, e)
	for e > p && (line[e-1] == ',' || line[e-1] == ';' || line[e-1] == '\\' && e == len(bytes.TrimRight(line, "\r"))) {
		e-- // a separator, or a shell line's continuation
	}
	if e == p || line[p] == '#' || shape.YAMLBlockIndicator(line[p:e]) {
		return 0, 0, false // a block scalar's value is below (shape.WrappedLiteral)
	}
	return p, e, true
}

func secretsSkipBlanks(line []byte, p int) int {
	for p < len(line) && (line[p] == ' ' || line[p] == '\t') {
		p++
	}
	return p
}

// secretsTypeAnnotation skips a declared type between a name and its "=":
// Go's `apiToken string =`, TypeScript's and Kotlin's `apiToken: String =`.
// It returns the position of the "=" (never "==").
func secretsTypeAnnotation(line []byte, p int) (int, bool) {
	q := p
	if q < len(line) && line[q] == ':' && (q+1 >= len(line) || line[q+1] != '=' && line[q+1] != ':') {
		q = secretsSkipBlanks(line, q+1)
	} else if q == p && (q == 0 || line[q-1] != ' ' && line[q-1] != '\t') {
		return p, false // Go's type follows the name after a blank
	}
	if q < len(line) && line[q] == '&' {
		// Rust's borrowed string, with or without its lifetime: &str, &'static str.
		q++
		if q < len(line) && line[q] == '\'' {
			for q++; q < len(line) && shape.IdentByte(line[q]); q++ {
			}
			q = secretsSkipBlanks(line, q)
		}
	}
	t := q
	for q < len(line) && (shape.IdentByte(line[q]) || line[q] == '[' || line[q] == ']' || line[q] == '*' || line[q] == '?') {
		q++
	}
	if q == t || !('a' <= line[t]|0x20 && line[t]|0x20 <= 'z') {
		return p, false
	}
	q = secretsSkipBlanks(line, q)
	if q < len(line) && line[q] == '=' && (q+1 >= len(line) || line[q+1] != '=' && line[q+1] != '>') {
		return q, true
	}
	return p, false
}

func secretsIsQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' }

// secretsValidateNotDocumentedExample rejects the vendors' published
// example credentials.
func secretsValidateNotDocumentedExample(v []byte, _ *secretsMatchCtx) bool {
	return !shape.IsDocumentedExample(v)
}

func secretsValidateNotAWSExample(v []byte, _ *secretsMatchCtx) bool {
	s := string(v)
	return !shape.IsDocumentedExample(v) && !strings.HasSuffix(s, "EXAMPLE") && !strings.HasSuffix(s, "EXAMPLEKEY")
}

// secretsValidateAWSKeyID rejects documented examples and, for a key
// without AWS's prefix, values that are not a mix of letters and digits.
func secretsValidateAWSKeyID(v []byte, c *secretsMatchCtx) bool {
	if !secretsValidateNotAWSExample(v, c) {
		return false
	}
	for _, p := range []string{"AKIA", "ASIA", "ABIA", "ACCA"} {
		if bytes.HasPrefix(v, []byte(p)) {
			return true
		}
	}
	return bytes.ContainsAny(v, "0123456789") && bytes.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

var secretsAWSKeyIDRe = regexp.MustCompile(rulebook.AWSKeyIDPattern)

// secretsValidateAWSSecret accepts a 40-character secret under an AWS
// name, or under a bare "secret key" name when the file also holds an
// access key ID.
func secretsValidateAWSSecret(v []byte, c *secretsMatchCtx) bool {
	if !secretsValidateNotAWSExample(v, c) {
		return false
	}
	lower := c.lowerLine()
	if bytes.Contains(lower, []byte("aws")) || bytes.Contains(lower, []byte("access")) {
		return true
	}
	return secretsAWSKeyIDRe.Match(c.data)
}

// secretsValidateJWT decodes the header and requires a JSON object with a
// signing algorithm; "none" is an unsigned token, not a credential.
func secretsValidateJWT(v []byte, _ *secretsMatchCtx) bool {
	head, _, ok := bytes.Cut(v, []byte("."))
	if !ok {
		return false
	}
	// A signature is random bytes; one that decodes to printable text
	// (this_is_a_fake_signature) was written by hand for a test.
	if sig, err := base64.RawURLEncoding.DecodeString(string(v[bytes.LastIndexByte(v, '.')+1:])); err == nil && len(sig) >= 16 &&
		!bytes.ContainsFunc(sig, func(r rune) bool { return r < ' ' || r > '~' }) {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(head, "=")))
	if err != nil {
		return false
	}
	var h map[string]any
	if json.Unmarshal(raw, &h) != nil {
		return secretsDamagedJWTHeaderSigned(raw) || secretsDamagedJWTHeaderClaims(raw, v)
	}
	alg, _ := h["alg"].(string)
	return alg != "" && !strings.EqualFold(alg, "none")
}

// secretsDamagedJWTHeaderSigned judges a header that is not valid JSON
// (a byte changed by copying, or an issuer's sloppy encoder) by the
// signing algorithm it names: the token still has a signature and is
// still accepted by lenient parsers.
func secretsDamagedJWTHeaderSigned(raw []byte) bool {
	_, rest, ok := bytes.Cut(raw, []byte(`"alg":"`))
	if !ok {
		return false
	}
	alg := rest
	if i := bytes.IndexByte(rest, '"'); i >= 0 {
		alg = rest[:i]
	}
	return len(alg) >= 2 && !bytes.HasPrefix(bytes.ToLower(alg), []byte("none"))
}

// secretsDamagedJWTHeaderClaims judges a token whose header was damaged
// before its algorithm (eyJhbGciOieee...: a byte typed over) by the rest:
// the header still opens as a JSON object with JWT fields and the payload
// is a JSON object of claims. An unsigned token would have said
// "alg":"none", which secretsDamagedJWTHeaderSigned already reads.
func secretsDamagedJWTHeaderClaims(header, token []byte) bool {
	if !bytes.HasPrefix(header, []byte(`{"`)) || !bytes.Contains(header, []byte(`"typ"`)) && !bytes.Contains(header, []byte(`"alg"`)) ||
		bytes.Contains(bytes.ToLower(header), []byte(`"alg":"none`)) {
		return false
	}
	parts := bytes.Split(token, []byte("."))
	if len(parts) != 3 {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(parts[1], "=")))
	if err != nil {
		return false
	}
	var claims map[string]any
	return json.Unmarshal(payload, &claims) == nil && len(claims) > 0
}

var secretsFormatFieldRe = regexp.MustCompile(rulebook.FormatFieldPattern)

// secretsURLPasswordPlaceholder reports a URL's password that names its
// field or service, or is what a language prints for a missing value: a
// template rendered with an unset password writes postgresql://app:None@.
func secretsURLPasswordPlaceholder(lower string) bool {
	switch lower {
	case "password", "pass", "passwd", "pwd", "secret", "pw", "postgres", "mysql", "root", "admin",
		"guest", "user", "username", "redis", "mongo", "mongodb", "rabbitmq",
		"none", "null", "nil", "undefined":
		return true
	}
	// One character over and over (1111, aaaa) is a filler.
	return len(lower) > 1 && strings.Count(lower, lower[:1]) == len(lower)
}

// secretsURLUserPlaceholder reports the user names of documentation:
// "my" + a capitalised word is the MongoDB manual's and many tutorials'
// convention (myDatabaseUser, myUserAdmin, myUser).
func secretsURLUserPlaceholder(user []byte) bool {
	if len(user) > 2 && user[0] == 'm' && user[1] == 'y' && 'A' <= user[2] && user[2] <= 'Z' {
		return true
	}
	switch strings.ToLower(string(user)) {
	case "myuser", "myusername", "mylogin":
		return true
	}
	return false
}

// secretsURLUser returns the user name in front of ":"+pw+"@" on the line.
func secretsURLUser(line, pw []byte) []byte {
	i := bytes.Index(line, append(append([]byte{':'}, pw...), '@'))
	if i < 0 {
		return nil
	}
	s := i
	for s > 0 && line[s-1] != '/' && line[s-1] != ' ' && line[s-1] != '"' && line[s-1] != '\'' {
		s--
	}
	return line[s:i]
}

func secretsValidateURLPassword(v []byte, c *secretsMatchCtx) bool {
	if len(v) < 3 || secretsURLPasswordPlaceholder(strings.ToLower(string(v))) {
		return false
	}
	if c != nil && secretsURLUserPlaceholder(secretsURLUser(c.line, v)) {
		return false
	}
	// A password in a URL is percent-encoded; ":" or "*" alone is masked.
	// {REDIS_PASSWORD} is a Python f-string or str.format field.
	if secretsFormatFieldRe.Match(v) {
		return false
	}
	return !bytes.ContainsAny(v, "*") && !shape.LooksPlaceholder(v)
}

// secretsValidatePEMInline accepts a PEM block written on one line with
// escaped newlines (service-account JSON) when it carries a real body.
func secretsValidatePEMInline(v []byte, _ *secretsMatchCtx) bool {
	return shape.InlinePEMBody(v)
}

// secretsValidateBase64PrivateKey decodes the start of a base64-wrapped
// PEM block (enough for the header and the first body line) and accepts
// it when it is a private key with a real body, as secretsFindPrivateKeys
// would judge it.
func secretsValidateBase64PrivateKey(v []byte, _ *secretsMatchCtx) bool {
	head := v[:min(len(v), 1024)&^3]
	dec, err := base64.StdEncoding.DecodeString(string(head))
	if err != nil {
		return false
	}
	m := secretsPEMHeaderRe.FindIndex(dec)
	if m == nil || m[0] != 0 {
		return false
	}
	body, _, _ := secretsPEMBody(dec, m[1], m[1])
	return body != nil && !shape.LooksPlaceholder(body)
}

var secretsPEMHeaderRe = regexp.MustCompile(rulebook.PEMHeaderPattern)

// secretsFindPrivateKeys finds PEM/armored private-key headers that are
// followed by a key body, and classifies them. A header alone (a constant
// in a PEM parser, a docs sentence) is not a finding: the first line after
// the header that is not a PEM/armor header must be ≥ 40 base64 bytes.
// The body may sit on the following lines or, escaped as \n, on this one.
func secretsFindPrivateKeys(c *secretsMatchCtx) []secretsSpan {
	var spans []secretsSpan
	for _, m := range secretsPEMHeaderRe.FindAllSubmatchIndex(c.line, -1) {
		kind := string(c.line[m[2]:m[3]])
		after := c.lineStart + m[1]
		body, bodyOnLine, encrypted := secretsPEMBody(c.data, after, c.lineEnd)
		if body == nil || shape.LooksPlaceholder(body) {
			continue
		}
		id := ""
		switch {
		case kind == "ENCRYPTED PRIVATE KEY" || encrypted:
			id = "private-key-encrypted"
		case kind == "RSA PRIVATE KEY":
			id = "private-key-rsa"
		case kind == "EC PRIVATE KEY":
			id = "private-key-ec"
		case kind == "DSA PRIVATE KEY":
			id = "private-key-dsa"
		case kind == "OPENSSH PRIVATE KEY":
			id = "private-key-openssh"
			// The body starts with "openssh-key-v1\0" and the cipher name;
			// anything but "none" means a passphrase protects it.
			if bytes.HasPrefix(body, []byte("b3BlbnNzaC1rZXktdjEAAAAA")) && !bytes.HasPrefix(body, []byte("b3BlbnNzaC1rZXktdjEAAAAABG5vbmU")) {
				id = "private-key-encrypted"
			}
		case kind == "PGP PRIVATE KEY BLOCK":
			id = "private-key-pgp"
		case kind == "PRIVATE KEY":
			id = "private-key-pkcs8"
		case strings.Contains(kind, "ENCRYPTED"):
			id = "private-key-encrypted"
		default:
			id = "private-key-other" // SSH2, X25519, ...
		}
		sp := secretsSpan{rule: c.engine.ruleIndex[id], matchStart: m[0], matchEnd: m[1], start: m[1], end: m[1], value: body}
		if bodyOnLine {
			// Everything after the header on this line is key material.
			sp.end = len(c.line)
			sp.matchEnd = len(c.line)
		}
		spans = append(spans, sp)
	}
	return spans
}

// secretsPEMBody looks at up to 8 KiB after a header ending at from and
// returns the first body line (nil when there is none), whether that body
// is on the header's own line (escaped newlines), and whether a legacy
// "Proc-Type: 4,ENCRYPTED" header says the key is encrypted.
func secretsPEMBody(data []byte, from, lineEnd int) (body []byte, onLine bool, encrypted bool) {
	end := min(len(data), from+8<<10)
	rest := data[from:end]
	// Split on real newlines and on escaped "\n" sequences alike.
	pos := 0
	for k := 0; k < 8 && pos < len(rest); k++ {
		next := len(rest)
		adv := 0
		if i := bytes.IndexByte(rest[pos:], '\n'); i >= 0 {
			next, adv = pos+i, 1
		}
		if i := bytes.Index(rest[pos:], []byte(`\n`)); i >= 0 && pos+i < next {
			next, adv = pos+i, 2
		}
		seg := bytes.Trim(rest[pos:next], " \t\r\"'`+,;()")
		// An escaped CRLF ("\r\n") leaves a literal \r on each piece.
		for bytes.HasSuffix(seg, []byte(`\r`)) {
			seg = bytes.Trim(seg[:len(seg)-2], " \t\r\"'`+,;()")
		}
		// A key flattened onto one line with spaces: its first run.
		if f := bytes.Fields(seg); len(f) > 1 && !bytes.HasPrefix(seg, []byte("-----")) && bytes.IndexByte(f[0], ':') < 0 {
			seg = f[0]
		}
		segOnLine := from+pos < lineEnd
		pos = next + adv
		if len(seg) == 0 {
			continue
		}
		if bytes.HasPrefix(seg, []byte("-----END")) {
			return nil, false, false
		}
		if bytes.IndexByte(seg, ':') > 0 {
			if bytes.Contains(seg, []byte("ENCRYPTED")) {
				encrypted = true
			}
			continue // Proc-Type:, DEK-Info:, Version:, Comment:
		}
		if len(seg) < 40 {
			return nil, false, false
		}
		for _, b := range seg {
			if !shape.IsBase64Byte(b) {
				return nil, false, false
			}
		}
		return seg, segOnLine, encrypted
	}
	return nil, false, false
}

var secretsConnectionKeyRe = regexp.MustCompile(rulebook.ConnectionKeyPattern)

// secretsValidateConnectionStringPassword accepts Password=/Pwd= of a
// connection string (Server=...;User ID=...;Password=...): written as the
// application will use it, so no entropy is asked, only that it is not a
// reference or placeholder.
func secretsValidateConnectionStringPassword(v []byte, c *secretsMatchCtx) bool {
	if secretsIsKeywordArgument(v) || shape.LooksEncrypted(v) {
		return false
	}
	return secretsConnectionKeyRe.Match(c.line) && secretsValidateNotPlaceholderPassword(v, c)
}

// secretsIsKeywordArgument reports a Password= value that is source code,
// not part of a connection string: a name or a null literal closed by a
// comma or parenthesis, as in connect(host="db", password=None) or
// URL.create(..., password=db_pass, ...).
func secretsIsKeywordArgument(v []byte) bool {
	name := bytes.TrimRight(v, ",)")
	if len(name) == len(v) || len(name) == 0 || !('a' <= name[0]|32 && name[0]|32 <= 'z' || name[0] == '_') {
		return false
	}
	for _, b := range name {
		if !shape.IsAlnum(b) && b != '_' && b != '.' {
			return false
		}
	}
	return true
}

// secretsValidateNotPublicGoogleKey rejects Google API keys in the
// contexts that mark them public (the two lists above).
func secretsValidateNotPublicGoogleKey(_ []byte, c *secretsMatchCtx) bool {
	for _, m := range rulebook.GooglePublicLineMarkers {
		if bytes.Contains(c.line, m) {
			return false
		}
	}
	for _, m := range rulebook.GooglePublicFileMarkers {
		if bytes.Contains(c.data, m) {
			return false
		}
	}
	return true
}

// secretsValidateNuGetPassword accepts a feed password of a NuGet
// configuration: the file is one (named nuget.config in any case, or
// holding packageSourceCredentials: the same element in another XML file
// means nothing to NuGet), and the value is neither ciphertext, a
// reference (%VAR%, $VAR) nor a dictionary placeholder. Like any password
// in configuration it needs no entropy; "TestSourcePassword" is what a
// feed was given.
func secretsValidateNuGetPassword(v []byte, c *secretsMatchCtx) bool {
	if !strings.EqualFold(path.Base(c.format), "nuget.config") && !bytes.Contains(c.data, []byte("packageSourceCredentials")) {
		return false
	}
	if shape.LooksEncrypted(v) || len(v) > 1 && (v[0] == '%' && v[len(v)-1] == '%' || v[0] == '$') {
		return false
	}
	return !rulebook.WeakPasswordPlaceholders[strings.ToLower(string(v))]
}

var secretsNetrcMachineRe = regexp.MustCompile(rulebook.NetrcMachinePattern)

// secretsValidateNetrcPassword accepts the password of a .netrc entry: the
// file must be a configuration file (.netrc and _netrc are), the line made
// of netrc keyword/value pairs (a sentence containing "password" is not),
// and the file must declare a machine. Source code that parses netrc
// ("password string" in a struct, fixtures in tests) is not a netrc file.
// In a .netrc a weak password is still the password; only placeholders
// are skipped.
func secretsValidateNetrcPassword(v []byte, c *secretsMatchCtx) bool {
	if !c.configFile || c.plainText {
		return false
	}
	f := bytes.Fields(c.line)
	if len(f)%2 != 0 {
		return false
	}
	for i := 0; i < len(f); i += 2 {
		if !rulebook.NetrcKeywords[string(f[i])] {
			return false
		}
	}
	if !secretsNetrcMachineRe.Match(c.data) {
		return false
	}
	return !secretsURLPasswordPlaceholder(strings.ToLower(string(v))) && !shape.LooksTemplate(v)
}

var secretsCurlContinuedHeaderRe = regexp.MustCompile(rulebook.CurlContinuedHeaderPattern)

// secretsCurlContinuedUser finds -u/--user on a line that continues a
// curl command (the lines above end in "\" back to one that runs curl),
// and reports it on its own line.
func secretsCurlContinuedUser(c *secretsMatchCtx, r int) []secretsSpan {
	m := secretsCurlContinuedUserRe.FindSubmatchIndex(c.line)
	if m == nil || !secretsContinuesCurl(c.data, c.lineStart) {
		return nil
	}
	v := c.line[m[2]:m[3]]
	if !secretsValidateCurlPassword(v, c) {
		return nil
	}
	return []secretsSpan{{rule: r, matchStart: m[0], matchEnd: m[3], start: m[2], end: m[3], value: v}}
}

// secretsContinuesCurl reports whether the line at lineStart continues a
// curl command: up to 16 lines above it end in a backslash, the first of
// them runs curl.
func secretsContinuesCurl(data []byte, lineStart int) bool {
	end := lineStart - 1
	for k := 0; k < 16 && end > 0; k++ {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		prev := bytes.TrimRight(data[start:end], " \t\r")
		if !bytes.HasSuffix(prev, []byte("\\")) {
			return false
		}
		if bytes.Contains(bytes.ToLower(prev), []byte("curl")) {
			return true
		}
		end = start - 1
	}
	return false
}

var secretsCurlContinuedUserRe = regexp.MustCompile(rulebook.CurlContinuedUserPattern)

// secretsValidateCurlPassword is secretsValidateNotPlaceholderPassword
// for curl's -u, where a password is sometimes wrapped in literal braces
// copied from an API console ("{id}":"{secret}"); ${VAR} and {{ var }}
// stay references.
func secretsValidateCurlPassword(v []byte, c *secretsMatchCtx) bool {
	if len(v) > 2 && v[0] == '{' && v[len(v)-1] == '}' && v[1] != '{' {
		v = v[1 : len(v)-1]
	}
	if c != nil && bytes.Contains(c.line, append(append([]byte{}, v...), ':')) && !bytes.Contains(c.line, append([]byte{':'}, v...)) {
		// A user name alone (-u key:) is a credential only when it looks
		// machine-made: -u deployuser: is a user whose password curl asks for.
		if !bytes.ContainsAny(v, "0123456789") || shape.Entropy(v) < 3 {
			return false
		}
	}
	return secretsValidateNotPlaceholderPassword(v, c)
}

// secretsFindCurlAuth is curl-basic-auth: -u on the curl line itself, or
// on one of the lines the command continues onto (a trailing backslash).
// The finding stays on the curl line, where the command starts.
func secretsFindCurlAuth(c *secretsMatchCtx) []secretsSpan {
	r := c.engine.ruleIndex["curl-basic-auth"]
	if !bytes.Contains(c.lowerLine(), []byte("curl")) {
		return secretsCurlContinuedUser(c, r)
	}
	if spans := c.engine.matchPattern(r, c); len(spans) > 0 {
		return spans
	}
	hdr := c.engine.ruleIndex["http-auth-header"]
	line, next := c.line, c.lineEnd
	for k := 0; k < 16 && bytes.HasSuffix(bytes.TrimRight(line, " \t\r"), []byte("\\")) && next < len(c.data); k++ {
		start := next + 1
		end := len(c.data)
		if i := bytes.IndexByte(c.data[start:], '\n'); i >= 0 {
			end = start + i
		}
		line, next = c.data[start:end], end
		m := secretsCurlContinuedUserRe.FindSubmatchIndex(line)
		if m == nil {
			// A header further down counts for the command's line too (the
			// header's own line is http-auth-header's).
			if hm := secretsCurlContinuedHeaderRe.FindSubmatchIndex(line); hm != nil && secretsValidateHeaderCredential(line[hm[2]:hm[3]], c) {
				n := len(c.line)
				return []secretsSpan{{rule: hdr, matchStart: n, matchEnd: n, start: n, end: n, value: line[hm[2]:hm[3]]}}
			}
			continue
		}
		v := line[m[2]:m[3]]
		if !secretsValidateNotPlaceholderPassword(v, c) {
			return nil
		}
		n := len(c.line)
		return []secretsSpan{{rule: r, matchStart: n, matchEnd: n, start: n, end: n, value: v}}
	}
	return nil
}

// secretsPKCS12File reports the key-store file names the pkcs12-file rule
// stands for.
func secretsPKCS12File(rel string) bool {
	ext := strings.ToLower(path.Ext(rel))
	return ext == ".p12" || ext == ".pfx"
}

// secretsValidateNotPowerBI rejects a Power BI report link's r= value,
// which is base64 JSON starting {"k":" like a legacy Grafana API key
// ({"k":…,"n":name,"id":n}) but carries a tenant and cluster
// ({"k":…,"t":…,"c":n}) and no name.
func secretsValidateNotPowerBI(v []byte, _ *secretsMatchCtx) bool {
	if !bytes.HasPrefix(v, []byte("eyJrIjoi")) {
		return true
	}
	raw := bytes.TrimRight(v, "=")
	raw = raw[:len(raw)&^3]
	dec := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Decode(dec, raw)
	if err != nil {
		return true
	}
	dec = dec[:n]
	return bytes.Contains(dec, []byte(`"n"`)) || !bytes.Contains(dec, []byte(`"t"`)) || !bytes.Contains(dec, []byte(`"c"`))
}

var secretsSASVersionRe = regexp.MustCompile(`(?:^|[?&;"'\s])sv=20[0-9]{2}-[0-9]{2}-[0-9]{2}(?:&|$|["'\s;])`)

// secretsValidateAzureSAS accepts a sig= that a signed version (sv=) on
// the same line marks as Azure's, and that is not a placeholder.
func secretsValidateAzureSAS(v []byte, c *secretsMatchCtx) bool {
	return secretsSASVersionRe.Match(c.line) && !shape.LooksPlaceholder(v)
}

// secretsValidateNotHex rejects values made only of hex digits, for
// formats whose body is base62: a hex run there is a hash or a test
// vector that happens to start with the prefix.
func secretsValidateNotHex(v []byte, _ *secretsMatchCtx) bool {
	for _, b := range v {
		if !('0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F') {
			return true
		}
	}
	return false
}

// secretsValidateNotLowerCaseWords turns away a value with neither a digit
// nor an upper-case letter in a format that allows lower-case letters and
// digits: 17 or 24 random ones lack a digit about once in 250 or 2,500
// draws, while words run together or joined by underscores
// (marketingcalendar, production_settings_loggingverbosity) always do.
func secretsValidateNotLowerCaseWords(v []byte, _ *secretsMatchCtx) bool {
	return bytes.ContainsAny(v, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

// secretsValidateMixedToken accepts a value with upper- and lower-case
// letters, as machine-made tokens have, that is not a camel-case
// identifier (s.AcceptanceTimeoutSeconds, sumOfExposures): without a
// digit, a run of five lower-case letters marks a word.
func secretsValidateMixedToken(v []byte, _ *secretsMatchCtx) bool {
	if !bytes.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || !bytes.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz") {
		return false
	}
	if bytes.ContainsAny(v, "0123456789") {
		return true
	}
	run := 0
	for _, b := range v {
		if 'a' <= b && b <= 'z' {
			if run++; run >= 5 {
				return false
			}
			continue
		}
		run = 0
	}
	return true
}

// secretsValidateVaultToken is secretsValidateMixedToken on the token's
// body: the s of its s./hvs. prefix is no evidence of a mixed case
// (s.THISSTRINGISALLUPPERCASE).
func secretsValidateVaultToken(v []byte, c *secretsMatchCtx) bool {
	if _, body, ok := bytes.Cut(v, []byte(".")); ok {
		v = body
	}
	return secretsValidateMixedToken(v, c)
}

// secretsHasVaultShape reports a line that can hold a Vault token: an
// hvs./hvb./hvr. prefix, or "s." followed by 24 to 26 letters and digits.
func secretsHasVaultShape(line []byte) bool {
	for off := 0; ; {
		i := bytes.IndexByte(line[off:], '.')
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		if i >= 3 && line[i-3] == 'h' && line[i-2] == 'v' && (line[i-1] == 's' || line[i-1] == 'b' || line[i-1] == 'r') {
			return true
		}
		if i == 0 || line[i-1] != 's' {
			continue
		}
		n := 0
		for n < 41 && i+1+n < len(line) && shape.IsAlnum(line[i+1+n]) {
			n++
		}
		if n >= 24 && n <= 40 {
			return true
		}
	}
}

// secretsHasHexRun64 reports a line with 64 hex digits in a row.
func secretsHasHexRun64(line []byte) bool {
	run := 0
	for _, b := range line {
		if '0' <= b && b <= '9' || 'a' <= b|32 && b|32 <= 'f' {
			run++
			if run >= 64 {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// secretsFindPrefixedTokens is prefixed-token (see shape.FindPrefixedTokens).
func secretsFindPrefixedTokens(c *secretsMatchCtx) []secretsSpan {
	var spans []secretsSpan
	shape.FindPrefixedTokens(c.line, func(start, end int) {
		spans = append(spans, secretsSpan{rule: c.engine.prefixedRule, matchStart: start, matchEnd: end, start: start, end: end, value: c.line[start:end]})
	})
	return spans
}

// secretsEthereumKeyRe is rulebook.EthereumKeyPattern.
var secretsEthereumKeyRe = regexp.MustCompile(rulebook.EthereumKeyPattern)

// secretsFindEthereumKeys is ethereum-private-key.
func secretsFindEthereumKeys(c *secretsMatchCtx) []secretsSpan {
	if !shape.HasHexRun(c.line, 64) {
		return nil // the pattern's alternation has no literal to seek: spare it most lines
	}
	var spans []secretsSpan
	for _, m := range secretsEthereumKeyRe.FindAllSubmatchIndex(c.line, -1) {
		v := c.line[m[2]:m[3]]
		body := bytes.TrimPrefix(v, []byte("0x"))
		if shape.Entropy(body) < 3 || shape.LooksFormatPlaceholder(body) {
			continue
		}
		// The name must not say public (PublicKey, PeerPublicKey), and
		// unless it says private, the file must be about a chain: 64 hex
		// under "key" is as often a test vector of a cipher (HPKE, ECDH).
		name := bytes.ToLower(c.line[m[0]:m[2]])
		if bytes.Contains(name, []byte("pub")) {
			continue
		}
		if !bytes.Contains(name, []byte("priv")) && !secretsMentionsChain(c) {
			continue
		}
		spans = append(spans, secretsSpan{rule: c.engine.ruleIndex["ethereum-private-key"], matchStart: m[0], matchEnd: m[3], start: m[2], end: m[3], value: v})
	}
	return spans
}

// secretsMentionsChain reports content that names Ethereum tooling,
// read once per file however many values ask.
func secretsMentionsChain(c *secretsMatchCtx) bool {
	if c.scratch.chain == 0 {
		c.scratch.chain = 2
		lower := bytes.ToLower(c.data)
		for _, m := range rulebook.ChainMarkers {
			if bytes.Contains(lower, []byte(m)) {
				c.scratch.chain = 1
				break
			}
		}
	}
	return c.scratch.chain == 1
}

// secretsValidateNotPlaceholderPassword accepts a password that is not a
// reference ($VAR, %VAR%), not a placeholder and at least 4 bytes long.
func secretsValidateNotPlaceholderPassword(v []byte, _ *secretsMatchCtx) bool {
	if len(v) < 4 || v[0] == '$' || v[0] == '%' || v[0] == '{' || v[0] == '<' {
		return false
	}
	return !rulebook.WeakPasswordPlaceholders[strings.ToLower(string(v))] && !shape.LooksPlaceholder(v) && !shape.SaysPassword(v)
}

// secretsValidateHeaderCredential accepts what follows an authentication
// header: Basic credentials (base64 of user:password, whose password must
// be real) or a token with enough entropy to be machine-made.
func secretsValidateHeaderCredential(v []byte, c *secretsMatchCtx) bool {
	if shape.LooksPlaceholder(v) {
		return false
	}
	if bytes.HasPrefix(v, []byte("eyJ")) && bytes.Count(v, []byte(".")) == 2 {
		return secretsValidateJWT(v, c) // an unsigned JWT is no credential
	}
	basic := bytes.Contains(c.lowerLine(), []byte("basic "+strings.ToLower(string(v))))
	// The password may hold any bytes (Latin-1 passwords, a damaged copy);
	// the user name must be printable text.
	if dec, err := base64.StdEncoding.DecodeString(string(v)); err == nil {
		if user, pw, ok := strings.Cut(string(dec), ":"); ok && user != "" && utf8.ValidString(user) && !strings.ContainsFunc(user, unicode.IsControl) {
			return !rulebook.WeakPasswordPlaceholders[strings.ToLower(user+":"+pw)] && secretsValidateNotPlaceholderPassword([]byte(pw), c)
		}
	}
	if basic {
		return false // Basic credentials that do not decode to user:password are no credentials
	}
	if user, pw, ok := bytes.Cut(v, []byte(":")); ok && len(user) > 0 && len(pw) >= 4 {
		return secretsValidateNotPlaceholderPassword(pw, c)
	} // a short tail is part of the key (DeepL's <uuid>:fx), judged below
	letters, digits := 0, 0
	for _, b := range v {
		switch {
		case 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z':
			letters++
		case '0' <= b && b <= '9':
			digits++
		}
	}
	// A hex token (a 16-hex API token) cannot reach 3.3 bits per byte
	// when short: its bar scales with the length.
	bar := 3.3
	if !bytes.ContainsFunc(v, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r|32 && r|32 <= 'f') }) {
		bar = math.Min(bar, 0.7*math.Log2(float64(len(v))))
	}
	return letters > 0 && digits > 0 && shape.Entropy(v) >= bar
}

// secretsValidateBase64JWT decodes a base64-wrapped token and applies the
// JWT rule's check to what is inside.
func secretsValidateBase64JWT(v []byte, c *secretsMatchCtx) bool {
	dec, err := base64.StdEncoding.DecodeString(string(v))
	if err != nil {
		dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(string(v), "="))
	}
	if err != nil || !bytes.HasPrefix(dec, []byte("eyJ")) || bytes.Count(dec, []byte(".")) != 2 {
		return false
	}
	return secretsValidateJWT(bytes.TrimSpace(dec), c)
}

// secretsValidateKubernetesSecret accepts the value of a data or
// stringData entry of a `kind: Secret` document: data values are decoded
// from base64 first. Placeholders, certificates and the entries that name
// rather than hold a credential (username, host, ...) are not reported.
// A weak value (mypassword, opensesame) is: the manifest declares it the
// credential that gets deployed, unlike the same word in a code sample.
func secretsValidateKubernetesSecret(v []byte, c *secretsMatchCtx) bool {
	if t := bytes.TrimLeft(c.line, " \t"); len(t) > 0 && t[0] == '-' {
		// A Kustomize literal: a Secret's value when the nearest generator
		// above is secretGenerator (configMapGenerator literals are
		// configuration).
		key, _, _ := bytes.Cut(bytes.Trim(bytes.TrimLeft(t[1:], " \t"), `"'`), []byte("="))
		key = bytes.ToLower(key)
		if i := bytes.LastIndexAny(key, "_.-"); i >= 0 && rulebook.K8sNonSecretKeys[string(key[i+1:])] || rulebook.K8sNonSecretKeys[string(key)] {
			return false // DB_HOST, SMTP_USER: configuration in a Secret
		}
		return secretsInSecretGenerator(c.data, c.lineStart) && len(v) >= 6 && !shape.LooksPlaceholder(v) && v[0] != '$'
	}
	key, block := secretsYAMLParent(c.data, c.lineStart)
	if bytes.IndexByte(c.line, ':') < 0 {
		// A block scalar's body: its key is the parent line (key: | or
		// key: >), whose own parent is the data block.
		ps, ok := secretsYAMLBlockScalarHeader(c.data, c.lineStart)
		if !ok {
			return false
		}
		key, block = secretsYAMLParent(c.data, ps)
	}
	if block != "data" && block != "stringData" {
		return false
	}
	lkey := strings.ToLower(key)
	if i := strings.LastIndexAny(lkey, "_-"); i >= 0 && rulebook.K8sNonSecretKeys[lkey[i+1:]] {
		return false // DB_USER, REDIS_PORT: configuration in a Secret
	}
	if rulebook.K8sNonSecretKeys[lkey] || !secretsYAMLDocIsSecret(c.data, c.lineStart) {
		return false
	}
	value := v
	if block == "data" {
		dec, err := base64.StdEncoding.DecodeString(string(v))
		if err != nil {
			return false
		}
		value = bytes.TrimSpace(dec)
	}
	if len(value) < 6 || bytes.HasPrefix(value, []byte("-----BEGIN CERTIFICATE")) || bytes.HasPrefix(value, []byte("-----BEGIN PUBLIC KEY")) {
		return false
	}
	if key == ".dockerconfigjson" || key == ".dockercfg" {
		return secretsRegistryConfigHasCredential(value)
	}
	if bytes.HasPrefix(value, []byte("$")) || bytes.HasPrefix(value, []byte("{{")) {
		return false
	}
	if value[0] == '{' && json.Valid(value) {
		// A JSON document (.dockerconfigjson): its braces are syntax, not
		// a {{ template }}.
		value = []byte(strings.NewReplacer("{", "", "}", "").Replace(string(value)))
	}
	return !shape.LooksPlaceholder(value)
}

// secretsInSecretGenerator reports whether the nearest top-level
// generator key above lineStart is Kustomize's secretGenerator.
func secretsInSecretGenerator(data []byte, lineStart int) bool {
	end := lineStart - 1
	for end > 0 {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		l := data[start:end]
		if len(l) > 0 && l[0] != ' ' && l[0] != '\t' && l[0] != '-' && l[0] != '#' {
			return bytes.HasPrefix(l, []byte("secretGenerator:"))
		}
		end = start - 1
	}
	return false
}

// secretsYAMLParent returns, for the YAML line starting at lineStart, its
// key and the key of the nearest less-indented line above it (the block it
// belongs to).
func secretsYAMLParent(data []byte, lineStart int) (key, parent string) {
	line := data[lineStart:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	indent := len(line) - len(bytes.TrimLeft(line, " \t"))
	k, _, _ := bytes.Cut(bytes.TrimSpace(line), []byte(":"))
	key = strings.Trim(string(k), `"'`)
	for end := lineStart - 1; end > 0; {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		prev := data[start:end]
		end = start - 1
		t := bytes.TrimSpace(prev)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if bytes.Equal(t, []byte("---")) {
			return key, ""
		}
		if pi := len(prev) - len(bytes.TrimLeft(prev, " \t")); pi < indent {
			pk, _, _ := bytes.Cut(t, []byte(":"))
			return key, string(pk)
		}
		if start == 0 {
			break
		}
	}
	return key, ""
}

// secretsYAMLBlockScalarHeader returns the start of the line above
// lineStart when it opens a block scalar (key: |, key: >-) into which
// the line is indented.
func secretsYAMLBlockScalarHeader(data []byte, lineStart int) (int, bool) {
	if lineStart < 2 {
		return 0, false
	}
	end := lineStart - 1
	start := bytes.LastIndexByte(data[:end], '\n') + 1
	prev := bytes.TrimRight(data[start:end], " \t\r")
	_, v, ok := bytes.Cut(bytes.TrimSpace(prev), []byte(":"))
	v = bytes.TrimSpace(v)
	if !ok || len(v) == 0 || v[0] != '|' && v[0] != '>' || len(v) > 2 {
		return 0, false
	}
	return start, true
}

// secretsYAMLDocIsSecret reports whether the YAML document (between ---
// separators) holding the line at pos declares kind: Secret.
func secretsYAMLDocIsSecret(data []byte, pos int) bool {
	start := 0
	if i := bytes.LastIndex(data[:pos], []byte("\n---")); i >= 0 {
		start = i + 4
	}
	end := len(data)
	if i := bytes.Index(data[pos:], []byte("\n---")); i >= 0 {
		end = pos + i
	}
	// The least indented kind: is the document's own (nested ones belong
	// to references such as secretStoreRef); manifests pasted into other
	// files, or copied with a stray leading space, keep it at any depth.
	best, secret := -1, false
	for _, l := range bytes.Split(data[start:end], []byte("\n")) {
		t := bytes.TrimSpace(l)
		k, v, ok := bytes.Cut(t, []byte(":"))
		if !ok || string(k) != "kind" {
			continue
		}
		if indent := len(l) - len(bytes.TrimLeft(l, " \t")); best < 0 || indent < best {
			best = indent
			secret = strings.EqualFold(strings.Trim(strings.TrimSpace(string(v)), `"'`), "Secret")
		}
	}
	return secret
}

// secretsRegistryConfigHasCredential judges a Docker registry
// configuration by its credentials (auth, password, identity and registry
// tokens), not by the registry's address: a host such as
// registry.test.corp or sample-registry.io carries placeholder words
// without making its login an example. A value that is not JSON is a
// stand-in. As for the Secret around it, a weak password counts.
func secretsRegistryConfigHasCredential(value []byte) bool {
	var doc any
	if json.Unmarshal(value, &doc) != nil {
		return false
	}
	found := false
	var walk func(any)
	walk = func(n any) {
		m, ok := n.(map[string]any)
		if !ok {
			return
		}
		for k, sub := range m {
			s, isString := sub.(string)
			if !isString {
				walk(sub)
				continue
			}
			cred := []byte(s)
			switch strings.ToLower(k) {
			case "auth":
				// base64 of user:password; the password is what is judged.
				if dec, err := base64.StdEncoding.DecodeString(s); err == nil {
					if _, pw, ok := bytes.Cut(dec, []byte(":")); ok && utf8.Valid(dec) {
						cred = pw
					}
				}
			case "password", "identitytoken", "registrytoken":
			default:
				continue
			}
			if len(cred) >= 6 && !shape.LooksPlaceholder(cred) {
				found = true
			}
		}
	}
	walk(doc)
	return found
}

// inK8sSecretData reports whether the line is an entry of a Kubernetes
// Secret's data or stringData, where a base64 value looks random whatever
// it encodes: the kubernetes-secret rule decodes and judges it instead.
func (c *secretsMatchCtx) inK8sSecretData() bool {
	if !c.k8sSecret {
		return false
	}
	_, block := secretsYAMLParent(c.data, c.lineStart)
	return (block == "data" || block == "stringData") && secretsYAMLDocIsSecret(c.data, c.lineStart)
}

// secretsURLPlaceholderHosts are documentation hosts: credentials in a URL
// to them are examples.
func secretsURLPlaceholderHost(host string) bool {
	host = strings.ToLower(host)
	for _, m := range []string{"example", "dummy", "fake", "placeholder", "your"} {
		if strings.Contains(host, m) {
			return true
		}
	}
	for _, h := range []string{"host", "hostname", "server", "domain.com", "foo.com", "bar.com", "foo.bar", "invalid", "test"} {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// secretsFindURLCredentials finds scheme://user:password@host for every
// scheme (https, git, ftp, smtp, a package index in pip --index-url, ...).
// Database schemes are claimed first by database-url-password.
func secretsFindURLCredentials(c *secretsMatchCtx) []secretsSpan {
	line := c.line
	var spans []secretsSpan
	for off := 0; ; {
		i := bytes.Index(line[off:], []byte("://"))
		if i < 0 {
			return spans
		}
		i += off
		off = i + 3
		s := i
		for s > 0 && (shape.IsAlnum(line[s-1]) || line[s-1] == '+' || line[s-1] == '.' || line[s-1] == '-') {
			s--
		}
		if s == i || !('a' <= line[s]|32 && line[s]|32 <= 'z') {
			continue
		}
		authEnd := off
		for authEnd < len(line) && !bytes.ContainsRune([]byte("/?#\"'`<> \t\\)"), rune(line[authEnd])) {
			authEnd++
		}
		auth := line[off:authEnd]
		at := bytes.LastIndexByte(auth, '@')
		if at < 0 {
			continue
		}
		user, pw, ok := bytes.Cut(auth[:at], []byte(":"))
		host := auth[at+1:]
		if !ok || len(pw) == 0 || len(host) == 0 || secretsURLPlaceholderHost(string(bytes.Split(host, []byte(":"))[0])) {
			continue
		}
		if len(user) > 0 && (user[0] == '$' || user[0] == '%' || user[0] == '{' || user[0] == '<') || secretsURLUserPlaceholder(user) {
			continue
		}
		plain := pw
		if dec, err := url.PathUnescape(string(pw)); err == nil {
			plain = []byte(dec)
		}
		if bytes.ContainsAny(plain, " ^") || !secretsValidateURLPassword(plain, c) || !secretsValidateNotPlaceholderPassword(plain, c) {
			continue
		}
		pwStart := off + len(user) + 1
		spans = append(spans, secretsSpan{rule: c.engine.ruleIndex["url-credentials"], matchStart: s, matchEnd: authEnd,
			start: pwStart, end: pwStart + len(pw), value: pw})
	}
}

// secretsRuleTable is the rule table of scan/secrets/rulebook with the
// code each rule names attached.
func secretsRuleTable() []secretsRule { return secretsRulesFrom(rulebook.Rules()) }

// secretsVendorRules and secretsStructuredRules are the table's vendor and
// structured sections (see rulebook.VendorRules and StructuredRules).
func secretsVendorRules() []secretsRule { return secretsRulesFrom(rulebook.VendorRules()) }

func secretsStructuredRules() []secretsRule { return secretsRulesFrom(rulebook.StructuredRules()) }

func secretsRulesFrom(book []rulebook.Rule) []secretsRule {
	rules := make([]secretsRule, len(book))
	for i, b := range book {
		rules[i] = secretsRule{id: b.ID, title: b.Title, severity: b.Severity, cwe: b.CWE, remediation: b.Remediation,
			keywords: b.Keywords, csKeywords: b.CSKeywords, fileContext: b.FileContext, fileNames: b.FileNames, pattern: b.Pattern, nested: b.Nested,
			minEntropy: b.MinEntropy, modeWords: b.ModeWords, vendorFormat: b.VendorFormat,
			formatPlaceholder: b.VendorFormat || shape.VendorPrefixed(b),
			validate:          secretsValidator(b.Validate), find: secretsFinder(b.Find), prefilter: secretsPrefilter(b.Prefilter)}
	}
	return rules
}

// secretsValidator is the validator a rulebook entry names; a name
// without code is a bug of the table, caught when the engine is built.
func secretsValidator(name string) func([]byte, *secretsMatchCtx) bool {
	switch name {
	case "":
		return nil
	case "PEMInline":
		return secretsValidatePEMInline
	case "Base64PrivateKey":
		return secretsValidateBase64PrivateKey
	case "AWSKeyID":
		return secretsValidateAWSKeyID
	case "AWSSecret":
		return secretsValidateAWSSecret
	case "NotPublicGoogleKey":
		return secretsValidateNotPublicGoogleKey
	case "NotDocumentedExample":
		return secretsValidateNotDocumentedExample
	case "JWT":
		return secretsValidateJWT
	case "URLPassword":
		return secretsValidateURLPassword
	case "NotPowerBI":
		return secretsValidateNotPowerBI
	case "MixedToken":
		return secretsValidateMixedToken
	case "NotLowerCaseWords":
		return secretsValidateNotLowerCaseWords
	case "VaultToken":
		return secretsValidateVaultToken
	case "NotHex":
		return secretsValidateNotHex
	case "AzureSAS":
		return secretsValidateAzureSAS
	case "NuGetPassword":
		return secretsValidateNuGetPassword
	case "CurlPassword":
		return secretsValidateCurlPassword
	case "ConnectionStringPassword":
		return secretsValidateConnectionStringPassword
	case "NotPlaceholderPassword":
		return secretsValidateNotPlaceholderPassword
	case "NetrcPassword":
		return secretsValidateNetrcPassword
	case "HeaderCredential":
		return secretsValidateHeaderCredential
	case "KubernetesSecret":
		return secretsValidateKubernetesSecret
	case "Base64JWT":
		return secretsValidateBase64JWT
	case "Mnemonic":
		return secretsValidateMnemonic
	case "DockerAuth":
		return secretsValidateDockerAuth
	case "Base64Login":
		return secretsValidateBase64Login
	case "CurlConfigPassword":
		return secretsValidateCurlPassword
	}
	panic("secrets: rulebook names an unknown validator " + name)
}

func secretsFinder(name string) func(*secretsMatchCtx) []secretsSpan {
	switch name {
	case "":
		return nil
	case "PrivateKeys":
		return secretsFindPrivateKeys
	case "PasswordAssignments":
		return secretsFindPasswordAssignments
	case "SecretAssignments":
		return secretsFindSecretAssignments
	case "URLCredentials":
		return secretsFindURLCredentials
	case "CurlAuth":
		return secretsFindCurlAuth
	case "EthereumKeys":
		return secretsFindEthereumKeys
	case "PrefixedTokens":
		return secretsFindPrefixedTokens
	}
	panic("secrets: rulebook names an unknown finder " + name)
}

func secretsPrefilter(name string) func([]byte) bool {
	switch name {
	case "":
		return nil
	case "HasVaultShape":
		return secretsHasVaultShape
	case "HasHexRun64":
		return secretsHasHexRun64
	}
	panic("secrets: rulebook names an unknown prefilter " + name)
}

// secretsValidateMnemonic accepts 12, 15, 18, 21 or 24 words of which at
// least eight differ: Hardhat's and Anvil's published development phrase
// ("test test ... junk") and "word word word ..." are documentation.
func secretsValidateMnemonic(v []byte, _ *secretsMatchCtx) bool {
	words := strings.Fields(string(v))
	if len(words)%3 != 0 || len(words) < 12 || len(words) > 24 {
		return false
	}
	distinct := map[string]bool{}
	for _, w := range words {
		distinct[w] = true
	}
	return len(distinct) >= 8 && !distinct["your"] && !distinct["example"] && !distinct["word"]
}

// secretsValidateDockerAuth decodes auths.<host>.auth and accepts
// user:password whose password is not a placeholder or a variable. Google's
// registries take a service account's whole key file as the password of
// the user _json_key (or the file in base64, of _json_key_base64): a
// private key in it is the credential.
func secretsValidateDockerAuth(v []byte, c *secretsMatchCtx) bool {
	dec, err := base64.StdEncoding.DecodeString(string(v))
	if err != nil {
		return false
	}
	user, pw, ok := bytes.Cut(dec, []byte(":"))
	if !ok || len(user) == 0 || !utf8.Valid(dec) {
		return false
	}
	switch string(user) {
	case "_json_key":
		return shape.KeyFileHoldsKey(pw)
	case "_json_key_base64":
		key, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(pw)))
		return err == nil && shape.KeyFileHoldsKey(key)
	}
	return secretsValidateNotPlaceholderPassword(pw, c)
}

// secretsValidateBase64Login accepts base64 of user:password whose user is
// a login name. The password is judged when it is text; one that is not
// (bytes edited inside the base64) is a credential all the same.
func secretsValidateBase64Login(v []byte, c *secretsMatchCtx) bool {
	dec, err := base64.StdEncoding.DecodeString(string(v))
	if err != nil {
		return false
	}
	user, pw, ok := bytes.Cut(dec, []byte(":"))
	if !ok || len(user) < 2 || len(pw) < 4 || bytes.ContainsFunc(user, func(r rune) bool {
		return !shape.IsAlnum(byte(r)) && !strings.ContainsRune("._@+-", r)
	}) {
		return false
	}
	return !utf8.Valid(pw) || secretsValidateNotPlaceholderPassword(pw, c)
}
