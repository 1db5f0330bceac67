package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"scand/finding"
	"scand/scan/netguard"
	"scand/scan/vulndb"
)

// config is everything scand reads at startup. Each field comes from its
// SVC_ variable and may be overridden by the flag of the same name; a bad
// value is a startup error, never a silent default.
type config struct {
	Addr               string
	DB                 string
	APIKey             string
	AuthRequired       bool
	EventTokenSecret   string
	RateLimitPerMin    int
	RateLimitBurst     int
	RateLimitEnabled   bool
	FakeNow            time.Time
	LogLevel           slog.Level
	LogFormat          string
	ScanRoots          []string
	MaxConcurrentScans int
	ScannerTimeout     time.Duration
	// ReevaluatePoll is SVC_REEVALUATE_POLL (0: look only at start).
	ReevaluatePoll   time.Duration
	WebhookAllowPriv bool
	TargetAllow      netguard.Allow
	NmapMaxHosts     int
	PDFRenderer      string
	AlertMinSeverity string
	RetentionDays    int
	// SLA is the fix deadline per severity (SVC_SLA_DAYS).
	SLA                finding.SLAPolicy
	AuditRetentionDays int
	SchedulerFakeStart time.Time
	VulnDBDir          string
	VulnDBMaxAgeDays   int
	VulnDBMaxUploadMB  int
	// AllowedHosts and TrustProxy are api/hardening's Policy.
	AllowedHosts []string
	TrustProxy   bool
	// Image and repository targets (config_targets.go).
	Targets targetConfig
	// Metrics and backups (config_monitor.go).
	Monitor monitorConfig
	// InstanceName authors the VEX documents scand writes.
	InstanceName string
}

type setting struct {
	env, flag, def, help string
}

