package main

import (
	"path/filepath"
	"strconv"
	"strings"
)

// monitorConfig is what /metrics and backups read (docs/monitoring.md).
type monitorConfig struct {
	// Metrics is SVC_METRICS: off, public or key.
	Metrics string
	// MetricsKey is SVC_METRICS_KEY, a Bearer token for scrapers only.
	MetricsKey string
	// BackupDir is where POST /admin/backup writes.
	BackupDir string
}

// minScrapeKeyLen keeps a guessable scrape key out: it opens /metrics.
const minScrapeKeyLen = 16

func parseMonitorSettings(values map[string]string, db string, bad func(env, msg string)) monitorConfig {
	m := monitorConfig{Metrics: strings.ToLower(strings.TrimSpace(values["SVC_METRICS"])), MetricsKey: values["SVC_METRICS_KEY"],
		BackupDir: values["SVC_BACKUP_DIR"]}
	switch m.Metrics {
	case "off", "public", "key":
	default:
		bad("SVC_METRICS", "must be off, public or key, got "+strconv.Quote(values["SVC_METRICS"]))
	}
	if m.MetricsKey != "" && len(m.MetricsKey) < minScrapeKeyLen {
		bad("SVC_METRICS_KEY", "must be at least "+strconv.Itoa(minScrapeKeyLen)+" characters")
	}
	if m.BackupDir == "" {
		m.BackupDir = filepath.Join(filepath.Dir(db), "backups")
	} else if !filepath.IsAbs(m.BackupDir) {
		bad("SVC_BACKUP_DIR", "must be an absolute path, got "+strconv.Quote(m.BackupDir))
	}
	return m
}
