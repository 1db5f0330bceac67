package rulebook

// The word lists of the placeholder, ciphertext and context checks of
// scan/secrets: data that grows with every corpus, kept beside the rules.

// WeakPasswordPlaceholders are whole values that stand for "put
// your password here" in documentation and templates. They are compared
// exactly (case-insensitively), unlike the markers: "Aa12345678" in a
// Terraform file is a real, weak password; "12345678" is a placeholder.
var WeakPasswordPlaceholders = map[string]bool{
	"password": true, "password1": true, "password123": true, "passw0rd": true, "p@ssw0rd": true, "p@ssword": true,
	"pass": true, "passwd": true, "pwd": true, "pw": true, "secret": true, "secret123": true, "mysecret": true, "mypassword": true,
	"123456": true, "1234567": true, "12345678": true, "123456789": true, "1234567890": true, "qwerty": true, "qwerty123": true,
	"abc123": true, "abcdef": true, "abcdefgh": true, "letmein": true, "admin": true, "admin123": true, "root": true, "toor": true,
	"tiger":    true, // Oracle's demo schema, scott/tiger
	"changeit": true, "foobar": true, "hunter2": true, "test123": true, "pass123": true, "default": true, "guest": true,
	"user": true, "username": true, "token": true, "opensesame": true, "open sesame": true,
	"aladdin:opensesame": true, "aladdin:open sesame": true, "apikey": true, "api_key": true, "none": true, "null": true, "nil": true, "empty": true, "true": true, "false": true,
}

// PlaceholderMarkers are substrings (lowercase) that mark a value as
// documentation, a template or a test fixture rather than a credential.
var PlaceholderMarkers = []string{
	"changeme", "change_me", "change-me", "changeit", "example", "dummy", "test", "sample",
	"placeholder", "redacted", "your", "xxxx", "****", "....", "fake", "replace", "insert",
	"todo", "fixme", "notreal", "not_real", "not-real", "${", "{{", "}}", "%s", "%v", "%d",
}

// DocumentedExamples are credentials published in vendor
// documentation: AWS's example key pair, the Azure Storage emulator
// (Azurite) account key, which every local-development setup contains, the
// Cosmos DB emulator's fixed key (learn.microsoft.com, "Azure Cosmos DB
// emulator": the same for every install), and the test key of Stripe's
// API reference.
var DocumentedExamples = []string{
	"AKIAIOSFODNN7EXAMPLE",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
	"C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
	"sk_test_4eC39HqLyjWDarjtT1zdp7dc", // Stripe's API reference, in every code sample
	// The Origin CA key (User Service Key) of Cloudflare's API reference,
	// copied into client libraries' READMEs and tests.
	"v1.0-e24fd090c02efcfecb4de8f4ff246fd5c75b48946fdf0ce26c59f91d0d90797b-cfa33fe60e8e34073c149323454383fc9005d25c9b4c502c2f063457ef65322eade065975001a0b4b4c591c5e1bd36a6e8f7e2d4fa8a9ec01c64c041e99530c2-07b9efe0acd78c82c8d9c690aacb8656d81c369246d7f996a205fe3c18e9254a",
	// OAuth 2.0's example credentials (RFC 6750 2.1-2.3, RFC 6749 4.1,
	// 4.4, 5.1, 6): the bearer token, access, refresh and authorization
	// codes, and the client s6BhdRkqt3 with its secret.
	"mF_9.B5f-4.1JqM", "2YotnFZFEjr1zCsicMWpAA", "tGzv3JOkF0XG5Qx2TlKWIA", "SplxlOBeZQQYbYS6WxSbIA",
	"czZCaGRSa3F0MzpnWDFmQmF0M2JW", "gX1fBat3bV", "8xLOxBtZp8",
	// The nuget.config reference's sample feed passwords
	// (learn.microsoft.com/nuget/reference/nuget-config-file).
	"33f!!lloppa", "hal+9ooo_da!sY",
	// The search-only Algolia key inside Yarn Berry's bundled release
	// (.yarn/releases/yarn-*.cjs, committed by every repository that pins
	// Yarn this way): public by design (yarnpkg/berry#6201).
	"6fe4476ee5a1832882e326b506d14126",
	// The swarm unlock keys and join tokens of Docker Engine's API
	// reference (every version of it, vendored with moby) and of the
	// docker CLI's reference (swarm init, join, join-token, unlock-key).
	"SWMKEY-1-7c37Cc8654o6p38HnroywCi19pllOnGtbdZEgtKxZu8",
	"SWMKEY-1-y6guTZNTwpQeTL5RhUfOsdBdXoQjiB2GADHSRJvbXeU", "SWMKEY-1-y6guTZNTwpQeTL5RhUfOsdBdXoQjiB2GADHSRJvbXeE",
	"SWMTKN-1-3pu6hszjas19xyp7ghgosyx9k8atbfcr8p2is99znpy26u2lkl-1awxwuwd3z9j1z3puu7rcgdbx",
	"SWMTKN-1-3pu6hszjas19xyp7ghgosyx9k8atbfcr8p2is99znpy26u2lkl-7p73s1dx5in4tatdymyhg9hu2",
	"SWMTKN-1-1h8aps2yszaiqmz2l3oc5392pgk8e49qhx2aj3nyv0ui0hez2a-6qmn92w6bu3jdvnglku58u11a",
	"SWMTKN-1-1h8aps2yszaiqmz2l3oc5392pgk8e49qhx2aj3nyv0ui0hez2a-8llk83c4wm9lwioey2s316r9l",
	// The Firebase SDKs' test-fixture API keys (firebase/firebase-android-sdk,
	// copied into the FlutterFire and other SDKs' tests and into their forks):
	// published, and allow-listed by gitleaks and other scanners alike.
	"AIzaSyabcdefghijklmnopqrstuvwxyz1234567", "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
	"AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM", "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
	"AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0", "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A",
	"AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c", "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4",
	"AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY", "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM",
	"AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ", "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g",
	"AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU", "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw",
	"AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE", "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY",
}

