// Package rulebook is the data of the secrets scanner's rules: each
// credential kind's title, severity, CWE, remediation, keywords and value
// pattern, in priority order. The code that judges a value (validators,
// finders, line prefilters) stays in scan/secrets and is named here by
// Validate, Find and Prefilter, so that growing the table does not grow
// the scanner.
package rulebook

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"scand/finding"
)

// Rule is one kind of credential; see scan/secrets for how each field is
// used (secretsRule has the same fields).
type Rule struct {
	ID, Title   string
	Severity    finding.Severity
	CWE         finding.CWE
	Remediation string
	// Keywords (case-insensitive) and CSKeywords (case-sensitive): a line
	// must hold one of them for the rule to be tried on it.
	Keywords, CSKeywords []string
	// FileContext: one of these must appear somewhere in the file.
	FileContext []string
	// FileNames: the rule runs on every line of a file of one of these
	// base names (credential files whose lines carry no keyword).
	FileNames  []string
	Pattern    string
	Nested     string
	MinEntropy float64
	ModeWords  bool
	// VendorFormat: the value is pinned down by the vendor's format and is
	// judged by the format placeholder check.
	VendorFormat bool
	// Validate, Find and Prefilter name functions of scan/secrets
	// (secretsValidate<Validate>, secretsFind<Find>, secrets<Prefilter>).
	Validate, Find, Prefilter string
}

