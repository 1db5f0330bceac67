package main

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"scand/hook"
	"scand/notify"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/registry"
	"scand/scan/schedule"
	"scand/sse"
	"scand/store"
)

// app holds the background parts main.go starts after listening and stops
// after the HTTP server has drained.
type app struct {
	orch      *scan.Orchestrator
	hooks     *hook.Dispatcher
	schedules *schedule.Scheduler
	registry  []scan.Scanner
	runner    *scan.Runner
	ready     func() bool
	start     func(context.Context) error
	stop      func()
}

func wire(ctx context.Context, cfg config, getenv func(string) string, st *store.Store, bus *sse.Bus, log *slog.Logger) (*app, error) {
	scanCfg := scan.Config{Runner: scan.NewRunner(cfg.ScannerTimeout), Getenv: getenv, Now: time.Now, Logger: log.With("logger", "scand.scan")}
	scanners := registry.All(scanCfg)
	work, err := scan.OpenWorkDir(cfg.Targets.WorkDir)
	if err != nil {
		return nil, &usageError{"SVC_WORK_DIR: " + err.Error()}
	}
	orch := scan.NewOrchestrator(scan.OrchestratorOptions{
		Store: st, Bus: bus, Scanners: scanners, Log: log.With("logger", "scand.orchestrator"), Now: time.Now,
		MaxConcurrent:     cfg.MaxConcurrentScans,
		CaptureComponents: components.CaptureJSON,
		Targets:           registry.Targets(scanCfg, targetOptions(cfg, work)),
	})
	hooks := hook.New(hook.Config{Store: st, Log: log.With("logger", "scand.hook"), Now: time.Now, AllowPrivate: cfg.WebhookAllowPriv})
	notes := notify.New(notify.Config{Store: st, Log: log.With("logger", "scand.notify"), Now: time.Now})
	schedNow := time.Now
	if !cfg.SchedulerFakeStart.IsZero() {
		offset := time.Until(cfg.SchedulerFakeStart)
		schedNow = func() time.Time { return time.Now().Add(offset) }
		log.With("logger", "scand").Warn("SVC_SCHEDULER_FAKE_START is set: the scheduler's clock starts at " +
			cfg.SchedulerFakeStart.Format(time.RFC3339) + " and runs from there; a testing aid, unset it in production")
	}
	sched := schedule.New(schedule.Options{Store: st, Submit: orch.Submit, Now: schedNow, Log: log.With("logger", "scand.scheduler"),
		Policy: scan.TargetPolicy{Roots: cfg.ScanRoots, MaxHosts: cfg.NmapMaxHosts}})
	alerts := schedule.NewAlerts(schedule.AlertOptions{Store: st, Bus: bus, Log: log.With("logger", "scand.alerts"), Now: time.Now, MinSeverity: cfg.AlertMinSeverity})
	retention := schedule.NewRetention(schedule.RetentionOptions{Store: st, Log: log.With("logger", "scand.retention"), Now: time.Now,
		MaxAge: time.Duration(cfg.RetentionDays) * 24 * time.Hour})
	bus.AddSink("webhooks", hooks.Sink)
	bus.AddSink("notifications", notes.Sink)
	bus.AddSink("alerts", alerts.Sink)
	bus.AddSink("retention", retention.Sink)
	a := &app{orch: orch, hooks: hooks, schedules: sched, registry: scanners, runner: scanCfg.Runner, ready: func() bool { return len(scanners) > 0 }}
	a.start = func(ctx context.Context) error {
		// Sinks first, so the first scan's events are not refused; change
		// alerts publish to the webhook and notification sinks.
		if err := hooks.Start(ctx); err != nil {
			return err
		}
		if err := notes.Start(ctx); err != nil {
			return err
		}
		if err := alerts.Start(ctx); err != nil {
			return err
		}
		// The orchestrator queues pending scans and fails interrupted ones
		// before the scheduler decides whether a schedule is busy.
		if err := orch.Start(ctx); err != nil {
			return err
		}
		if err := sched.Start(ctx); err != nil {
			return err
		}
		return retention.Start(ctx)
	}
	a.stop = func() {
		// No new scheduled scans while the orchestrator drains; the
		// orchestrator's last events still reach alerts, then the sinks.
		sched.Stop(5 * time.Second)
		retention.Stop(5 * time.Second)
		orch.Stop(15 * time.Second)
		if err := work.Close(); err != nil {
			log.With("logger", "scand").Warn("work directory not removed", "dir", work.Path(), "error", err.Error())
		}
		alerts.Stop(hook.DefaultStopTimeout)
		notes.Stop(hook.DefaultStopTimeout)
		hooks.Stop()
	}
	return a, nil
}

// targetOptions configures image and repository targets from the config.
func targetOptions(cfg config, work *scan.WorkDir) registry.TargetOptions {
	t := cfg.Targets
	return registry.TargetOptions{Work: work, MaxBytes: t.MaxBytes, MaxFiles: t.MaxFiles, Timeout: t.Timeout,
		ScanRoots: cfg.ScanRoots, GitAllow: t.GitAllow, RefuseAddress: gitAddressRefusal,
		CredentialsFile: t.CredentialsFile, CAFile: t.CAFile}
}

// gitAddressRefusal is the webhook SSRF guard's classification applied to
// repository hosts: link-local and cloud-metadata addresses (and the
// unspecified, multicast and broadcast ones) are refused; loopback and
// private addresses, where internal git servers live, are allowed. main
// injects it because hook and scan must not import each other.
func gitAddressRefusal(a netip.Addr) string {
	var blocked *hook.BlockedAddressError
	if errors.As(hook.AddressPolicy{AllowPrivate: true}.Check(a), &blocked) {
		reason, _, _ := strings.Cut(blocked.Reason, ";")
		return reason
	}
	return ""
}
