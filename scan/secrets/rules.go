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
)

// secretsRule is one kind of credential the secrets scanner knows. The
// table is secretsRuleTable, in priority order (the first rule to claim a
// span of a line wins): the specific rules (private keys, cloud, source
// hosting, registries, chat, payment, AI), then secretsVendorRules (one or
// two rules per credential family gitleaks documents, written from each
// vendor's published format: a prefixed token anywhere, or a bare value
// assigned next to the vendor's name), then secretsStructuredRules (any
// URL's user:password, curl -u, HTTP authentication headers, Kubernetes
// Secret data decoded from base64, base64-wrapped JWTs, PKCS#12 files),
// then the generic password/secret assignments.
//
// What is not reported: placeholders and documentation values (the markers
// in secretsPlaceholderMarkers, the exact dictionary
// secretsWeakPasswordPlaceholders, vendors' documented example keys,
// template references such as ${VAR}); unsigned JWTs; certificates and
// public keys; generic assignments in translation catalogues
// (secretsIsTranslationFile) or whose value is natural language.
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
	// secretsLooksFormatPlaceholder judges them, which looks for fillers,
	// templates and placeholder words but not for counting runs or words
	// such as "test" and "fake" that hand-made fixtures of the real format
	// contain (12345678-ABCD-..., sk-ant-admin01-abc12fake-...): such a
	// value passes every client-side check of the format, and the scanners
	// teams compare scand with report it.
	vendorFormat bool

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
	configFile         bool           // unquoted values count (.env, .ini, YAML, ...)
	iacFile            bool           // Terraform, HCL, Bicep, ...: values are deployed as written
	translation        bool           // an i18n catalogue: values are natural language
	rel                string         // the file's path relative to the target
	k8sSecret          bool           // the file declares a Kubernetes Secret: kubernetes-secret judges its data
	nested             secretsRuleSet // rules whose vendor name opens a block this line is in
	lower              []byte         // see lowerLine
	scratch            *secretsScratch
	engine             *secretsEngine
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
}

// secretsCommonRemediation is appended to every rule's remediation: the
// order matters, because deleting the line without rotating leaves a live
// credential in every clone.
const secretsCommonRemediation = " Treat the value as compromised: revoke or rotate it first, because deleting the line leaves it readable in git history and in every clone. Then remove it from the file, purge it from history (git filter-repo or BFG) if the repository is shared, and load the credential at run time from a secret manager or the environment."

