package scan

import (
	"log/slog"
	"time"
)

// Config is what scanners get from main.go: no scanner reads the process
// environment or the clock directly, so tests control both.
type Config struct {
	Runner *Runner
	// Getenv reads scand's configuration (SVC_OSV_DB, SVC_<TOOL>_PATH, ...).
	Getenv func(string) string
	Now    func() time.Time
	Logger *slog.Logger
}

func (c Config) env(key string) string {
	if c.Getenv == nil {
		return ""
	}
	return c.Getenv(key)
}