// Rules is the whole table in priority order (the first rule to claim a
// span of a line wins): the specific rules (private keys, cloud, source
// hosting, registries, chat, payment, AI), then VendorRules, then
// StructuredRules, then the generic password/secret assignments.
func Rules() []Rule {
	const (
		base62   = `[A-Za-z0-9]`
		notB64ID = `(?:[^A-Za-z0-9_-]|$)`
		assign   = `["']?\s*(?::=|=>|=|:)\s*["']?`
	)
	crit, high, med := finding.Critical, finding.High, finding.Medium
	const cwe798, cwe321, cwe259 = finding.CWE("CWE-798"), finding.CWE("CWE-321"), finding.CWE("CWE-259")
	rules := []Rule{
		// A service-account JSON file holds a PKCS#8 key: claim it before the
		// private-key finder does, since the fix is in IAM, not in a key store.
		{ID: "gcp-service-account-key", Title: "Google Cloud service-account key", Severity: crit, CWE: cwe798,
			Remediation: "Delete the key in IAM & Admin > Service accounts > Keys and create a new one, or better, use workload identity instead of key files.",
			Keywords:    []string{`"private_key"`}, FileContext: []string{"service_account"},
			Pattern: `"private_key"\s*:\s*"(-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]+)"`, Validate: "PEMInline"},
		// ---- private keys (one finder classifies the block) ----
		{ID: "private-key-encrypted", Title: "Passphrase-protected private key", Severity: med, CWE: cwe321,
			Remediation: "The key is encrypted, but the passphrase may be weak or stored nearby and the ciphertext can be attacked offline. Replace the key pair and revoke the old public key wherever it is trusted.",
			CSKeywords:  []string{"PRIVATE KEY"}, Find: "PrivateKeys"},
		{ID: "private-key-rsa", Title: "RSA private key", Severity: crit, CWE: cwe321,
			Remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one (certificate revocation, authorized_keys, deploy keys)."},
		{ID: "private-key-ec", Title: "EC private key", Severity: crit, CWE: cwe321,
			Remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one."},
		{ID: "private-key-dsa", Title: "DSA private key", Severity: crit, CWE: cwe321,
			Remediation: "Generate a new (non-DSA) key pair and remove the old public key from every authorized_keys and trust store."},
		{ID: "private-key-openssh", Title: "OpenSSH private key", Severity: crit, CWE: cwe321,
			Remediation: "Generate a new SSH key pair and remove the old public key from every authorized_keys file, deploy-key list and Git host account."},
		{ID: "private-key-pgp", Title: "PGP private key block", Severity: crit, CWE: cwe321,
			Remediation: "Revoke the key with its revocation certificate, publish the revocation, and create a new key."},
		{ID: "private-key-pkcs8", Title: "PKCS#8 private key", Severity: crit, CWE: cwe321,
			Remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one."},
		{ID: "private-key-other", Title: "Private key", Severity: crit, CWE: cwe321,
			Remediation: "Generate a new key pair, deploy the new public key, and remove the old one from wherever it is trusted."},
		// Kubernetes manifests, Helm values and CI variables carry PEM keys
		// base64-wrapped ("LS0tLS1CRUdJTi" is "-----BEGIN "): decode and
		// require a private-key header followed by a body.
		{ID: "private-key-base64", Title: "Base64-encoded private key", Severity: crit, CWE: cwe321,
			Remediation: "Generate a new key pair, deploy the new public key or certificate, and revoke the old one; the base64 wrapping hides nothing.",
			CSKeywords:  []string{"LS0tLS1CRUdJTi"}, Pattern: `\b(LS0tLS1CRUdJTi[A-Za-z0-9+/]{60,}={0,2})`, Validate: "Base64PrivateKey"},

		// ---- cloud providers ----
		{ID: "aws-access-key-id", Title: "AWS access key ID", Severity: crit, CWE: cwe798,
			Remediation: "Deactivate and delete the access key in IAM (and its secret), review CloudTrail for its use, and switch to roles or short-lived credentials.",
			// S3-compatible stores (MinIO, Ceph, Wasabi) issue 20-character keys
			// without AWS's prefix; under the AWS variable name they are the same
			// credential.
			Keywords: []string{"aws_access_key_id"}, CSKeywords: []string{"AKIA", "ASIA", "ABIA", "ACCA"},
			Pattern:  `\b(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b|(?i:aws_access_key_id)` + assign + `(?P<secret>[A-Z0-9]{20})\b`,
			Validate: "AWSKeyID"},
		{ID: "aws-secret-access-key", Title: "AWS secret access key", Severity: crit, CWE: cwe798,
			Remediation: "Deactivate and delete the access key in IAM, review CloudTrail for its use, and switch to roles or short-lived credentials.",
			// "secret key: ..." next to an access key ID (a hand-over note, a
			// console export) is the pair's secret: scan/secrets' AWSSecret validator
			// asks for the ID in the same file when the name does not say AWS.
			Keywords:   []string{"secret_access_key", "secretaccesskey", "secret-access-key", "aws_secret", "awssecret", "secret key", "secret_key", "secretkey"},
			Pattern:    `(?i)(?:secret[_-]?access[_-]?key|aws[_-]?secret(?:[_-]?key)?|secret[ _-]?key)` + assign + `([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
			MinEntropy: 3.5, Validate: "AWSSecret"},
		// Microsoft's identifiable keys (microsoft/security-utilities) carry
		// the service's signature at a fixed offset: the signature alone
		// says which service's key it is, in any context. They come before
		// the connection-string rules so that a Cosmos DB or IoT key in
		// AccountKey= or SharedAccessKey= is named for its own service.
		azureIdentifiable("azure-cosmosdb-key", "Azure Cosmos DB account key", "the Cosmos DB account (Keys > Regenerate) and prefer Microsoft Entra ID with RBAC",
			azureKey88, "ACDb"),
		azureIdentifiable("azure-batch-key", "Azure Batch account key", "the Batch account (Keys > Regenerate) and prefer Microsoft Entra ID",
			azureKey88, `\+ABa`),
		azureIdentifiable("azure-apim-key", "Azure API Management key (subscription, gateway, management or repository)", "the API Management instance (Subscriptions or Gateways > Regenerate key)",
			azureKey88, "APIM"),
		azureIdentifiable("azure-iot-key", "Azure IoT Hub, Device Provisioning or device key", "the IoT hub (Shared access policies or the device's keys > Regenerate)",
			azureKey44, "AIoT"),
		azureIdentifiable("azure-redis-key", "Azure Cache for Redis access key", "the cache (Authentication > Access keys > Regenerate) and prefer Microsoft Entra ID",
			azureKey44, "AzCa"),
		azureIdentifiable("azure-event-grid-key", "Azure Event Grid access key", "the topic or domain (Access keys > Regenerate)",
			azureKey44, "AZEG"),
		azureIdentifiable("azure-search-key", "Azure AI Search admin or query key", "the search service (Keys > Regenerate, or delete the query key)",
			azureKey52, "AzSe"),
		azureIdentifiable("azure-container-registry-key", "Azure Container Registry password", "the registry (Access keys or Tokens > Regenerate password) and prefer Microsoft Entra ID",
			azureKey52, `\+ACR`),
		azureFunctionKey(),
		// The common annotated format (JQQJ9 at offset 52) is what Azure AI
		// services, OpenAI, DevOps, Web PubSub and newer services issue;
		// Machine Learning classic keys are 64-byte keys signed +AMC.
		{ID: "azure-identifiable-key", Title: "Microsoft Azure key in an identifiable format (AI services, OpenAI, DevOps, Web PubSub, Machine Learning)", Severity: crit, CWE: cwe798,
			Remediation: revokeIn("the Azure resource's keys (Keys and Endpoint or Access keys > Regenerate) or, for a DevOps token, User settings > Personal access tokens"),
			CSKeywords:  []string{"JQQJ9", "+AMC"},
			// The shape is either format; the signature fills azureKey88's.
			Pattern:    azureKeyPattern(`[A-Za-z0-9]{52}JQQJ9[9D][A-Za-z0-9][A-L][A-Za-z0-9]{16}[A-Za-z][A-Za-z0-9]{7}(?:[A-Za-z0-9]{2}==)?|`+azureKey88, `\+AMC`),
			MinEntropy: 3.5},
		// A Cosmos DB connection string's key predates the ACDb signature.
		{ID: "azure-cosmosdb-connection-string", Title: "Azure Cosmos DB connection string with account key", Severity: crit, CWE: cwe798,
			Remediation: revokeIn("the Cosmos DB account (Keys > Regenerate) and prefer Microsoft Entra ID with RBAC"),
			Keywords:    []string{"documents.azure.com"}, Pattern: `(?i)AccountEndpoint=https://[a-z0-9-]+\.documents\.azure\.com[:0-9/]*;\s*AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)`,
			MinEntropy: 3.5},
		{ID: "azure-storage-connection-string", Title: "Azure Storage connection string with account key", Severity: crit, CWE: cwe798,
			Remediation: "Regenerate the storage account key (Access keys > Rotate) and move to Microsoft Entra ID auth or SAS tokens with short expiry.",
			Keywords:    []string{"accountkey"}, Pattern: `(?i)AccountName=[^;"'\s]+;\s*AccountKey=([A-Za-z0-9+/]{86}==)`},
		{ID: "azure-storage-account-key", Title: "Azure Storage account key", Severity: crit, CWE: cwe798,
			Remediation: "Regenerate the storage account key (Access keys > Rotate) and move to Microsoft Entra ID auth or SAS tokens with short expiry.",
			// A storage key is 64 random bytes: 88 base64 characters under an
			// account or storage key's name in any syntax (AccountKey=, the
			// az CLI's --account-key, a dictionary's "AccountKey", "...",
			// storage_account_access_key =), or anywhere in the identifiable
			// format (+ASt).
			Keywords:   []string{"accountkey", "account_key", "account-key", "storage_account", "storageaccount", "storage-account", "storagekey", "storage_key", "storage-key"},
			CSKeywords: []string{"+ASt"},
			Pattern: `(?i:account[_-]?key|storage[_-]?account|storage[_-]?key)` + nearGap + `(?P<secret>[A-Za-z0-9+/]{86}==)` + nearEnd +
				`|` + azureKeyPattern(azureKey88, `\+ASt`),
			MinEntropy: 3.5},
		// Service Bus, Event Hubs and Relay keys: 32 random bytes after
		// SharedAccessKey=, or anywhere in the identifiable format.
		{ID: "azure-shared-access-key", Title: "Azure Service Bus / Event Hubs / Relay shared access key", Severity: crit, CWE: cwe798,
			Remediation: "Regenerate the shared access policy's keys and prefer managed identities.",
			Keywords:    []string{"sharedaccesskey="}, CSKeywords: []string{"+ASb", "+AEh", "+ARm"},
			Pattern: `(?i:SharedAccessKey=)(?P<secret>[A-Za-z0-9+/]{42,43}=)` +
				`|` + azureKeyPattern(azureKey44, `\+(?:ASb|AEh|ARm)`)},
		// A shared access signature: the query string's sig= is an
		// HMAC-SHA256 of the grant (44 base64 characters, URL-encoded or
		// not), valid until se= for whoever holds it. The signed version
		// (sv=YYYY-MM-DD) on the same line makes it Azure's.
		{ID: "azure-sas-token", Title: "Azure shared access signature (SAS) token", Severity: high, CWE: cwe798,
			Remediation: "Revoke the SAS (rotate the account key it was signed with, or delete the stored access policy it names) and issue short-lived user-delegation SAS tokens at run time.",
			CSKeywords:  []string{"sig="}, Pattern: `[?&;"'\s]sig=((?:[A-Za-z0-9+/]|%2[BbFf]){40,60}(?:=|%3[Dd]){0,2})`, Validate: "AzureSAS"},
		{ID: "digitalocean-token", Title: "DigitalOcean token", Severity: crit, CWE: cwe798,
			Remediation: "Delete the token under API > Tokens and create a new one with the least scope needed.",
			CSKeywords:  []string{"dop_v1_", "doo_v1_", "dor_v1_"}, Pattern: `\b(do[opr]_v1_[a-f0-9]{64})\b`},
		{ID: "gcp-api-key", Title: "Google API key", Severity: high, CWE: cwe798,
			Remediation: "Delete or regenerate the key under APIs & Services > Credentials and restrict the new one to the APIs and referrers that need it.",
			CSKeywords:  []string{"AIza"}, Pattern: `\b(AIza[0-9A-Za-z_-]{35})` + notB64ID, Validate: "NotPublicGoogleKey"},
		{ID: "google-oauth-client-secret", Title: "Google OAuth client secret", Severity: high, CWE: cwe798,
			Remediation: "Reset the client secret of the OAuth client under APIs & Services > Credentials.",
			CSKeywords:  []string{"GOCSPX-"}, Pattern: `\b(GOCSPX-[A-Za-z0-9_-]{28})` + notB64ID},
		{ID: "google-oauth-access-token", Title: "Google OAuth access token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it (https://oauth2.googleapis.com/revoke?token=...) or remove the app's access under the Google account's Security > Third-party access; access tokens expire within an hour, but whatever minted it can mint more.",
			CSKeywords:  []string{"ya29."}, Pattern: `\b(ya29\.[0-9A-Za-z_-]{30,})` + notB64ID, MinEntropy: 3.5},
		{ID: "google-oauth-refresh-token", Title: "Google OAuth refresh token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it (https://oauth2.googleapis.com/revoke?token=...) or remove the app's access under the Google account's Security > Third-party access; a refresh token mints access tokens until revoked.",
			CSKeywords:  []string{"1//0"}, Pattern: `(?:^|[^0-9A-Za-z/])(?P<secret>1//0[0-9A-Za-z_-]{35,})` + notB64ID, MinEntropy: 3.5},
		{ID: "azure-app-configuration-connection-string", Title: "Azure App Configuration connection string with access key", Severity: crit, CWE: cwe798,
			Remediation: "Regenerate the access key (App Configuration > Access settings) and move to Microsoft Entra ID auth with a managed identity.",
			Keywords:    []string{"azconfig.io"}, Pattern: `(?i)Endpoint=https://[a-z0-9-]+\.azconfig\.io/?;\s*Id=[^;"'\s]+;\s*Secret=([A-Za-z0-9+/]{43}=)`},

		// ---- payment ----
		{ID: "stripe-live-secret-key", Title: "Stripe live secret key", Severity: crit, CWE: cwe798,
			Remediation: "Roll the key in the Stripe Dashboard (Developers > API keys) and review recent API activity.",
			// Stripe documents live_ and test_ only; prod_ is in other
			// scanners' rule sets and examples, and a key so named is meant
			// for production: judged as live.
			CSKeywords: []string{"sk_live_", "sk_prod_"}, Pattern: `\b(sk_(?:live|prod)_` + base62 + `{24,99})\b`, MinEntropy: 3},
		{ID: "stripe-restricted-key", Title: "Stripe live restricted key", Severity: crit, CWE: cwe798,
			Remediation: "Roll the restricted key in the Stripe Dashboard (Developers > API keys).",
			CSKeywords:  []string{"rk_live_", "rk_prod_"}, Pattern: `\b(rk_(?:live|prod)_` + base62 + `{24,99})\b`, MinEntropy: 3},
		// A test-mode key moves no money, but it reads and writes the
		// account's test data and webhooks, and it is the same secret class.
		{ID: "stripe-test-secret-key", Title: "Stripe test-mode secret key", Severity: med, CWE: cwe798,
			Remediation: "Roll the test key in the Stripe Dashboard (Developers > API keys, test mode).",
			CSKeywords:  []string{"sk_test_", "rk_test_"}, Pattern: `\b([sr]k_test_` + base62 + `{24,99})\b`, MinEntropy: 3, ModeWords: true,
			Validate: "NotDocumentedExample"},

		// ---- source hosting and CI ----
		{ID: "github-pat", Title: "GitHub personal access token (classic)", Severity: high, CWE: cwe798,
			Remediation: "Revoke it under Settings > Developer settings > Personal access tokens and audit the account's security log.",
			CSKeywords:  []string{"ghp_"}, Pattern: `\b(ghp_` + base62 + `{36})\b`, MinEntropy: 3},
		{ID: "github-oauth-token", Title: "GitHub OAuth access token", Severity: high, CWE: cwe798,
			Remediation: "Revoke the OAuth app's authorization (Settings > Applications) or reset the app's tokens.",
			CSKeywords:  []string{"gho_"}, Pattern: `\b(gho_` + base62 + `{36})\b`, MinEntropy: 3},
		{ID: "github-user-token", Title: "GitHub App user-to-server token", Severity: high, CWE: cwe798,
			Remediation: "Revoke the user's authorization of the GitHub App.",
			CSKeywords:  []string{"ghu_"}, Pattern: `\b(ghu_` + base62 + `{36})\b`, MinEntropy: 3},
		{ID: "github-app-token", Title: "GitHub App installation token", Severity: high, CWE: cwe798,
			Remediation: "Revoke the installation token through the API and rotate the GitHub App's private key if it is stored beside it.",
			// Since April 2026 GitHub mints them stateless: ghs_<app ID>_<JWT>,
			// about 520 characters, beside the 36-character opaque form.
			CSKeywords: []string{"ghs_"}, Pattern: `\b(ghs_(?:` + base62 + `{36}\b|[0-9]{1,12}_eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}))`, MinEntropy: 3},
		{ID: "github-refresh-token", Title: "GitHub refresh token", Severity: high, CWE: cwe798,
			Remediation: "Revoke the user's authorization of the GitHub App so the refresh token stops working.",
			CSKeywords:  []string{"ghr_"}, Pattern: `\b(ghr_` + base62 + `{36,76})\b`, MinEntropy: 3},
		{ID: "github-fine-grained-pat", Title: "GitHub fine-grained personal access token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it under Settings > Developer settings > Fine-grained tokens and audit the account's security log.",
			CSKeywords:  []string{"github_pat_"}, Pattern: `\b(github_pat_` + base62 + `{22}_` + base62 + `{59})\b`, MinEntropy: 3},
		{ID: "gitlab-pat", Title: "GitLab personal access token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it under User settings > Access tokens and review the audit events.",
			CSKeywords:  []string{"glpat-"}, Pattern: `\b(glpat-[A-Za-z0-9_-]{20,64})` + notB64ID, MinEntropy: 3},
		{ID: "gitlab-pipeline-trigger-token", Title: "GitLab pipeline trigger token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it under Settings > CI/CD > Pipeline trigger tokens.",
			CSKeywords:  []string{"glptt-"}, Pattern: `\b(glptt-[0-9a-f]{40})\b`, MinEntropy: 3},
		{ID: "gitlab-runner-token", Title: "GitLab runner authentication token", Severity: high, CWE: cwe798,
			Remediation: "Reset the runner's authentication token and re-register the runner.",
			CSKeywords:  []string{"glrt-"}, Pattern: `\b(glrt-[A-Za-z0-9_-]{20,64})` + notB64ID, MinEntropy: 3},
		{ID: "gitlab-deploy-token", Title: "GitLab deploy token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it under Settings > Repository > Deploy tokens.",
			CSKeywords:  []string{"gldt-"}, Pattern: `\b(gldt-[A-Za-z0-9_-]{20,64})` + notB64ID, MinEntropy: 3},
		{ID: "bitbucket-app-password", Title: "Bitbucket app password", Severity: high, CWE: cwe798,
			Remediation: "Revoke it under Personal settings > App passwords and switch to API tokens with scopes.",
			CSKeywords:  []string{"ATBB"}, Pattern: `\b(ATBB[A-Za-z0-9_=.-]{28,})`, MinEntropy: 3.5},
		{ID: "bitbucket-access-token", Title: "Bitbucket repository/workspace access token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it under Repository or Workspace settings > Access tokens.",
			CSKeywords:  []string{"ATCTT3"}, Pattern: `\b(ATCTT3[A-Za-z0-9_=-]{100,})`, MinEntropy: 3.5},
		{ID: "atlassian-api-token", Title: "Atlassian API token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it at id.atlassian.com > Security > API tokens.",
			CSKeywords:  []string{"ATATT3"}, Pattern: `\b(ATATT3[A-Za-z0-9_=-]{100,})`, MinEntropy: 3.5},

		// ---- package registries ----
		{ID: "npm-access-token", Title: "npm access token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it with `npm token revoke` or on npmjs.com > Access Tokens, and check recent publishes of your packages.",
			CSKeywords:  []string{"npm_"}, Pattern: `\b(npm_` + base62 + `{36})\b`, MinEntropy: 3},
		{ID: "npmrc-auth-token", Title: "Registry auth token in npm configuration", Severity: high, CWE: cwe798,
			Remediation: "Revoke the token at the registry, and reference it as ${NPM_TOKEN} in .npmrc instead of writing it there.",
			Keywords:    []string{"_authtoken"}, Pattern: `(?i)_authToken\s*=\s*["']?([A-Za-z0-9_\-.+/=]{20,})`, MinEntropy: 3},
		{ID: "pypi-upload-token", Title: "PyPI upload token", Severity: high, CWE: cwe798,
			Remediation: "Delete the token under PyPI Account settings > API tokens and prefer Trusted Publishing from CI.",
			CSKeywords:  []string{"pypi-AgEIcHlwaS5vcmc"}, Pattern: `\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})`},
		{ID: "dockerhub-pat", Title: "Docker Hub personal or organization access token", Severity: high, CWE: cwe798,
			Remediation: "Delete it under Docker Hub Account settings > Personal access tokens (an organization's under its Settings > Access tokens) and check recent image pushes.",
			CSKeywords:  []string{"dckr_pat_", "dckr_oat_"}, Pattern: `\b(dckr_pat_[A-Za-z0-9_-]{27}|dckr_oat_[A-Za-z0-9_-]{32})` + notB64ID, MinEntropy: 3},

		// ---- chat ----
		{ID: "slack-bot-token", Title: "Slack bot token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it (auth.revoke or reinstall the app after regenerating tokens under OAuth & Permissions).",
			Keywords:    []string{"xoxb-"}, Pattern: `\b(xoxb-[0-9]{10,13}-[0-9]{10,13}-` + base62 + `{24,34}|xoxb-[0-9]{8,14}-` + base62 + `{18,26})\b`, MinEntropy: 3, VendorFormat: true},
		{ID: "slack-config-token", Title: "Slack app configuration token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it with tooling.tokens.rotate or regenerate it under Your Apps > App configuration tokens.",
			// Slack documents no length; these bands hold every published example.
			Keywords: []string{"xoxe"}, Pattern: `\b(xoxe\.xox[bp]-[0-9]-[A-Za-z0-9]{155,170}|xoxe-[0-9]-[A-Za-z0-9]{140,150})\b`, MinEntropy: 3},
		{ID: "slack-user-token", Title: "Slack user token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it with auth.revoke and review the workspace's access logs.",
			// xoxe- with the same four parts is the user token a file link
			// carries (files.slack.com/...?t=xoxe-...).
			Keywords: []string{"xoxp-", "xoxe-"}, Pattern: `\b(xox[pe](?:-[0-9]{8,13}){3}-[A-Za-z0-9]{28,34})\b`, MinEntropy: 3, VendorFormat: true},
		{ID: "slack-legacy-token", Title: "Slack legacy or workspace token", Severity: high, CWE: cwe798,
			Remediation: "Revoke it with auth.revoke; legacy tokens should be replaced by app tokens.",
			// Legacy user tokens (xoxs-, xoxo-) end in a hex part of varying
			// length; workspace access and refresh tokens (xoxa-, xoxr-) in a
			// base62 part of 8 to 48.
			Keywords: []string{"xoxa-", "xoxr-", "xoxs-", "xoxo-"},
			Pattern:  `\b(xox[os]-[0-9]+-[0-9]+-[0-9]+-[a-fA-F0-9]{8,64}|xox[ar]-(?:[0-9]+-)*` + base62 + `{8,48})\b`, MinEntropy: 2.5, VendorFormat: true},
		// A browser session's client token (xoxc-) and its d cookie
		// (xoxd-, URL-encoded) act as the signed-in user.
		{ID: "slack-session-token", Title: "Slack browser session token or cookie", Severity: high, CWE: cwe798,
			Remediation: "Sign the user out of all sessions (Account > Sign out all other sessions, or admin.users.session.reset).",
			Keywords:    []string{"xoxc-", "xoxd-"}, Pattern: `\b(xoxc-[0-9]{9,15}-[0-9]{9,15}-[0-9]{9,15}-[a-f0-9]{64}|xoxd-[A-Za-z0-9%/+_-]{100,}={0,2})`, MinEntropy: 3, VendorFormat: true},
		{ID: "slack-app-token", Title: "Slack app-level token", Severity: high, CWE: cwe798,
			Remediation: "Revoke and regenerate it under the app's Basic Information > App-Level Tokens.",
			Keywords:    []string{"xapp-"}, Pattern: `\b(xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]{32,80})\b`, MinEntropy: 3},
		{ID: "slack-webhook-url", Title: "Slack incoming webhook URL", Severity: med, CWE: cwe798,
			Remediation: "Regenerate or remove the webhook under the app's Incoming Webhooks page.",
			// Team and bot IDs are upper case when Slack prints them, but
			// URLs are copied through tools that fold case; the path shape
			// (T.../B.../token) is what identifies the hook.
			Keywords: []string{"hooks.slack.com"}, Pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/(T[A-Za-z0-9_]{6,12}/[A-Za-z0-9_]{6,16}/(?:[0-9]{10,20}/)?` + base62 + `{20,32})\b`, MinEntropy: 3, VendorFormat: true},
		{ID: "discord-bot-token", Title: "Discord bot token", Severity: high, CWE: cwe798,
			Remediation: "Reset the token in the Developer Portal (Bot > Reset Token).",
			FileContext: []string{"discord"}, Pattern: `\b([MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})` + notB64ID, MinEntropy: 3.5},
		{ID: "discord-webhook-url", Title: "Discord webhook URL", Severity: med, CWE: cwe798,
			Remediation: "Delete the webhook in the channel's Integrations settings and create a new one.",
			Keywords:    []string{"discord"}, Pattern: `discord(?:app)?\.com/api/webhooks/([0-9]{17,20}/[A-Za-z0-9_-]{60,68})` + notB64ID, MinEntropy: 3},

		// ---- communications and SaaS APIs ----
		{ID: "twilio-api-key", Title: "Twilio API key", Severity: high, CWE: cwe798,
			Remediation: "Delete the API key in the Twilio Console (Account > API keys) and create a new one.",
			CSKeywords:  []string{"SK"}, Pattern: `\b(SK[0-9a-fA-F]{32})\b`, MinEntropy: 3},
		{ID: "twilio-auth-token", Title: "Twilio auth token", Severity: high, CWE: cwe798,
			Remediation: "Rotate the auth token in the Twilio Console (promote the secondary token) and move to API keys.",
			Keywords:    []string{"twilio"}, CSKeywords: []string{"AC"},
			Pattern:    `(?i:twilio[\w.-]*token)` + assign + `(?P<secret>[0-9a-f]{32})\b|\bAC[0-9a-f]{32}\b["']?\s*[,:]\s*["']?(?P<secret>[0-9a-f]{32})\b`,
			MinEntropy: 3},
		{ID: "sendgrid-api-key", Title: "SendGrid API key", Severity: high, CWE: cwe798,
			Remediation: "Delete the key under Settings > API Keys and create one with restricted scopes.",
			CSKeywords:  []string{"SG."}, Pattern: `\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})` + notB64ID, MinEntropy: 3.5},
		{ID: "mailgun-api-key", Title: "Mailgun API key", Severity: high, CWE: cwe798,
			Remediation: "Rotate the key under Account settings > API keys.",
			CSKeywords:  []string{"key-"}, Pattern: `\b(key-[0-9a-f]{32})\b`, MinEntropy: 3},
		{ID: "shopify-access-token", Title: "Shopify access token", Severity: high, CWE: cwe798,
			Remediation: "Uninstall/reinstall the custom app or rotate its Admin API access token.",
			CSKeywords:  []string{"shpat_", "shpca_", "shppa_", "shpss_"}, Pattern: `\b(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b`, MinEntropy: 3},

		// ---- AI APIs ----
		{ID: "anthropic-api-key", Title: "Anthropic API key", Severity: high, CWE: cwe798,
			Remediation: "Delete the key in the Anthropic Console (Settings > API keys) and create a new one.",
			// API and Admin keys are 93 characters and then AA: another
			// ending is not a key. Claude Code's OAuth tokens (claude
			// setup-token) are 95 characters with no fixed ending in the
			// public rule sets, so only their length is held to.
			CSKeywords: []string{"sk-ant-"}, Pattern: `\b(sk-ant-(?:api|admin)[0-9]{2,4}-[A-Za-z0-9_-]{93}AA|sk-ant-o[ar]t[0-9]{2,4}-[A-Za-z0-9_-]{95})` + notB64ID, MinEntropy: 3.5, VendorFormat: true},
		{ID: "openai-api-key", Title: "OpenAI API key", Severity: high, CWE: cwe798,
			Remediation: "Revoke the key on the OpenAI platform (API keys) and create a new project-scoped one.",
			CSKeywords:  []string{"T3BlbkFJ", "sk-proj-", "sk-svcacct-", "sk-admin-"},
			Pattern:     `\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,})` + notB64ID,
			MinEntropy:  3.5},
		{ID: "huggingface-token", Title: "Hugging Face access token", Severity: high, CWE: cwe798,
			Remediation: "Invalidate it under Settings > Access Tokens and create a fine-grained one.",
			CSKeywords:  []string{"hf_"}, Pattern: `\b(hf_[A-Za-z]{34})\b`, MinEntropy: 3.5},

		// ---- structured tokens and URLs ----
		{ID: "jwt", Title: "JSON Web Token", Severity: med, CWE: cwe798,
			Remediation: "Invalidate it (rotate the signing key or revoke the session) if it has not expired, and never commit bearer tokens; tests should mint their own.",
			// A header or payload may be pretty-printed JSON: "{\n" and "{ "
			// encode as ewo, ew0K and eyAi instead of eyJ.
			CSKeywords: []string{"eyJ", "ewo", "ew0K", "eyAi"}, Pattern: `\b((?:eyJ|ewo|ew0K|eyAi)[A-Za-z0-9_-]{10,}\.(?:eyJ|ewo|ew0K|eyAi)[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,})` + notB64ID,
			Validate: "JWT"},
		{ID: "database-url-password", Title: "Database URL with embedded password", Severity: high, CWE: cwe259,
			Remediation: "Change the database user's password, and pass the URL (or just the password) through the environment or a secret manager.",
			Keywords:    []string{"postgres", "mysql", "mariadb", "mongodb", "redis", "amqp", "mssql", "sqlserver"},
			Pattern:     `(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver)://[^:@/\s"'<>]*:(?P<secret>[^@/\s"'<>]+)@[^\s"'<>/]+`,
			Validate:    "URLPassword"},
		// Oracle's JDBC URLs put the credentials before the host as
		// user/password@ (thin and OCI drivers).
		{ID: "oracle-jdbc-password", Title: "Oracle JDBC URL with embedded password", Severity: high, CWE: cwe259,
			Remediation: "Change the database user's password, and give the driver the password through the environment, a wallet or a secret manager.",
			Keywords:    []string{"jdbc:oracle:"},
			Pattern:     `(?i)jdbc:oracle:(?:thin|oci8?):[A-Za-z0-9_$#.-]{1,64}/(?P<secret>[^@\s"'/]{4,128})@`,
			Validate:    "NotPlaceholderPassword"},
	}
	// Vendor tokens next, then the structured forms (URLs, HTTP auth,
	// Kubernetes Secrets), then the heuristics, so that the most specific
	// rule claims a line first.
	rules = append(rules, VendorRules()...)
	rules = append(rules, StructuredRules()...)
	return append(rules, []Rule{
		// ---- heuristics, last so that any specific rule claims the line first ----
		{ID: "generic-password", Title: "Hard-coded password", Severity: med, CWE: cwe259,
			Remediation: "Change the password wherever it is used and read it from the environment or a secret manager.",
			Keywords:    PasswordLineKeywords, Find: "PasswordAssignments"},
		{ID: "generic-secret", Title: "Hard-coded secret or API token", Severity: med, CWE: cwe798,
			Remediation: "Rotate the secret at its issuer and read it from the environment or a secret manager.",
			Keywords:    SecretKeywords, CSKeywords: SecretKeyNameKeywords, Find: "SecretAssignments"},
		// A token in the prefix_random shape of an issuer no rule knows,
		// after the assignments so that a named value keeps its name's rule:
		// the lines come from a scan of the whole file (no keyword can
		// select them), and the finder judges the body.
		{ID: "prefixed-token", Title: "Token in a vendor's prefixed format", Severity: med, CWE: cwe798,
			Remediation: "Find the service that issued the token (its prefix names it), revoke it there, and read it from the environment or a secret manager.",
			Find:        "PrefixedTokens"},
	}...)
}

// Literals that start the generic assignment rules, and the identifier
// endings that make an assignment count. "token" matches accessToken,
// AUTH_TOKEN and csrf_token alike; entropy and placeholder filtering decide.
// secret_key_base (Rails, Phoenix) signs sessions like a SECRET_KEY does.
// WordPress's AUTH_KEY, SECURE_AUTH_SALT, LOGGED_IN_KEY, NONCE_SALT, ...
// sign its cookies and nonces. A name that is "pass" as a word (DB_PASS)
// is a password too, and so are pw and psw (database_pw, client.pw): see
// secretsIdentIsPass in scan/secrets.
var (
	PasswordKeywords = []string{"password", "passwd", "pwd", "passphrase", "pass", "pw", "psw"}
	// PasswordShortWords are the short forms that name a password only as
	// a whole word of the name (DB_PASS, smtpPass, service-pw; not bypass).
	PasswordShortWords = []string{"pass", "pw", "psw"}
	// PasswordLineKeywords select the lines PasswordKeywords are looked
	// for on: "pass" alone is in every other line of prose and code
	// (passed, bypass), "pass" as a name is followed by an operator or a
	// quote, or preceded by a separator.
	PasswordLineKeywords = []string{"password", "passwd", "pwd", "passphrase", "_pass", "-pass", ".pass", "pass\"", "pass'", "pass:", "pass=", "pass =",
		"_pw", "-pw", ".pw", "pw\"", "pw'", "pw:", "pw=", "pw =", "psw"}
	PasswordSuffixes = []string{"password", "passwd", "pwd", "passphrase"}
	SecretKeywords   = []string{"secret", "api_key", "apikey", "api-key", "token", "access_key", "accesskey", "auth_key", "auth_salt", "logged_in_", "nonce_", "credential", "creds"}
	// SecretKeyNameKeywords (case-sensitive) start the line test for a
	// name whose last word is key (clarifai_key, BING_KEY, braintreeKey):
	// a bare "key" would make every "keyboard" and "monkey" a candidate;
	// key followed by an operator or a quote finds labels and compounds
	// ("API Key:", apilayerkey=).
	// proxyAuth, user_auth and basic_auth hold a credential as often.
	SecretKeyNameKeywords = []string{"_key", "_KEY", "-key", "Key", "key:", "key=", "key =", "key\"", "key'", "_auth", "_AUTH", "-auth", "Auth"}
	// SecretFinderKeywords are what the generic-secret finder looks for in
	// a candidate line; "key" and "auth" come last, after every longer name.
	SecretFinderKeywords = append(slices.Clone(SecretKeywords), "key", "auth")
	SecretSuffixes       = []string{"secret", "secretkey", "apikey", "token", "accesskey", "secretkeybase", "credential", "credentials", "creds", "subscriptionkey", "apikeys",
		"authkey", "authsalt", "loggedinkey", "loggedinsalt", "noncekey", "noncesalt"}
)

// Pattern pieces of the vendor rules.
const (
	// tokEnd ends a token: the next byte cannot continue it.
	tokEnd = `(?:[^A-Za-z0-9_-]|$)`
	// nearGap joins a vendor's name to the value assigned to it: the
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
	// the name: {"name": "SNYK_TOKEN", "value": "..."}. A shell parameter
	// expansion's default is the value: ${SNYK_TOKEN:-...}; so is the
	// fallback of a lookup (getenv('MESSAGEBIRD_KEY') ?: '...', env.X ||
	// '...', os.getenv("X") or "..."), and the "value" of an inline object
	// under the name ("SNYK_TOKEN": {"description": ..., "value": "..."}).
	nearGap = `(?:[\w.\\-]|['"]\)\.){0,32}?\\{0,2}["'\x60]?[\])]?(?:[ \t]+[A-Za-z_][\w.*\[\]]{0,20})?(?:[ \t]{0,3}(?:,[ \t]*["']?(?i:value)["']?[ \t]*[:=]|:[ \t]*\{[^{}\n]{0,120}?["']?(?i:value)["']?[ \t]*:|:{1,3}=|=>|\?\?=|\?:|\?\?|\|\||or[ \t]|[?+.]?=|:-|:|,|\(|>)[ \t]{0,3}(?:(?:["'][^"'\s]{1,64}["']|[\w.]{1,40}(?:\[["']?\w{1,40}["']?\])?)[ \t]*(?:,|\|\||\?\?|\?:|[ \t]or)[ \t]*)?` +
		`|(?:[ \t]+(?:[a-z][\w:.-]*|--?[a-z][\w-]*(?:=[\w.-]+)?)){0,3}?[ \t]+(?:[a-z][\w.-]*=)?)\\{0,2}["'\x60]?`
	// nearEnd is what may follow such a value: a delimiter, an
	// escaped newline or the end of the line, never more value characters.
	nearEnd = `(?:["'\x60\s;,)}\]<&\\]|$)`
	// windowsCommandStart is where a command of a batch or PowerShell
	// line begins: the line's start, after &, |, ( or ;, a quote, or
	// cmd /c, with batch's @ (echo off for the line) allowed.
	windowsCommandStart = `(?:^|[&|(;"'\x60]|\bcmd(?:\.exe)?[ \t]+/[ck])[ \t]*@?`
	uuidPattern         = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`
	// cliValue is a command-line flag's literal value: not a variable,
	// substitution, template or another flag.
	cliValue = `["']?(?P<secret>[^\s"'$<{%(\x60-][^\s"'\x60]{5,})`
)

// withLetter is n characters of letters and digits with at least one
// letter, which RE2 (no lookahead) says as one alternative per position of
// the first letter.
func withLetter(n int, letters, digits string) string {
	alts := make([]string, n)
	for k := 0; k < n; k++ {
		alts[k] = fmt.Sprintf("[%s]{%d}[%s][%s%s]{%d}", digits, k, letters, letters, digits, n-1-k)
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// The shapes of Microsoft's identifiable keys (microsoft/security-utilities:
// Azure64ByteIdentifiableKeys, Azure32ByteIdentifiableKeys, the Search,
// Container Registry and Function keys): random base64, the service's
// signature (%s) at a fixed offset, then a checksum; the last
// character before the padding holds no more bits than the key has.
const (
	azureKey88    = `[A-Za-z0-9+/]{76}%s[A-Za-z0-9+/]{5}[AQgw]==`
	azureKey44    = `[A-Za-z0-9+/]{33}%s[A-P][A-Za-z0-9+/]{5}=`
	azureKey52    = `[A-Za-z0-9+/]{42}%s[A-D][A-Za-z0-9+/]{5}`
	azureKey56    = `[A-Za-z0-9_-]{44}%s[A-Za-z0-9_-]{5}[AQgw]==`
	azureKeyStart = `(?:^|[^A-Za-z0-9+/_-])`
	azureKeyEnd   = `(?:[^A-Za-z0-9+/=_-]|$)`
)

// azureIdentifiable is the rule of one service's identifiable key: its
// signature is the keyword, its shape the pattern. Most of the key is
// random, so the full placeholder check applies (an alphabet walked in
// place of the random part is a test fixture's), not the vendor-format one.
func azureIdentifiable(id, title, where, shape, signature string) Rule {
	return Rule{ID: id, Title: title, Severity: finding.Critical, CWE: "CWE-798", Remediation: revokeIn(where),
		CSKeywords: []string{strings.ReplaceAll(signature, `\`, "")},
		Pattern:    azureKeyPattern(shape, signature),
		MinEntropy: 3.5}
}

// azureKeyPattern is a key of that shape with that signature, standing
// alone: no base64 character on either side.
func azureKeyPattern(shape, signature string) string {
	return azureKeyStart + `(?P<secret>` + fmt.Sprintf(shape, signature) + `)` + azureKeyEnd
}

// azureFunctionKey is the identifiable Functions key, or a key of the
// older format (40 random bytes) given as the x-functions-key header or
// under a function key's name.
func azureFunctionKey() Rule {
	r := azureIdentifiable("azure-function-key", "Azure Functions key", "the function app (App keys or Function keys > Renew key value)",
		azureKey56, "AzFu")
	r.Keywords = []string{"x-functions-key", "function_key", "functionkey", "function-key"}
	r.Pattern += `|(?i:x-functions-key|function[_-]?key)` + nearGap + `(?P<secret>[A-Za-z0-9_/+-]{40,54}={0,2})` + nearEnd
	return r
}

// revokeIn is the remediation of a vendor token: where to revoke it.
func revokeIn(where string) string {
	return "Revoke or regenerate it in " + where + ", then update whatever used it."
}

// tok is a rule for a token whose own prefix names its issuer
// (AGE-SECRET-KEY-1…, pplx-…, dapi…): the prefixes are its case-sensitive
// keywords and the value pattern starts at a word boundary.
func tok(id, title string, sev finding.Severity, where string, prefixes []string, value string) Rule {
	return Rule{ID: id, Title: title, Severity: sev, CWE: "CWE-798", Remediation: revokeIn(where),
		CSKeywords: prefixes, Pattern: `\b(` + value + `)` + tokEnd, MinEntropy: 3, ModeWords: true, VendorFormat: true}
}

// near is a rule for a value that only means something next to its
// vendor's name (a 32-character hex string is a Datadog API key only in
// DATADOG_API_KEY=…): the names are its keywords and must precede the
// value in the same assignment.
func near(id, title string, sev finding.Severity, where string, vendors []string, value string) Rule {
	return Rule{ID: id, Title: title, Severity: sev, CWE: "CWE-798", Remediation: revokeIn(where),
		Keywords: vendors, Pattern: nearPattern(vendors, value), MinEntropy: 3, ModeWords: true, VendorFormat: true,
		Nested: nestedPattern(value)}
}

// nestedPattern is a key that names a credential (accessKey,
// app_secret, "api-token", access_id) or holds the value of a named entry
// (value: under "- name: SNYK_TOKEN", default = in variable
// "sumologic_access_key" {...}), an assignment, and the value; or the
// value alone on its line.
func nestedPattern(value string) string {
	return `(?i:(?:^|[{,])[ \t]*["']?[\w.-]*(?:key|secret|token|passw|pwd|auth|credential|access|value|default|api)[\w.-]*["']?[ \t]*(?::=|=>|=|:))[ \t]*["'\x60]?(?P<secret>` +
		value + `)` + nearEnd +
		// The value alone on its line: a YAML block scalar's body, an XML
		// element's text (<facebookToken>\n value \n</facebookToken>).
		`|^[ \t]*["']?(?P<secret>` + value + `)["']?[ \t]*$` +
		// The value given to the SDK's client factory in a file that
		// imports the SDK: Client.CreateDefault("..."), New("...").
		`|(?i:\b(?:client|create\w*|init\w*|new|connect|auth\w*|login|set_?api_?key|set_?token|configure))[ \t]*\([ \t]*["'](?P<secret>` + value + `)["'][ \t]*[,)]`
}

func nearPattern(vendors []string, value string) string {
	quoted := make([]string, len(vendors))
	for i, v := range vendors {
		quoted[i] = regexp.QuoteMeta(v)
	}
	return `(?i:` + strings.Join(quoted, "|") + `)` + nearGap + `(?P<secret>` + value + `)` + nearEnd
}

// tokOrNear is a rule with both forms: a prefixed token anywhere,
// or a bare value next to the vendor's name.
func tokOrNear(id, title string, sev finding.Severity, where string, prefixes []string, tok string, vendors []string, value string) Rule {
	r := near(id, title, sev, where, vendors, value)
	r.CSKeywords = prefixes
	r.Pattern = `\b(?P<secret>` + tok + `)` + tokEnd + `|` + r.Pattern
	return r
}

// VendorRules are the credentials of one vendor each: the families
// gitleaks documents, written from each vendor's published token format.
// Severity follows the policy above: critical for cloud, payment, crypto
// exchange and secret-store credentials; high for API tokens within one
// service; medium for read-only or webhook-like tokens.
// All are CWE-798 except the age identity (CWE-321).
func VendorRules() []Rule {
	crit, high, med := finding.Critical, finding.High, finding.Medium
	tok, near, both := tok, near, tokOrNear
	uuid := uuidPattern
	age := tok("age-secret-key", "age encryption identity (secret key)", crit, "your key store: generate a new identity with age-keygen, re-encrypt the files to its recipient",
		// PQ-: the post-quantum hybrid identity (ML-KEM-768 with X25519).
		[]string{"AGE-SECRET-KEY-1", "AGE-SECRET-KEY-PQ-1"}, `AGE-SECRET-KEY-(?:PQ-)?1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`)
	age.CWE = "CWE-321"
	// MessageBird's client ID is a UUID the vendor's rules report as a
	// credential, though its name ends in "ID": the nested form, which
	// takes a UUID named *ID for an identifier, does not apply.
	messagebirdClientID := near("messagebird-client-id", "MessageBird client ID", med, "the MessageBird dashboard (Developers > API access)",
		[]string{"messagebird", "message-bird", "message_bird"}, uuid)
	messagebirdClientID.Nested = ""
	grafana := both("grafana-token", "Grafana API key, Cloud or service account token", high, "Grafana (Administration > Service accounts / API keys)",
		[]string{"eyJrIjoi", "glc_", "glsa_"}, `eyJrIjoi[A-Za-z0-9]{70,400}={0,3}|glc_[A-Za-z0-9+/]{32,400}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`,
		[]string{"grafana"}, `glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`)
	grafana.Validate = "NotPowerBI"
	// A legacy service token (s. + 24) is a token only where a token is
	// assigned or passed (VAULT_TOKEN=, token:, SetToken("...")), and
	// only when it mixes cases and digits: s.makeKubeConfigController is
	// code.
	vault := both("vault-token", "HashiCorp Vault token", crit, "Vault (vault token revoke) and review the audit log",
		[]string{"hvs.", "hvb.", "hvr."}, `hv[sbr]\.[A-Za-z0-9_-]{24,400}`, []string{"vault", "token"}, `s\.[A-Za-z0-9]{24,40}`)
	vault.Validate = "VaultToken"
	vault.Prefilter = "HasVaultShape"
	// An access key is an access ID (su + 12) and a 64-character key; the
	// ID alone opens nothing, but it is half the pair and names the
	// account. Both mix cases and digits (sumOfExposures is code).
	// A legacy token is 24 random letters and digits; 24 letters without a
	// digit next to the vendor's name are a camelCase identifier
	// (searchConfluenceUsingCql), which MixedToken turns away.
	atlassian := near("atlassian-api-token-legacy", "Atlassian / Jira / Confluence API token", high, "id.atlassian.com (Security > API tokens)",
		[]string{"atlassian", "confluence", "jira"}, `[A-Za-z0-9]{24}`)
	atlassian.Validate = "MixedToken"
	sumo := near("sumologic-token", "Sumo Logic access ID or key", high, "Sumo Logic (Preferences > Access keys)", []string{"sumo"}, `[A-Za-z0-9]{64}|su[A-Za-z0-9]{12}`)
	sumo.Validate = "MixedToken"
	// The gem-server credentials are two 8-hex halves that Contributed
	// Systems hands out per customer; BUNDLE_..._CONTRIBSYS__COM names them,
	// so the value needs no entropy (gitleaks' own examples are
	// cafebabe:deadbeef).
	sidekiq := near("sidekiq-credentials", "Sidekiq Pro/Enterprise gem server credentials", high, "Contributed Systems (ask for new credentials)",
		[]string{"contribsys"}, `[a-f0-9]{8}:[a-f0-9]{8}`)
	sidekiq.MinEntropy = 0
	// A legacy API key is key + 14; gitleaks' sample generator writes 17
	// lower-case letters and digits next to the name, which words run
	// together (marketingcalendar) also are.
	airtable := near("airtable-api-key", "Airtable API key or personal access token", high, "Airtable (Developer hub > Personal access tokens)",
		[]string{"airtable"}, `pat[A-Za-z0-9]{14}\.[a-f0-9]{64}|key[A-Za-z0-9]{14}|[a-z0-9]{17}`)
	airtable.Validate = "NotLowerCaseWords"
	braintreeTokenizationKey := tok("braintree-tokenization-key", "Braintree tokenization key", med, "the Braintree Control Panel (Settings > API > Tokenization keys)",
		[]string{"production_", "sandbox_"}, `(?:production|sandbox)_[a-z0-9]{8}_[a-z0-9]{16}`)
	braintreeTokenizationKey.Validate = "NotLowerCaseWords"
	return []Rule{
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
		// An AppRole's secret ID is the role's password (role_id is its
		// user name; secret_id_accessor a handle that opens nothing): a
		// UUID under a name that ends in secret_id, as Vault prints it,
		// `vault write auth/approle/login` takes it and agents keep it.
		{ID: "vault-approle-secret-id", Title: "HashiCorp Vault AppRole secret ID", Severity: crit, CWE: "CWE-798",
			Remediation: "Destroy the secret ID (vault write auth/approle/role/<role>/secret-id/destroy secret_id=...) and deliver new ones response-wrapped to the process that logs in, never through a file in a repository.",
			Keywords:    []string{"secret_id", "secretid", "secret-id"},
			Pattern:     `(?i)secret[_-]?id["'\]]?[ \t]*(?::=|=>|[:=])[ \t]*["']?(?P<secret>` + uuidPattern + `)` + nearEnd,
			// The full placeholder check: a UUID written by hand in a test
			// (87654321-4321-4321-...) repeats its chunks.
			MinEntropy: 3},
		tok("hashicorp-terraform-token", "Terraform Cloud / Enterprise API token", high, "Terraform Cloud (User settings > Tokens)",
			[]string{".atlasv1."}, `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`),
		// Tailscale keys name their kind (tskey-auth-, tskey-api-, ...),
		// then a key ID and the secret.
		tok("tailscale-key", "Tailscale auth, API, OAuth client, SCIM or webhook key", crit, "the Tailscale admin console (Settings > Keys: revoke the key)",
			[]string{"tskey-"}, `tskey-(?:api|auth|client|scim|webhook)-[0-9A-Za-z_]{6,}-[0-9A-Za-z_]{12,}`),
		tok("castai-api-key", "CAST AI API key", high, "the CAST AI console (API > API access keys)", []string{"castai_v1_"}, `castai_v1_[A-Za-z0-9]{64}_[A-Za-z0-9]{8}`),
		tok("supabase-access-token", "Supabase personal access token", crit, "the Supabase dashboard (Account > Access Tokens)", []string{"sbp_"}, `sbp_[a-f0-9]{40}`),
		// A self-hosted integration runtime key is IR@<GUID>@<factory>@<region>@<base64 key>.
		tok("azure-data-factory-shir-key", "Azure Data Factory self-hosted integration runtime key", crit, "the Data Factory studio (Manage > Integration runtimes > Regenerate key)",
			[]string{"IR@"}, `IR@[0-9A-Za-z-]{36}@[^@\s"']{1,90}@[0-9A-Za-z=-]{0,40}@[A-Za-z0-9+/]{43}=`),
		tok("doppler-token", "Doppler token", crit, "the Doppler dashboard (Access > Tokens)",
			[]string{"dp.pt.", "dp.st.", "dp.ct.", "dp.sa.", "dp.scim.", "dp.audit."}, `dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}`),
		// Azure AI services (Cognitive Services, OpenAI) keys before the
		// common annotated format, and API Management's subscription keys,
		// are 32 hex digits: theirs only under their names or header.
		near("azure-ai-services-key", "Azure AI services (Cognitive Services, OpenAI) or API Management subscription key", high,
			"the resource's Keys and Endpoint (or the APIM subscription) > Regenerate",
			[]string{"azure_openai", "azureopenai", "azure-openai", "cognitive_services", "cognitiveservices", "ocp-apim-subscription-key"}, `[a-f0-9]{32}`),
		{ID: "azure-ad-client-secret", Title: "Microsoft Entra ID (Azure AD) client secret", Severity: crit, CWE: "CWE-798",
			Remediation: revokeIn("the Azure portal (App registrations > Certificates & secrets) and prefer managed identities or certificates"),
			CSKeywords:  []string{"Q~"}, Pattern: `(?:^|[^A-Za-z0-9_~.-])(?P<secret>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})(?:[^A-Za-z0-9_~.-]|$)`,
			MinEntropy: 3.5},
		// STS. IDs are the temporary ones AssumeRole hands out, with a
		// secret and a CAIS... security token beside them.
		tok("alibaba-access-key-id", "Alibaba Cloud AccessKey ID", crit, "the Alibaba Cloud RAM console (AccessKey management)",
			[]string{"LTAI", "STS."}, `LTAI[A-Za-z0-9]{12,20}|STS\.[A-Za-z0-9]{16,64}`),
		near("alibaba-secret-key", "Alibaba Cloud AccessKey secret", crit, "the Alibaba Cloud RAM console (AccessKey management)",
			[]string{"alibaba", "aliyun", "alicloud"}, `[A-Za-z0-9]{30}`),
		both("yandex-cloud-key", "Yandex Cloud credential", crit, "the Yandex Cloud console (service account keys)",
			[]string{"AQVN", "t1."}, `AQVN[A-Za-z0-9_-]{35,38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}`,
			[]string{"yandex"}, `YC[A-Za-z0-9_-]{38}`),
		tok("databricks-token", "Databricks personal access token", high, "the Databricks workspace (User settings > Developer > Access tokens)",
			[]string{"dapi"}, `dapi[a-f0-9]{32}(?:-[0-9])?`),
		both("cloudflare-api-key", "Cloudflare API token or key", crit, "the Cloudflare dashboard (My Profile > API Tokens)",
			// An Origin CA key ("User Service Key") always opens with v1.0-
			// and "may vary in length": 24 and 146 hex, or the 64, 128 and
			// 64 of the API reference's example.
			[]string{"v1.0-"}, `v1\.0-[a-f0-9]{24,64}-[a-f0-9]{128,146}(?:-[a-f0-9]{64})?`,
			[]string{"cloudflare", "cf_api", "cf-api"}, `[a-f0-9]{37}|[A-Za-z0-9_-]{40}`),
		// Every token created or rolled since Cloudflare's scannable formats:
		// cfk_ (Global API Key), cfut_ (user), cfat_ (account), then 40
		// letters and digits and a checksum (8 lower-case hex).
		tok("cloudflare-api-token", "Cloudflare API token or Global API Key", crit, "the Cloudflare dashboard (My Profile > API Tokens, or Manage Account > API Tokens)",
			[]string{"cfk_", "cfut_", "cfat_"}, `cf(?:k|ut|at)_[A-Za-z0-9]{40}[a-f0-9]{8}`),
		tok("openshift-user-token", "OpenShift user token", high, "OpenShift (oc delete oauthaccesstoken)",
			[]string{"sha256~"}, `sha256~[A-Za-z0-9_-]{43}`),
		// flyctl prints a token as "FlyV1 " and its macaroons joined by commas.
		tok("flyio-token", "Fly.io access token", high, "Fly.io (fly tokens revoke)",
			[]string{"fo1_", "fm1_", "fm2_", "fm1a_", "fm1r_", "fm2a_", "fm2r_", "FlyV1 "},
			`fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}|FlyV1 [A-Za-z0-9=_,/+-]{100,}`),
		tok("circleci-token", "CircleCI personal or project API token", high, "CircleCI (User settings > Personal API Tokens, or Project settings > API Permissions)",
			[]string{"CCIPAT_", "CCIPRJ_"}, `CCIP(?:AT|RJ)_[A-Za-z0-9]{22}_[a-f0-9]{40}`),
		near("gumroad-access-token", "Gumroad access token", high, "Gumroad (Settings > Advanced > Applications: revoke the token)",
			[]string{"gumroad"}, `[a-f0-9]{64}|[A-Za-z0-9-]{43}`),
		// Vercel's prefixed tokens: personal (vcp_), integration (vci_), app
		// access and refresh (vca_, vcr_) and AI Gateway keys (vck_).
		tok("vercel-token", "Vercel access token or AI Gateway key", high, "Vercel (Account Settings > Tokens, or the integration's or AI Gateway's keys)",
			[]string{"vcp_", "vci_", "vca_", "vcr_", "vck_"}, `vc[pikar]_[A-Za-z0-9_-]{56}`),
		tok("cockroachdb-cloud-api-key", "CockroachDB Cloud API key", crit, "the CockroachDB Cloud console (Organization > Access management > Service accounts: delete the key)",
			[]string{"CCDB1_"}, `CCDB1_[A-Za-z0-9]{22}_[A-Za-z0-9]{40}`),
		// ConfigCat SDK keys read a config's flags and targeting rules
		// (user attributes, segment lists); the v2 form carries its prefix.
		both("configcat-sdk-key", "ConfigCat SDK key", med, "the ConfigCat dashboard (SDK Keys: add a secondary key, then delete the old one)",
			[]string{"configcat-sdk-1/"}, `configcat-sdk-1/[A-Za-z0-9_-]{22}/[A-Za-z0-9_-]{22}`,
			[]string{"configcat"}, `[A-Za-z0-9_-]{22}/[A-Za-z0-9_-]{22}`),
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
		tok("elastic-serverless-api-key", "Elastic Cloud Serverless API key", high, "Elastic Cloud (project > API keys)", []string{"essu_"}, `essu_[A-Za-z0-9+/]{60,300}={0,2}`),
		// Docker swarm join tokens (worker or manager: either joins a node
		// to the cluster) and the autolock key that unlocks a manager's Raft log.
		tok("docker-swarm-token", "Docker swarm join token or unlock key", crit, "the swarm (docker swarm join-token --rotate worker|manager; docker swarm unlock-key --rotate)",
			[]string{"SWMTKN-1-", "SWMKEY-1-"}, `SWMTKN-1-[a-z0-9]{50,60}-[a-z0-9]{24,30}|SWMKEY-1-[A-Za-z0-9+/]{40,50}`),
		// DeepL's free-plan keys end in :fx; Pro keys are the bare UUID, next
		// to deepl.
		both("deepl-api-key", "DeepL API key", high, "DeepL (Account > API keys)",
			[]string{":fx"}, uuid+`:fx`, []string{"deepl"}, uuid+`(?::fx)?`),
		near("falai-api-key", "fal.ai API key", high, "fal.ai (Dashboard > Keys)",
			[]string{"fal_key", "fal.ai", "fal-api", "fal_api", "falai", "fal-key"}, uuid+`:[a-f0-9]{32}`),
		near("ollama-api-key", "Ollama API key", high, "ollama.com (Settings > Keys)",
			[]string{"ollama"}, `[a-f0-9]{32}\.[A-Za-z0-9_-]{24}`),
		// Unleash: personal access tokens user:<hex>, API tokens
		// project:environment.<hex> (* for every project).
		near("unleash-api-token", "Unleash API or personal access token", high, "Unleash (Admin > API access, or Profile > Personal API tokens)",
			[]string{"unleash"}, `(?:\*|[A-Za-z0-9_-]{1,64}):(?:[A-Za-z0-9_-]{1,64}\.)?[a-f0-9]{56,64}`),
		// Personal access tokens of Jira, Confluence, Bitbucket and Bamboo Data
		// Center are base64 of a 12-digit ID, a colon and random bytes: the
		// first 17 characters can only be those of digits and a colon.
		{ID: "atlassian-datacenter-pat", Title: "Atlassian Data Center personal access token (Jira, Confluence, Bitbucket, Bamboo)", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("the product's profile (Personal access tokens > Revoke)"),
			Keywords:    []string{"pat", "token", "jira", "confluence", "wiki", "bitbucket", "bamboo", "atlassian", "bearer"},
			Pattern:     `(?:^|[^A-Za-z0-9+/])((?:[MNO][DTjz][AEIMQUYcgk][w-z0-5]){4}O[A-Za-z0-9+/]{27})(?:[^A-Za-z0-9+/=]|$)`,
			MinEntropy:  3, VendorFormat: true},
		tok("scalingo-token", "Scalingo API token", high, "Scalingo (User settings > API tokens)", []string{"tk-us-"}, `tk-us-[A-Za-z0-9_-]{48}`),
		tok("defined-networking-token", "Defined Networking API token", high, "the Defined Networking admin panel", []string{"dnkey-"}, `dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}`),
		tok("planetscale-token", "PlanetScale token or password", high, "PlanetScale (Organization settings > Service tokens / branch passwords)",
			[]string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"}, `pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}`),
		// Chief Tools personal access, access and refresh tokens.
		tok("chieftools-token", "Chief Tools token", high, "Chief Tools (Account > API tokens)", []string{"ctp_", "cto_", "ctr_"}, `ct[por]_[A-Za-z0-9]{30,248}`),
		tok("prefect-api-key", "Prefect Cloud API key", high, "Prefect Cloud (Profile > API keys)", []string{"pnu_"}, `pnu_[A-Za-z0-9]{36}`),
		tok("harness-token", "Harness API token", high, "Harness (My profile > API keys)", []string{"pat.", "sat."},
			`(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}`),
		tok("dynatrace-token", "Dynatrace API token", high, "Dynatrace (Access tokens)", []string{"dt0c01."}, `dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`),
		{ID: "clickhouse-cloud-api-secret", Title: "ClickHouse Cloud API key secret", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("the ClickHouse Cloud console (Organization > API keys)"),
			CSKeywords:  []string{"4b1d"}, Pattern: `\b(4b1d[A-Za-z0-9]{38})` + tokEnd, MinEntropy: 3.5, Validate: "NotHex"},
		tok("settlemint-token", "SettleMint access token", high, "the SettleMint console (API keys)",
			[]string{"sm_aat_", "sm_pat_", "sm_sat_"}, `sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}`),
		{ID: "authress-access-key", Title: "Authress service client access key", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("the Authress management portal (Service clients)"),
			CSKeywords:  []string{".acc_", ".acc-"}, Pattern: `\b((?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120})` + tokEnd, MinEntropy: 3.5},

		// ---- source hosting, CI and package registries ----
		tok("gitlab-token", "GitLab token (CI job, feed, mail, agent, OAuth, SCIM, runner registration)", high, "GitLab (the token's settings page) and review the audit events",
			[]string{"glcbt-", "glffct-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-", "GR1348941"},
			`glcbt-[0-9A-Za-z]{1,5}_[0-9A-Za-z_-]{20}|glffct-[0-9A-Za-z_-]{20}|glft-[0-9A-Za-z_-]{20}|glimt-[0-9A-Za-z_-]{25}|glagent-[0-9A-Za-z_-]{50}|gloas-[0-9A-Za-z_-]{64}|glsoat-[0-9A-Za-z_-]{20}|GR1348941[0-9A-Za-z_-]{20}`),
		{ID: "gitlab-session-cookie", Title: "GitLab session cookie", Severity: high, CWE: "CWE-798",
			Remediation: "Sign the session out (User settings > Active sessions > Revoke).",
			Keywords:    []string{"_gitlab_session"}, Pattern: `_gitlab_session=([0-9a-z]{32})\b`, MinEntropy: 3},
		near("bitbucket-client-secret", "Bitbucket OAuth consumer secret", high, "Bitbucket (Workspace settings > OAuth consumers)",
			[]string{"bitbucket"}, `[A-Za-z0-9=_-]{64}`),
		atlassian,
		// Tokens from before the sgp_ prefix are 40 hex characters, in either
		// case, named by the vendor.
		both("sourcegraph-token", "Sourcegraph access token", high, "Sourcegraph (Settings > Access tokens)",
			[]string{"sgp_"}, `sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}`, []string{"sourcegraph"}, `[a-fA-F0-9]{40}`),
		// Segment's Public API tokens share the prefix; 64 letters and digits
		// tell them from Sourcegraph's hex.
		tok("segment-public-api-token", "Segment Public API token", high, "Segment (Settings > Workspace settings > Access management > Tokens)", []string{"sgp_"}, `sgp_[A-Za-z0-9]{64}`),
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
		nugetAPIKeyRule(),
		{ID: "nuget-config-password", Title: "Clear-text password in NuGet configuration", Severity: high, CWE: "CWE-259",
			Remediation: "Change the feed password or token and store it encrypted (nuget sources add -StorePasswordInClearText is the problem) or in an environment variable referenced from NuGet.Config.",
			// Password is the DPAPI-encrypted form; a value that is not a
			// DPAPI blob there is clear text all the same.
			Keywords: []string{"cleartextpassword", `key="password"`}, Pattern: `(?i)key\s*=\s*"(?:ClearText)?Password"\s+value\s*=\s*"([^"]{4,})"`,
			VendorFormat: true, Validate: "NuGetPassword"},
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
		{ID: "new-relic-license-key", Title: "New Relic license key (legacy format)", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("New Relic (API keys: delete the license key and create a new one)"),
			// The 40-hex license key predates the NRAL suffix; newrelic.yml
			// and its environment-variable form name it license_key.
			Keywords: []string{"license_key"}, FileContext: []string{"newrelic", "new relic", "new_relic"},
			Pattern: `(?i)license_key["']?[ \t]*[:=][ \t]*["']?([a-f0-9]{40})` + nearEnd, MinEntropy: 3},
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
		airtable,
		near("algolia-api-key", "Algolia admin API key", high, "the Algolia dashboard (Settings > API keys)", []string{"algolia"}, `[a-f0-9]{32}`),
		near("contentful-token", "Contentful API token", med, "Contentful (Settings > API keys)", []string{"contentful"}, `[A-Za-z0-9=_-]{43}`),
		near("discord-client-secret", "Discord client secret or API token", high, "the Discord Developer Portal (OAuth2 > Reset Secret)",
			[]string{"discord"}, `[a-f0-9]{64}|[A-Za-z0-9_-]{32}`),
		both("telegram-bot-token", "Telegram bot token", high, "@BotFather (/revoke)",
			[]string{":AA"}, `[0-9]{5,16}:AA[A-Za-z0-9_-]{32,33}`, []string{"telegram", "tgbot"}, `[0-9]{5,16}:A[A-Za-z0-9_-]{34}`),
		near("messagebird-api-key", "MessageBird API key", high, "the MessageBird dashboard (Developers > API access)",
			[]string{"messagebird", "message-bird", "message_bird"}, `[A-Za-z0-9]{25}`),
		messagebirdClientID,
		near("twilio-api-key-secret", "Twilio API key secret", high, "the Twilio Console (Account > API keys: delete the key)", []string{"twilio"}, `[A-Za-z0-9]{32}`),
		near("sendbird-token", "Sendbird API token", high, "the Sendbird dashboard (Settings > General > API tokens)", []string{"sendbird"}, `[a-f0-9]{40}`),
		// Resend: re_, 8 base58 characters, _, 24 base58 characters.
		tok("resend-api-key", "Resend API key", high, "Resend (API Keys)", []string{"re_"}, `re_[1-9A-HJ-NP-Za-km-z]{8}_[1-9A-HJ-NP-Za-km-z]{24}`),
		tok("brevo-api-key", "Brevo (Sendinblue) API or SMTP key", high, "Brevo (SMTP & API > API keys)",
			[]string{"xkeysib-", "xsmtpsib-"}, `x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}`),
		{ID: "mailchimp-api-key", Title: "Mailchimp API key", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("Mailchimp (Profile > Extras > API keys)"),
			CSKeywords:  []string{"-us1", "-us2", "-us3", "-us4", "-us5", "-us6", "-us7", "-us8", "-us9"},
			Pattern:     `\b([a-f0-9]{32}-us[0-9]{1,2})\b`, MinEntropy: 3},
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
		near("jenkins-api-token", "Jenkins API token", high, "Jenkins (the user's Configure page > API Token: revoke)", []string{"jenkins"}, `11[0-9a-f]{32}`),
		// A device's access token is the path segment of ThingsBoard's
		// device API (HTTP and CoAP): the URL alone is the credential.
		{ID: "thingsboard-access-token", Title: "ThingsBoard device access token", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("ThingsBoard (Devices > the device > Manage credentials)"),
			Keywords:    []string{"thingsboard"},
			Pattern:     `(?i:thingsboard)[\w.-]*(?::[0-9]{1,5})?/api/v1/(?P<secret>[A-Za-z0-9]{20})/(?i:telemetry|attributes|rpc|claim)`,
			MinEntropy:  3, VendorFormat: true},
		// A bootstrap token joins a node to the cluster. Its format is
		// generic, so it needs kubeadm's words on the line, and it keeps the
		// full placeholder check: kubeadm's documentation writes
		// abcdef.0123456789abcdef.
		{ID: "kubernetes-bootstrap-token", Title: "Kubernetes bootstrap token", Severity: high, CWE: "CWE-798",
			Remediation: "Delete the token (kubeadm token delete <id>) and create a short-lived one when a node joins (kubeadm token create --ttl).",
			Keywords:    []string{"kubeadm", "--token", "bootstrap"},
			Pattern:     `(?i:kubeadm|--token|bootstrap)[^\n]*?\b(?P<secret>[a-z0-9]{6}\.[a-z0-9]{16})(?:[^\w.]|$)`,
			MinEntropy:  3},
		// A WireGuard key is 32 bytes in base64; the PublicKey beside it is
		// public.
		{ID: "wireguard-private-key", Title: "WireGuard private or preshared key", Severity: crit, CWE: "CWE-321",
			Remediation: "Generate a new key (wg genkey, wg genpsk), update the peers' PublicKey, and load the key from a file outside the repository (PostUp = wg set %i private-key <file>).",
			Keywords:    []string{"privatekey", "presharedkey"},
			Pattern:     `(?i)^[ \t]*(?:PrivateKey|PresharedKey)[ \t]*=[ \t]*(?P<secret>[A-Za-z0-9+/]{43}=)(?:\s|$)`,
			MinEntropy:  3, VendorFormat: true},
		near("twitter-token", "Twitter / X API key, secret or token", high, "the X developer portal (Keys and tokens > Regenerate)",
			[]string{"twitter"}, `A{21}[A-Za-z0-9%]{80,101}|[0-9]{15,25}-[A-Za-z0-9]{20,40}|[A-Za-z0-9]{50}|[A-Za-z0-9]{45}|[A-Za-z0-9]{35}|[A-Za-z0-9]{25}`),
		both("facebook-token", "Facebook / Meta access token or app secret", high, "Meta for Developers (App settings > Basic > App secret reset; Access token debugger)",
			// Graph API Explorer tokens (EAACEdEose0cBA...) are shorter than
			// app and page tokens.
			[]string{"EAAB", "EAAC", "EAAD", "EAAG", "EAAM", "EAAU"}, `EAACEdEose0cBA[A-Za-z0-9]{20,}|EAA[BCDGMU][A-Za-z0-9]{80,}`,
			// fbApiKey, FB_CLIENT_SECRET: the short name prefixes the credential's.
			// An app access token is the app ID and a token joined by a pipe
			// (URL-encoded as %7C).
			[]string{"facebook", "fb_app", "fbapp", "fb-app", "fb_api", "fbapi", "fb_secret", "fbsecret", "fb_client", "fbclient", "fb-client"}, `[a-f0-9]{32}|[0-9]{15,16}(?:\||%7[Cc])[A-Za-z0-9_-]{27,40}`),
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
		{ID: "salesforce-access-token", Title: "Salesforce access token or session ID", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("Salesforce (Setup > Session Management > Remove, or revoke the connected app's OAuth tokens)"),
			// The org ID (00D + 12 or 15 characters), "!", then the session part.
			CSKeywords: []string{"00D"}, Pattern: `\b(00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,})` + tokEnd, MinEntropy: 3.5},
		tok("adobe-client-secret", "Adobe client secret", high, "the Adobe Developer Console (Credentials > Retrieve client secret > Rotate)", []string{"p8e-"}, `p8e-[A-Za-z0-9-]{32}`),

		// ---- AI APIs ----
		tok("perplexity-api-key", "Perplexity API key", high, "Perplexity (Settings > API)", []string{"pplx-"}, `pplx-[A-Za-z0-9]{48}`),
		near("kaggle-api-key", "Kaggle API key", high, "Kaggle (Settings > API > Expire API token)", []string{"kaggle"}, `[a-f0-9]{32}`),
		near("cohere-api-key", "Cohere API key", high, "the Cohere dashboard (API keys)", []string{"cohere", "co_api_key"}, `[A-Za-z0-9]{40}`),
		// LangSmith: personal access tokens (lsv2_pt_) and service keys
		// (lsv2_sk_), 32 hex, _, 10 hex.
		tok("langsmith-api-key", "LangSmith API key", high, "LangSmith (Settings > API Keys)", []string{"lsv2_pt_", "lsv2_sk_"}, `lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}`),
		tok("huggingface-org-token", "Hugging Face organization API token", high, "Hugging Face (Organization settings > API tokens)", []string{"api_org_"}, `api_org_[A-Za-z]{34}`),
		// Contentful's Content Management API personal access tokens.
		tok("contentful-pat", "Contentful personal access token", high, "Contentful (Settings > CMA tokens)", []string{"CFPAT-"}, `CFPAT-[A-Za-z0-9_-]{40,46}`),
		near("coze-api-token", "Coze personal access token", high, "Coze (Settings > Personal access tokens)", []string{"coze"}, `pat_[A-Za-z0-9]{64}`),
		// A record key is a UUID; `cypress run --record --key <key>` and
		// CYPRESS_RECORD_KEY= name it (a Cypress project ID is six characters).
		near("cypress-record-key", "Cypress Cloud record key", med, "Cypress Cloud (Project settings > Record keys)", []string{"cypress"}, uuid),
		near("baseten-api-key", "Baseten API key", high, "Baseten (Settings > API keys)", []string{"baseten"}, `[A-Za-z0-9]{8}\.[A-Za-z0-9]{32}`),
		// The App API key; the Track API key is 20 hex like the site ID
		// beside it, and nothing but the name tells them apart.
		near("customerio-api-key", "Customer.io App API key", high, "Customer.io (Settings > API credentials)",
			[]string{"customerio", "customer.io", "customer_io", "cio_app", "cio_api"}, `[a-f0-9]{32}`),
		// At least one letter: Eventbrite's event and order IDs are digits.
		near("eventbrite-token", "Eventbrite private token", high, "Eventbrite (Account settings > Developer links > API keys)", []string{"eventbrite"}, withLetter(20, "A-Z", "0-9")),
		// Alchemy's key is the last segment of its RPC URLs.
		{ID: "alchemy-api-key", Title: "Alchemy API key in an RPC URL", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("the Alchemy dashboard (Apps > API key)"),
			Keywords:    []string{"alchemy"}, Pattern: `alchemy(?:api\.io|\.com)/v2/([A-Za-z0-9_-]{32})\b`, MinEntropy: 3, VendorFormat: true},
		// A Mattermost incoming webhook: /hooks/ and the hook's 26-character
		// ID, on any host (servers are self-hosted), in a file that names
		// Mattermost.
		{ID: "mattermost-webhook-url", Title: "Mattermost incoming webhook URL", Severity: med, CWE: "CWE-798",
			Remediation: "Delete the webhook under Integrations > Incoming Webhooks and create a new one.",
			Keywords:    []string{"/hooks/"}, FileContext: []string{"mattermost"}, Pattern: `/hooks/([a-z0-9]{26})\b`, MinEntropy: 3, VendorFormat: true},
		tok("kolide-api-key", "Kolide API key", high, "Kolide (Settings > Developers > API Keys)", []string{"k2sk_v"}, `k2sk_v[0-9]_[A-Za-z0-9]{24}`),
		tok("groq-api-key", "Groq API key", high, "the GroqCloud console (API Keys)", []string{"gsk_"}, `gsk_[A-Za-z0-9]{48}(?:[A-Za-z0-9]{4})?`),
		tok("xai-api-key", "xAI API key", high, "the xAI console (API Keys)", []string{"xai-"}, `xai-[A-Za-z0-9]{80}`),
		tok("openrouter-api-key", "OpenRouter API key", high, "OpenRouter (Settings > Keys)", []string{"sk-or-"}, `sk-or-(?:v[0-9]+-)?[a-f0-9]{64}`),
		tok("pinecone-api-key", "Pinecone API key", high, "the Pinecone console (API keys)", []string{"pcsk_"}, `pcsk_[A-Za-z0-9]{5,6}_[A-Za-z0-9]{63}`),
		// A Claude Code session URL lets whoever opens it drive the session
		// remotely: the session ID in the path is the credential.
		{ID: "claude-code-session-url", Title: "Claude Code remote session URL", Severity: med, CWE: "CWE-798",
			Remediation: "End the session in Claude Code (it closes the remote-control link) and share sessions through the team's own channels, not in committed files.",
			Keywords:    []string{"claude.ai/code/session_"}, Pattern: `(?i:https?://claude\.ai/code/)(?P<secret>session_[A-Za-z0-9]{16,})` + tokEnd,
			MinEntropy: 3, VendorFormat: true},
		tok("replicate-api-token", "Replicate API token", high, "Replicate (Account settings > API tokens)", []string{"r8_"}, `r8_[A-Za-z0-9]{40}`),
		tok("togetherai-api-key", "Together AI API key", high, "Together AI (Settings > API Keys)", []string{"tgp_v1_"}, `tgp_v1_[A-Za-z0-9_-]{43}`),
		both("wandb-api-key", "Weights & Biases API key", high, "Weights & Biases (User settings > API keys)",
			[]string{"wandb_v1_"}, `wandb_v1_[A-Za-z0-9_]{77}`, []string{"wandb", "weightsandbiases"}, `[a-f0-9]{40}`),
		// Only personal keys (phx_): a project key (phc_) is written into
		// every page that loads PostHog and is public by design.
		tok("posthog-personal-api-key", "PostHog personal API key", high, "PostHog (Settings > Personal API keys)", []string{"phx_"}, `phx_[A-Za-z0-9_-]{41,49}`),
		// Devin: personal (apk_user_) and service (apk_) API keys, base64;
		// service user tokens (cog_), base32.
		tok("devin-api-key", "Devin API key or service user token", high, "Devin (Settings > API keys, or the service user's tokens)",
			[]string{"apk_", "cog_"}, `apk_user_[A-Za-z0-9+/]{120,180}={0,2}|apk_[A-Za-z0-9+/]{80,100}={0,2}|cog_[a-z2-7]{52}`),
		near("deepgram-api-key", "Deepgram API key", high, "the Deepgram console (Settings > API Keys)", []string{"deepgram"}, `[a-f0-9]{40}`),

		// ---- payment, commerce and crypto exchanges ----
		tok("flutterwave-secret-key", "Flutterwave secret or encryption key", high, "the Flutterwave dashboard (Settings > API keys > Regenerate)",
			[]string{"FLWSECK"}, `FLWSECK(?:_TEST)?-[a-h0-9]{32}-X|FLWSECK_TEST-?[a-h0-9]{12}`),
		both("square-token", "Square access token or OAuth secret", crit, "the Square Developer Dashboard (Credentials)",
			[]string{"sq0atp-", "sq0csp-", "EAAA"}, `sq0atp-[0-9A-Za-z_-]{22}|sq0csp-[0-9A-Za-z_-]{43}|EAAA[A-Za-z0-9_-]{60}`, []string{"square"}, `EAAA[A-Za-z0-9_-]{60}`),
		both("plaid-token", "Plaid access token or secret", crit, "the Plaid dashboard (Team settings > Keys) and rotate the item's access token",
			[]string{"access-sandbox-", "access-development-", "access-production-"}, `access-(?:sandbox|development|production)-`+uuid,
			[]string{"plaid"}, `[a-f0-9]{30}`),
		tok("shippo-token", "Shippo API token", high, "Shippo (Settings > API)", []string{"shippo_live_", "shippo_test_"}, `shippo_(?:live|test)_[a-f0-9]{40}`),
		tok("easypost-api-key", "EasyPost API key", high, "EasyPost (Account settings > API keys)", []string{"EZAK", "EZTK"}, `EZ[AT]K[A-Za-z0-9]{54}`),
		tok("duffel-token", "Duffel access token", high, "the Duffel dashboard (Developers > Access tokens)", []string{"duffel_test_", "duffel_live_"}, `duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`),
		{ID: "lob-api-key", Title: "Lob API key", Severity: high, CWE: "CWE-798",
			Remediation: revokeIn("the Lob dashboard (Settings > API keys)"),
			CSKeywords:  []string{"live_", "test_"}, Pattern: `\b` + nearPattern([]string{"lob"}, `(?:live|test)_(?:pub_)?[a-f0-9]{31,35}`),
			MinEntropy: 3, ModeWords: true},
		near("gocardless-token", "GoCardless access token", crit, "GoCardless (Developers > Access tokens)", []string{"gocardless"}, `live_[A-Za-z0-9_=-]{40}`),
		near("finicity-token", "Finicity API token or secret", high, "the Finicity developer dashboard", []string{"finicity"}, `[a-f0-9]{32}|[A-Za-z0-9]{20}`),
		near("coinbase-token", "Coinbase access token", crit, "Coinbase (Settings > API)", []string{"coinbase"}, `[A-Za-z0-9_-]{64}`),
		near("kraken-api-key", "Kraken API key or secret", crit, "Kraken (Security > API)", []string{"kraken"}, `[A-Za-z0-9/=_+-]{80,90}`),
		near("kucoin-api-key", "KuCoin API key or secret", crit, "KuCoin (API management)", []string{"kucoin"}, uuid+`|[a-f0-9]{24}`),
		near("bittrex-api-key", "Bittrex API key or secret", crit, "Bittrex (API keys)", []string{"bittrex"}, `[a-z0-9]{32}`),
		sidekiq,
		// A Braintree access token is access_token$<environment>$<merchant
		// ID>$<32 hex>; a tokenization key is <environment>_<8>_<16> and is
		// meant for client code, so it is reported at medium.
		tok("braintree-access-token", "Braintree access token", crit, "the Braintree Control Panel (Settings > API > revoke the access token) and PayPal's developer dashboard",
			[]string{"access_token$production$", "access_token$sandbox$"}, `access_token\$(?:production|sandbox)\$[a-z0-9]{16}(?:\$[a-f0-9]{32})?`),
		braintreeTokenizationKey,
		// An Adyen API key is AQE, a dot-separated body and a base64 tail;
		// a client key (test_ or live_ and 32 letters and digits) is meant
		// for the browser and means something only next to Adyen's name.
		tok("adyen-api-key", "Adyen API key", crit, "the Adyen Customer Area (Developers > API credentials > Generate new API key)",
			[]string{"AQE"}, `AQE[A-Za-z0-9]{5,}\.[A-Za-z0-9_=-]{50,80}`),
		near("adyen-client-key", "Adyen client key", med, "the Adyen Customer Area (Developers > API credentials > Client settings)",
			[]string{"adyen"}, `(?:test|live)_[A-Za-z0-9]{30,40}`),
		tok("mapbox-secret-token", "Mapbox secret access token", high, "Mapbox (Account > Access tokens)", []string{"sk.eyJ", "tk.eyJ"}, `[st]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`),
	}
}

// StructuredRules find credentials by the shape around them rather
// than by the token: any URL's user:password, curl's -u, HTTP
// authentication headers, Kubernetes Secret data, base64-wrapped JWTs and
// PKCS#12 key stores.
func StructuredRules() []Rule {
	high, med := finding.High, finding.Medium
	return []Rule{
		{ID: "url-credentials", Title: "Credentials embedded in a URL", Severity: high, CWE: "CWE-259",
			Remediation: "Change the password or token, and pass credentials to the client separately (a credential helper, .netrc outside the repository, environment variables) instead of in the URL.",
			Keywords:    []string{"://"}, Find: "URLCredentials"},
		{ID: "curl-basic-auth", Title: "Credentials passed to curl -u", Severity: high, CWE: "CWE-259",
			Remediation: "Change the password, and let curl read it from a .netrc outside the repository (--netrc-file) or from the environment instead of the command line.",
			// --user and "-u " find -u on a continuation line of a curl
			// command (reported there as well as on the command's line);
			// --proxy-user / -U are the proxy's credentials, as secret.
			Keywords: []string{"curl", "--user", "-u ", "--proxy-user"},
			// The second form is an API key given as the user name with an
			// empty password (-u sk_live_...:), as Stripe and others document.
			Pattern: `(?i)\bcurl\b[^\n]*?\s(?:-u[ \t]*|--(?:proxy-)?user(?:[ \t]+|=))(?:"[^"\s:]*"|'[^'\s:]*'|["']?[^\s"':]*):["']?(?P<secret>[^\s"']+)` +
				`|(?i)\bcurl\b[^\n]*?\s(?:-u[ \t]*|--(?:proxy-)?user(?:[ \t]+|=))["']?(?P<secret>[^\s"':$<{]{8,}):["']?(?:\s|$)`,
			Validate: "CurlPassword", Find: "CurlAuth"},
		{ID: "connection-string-password", Title: "Password in a database connection string", Severity: high, CWE: "CWE-259",
			Remediation: "Change the database password, and build the connection string at run time from a secret store (or use integrated/managed-identity authentication) instead of writing Password= into code or configuration.",
			Keywords:    []string{"password", "pwd"},
			Pattern:     `(?i)(?:^|[;"'\s])(?:password|pwd)[ \t]*=[ \t]*(?P<secret>[^;"'\s]+)`,
			Validate:    "ConnectionStringPassword"},
		{ID: "cli-password-flag", Title: "Password passed as a command-line flag", Severity: high, CWE: "CWE-259",
			Remediation: "Change the password, and give it to the tool on standard input (docker login --password-stdin), from a credential helper or from the environment: a flag's value is visible in the process list and the shell history.",
			Keywords: []string{"-password", "-passwd", "--pass ", "--pass=", "tlspassword", "sshpass", "mysql", "mariadb", "redis-cli", "http -a", "https -a", "http --auth", "https --auth",
				"schtasks", "net use", "net user", "net.exe", "cmdkey", "psexec", "/password:"},
			// -Password is the NuGet CLI's and PowerShell's spelling;
			// --http-password, --ftp-password, --proxy-password are wget's,
			// --tlspassword and --proxy-tlspassword curl's (TLS-SRP).
			Pattern: `(?i)(?:^|\s)(?:--(?:(?:http|ftp|proxy)-)?pass(?:word|wd)?|--(?:proxy-)?tlspassword|-pass(?:word|wd))(?:=|[ \t]+)["']?(?P<secret>[^\s"'$<{%(\x60-][^\s"'\x60]{3,})` +
				// sshpass -p, the MySQL clients' -p<password> (attached: a
				// bare -p prompts), redis-cli -a, HTTPie's -a/--auth user:pass.
				`|(?i)\bsshpass[ \t]+-p[ \t]*["']?(?P<secret>[^\s"'$<{%(\x60-][^\s"'\x60]{3,})` +
				`|(?i)\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?[ \t]-p(?P<secret>[^\s"'$<{%(\x60-][^\s"'\x60]{3,})` +
				`|(?i)\bredis-cli\b[^\n]*?[ \t]-a[ \t]+["']?(?P<secret>[^\s"'$<{%(\x60-][^\s"'\x60]{3,})` +
				`|(?im)^[ \t]*https?[ \t]+(?:[^\n]*?[ \t])?(?:-a|--auth)[ \t=]+["']?[^\s:"']+:(?P<secret>[^\s"'$<{%(\x60-][^\s"'\x60]{3,})` +
				// Windows' own commands in batch and PowerShell scripts:
				// schtasks /rp and /p, the password after the share or the
				// /user: of net use, net user NAME PASSWORD, cmdkey /pass:,
				// PsExec -p, wmic /password:. A * there prompts, a %VAR% or
				// $var comes from elsewhere, and /word is the next switch.
				// net is a word of prose too (".NET user ..."): it must
				// start a command.
				`|(?i)\bschtasks(?:\.exe)?\b[^\n]*?[ \t]/r?p[ \t]+["']?(?P<secret>[^\s"'$<{%(\x60*/-][^\s"'\x60]{3,})` +
				`|(?im)` + windowsCommandStart + `net(?:\.exe)?[ \t]+use\b[^\n]*?(?:[ \t]\\\\\S+|[ \t]/user:\S+)[ \t]+["']?(?P<secret>[^\s"'$<{%(\x60*/-][^\s"'\x60]{3,})` +
				`|(?im)` + windowsCommandStart + `net(?:\.exe)?[ \t]+user[ \t]+(?:"[^"\n]+"|[^\s/"]+)[ \t]+["']?(?P<secret>[^\s"'$<{%(\x60*/-][^\s"'\x60]{3,})` +
				`|(?i)\b(?:cmdkey(?:\.exe)?\b[^\n]*?[ \t]/pass|wmic(?:\.exe)?\b[^\n]*?[ \t]/password):["']?(?P<secret>[^\s"'$<{%(\x60*/-][^\s"'\x60]{3,})` +
				`|(?i)\bpsexec(?:64)?(?:\.exe)?\b[^\n]*?[ \t]-p[ \t]+["']?(?P<secret>[^\s"'$<{%(\x60*/-][^\s"'\x60]{3,})`,
			Validate: "NotPlaceholderPassword"},
		// A secret store's CLI given the value itself: it is then in shell
		// history and CI logs, and in the script that ran it. An SSM
		// parameter is a secret only when it is a SecureString.
		{ID: "secret-store-cli-value", Title: "Secret value given on a command line to a secret store", Severity: high, CWE: "CWE-798",
			Remediation: "Rotate the secret, and give it to the tool from a file or standard input (gh secret set < file, az keyvault secret set --file, aws ssm put-parameter --value file://...): a command line is kept in shell history, CI logs and the process list.",
			Keywords:    []string{"secret set", "put-parameter"},
			Pattern: `\bgh[ \t]+secret[ \t]+set\b[^\n]*?[ \t](?:--body|-b)(?:=|[ \t]+)?` + cliValue +
				`|\baz[ \t]+keyvault[ \t]+secret[ \t]+set\b[^\n]*?[ \t]--value(?:=|[ \t]+)` + cliValue +
				`|\baws[ \t]+ssm[ \t]+put-parameter\b[^\n]*?SecureString[^\n]*?[ \t]--value(?:=|[ \t]+)` + cliValue +
				`|\baws[ \t]+ssm[ \t]+put-parameter\b[^\n]*?[ \t]--value(?:=|[ \t]+)` + cliValue + `[^\n]*SecureString`,
			Validate: "NotPlaceholderPassword"},
		{ID: "network-credential-password", Title: "Password passed to a .NET credential constructor", Severity: high, CWE: "CWE-259",
			Remediation: "Change the password, and read it from configuration protected by DPAPI, a secret store or the environment instead of passing a literal to NetworkCredential/DirectoryEntry.",
			Keywords:    []string{"networkcredential", "directoryentry"},
			Pattern:     `(?i)\bNetworkCredential\s*\(\s*@?"[^"]*"\s*,\s*@?"(?P<secret>[^"]+)"|\bDirectoryEntry\s*\(\s*@?"[^"]*"\s*,\s*@?"[^"]*"\s*,\s*@?"(?P<secret>[^"]+)"`,
			Validate:    "NotPlaceholderPassword"},
		{ID: "netrc-password", Title: "Password in a .netrc file", Severity: high, CWE: "CWE-259",
			Remediation: "Change the password or token, and keep .netrc in the home directory (mode 0600), never in a repository; CI systems inject it at run time.",
			Keywords:    []string{"password"}, FileContext: []string{"machine"},
			Pattern:  `(?:^|[ \t])password[ \t]+(?P<secret>[^\s]+)`,
			Validate: "NetrcPassword"},
		{ID: "http-auth-header", Title: "Credential in an HTTP authentication header", Severity: high, CWE: "CWE-798",
			Remediation: "Revoke the token or change the password it encodes, and add the header at run time from the environment or a secret manager.",
			Keywords: []string{"authorization", "api-key", "x-auth-token", "private-token", "x-access-token", "apikey:", "-token:", "-key:", "--oauth2-bearer",
				`-h "token:`, `-h 'token:`, `--header "token:`, `--header 'token:`},
			// The first form takes any one-word scheme: vendors name their
			// own (AccessKey for MessageBird, SSWS for Okta, DeepL-Auth-Key).
			// The third form is a vendor's own header (X-Octopus-ApiKey:,
			// X-Figma-Token:, X-Vault-Token:) in HTTP syntax, name: value.
			// The fourth is a header given to curl (-H "Token: ...", -H
			// "apikey: ..."): the command line says it is a header, so a
			// bare Token or Key name is enough.
			Pattern: `(?i)\b(?:proxy-)?authorization["'\]]?[ \t]*[:,=][ \t]*["']?(?:(?:bearer|token|basic|apikey|api-key|api-token|sso-key|[a-z][a-z0-9-]{1,24})[ \t]+)?(?P<secret>[A-Za-z0-9._~+/=:@-]{12,})` + nearEnd +
				`|(?i)(?:^|\s)(?:-H|--header)[ \t=]*["'](?:x-(?:[a-z0-9]+-)*)?(?:api-?)?(?:key|token)[ \t]*:[ \t]*(?P<secret>[A-Za-z0-9._~+/=-]{8,})["']` +
				`|(?i)\b(?:x-)?(?:api-key|auth-token|access-token|private-token)["'\]]?[ \t]*[:,=][ \t]*["']?(?P<secret>[A-Za-z0-9._~+/=-]{16,})` + nearEnd +
				`|(?i)\bx-(?:[a-z0-9]+-)+(?:apikey|api-key|token|key)[ \t]*:[ \t]*(?P<secret>[A-Za-z0-9._~+/=-]{16,})` + nearEnd +
				// curl's --oauth2-bearer sends the token as a Bearer header.
				`|(?i)--oauth2-bearer[ \t=]+["']?(?P<secret>[A-Za-z0-9._~+/=-]{12,})` + nearEnd,
			Validate: "HeaderCredential"},
		{ID: "html-password-value", Title: "Password pre-filled in an HTML password field", Severity: high, CWE: "CWE-259",
			Remediation: "Change the password, and never render one into a page: leave the field empty for the user or a password manager to fill.",
			Keywords:    []string{"password"},
			// type= before value= or after it, in any case and quoting.
			// value= itself, not data-value= or ng-value=.
			Pattern: `(?i)<input\b[^>]*?\btype[ \t]*=[ \t]*["']?password\b[^>]*?[\s"']value[ \t]*=[ \t]*["'](?P<secret>[^"'<>]{4,})["']` +
				`|(?i)<input\b[^>]*?[\s"']value[ \t]*=[ \t]*["'](?P<secret>[^"'<>]{4,})["'][^>]*?\btype[ \t]*=[ \t]*["']?password\b`,
			Validate: "NotPlaceholderPassword"},
		// `vault operator init` prints the unseal keys (or, with
		// auto-unseal, the recovery keys): shares of the root key.
		{ID: "vault-unseal-key", Title: "HashiCorp Vault unseal or recovery key", Severity: finding.Critical, CWE: "CWE-321",
			Remediation: "Rekey Vault (vault operator rekey, or -target=recovery) so that every share changes, and leave the shares with their holders or in the auto-unseal KMS, never in a repository or a log.",
			Keywords:    []string{"unseal key", "recovery key", "operator unseal"},
			Pattern: `(?i)\b(?:unseal|recovery) key(?: \d+)?(?: \(hex\))?:[ \t]*(?P<secret>[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]|[a-f0-9]{66})(?:[^A-Za-z0-9+/=]|$)` +
				`|(?i)\boperator unseal(?:[ \t]+-[a-z-]+(?:=\S+)?)*[ \t]+["']?(?P<secret>[A-Za-z0-9+/]{43}[A-Za-z0-9+/=]|[a-f0-9]{66})(?:[^A-Za-z0-9+/=]|$)`},
		// Router and switch configurations (Cisco IOS and the many that
		// copy its syntax): type 0 or no type is clear text, type 7 a
		// reversible encoding; type 5, 8 and 9 are hashes ($1$..., $8$...),
		// which the validator turns away.
		{ID: "network-device-password", Title: "Password or key in a network device configuration", Severity: high, CWE: "CWE-259",
			Remediation: "Change the password, community or key on every device that shares it, and keep only hashed secrets (enable algorithm-type scrypt, SNMPv3) in configurations that are committed.",
			Keywords:    []string{"enable secret", "enable password", "snmp-server community", "pac key", "tacacs-server key", "radius-server key", "key-string", " password ", " secret "},
			// The commands are lower case, and a value of letters and
			// sentence punctuation alone is taken for prose ("enable
			// password authentication", "username and password login,").
			Pattern:  `(?m)^[ \t]*(?:enable (?:password|secret)(?:[ \t]+level[ \t]+\d+)?|username[ \t]+\S+(?:[ \t]+privilege[ \t]+\d+)?[ \t]+(?:password|secret)|snmp-server community|pac key|(?:tacacs|radius)-server key|key-string)(?:[ \t]+[07])?[ \t]+(?P<secret>[^\s"']*[^A-Za-z\s"'.,;:()][^\s"']*)`,
			Validate: "NotPlaceholderPassword"},
		// ASP.NET's machineKey signs and encrypts ViewState and forms
		// authentication tickets: whoever has it forges them (ViewState
		// deserialization is remote code execution).
		{ID: "aspnet-machine-key", Title: "ASP.NET machineKey validation or decryption key", Severity: finding.Critical, CWE: "CWE-321",
			Remediation: "Generate new keys (IIS Manager > Machine Key, or a random value per key) on every server that shares them, and keep them out of committed web.config (configuration builders, protected configuration).",
			Keywords:    []string{"validationkey", "decryptionkey"},
			Pattern:     `(?i)\b(?:validation|decryption)Key[ \t]*=[ \t]*["'](?P<secret>[A-Fa-f0-9]{32,256})["']`},
		{ID: "kubernetes-secret", Title: "Value in a Kubernetes Secret manifest", Severity: high, CWE: "CWE-798",
			Remediation: "Rotate the value, and keep Secret manifests out of the repository: create them at deploy time, or commit them encrypted (Sealed Secrets, SOPS) or as references to an external secret store.",
			FileContext: []string{"kind: secret", `kind: "secret"`, "kind: 'secret'", "secretgenerator:"},
			// The second form is the body of a block scalar (.dockercfg: |);
			// the third a literal of Kustomize's secretGenerator.
			Pattern: `(?m)^[ \t]+[A-Za-z0-9._-]+:[ \t]*["']?(?P<secret>[^\s"'#]{4,})["']?[ \t]*\r?$|(?m)^[ \t]+(?P<secret>[A-Za-z0-9+/]{16,}={0,2})[ \t]*\r?$` +
				`|(?m)^[ \t]*-[ \t]+["']?[A-Za-z_][A-Za-z0-9_.-]*=(?P<secret>[^\s"'#]{4,})["']?[ \t]*\r?$`,
			Validate: "KubernetesSecret"},
		// Wallet keys of Ethereum and other secp256k1 chains, test files
		// included: a development key committed today is a funded
		// deployer key after a copy to the wrong network.
		{ID: "ethereum-private-key", Title: "Hex-encoded private key (Ethereum wallet or other curve)", Severity: finding.Critical, CWE: "CWE-321",
			Remediation: "Move any funds and contract roles off the key's address to a new key, and load signing keys from a keystore, hardware wallet or secret manager instead of source.",
			Keywords:    []string{"key", "wallet", "account", "signer", "deployer", "mnemonic", "ecdsa", "credentials.create"}, Prefilter: "HasHexRun64", Find: "EthereumKeys"},
		// A BIP-39 recovery phrase derives every key of the wallet.
		{ID: "wallet-mnemonic", Title: "Wallet recovery phrase (BIP-39 mnemonic)", Severity: finding.Critical, CWE: "CWE-321",
			Remediation: "Move any funds and roles off every address the phrase derives to a wallet with a new phrase, and load it from a keystore, hardware wallet or secret manager instead of source.",
			Keywords:    []string{"mnemonic", "seed_phrase", "seed phrase", "seedphrase", "recovery_phrase", "recovery phrase", "secret_phrase"},
			Pattern:     `(?i)(?:mnemonic|seed[ _-]?phrase|recovery[ _-]?phrase|secret[ _-]?phrase)\w*["'\]]?[ \t]*(?::=|=>|=|:)[ \t]*(?:["'\x60](?P<secret>(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})["'\x60]|(?P<secret>(?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})[ \t;,]*$)`,
			Validate:    "Mnemonic"},
		// A registry login in Docker's config.json: auths.<host>.auth is
		// base64 of user:password; also when the JSON is itself a string
		// with its quotes escaped (DOCKER_AUTH_CONFIG in a CI runner's TOML,
		// a config.json value in YAML).
		{ID: "docker-config-auth", Title: "Registry credentials in a Docker config.json", Severity: finding.High, CWE: "CWE-259",
			Remediation: "Change the registry password or token, run docker logout, and use a credential helper (credsStore) instead of auths in config.json.",
			Keywords:    []string{`"auth"`, `auth\"`}, FileContext: []string{`"auths"`, `auths\"`},
			Pattern: `"auth\\{0,3}"[ \t]*:[ \t]*\\{0,3}"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})\\{0,3}"`, Validate: "DockerAuth"},
		// HTTP Basic credentials kept encoded under a name that says auth:
		// npm's _auth, "basic_auth", proxyAuth. The name alone is too
		// common (oauth, author) to be a keyword; the value must decode
		// to user:password.
		{ID: "base64-login", Title: "Encoded user:password under an auth key", Severity: finding.High, CWE: "CWE-259",
			Remediation: "Change the password, and read the credentials from the environment or a secret manager instead of keeping them encoded in the file.",
			Keywords:    []string{`auth"`, "auth'", "auth:", "auth=", "auth =", "auth :"},
			Pattern:     `(?i)[A-Za-z0-9_.-]*auth["']?[ \t]*(?::=|=>|=|:)[ \t]*["']?(?P<secret>[A-Za-z0-9+/]{12,}={0,2})` + nearEnd, Validate: "Base64Login"},
		// PostgreSQL's password file: hostname:port:database:username:password.
		{ID: "pgpass-password", Title: "Password in a PostgreSQL password file (.pgpass)", Severity: finding.High, CWE: "CWE-259",
			Remediation: "Change the database password, and keep .pgpass in the home directory (mode 0600), never in a repository.",
			FileNames:   []string{".pgpass", "pgpass", "pgpass.conf"},
			Pattern:     `(?m)^[^:#\s]+:(?:[0-9]+|\*):[^:\s]+:[^:\s]+:(?P<secret>[^\s]+)\r?$`, Validate: "NotPlaceholderPassword"},
		// Rails' credentials key decrypts config/credentials.yml.enc.
		{ID: "rails-master-key", Title: "Rails master key (decrypts the credentials file)", Severity: finding.Critical, CWE: "CWE-321",
			Remediation: "Rotate every credential in config/credentials.yml.enc (whoever has the key reads them all), create a new key with bin/rails credentials:edit, and pass it through RAILS_MASTER_KEY instead of the file.",
			FileNames:   []string{"master.key", "production.key", "staging.key", "development.key"},
			Pattern:     `(?m)^(?P<secret>[0-9a-f]{32})\r?$`, MinEntropy: 3},
		// curl's config file (~/.curlrc, curl -K file): user = "name:password".
		{ID: "curl-config-credentials", Title: "Credentials in a curl config file", Severity: finding.High, CWE: "CWE-259",
			Remediation: "Change the password, and keep curl's config file outside the repository or use --netrc-file with a .netrc kept in the home directory (mode 0600).",
			FileNames:   []string{".curlrc", "_curlrc", "curlrc"},
			Pattern:     `(?m)^[ \t]*-{0,2}(?:proxy-)?user[ \t]*[=:]?[ \t]*["']?[^\s"':]*:(?P<secret>[^\s"']+)["']?[ \t]*\r?$`, Validate: "CurlConfigPassword"},
		{ID: "jwt-base64", Title: "Base64-encoded JSON Web Token", Severity: med, CWE: "CWE-798",
			Remediation: "Invalidate it (rotate the signing key or revoke the session) if it has not expired, and never commit bearer tokens.",
			CSKeywords:  []string{"ZXlK"}, Pattern: `\b(ZXlK[A-Za-z0-9+/]{40,}={0,2})`, Validate: "Base64JWT"},
		// Produced by the walk from the file name alone (the file is binary).
		{ID: "pkcs12-file", Title: "PKCS#12 key store (.p12/.pfx)", Severity: high, CWE: "CWE-321",
			Remediation: "A PKCS#12 file holds a private key behind a password that can be attacked offline. Replace the key and certificate it holds, remove the file and purge it from history, and inject it at deploy time."},
	}
}

// nugetAPIKeyRule is a nuget.org API key: oy2 + 43, or 46 of the
// same alphabet next to "nuget" (nuget key = ..., nuget secret ...).
func nugetAPIKeyRule() Rule {
	r := tokOrNear("nuget-api-key", "NuGet API key", finding.High, "nuget.org (API Keys) and check recent package pushes",
		[]string{"oy2"}, `oy2[a-z0-9]{43}`, []string{"nuget"}, `[a-z0-9]{46}`)
	r.MinEntropy = 3.5
	r.Validate = "NotHex"
	return r
}
