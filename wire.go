package main

import (
	"context"
	"log/slog"
	"net/netip"
	"time"

	"scand/api/monitor"
	"scand/api/review"
	"scand/finding/report"
	"scand/hook"
	"scand/notify"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/netguard"
	"scand/scan/proc"
	"scand/scan/reevaluate"
	"scand/scan/registry"
	"scand/scan/request"
	"scand/scan/schedule"
	"scand/scan/vulndb"
	"scand/scan/workdir"
	"scand/sse"
	"scand/store"
	"scand/vex/vexops"
)

// app holds the background parts main.go starts after listening and stops
// after the HTTP server has drained.
type app struct {
	orch      *scan.Orchestrator
	reeval    *reevaluate.Engine
	hooks     *hook.Dispatcher
	schedules *schedule.Scheduler
	registry  []scan.Scanner
	runner    *proc.Runner
	ready     func() bool
	start     func(context.Context) error
	stop      func()
}

func wire(ctx context.Context, cfg config, getenv func(string) string, st *store.Store, bus *sse.Bus, log *slog.Logger, mon *monitor.Monitor) (*app, error) {
	targets := netguard.Targets{Allow: cfg.TargetAllow}
	scanCfg := scan.Config{Runner: proc.NewRunner(cfg.ScannerTimeout), Getenv: getenv, Now: time.Now, Logger: log.With("logger", "scand.scan"),
		Targets: targets, VulnDBDir: cfg.VulnDBDir}
	scanners := registry.All(scanCfg)
	work, err := workdir.Open(cfg.Targets.WorkDir)
	if err != nil {
		return nil, &usageError{"SVC_WORK_DIR: " + err.Error()}
	}
	orch := scan.NewOrchestrator(scan.OrchestratorOptions{
		Store: st, Bus: bus, Scanners: scanners, Log: log.With("logger", "scand.orchestrator"), Now: time.Now,
		MaxConcurrent:     cfg.MaxConcurrentScans,
		CaptureComponents: components.CaptureJSON,
		ScanRoots:         cfg.ScanRoots,
		MaxDataAge:        time.Duration(cfg.VulnDBMaxAgeDays) * 24 * time.Hour,
		Targets:           registry.Targets(scanCfg, targetOptions(cfg, work, scanners)),
		ScannerTimeout:    cfg.ScannerTimeout,
		Redact:            registry.Redactor(scanCfg),
	})
	hooks := hook.New(hook.Config{Store: st, Log: log.With("logger", "scand.hook"), Now: time.Now, AllowPrivate: cfg.WebhookAllowPriv,
		Observe: mon.Delivery})
	notes := notify.New(notify.Config{Store: st, Log: log.With("logger", "scand.notify"), Now: time.Now, Created: mon.Notification})
	schedNow := time.Now
	if !cfg.SchedulerFakeStart.IsZero() {
		offset := time.Until(cfg.SchedulerFakeStart)
		schedNow = func() time.Time { return time.Now().Add(offset) }
		log.With("logger", "scand").Warn("SVC_SCHEDULER_FAKE_START is set: the scheduler's clock starts at " +
			cfg.SchedulerFakeStart.Format(time.RFC3339) + " and runs from there; a testing aid, unset it in production")
	}
	sched := schedule.New(schedule.Options{Store: st, Submit: orch.Submit, Now: schedNow, Log: log.With("logger", "scand.scheduler"),
		Policy: request.TargetPolicy{Roots: cfg.ScanRoots, MaxHosts: cfg.NmapMaxHosts, Targets: targets}, Ran: mon.ScheduleRun})
	alerts := schedule.NewAlerts(schedule.AlertOptions{Store: st, Bus: bus, Log: log.With("logger", "scand.alerts"), Now: time.Now, MinSeverity: cfg.AlertMinSeverity})
	retention := schedule.NewRetention(schedule.RetentionOptions{Store: st, Log: log.With("logger", "scand.retention"), Now: time.Now,
		MaxAge: time.Duration(cfg.RetentionDays) * 24 * time.Hour, AuditMaxAge: time.Duration(cfg.AuditRetentionDays) * 24 * time.Hour})
	slaNow := time.Now
	if clock := outputClock(cfg.FakeNow); clock != nil {
		slaNow = clock
	}
	var hidden []string
	for _, v := range store.TriageStatuses {
		if report.HiddenVerdict(v) {
			hidden = append(hidden, v)
		}
	}
	slaWatch := &notify.SLAWatch{Store: st, Bus: bus, Now: slaNow, SLA: cfg.SLA, Hidden: hidden, Log: log.With("logger", "scand.sla")}
	// Metrics first: counting is cheap and must not wait behind the others.
	bus.AddSink("metrics", mon.Sink)
	// Acceptances expire on the SVC_FAKE_NOW clock when it is set, so a
	// test can put an expiry in the past without waiting for it.
	expiryNow := time.Now
	if !cfg.FakeNow.IsZero() {
		expiryNow = outputClock(cfg.FakeNow)
	}
	expiry := schedule.NewExpiry(schedule.ExpiryOptions{Store: st, Bus: bus, Log: log.With("logger", "scand.expiry"), Now: expiryNow})
	st.SetAuditSink(review.Sink(log.With("logger", "scand.audit")))
	st.SetVEXPlanner(vexops.Planner(st, log.With("logger", "scand.vex")))
	bus.AddSink("webhooks", hooks.Sink)
	bus.AddSink("notifications", notes.Sink)
	bus.AddSink("alerts", alerts.Sink)
	bus.AddSink("retention", retention.Sink)
	poll := cfg.ReevaluatePoll
	if poll == 0 {
		poll = -1 // never, besides the look at start
	}
	reeval := reevaluate.New(reevaluate.Options{Store: st, Orchestrator: orch, Bus: bus, Log: log.With("logger", "scand.reevaluate"), Now: time.Now,
		WorkDir: work.Path(), DataState: func() string { return vulndb.ImportState(cfg.VulnDBDir) }, PollInterval: poll})
	a := &app{orch: orch, reeval: reeval, hooks: hooks, schedules: sched, registry: scanners, runner: scanCfg.Runner, ready: func() bool { return len(scanners) > 0 }}
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
		// After the orchestrator, which fails the scans a crash left
		// running: a resumed re-evaluation does those targets again.
		if err := reeval.Start(ctx); err != nil {
			return err
		}
		if err := sched.Start(ctx); err != nil {
			return err
		}
		// Findings past their fix deadline are announced daily, the
		// first time right after start (the sinks are running).
		slaWatch.Start(ctx)
		if err := expiry.Start(ctx); err != nil {
			return err
		}
		return retention.Start(ctx)
	}
	a.stop = func() {
		// No new scheduled scans while the orchestrator drains; the
		// orchestrator's last events still reach alerts, then the sinks.
		sched.Stop(5 * time.Second)
		retention.Stop(5 * time.Second)
		slaWatch.Stop(5 * time.Second)
		expiry.Stop(5 * time.Second)
		reeval.Stop(15 * time.Second)
		orch.Stop(15 * time.Second)
		if err := work.Close(); err != nil {
			log.With("logger", "scand").Warn("work directory not removed", "dir", work.Path(), "error", err.Error())
		}
		alerts.Stop(hook.DefaultStopTimeout)
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

// targetOptions configures image and repository targets from the config.
func targetOptions(cfg config, work *workdir.Dir, scanners []scan.Scanner) registry.TargetOptions {
	t := cfg.Targets
	return registry.TargetOptions{Work: work, MaxBytes: t.MaxBytes, MaxFiles: t.MaxFiles, Timeout: t.Timeout,
		ScanRoots: cfg.ScanRoots, GitAllow: t.GitAllow, RefuseAddress: gitAddressRefusal,
		CredentialsFile: t.CredentialsFile, CAFile: t.CAFile, Scanners: scanners}
}

// gitAddressRefusal refuses repository hosts that no scan may reach:
// link-local and cloud-metadata addresses (and the unspecified, multicast
// and broadcast ones), by the classification webhooks and DAST share.
// Loopback and private addresses, where internal git servers live, pass.
func gitAddressRefusal(a netip.Addr) string {
	reason, _ := netguard.AlwaysBlocked(a)
	return reason
}