// FormatPlaceholderMarkers are the placeholder words that still
// count in a value of a vendor's exact format (secretsRule.vendorFormat).
var FormatPlaceholderMarkers = []string{
	"changeme", "change_me", "example", "dummy", "placeholder", "redacted", "your", "xxxx", "****", "....",
	"replace", "insert", "notreal", "not_real", "${", "{{", "}}",
}

// EncryptedPrefixes start values that are ciphertext, written to
// be committed: SOPS (ENC[AES256_GCM,data:...,iv:...,tag:...]), Windows
// DPAPI blobs (NuGet.Config's Password, .NET protected configuration),
// Ansible Vault, Jasypt (Spring Boot properties: ENC(base64)), Jenkins
// (credentials.xml and config.xml: {AQAAABAAAAAQ...}, a version byte and
// the lengths of IV and ciphertext before them).
var EncryptedPrefixes = []string{"ENC[AES256_GCM,", "ENC[", "ENC(", "AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAA", "$ANSIBLE_VAULT;", "{AQAAABAAAA"}

// ChainMarkers are words of Ethereum tooling and networks.
var ChainMarkers = []string{"ethers", "web3", "hardhat", "forge-std", "vm.addr", "eth_account", "solidity", "ethereum",
	"viem", "truffle", "ganache", "brownie", "anvil", "etherscan", "metamask", "infura", "alchemy", "sepolia", "goerli", "holesky", "mainnet", "chainid", "chain_id"}

// K8sNonSecretKeys are data keys of a Secret that name rather than
// hold a credential, and public material that Secrets often carry.
var K8sNonSecretKeys = map[string]bool{
	"username": true, "user": true, "host": true, "hostname": true, "port": true, "database": true, "db": true,
	"dbname": true, "namespace": true, "region": true, "url": true, "endpoint": true, "ca.crt": true, "tls.crt": true,
	"ca-bundle.crt": true, "service-ca.crt": true, "email": true, "login": true, "name": true,
}

