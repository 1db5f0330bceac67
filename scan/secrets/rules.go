package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"

	"scand/finding"
)

// secretsRule is one kind of credential the secrets scanner knows.
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

	re           *regexp.Regexp
	secretGroups []int
}

// secretsMatchCtx is what a rule sees of one candidate line.
type secretsMatchCtx struct {
	data               []byte // the whole file (or history chunk)
	lineStart, lineEnd int    // the line is data[lineStart:lineEnd], without '\n'
	line               []byte
	configFile         bool   // unquoted values count (.env, .ini, YAML, ...)
	lower              []byte // see lowerLine
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
	return []secretsRule{
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

		// ---- cloud providers ----
		{id: "aws-access-key-id", title: "AWS access key ID", severity: crit, cwe: cwe798,
			remediation: "Deactivate and delete the access key in IAM (and its secret), review CloudTrail for its use, and switch to roles or short-lived credentials.",
			csKeywords:  []string{"AKIA", "ASIA"}, pattern: `\b((?:AKIA|ASIA)[A-Z2-7]{16})\b`, validate: secretsValidateNotAWSExample},
		{id: "aws-secret-access-key", title: "AWS secret access key", severity: crit, cwe: cwe798,
			remediation: "Deactivate and delete the access key in IAM, review CloudTrail for its use, and switch to roles or short-lived credentials.",
			keywords:    []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret", "awssecret"},
			pattern:     `(?i)(?:secret[_-]?access[_-]?key|aws[_-]?secret(?:[_-]?key)?)` + assign + `([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
			minEntropy:  3.5, validate: secretsValidateNotAWSExample},
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
			csKeywords:  []string{"AIza"}, pattern: `\b(AIza[0-9A-Za-z_-]{35})` + notB64ID},
		{id: "google-oauth-client-secret", title: "Google OAuth client secret", severity: high, cwe: cwe798,
			remediation: "Reset the client secret of the OAuth client under APIs & Services > Credentials.",
			csKeywords:  []string{"GOCSPX-"}, pattern: `\b(GOCSPX-[A-Za-z0-9_-]{28})` + notB64ID},

		// ---- payment ----
		{id: "stripe-live-secret-key", title: "Stripe live secret key", severity: crit, cwe: cwe798,
			remediation: "Roll the key in the Stripe Dashboard (Developers > API keys) and review recent API activity.",
			csKeywords:  []string{"sk_live_"}, pattern: `\b(sk_live_` + base62 + `{24,99})\b`, minEntropy: 3},
		{id: "stripe-restricted-key", title: "Stripe live restricted key", severity: crit, cwe: cwe798,
			remediation: "Roll the restricted key in the Stripe Dashboard (Developers > API keys).",
			csKeywords:  []string{"rk_live_"}, pattern: `\b(rk_live_` + base62 + `{24,99})\b`, minEntropy: 3},

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
			keywords:    []string{"xoxb-"}, pattern: `\b(xoxb-[0-9]{10,13}-[0-9]{10,13}-` + base62 + `{24,34})\b`, minEntropy: 3},
		{id: "slack-user-token", title: "Slack user token", severity: high, cwe: cwe798,
			remediation: "Revoke it with auth.revoke and review the workspace's access logs.",
			keywords:    []string{"xoxp-"}, pattern: `\b(xoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-f0-9]{32})\b`, minEntropy: 3},
		{id: "slack-legacy-token", title: "Slack legacy or workspace token", severity: high, cwe: cwe798,
			remediation: "Revoke it with auth.revoke; legacy tokens should be replaced by app tokens.",
			keywords:    []string{"xoxa-", "xoxr-", "xoxs-", "xoxo-"}, pattern: `\b(xox[aors]-(?:[0-9]+-)+` + base62 + `{20,64})\b`, minEntropy: 3},
		{id: "slack-app-token", title: "Slack app-level token", severity: high, cwe: cwe798,
			remediation: "Revoke and regenerate it under the app's Basic Information > App-Level Tokens.",
			keywords:    []string{"xapp-"}, pattern: `\b(xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]{32,80})\b`, minEntropy: 3},
		{id: "slack-webhook-url", title: "Slack incoming webhook URL", severity: med, cwe: cwe798,
			remediation: "Regenerate or remove the webhook under the app's Incoming Webhooks page.",
			keywords:    []string{"hooks.slack.com"}, pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/(T[A-Z0-9]{6,12}/[A-Z0-9]{6,12}/` + base62 + `{20,32})\b`, minEntropy: 3},
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
			csKeywords:  []string{"sk-ant-"}, pattern: `\b(sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,110})` + notB64ID, minEntropy: 3.5},
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
			csKeywords:  []string{"eyJ"}, pattern: `\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,})` + notB64ID,
			validate: secretsValidateJWT},
		{id: "database-url-password", title: "Database URL with embedded password", severity: high, cwe: cwe259,
			remediation: "Change the database user's password, and pass the URL (or just the password) through the environment or a secret manager.",
			keywords:    []string{"postgres", "mysql", "mariadb", "mongodb", "redis", "amqp", "mssql", "sqlserver"},
			pattern:     `(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver)://[^:@/\s"'<>]*:(?P<secret>[^@/\s"'<>]+)@[^\s"'<>/]+`,
			validate:    secretsValidateURLPassword},

		// ---- heuristics, last so that any specific rule claims the line first ----
		{id: "generic-password", title: "Hard-coded password", severity: med, cwe: cwe259,
			remediation: "Change the password wherever it is used and read it from the environment or a secret manager.",
			keywords:    secretsPasswordKeywords, find: secretsFindPasswordAssignments},
		{id: "generic-secret", title: "Hard-coded secret or API token", severity: med, cwe: cwe798,
			remediation: "Rotate the secret at its issuer and read it from the environment or a secret manager.",
			keywords:    secretsSecretKeywords, find: secretsFindSecretAssignments},
	}
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