// settings is the one list of configuration variables; docs/operations.md documents
// the same list and a test keeps them in step.
var settings = []setting{
	{"SVC_ADDR", "addr", "127.0.0.1:8000", "listen address host:port"},
	{"SVC_DB", "db", "scand.db", "SQLite database file"},
	{"SVC_API_KEY", "", "", "environment API key with all scopes (not a flag: it would show in ps)"},
	{"SVC_AUTH_REQUIRED", "auth-required", "0", "1 = every API request needs a key"},
	{"SVC_EVENT_TOKEN_SECRET", "", "", "HMAC secret for SSE event tokens (required when SVC_AUTH_REQUIRED=1)"},
	{"SVC_RATE_LIMIT_PER_MIN", "rate-limit-per-min", "60", "sustained start-scan rate per principal"},
	{"SVC_RATE_LIMIT_BURST", "rate-limit-burst", "10", "start-scan burst per principal"},
	{"SVC_RATE_LIMIT_ENABLED", "rate-limit-enabled", "true", "false disables the start-scan rate limit"},
	{"SVC_FAKE_NOW", "fake-now", "", "RFC 3339 time pinning the time-derived fields of reports and SBOMs"},
	{"SVC_LOG_LEVEL", "log-level", "info", "debug, info, warn or error"},
	{"SVC_LOG_FORMAT", "log-format", "json", "json (one object per line, for journald) or text (one readable line per record, for terminals)"},
	{"SVC_SCAN_ROOTS", "scan-roots", "", "colon-separated directories scan targets must lie under (empty = anywhere)"},
	{"SVC_MAX_CONCURRENT_SCANS", "max-concurrent-scans", "2", "scans running at once; the rest wait in arrival order"},
	{"SVC_SCANNER_TIMEOUT", "scanner-timeout", "600", "seconds one scanner may run"},
	{"SVC_NMAP_MAX_HOSTS", "nmap-max-hosts", "256", "largest CIDR range (in addresses) a network scan may target"},
	{"SVC_PDF_RENDERER", "pdf-renderer", "", "Chromium/Chrome binary for PDF reports (default: chromium, chromium-browser or google-chrome on PATH)"},
	{"SVC_WEBHOOK_ALLOW_PRIVATE", "webhook-allow-private", "1", "0 refuses webhook receivers on loopback and private addresses"},
	{"SVC_TARGET_ALLOW", "target-allow", "", "comma-separated CIDR ranges, addresses and host names (*.example.com) DAST and network scans may target (empty = any but metadata and link-local)"},
	{"SVC_ALERT_MIN_SEVERITY", "alert-min-severity", "high", "a new finding at or above this severity makes a notification (schedules may set their own)"},
	{"SVC_RETENTION_DAYS", "retention-days", "0", "delete completed scans older than this many days, never a target's newest (0 = keep all)"},
	{"SVC_SLA_DAYS", "sla-days", finding.DefaultSLA, "fix deadline in days per severity from first_seen (severity:days,...), or none"},
	{"SVC_AUDIT_RETENTION_DAYS", "audit-retention-days", "365", "delete audit log records older than this many days (0 = keep all)"},
	{"SVC_SCHEDULER_FAKE_START", "scheduler-fake-start", "", "testing aid: RFC 3339 time the scheduler's clock starts at (then advances in real time)"},
	{"SVC_VULNDB_DIR", "vulndb-dir", "", "directory of imported advisory databases (default: vulndb/ beside SVC_DB)"},
	{"SVC_VULNDB_MAX_AGE_DAYS", "vulndb-max-age-days", "7", "advisory data older than this many days makes a scan warning and a notification"},
	{"SVC_VULNDB_MAX_UPLOAD_MB", "vulndb-max-upload-mb", "1024", "largest archive POST /vulndb/import accepts, in MiB"},
	{"SVC_REEVALUATE_POLL", "reevaluate-poll", "30", "seconds between looks for advisory data imported outside the daemon, to re-evaluate stored SBOMs (0 = only at start)"},
	{"SVC_WORK_DIR", "work-dir", "", "directory for unpacked images and clones (a private 0700 directory is made in it; empty = the system temp directory)"},
	{"SVC_TARGET_MAX_BYTES", "target-max-bytes", "8589934592", "largest unpacked image or clone, in bytes"},
	{"SVC_TARGET_MAX_FILES", "target-max-files", "1000000", "most files an unpacked image or clone may hold"},
	{"SVC_TARGET_TIMEOUT", "target-timeout", "600", "seconds unpacking an image or cloning a repository may take"},
	{"SVC_GIT_ALLOW", "git-allow", "", "comma-separated hosts repositories may be cloned from; .example.com allows its subdomains (empty = any host)"},
	{"SVC_GIT_CREDENTIALS_FILE", "git-credentials-file", "", "git credential-store file (mode 0600) with the credentials for cloning"},
	{"SVC_ALLOWED_HOSTS", "allowed-hosts", "", "comma-separated Host names a dev-mode scand answers besides loopback names and addresses (.example.com allows subdomains)"},
	{"SVC_TRUST_PROXY", "trust-proxy", "0", "1 = a reverse proxy in front sets X-Forwarded-Proto and X-Forwarded-For (HSTS on https, throttling by client address)"},
	{"SVC_GIT_CA_FILE", "git-ca-file", "", "PEM CA certificates for https git servers, besides the system's"},
	{"SVC_METRICS", "metrics", "key", "GET /metrics: off, public, or key (an API key with read scope, or SVC_METRICS_KEY)"},
	{"SVC_METRICS_KEY", "", "", "Bearer token that may read /metrics and nothing else (not a flag: it would show in ps)"},
	{"SVC_BACKUP_DIR", "backup-dir", "", "absolute directory POST /admin/backup writes into (default: backups/ beside SVC_DB)"},
	{"SVC_INSTANCE_NAME", "instance-name", "scand", "this instance's name, the author of the VEX documents it writes (e.g. ACME Product Security)"},
}

