package main

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"scand/scan/netguard"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	c, err := loadConfig(nil, envMap(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		Addr: "127.0.0.1:8000", DB: "scand.db", RateLimitPerMin: 60, RateLimitBurst: 10, RateLimitEnabled: true,
		LogLevel: slog.LevelInfo, LogFormat: "json", MaxConcurrentScans: 2, ScannerTimeout: 600 * time.Second, WebhookAllowPriv: true,
		AlertMinSeverity: "high",
	}
	if !configEqual(c, want) {
		t.Fatalf("defaults = %+v\nwant      %+v", c, want)
	}
}

func configEqual(a, b config) bool {
	return a.Addr == b.Addr && a.DB == b.DB && a.APIKey == b.APIKey && a.AuthRequired == b.AuthRequired &&
		a.EventTokenSecret == b.EventTokenSecret && a.RateLimitPerMin == b.RateLimitPerMin &&
		a.RateLimitBurst == b.RateLimitBurst && a.RateLimitEnabled == b.RateLimitEnabled && a.FakeNow.Equal(b.FakeNow) &&
		a.LogLevel == b.LogLevel && slices.Equal(a.ScanRoots, b.ScanRoots) && a.MaxConcurrentScans == b.MaxConcurrentScans &&
		a.ScannerTimeout == b.ScannerTimeout && a.WebhookAllowPriv == b.WebhookAllowPriv && a.LogFormat == b.LogFormat &&
		a.AlertMinSeverity == b.AlertMinSeverity && a.RetentionDays == b.RetentionDays && a.SchedulerFakeStart.Equal(b.SchedulerFakeStart) &&
		a.TargetAllow.String() == b.TargetAllow.String()
}

