package scan

import (
	"log/slog"
	"time"

	"scand/scan/netguard"
	"scand/scan/proc"
)

// Config is what scanners get from main.go: no scanner reads the process
// environment or the clock directly, so tests control both.
type Config struct {
	Runner *proc.Runner
	// Getenv reads scand's configuration (SVC_OSV_DB, SVC_<TOOL>_PATH, ...).
	Getenv func(string) string
	Now    func() time.Time
	Logger *slog.Logger
	// Targets is what DAST and network scanners may connect to
	// (SVC_TARGET_ALLOW); the zero value refuses only the always-blocked
	// addresses, metadata services first.
	Targets netguard.Targets
	// VulnDBDir is the offline advisory data `scand vulndb import` keeps
	// (SVC_VULNDB_DIR, default beside the database): osv/, govulndb/ and
	// trivy/. A wrapped tool whose own variable (SVC_OSV_DB, ...) is unset
	// reads its database there. Empty means none.
	VulnDBDir string
}

// Env reads one setting; a Config without Getenv has none set.
func (c Config) Env(key string) string {
	if c.Getenv == nil {
		return ""
	}
	return c.Getenv(key)
}

// Time is the current time on the injected clock; a Config without one
// reads the wall clock.
func (c Config) Time() time.Time { return ClockOrWall(c.Now)() }

// Log is the scanner's logger; a Config without one logs nowhere.
func (c Config) Log() *slog.Logger { return LoggerOrDiscard(c.Logger) }

// ClockOrWall is the clock a scanner or service was wired with (tests and
// SVC_FAKE_NOW inject theirs), or the wall clock when it was wired
// without one.
func ClockOrWall(now func() time.Time) func() time.Time {
	if now != nil {
		return now
	}
	return time.Now
}

// LoggerOrDiscard is the logger a scanner or service was wired with, or
// one that logs nowhere: a component built without a logger (a test, the
// command line's quiet engine) must still be able to log.
func LoggerOrDiscard(log *slog.Logger) *slog.Logger {
	if log != nil {
		return log
	}
	return slog.New(slog.DiscardHandler)
}