func secretsRuleTable() []secretsRule {
	const (
		base62   = `[A-Za-z0-9]`
		notB64ID = `(?:[^A-Za-z0-9_-]|$)`
		assign   = `["']?\s*(?::=|=>|=|:)\s*["']?`
	)
	crit, high, med := finding.Critical, finding.High, finding.Medium
	const cwe798, cwe321, cwe259 = finding.CWE("CWE-798"), finding.CWE("CWE-321"), finding.CWE("CWE-259")
	rules := []secretsRule{
		// A service-account JSON file holds a PKCS#8 key: claim it before the
		// private-key finder does, since the fix is in IAM, not in a key store.
		{id: "gcp-service-account-key", title: "Google Cloud service-account key", severity: crit, cwe: cwe798,
			remediation: "Delete the key in IAM & Admin > Service accounts > Keys and create a new one, or better, use workload identity instead of key files.",
			keywords:    []string{`"private_key"`}, fileContext: []string{"service_account"},
			pattern: `"private_key"\s*:\s*"(-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]+)"`, validate: secretsValidatePEMInline},
		// ---- private keys (one finder classifies the block) ----
		{id: "private-key-encrypted", title: "Passphrase-protected private key", severity: med, cwe: cwe321,
			remediation: "The key is encrypted, but the passphrase may be weak or stored nearby and the ciphertext can be attacked offline. Replace the key pair and revoke the old public key wherever it is trusted.",
			csKeywords:  []string{"PRIVATE KEY"}, find: secretsFindPrivateKeys},
		{id: "private-key-rsa", title: "RSA private key", severity: crit, cwe: cwe321,
			remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one (certificate revocation, authorized_keys, deploy keys)."},
		{id: "private-key-ec", title: "EC private key", severity: crit, cwe: cwe321,
			remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one."},
		{id: "private-key-dsa", title: "DSA private key", severity: crit, cwe: cwe321,
			remediation: "Generate a new (non-DSA) key pair and remove the old public key from every authorized_keys and trust store."},
		{id: "private-key-openssh", title: "OpenSSH private key", severity: crit, cwe: cwe321,
			remediation: "Generate a new SSH key pair and remove the old public key from every authorized_keys file, deploy-key list and Git host account."},
		{id: "private-key-pgp", title: "PGP private key block", severity: crit, cwe: cwe321,
			remediation: "Revoke the key with its revocation certificate, publish the revocation, and create a new key."},
		{id: "private-key-pkcs8", title: "PKCS#8 private key", severity: crit, cwe: cwe321,
			remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one."},
		{id: "private-key-other", title: "Private key", severity: crit, cwe: cwe321,
			remediation: "Generate a new key pair, deploy the new public key, and remove the old one from wherever it is trusted."},
		// Kubernetes manifests, Helm values and CI variables carry PEM keys
		// base64-wrapped ("LS0tLS1CRUdJTi" is "-----BEGIN "): decode and
		// require a private-key header followed by a body.
		{id: "private-key-base64", title: "Base64-encoded private key", severity: crit, cwe: cwe321,
			remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one; the base64 wrapping hides nothing.",
			csKeywords:  []string{"LS0tLS1CRUdJTi"}, pattern: `\b(LS0tLS1CRUdJTi[A-Za-z0-9+/]{60,}={0,2})`, validate: secretsValidateBase64PrivateKey},

		// ---- cloud providers ----
		{id: "aws-access-key-id", title: "AWS access key ID", severity: crit, cwe: cwe798,
			remediation: "Deactivate and delete the access key in IAM (and its secret), review CloudTrail for its use, and switch to roles or short-lived credentials.",
			// S3-compatible stores (MinIO, Ceph, Wasabi) issue 20-character keys
			// without AWS's prefix; under the AWS variable name they are the same
			// credential.
			keywords: []string{"aws_access_key_id"}, csKeywords: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
			pattern:  `\b(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b|(?i:aws_access_key_id)` + assign + `(?P<secret>[A-Z0-9]{20})\b`,
			validate: secretsValidateAWSKeyID},
		{id: "aws-secret-access-key", title: "AWS secret access key", severity: crit, cwe: cwe798,
			remediation: "Deactivate and delete the access key in IAM, review CloudTrail for its use, and switch to roles or short-lived credentials.",
			// "secret key: ..." next to an access key ID (a hand-over note, a
			// console export) is the pair's secret: secretsValidateAWSSecret
			// asks for the ID in the same file when the name does not say AWS.
			keywords:   []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret", "awssecret", "secret key", "secret_key", "secretkey"},
			pattern:    `(?i)(?:secret[_-]?access[_-]?key|aws[_-]?secret(?:[_-]?key)?|secret[ _-]?key)` + assign + `([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
			minEntropy: 3.5, validate: secretsValidateAWSSecret},
		{id: "azure-storage-connection-string", title: "Azure Storage connection string with account key", severity: crit, cwe: cwe798,
			remediation: "Regenerate the storage account key (Access keys > Rotate) and move to Microsoft Entra ID auth or SAS tokens with short expiry.",
			keywords:    []string{"accountkey"}, pattern: `(?i)AccountName=[^;"'\s]+;\s*AccountKey=([A-Za-z0-9+/]{86}==)`},
		{id: "azure-storage-account-key", title: "Azure Storage account key", severity: crit, cwe: cwe798,
			remediation: "Regenerate the storage account key (Access keys > Rotate) and move to Microsoft Entra ID auth or SAS tokens with short expiry.",
			keywords:    []string{"accountkey"}, pattern: `(?i)AccountKey\s*=\s*([A-Za-z0-9+/]{86}==)`},
		{id: "azure-shared-access-key", title: "Azure Service Bus / Event Hubs shared access key", severity: crit, cwe: cwe798,
			remediation: "Regenerate the shared access policy's keys and prefer managed identities.",
			keywords:    []string{"sharedaccesskey="}, pattern: `(?i)SharedAccessKey=([A-Za-z0-9+/]{42,43}=)`},
		{id: "digitalocean-token", title: "DigitalOcean token", severity: crit, cwe: cwe798,
			remediation: "Delete the token under API > Tokens and create a new one with the least scope needed.",
			csKeywords:  []string{"dop_v1_", "doo_v1_", "dor_v1_"}, pattern: `\b(do[opr]_v1_[a-f0-9]{64})\b`},
		{id: "gcp-api-key", title: "Google API key", severity: high, cwe: cwe798,
			remediation: "Delete or regenerate the key under APIs & Services > Credentials and restrict the new one to the APIs and referrers that need it.",
			csKeywords:  []string{"AIza"}, pattern: `\b(AIza[0-9A-Za-z_-]{35})` + notB64ID, validate: secretsValidateNotPublicGoogleKey},
		{id: "google-oauth-client-secret", title: "Google OAuth client secret", severity: high, cwe: cwe798,
			remediation: "Reset the client secret of the OAuth client under APIs & Services > Credentials.",
			csKeywords:  []string{"GOCSPX-"}, pattern: `\b(GOCSPX-[A-Za-z0-9_-]{28})` + notB64ID},
		{id: "google-oauth-access-token", title: "Google OAuth access token", severity: high, cwe: cwe798,
			remediation: "Revoke it (https://oauth2.googleapis.com/revoke?token=...) or remove the app's access under the Google account's Security > Third-party access; access tokens expire within an hour, but whatever minted it can mint more.",
			csKeywords:  []string{"ya29."}, pattern: `\b(ya29\.[0-9A-Za-z_-]{30,})` + notB64ID, minEntropy: 3.5},
		{id: "google-oauth-refresh-token", title: "Google OAuth refresh token", severity: high, cwe: cwe798,
			remediation: "Revoke it (https://oauth2.googleapis.com/revoke?token=...) or remove the app's access under the Google account's Security > Third-party access; a refresh token mints access tokens until revoked.",
			csKeywords:  []string{"1//0"}, pattern: `(?:^|[^0-9A-Za-z/])(?P<secret>1//0[0-9A-Za-z_-]{35,})` + notB64ID, minEntropy: 3.5},
		{id: "azure-app-configuration-connection-string", title: "Azure App Configuration connection string with access key", severity: crit, cwe: cwe798,
			remediation: "Regenerate the access key (App Configuration > Access settings) and move to Microsoft Entra ID auth with a managed identity.",
			keywords:    []string{"azconfig.io"}, pattern: `(?i)Endpoint=https://[a-z0-9-]+\.azconfig\.io/?;\s*Id=[^;"'\s]+;\s*Secret=([A-Za-z0-9+/]{43}=)`},

		// ---- payment ----
		{id: "stripe-live-secret-key", title: "Stripe live secret key", severity: crit, cwe: cwe798,
			remediation: "Roll the key in the Stripe Dashboard (Developers > API keys) and review recent API activity.",
			csKeywords:  []string{"sk_live_"}, pattern: `\b(sk_live_` + base62 + `{24,99})\b`, minEntropy: 3},
		{id: "stripe-restricted-key", title: "Stripe live restricted key", severity: crit, cwe: cwe798,
			remediation: "Roll the restricted key in the Stripe Dashboard (Developers > API keys).",
			csKeywords:  []string{"rk_live_"}, pattern: `\b(rk_live_` + base62 + `{24,99})\b`, minEntropy: 3},
		// A test-mode key moves no money, but it reads and writes the
		// account's test data and webhooks, and it is the same secret class.
		{id: "stripe-test-secret-key", title: "Stripe test-mode secret key", severity: med, cwe: cwe798,
			remediation: "Roll the test key in the Stripe Dashboard (Developers > API keys, test mode).",
			csKeywords:  []string{"sk_test_", "rk_test_"}, pattern: `\b([sr]k_test_` + base62 + `{24,99})\b`, minEntropy: 3, modeWords: true,
			validate: secretsValidateNotDocumentedExample},

		// ---- source hosting and CI ----
		{id: "github-pat", title: "GitHub personal access token (classic)", severity: high, cwe: cwe798,
			remediation: "Revoke it under Settings > Developer settings > Personal access tokens and audit the account's security log.",
			csKeywords:  []string{"ghp_"}, pattern: `\b(ghp_` + base62 + `{36})\b`, minEntropy: 3},
		{id: "github-oauth-token", title: "GitHub OAuth access token", severity: high, cwe: cwe798,
			remediation: "Revoke the OAuth app's authorization (Settings > Applications) or reset the app's tokens.",
			csKeywords:  []string{"gho_"}, pattern: `\b(gho_` + base62 + `{36})\b`, minEntropy: 3},
		{id: "github-user-token", title: "GitHub App user-to-server token", severity: high, cwe: cwe798,
			remediation: "Revoke the user's authorization of the GitHub App.",
			csKeywords:  []string{"ghu_"}, pattern: `\b(ghu_` + base62 + `{36})\b`, minEntropy: 3},
		{id: "github-app-token", title: "GitHub App installation token", severity: high, cwe: cwe798,
			remediation: "Revoke the installation token through the API and rotate the GitHub App's private key if it is stored beside it.",
			csKeywords:  []string{"ghs_"}, pattern: `\b(ghs_` + base62 + `{36})\b`, minEntropy: 3},
		{id: "github-refresh-token", title: "GitHub refresh token", severity: high, cwe: cwe798,
			remediation: "Revoke the user's authorization of the GitHub App so the refresh token stops working.",
			csKeywords:  []string{"ghr_"}, pattern: `\b(ghr_` + base62 + `{36,76})\b`, minEntropy: 3},
		{id: "github-fine-grained-pat", title: "GitHub fine-grained personal access token", severity: high, cwe: cwe798,
			remediation: "Revoke it under Settings > Developer settings > Fine-grained tokens and audit the account's security log.",
			csKeywords:  []string{"github_pat_"}, pattern: `\b(github_pat_` + base62 + `{22}_` + base62 + `{59})\b`, minEntropy: 3},
		{id: "gitlab-pat", title: "GitLab personal access token", severity: high, cwe: cwe798,
			remediation: "Revoke it under User settings > Access tokens and review the audit events.",
			csKeywords:  []string{"glpat-"}, pattern: `\b(glpat-[A-Za-z0-9_-]{20,64})` + notB64ID, minEntropy: 3},
		{id: "gitlab-pipeline-trigger-token", title: "GitLab pipeline trigger token", severity: high, cwe: cwe798,
			remediation: "Revoke it under Settings > CI/CD > Pipeline trigger tokens.",
			csKeywords:  []string{"glptt-"}, pattern: `\b(glptt-[0-9a-f]{40})\b`, minEntropy: 3},
		{id: "gitlab-runner-token", title: "GitLab runner authentication token", severity: high, cwe: cwe798,
			remediation: "Reset the runner's authentication token and re-register the runner.",
			csKeywords:  []string{"glrt-"}, pattern: `\b(glrt-[A-Za-z0-9_-]{20,64})` + notB64ID, minEntropy: 3},
		{id: "gitlab-deploy-token", title: "GitLab deploy token", severity: high, cwe: cwe798,
			remediation: "Revoke it under Settings > Repository > Deploy tokens.",
			csKeywords:  []string{"gldt-"}, pattern: `\b(gldt-[A-Za-z0-9_-]{20,64})` + notB64ID, minEntropy: 3},
		{id: "bitbucket-app-password", title: "Bitbucket app password", severity: high, cwe: cwe798,
			remediation: "Revoke it under Personal settings > App passwords and switch to API tokens with scopes.",
			csKeywords:  []string{"ATBB"}, pattern: `\b(ATBB[A-Za-z0-9_=.-]{28,})`, minEntropy: 3.5},
		{id: "bitbucket-access-token", title: "Bitbucket repository/workspace access token", severity: high, cwe: cwe798,
			remediation: "Revoke it under Repository or Workspace settings > Access tokens.",
			csKeywords:  []string{"ATCTT3"}, pattern: `\b(ATCTT3[A-Za-z0-9_=-]{100,})`, minEntropy: 3.5},
		{id: "atlassian-api-token", title: "Atlassian API token", severity: high, cwe: cwe798,
			remediation: "Revoke it at id.atlassian.com > Security > API tokens.",
			csKeywords:  []string{"ATATT3"}, pattern: `\b(ATATT3[A-Za-z0-9_=-]{100,})`, minEntropy: 3.5},

		// ---- package registries ----
		{id: "npm-access-token", title: "npm access token", severity: high, cwe: cwe798,
			remediation: "Revoke it with `npm token revoke` or on npmjs.com > Access Tokens, and check recent publishes of your packages.",
			csKeywords:  []string{"npm_"}, pattern: `\b(npm_` + base62 + `{36})\b`, minEntropy: 3},
		{id: "npmrc-auth-token", title: "Registry auth token in npm configuration", severity: high, cwe: cwe798,
			remediation: "Revoke the token at the registry, and reference it as ${NPM_TOKEN} in .npmrc instead of writing it there.",
			keywords:    []string{"_authtoken"}, pattern: `(?i)_authToken\s*=\s*["']?([A-Za-z0-9_\-.+/=]{20,})`, minEntropy: 3},
		{id: "pypi-upload-token", title: "PyPI upload token", severity: high, cwe: cwe798,
			remediation: "Delete the token under PyPI Account settings > API tokens and prefer Trusted Publishing from CI.",
			csKeywords:  []string{"pypi-AgEIcHlwaS5vcmc"}, pattern: `\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})`},
		{id: "dockerhub-pat", title: "Docker Hub personal access token", severity: high, cwe: cwe798,
			remediation: "Delete it under Docker Hub Account settings > Personal access tokens and check recent image pushes.",
			csKeywords:  []string{"dckr_pat_"}, pattern: `\b(dckr_pat_[A-Za-z0-9_-]{27})` + notB64ID, minEntropy: 3},

		// ---- chat ----
		{id: "slack-bot-token", title: "Slack bot token", severity: high, cwe: cwe798,
			remediation: "Revoke it (auth.revoke or reinstall the app after regenerating tokens under OAuth & Permissions).",
			keywords:    []string{"xoxb-"}, pattern: `\b(xoxb-[0-9]{10,13}-[0-9]{10,13}-` + base62 + `{24,34}|xoxb-[0-9]{8,14}-` + base62 + `{18,26})\b`, minEntropy: 3, vendorFormat: true},
		{id: "slack-config-token", title: "Slack app configuration token", severity: high, cwe: cwe798,
			remediation: "Revoke it with tooling.tokens.rotate or regenerate it under Your Apps > App configuration tokens.",
			// Slack documents no length; these bands hold every published example.
			keywords: []string{"xoxe"}, pattern: `\b(xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{155,170}|xoxe-[0-9]-[A-Za-z0-9]{140,150})\b`, minEntropy: 3},
		{id: "slack-user-token", title: "Slack user token", severity: high, cwe: cwe798,
			remediation: "Revoke it with auth.revoke and review the workspace's access logs.",
			// xoxe- with the same four parts is the user token a file link
			// carries (files.slack.com/...?t=xoxe-...).
			keywords: []string{"xoxp-", "xoxe-"}, pattern: `\b(xox[pe](?:-[0-9]{8,13}){3}-[A-Za-z0-9]{28,34})\b`, minEntropy: 3, vendorFormat: true},
		{id: "slack-legacy-token", title: "Slack legacy or workspace token", severity: high, cwe: cwe798,
			remediation: "Revoke it with auth.revoke; legacy tokens should be replaced by app tokens.",
			// Legacy user tokens (xoxs-, xoxo-) end in a hex part of varying
			// length; workspace access and refresh tokens (xoxa-, xoxr-) in a
			// base62 part of 8 to 48.
			keywords: []string{"xoxa-", "xoxr-", "xoxs-", "xoxo-"},
			pattern:  `\b(xox[os]-[0-9]+-[0-9]+-[0-9]+-[a-fA-F0-9]{8,64}|xox[ar]-(?:[0-9]+-)*` + base62 + `{8,48})\b`, minEntropy: 2.5, vendorFormat: true},
		{id: "slack-app-token", title: "Slack app-level token", severity: high, cwe: cwe798,
			remediation: "Revoke and regenerate it under the app's Basic Information > App-Level Tokens.",
			keywords:    []string{"xapp-"}, pattern: `\b(xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]{32,80})\b`, minEntropy: 3},
		{id: "slack-webhook-url", title: "Slack incoming webhook URL", severity: med, cwe: cwe798,
			remediation: "Regenerate or remove the webhook under the app's Incoming Webhooks page.",
			// Team and bot IDs are upper case when Slack prints them, but
			// URLs are copied through tools that fold case; the path shape
			// (T.../B.../token) is what identifies the hook.
			keywords: []string{"hooks.slack.com"}, pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/(T[A-Za-z0-9_]{6,12}/[A-Za-z0-9_]{6,16}/(?:[0-9]{10,20}/)?` + base62 + `{20,32})\b`, minEntropy: 3, vendorFormat: true},
		{id: "discord-bot-token", title: "Discord bot token", severity: high, cwe: cwe798,
			remediation: "Reset the token in the Developer Portal (Bot > Reset Token).",
			fileContext: []string{"discord"}, pattern: `\b([MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})` + notB64ID, minEntropy: 3.5},
		{id: "discord-webhook-url", title: "Discord webhook URL", severity: med, cwe: cwe798,
			remediation: "Delete the webhook in the channel's Integrations settings and create a new one.",
			keywords:    []string{"discord"}, pattern: `discord(?:app)?\.com/api/webhooks/([0-9]{17,20}/[A-Za-z0-9_-]{60,68})` + notB64ID, minEntropy: 3},

		// ---- communications and SaaS APIs ----
		{id: "twilio-api-key", title: "Twilio API key", severity: high, cwe: cwe798,
			remediation: "Delete the API key in the Twilio Console (Account > API keys) and create a new one.",
			csKeywords:  []string{"SK"}, pattern: `\b(SK[0-9a-fA-F]{32})\b`, minEntropy: 3},
		{id: "twilio-auth-token", title: "Twilio auth token", severity: high, cwe: cwe798,
			remediation: "Rotate the auth token in the Twilio Console (promote the secondary token) and move to API keys.",
			keywords:    []string{"twilio"}, csKeywords: []string{"AC"},
			pattern:    `(?i:twilio[\w.-]*token)` + assign + `(?P<secret>[0-9a-f]{32})\b|\bAC[0-9a-f]{32}\b["']?\s*[,:]\s*["']?(?P<secret>[0-9a-f]{32})\b`,
			minEntropy: 3},
		{id: "sendgrid-api-key", title: "SendGrid API key", severity: high, cwe: cwe798,
			remediation: "Delete the key under Settings > API Keys and create one with restricted scopes.",
			csKeywords:  []string{"SG."}, pattern: `\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})` + notB64ID, minEntropy: 3.5},
		{id: "mailgun-api-key", title: "Mailgun API key", severity: high, cwe: cwe798,
			remediation: "Rotate the key under Account settings > API keys.",
			csKeywords:  []string{"key-"}, pattern: `\b(key-[0-9a-f]{32})\b`, minEntropy: 3},
		{id: "shopify-access-token", title: "Shopify access token", severity: high, cwe: cwe798,
			remediation: "Uninstall/reinstall the custom app or rotate its Admin API access token.",
			csKeywords:  []string{"shpat_", "shpca_", "shppa_", "shpss_"}, pattern: `\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b`, minEntropy: 3},

		// ---- AI APIs ----
		{id: "anthropic-api-key", title: "Anthropic API key", severity: high, cwe: cwe798,
			remediation: "Delete the key in the Anthropic Console (Settings > API keys) and create a new one.",
			csKeywords:  []string{"sk-ant-"}, pattern: `\b(sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{80,110})` + notB64ID, minEntropy: 3.5, vendorFormat: true},
		{id: "openai-api-key", title: "OpenAI API key", severity: high, cwe: cwe798,
			remediation: "Revoke the key on the OpenAI platform (API keys) and create a new project-scoped one.",
			csKeywords:  []string{"T3BlbkFJ", "sk-proj-", "sk-svcacct-", "sk-admin-"},
			pattern:     `\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,})` + notB64ID,
			minEntropy:  3.5},
		{id: "huggingface-token", title: "Hugging Face access token", severity: high, cwe: cwe798,
			remediation: "Invalidate it under Settings > Access Tokens and create a fine-grained one.",
			csKeywords:  []string{"hf_"}, pattern: `\b(hf_[A-Za-z]{34})\b`, minEntropy: 3.5},

		// ---- structured tokens and URLs ----
		{id: "jwt", title: "JSON Web Token", severity: med, cwe: cwe798,
			remediation: "Invalidate it (rotate the signing key or revoke the session) if it has not expired, and never commit bearer tokens; tests should mint their own.",
			// A header or payload may be pretty-printed JSON: "{\n" and "{ "
			// encode as ewo, ew0K and eyAi instead of eyJ.
			csKeywords: []string{"eyJ", "ewo", "ew0K", "eyAi"}, pattern: `\b((?:eyJ|ewo|ew0K|eyAi)[A-Za-z0-9_-]{10,}\.(?:eyJ|ewo|ew0K|eyAi)[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,})` + notB64ID,
			validate: secretsValidateJWT},
		{id: "database-url-password", title: "Database URL with embedded password", severity: high, cwe: cwe259,
			remediation: "Change the database user's password, and pass the URL (or just the password) through the environment or a secret manager.",
			keywords:    []string{"postgres", "mysql", "mariadb", "mongodb", "redis", "amqp", "mssql", "sqlserver"},
			pattern:     `(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver)://[^:@/\s"'<>]*:(?P<secret>[^@/\s"'<>]+)@[^\s"'<>/]+`,
			validate:    secretsValidateURLPassword},
	}
	// Vendor tokens next, then the structured forms (URLs, HTTP auth,
	// Kubernetes Secrets), then the heuristics, so that the most specific
	// rule claims a line first.
	rules = append(rules, secretsVendorRules()...)
	rules = append(rules, secretsStructuredRules()...)
	return append(rules, []secretsRule{
		// ---- heuristics, last so that any specific rule claims the line first ----
		{id: "generic-password", title: "Hard-coded password", severity: med, cwe: cwe259,
			remediation: "Change the password wherever it is used and read it from the environment or a secret manager.",
			keywords:    secretsPasswordKeywords, find: secretsFindPasswordAssignments},
		{id: "generic-secret", title: "Hard-coded secret or API token", severity: med, cwe: cwe798,
			remediation: "Rotate the secret at its issuer and read it from the environment or a secret manager.",
			keywords:    secretsSecretKeywords, find: secretsFindSecretAssignments},
	}...)
}

// Literals that start the generic assignment rules, and the identifier
// endings that make an assignment count. "token" matches accessToken,
// AUTH_TOKEN and csrf_token alike; entropy and placeholder filtering decide.
var (
	secretsPasswordKeywords = []string{"password", "passwd", "pwd"}
	secretsPasswordSuffixes = []string{"password", "passwd", "pwd"}
	secretsSecretKeywords   = []string{"secret", "api_key", "apikey", "api-key", "token", "access_key", "accesskey"}
	secretsSecretSuffixes   = []string{"secret", "secretkey", "apikey", "token", "accesskey"}
)

// Thresholds of the generic rules. Passwords are chosen by people, so they
// get a lower entropy bar than machine-generated API secrets.
const (
	secretsGenericMinLen         = 8
	secretsGenericMaxLen         = 200
	secretsPasswordEntropyFactor = 0.8 // bar = min(3.0, factor*log2(len))
	secretsPasswordEntropyCap    = 3.0
	secretsSecretEntropyFactor   = 0.85 // bar = min(3.5, factor*log2(len))
	secretsSecretEntropyCap      = 3.5
)

// secretsFindPasswordAssignments is generic-password. In configuration
// and IaC files (where `password = "..."` is a value someone will deploy)
// a password needs no entropy: "Aa12345678" in a Terraform file is a weak
// password, and weak is worse, not better. There only placeholders (the
// exact dictionary secretsWeakPasswordPlaceholders and the template
// markers) are skipped. Translation files are never searched: their
// "password" entries are labels in natural language.
func secretsFindPasswordAssignments(c *secretsMatchCtx) []secretsSpan {
	if c.translation || c.inK8sSecretData() {
		return nil
	}
	return secretsFindAssignments(c, secretsPasswordKeywords, secretsPasswordSuffixes, "generic-password",
		secretsPasswordEntropyFactor, secretsPasswordEntropyCap, c.configFile || c.iacFile)
}

// secretsFindSecretAssignments is generic-secret; like generic-password it
// skips translation files.
func secretsFindSecretAssignments(c *secretsMatchCtx) []secretsSpan {
	if c.translation || c.inK8sSecretData() {
		return nil
	}
	return secretsFindAssignments(c, secretsSecretKeywords, secretsSecretSuffixes, "generic-secret",
		secretsSecretEntropyFactor, secretsSecretEntropyCap, false)
}

func secretsIdentByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_' || b == '-' || b == '.'
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
	var seen []int // identifier starts already judged (db_secret_token holds two keywords)
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
			for s > 0 && secretsIdentByte(lower[s-1]) {
				s--
			}
			e := off
			for e < len(lower) && secretsIdentByte(lower[e]) {
				e++
			}
			if slices.Contains(seen, s) {
				continue
			}
			seen = append(seen, s)
			if !secretsIdentEndsWith(lower[s:e], suffixes) {
				continue
			}
			// '/forgot-password' is a route; a name opened by a quote that an
			// operator follows ("Password:") sits inside a string, a label.
			if s > 0 && (line[s-1] == '/' || secretsIsQuote(line[s-1]) && e < len(line) && line[e] == ':') {
				continue
			}
			vs, ve, ok := secretsAssignedValue(line, e, c.configFile)
			if !ok {
				vs, ve, ok = secretsXMLKeyValue(line, s, e)
			}
			if !ok {
				vs, ve, ok = secretsXMLElementValue(line, s, e)
			}
			if !ok {
				continue
			}
			v := line[vs:ve]
			if vs > 0 && !secretsIsQuote(line[vs-1]) && (v[0] == '!' || v[0] == '&' || v[0] == '*') {
				continue // unquoted YAML tag, anchor or alias: `password: !vault |`
			}
			if !secretsGenericValueOK(v, lower[s:e], entropyFactor, entropyCap, weakOK) {
				continue
			}
			spans = append(spans, secretsSpan{rule: c.engine.ruleIndex[ruleID], matchStart: s, matchEnd: ve, start: vs, end: ve, value: v})
		}
	}
	return spans
}

// secretsXMLKeyValueRe is the rest of an appSettings-style entry after
// its key's name: <add key="SmtpPassword" value="..."/>.
var secretsXMLKeyValueRe = regexp.MustCompile(`^"\s+value\s*=\s*"([^"]*)"`)

// secretsXMLKeyValue returns the value of a key/value element whose key
// attribute is the identifier line[s:e] (.NET appSettings, Spring XML
// properties, Ant/MSBuild property lists).
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
	if n < 3 || !bytes.EqualFold(before[n-3:], []byte("key")) || n > 3 && secretsIdentByte(before[n-4]) {
		return 0, 0, false
	}
	m := secretsXMLKeyValueRe.FindSubmatchIndex(line[e:])
	if m == nil || m[3] == m[2] {
		return 0, 0, false
	}
	return e + m[2], e + m[3], true
}

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
	for k := 0; k < 2 && p < n && (line[p] == '"' || line[p] == '\'' || line[p] == ']' || line[p] == '`' || line[p] == '\\' && p+1 < n && line[p+1] == '"'); k++ {
		if line[p] == '\\' {
			p++
		}
		p++
	}
	p = secretsSkipBlanks(line, p)
	typed := false
	if q, ok := secretsTypeAnnotation(line, p); ok {
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
	for e > p && (line[e-1] == ',' || line[e-1] == ';') {
		e--
	}
	if e == p || line[p] == '#' {
		return 0, 0, false
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
	t := q
	for q < len(line) && (secretsIdentByte(line[q]) || line[q] == '[' || line[q] == ']' || line[q] == '*' || line[q] == '?') {
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

// secretsGenericValueOK decides whether an assigned literal looks like a
// real credential rather than a word, an expression, a path or a
// placeholder. Values made only of letters are rejected (identifiers such
// as "Bearer" or "refresh_token"), which also skips pass-phrases made only
// of words: an accepted false negative, documented.
func secretsGenericValueOK(v, ident []byte, entropyFactor, entropyCap float64, weakOK bool) bool {
	// A value that opens with the other quote is a concatenation:
	// "'$PRECOMPILE_PASSWORD'" closes the string around a variable.
	v = bytes.Trim(v, "\"'`")
	if len(v) < secretsGenericMinLen || len(v) > secretsGenericMaxLen {
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
	if others == 0 {
		return false
	}
	if secretsLooksEncrypted(v) || secretsNotACredentialShape(v) {
		return false
	}
	lv := strings.ToLower(string(v))
	// arn: is an AWS resource name (IAMUserChangePassword = "arn:aws:iam::aws:policy/…").
	for _, p := range []string{"http://", "https://", "file:", "/", "./", "../", "~/", "(", "sha256:", "sha512-", "sha1-", "arn:"} {
		if strings.HasPrefix(lv, p) {
			return false
		}
	}
	if strings.Contains(lv, "://") {
		return false
	}
	switch path.Ext(lv) {
	case ".pem", ".key", ".json", ".txt", ".yaml", ".yml", ".crt", ".p12", ".pfx", ".env", ".conf", ".cfg", ".ini", ".xml", ".jks", ".toml", ".properties":
		return false
	}
	if lv == secretsStripSeparators(ident) {
		return false // password: "password", apiKey: "api_key"
	}
	if weakOK {
		return !secretsWeakPasswordPlaceholders[lv] && !secretsLooksTemplate(v)
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
	if secretsLooksPlaceholder(v) {
		return false
	}
	bar := math.Min(entropyCap, entropyFactor*math.Log2(float64(len(v))))
	return secretsEntropy(v) >= bar
}

// secretsQualifiedNameRe is a namespace-qualified type name
// (clm54321:AgencyIdentificationCodeContentType in an XSD).
var secretsQualifiedNameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]+:(?:[A-Z][a-z]+){3,}$`)

// secretsVendorShapeRe are the shapes of a Telegram bot token and a
// Google API key: their vendor rules judge such values (a bot id of the
// wrong length is a sample; a Firebase config's key is public), so the
// generic rules do not judge them again.
var secretsVendorShapeRe = regexp.MustCompile(`^[0-9]{4,20}:A|^[A-Za-z0-9_-]{1,20}:AA[A-Za-z0-9_-]{30,}$|^AIza[0-9A-Za-z_-]{35}$`)

// secretsNotACredentialShape reports values the generic rules must leave
// alone whatever their name: an Ethereum address (public by nature), a
// qualified type name, a value in a Telegram bot token's shape.
func secretsNotACredentialShape(v []byte) bool {
	if len(v) == 42 && bytes.HasPrefix(v, []byte("0x")) && !bytes.ContainsFunc(v[2:], func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r|32 && r|32 <= 'f')
	}) {
		return true
	}
	return secretsQualifiedNameRe.Match(v) || secretsVendorShapeRe.Match(v)
}

func secretsStripSeparators(b []byte) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c != '_' && c != '-' && c != '.' {
			out = append(out, c)
		}
	}
	return string(out)
}

// secretsPlaceholderMarkers are substrings (lowercase) that mark a value as
// documentation, a template or a test fixture rather than a credential.
var secretsPlaceholderMarkers = []string{
	"changeme", "change_me", "change-me", "changeit", "example", "dummy", "test", "sample",
	"placeholder", "redacted", "your", "xxxx", "****", "....", "fake", "replace", "insert",
	"todo", "fixme", "notreal", "not_real", "not-real", "${", "{{", "}}", "%s", "%v", "%d",
}

// secretsTemplateRe finds the bracketed and interpolated forms of a
// placeholder: <PASSWORD>, [API KEY], $(VAR), %(name)s, #{var}, or a
// value cut from one ("password>" of "-u <user:password>"). A bare
// "<", "(" or "[" is not one: machine-made secrets (Django keys, JWT
// signing secrets) draw from punctuation too.
var secretsTemplateRe = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9 _.:-]*>|^<|>$|\[[A-Za-z][A-Za-z0-9 _.:-]*\]|\$\([A-Za-z_]|%\([A-Za-z_][A-Za-z0-9_]*\)|#\{[A-Za-z_@$]`)

// secretsAlphabetRun reports values written by walking the alphabet or
// the digits ("abCD1EF+GHIJxLMnOPqRS..."): at least 8 neighbouring pairs,
// and a quarter of all pairs, are successors (b after a, 4 after 3), case
// aside. In a random value about one pair in 26 is.
func secretsAlphabetRun(v []byte) bool {
	succ := 0
	for i := 1; i < len(v); i++ {
		a, b := secretsLowerByte(v[i-1]), secretsLowerByte(v[i])
		if b == a+1 && ('a' <= a && a < 'z' || '0' <= a && a < '9') {
			succ++
		}
	}
	return succ >= 8 && 4*succ >= len(v)-1
}

// secretsSequenceMarkers are keyboard and counting runs. In a value they
// usually mean an example ("abcdefgh12345678"), except in a password of a
// configuration or IaC file, where a weak password such as "Aa12345678" is
// still a real password: there only the exact dictionary
// (secretsWeakPasswordPlaceholders) decides.
var secretsSequenceMarkers = []string{"12345678", "abcdefgh", "qwerty"}

// secretsDocumentedExamples are credentials published in vendor
// documentation: AWS's example key pair, the Azure Storage emulator
// (Azurite) account key, which every local-development setup contains, and
// the test key of Stripe's API reference.
var secretsDocumentedExamples = []string{
	"AKIAIOSFODNN7EXAMPLE",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
	"sk_test_4eC39HqLyjWDarjtT1zdp7dc", // Stripe's API reference, in every code sample
	// OAuth 2.0's example credentials (RFC 6750 2.1-2.3, RFC 6749 4.1,
	// 4.4, 5.1, 6): the bearer token, access, refresh and authorization
	// codes, and the client s6BhdRkqt3 with its secret.
	"mF_9.B5f-4.1JqM", "2YotnFZFEjr1zCsicMWpAA", "tGzv3JOkF0XG5Qx2TlKWIA", "SplxlOBeZQQYbYS6WxSbIA",
	"czZCaGRSa3F0MzpnWDFmQmF0M2JW", "gX1fBat3bV", "8xLOxBtZp8",
	// The nuget.config reference's sample feed passwords
	// (learn.microsoft.com/nuget/reference/nuget-config-file).
	"33f!!lloppa", "hal+9ooo_da!sY",
}

// secretsFormatPlaceholderMarkers are the placeholder words that still
// count in a value of a vendor's exact format (secretsRule.vendorFormat).
var secretsFormatPlaceholderMarkers = []string{
	"changeme", "change_me", "example", "dummy", "placeholder", "redacted", "your", "xxxx", "****", "....",
	"replace", "insert", "notreal", "not_real", "${", "{{", "}}",
}

// secretsLooksFormatPlaceholder is secretsLooksPlaceholder for values of a
// vendor's exact format: fillers, repetitions, templates, documented
// examples and the words of secretsFormatPlaceholderMarkers.
func secretsLooksFormatPlaceholder(v []byte) bool {
	lv := strings.ToLower(string(v))
	for _, m := range secretsFormatPlaceholderMarkers {
		if strings.Contains(lv, m) {
			return true
		}
	}
	if slices.Contains(secretsDocumentedExamples, string(v)) || secretsTemplateRe.Match(v) || secretsRepeatsOverHalf(v) {
		return true
	}
	return secretsLowVariety(v)
}

// secretsEncryptedPrefixes start values that are ciphertext, written to
// be committed: SOPS (ENC[AES256_GCM,data:...,iv:...,tag:...]), Windows
// DPAPI blobs (NuGet.Config's Password, .NET protected configuration),
// Ansible Vault, Jasypt (Spring Boot properties: ENC(base64)), Jenkins
// (credentials.xml and config.xml: {AQAAABAAAAAQ...}, a version byte and
// the lengths of IV and ciphertext before them).
var secretsEncryptedPrefixes = []string{"ENC[AES256_GCM,", "ENC[", "ENC(", "AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAA", "$ANSIBLE_VAULT;", "{AQAAABAAAA"}

// secretsLooksEncrypted reports a committed ciphertext value: it is
// what encryption-at-rest tools are for, not a leak.
func secretsLooksEncrypted(v []byte) bool {
	for _, p := range secretsEncryptedPrefixes {
		if bytes.HasPrefix(v, []byte(p)) {
			switch p {
			case "ENC[":
				return bytes.Contains(v, []byte(",iv:")) || bytes.Contains(v, []byte("data:"))
			case "ENC(":
				// Jasypt's ciphertext is base64 of at least a salt and a block.
				body := bytes.TrimSuffix(v[len(p):], []byte(")"))
				return len(body) >= 24 && !bytes.ContainsFunc(body, func(r rune) bool { return r >= 128 || !secretsIsBase64Byte(byte(r)) })
			}
			return true
		}
	}
	return false
}

// secretsLooksPlaceholder reports whether v is a template reference, a
// documentation value or a repeated-character filler.
func secretsLooksPlaceholder(v []byte) bool {
	lv := strings.ToLower(string(v))
	for _, m := range secretsSequenceMarkers {
		if strings.Contains(lv, m) {
			return true
		}
	}
	return secretsHasRepeatedPattern(v) || secretsAlphabetRun(v) || secretsLooksTemplate(v)
}

// secretsHasRepeatedPattern reports values built by repeating a short
// chunk (AKIADEADBEEFDEADBEEF, AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZ...): some
// period p (up to 32) at which at least 8 consecutive bytes repeat, the repetition
// spanning half the value or more. A random value repeats 8 bytes by
// chance with probability around 62^-8.
func secretsHasRepeatedPattern(v []byte) bool {
	for p := 1; p <= min(len(v)/2, 32); p++ {
		run := 0
		for i := 0; i+p < len(v); i++ {
			if v[i] != v[i+p] {
				run = 0
				continue
			}
			run++
			if run >= 8 && 2*(run+p) >= len(v) {
				return true
			}
		}
	}
	return false
}

// secretsRepeatsOverHalf is secretsHasRepeatedPattern for values of a
// vendor's exact format, whose alphabet is small (hex) and whose fixtures
// repeat a short run by hand: the repeated run itself must cover half the
// value (AKIADEADBEEFDEADBEEF, sgp_5555555dAAAAA...).
func secretsRepeatsOverHalf(v []byte) bool {
	for p := 1; p <= min(len(v)/2, 32); p++ {
		run := 0
		for i := 0; i+p < len(v); i++ {
			if v[i] != v[i+p] {
				run = 0
				continue
			}
			run++
			if run >= 8 && 2*run >= len(v) {
				return true
			}
		}
	}
	return false
}

// secretsLooksTemplate is secretsLooksPlaceholder without the sequence
// markers.
func secretsLooksTemplate(v []byte) bool {
	lv := strings.ToLower(string(v))
	for _, m := range secretsPlaceholderMarkers {
		if strings.Contains(lv, m) {
			return true
		}
	}
	for _, ex := range secretsDocumentedExamples {
		if string(v) == ex {
			return true
		}
	}
	if secretsTemplateRe.Match(v) {
		return true
	}
	// $VAR; ${VAR} is caught above.
	if len(v) > 1 && v[0] == '$' && (secretsIdentByte(v[1]) || v[1] == '{') {
		return true
	}
	// %VAR% (Windows), @VAR@ (Maven/Gradle resource filtering).
	if len(v) > 2 && (v[0] == '%' || v[0] == '@') && v[len(v)-1] == v[0] {
		return true
	}
	return secretsLowVariety(v)
}

// secretsLowVariety reports fillers like "aaaaaaaa" or "abababab": too
// few distinct bytes, or one byte making up more than half the value.
func secretsLowVariety(v []byte) bool {
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

// secretsEntropy is the Shannon entropy of v in bits per byte.
func secretsEntropy(v []byte) float64 {
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

// secretsValidateNotDocumentedExample rejects the vendors' published
// example credentials.
func secretsValidateNotDocumentedExample(v []byte, _ *secretsMatchCtx) bool {
	return !slices.Contains(secretsDocumentedExamples, string(v))
}

func secretsValidateNotAWSExample(v []byte, _ *secretsMatchCtx) bool {
	s := string(v)
	for _, ex := range secretsDocumentedExamples {
		if s == ex {
			return false
		}
	}
	return !strings.HasSuffix(s, "EXAMPLE") && !strings.HasSuffix(s, "EXAMPLEKEY")
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

// secretsAWSKeyIDRe finds an access key ID anywhere in a file.
var secretsAWSKeyIDRe = regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z2-7]{16}\b`)

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

// secretsURLPasswordPlaceholder reports passwords that only ever appear
// in documentation and local-development defaults.
// secretsFormatFieldRe is a replacement field of Python's f-strings and
// str.format, C#'s interpolated strings and Rust's format!: {name}.
var secretsFormatFieldRe = regexp.MustCompile(`^\{[A-Za-z_][\w.\[\]'"]*\}$`)

func secretsURLPasswordPlaceholder(lower string) bool {
	switch lower {
	case "password", "pass", "passwd", "pwd", "secret", "pw", "postgres", "mysql", "root", "admin",
		"guest", "user", "username", "redis", "mongo", "mongodb", "rabbitmq":
		return true
	}
	return false
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
	return !bytes.ContainsAny(v, "*") && !secretsLooksPlaceholder(v)
}

// secretsValidatePEMInline accepts a PEM block written on one line with
// escaped newlines (service-account JSON) when it carries a real body.
func secretsValidatePEMInline(v []byte, _ *secretsMatchCtx) bool {
	return len(secretsBase64Run(v)) >= 40
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
	return body != nil && !secretsLooksPlaceholder(body)
}

// secretsBase64Run returns the longest run of base64 bytes in b (escaped
// "\n" sequences end a run).
func secretsBase64Run(b []byte) []byte {
	best, start := []byte(nil), -1
	for i := 0; i <= len(b); i++ {
		if i < len(b) && secretsIsBase64Byte(b[i]) && !(b[i] == 'n' && i > 0 && b[i-1] == '\\') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = b[start:i]
		}
		start = -1
	}
	return best
}

func secretsIsBase64Byte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '+' || b == '/' || b == '='
}

var secretsPEMHeaderRe = regexp.MustCompile(`-----BEGIN ((?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----`)

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
		if body == nil || secretsLooksPlaceholder(body) {
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
			if !secretsIsBase64Byte(b) {
				return nil, false, false
			}
		}
		return seg, segOnLine, encrypted
	}
	return nil, false, false
}

// Pattern pieces of the vendor rules.
const (
	// secretsTokEnd ends a token: the next byte cannot continue it.
	secretsTokEnd = `(?:[^A-Za-z0-9_-]|$)`
	// secretsNearGap joins a vendor's name to the value assigned to it: the
	// rest of the identifier (DATADOG_API_KEY, adafruitKey, cf.api-token),
	// a closing quote or bracket, an assignment, an opening quote; or a
	// call that takes the value as its first argument
	// (messagebird.initClient('...'), new HubSpotAPI("...")).
	// The name may be a module the call hangs off:
	// require('messagebird').initClient('...'), or a namespace
	// (new \MessageBird\Client('...')). A call may take an identifier
	// or a variable before the secret (provider :facebook, ENV["ID"], "app secret";
	// SumoLogic("access id", "access key")). And the name may be a command
	// given the value as an argument, after up to three words or flags:
	// snyk config set api=..., vault login s...., bundle config
	// gems.contribsys.com user:pass. A name/value pair names the value by
	// the name: {"name": "SNYK_TOKEN", "value": "..."}.
	secretsNearGap = `(?:[\w.\\-]|['"]\)\.){0,32}?\\{0,2}["'\x60]?\]?(?:[ \t]+[A-Za-z_][\w.*\[\]]{0,20})?(?:[ \t]{0,3}(?:,[ \t]*["']?(?i:value)["']?[ \t]*[:=]|:{1,3}=|=>|\?\?=|[?+.]?=|:|,|\(|>)[ \t]{0,3}(?:(?:["'][^"'\s]{1,64}["']|[\w.]{1,40}(?:\[["']?\w{1,40}["']?\])?)[ \t]*,[ \t]*)?` +
		`|(?:[ \t]+(?:[a-z][\w:.-]*|--?[a-z][\w-]*(?:=[\w.-]+)?)){0,3}?[ \t]+(?:[a-z][\w.-]*=)?)\\{0,2}["'\x60]?`
	// secretsNearEnd is what may follow such a value: a delimiter, an
	// escaped newline or the end of the line, never more value characters.
	secretsNearEnd = `(?:["'\x60\s;,)}\]<&\\]|$)`
	secretsUUID    = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`
)

// secretsRevokeIn is the remediation of a vendor token: where to revoke it.
func secretsRevokeIn(where string) string {
	return "Revoke or regenerate it in " + where + ", then update whatever used it."
}

// secretsTok is a rule for a token whose own prefix names its issuer
// (AGE-SECRET-KEY-1…, pplx-…, dapi…): the prefixes are its case-sensitive
// keywords and the value pattern starts at a word boundary.
func secretsTok(id, title string, sev finding.Severity, where string, prefixes []string, value string) secretsRule {
	return secretsRule{id: id, title: title, severity: sev, cwe: "CWE-798", remediation: secretsRevokeIn(where),
		csKeywords: prefixes, pattern: `\b(` + value + `)` + secretsTokEnd, minEntropy: 3, modeWords: true, vendorFormat: true}
}

// secretsNear is a rule for a value that only means something next to its
// vendor's name (a 32-character hex string is a Datadog API key only in
// DATADOG_API_KEY=…): the names are its keywords and must precede the
// value in the same assignment.
func secretsNear(id, title string, sev finding.Severity, where string, vendors []string, value string) secretsRule {
	return secretsRule{id: id, title: title, severity: sev, cwe: "CWE-798", remediation: secretsRevokeIn(where),
		keywords: vendors, pattern: secretsNearPattern(vendors, value), minEntropy: 3, modeWords: true, vendorFormat: true,
		nested: secretsNestedPattern(value)}
}

// secretsNestedPattern is a key that names a credential (accessKey,
// app_secret, "api-token", access_id) or holds the value of a named entry
// (value: under "- name: SNYK_TOKEN", default = in variable
// "sumologic_access_key" {...}), an assignment, and the value; or the
// value alone on its line.
func secretsNestedPattern(value string) string {
	return `(?i:^[ \t]*["']?[\w.-]*(?:key|secret|token|passw|pwd|auth|credential|access|value|default)[\w.-]*["']?[ \t]*(?::=|=>|=|:))[ \t]*["'\x60]?(?P<secret>` +
		value + `)` + secretsNearEnd +
		// The value alone on its line: a YAML block scalar's body, an XML
		// element's text (<facebookToken>\n value \n</facebookToken>).
		`|^[ \t]*["']?(?P<secret>` + value + `)["']?[ \t]*$`
}

func secretsNearPattern(vendors []string, value string) string {
	quoted := make([]string, len(vendors))
	for i, v := range vendors {
		quoted[i] = regexp.QuoteMeta(v)
	}
	return `(?i:` + strings.Join(quoted, "|") + `)` + secretsNearGap + `(?P<secret>` + value + `)` + secretsNearEnd
}

// secretsTokOrNear is a rule with both forms: a prefixed token anywhere,
// or a bare value next to the vendor's name.
func secretsTokOrNear(id, title string, sev finding.Severity, where string, prefixes []string, tok string, vendors []string, value string) secretsRule {
	r := secretsNear(id, title, sev, where, vendors, value)
	r.csKeywords = prefixes
	r.pattern = `\b(?P<secret>` + tok + `)` + secretsTokEnd + `|` + r.pattern
	return r
}

// secretsVendorRules are the credentials of one vendor each: the families
// gitleaks documents, written from each vendor's published token format.
// Severity follows the policy above: critical for cloud, payment, crypto
// exchange and secret-store credentials; high for API tokens within one
// service; medium for read-only or webhook-like tokens.
// All are CWE-798 except the age identity (CWE-321).
func secretsVendorRules() []secretsRule {
	crit, high, med := finding.Critical, finding.High, finding.Medium
	tok, near, both := secretsTok, secretsNear, secretsTokOrNear
	uuid := secretsUUID
	age := tok("age-secret-key", "age encryption identity (secret key)", crit, "your key store: generate a new identity with age-keygen, re-encrypt the files to its recipient",
		[]string{"AGE-SECRET-KEY-1"}, `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`)
	age.cwe = "CWE-321"
	grafana := both("grafana-token", "Grafana API key, Cloud or service account token", high, "Grafana (Administration > Service accounts / API keys)",
		[]string{"eyJrIjoi", "glc_", "glsa_"}, `eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`,
		[]string{"grafana"}, `glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`)
	grafana.validate = secretsValidateNotPowerBI
	// A legacy service token (s. + 24) is a token only where a token is
	// assigned or passed (VAULT_TOKEN=, token:, SetToken("...")), and
	// only when it mixes cases and digits: s.makeKubeConfigController is
	// code.
	vault := both("vault-token", "HashiCorp Vault token", crit, "Vault (vault token revoke) and review the audit log",
		[]string{"hvs.", "hvb.", "hvr."}, `hv[sbr]\.[A-Za-z0-9_-]{24,400}`, []string{"vault", "token"}, `s\.[A-Za-z0-9]{24,40}`)
	vault.validate = secretsValidateMixedToken
	vault.prefilter = secretsHasVaultShape
	// An access key is an access ID (su + 12) and a 64-character key; the
	// ID alone opens nothing, but it is half the pair and names the
	// account. Both mix cases and digits (sumOfExposures is code).
	sumo := near("sumologic-token", "Sumo Logic access ID or key", high, "Sumo Logic (Preferences > Access keys)", []string{"sumo"}, `[A-Za-z0-9]{64}|su[A-Za-z0-9]{12}`)
	sumo.validate = secretsValidateMixedToken
	// The gem-server credentials are two 8-hex halves that Contributed
	// Systems hands out per customer; BUNDLE_..._CONTRIBSYS__COM names them,
	// so the value needs no entropy (gitleaks' own examples are
	// cafebabe:deadbeef).
	sidekiq := near("sidekiq-credentials", "Sidekiq Pro/Enterprise gem server credentials", high, "Contributed Systems (ask for new credentials)",
		[]string{"contribsys"}, `[a-f0-9]{8}:[a-f0-9]{8}`)
	sidekiq.minEntropy = 0
	return []secretsRule{
		// ---- secret stores, identity and cloud ----
		tok("amazon-mws-token", "Amazon Marketplace Web Service auth token", crit, "Seller Central (Apps and Services > Manage your apps: revoke the developer's access)",
			[]string{"amzn.mws."}, `amzn\.mws\.`+uuid),
		tok("django-secret-key", "Django SECRET_KEY (startproject-generated)", high, "the settings: generate a new key (django.core.management.utils.get_random_secret_key), load it from the environment, and expect sessions and signed tokens to be invalidated",
			[]string{"django-insecure-"}, `django-insecure-[a-z0-9!@#$%^&*(\-_=+)]{40,60}`),
		tok("onepassword-secret-key", "1Password account Secret Key", crit, "1Password (Profile > Regenerate Secret Key)",
			[]string{"A3-"}, `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`),
		tok("onepassword-service-account-token", "1Password service account token", crit, "1Password (Developer > Service Accounts)",
			[]string{"ops_eyJ"}, `ops_eyJ[A-Za-z0-9+/_-]{100,}={0,2}`),
		age,
		vault,
		tok("hashicorp-terraform-token", "Terraform Cloud / Enterprise API token", high, "Terraform Cloud (User settings > Tokens)",
			[]string{".atlasv1."}, `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`),
		tok("doppler-token", "Doppler token", crit, "the Doppler dashboard (Access > Tokens)",
			[]string{"dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."}, `dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}`),
		{id: "azure-ad-client-secret", title: "Microsoft Entra ID (Azure AD) client secret", severity: crit, cwe: "CWE-798",
			remediation: secretsRevokeIn("the Azure portal (App registrations > Certificates & secrets) and prefer managed identities or certificates"),
			csKeywords:  []string{"Q~"}, pattern: `(?:^|[^A-Za-z0-9_~.-])(?P<secret>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)`,
			minEntropy: 3.5},
		tok("alibaba-access-key-id", "Alibaba Cloud AccessKey ID", crit, "the Alibaba Cloud RAM console (AccessKey management)",
			[]string{"LTAI"}, `LTAI[A-Za-z0-9]{12,20}`),
		near("alibaba-secret-key", "Alibaba Cloud AccessKey secret", crit, "the Alibaba Cloud RAM console (AccessKey management)",
			[]string{"alibaba", "aliyun", "alicloud"}, `[A-Za-z0-9]{30}`),
		both("yandex-cloud-key", "Yandex Cloud credential", crit, "the Yandex Cloud console (service account keys)",
			[]string{"AQVN", "t1."}, `AQVN[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}`,
			[]string{"yandex"}, `YC[A-Za-z0-9_-]{38}`),
		tok("databricks-token", "Databricks personal access token", high, "the Databricks workspace (User settings > Developer > Access tokens)",
			[]string{"dapi"}, `dapi[a-f0-9]{32}(?:-[0-9])?`),
		both("cloudflare-api-key", "Cloudflare API token or key", crit, "the Cloudflare dashboard (My Profile > API Tokens)",
			[]string{"v1.0-"}, `v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`,
			[]string{"cloudflare", "cf_api", "cf-api"}, `[a-f0-9]{37}|[A-Za-z0-9_-]{40}`),
		tok("openshift-user-token", "OpenShift user token", high, "OpenShift (oc delete oauthaccesstoken)",
			[]string{"sha256~"}, `sha256~[A-Za-z0-9_-]{43}`),
		tok("flyio-token", "Fly.io access token", high, "Fly.io (fly tokens revoke)",
			[]string{"fo1_", "fm1_", "fm2_", "fm1a_", "fm1r_", "fm2a_", "fm2r_"}, `fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}`),
		both("heroku-api-key", "Heroku API key", high, "Heroku (Account settings > API Key > Regenerate)",
			[]string{"HRKU-AA"}, `HRKU-AA[0-9A-Za-z_-]{58}`, []string{"heroku"}, uuid),
		// A private app token is pat-<region>-<uuid>; the legacy API key
		// (hapikey) is a bare UUID next to the name.
		both("hubspot-token", "HubSpot private app token or API key", high, "HubSpot (Settings > Integrations > Private apps: rotate the token)",
			[]string{"pat-na1-", "pat-na2-", "pat-eu1-", "pat-ap1-"}, `pat-(?:na[12]|eu1|ap1)-`+uuid, []string{"hubspot", "hapikey", "hapi_key"}, uuid),
		// Long-term Bedrock API keys are ABSK + base64("BedrockAPIKey-...:secret");
		// short-term ones are bedrock-api-key- + base64 of a presigned URL
		// on bedrock.amazonaws.com.
		tok("aws-bedrock-api-key", "Amazon Bedrock API key", crit, "the AWS console (IAM > Users > BedrockAPIKey-... > Security credentials: delete the service-specific credential); short-term keys expire within 12 hours",
			[]string{"ABSK", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"}, `ABSK[A-Za-z0-9+/]{109,269}={0,2}|ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{30,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/]{20,}={0,2}`),
		both("netlify-token", "Netlify access token", high, "Netlify (User settings > Applications > Personal access tokens)",
			[]string{"nfp_"}, `nfp_[A-Za-z0-9]{36}`, []string{"netlify"}, `[A-Za-z0-9_=-]{40,46}`),
		tok("pulumi-token", "Pulumi access token", high, "Pulumi Cloud (Personal access tokens)", []string{"pul-"}, `pul-[a-f0-9]{40}`),
		tok("scalingo-token", "Scalingo API token", high, "Scalingo (User settings > API tokens)", []string{"tk-us-"}, `tk-us-[A-Za-z0-9_-]{48}`),
		tok("defined-networking-token", "Defined Networking API token", high, "the Defined Networking admin panel", []string{"dnkey-"}, `dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}`),
		tok("planetscale-token", "PlanetScale token or password", high, "PlanetScale (Organization settings > Service tokens / branch passwords)",
			[]string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"}, `pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}`),
		tok("prefect-api-key", "Prefect Cloud API key", high, "Prefect Cloud (Profile > API keys)", []string{"pnu_"}, `pnu_[A-Za-z0-9]{36}`),
		tok("harness-token", "Harness API token", high, "Harness (My profile > API keys)", []string{"pat.", "sat."},
			`(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}`),
		tok("dynatrace-token", "Dynatrace API token", high, "Dynatrace (Access tokens)", []string{"dt0c01."}, `dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`),
		{id: "clickhouse-cloud-api-secret", title: "ClickHouse Cloud API key secret", severity: high, cwe: "CWE-798",
			remediation: secretsRevokeIn("the ClickHouse Cloud console (Organization > API keys)"),
			csKeywords:  []string{"4b1d"}, pattern: `\b(4b1d[A-Za-z0-9]{38})` + secretsTokEnd, minEntropy: 3.5, validate: secretsValidateNotHex},
		tok("settlemint-token", "SettleMint access token", high, "the SettleMint console (API keys)",
			[]string{"sm_aat_", "sm_pat_", "sm_sat_"}, `sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}`),
		{id: "authress-access-key", title: "Authress service client access key", severity: high, cwe: "CWE-798",
			remediation: secretsRevokeIn("the Authress management portal (Service clients)"),
			csKeywords:  []string{".acc_", ".acc-"}, pattern: `\b((?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120})` + secretsTokEnd, minEntropy: 3.5},

		// ---- source hosting, CI and package registries ----
		tok("gitlab-token", "GitLab token (CI job, feed, mail, agent, OAuth, SCIM, runner registration)", high, "GitLab (the token's settings page) and review the audit events",
			[]string{"glcbt-", "glffct-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "GR1348941"},
			`glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_-]{20}|glffct-[0-9A-Za-z_-]{20}|glft-[0-9A-Za-z_-]{20}|glimt-[0-9A-Za-z_-]{25}|glagent-[0-9A-Za-z_-]{50}|gloas-[0-9A-Za-z_-]{64}|glsoat-[0-9A-Za-z_-]{20}|GR1348941[0-9A-Za-z_-]{20}`),
		{id: "gitlab-session-cookie", title: "GitLab session cookie", severity: high, cwe: "CWE-798",
			remediation: "Sign the session out (User settings > Active sessions > Revoke).",
			keywords:    []string{"_gitlab_session"}, pattern: `_gitlab_session=([0-9a-z]{32})\b`, minEntropy: 3},
		near("bitbucket-client-secret", "Bitbucket OAuth consumer secret", high, "Bitbucket (Workspace settings > OAuth consumers)",
			[]string{"bitbucket"}, `[A-Za-z0-9=_-]{64}`),
		near("atlassian-api-token-legacy", "Atlassian / Jira / Confluence API token", high, "id.atlassian.com (Security > API tokens)",
			[]string{"atlassian", "confluence", "jira"}, `[A-Za-z0-9]{24}`),
		tok("sourcegraph-token", "Sourcegraph access token", high, "Sourcegraph (Settings > Access tokens)",
			[]string{"sgp_"}, `sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}`),
		both("sonar-token", "SonarQube / SonarCloud token", high, "SonarQube (My Account > Security)",
			// Older tokens have no prefix; sonar.login / SONAR_TOKEN names them.
			[]string{"squ_", "sqp_", "sqa_"}, `sq[upa]_[a-f0-9]{40}`, []string{"sonar"}, `(?:sq[upa]_)?[A-Za-z0-9]{40}`),
		near("snyk-token", "Snyk API token", high, "Snyk (Account settings > Auth Token > Revoke & Regenerate)", []string{"snyk"}, uuid),
		near("codecov-token", "Codecov upload token", med, "Codecov (repository settings > Regenerate token)", []string{"codecov"}, uuid+`|[a-f0-9]{32}`),
		near("droneci-token", "Drone CI token", high, "Drone (Account settings > Reset token)", []string{"drone"}, `[A-Za-z0-9]{32}`),
		near("travisci-token", "Travis CI token", high, "Travis CI (Settings > API authentication)", []string{"travis"}, `[A-Za-z0-9]{22}`),
		tok("artifactory-api-key", "JFrog Artifactory API key", high, "JFrog (Edit profile > API key)", []string{"AKCp"}, `AKCp[A-Za-z0-9]{69}`),
		tok("artifactory-reference-token", "JFrog reference token", high, "JFrog (Edit profile > Identity tokens)", []string{"cmVmdGtu"}, `cmVmdGtu[A-Za-z0-9]{56}`),
		near("jfrog-identity-token", "JFrog identity token", high, "JFrog (Edit profile > Identity tokens)",
			[]string{"jfrog", "artifactory", "bintray", "xray"}, `[A-Za-z0-9]{64}`),
		tok("clojars-token", "Clojars deploy token", high, "Clojars (Deploy tokens)", []string{"CLOJARS_"}, `CLOJARS_[a-z0-9]{60}`),
		tok("crates-io-token", "crates.io API token", high, "crates.io (Account settings > API Tokens) and check recent publishes", []string{"cio"}, `cio[A-Za-z0-9]{32}`),
		near("codeclimate-reporter-id", "Code Climate test reporter ID", med, "Code Climate (Repo settings > Test coverage > Regenerate)",
			[]string{"cc_test_reporter_id", "codeclimate", "code_climate"}, `[a-f0-9]{64}`),
		both("azure-devops-pat", "Azure DevOps personal access token", high, "Azure DevOps (User settings > Personal access tokens > Revoke)",
			[]string{"AZDO"}, `[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}`,
			[]string{"azure_devops", "azuredevops", "azure-devops", "ado_pat", "ado_token", "devops_pat", "devops_token", "vsts"}, `[a-z2-7]{52}`),
		tok("rubygems-api-key", "RubyGems API key", high, "rubygems.org (Settings > API keys)", []string{"rubygems_"}, `rubygems_[a-f0-9]{48}`),
		secretsNuGetAPIKeyRule(),
		{id: "nuget-config-password", title: "Clear-text password in NuGet configuration", severity: high, cwe: "CWE-259",
			remediation: "Change the feed password or token and store it encrypted (nuget sources add -StorePasswordInClearText is the problem) or in an environment variable referenced from NuGet.Config.",
			// Password is the DPAPI-encrypted form; a value that is not a
			// DPAPI blob there is clear text all the same.
			keywords: []string{"cleartextpassword", `key="password"`}, pattern: `(?i)key\s*=\s*"(?:ClearText)?Password"\s+value\s*=\s*"([^"]{4,})"`,
			vendorFormat: true, validate: secretsValidateNuGetPassword},
		tok("readme-api-key", "ReadMe API key", high, "ReadMe (API keys)", []string{"rdme_"}, `rdme_[a-z0-9]{70}`),
		tok("postman-api-key", "Postman API key", high, "Postman (Settings > API keys)", []string{"PMAK-"}, `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`),
		tok("octopus-deploy-api-key", "Octopus Deploy API key", high, "Octopus Deploy (Profile > My API keys)", []string{"API-"}, `API-[A-Z0-9]{26}`),
		tok("infracost-api-key", "Infracost API key", med, "Infracost Cloud (Org settings > API key)", []string{"ico-"}, `ico-[A-Za-z0-9]{32}`),
		tok("typeform-token", "Typeform personal access token", high, "Typeform (Account > Personal tokens)", []string{"tfp_"}, `tfp_[A-Za-z0-9_.=-]{59}`),

		// ---- monitoring and operations ----
		near("datadog-api-key", "Datadog API or application key", high, "Datadog (Organization settings > API / Application keys)",
			[]string{"datadog", "dd_api", "dd_app", "dd-api", "dd-app"}, `[a-f0-9]{40}|[a-f0-9]{32}`),
		both("sentry-token", "Sentry auth token", high, "Sentry (User settings > Auth tokens, or Organization tokens)",
			[]string{"sntryu_", "sntrys_"}, `sntryu_[a-f0-9]{64}|sntrys_eyJ[A-Za-z0-9+/=_-]{80,}`, []string{"sentry"}, `[a-f0-9]{64}`),
		grafana,
		tok("new-relic-key", "New Relic API, insert, browser or license key", high, "New Relic (API keys)",
			[]string{"NRAK-", "NRAA-", "NRII-", "NRIQ-", "NRRA-", "NRJS-", "NRAL"},
			// A license key of an EU or other regional account starts with its region (eu01xx…NRAL).
			`NRAK-[A-Z0-9]{27}|NRAA-[a-f0-9]{27}|NRII-[A-Za-z0-9_-]{32}|NRIQ-[A-Za-z0-9_-]{32}|NRRA-[a-f0-9]{42}|NRJS-[a-f0-9]{19}|[a-z0-9]{6}[a-f0-9]{30}NRAL`),
		{id: "new-relic-license-key", title: "New Relic license key (legacy format)", severity: high, cwe: "CWE-798",
			remediation: secretsRevokeIn("New Relic (API keys: delete the license key and create a new one)"),
			// The 40-hex license key predates the NRAL suffix; newrelic.yml
			// and its environment-variable form name it license_key.
			keywords: []string{"license_key"}, fileContext: []string{"newrelic", "new relic", "new_relic"},
			pattern: `(?i)license_key["']?[ \t]*[:=][ \t]*["']?([a-f0-9]{40})` + secretsNearEnd, minEntropy: 3},
		// An access key is an access ID (su + 12) and a 64-character key;
		// the ID alone opens nothing, but it is half the pair and names the
		// account, and scanners report it as such.
		sumo,
		near("cisco-meraki-api-key", "Cisco Meraki API key", high, "the Meraki dashboard (My profile > API access)", []string{"meraki"}, `[0-9a-f]{40}`),
		near("okta-api-token", "Okta API token", high, "the Okta admin console (Security > API > Tokens)", []string{"okta"}, `00[A-Za-z0-9_=-]{40}`),
		near("launchdarkly-key", "LaunchDarkly SDK or API key", high, "LaunchDarkly (Account settings > Authorization / Projects > Environments)",
			[]string{"launchdarkly", "ld_sdk", "ld_api", "ld_access", "ld-sdk"}, `(?:api|sdk|mob)-`+uuid),
		near("mattermost-token", "Mattermost access token", high, "Mattermost (Profile > Security > Personal access tokens)", []string{"mattermost"}, `[a-z0-9]{26}`),
		tok("microsoft-teams-webhook", "Microsoft Teams incoming webhook URL", med, "the Teams channel (Connectors > Incoming Webhook > Remove), then create a new one",
			// The legacy host outlook.office.com/webhook/ still serves connectors created before 2021.
			[]string{"webhook.office.com", "outlook.office.com/webhook/"},
			`https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[a-z0-9-]{36}@[a-z0-9-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9-]{36}(?:/[A-Za-z0-9_-]+)?|https://outlook\.office\.com/webhook/[a-f0-9-]{36}@[a-f0-9-]{36}/[A-Za-z]+/[a-f0-9]{32}/[a-f0-9-]{36}`),
		tok("maxmind-license-key", "MaxMind license key", med, "MaxMind (Manage license keys)", []string{"_mmk"}, `[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`),
		tok("intra42-client-secret", "42 Intra API client secret", med, "the 42 Intra applications page", []string{"s-s4t2"}, `s-s4t2(?:ud|af)-[a-f0-9]{64}`),
		near("privateai-api-key", "Private AI API key", med, "the Private AI portal", []string{"privateai", "private_ai", "private-ai"}, `[A-Za-z0-9]{32}`),

		// ---- communication, productivity and content APIs ----
		both("notion-token", "Notion integration token", high, "Notion (Settings > Connections > Develop or manage integrations)",
			[]string{"ntn_"}, `ntn_[0-9]{11}[A-Za-z0-9]{35}`, []string{"notion"}, `secret_[A-Za-z0-9]{43}`),
		both("linear-api-key", "Linear API key", high, "Linear (Settings > API)",
			[]string{"lin_api_", "lin_oauth_"}, `lin_api_[A-Za-z0-9]{40}|lin_oauth_[a-f0-9]{64}`, []string{"linear_client_secret", "linear-client-secret"}, `[a-f0-9]{32}`),
		near("asana-token", "Asana personal access token or client secret", high, "Asana (My settings > Apps > Developer apps)",
			[]string{"asana"}, `[0-9]/[0-9]{10,20}(?:/[0-9]{10,20})?:[a-f0-9]{32}|[A-Za-z0-9]{32}`),
		near("airtable-api-key", "Airtable API key or personal access token", high, "Airtable (Developer hub > Personal access tokens)",
			[]string{"airtable"}, `pat[A-Za-z0-9]{14}\.[a-f0-9]{64}|key[A-Za-z0-9]{14}`),
		near("algolia-api-key", "Algolia admin API key", high, "the Algolia dashboard (Settings > API keys)", []string{"algolia"}, `[a-f0-9]{32}`),
		near("contentful-token", "Contentful API token", med, "Contentful (Settings > API keys)", []string{"contentful"}, `[A-Za-z0-9=_-]{43}`),
		near("discord-client-secret", "Discord client secret or API token", high, "the Discord Developer Portal (OAuth2 > Reset Secret)",
			[]string{"discord"}, `[a-f0-9]{64}|[A-Za-z0-9_-]{32}`),
		both("telegram-bot-token", "Telegram bot token", high, "@BotFather (/revoke)",
			[]string{":AA"}, `[0-9]{5,16}:AA[A-Za-z0-9_-]{32,33}`, []string{"telegram", "tgbot"}, `[0-9]{5,16}:A[A-Za-z0-9_-]{34}`),
		near("messagebird-api-key", "MessageBird API key", high, "the MessageBird dashboard (Developers > API access)",
			[]string{"messagebird", "message-bird", "message_bird"}, `[A-Za-z0-9]{25}`),
		near("twilio-api-key-secret", "Twilio API key secret", high, "the Twilio Console (Account > API keys: delete the key)", []string{"twilio"}, `[A-Za-z0-9]{32}`),
		near("sendbird-token", "Sendbird API token", high, "the Sendbird dashboard (Settings > General > API tokens)", []string{"sendbird"}, `[a-f0-9]{40}`),
		tok("brevo-api-key", "Brevo (Sendinblue) API or SMTP key", high, "Brevo (SMTP & API > API keys)",
			[]string{"xkeysib-", "xsmtpsib-"}, `x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}`),
		{id: "mailchimp-api-key", title: "Mailchimp API key", severity: high, cwe: "CWE-798",
			remediation: secretsRevokeIn("Mailchimp (Profile > Extras > API keys)"),
			csKeywords:  []string{"-us1", "-us2", "-us3", "-us4", "-us5", "-us6", "-us7", "-us8", "-us9"},
			pattern:     `\b([a-f0-9]{32}-us[0-9]{1,2})\b`, minEntropy: 3},
		near("mailgun-signing-key", "Mailgun webhook signing key", high, "Mailgun (Sending > Webhooks > HTTP webhook signing key)",
			[]string{"mailgun"}, `[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}`),
		near("intercom-token", "Intercom access token", high, "the Intercom developer hub (Authentication)", []string{"intercom"}, `[A-Za-z0-9=_-]{60}`),
		near("zendesk-token", "Zendesk API token", high, "Zendesk (Admin Center > Apps and integrations > Zendesk API)", []string{"zendesk"}, `[A-Za-z0-9]{40}`),
		near("freshbooks-token", "FreshBooks access token", high, "FreshBooks (Developer portal)", []string{"freshbooks"}, `[a-z0-9]{64}`),
		near("gitter-token", "Gitter access token", med, "Gitter (developer apps)", []string{"gitter"}, `[a-f0-9]{40}`),
		near("beamer-api-token", "Beamer API key", high, "Beamer (Settings > API)", []string{"beamer"}, `b_[A-Za-z0-9=_-]{44}`),
		tok("frameio-token", "Frame.io developer token", high, "Frame.io (Developer > Tokens)", []string{"fio-u-"}, `fio-u-[A-Za-z0-9_=-]{64}`),
		near("squarespace-token", "Squarespace API key", high, "Squarespace (Settings > Developer API keys)", []string{"squarespace"}, uuid),
		both("twitch-token", "Twitch API token, client secret or stream key", high, "the Twitch developer console (stream keys: Creator Dashboard > Settings > Stream > Reset)",
			[]string{"live_"}, `live_[0-9]{8,12}_[A-Za-z0-9]{30,36}`, []string{"twitch"}, `[a-z0-9]{30}`),
		near("twitter-token", "Twitter / X API key, secret or token", high, "the X developer portal (Keys and tokens > Regenerate)",
			[]string{"twitter"}, `A{22}[A-Za-z0-9%]{80,100}|[0-9]{15,25}-[A-Za-z0-9]{20,40}|[A-Za-z0-9]{50}|[A-Za-z0-9]{45}|[A-Za-z0-9]{35}|[A-Za-z0-9]{25}`),
		both("facebook-token", "Facebook / Meta access token or app secret", high, "Meta for Developers (App settings > Basic > App secret reset; Access token debugger)",
			// Graph API Explorer tokens (EAACEdEose0cBA...) are shorter than
			// app and page tokens.
			[]string{"EAAB", "EAAC", "EAAD", "EAAG", "EAAM", "EAAU"}, `EAACEdEose0cBA[A-Za-z0-9]{20,}|EAA[BCDGMU][A-Za-z0-9]{80,}`,
			// fbApiKey, FB_CLIENT_SECRET: the short name prefixes the credential's.
			[]string{"facebook", "fb_app", "fbapp", "fb-app", "fb_api", "fbapi", "fb_secret", "fbsecret", "fb_client", "fbclient", "fb-client"}, `[a-f0-9]{32}`),
		near("linkedin-client-secret", "LinkedIn client secret", med, "the LinkedIn developer portal (Auth > Generate a new client secret)", []string{"linkedin"}, `[A-Za-z0-9]{16}`),
		near("etsy-api-key", "Etsy API key", high, "Etsy (Your apps)", []string{"etsy"}, `[a-z0-9]{24}`),
		near("finnhub-token", "Finnhub API token", med, "Finnhub (Dashboard)", []string{"finnhub"}, `[a-z0-9]{20}`),
		near("flickr-token", "Flickr API key", med, "Flickr (The App Garden)", []string{"flickr"}, `[a-z0-9]{32}`),
		near("nytimes-token", "New York Times API key", med, "the NYT developer portal (Apps)", []string{"nytimes", "new-york-times", "newyorktimes"}, `[A-Za-z0-9=_-]{32}`),
		near("rapidapi-key", "RapidAPI key", high, "RapidAPI (Apps > Security)", []string{"rapidapi"}, `[A-Za-z0-9_-]{50}`),
		near("dropbox-token", "Dropbox access token", high, "the Dropbox App Console (Generated access token / revoke)",
			[]string{"dropbox"}, `sl\.[A-Za-z0-9_=-]{130,}|[a-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}`),
		near("fastly-token", "Fastly API token", high, "Fastly (Account > API tokens)", []string{"fastly"}, `[A-Za-z0-9_-]{32}`),
		both("adafruit-io-key", "Adafruit IO key", med, "Adafruit IO (My Key > Regenerate key)",
			[]string{"aio_"}, `aio_[A-Za-z0-9]{28}`, []string{"adafruit"}, `aio_[A-Za-z0-9]{28}|[a-f0-9]{32}`),
		near("postmark-token", "Postmark server or account API token", high, "Postmark (Servers > API Tokens, or Account > API Tokens)",
			[]string{"postmark"}, uuid),
		both("figma-token", "Figma personal access token", high, "Figma (Settings > Security > Personal access tokens)",
			[]string{"figd_"}, `figd_[A-Za-z0-9_-]{40}`, []string{"figma"}, `[0-9]{3,6}-`+uuid),
		{id: "salesforce-access-token", title: "Salesforce access token or session ID", severity: high, cwe: "CWE-798",
			remediation: secretsRevokeIn("Salesforce (Setup > Session Management > Remove, or revoke the connected app's OAuth tokens)"),
			// The org ID (00D + 12 or 15 characters), "!", then the session part.
			csKeywords: []string{"00D"}, pattern: `\b(00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,})` + secretsTokEnd, minEntropy: 3.5},
		tok("adobe-client-secret", "Adobe client secret", high, "the Adobe Developer Console (Credentials > Retrieve client secret > Rotate)", []string{"p8e-"}, `p8e-[A-Za-z0-9-]{32}`),

		// ---- AI APIs ----
		tok("perplexity-api-key", "Perplexity API key", high, "Perplexity (Settings > API)", []string{"pplx-"}, `pplx-[A-Za-z0-9]{48}`),
		near("cohere-api-key", "Cohere API key", high, "the Cohere dashboard (API keys)", []string{"cohere", "co_api_key"}, `[A-Za-z0-9]{40}`),
		tok("huggingface-org-token", "Hugging Face organization API token", high, "Hugging Face (Organization settings > API tokens)", []string{"api_org_"}, `api_org_[A-Za-z]{34}`),

		// ---- payment, commerce and crypto exchanges ----
		tok("flutterwave-secret-key", "Flutterwave secret or encryption key", high, "the Flutterwave dashboard (Settings > API keys > Regenerate)",
			[]string{"FLWSECK"}, `FLWSECK(?:_TEST)?-[a-h0-9]{32}-X|FLWSECK_TEST[a-h0-9]{12}`),
		both("square-token", "Square access token or OAuth secret", crit, "the Square Developer Dashboard (Credentials)",
			[]string{"sq0atp-", "sq0csp-", "EAAA"}, `sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_-]{60}`, []string{"square"}, `EAAA[A-Za-z0-9_-]{60}`),
		both("plaid-token", "Plaid access token or secret", crit, "the Plaid dashboard (Team settings > Keys) and rotate the item's access token",
			[]string{"access-sandbox-", "access-development-", "access-production-"}, `access-(?:sandbox|development|production)-`+uuid,
			[]string{"plaid"}, `[a-f0-9]{30}`),
		tok("shippo-token", "Shippo API token", high, "Shippo (Settings > API)", []string{"shippo_live_", "shippo_test_"}, `shippo_(?:live|test)_[a-f0-9]{40}`),
		tok("easypost-api-key", "EasyPost API key", high, "EasyPost (Account settings > API keys)", []string{"EZAK", "EZTK"}, `EZ[AT]K[A-Za-z0-9]{54}`),
		tok("duffel-token", "Duffel access token", high, "the Duffel dashboard (Developers > Access tokens)", []string{"duffel_test_", "duffel_live_"}, `duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`),
		{id: "lob-api-key", title: "Lob API key", severity: high, cwe: "CWE-798",
			remediation: secretsRevokeIn("the Lob dashboard (Settings > API keys)"),
			csKeywords:  []string{"live_", "test_"}, pattern: secretsNearPattern([]string{"lob_", "lob-", "lob.", "lobkey", "lobapi", `"lob"`, "lob:", "lob="}, `(?:live|test)_(?:pub_)?[a-f0-9]{31,35}`),
			minEntropy: 3, modeWords: true},
		near("gocardless-token", "GoCardless access token", crit, "GoCardless (Developers > Access tokens)", []string{"gocardless"}, `live_[A-Za-z0-9_=-]{40}`),
		near("finicity-token", "Finicity API token or secret", high, "the Finicity developer dashboard", []string{"finicity"}, `[a-f0-9]{32}|[A-Za-z0-9]{20}`),
		near("coinbase-token", "Coinbase access token", crit, "Coinbase (Settings > API)", []string{"coinbase"}, `[A-Za-z0-9_-]{64}`),
		near("kraken-api-key", "Kraken API key or secret", crit, "Kraken (Security > API)", []string{"kraken"}, `[A-Za-z0-9/=_+-]{80,90}`),
		near("kucoin-api-key", "KuCoin API key or secret", crit, "KuCoin (API management)", []string{"kucoin"}, uuid+`|[a-f0-9]{24}`),
		near("bittrex-api-key", "Bittrex API key or secret", crit, "Bittrex (API keys)", []string{"bittrex"}, `[a-z0-9]{32}`),
		sidekiq,
		tok("mapbox-secret-token", "Mapbox secret access token", high, "Mapbox (Account > Access tokens)", []string{"sk.eyJ", "tk.eyJ"}, `[st]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`),
	}
}

// secretsStructuredRules find credentials by the shape around them rather
// than by the token: any URL's user:password, curl's -u, HTTP
// authentication headers, Kubernetes Secret data, base64-wrapped JWTs and
// PKCS#12 key stores.
func secretsStructuredRules() []secretsRule {
	high, med := finding.High, finding.Medium
	return []secretsRule{
		{id: "url-credentials", title: "Credentials embedded in a URL", severity: high, cwe: "CWE-259",
			remediation: "Change the password or token, and pass credentials to the client separately (a credential helper, .netrc outside the repository, environment variables) instead of in the URL.",
			keywords:    []string{"://"}, find: secretsFindURLCredentials},
		{id: "curl-basic-auth", title: "Credentials passed to curl -u", severity: high, cwe: "CWE-259",
			remediation: "Change the password, and let curl read it from a .netrc outside the repository (--netrc-file) or from the environment instead of the command line.",
			// --user and " -u " find -u on a continuation line of a curl
			// command (reported there as well as on the command's line).
			keywords: []string{"curl", "--user", " -u "},
			// The second form is an API key given as the user name with an
			// empty password (-u sk_live_...:), as Stripe and others document.
			pattern: `(?i)\bcurl\b[^\n]*?\s(?:-u[ \t]*|--user(?:[ \t]+|=))(?:"[^"\s:]*"|'[^'\s:]*'|["']?[^\s"':]*):["']?(?P<secret>[^\s"']+)` +
				`|(?i)\bcurl\b[^\n]*?\s(?:-u[ \t]*|--user(?:[ \t]+|=))["']?(?P<secret>[^\s"':$<{]{8,}):["']?(?:\s|$)`,
			validate: secretsValidateCurlPassword, find: secretsFindCurlAuth},
		{id: "connection-string-password", title: "Password in a database connection string", severity: high, cwe: "CWE-259",
			remediation: "Change the database password, and build the connection string at run time from a secret store (or use integrated/managed-identity authentication) instead of writing Password= into code or configuration.",
			keywords:    []string{"password", "pwd"},
			pattern:     `(?i)(?:^|[;"'\s])(?:password|pwd)[ \t]*=[ \t]*(?P<secret>[^;"'\s]+)`,
			validate:    secretsValidateConnectionStringPassword},
		{id: "cli-password-flag", title: "Password passed as a command-line flag", severity: high, cwe: "CWE-259",
			remediation: "Change the password, and give it to the tool on standard input (docker login --password-stdin), from a credential helper or from the environment: a flag's value is visible in the process list and the shell history.",
			keywords:    []string{"-password", "-passwd", "--pass ", "--pass="},
			// -Password is the NuGet CLI's and PowerShell's spelling.
			pattern:  `(?i)(?:^|\s)(?:--pass(?:word|wd)?|-pass(?:word|wd))(?:=|[ \t]+)["']?(?P<secret>[^\s"'$<{%(\x60-][^\s"'\x60]{3,})`,
			validate: secretsValidateNotPlaceholderPassword},
		{id: "network-credential-password", title: "Password passed to a .NET credential constructor", severity: high, cwe: "CWE-259",
			remediation: "Change the password, and read it from configuration protected by DPAPI, a secret store or the environment instead of passing a literal to NetworkCredential/DirectoryEntry.",
			keywords:    []string{"networkcredential", "directoryentry"},
			pattern:     `(?i)\bNetworkCredential\s*\(\s*@?"[^"]*"\s*,\s*@?"(?P<secret>[^"]+)"|\bDirectoryEntry\s*\(\s*@?"[^"]*"\s*,\s*@?"[^"]*"\s*,\s*@?"(?P<secret>[^"]+)"`,
			validate:    secretsValidateNotPlaceholderPassword},
		{id: "netrc-password", title: "Password in a .netrc file", severity: high, cwe: "CWE-259",
			remediation: "Change the password or token, and keep .netrc in the home directory (mode 0600), never in a repository; CI systems inject it at run time.",
			keywords:    []string{"password"}, fileContext: []string{"machine"},
			pattern:  `(?:^|[ \t])password[ \t]+(?P<secret>[^\s]+)`,
			validate: secretsValidateNetrcPassword},
		{id: "http-auth-header", title: "Credential in an HTTP authentication header", severity: high, cwe: "CWE-798",
			remediation: "Revoke the token or change the password it encodes, and add the header at run time from the environment or a secret manager.",
			keywords: []string{"authorization", "api-key", "x-auth-token", "private-token", "x-access-token", "apikey:", "-token:", "-key:",
				`-h "token:`, `-h 'token:`, `--header "token:`, `--header 'token:`},
			// The third form is a vendor's own header (X-Octopus-ApiKey:,
			// X-Figma-Token:, X-Vault-Token:) in HTTP syntax, name: value.
			// The fourth is a header given to curl (-H "Token: ...", -H
			// "apikey: ..."): the command line says it is a header, so a
			// bare Token or Key name is enough.
			pattern: `(?i)\b(?:proxy-)?authorization["'\]]?[ \t]*[:,=][ \t]*["']?(?:(?:bearer|token|basic|apikey|api-key|api-token|sso-key)[ \t]+)?(?P<secret>[A-Za-z0-9._~+/=:@-]{12,})` + secretsNearEnd +
				`|(?i)(?:^|\s)(?:-H|--header)[ \t=]*["'](?:x-(?:[a-z0-9]+-)*)?(?:api-?)?(?:key|token)[ \t]*:[ \t]*(?P<secret>[A-Za-z0-9._~+/=-]{8,})["']` +
				`|(?i)\b(?:x-)?(?:api-key|auth-token|access-token|private-token)["'\]]?[ \t]*[:,=][ \t]*["']?(?P<secret>[A-Za-z0-9._~+/=-]{16,})` + secretsNearEnd +
				`|(?i)\bx-(?:[a-z0-9]+-)+(?:apikey|api-key|token|key)[ \t]*:[ \t]*(?P<secret>[A-Za-z0-9._~+/=-]{16,})` + secretsNearEnd,
			validate: secretsValidateHeaderCredential},
		{id: "kubernetes-secret", title: "Value in a Kubernetes Secret manifest", severity: high, cwe: "CWE-798",
			remediation: "Rotate the value, and keep Secret manifests out of the repository: create them at deploy time, or commit them encrypted (Sealed Secrets, SOPS) or as references to an external secret store.",
			fileContext: []string{"kind: secret", `kind: "secret"`, "kind: 'secret'", "secretgenerator:"},
			// The second form is the body of a block scalar (.dockercfg: |);
			// the third a literal of Kustomize's secretGenerator.
			pattern: `(?m)^[ \t]+[A-Za-z0-9._-]+:[ \t]*["']?(?P<secret>[^\s"'#]{4,})["']?[ \t]*\r?$|(?m)^[ \t]+(?P<secret>[A-Za-z0-9+/]{16,}={0,2})[ \t]*\r?$` +
				`|(?m)^[ \t]*-[ \t]+["']?[A-Za-z_][A-Za-z0-9_.-]*=(?P<secret>[^\s"'#]{4,})["']?[ \t]*\r?$`,
			validate: secretsValidateKubernetesSecret},
		// Wallet keys of Ethereum and other secp256k1 chains, test files
		// included: a development key committed today is a funded
		// deployer key after a copy to the wrong network.
		{id: "ethereum-private-key", title: "Hex-encoded private key (Ethereum wallet or other curve)", severity: finding.Critical, cwe: "CWE-321",
			remediation: "Move any funds and contract roles off the key's address to a new key, and load signing keys from a keystore, hardware wallet or secret manager instead of source.",
			keywords:    []string{"key", "wallet", "account", "signer", "deployer", "mnemonic"}, prefilter: secretsHasHexRun64, find: secretsFindEthereumKeys},
		{id: "jwt-base64", title: "Base64-encoded JSON Web Token", severity: med, cwe: "CWE-798",
			remediation: "Invalidate it (rotate the signing key or revoke the session) if it has not expired, and never commit bearer tokens.",
			csKeywords:  []string{"ZXlK"}, pattern: `\b(ZXlK[A-Za-z0-9+/]{40,}={0,2})`, validate: secretsValidateBase64JWT},
		// Produced by the walk from the file name alone (the file is binary).
		{id: "pkcs12-file", title: "PKCS#12 key store (.p12/.pfx)", severity: high, cwe: "CWE-321",
			remediation: "A PKCS#12 file holds a private key behind a password that can be attacked offline. Replace the key and certificate it holds, remove the file and purge it from history, and inject it at deploy time."},
	}
}

// secretsConnectionKeyRe is another key of an ODBC/ADO.NET/OLE DB/libpq
// connection string: Password= counts only beside one of them.
var secretsConnectionKeyRe = regexp.MustCompile(`(?i)(?:^|[;"'\s])(?:server|data source|user id|uid|user|username|initial catalog|database|dbname|provider|host|driver|dsn|address|addr)[ \t]*=`)

// secretsValidateConnectionStringPassword accepts Password=/Pwd= of a
// connection string (Server=...;User ID=...;Password=...): written as the
// application will use it, so no entropy is asked, only that it is not a
// reference or placeholder.
func secretsValidateConnectionStringPassword(v []byte, c *secretsMatchCtx) bool {
	if secretsIsKeywordArgument(v) || secretsLooksEncrypted(v) {
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
		if !secretsIsAlnum(b) && b != '_' && b != '.' {
			return false
		}
	}
	return true
}

// secretsGooglePublicFileMarkers are what files that configure a client
// app say: a Firebase web config (authDomain), google-services.json
// (current_key beside project_info), GoogleService-Info.plist
// (GOOGLE_APP_ID). Their API keys identify the project to Google and ship
// inside every copy of the app: Google documents them as public
// (firebase.google.com/docs/projects/api-keys); restriction, not secrecy,
// protects them.
var secretsGooglePublicFileMarkers = [][]byte{[]byte("authDomain"), []byte(`"current_key"`), []byte("GOOGLE_APP_ID")}

// secretsGooglePublicLineMarkers are client-side loaders whose key is
// public by design: the Maps JavaScript API script URL, the Maps SDK
// for Android manifest entry and the Android string resources it reads
// (google_maps_key; google_api_key, which the google-services plugin
// writes).
var secretsGooglePublicLineMarkers = [][]byte{[]byte("maps.googleapis.com/maps/api/js"), []byte("com.google.android.geo.API_KEY"),
	[]byte(`name="google_maps_key"`), []byte(`name="google_api_key"`)}

// secretsValidateNotPublicGoogleKey rejects Google API keys in the
// contexts that mark them public (the two lists above).
func secretsValidateNotPublicGoogleKey(_ []byte, c *secretsMatchCtx) bool {
	for _, m := range secretsGooglePublicLineMarkers {
		if bytes.Contains(c.line, m) {
			return false
		}
	}
	for _, m := range secretsGooglePublicFileMarkers {
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
	if !strings.EqualFold(path.Base(c.rel), "nuget.config") && !bytes.Contains(c.data, []byte("packageSourceCredentials")) {
		return false
	}
	if secretsLooksEncrypted(v) || len(v) > 1 && (v[0] == '%' && v[len(v)-1] == '%' || v[0] == '$') {
		return false
	}
	return !secretsWeakPasswordPlaceholders[strings.ToLower(string(v))]
}

// secretsNetrcKeywords are the tokens of a .netrc entry.
var secretsNetrcKeywords = map[string]bool{"machine": true, "login": true, "password": true, "account": true, "port": true}

// secretsNetrcMachineRe is the start of a .netrc entry.
var secretsNetrcMachineRe = regexp.MustCompile(`(?m)^[ \t]*(?:machine|default)\b`)

// secretsValidateNetrcPassword accepts the password of a .netrc entry: the
// file must be a configuration file (.netrc and _netrc are), the line made
// of netrc keyword/value pairs (a sentence containing "password" is not),
// and the file must declare a machine. Source code that parses netrc
// ("password string" in a struct, fixtures in tests) is not a netrc file.
// In a .netrc a weak password is still the password; only placeholders
// are skipped.
func secretsValidateNetrcPassword(v []byte, c *secretsMatchCtx) bool {
	if !c.configFile {
		return false
	}
	f := bytes.Fields(c.line)
	if len(f)%2 != 0 {
		return false
	}
	for i := 0; i < len(f); i += 2 {
		if !secretsNetrcKeywords[string(f[i])] {
			return false
		}
	}
	if !secretsNetrcMachineRe.Match(c.data) {
		return false
	}
	return !secretsURLPasswordPlaceholder(strings.ToLower(string(v))) && !secretsLooksTemplate(v)
}

// secretsNuGetAPIKeyRule is a nuget.org API key: oy2 + 43, or 46 of the
// same alphabet next to "nuget" (nuget key = ..., nuget secret ...).
func secretsNuGetAPIKeyRule() secretsRule {
	r := secretsTokOrNear("nuget-api-key", "NuGet API key", finding.High, "nuget.org (API Keys) and check recent package pushes",
		[]string{"oy2"}, `oy2[a-z0-9]{43}`, []string{"nuget"}, `[a-z0-9]{46}`)
	r.minEntropy = 3.5
	r.validate = secretsValidateNotHex
	return r
}

// secretsCurlContinuedHeaderRe is an authentication header on a
// continuation line of a curl command.
var secretsCurlContinuedHeaderRe = regexp.MustCompile(`(?i)(?:^|\s)(?:-H|--header)[ \t=]*["'](?:(?:proxy-)?authorization:[ \t]*(?:bearer|token|basic|apikey)?[ \t]*|x-(?:[a-z0-9]+-)*(?:api-?)?(?:key|token):[ \t]*)(?P<secret>[A-Za-z0-9._~+/=-]{12,})["']`)

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

// secretsCurlContinuedUserRe is -u/--user on a continuation line of a
// curl command.
var secretsCurlContinuedUserRe = regexp.MustCompile(`(?:^|\s)(?:-u[ \t]*|--user(?:[ \t]+|=))["']?[^\s"':]*:["']?(?P<secret>[^\s"']+)`)

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
		if !bytes.ContainsAny(v, "0123456789") || secretsEntropy(v) < 3 {
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
		for n < 41 && i+1+n < len(line) && secretsIsAlnum(line[i+1+n]) {
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

// secretsEthereumKeyRe is a 32-byte secp256k1 private key (64 hex, with
// or without 0x) where a key is expected: assigned to a name that says
// key, wallet, signer or account (PRIVATE_KEY =, ownerKey =,
// accounts: [...]), or passed to a wallet constructor (new
// ethers.Wallet("0x..."), Account.from_key(...), privateKeyToAccount(...),
// brownie's accounts.add(...)), or given to a command (cast send
// --private-key 0x...).
// Transaction hashes, block hashes and addresses have the same alphabet
// and sit under other names (txHash, GENESIS_HASH, token).
var secretsEthereumKeyRe = regexp.MustCompile(`(?i)(?:(?:priv(?:ate)?[_-]?keys?|key|pk|secret|mnemonic|signer|wallet|account|accounts|deployer)["'\]]?[ \t]*(?::=|=>|=|:)[ \t]*\[?[ \t]*|--private-?key[ \t=]+|(?:wallet|from_?key|fromprivatekey|privatekeytoaccount|signingkey|accounts?\.add)[ \t]*\([ \t]*)["'\x60]?(?P<secret>(?:0x)?[0-9a-fA-F]{64})(?:[^0-9A-Za-z]|$)`)

// secretsFindEthereumKeys is ethereum-private-key.
func secretsFindEthereumKeys(c *secretsMatchCtx) []secretsSpan {
	var spans []secretsSpan
	for _, m := range secretsEthereumKeyRe.FindAllSubmatchIndex(c.line, -1) {
		v := c.line[m[2]:m[3]]
		body := bytes.TrimPrefix(v, []byte("0x"))
		if secretsEntropy(body) < 3 || secretsLooksFormatPlaceholder(body) {
			continue
		}
		// The name must not say public (PublicKey, PeerPublicKey), and
		// unless it says private, the file must be about a chain: 64 hex
		// under "key" is as often a test vector of a cipher (HPKE, ECDH).
		name := bytes.ToLower(c.line[m[0]:m[2]])
		if bytes.Contains(name, []byte("pub")) {
			continue
		}
		if !bytes.Contains(name, []byte("priv")) && !secretsMentionsChain(c.data) {
			continue
		}
		spans = append(spans, secretsSpan{rule: c.engine.ruleIndex["ethereum-private-key"], matchStart: m[0], matchEnd: m[3], start: m[2], end: m[3], value: v})
	}
	return spans
}

// secretsChainMarkers are words of Ethereum tooling and networks.
var secretsChainMarkers = []string{"ethers", "web3", "hardhat", "forge-std", "vm.addr", "eth_account", "solidity", "ethereum",
	"viem", "truffle", "ganache", "brownie", "anvil", "etherscan", "metamask", "infura", "alchemy", "sepolia", "goerli", "holesky", "mainnet", "chainid", "chain_id"}

// secretsMentionsChain reports content that names Ethereum tooling.
func secretsMentionsChain(data []byte) bool {
	lower := bytes.ToLower(data)
	for _, m := range secretsChainMarkers {
		if bytes.Contains(lower, []byte(m)) {
			return true
		}
	}
	return false
}

// secretsWeakPasswordPlaceholders are whole values that stand for "put
// your password here" in documentation and templates. They are compared
// exactly (case-insensitively), unlike the markers: "Aa12345678" in a
// Terraform file is a real, weak password; "12345678" is a placeholder.
var secretsWeakPasswordPlaceholders = map[string]bool{
	"password": true, "password1": true, "password123": true, "passw0rd": true, "p@ssw0rd": true, "p@ssword": true,
	"pass": true, "passwd": true, "pwd": true, "pw": true, "secret": true, "secret123": true, "mysecret": true, "mypassword": true,
	"123456": true, "1234567": true, "12345678": true, "123456789": true, "1234567890": true, "qwerty": true, "qwerty123": true,
	"abc123": true, "abcdef": true, "abcdefgh": true, "letmein": true, "admin": true, "admin123": true, "root": true, "toor": true,
	"changeit": true, "foobar": true, "hunter2": true, "test123": true, "pass123": true, "default": true, "guest": true,
	"user": true, "username": true, "token": true, "opensesame": true, "open sesame": true,
	"aladdin:opensesame": true, "aladdin:open sesame": true, "apikey": true, "api_key": true, "none": true, "null": true, "nil": true, "empty": true, "true": true, "false": true,
}

// secretsValidateNotPlaceholderPassword accepts a password that is not a
// reference ($VAR, %VAR%), not a placeholder and at least 4 bytes long.
func secretsValidateNotPlaceholderPassword(v []byte, _ *secretsMatchCtx) bool {
	if len(v) < 4 || v[0] == '$' || v[0] == '%' || v[0] == '{' || v[0] == '<' {
		return false
	}
	return !secretsWeakPasswordPlaceholders[strings.ToLower(string(v))] && !secretsLooksPlaceholder(v)
}

// secretsValidateHeaderCredential accepts what follows an authentication
// header: Basic credentials (base64 of user:password, whose password must
// be real) or a token with enough entropy to be machine-made.
func secretsValidateHeaderCredential(v []byte, c *secretsMatchCtx) bool {
	if secretsLooksPlaceholder(v) {
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
			return !secretsWeakPasswordPlaceholders[strings.ToLower(user+":"+pw)] && secretsValidateNotPlaceholderPassword([]byte(pw), c)
		}
	}
	if basic {
		return false // Basic credentials that do not decode to user:password are no credentials
	}
	if user, pw, ok := bytes.Cut(v, []byte(":")); ok && len(user) > 0 && len(pw) > 0 {
		return secretsValidateNotPlaceholderPassword(pw, c)
	}
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
	return letters > 0 && digits > 0 && secretsEntropy(v) >= bar
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

// secretsK8sNonSecretKeys are data keys of a Secret that name rather than
// hold a credential, and public material that Secrets often carry.
var secretsK8sNonSecretKeys = map[string]bool{
	"username": true, "user": true, "host": true, "hostname": true, "port": true, "database": true, "db": true,
	"dbname": true, "namespace": true, "region": true, "url": true, "endpoint": true, "ca.crt": true, "tls.crt": true,
	"ca-bundle.crt": true, "service-ca.crt": true, "email": true, "login": true, "name": true,
}

// secretsValidateKubernetesSecret accepts the value of a data or
// stringData entry of a `kind: Secret` document: data values are decoded
// from base64 first. Placeholders, certificates and the entries that name
// rather than hold a credential (username, host, ...) are not reported.
func secretsValidateKubernetesSecret(v []byte, c *secretsMatchCtx) bool {
	if t := bytes.TrimLeft(c.line, " \t"); len(t) > 0 && t[0] == '-' {
		// A Kustomize literal: a Secret's value when the nearest generator
		// above is secretGenerator (configMapGenerator literals are
		// configuration).
		key, _, _ := bytes.Cut(bytes.Trim(bytes.TrimLeft(t[1:], " \t"), `"'`), []byte("="))
		key = bytes.ToLower(key)
		if i := bytes.LastIndexAny(key, "_.-"); i >= 0 && secretsK8sNonSecretKeys[string(key[i+1:])] || secretsK8sNonSecretKeys[string(key)] {
			return false // DB_HOST, SMTP_USER: configuration in a Secret
		}
		return secretsInSecretGenerator(c.data, c.lineStart) && len(v) >= 6 &&
			!secretsWeakPasswordPlaceholders[strings.ToLower(string(v))] && !secretsLooksPlaceholder(v) && v[0] != '$'
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
	if secretsK8sNonSecretKeys[strings.ToLower(key)] || !secretsYAMLDocIsSecret(c.data, c.lineStart) {
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
	if bytes.HasPrefix(value, []byte("$")) || bytes.HasPrefix(value, []byte("{{")) {
		return false
	}
	if value[0] == '{' && json.Valid(value) {
		// A JSON document (.dockerconfigjson): its braces are syntax, not
		// a {{ template }}.
		value = []byte(strings.NewReplacer("{", "", "}", "").Replace(string(value)))
	}
	return !secretsWeakPasswordPlaceholders[strings.ToLower(string(value))] && !secretsLooksPlaceholder(value)
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
		for s > 0 && (secretsIsAlnum(line[s-1]) || line[s-1] == '+' || line[s-1] == '.' || line[s-1] == '-') {
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

func secretsIsAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
