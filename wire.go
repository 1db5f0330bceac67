package main

import (
	"context"
	"log/slog"
	"time"

	"scand/hook"
	"scand/notify"
	"scand/scan"
	"scand/sse"
	"scand/store"
)

// app holds the background parts main.go starts after listening and stops
// after the HTTP server has drained.
type app struct {
	orch     *scan.Orchestrator
	hooks    *hook.Dispatcher
	registry []scan.Scanner
	runner   *scan.Runner
	ready    func() bool
	start    func(context.Context) error
	stop     func()
}

func wire(ctx context.Context, cfg config, getenv func(string) string, st *store.Store, bus *sse.Bus, log *slog.Logger) (*app, error) {
	scanCfg := scan.Config{Runner: scan.NewRunner(cfg.ScannerTimeout), Getenv: getenv, Now: time.Now, Logger: log.With("logger", "scand.scan")}
	registry := scan.Registry(scanCfg)
	orch := scan.NewOrchestrator(scan.OrchestratorOptions{
		Store: st, Bus: bus, Scanners: registry, Log: log.With("logger", "scand.orchestrator"), Now: time.Now,
		MaxConcurrent:     cfg.MaxConcurrentScans,
		CaptureComponents: scan.CaptureComponentsJSON,
	})
	hooks := hook.New(hook.Config{Store: st, Log: log.With("logger", "scand.hook"), Now: time.Now, AllowPrivate: cfg.WebhookAllowPriv})
	notes := notify.New(notify.Config{Store: st, Log: log.With("logger", "scand.notify"), Now: time.Now})
	bus.AddSink("webhooks", hooks.Sink)
	bus.AddSink("notifications", notes.Sink)
	a := &app{orch: orch, hooks: hooks, registry: registry, runner: scanCfg.Runner, ready: func() bool { return len(registry) > 0 }}
	storeLog := log.With("logger", "scand.store")
	maintCtx, stopMaint := context.WithCancel(context.WithoutCancel(ctx))
	var maintDone chan struct{}
	a.start = func(ctx context.Context) error {
		// Purging deleted findings, returning their space and checkpointing
		// the WAL run in the background for the daemon's lifetime.
		maintDone = make(chan struct{})
		go func() {
			defer close(maintDone)
			st.RunMaintenance(maintCtx, store.MaintenanceInterval, func(msg string, err error) {
				storeLog.Error(msg, "error", err.Error())
			})
		}()
		// Sinks first, so the first scan's events are not refused.
		if err := hooks.Start(ctx); err != nil {
			return err
		}
		if err := notes.Start(ctx); err != nil {
			return err
		}
		return orch.Start(ctx)
	}
	a.stop = func() {
		// The orchestrator's last events still reach the sinks.
		orch.Stop(15 * time.Second)
		notes.Stop(hook.DefaultStopTimeout)
		hooks.Stop()
		stopMaint()
		if maintDone != nil {
			select {
			case <-maintDone:
			case <-time.After(5 * time.Second):
			}
		}
	}
	return a, nil
}
