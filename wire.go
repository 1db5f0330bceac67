package main

import (
	"context"
	"log/slog"
	"time"

	"scand/scan"
	"scand/sse"
	"scand/store"
)

// app holds the background parts main.go starts after listening and stops
// after the HTTP server has drained.
type app struct {
	orch     *scan.Orchestrator
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
	a := &app{orch: orch, registry: registry, runner: scanCfg.Runner, ready: func() bool { return len(registry) > 0 }}
	a.start = func(ctx context.Context) error { return orch.Start(ctx) }
	a.stop = func() { orch.Stop(15 * time.Second) }
	return a, nil
}
