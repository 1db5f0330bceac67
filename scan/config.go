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
func (c Config) Time() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Log is the scanner's logger; a Config without one logs nowhere.
func (c Config) Log() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}
