// Command scand is a self-hosted security-scan orchestration daemon.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"scand/api"
	"scand/api/hardening"
	"scand/api/monitor"
	"scand/auth"
	"scand/metrics"
	"scand/scan/netguard"
	"scand/scan/registry"
	"scand/scan/vulndb"
	"scand/sse"
	"scand/store"
)

// goMemLimit is the Go heap's soft limit when GOMEMLIMIT does not set
// one. With the default (none), the heap grows to twice what is live
// before a collection: during a 1M-finding ingest beside 32 readers that
// put the process at 312 MB against a 300 MB budget, where SQLite's page
// caches and sorters hold about 100 MB of their own. At this limit the
// collector runs earlier instead (peak 287 MB, same ingest time); the
// runtime caps what it spends on that, so a larger live heap is slower,
// never killed.
const goMemLimit = 180 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(goMemLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

// Exit codes: 0 clean stop, 1 runtime failure, 2 configuration or usage
// error (systemd's RestartPreventExitStatus=2 keeps a bad config from
// restart-looping).
func exitCode(err error) int {
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// levelCritical sits above ERROR for conditions that stop the daemon.
const levelCritical = slog.Level(12)

// newLogger writes JSON lines (the default, for journald and log
// shippers) or, with format "text", readable lines for a terminal.
func newLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	if format == "text" {
		return slog.New(newTextHandler(w, level))
	}
	opts := func(access bool) *slog.HandlerOptions {
		return &slog.HandlerOptions{
			Level: level,
			ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
				if len(groups) > 0 {
					return a
				}
				switch a.Key {
				case slog.TimeKey:
					a.Key = "timestamp"
					a.Value = slog.StringValue(a.Value.Time().UTC().Format("2006-01-02T15:04:05.000000Z"))
				case slog.LevelKey:
					if access {
						return slog.Attr{}
					}
					if lv, ok := a.Value.Any().(slog.Level); ok && lv >= levelCritical {
						a.Value = slog.StringValue("CRITICAL")
					}
				case slog.MessageKey:
					if access {
						return slog.Attr{}
					}
				}
				return a
			},
		}
	}
	return slog.New(accessSplitHandler{Handler: slog.NewJSONHandler(w, opts(false)), access: slog.NewJSONHandler(w, opts(true))})
}

// accessSplitHandler gives the request log (logger "scand.access") a
// handler without slog's level and msg, so each access line has exactly
// SPEC.md's fields: timestamp, logger, request_id, method, path, status,
// latency_ms. Every other logger keeps level and msg.
type accessSplitHandler struct {
	slog.Handler
	access slog.Handler
}

func (h accessSplitHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	for _, a := range attrs {
		if a.Key == "logger" && a.Value.String() == "scand.access" {
			return h.access.WithAttrs(attrs)
		}
	}
	return accessSplitHandler{h.Handler.WithAttrs(attrs), h.access.WithAttrs(attrs)}
}

func (h accessSplitHandler) WithGroup(name string) slog.Handler {
	return accessSplitHandler{h.Handler.WithGroup(name), h.access.WithGroup(name)}
}

// command is one subcommand of the binary.
type command func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error