// SequenceMarkers are keyboard and counting runs. In a value they
// usually mean an example ("abcdefgh12345678", "essu_abc123"), except in a password of a
// configuration or IaC file, where a weak password such as "Aa12345678" is
// still a real password: there only the exact dictionary
// (WeakPasswordPlaceholders) decides.
var SequenceMarkers = []string{"12345678", "abcdefgh", "qwerty", "abc123"}

// GooglePublicFileMarkers are what files that configure a client
// app say: a Firebase web config (authDomain), google-services.json
// (current_key beside project_info), GoogleService-Info.plist
// (GOOGLE_APP_ID). Their API keys identify the project to Google and ship
// inside every copy of the app: Google documents them as public
// (firebase.google.com/docs/projects/api-keys); restriction, not secrecy,
// protects them.
var GooglePublicFileMarkers = [][]byte{[]byte("authDomain"), []byte(`"current_key"`), []byte("GOOGLE_APP_ID")}

// GooglePublicLineMarkers are client-side loaders whose key is
// public by design: the Maps JavaScript API script URL, the Maps SDK
// for Android manifest entry and the Android string resources it reads
// (google_maps_key; google_api_key, which the google-services plugin
// writes).
var GooglePublicLineMarkers = [][]byte{[]byte("maps.googleapis.com/maps/api/js"), []byte("com.google.android.geo.API_KEY"),
	[]byte(`name="google_maps_key"`), []byte(`name="google_api_key"`)}

// NetrcKeywords are the tokens of a .netrc entry.
var NetrcKeywords = map[string]bool{"machine": true, "login": true, "password": true, "account": true, "port": true}

// EthereumKeyPattern is a 32-byte secp256k1 private key (64 hex, with
// or without 0x) where a key is expected: assigned to a name that says
// key, wallet, signer or account (PRIVATE_KEY =, ownerKey =,
// accounts: [...]), or passed to a wallet constructor (new
// ethers.Wallet("0x..."), Account.from_key(...), privateKeyToAccount(...),
// go-ethereum's crypto.HexToECDSA(...), web3j's Credentials.create(...),
// brownie's accounts.add(...)), or given to a command (cast send
// --private-key 0x...).
// Transaction hashes, block hashes and addresses have the same alphabet
// and sit under other names (txHash, GENESIS_HASH, token).
const EthereumKeyPattern = `(?i)(?:(?:priv(?:ate)?[_-]?keys?|key|pk|secret|mnemonic|signer|wallet|account|accounts|deployer)["'\]]?[ \t]*(?::=|=>|=|:)(?:[ \t]*[A-Za-z_][\w:<>]*[ \t]*=)?[ \t]*\[?[ \t]*|--private-?key[ \t=]+|(?:wallet|from_?key|fromprivatekey|privatekeytoaccount|signingkey|accounts?\.add|hextoecdsa|credentials\.create)[ \t]*\([ \t]*)["'\x60]?(?P<secret>(?:0x)?[0-9a-fA-F]{64})(?:[^0-9A-Za-z]|$)`

