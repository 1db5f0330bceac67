package rulebook

// The regular expressions of scan/secrets' finders and checks, kept
// with the rule data; scan/secrets compiles them.

// CallPairPattern is a call that takes a name and its value:
// define('DB_PASSWORD', '...') in PHP, setenv/putenv/setdefault, a
// setter or a map's put (System.setProperty, props.put, headers.add,
// config.set, localStorage.setItem, a builder's withX); or a
// name and the value to use when it is unset: os.environ.get("X", "..."),
// os.getenv, System.getProperty, Laravel's env(), and helpers named for
// the default (GetEnvOrDefault, getOrDefault, envOr).
const CallPairPattern = `(?i)\b(?:define|set\w*|put\w*|add|with\w*|store|get|getenv|getproperty|getenvironmentvariable|env|\w*or_?default|\w*env_?or\w*)[ \t]*\([ \t]*$`

// XMLKeyValuePattern is the rest of an appSettings-style entry after
// its key's name: <add key="SmtpPassword" value="..."/>.
const XMLKeyValuePattern = `^"\s+value\s*=\s*"([^"]*)"`

// QualifiedNamePattern is a namespace-qualified type name
// (clm54321:AgencyIdentificationCodeContentType in an XSD).
const QualifiedNamePattern = `^[A-Za-z0-9_.-]+:(?:[A-Z][a-z]+){3,}$`

// VendorShapePattern are the shapes of a Telegram bot token, a Google API
// key and two public keys: their vendor rules judge such values (a bot id
// of the wrong length is a sample; a Firebase config's key is public), and
// a Mapbox pk. token and a Stripe publishable key (pk_live_, pk_test_) are
// public by design (for browsers, as both vendors document; their secret
// keys have their rules), so the generic rules do not judge them again.
const VendorShapePattern = `^[0-9]{4,20}:A|^[A-Za-z0-9_-]{1,20}:AA[A-Za-z0-9_-]{30,}$|^AIza[0-9A-Za-z_-]{35}$|^pk\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$|^pk_(?:live|test)_[A-Za-z0-9]{20,}$`

// HostPattern is a lower-case host name ending in a top-level domain of
// letters, with a port or a path after it (core.harbor.domain:8080,
// rg.pl-waw.scw.cloud/trivyoperator): an address, not a credential.
const HostPattern = `^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~/-]*)?$`

// VersionPattern is a whole value that is a version (0.18.5-r0, v1.2.3,
// 2.0.1+build.7), or a package name and its version (jjwt-jackson-0.11.2,
// the artifact of io.jsonwebtoken:...): a package pinned by a name that
// happens to end in a credential's word (libsecret=0.18.5-r0).
const VersionPattern = `^(?:[a-z][a-z0-9]*(?:[-_.][a-z][a-z0-9]*)*[-_@])?v?[0-9]+(?:\.[0-9]+)+(?:[-+~][0-9A-Za-z.]+)?$`

// TemplatePattern finds the bracketed and interpolated forms of a
// placeholder: <PASSWORD>, [API KEY], $(VAR), %(name)s, #{var}, a whole
// value that is one format field named in words ({SumoAccessKey}: .NET
// and Python format strings, deployment-tool tokens; {ZqL5kVrX1n8tA2} is
// a braced secret), a whole value that is an ARM template expression
// ([parameters('adminPassword')]), or a value cut from one ("password>" of "-u <user:password>"). A bare
// "<", "(" or "[" is not one: machine-made secrets (Django keys, JWT
// signing secrets) draw from punctuation too.
const TemplatePattern = `<[A-Za-z][A-Za-z0-9 _.:-]*>|^<|>$|\[[A-Za-z][A-Za-z0-9 _.:-]*\]|\$\([A-Za-z_]|%\([A-Za-z_][A-Za-z0-9_]*\)|#\{[A-Za-z_@$]|^\{[A-Za-z_][A-Za-z_.]*\}$|^\[[A-Za-z]\w*\(.*\)\]$`

// AWSKeyIDPattern finds an access key ID anywhere in a file.
const AWSKeyIDPattern = `\b(?:AKIA|ASIA)[A-Z2-7]{16}\b`

// secretsURLPasswordPlaceholder reports passwords that only ever appear
// in documentation and local-development defaults.
// FormatFieldPattern is a replacement field of Python's f-strings and
// str.format, C#'s interpolated strings and Rust's format!: {name}.
const FormatFieldPattern = `^\{[A-Za-z_][\w.\[\]'"]*\}$`

// PEMHeaderPattern is a pattern of scan/secrets.
const PEMHeaderPattern = `-----BEGIN ((?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?)-----`

// ConnectionKeyPattern is another key of an ODBC/ADO.NET/OLE DB/libpq
// connection string: Password= counts only beside one of them.
const ConnectionKeyPattern = `(?i)(?:^|[;"'\s])(?:server|data source|user id|uid|user|username|initial catalog|database|dbname|provider|host|driver|dsn|address|addr)[ \t]*=`

// NetrcMachinePattern is the start of a .netrc entry.
const NetrcMachinePattern = `(?m)^[ \t]*(?:machine|default)\b`

// CurlContinuedHeaderPattern is an authentication header on a
// continuation line of a curl command.
const CurlContinuedHeaderPattern = `(?i)(?:^|\s)(?:-H|--header)[ \t=]*["'](?:(?:proxy-)?authorization:[ \t]*(?:bearer|token|basic|apikey)?[ \t]*|x-(?:[a-z0-9]+-)*(?:api-?)?(?:key|token):[ \t]*)(?P<secret>[A-Za-z0-9._~+/=-]{12,})["']`

// CurlDataFlagPattern ends the text before a form field curl sends:
// -d name=..., --data-urlencode 'name=...', -F "name=...".
const CurlDataFlagPattern = `(?:^|\s)(?:-d|--data(?:-urlencode|-raw|-binary|-ascii)?|-F|--form(?:-string)?)(?:[ \t]+|=)["']?$`

// CurlContinuedUserPattern is -u/--user (or the proxy's -U/--proxy-user)
// on a continuation line of a curl command.
const CurlContinuedUserPattern = `(?:^|\s)(?:-[uU][ \t]*|--(?:proxy-)?user(?:[ \t]+|=))["']?[^\s"':]*:["']?(?P<secret>[^\s"']+)`

// ImportLinePattern is a line that imports a module, package or
// namespace (Python, JS/TS, Go, Java, C#, PHP, Ruby, Rust), including a
// path alone on its line inside Go's import ( ... ) block.
const ImportLinePattern = `^[ \t]*(?:using|import|from|require|use|extern crate)[ \t(]|\brequire\(|^[ \t]*(?:[\w.]+[ \t]+)?"[\w.-]+(?:/[\w.-]+)+"$`

// ValueBlockPattern is a line after which a value follows on the next,
// deeper-indented lines: a YAML key with a block scalar (token: |,
// token: >-), an XML start tag with no text (<facebookToken>), or the
// name of a name/value entry (- name: SNYK_TOKEN, then value: ...; in
// Kubernetes env lists and Azure Pipelines variables).
const ValueBlockPattern = `:[ \t]*[|>][-+]?[0-9]?$|^[ \t]*<[A-Za-z_][\w.:-]*(?:[ \t][^<>]*)?>$|^[ \t]*-[ \t]+["']?name["']?[ \t]*:[ \t]*["']?[\w.:-]+["']?$`

// UUIDPattern is a UUID, the shape of many vendors' keys and of their
// identifiers alike.
const UUIDPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