// commandFor names the subcommands besides the daemon (bare scand and
// scand serve), version and help.
func commandFor(name string) (command, bool) {
	switch name {
	case "scan":
		return runScanCommand, true // cmd_scan.go
	case "diff":
		return runDiffCommand, true // cmd_diff.go
	case "baseline":
		return runBaselineCommand, true // cmd_baseline.go
	case "config":
		return runConfigCommand, true // cmd_config.go
	case "status", "vulndb":
		return runVulnDBCommand, true // cmd_vulndb.go, cmd_status.go
	case "backup":
		return runBackupCommand, true // cmd_backup.go
	case "restore":
		return runRestoreCommand, true // cmd_backup.go
	}
	return nil, false
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name, rest := "", args
	if len(args) > 0 && (!strings.HasPrefix(args[0], "-") || args[0] == "--version" || args[0] == "-version") {
		name, rest = args[0], args[1:]
	}
	switch name {
	case "", "serve":
		return serve(ctx, rest, getenv, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "scand %s (%s %s/%s)\n", api.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return nil
	case "help":
		err := runHelp(rest, stdout, stderr)
		var h *helpRequest
		if !errors.As(err, &h) {
			return err
		}
		switch h.cmd {
		case "vulndb":
			return run(ctx, []string{"vulndb", "list", "-h"}, getenv, stdout, stderr)
		case "config":
			return run(ctx, []string{"config", "-h"}, getenv, stdout, stderr)
		}
		return run(ctx, []string{h.cmd, "-h"}, getenv, stdout, stderr)
	}
	cmd, ok := commandFor(name)
	if !ok {
		fmt.Fprint(stderr, topUsage)
		fmt.Fprintf(stderr, "scand: unknown command %q\n", name)
		return &usageError{fmt.Sprintf("unknown command %q", name)}
	}
	if name == "status" || name == "vulndb" {
		rest = args // they read their own name
	}
	err := cmd(ctx, rest, getenv, stdout, stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stderr, "scand %s: %s\n", name, err)
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "(scand %s -h lists the flags)\n", name)
		}
	}
	return err
}