// LanguageCodes are the ISO 639-1 language codes and the ISO 639-2/3
// codes locale files are commonly named by (fil.json, yue.json): the first
// part of a catalogue's name (en.json, pt-BR.yml, zh_Hant_TW.json). A
// configuration file with a short name (app.yml, db.json, dev.ini) is not
// one, whatever its length.
var LanguageCodes = map[string]bool{
	"aa": true, "ab": true, "ae": true, "af": true, "ak": true, "am": true, "an": true, "ar": true, "as": true, "av": true, "ay": true, "az": true,
	"ba": true, "be": true, "bg": true, "bh": true, "bi": true, "bm": true, "bn": true, "bo": true, "br": true, "bs": true, "ca": true, "ce": true,
	"ch": true, "co": true, "cr": true, "cs": true, "cu": true, "cv": true, "cy": true, "da": true, "de": true, "dv": true, "dz": true, "ee": true,
	"el": true, "en": true, "eo": true, "es": true, "et": true, "eu": true, "fa": true, "ff": true, "fi": true, "fj": true, "fo": true, "fr": true,
	"fy": true, "ga": true, "gd": true, "gl": true, "gn": true, "gu": true, "gv": true, "ha": true, "he": true, "hi": true, "ho": true, "hr": true,
	"ht": true, "hu": true, "hy": true, "hz": true, "ia": true, "id": true, "ie": true, "ig": true, "ii": true, "ik": true, "io": true, "is": true,
	"it": true, "iu": true, "ja": true, "jv": true, "ka": true, "kg": true, "ki": true, "kj": true, "kk": true, "kl": true, "km": true, "kn": true,
	"ko": true, "kr": true, "ks": true, "ku": true, "kv": true, "kw": true, "ky": true, "la": true, "lb": true, "lg": true, "li": true, "ln": true,
	"lo": true, "lt": true, "lu": true, "lv": true, "mg": true, "mh": true, "mi": true, "mk": true, "ml": true, "mn": true, "mr": true, "ms": true,
	"mt": true, "my": true, "na": true, "nb": true, "nd": true, "ne": true, "ng": true, "nl": true, "nn": true, "no": true, "nr": true, "nv": true,
	"ny": true, "oc": true, "oj": true, "om": true, "or": true, "os": true, "pa": true, "pi": true, "pl": true, "ps": true, "pt": true, "qu": true,
	"rm": true, "rn": true, "ro": true, "ru": true, "rw": true, "sa": true, "sc": true, "sd": true, "se": true, "sg": true, "si": true, "sk": true,
	"sl": true, "sm": true, "sn": true, "so": true, "sq": true, "sr": true, "ss": true, "st": true, "su": true, "sv": true, "sw": true, "ta": true,
	"te": true, "tg": true, "th": true, "ti": true, "tk": true, "tl": true, "tn": true, "to": true, "tr": true, "ts": true, "tt": true, "tw": true,
	"ty": true, "ug": true, "uk": true, "ur": true, "uz": true, "ve": true, "vi": true, "vo": true, "wa": true, "wo": true, "xh": true, "yi": true,
	"yo": true, "za": true, "zh": true, "zu": true, "ast": true, "ckb": true, "fil": true, "haw": true, "kab": true, "yue": true, "chr": true, "zgh": true,
	"gsw": true, "nds": true, "sah": true, "tzm": true,
}

// TranslationDirs are directory names that hold message catalogues.
var TranslationDirs = map[string]bool{
	"i18n": true, "l10n": true, "locale": true, "locales": true, "lang": true, "langs": true,
	"languages": true, "translations": true, "translation": true,
}

// CommonRemediation is appended to every rule's remediation: the
// order matters, because deleting the line without rotating leaves a live
// credential in every clone.
const CommonRemediation = " Treat the value as compromised: revoke or rotate it first, because deleting the line leaves it readable in git history and in every clone. Then remove it from the file, purge it from history (git filter-repo or BFG) if the repository is shared, and load the credential at run time from a secret manager or the environment."

// Thresholds of the generic rules. Passwords are chosen by people, so they
// get a lower entropy bar than machine-generated API secrets.
const (
	GenericMinLen         = 8
	GenericMaxLen         = 200  // beyond it only a token-shaped value, up to GenericTokenMaxLen
	GenericTokenMaxLen    = 4096 // an Entra refresh token or a long JWT
	PasswordEntropyFactor = 0.8  // bar = min(3.0, factor*log2(len))
	PasswordEntropyCap    = 3.0
	SecretEntropyFactor   = 0.85 // bar = min(3.5, factor*log2(len))
	SecretEntropyCap      = 3.5
)

// ShellFiles are the base names and extensions of shell scripts and
// profiles.
var ShellFiles = map[string]bool{".envrc": true, ".bashrc": true, ".bash_profile": true, ".profile": true, ".zshrc": true, ".zprofile": true,
	".sh": true, ".bash": true, ".zsh": true, ".ksh": true}

// AllowlistMarkers are other scanners' inline markers for a reviewed line:
// gitleaks, detect-secrets, trufflehog.
var AllowlistMarkers = []string{"gitleaks:allow", "pragma: allowlist secret", "trufflehog:ignore"}