// usageError marks a configuration problem: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func loadConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	values := map[string]string{}
	for _, s := range settings {
		values[s.env] = s.def
		if v, ok := lookup(getenv, s.env); ok {
			values[s.env] = v
		}
	}
	fs := flag.NewFlagSet("scand", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, s := range settings {
		if s.flag == "" {
			continue
		}
		s := s
		fs.Func(s.flag, s.help+" (env "+s.env+", default "+strconv.Quote(s.def)+")", func(v string) error {
			values[s.env] = v
			return nil
		})
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return config{}, &usageError{fmt.Sprintf("unexpected argument %q (commands: scan, diff, baseline, status, config, vulndb, version, help)", fs.Arg(0))}
	}

	var c config
	var problems []string
	bad := func(env, msg string) { problems = append(problems, env+": "+msg) }

	c.Addr = values["SVC_ADDR"]
	if _, port, err := net.SplitHostPort(c.Addr); err != nil {
		bad("SVC_ADDR", "must be host:port, got "+strconv.Quote(c.Addr))
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		bad("SVC_ADDR", "port must be 0-65535, got "+strconv.Quote(port))
	}
	c.DB = values["SVC_DB"]
	if strings.TrimSpace(c.DB) == "" {
		bad("SVC_DB", "must not be empty")
	} else if strings.ContainsAny(c.DB, "?#") {
		// The path becomes a SQLite URI; these would start its query part
		// and open a different file than the one named.
		bad("SVC_DB", "must not contain '?' or '#', got "+strconv.Quote(c.DB))
	}
	c.InstanceName = strings.TrimSpace(values["SVC_INSTANCE_NAME"])
	if c.InstanceName == "" || len(c.InstanceName) > 200 || strings.IndexFunc(c.InstanceName, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		bad("SVC_INSTANCE_NAME", "must be 1 to 200 characters without control characters, got "+strconv.Quote(values["SVC_INSTANCE_NAME"]))
	}
	c.APIKey = values["SVC_API_KEY"]
	c.EventTokenSecret = values["SVC_EVENT_TOKEN_SECRET"]
	var err error
	if c.AuthRequired, err = parseBool(values["SVC_AUTH_REQUIRED"]); err != nil {
		bad("SVC_AUTH_REQUIRED", err.Error())
	}
	if c.RateLimitEnabled, err = parseBool(values["SVC_RATE_LIMIT_ENABLED"]); err != nil {
		bad("SVC_RATE_LIMIT_ENABLED", err.Error())
	}
	if c.WebhookAllowPriv, err = parseBool(values["SVC_WEBHOOK_ALLOW_PRIVATE"]); err != nil {
		bad("SVC_WEBHOOK_ALLOW_PRIVATE", err.Error())
	}
	intIn := func(env string, min, max int) int {
		n, err := strconv.Atoi(strings.TrimSpace(values[env]))
		if err != nil || n < min || n > max {
			bad(env, fmt.Sprintf("must be an integer from %d to %d, got %q", min, max, values[env]))
		}
		return n
	}
	c.RateLimitPerMin = intIn("SVC_RATE_LIMIT_PER_MIN", 1, 1_000_000)
	c.RateLimitBurst = intIn("SVC_RATE_LIMIT_BURST", 1, 1_000_000)
	c.MaxConcurrentScans = intIn("SVC_MAX_CONCURRENT_SCANS", 1, 64)
	c.PDFRenderer = values["SVC_PDF_RENDERER"]
	c.NmapMaxHosts = intIn("SVC_NMAP_MAX_HOSTS", 1, 65536)
	c.ScannerTimeout = time.Duration(intIn("SVC_SCANNER_TIMEOUT", 1, 86400)) * time.Second
	c.RetentionDays = intIn("SVC_RETENTION_DAYS", 0, 36500)
	if c.SLA, err = finding.ParseSLA(values["SVC_SLA_DAYS"]); err != nil {
		bad("SVC_SLA_DAYS", err.Error())
	}
	c.AuditRetentionDays = intIn("SVC_AUDIT_RETENTION_DAYS", 0, 36500)
	c.VulnDBMaxAgeDays = intIn("SVC_VULNDB_MAX_AGE_DAYS", 1, 3650)
	c.VulnDBMaxUploadMB = intIn("SVC_VULNDB_MAX_UPLOAD_MB", 1, 65536)
	c.ReevaluatePoll = time.Duration(intIn("SVC_REEVALUATE_POLL", 0, 86400)) * time.Second
	c.VulnDBDir = strings.TrimSpace(values["SVC_VULNDB_DIR"])
	if c.VulnDBDir == "" && c.DB != "" {
		c.VulnDBDir = vulndb.DefaultDir(c.DB)
	}
	switch c.AlertMinSeverity = strings.ToLower(strings.TrimSpace(values["SVC_ALERT_MIN_SEVERITY"])); c.AlertMinSeverity {
	case "critical", "high", "medium", "low", "info":
	default:
		bad("SVC_ALERT_MIN_SEVERITY", "must be critical, high, medium, low or info, got "+strconv.Quote(values["SVC_ALERT_MIN_SEVERITY"]))
	}
	if v := values["SVC_SCHEDULER_FAKE_START"]; v != "" {
		if c.SchedulerFakeStart, err = time.Parse(time.RFC3339Nano, v); err != nil {
			bad("SVC_SCHEDULER_FAKE_START", "must be an RFC 3339 time such as 2026-01-01T01:59:55Z, got "+strconv.Quote(v))
		}
		c.SchedulerFakeStart = c.SchedulerFakeStart.UTC()
	}
	if v := values["SVC_FAKE_NOW"]; v != "" {
		if c.FakeNow, err = time.Parse(time.RFC3339Nano, v); err != nil {
			bad("SVC_FAKE_NOW", "must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got "+strconv.Quote(v))
		}
		c.FakeNow = c.FakeNow.UTC()
	}
	switch strings.ToLower(values["SVC_LOG_LEVEL"]) {
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "info":
		c.LogLevel = slog.LevelInfo
	case "warn", "warning":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	default:
		bad("SVC_LOG_LEVEL", "must be debug, info, warn or error, got "+strconv.Quote(values["SVC_LOG_LEVEL"]))
	}
	switch c.LogFormat = strings.ToLower(strings.TrimSpace(values["SVC_LOG_FORMAT"])); c.LogFormat {
	case "json", "text":
	default:
		bad("SVC_LOG_FORMAT", "must be json or text, got "+strconv.Quote(values["SVC_LOG_FORMAT"]))
	}
	if v := values["SVC_SCAN_ROOTS"]; v != "" {
		for _, root := range strings.Split(v, ":") {
			if root == "" {
				continue
			}
			if !strings.HasPrefix(root, "/") {
				bad("SVC_SCAN_ROOTS", "every root must be an absolute path, got "+strconv.Quote(root))
			}
			c.ScanRoots = append(c.ScanRoots, root)
		}
	}
	if c.TargetAllow, err = netguard.ParseAllow(values["SVC_TARGET_ALLOW"]); err != nil {
		bad("SVC_TARGET_ALLOW", err.Error())
	}
	c.Targets = parseTargetSettings(values, bad)
	if c.TrustProxy, err = parseBool(values["SVC_TRUST_PROXY"]); err != nil {
		bad("SVC_TRUST_PROXY", err.Error())
	}
	for _, h := range strings.Split(values["SVC_ALLOWED_HOSTS"], ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if strings.ContainsAny(h, "/:@ *") {
			bad("SVC_ALLOWED_HOSTS", "every entry must be a host name such as scand.internal or .example.com, got "+strconv.Quote(h))
		}
		c.AllowedHosts = append(c.AllowedHosts, h)
	}
	c.Monitor = parseMonitorSettings(values, c.DB, bad)
	if len(problems) > 0 {
		return c, &usageError{"invalid configuration: " + strings.Join(problems, "; ")}
	}
	return c, nil
}

func lookup(getenv func(string) string, key string) (string, bool) {
	v := getenv(key)
	return v, v != ""
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("must be a boolean (1/0, true/false), got %q", v)
}