// serve runs the daemon until ctx ends.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(args, getenv, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "scand:", err)
		}
		return err
	}
	baseLog := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	log := baseLog.With("logger", "scand")

	if cfg.AuthRequired && cfg.EventTokenSecret == "" {
		log.Log(ctx, levelCritical, "SVC_AUTH_REQUIRED=1 needs SVC_EVENT_TOKEN_SECRET to sign event tokens; refusing to start")
		return &usageError{"SVC_AUTH_REQUIRED=1 without SVC_EVENT_TOKEN_SECRET"}
	}

	// One process per database, decided before migrations and restart
	// recovery touch it: a second daemon would fail the first one's
	// running scans as "interrupted by restart".
	dbLock, err := store.Lock(cfg.DB)
	if err != nil {
		var locked *store.LockedError
		if errors.As(err, &locked) {
			log.Log(ctx, levelCritical, locked.Error()+"; refusing to start",
				"db", cfg.DB, "holder_pid", locked.PID, "lock_file", locked.LockPath)
			return &usageError{locked.Error()}
		}
		log.Log(ctx, levelCritical, "cannot lock database", "db", cfg.DB, "error", err.Error())
		return err
	}
	defer dbLock.Release()

	st, err := store.Open(ctx, cfg.DB, time.Now)
	if err != nil {
		log.Log(ctx, levelCritical, "cannot open database", "path", cfg.DB, "error", err.Error())
		if errors.Is(err, store.ErrIncompatibleSchema) {
			return &usageError{err.Error()}
		}
		return err
	}
	defer st.Close()

	authn := &auth.Authenticator{Store: st, EnvKey: cfg.APIKey, AuthRequired: cfg.AuthRequired}
	if cfg.AuthRequired && cfg.APIKey == "" {
		has, err := st.HasActiveAPIKeys(ctx)
		if err != nil {
			return err
		}
		if !has {
			log.Log(ctx, levelCritical, "SVC_AUTH_REQUIRED=1 but no credential is configured: set SVC_API_KEY or issue a DB key first; refusing to start")
			return &usageError{"SVC_AUTH_REQUIRED=1 with no credential"}
		}
	}
	eventSecret := []byte(cfg.EventTokenSecret)
	if len(eventSecret) == 0 {
		// Dev-mode tokens only need to outlive this process.
		eventSecret = make([]byte, 32)
		rand.Read(eventSecret)
	}
	if dev, err := authn.DevMode(ctx); err == nil && dev {
		log.Warn("DEV MODE: no SVC_API_KEY, no API keys and SVC_AUTH_REQUIRED=0 - every request is allowed with all scopes. Issue an admin key (POST /api/v1/keys) or set SVC_API_KEY before exposing scand.")
	}

	bus := sse.NewBus(baseLog.With("logger", "scand.events"))
	var app *app
	mon := monitor.New(monitor.Config{Registry: metrics.New(), Store: st, Auth: authn, Log: baseLog.With("logger", "scand.monitor"),
		Now: time.Now, Version: api.Version, Mode: cfg.Monitor.Metrics, ScrapeKey: cfg.Monitor.MetricsKey, BackupDir: cfg.Monitor.BackupDir,
		VulnDB: func(ctx context.Context) []vulndb.Info {
			return vulndb.Inventory(ctx, vulndb.Locations{Getenv: getenv, Dir: cfg.VulnDBDir})
		},
		Running: func() int {
			if app == nil {
				return 0
			}
			return app.orch.Running()
		}})
	app, err = wire(ctx, cfg, getenv, st, bus, baseLog, mon)
	if err != nil {
		return err
	}
	srv := api.New(api.Deps{
		Store:         st,
		Auth:          authn,
		Limiter:       auth.NewRateLimiter(cfg.RateLimitPerMin, cfg.RateLimitBurst, cfg.RateLimitEnabled),
		Throttle:      auth.NewFailureThrottle(),
		Hardening:     hardening.Policy{AllowedHosts: cfg.AllowedHosts, TrustProxy: cfg.TrustProxy},
		Bus:           bus,
		Log:           baseLog,
		Now:           time.Now,
		EventSecret:   eventSecret,
		Hooks:         app.hooks,
		Ready:         app.ready,
		Scans:         app.orch,
		ScanRoots:     cfg.ScanRoots,
		MaxHosts:      cfg.NmapMaxHosts,
		Targets:       netguard.Targets{Allow: cfg.TargetAllow},
		Git:           api.GitPolicy{Allow: cfg.Targets.GitAllow, RefuseAddress: gitAddressRefusal},
		Scanners:      app.registry,
		InstallRecipe: registry.InstallCommand,
		Runner:        app.runner,
		OutputNow:     outputClock(cfg.FakeNow),
		SLA:           cfg.SLA,
		InstanceName:  cfg.InstanceName,
		PDFRenderer:   cfg.PDFRenderer,
		Schedules:     app.schedules,
		Reevaluate:    app.reeval,
		VulnDB: api.VulnDBConfig{Dir: cfg.VulnDBDir, MaxUpload: int64(cfg.VulnDBMaxUploadMB) << 20,
			MaxAge: time.Duration(cfg.VulnDBMaxAgeDays) * 24 * time.Hour, Getenv: getenv},
		Monitor:   mon,
		LockCheck: dbLock.Check,
	})

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		log.Log(ctx, levelCritical, "cannot listen", "addr", cfg.Addr, "error", err.Error())
		return &usageError{fmt.Sprintf("listen on %s: %v", cfg.Addr, err)}
	}
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	httpSrv.RegisterOnShutdown(srv.CloseStreams)
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	if err := app.start(ctx); err != nil {
		httpSrv.Close()
		return err
	}
	log.Info("scand listening", "addr", ln.Addr().String(), "version", api.Version, "db", cfg.DB)
	sdNotify(getenv, "READY=1")

	select {
	case <-ctx.Done():
	case err := <-serveErr:
		app.stop()
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("shutting down")
	sdNotify(getenv, "STOPPING=1")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(shutdownCtx); err != nil {
		log.Warn("forced close of remaining connections", "error", err.Error())
		httpSrv.Close()
	}
	app.stop()
	log.Info("stopped")
	return nil
}

// outputClock is the SVC_FAKE_NOW clock for time-derived output fields, or
// nil when unset (reports then use the real clock, SBOMs the scan's time).
func outputClock(fake time.Time) func() time.Time {
	if fake.IsZero() {
		return nil
	}
	return func() time.Time { return fake }
}

// sdNotify sends a state line to systemd when run under Type=notify.
func sdNotify(getenv func(string) string, state string) {
	socket := getenv("NOTIFY_SOCKET")
	if socket == "" {
		return
	}
	if strings.HasPrefix(socket, "@") {
		socket = "\x00" + socket[1:]
	}
	conn, err := net.DialTimeout("unixgram", socket, time.Second)
	if err != nil {
		return
	}
	defer conn.Close()
	conn.SetWriteDeadline(time.Now().Add(time.Second))
	conn.Write([]byte(state))
}