func TestLoadConfigFromEnvAndFlags(t *testing.T) {
	env := map[string]string{
		"SVC_ADDR": "0.0.0.0:9000", "SVC_DB": "/var/lib/scand/scand.db", "SVC_API_KEY": "k", "SVC_AUTH_REQUIRED": "1",
		"SVC_EVENT_TOKEN_SECRET": "s", "SVC_RATE_LIMIT_PER_MIN": "120", "SVC_RATE_LIMIT_BURST": "5",
		"SVC_RATE_LIMIT_ENABLED": "false", "SVC_FAKE_NOW": "2026-01-01T02:00:00+02:00", "SVC_LOG_LEVEL": "DEBUG",
		"SVC_SCAN_ROOTS": "/srv:/home/ci:", "SVC_MAX_CONCURRENT_SCANS": "4", "SVC_SCANNER_TIMEOUT": "30",
		"SVC_WEBHOOK_ALLOW_PRIVATE": "0", "SVC_ALERT_MIN_SEVERITY": "Medium", "SVC_RETENTION_DAYS": "90",
		"SVC_SCHEDULER_FAKE_START": "2026-03-08T01:59:55-05:00", "SVC_LOG_FORMAT": "Text",
		"SVC_TARGET_ALLOW": "10.0.0.0/8, App.Corp.Example",
	}
	c, err := loadConfig(nil, envMap(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		Addr: "0.0.0.0:9000", DB: "/var/lib/scand/scand.db", APIKey: "k", AuthRequired: true, EventTokenSecret: "s",
		RateLimitPerMin: 120, RateLimitBurst: 5, RateLimitEnabled: false, FakeNow: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		LogLevel: slog.LevelDebug, LogFormat: "text", ScanRoots: []string{"/srv", "/home/ci"}, MaxConcurrentScans: 4,
		ScannerTimeout: 30 * time.Second, WebhookAllowPriv: false, AlertMinSeverity: "medium", RetentionDays: 90,
		SchedulerFakeStart: time.Date(2026, 3, 8, 6, 59, 55, 0, time.UTC), TargetAllow: mustAllow(t, "10.0.0.0/8,app.corp.example"),
	}
	if !configEqual(c, want) {
		t.Fatalf("from env = %+v\nwant       %+v", c, want)
	}
	if c.FakeNow.Location() != time.UTC {
		t.Errorf("FakeNow not normalised to UTC: %v", c.FakeNow)
	}
	// A flag beats the variable of the same setting.
	c, err = loadConfig([]string{"-addr", "127.0.0.1:7000", "--rate-limit-per-min=7", "-auth-required", "0"}, envMap(env), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:7000" || c.RateLimitPerMin != 7 || c.AuthRequired {
		t.Fatalf("flags did not override env: %+v", c)
	}
}

// TestSecretsAreNotFlags: a flag value shows in ps and /proc/<pid>/cmdline.
func TestSecretsAreNotFlags(t *testing.T) {
	for _, s := range settings {
		secret := s.env == "SVC_API_KEY" || s.env == "SVC_EVENT_TOKEN_SECRET"
		if secret && s.flag != "" {
			t.Errorf("%s has the flag -%s", s.env, s.flag)
		}
	}
	for _, args := range [][]string{{"-api-key", "x"}, {"-event-token-secret", "x"}} {
		if _, err := loadConfig(args, envMap(nil), io.Discard); err == nil {
			t.Errorf("loadConfig(%v) accepted a secret on the command line", args)
		}
	}
}

func TestLoadConfigRejectsBadValues(t *testing.T) {
	cases := []struct{ env, value string }{
		{"SVC_ADDR", "8000"},
		{"SVC_ADDR", "127.0.0.1:http"},
		{"SVC_ADDR", "127.0.0.1:70000"},
		{"SVC_DB", "   "},
		{"SVC_DB", "/var/lib/scand/x.db?mode=ro"},
		{"SVC_AUTH_REQUIRED", "maybe"},
		{"SVC_RATE_LIMIT_PER_MIN", "abc"},
		{"SVC_RATE_LIMIT_PER_MIN", "0"},
		{"SVC_RATE_LIMIT_PER_MIN", "-5"},
		{"SVC_RATE_LIMIT_PER_MIN", "1.5"},
		{"SVC_RATE_LIMIT_BURST", "0"},
		{"SVC_RATE_LIMIT_ENABLED", "nope"},
		{"SVC_FAKE_NOW", "2026-01-01"},
		{"SVC_LOG_LEVEL", "verbose"},
		{"SVC_LOG_FORMAT", "yaml"},
		{"SVC_LOG_FORMAT", "logfmt"},
		{"SVC_SCAN_ROOTS", "relative/dir"},
		{"SVC_MAX_CONCURRENT_SCANS", "0"},
		{"SVC_MAX_CONCURRENT_SCANS", "65"},
		{"SVC_SCANNER_TIMEOUT", "10m"},
		{"SVC_WEBHOOK_ALLOW_PRIVATE", "2"},
		{"SVC_TARGET_ALLOW", "10.0.0.0/33"},
		{"SVC_TARGET_ALLOW", "10.0.0.0/8,not a host"},
		{"SVC_ALERT_MIN_SEVERITY", "severe"},
		{"SVC_RETENTION_DAYS", "-1"},
		{"SVC_RETENTION_DAYS", "1.5"},
		{"SVC_SCHEDULER_FAKE_START", "tomorrow"},
	}
	for _, c := range cases {
		t.Run(c.env+"="+c.value, func(t *testing.T) {
			_, err := loadConfig(nil, envMap(map[string]string{c.env: c.value}), io.Discard)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usageError", err)
			}
			if !strings.Contains(err.Error(), c.env) {
				t.Fatalf("error %q does not name %s", err, c.env)
			}
			if exitCode(err) != 2 {
				t.Fatalf("exit code %d, want 2", exitCode(err))
			}
		})
	}
	// Several problems are reported together, not one per restart.
	_, err := loadConfig(nil, envMap(map[string]string{"SVC_LOG_LEVEL": "x", "SVC_RATE_LIMIT_BURST": "x"}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "SVC_LOG_LEVEL") || !strings.Contains(err.Error(), "SVC_RATE_LIMIT_BURST") {
		t.Fatalf("err = %v, want both problems", err)
	}
}

func TestLoadConfigArguments(t *testing.T) {
	var usage strings.Builder
	_, err := loadConfig([]string{"-h"}, envMap(nil), &usage)
	if !errors.Is(err, flag.ErrHelp) || exitCode(err) != 0 {
		t.Fatalf("-h: %v (exit %d), want ErrHelp and exit 0", err, exitCode(err))
	}
	for _, s := range settings {
		if s.flag != "" && !strings.Contains(usage.String(), "-"+s.flag) {
			t.Errorf("usage text lacks -%s", s.flag)
		}
	}
	for _, args := range [][]string{{"serve"}, {"-no-such-flag"}, {"-addr"}} {
		if _, err := loadConfig(args, envMap(nil), io.Discard); exitCode(err) != 2 {
			t.Errorf("loadConfig(%v) = %v, want a usage error", args, err)
		}
	}
}

func TestExitCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{flag.ErrHelp, 0},
		{&usageError{"bad"}, 2},
		{errors.Join(errors.New("ctx"), &usageError{"wrapped"}), 2},
		{errors.New("disk full"), 1},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// TestDocsDocumentEverySetting keeps the configuration table of
// docs/operations.md in step with the one list of settings.
func TestDocsDocumentEverySetting(t *testing.T) {
	const page = "docs/operations.md"
	readme, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// Only the Configuration section: the scanner variables (SVC_OSV_DB,
	// ...) are read by the scan package and documented under Scanners.
	section := string(readme)
	start := strings.Index(section, "\n## Configuration\n")
	if start < 0 {
		t.Fatal(page + " has no Configuration section")
	}
	section = section[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if m := regexp.MustCompile("^\\|\\s*`(SVC_[A-Z_]+)`\\s*\\|").FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	// A setting may instead be documented by a table row of the same shape
	// in a docs/ page (docs/monitoring.md documents SVC_METRICS, ...).
	docRows := map[string]string{}
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(text), "\n") {
			if m := regexp.MustCompile("^\\|\\s*`(SVC_[A-Z_]+)`\\s*\\|").FindStringSubmatch(line); m != nil {
				docRows[m[1]] = line
			}
		}
	}
	for _, s := range settings {
		row, ok := rows[s.env]
		if !ok {
			row, ok = docRows[s.env]
		}
		if !ok {
			t.Errorf("%s has no configuration table row for %s (nor another docs/ page)", page, s.env)
			continue
		}
		if s.def != "" && !strings.Contains(row, "`"+s.def+"`") {
			t.Errorf("%s row for %s does not give the default `%s`: %s", page, s.env, s.def, row)
		}
		if s.flag != "" && !strings.Contains(row, "`-"+s.flag+"`") {
			t.Errorf("%s row for %s does not name the flag `-%s`: %s", page, s.env, s.flag, row)
		}
		delete(rows, s.env)
	}
	for env := range rows {
		t.Errorf("%s documents %s, which config.go does not read", page, env)
	}
}

func mustAllow(t *testing.T, s string) netguard.Allow {
	t.Helper()
	a, err := netguard.ParseAllow(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