// SessionTokenNames (separators removed) name per-session anti-forgery
// tokens: Rails' authenticity_token, Django's csrfmiddlewaretoken,
// ASP.NET's __RequestVerificationToken. A server writes a fresh one into
// every page it serves, so one in a saved page or a fixture opens nothing.
var SessionTokenNames = map[string]bool{
	"authenticitytoken": true, "csrftoken": true, "csrfmiddlewaretoken": true, "xsrftoken": true,
	"requestverificationtoken": true, "csrf": true, "xcsrftoken": true, "xxsrftoken": true,
}

// TagNames (separators removed) are words of a credential's name that a
// syntax uses as a keyword instead: sudoers' NOPASSWD tag
// (`ALL=(root) NOPASSWD: /usr/bin/fail2ban-client`) names the command
// after it, not a password.
var TagNames = map[string]bool{"nopasswd": true}

// PublicNameWords end the part of a credential's name before its kind
// (PUBLIC_TOKEN, publicApiKey, publishableKey, separators removed): the
// issuer made it to be shipped in pages and apps, so it opens nothing
// alone.
// NonSecretKeyWords name a key that is no credential when they come
// right before it (cache_key, primaryKey, sort-key, idempotency_key): a
// lookup key, a database key, a message's routing key, a key's ID.
var NonSecretKeyWords = []string{"public", "publishable", "primary", "foreign", "sort", "partition", "range", "cache", "hash", "lookup",
	"map", "dict", "index", "idempotency", "routing", "object", "s3", "file", "field", "column", "table", "row", "group", "unique",
	"i18n", "translation", "message", "label", "state", "query", "kms", "gpg", "pgp", "ssh", "host", "cursor",
	"dedup", "dedupe", "shard", "bucket", "redis", "memcache", "react", "list", "item", "menu", "hot", "short", "shortcut",
	"toggle", "feature", "flag", "encrypted", "wrapped", "config", "setting", "settings", "registry", "env", "name", "type", "metric", "tag", "event", "node", "path", "route",
	"snapshot", "digest", "checksum", "fingerprint", "commit"}

// DeclarationWords declare the name after them (var key = ...); they are
// no part of it.
var DeclarationWords = []string{"var", "let", "const", "val", "def", "my", "local", "export", "set", "dim", "auto",
	"private", "public", "protected", "static", "final", "readonly", "string", "String", "str", "int", "byte", "char", "declare", "global"}

// NameQualifierWords end a credential's name without changing what it
// names: the environment, copy, version or encoding it is for
// (SECRET_KEY_PROD, stripeKeyLive, token_old, client_secret_b64,
// secret_value). A word that makes it something else (token_url,
// secret_name, api_key_id) is not one of them.
var NameQualifierWords = []string{"prod", "production", "prd", "live", "dev", "develop", "development", "stage", "staging", "stg",
	"test", "testing", "qa", "uat", "sandbox", "demo", "local", "ci", "old", "new", "next", "prev", "previous", "current",
	"main", "primary", "secondary", "backup", "alt", "default", "b64", "base64", "raw", "value", "val", "str", "string"}

var PublicNameWords = []string{"public", "publicapi", "publicaccess", "publishable", "publishableapi"}

// InstructionSuffixes end values that tell the reader what to put there
// (SlackAppConfigurationAccessTokenHere, RANDOMSTRINGHERE).
var InstructionSuffixes = []string{"here"}

// AssetExtensions follow a fingerprinted asset's hash (favicon.ico-<md5>.png,
// app-<hash>.js): a vendor prefix that happens to stand before the hash
// makes it no token.
var AssetExtensions = []string{"png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "css", "js", "mjs", "map", "woff", "woff2", "ttf", "eot", "html", "htm"}

// PublicTokenPrefixes open tokens that are public by design and ship in
// front-end code: Stripe's and Clerk's publishable keys (pk_live_,
// pk_test_) and PostHog's project keys (phc_). A bare pk_ is not one:
// ClickUp's personal tokens and Courier's auth tokens start with it.
var PublicTokenPrefixes = []string{"pk_live_", "pk_test_", "phc_"}