func secretsFindPasswordAssignments(c *secretsMatchCtx) []secretsSpan {
	return secretsFindAssignments(c, secretsPasswordKeywords, secretsPasswordSuffixes, "generic-password",
		secretsPasswordEntropyFactor, secretsPasswordEntropyCap)
}

func secretsFindSecretAssignments(c *secretsMatchCtx) []secretsSpan {
	return secretsFindAssignments(c, secretsSecretKeywords, secretsSecretSuffixes, "generic-secret",
		secretsSecretEntropyFactor, secretsSecretEntropyCap)
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
func secretsFindAssignments(c *secretsMatchCtx, keywords, suffixes []string, ruleID string, entropyFactor, entropyCap float64) []secretsSpan {
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
			vs, ve, ok := secretsAssignedValue(line, e, c.configFile)
			if !ok {
				continue
			}
			v := line[vs:ve]
			if vs > 0 && !secretsIsQuote(line[vs-1]) && (v[0] == '!' || v[0] == '&' || v[0] == '*') {
				continue // unquoted YAML tag, anchor or alias: `password: !vault |`
			}
			if !secretsGenericValueOK(v, lower[s:e], entropyFactor, entropyCap) {
				continue
			}
			spans = append(spans, secretsSpan{rule: c.engine.ruleIndex[ruleID], matchStart: s, matchEnd: ve, start: vs, end: ve, value: v})
		}
	}
	return spans
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
// optional closing quote or bracket of the key, an assignment operator
// (=, :=, :, =>; never == or other comparisons), and a quoted literal, or
// an unquoted word when unquoted is true. It returns the value's bounds.
func secretsAssignedValue(line []byte, p int, unquoted bool) (int, int, bool) {
	n := len(line)
	for k := 0; k < 2 && p < n && (line[p] == '"' || line[p] == '\'' || line[p] == ']' || line[p] == '`'); k++ {
		p++
	}
	for p < n && (line[p] == ' ' || line[p] == '\t') {
		p++
	}
	switch {
	case p+1 < n && line[p] == ':' && line[p+1] == '=':
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
	for p < n && (line[p] == ' ' || line[p] == '\t') {
		p++
	}
	if p+1 < n && strings.IndexByte("bBrRuUfF", line[p]) >= 0 && (line[p+1] == '"' || line[p+1] == '\'') {
		p++ // Python b"..", r"..", f".."
	}
	if p >= n {
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
	if !unquoted {
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

func secretsIsQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' }

// secretsGenericValueOK decides whether an assigned literal looks like a
// real credential rather than a word, an expression, a path or a
// placeholder. Values made only of letters are rejected (identifiers such
// as "Bearer" or "refresh_token"), which also skips pass-phrases made only
// of words: an accepted false negative, documented.
func secretsGenericValueOK(v, ident []byte, entropyFactor, entropyCap float64) bool {
	if len(v) < secretsGenericMinLen || len(v) > secretsGenericMaxLen {
		return false
	}
	letters, others := 0, 0
	for _, b := range v {
		switch {
		case b <= ' ' || b == 0x7f:
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
	lv := strings.ToLower(string(v))
	for _, p := range []string{"http://", "https://", "file:", "/", "./", "../", "~/", "(", "sha256:", "sha512-", "sha1-"} {
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
	if secretsLooksPlaceholder(v) {
		return false
	}
	if lv == secretsStripSeparators(ident) {
		return false // password: "password", apiKey: "api_key"
	}
	bar := math.Min(entropyCap, entropyFactor*math.Log2(float64(len(v))))
	return secretsEntropy(v) >= bar
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
	"todo", "fixme", "notreal", "not_real", "not-real", "<", ">", "${", "{{", "}}", "$(", "%(",
	"#{", "%s", "%v", "%d", "12345678", "abcdefgh", "qwerty",
}

// secretsDocumentedExamples are credentials published in vendor
// documentation: AWS's example key pair and the Azure Storage emulator
// (Azurite) account key, which every local-development setup contains.
var secretsDocumentedExamples = []string{
	"AKIAIOSFODNN7EXAMPLE",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
}

// secretsLooksPlaceholder reports whether v is a template reference, a
// documentation value or a repeated-character filler.
func secretsLooksPlaceholder(v []byte) bool {
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
	// $VAR; ${VAR} is caught above.
	if len(v) > 1 && v[0] == '$' && (secretsIdentByte(v[1]) || v[1] == '{') {
		return true
	}
	// %VAR% (Windows), @VAR@ (Maven/Gradle resource filtering).
	if len(v) > 2 && (v[0] == '%' || v[0] == '@') && v[len(v)-1] == v[0] {
		return true
	}
	// Fillers like "aaaaaaaa" or "abababab": too few distinct bytes, or one
	// byte making up more than half the value.
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

func secretsValidateNotAWSExample(v []byte, _ *secretsMatchCtx) bool {
	s := string(v)
	for _, ex := range secretsDocumentedExamples {
		if s == ex {
			return false
		}
	}
	return !strings.HasSuffix(s, "EXAMPLE") && !strings.HasSuffix(s, "EXAMPLEKEY")
}

// secretsValidateJWT decodes the header and requires a JSON object with a
// signing algorithm; "none" is an unsigned token, not a credential.
func secretsValidateJWT(v []byte, _ *secretsMatchCtx) bool {
	head, _, ok := bytes.Cut(v, []byte("."))
	if !ok {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(head, "=")))
	if err != nil {
		return false
	}
	var h map[string]any
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	alg, _ := h["alg"].(string)
	return alg != "" && !strings.EqualFold(alg, "none")
}

// secretsURLPasswordPlaceholder reports passwords that only ever appear
// in documentation and local-development defaults.
func secretsURLPasswordPlaceholder(lower string) bool {
	switch lower {
	case "password", "pass", "passwd", "pwd", "secret", "pw", "postgres", "mysql", "root", "admin",
		"guest", "user", "username", "redis", "mongo", "mongodb", "rabbitmq":
		return true
	}
	return false
}

func secretsValidateURLPassword(v []byte, _ *secretsMatchCtx) bool {
	if len(v) < 3 || secretsURLPasswordPlaceholder(strings.ToLower(string(v))) {
		return false
	}
	// A password in a URL is percent-encoded; ":" or "*" alone is masked.
	return !bytes.ContainsAny(v, "*") && !secretsLooksPlaceholder(v)
}

// secretsValidatePEMInline accepts a PEM block written on one line with
// escaped newlines (service-account JSON) when it carries a real body.
func secretsValidatePEMInline(v []byte, _ *secretsMatchCtx) bool {
	return len(secretsBase64Run(v)) >= 40
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

var secretsPEMHeaderRe = regexp.MustCompile(`-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----`)

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
		default:
			continue
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
