package schedule

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"scand/scan"
	"scand/sse"
	"scand/store"
)

// Retention defaults.
const (
	// DefaultRetentionInterval is how often retention looks for old scans
	// besides after each completed scan.
	DefaultRetentionInterval = time.Hour
	// retentionBatch bounds the scans deleted between pauses.
	retentionBatch = 50
	// retentionPause lets other writers in between batches.
	retentionPause = 200 * time.Millisecond
	// retentionMaxPerRun bounds one pass; the next pass goes on.
	retentionMaxPerRun = 5000
)

// RetentionOptions wires Retention.
type RetentionOptions struct {
	Store *store.Store
	Log   *slog.Logger
	Now   func() time.Time
	// MaxAge deletes completed scans older than this (SVC_RETENTION_DAYS);
	// 0 keeps them. Schedules' keep_last applies either way.
	MaxAge time.Duration
	// AuditMaxAge deletes audit records older than this
	// (SVC_AUDIT_RETENTION_DAYS); 0 keeps them.
	AuditMaxAge time.Duration
	Interval    time.Duration
	// Pause between batches; 0 means retentionPause.
	Pause time.Duration
}

// Retention deletes old completed scans in the background, in bounded
// batches, through the store's scan deletion (findings go, triage,
// comments and history stay: they are keyed on fingerprints). It never
// deletes the newest completed scan of a target and set of scan types.
type Retention struct {
	store    *store.Store
	log      *slog.Logger
	now      func() time.Time
	maxAge   time.Duration
	auditAge time.Duration
	interval time.Duration
	pause    time.Duration
	bg       *background
}

// NewRetention returns the retention service; Start runs it.
func NewRetention(o RetentionOptions) *Retention {
	o.Log, o.Now = scan.LoggerOrDiscard(o.Log), scan.ClockOrWall(o.Now)
	if o.Interval <= 0 {
		o.Interval = DefaultRetentionInterval
	}
	if o.Pause <= 0 {
		o.Pause = retentionPause
	}
	return &Retention{store: o.Store, log: o.Log, now: o.Now, maxAge: o.MaxAge, auditAge: o.AuditMaxAge, interval: o.Interval, pause: o.Pause, bg: newBackground("retention")}
}

// Start runs a pass now, after each completed scan and every interval.
func (r *Retention) Start(ctx context.Context) error {
	return r.bg.start(ctx, r.loop)
}

// Stop ends the loop between two deletions, waiting at most timeout.
func (r *Retention) Stop(timeout time.Duration) {
	r.bg.stop(timeout, r.log)
}

// Sink wakes retention after a completed scan, so a schedule's keep_last
// holds right after its newest scan lands.
func (r *Retention) Sink(_ context.Context, ev sse.Event) error {
	if ev.Name == sse.ScanComplete {
		r.bg.poke()
	}
	return nil
}

func (r *Retention) loop(ctx context.Context) {
	for {
		if _, err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("retention pass failed", "error", err.Error())
		}
		if !r.bg.pause(ctx, r.interval) {
			return
		}
	}
}

// RunOnce deletes what retention allows now, in batches, and returns how
// many scans it deleted.
func (r *Retention) RunOnce(ctx context.Context) (int, error) {
	if r.auditAge > 0 {
		if n, err := r.store.PurgeAudit(ctx, r.now().Add(-r.auditAge)); err != nil {
			return 0, err
		} else if n > 0 {
			r.log.Info("retention deleted old audit records", "count", n)
		}
	}
	var cutoff *time.Time
	if r.maxAge > 0 {
		c := r.now().Add(-r.maxAge)
		cutoff = &c
	}
	tried := map[string]bool{}
	deleted := 0
	defer func() {
		if deleted > 0 {
			r.log.Info("retention deleted old scans", "count", deleted)
		}
	}()
	for deleted < retentionMaxPerRun {
		ids, err := r.store.RetentionCandidates(ctx, cutoff, retentionBatch)
		if err != nil {
			return deleted, err
		}
		progress := false
		for _, id := range ids {
			if tried[id] {
				continue
			}
			tried[id] = true
			progress = true
			err := r.store.DeleteScan(ctx, id)
			switch {
			case err == nil:
				deleted++
				r.log.Debug("retention deleted a scan", "scan_id", id)
			case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrConflict):
				// Deleted or changed by someone else meanwhile.
			default:
				return deleted, err
			}
		}
		if !progress || len(ids) < retentionBatch {
			return deleted, nil
		}
		timer := time.NewTimer(r.pause)
		select {
		case <-ctx.Done():
			timer.Stop()
			return deleted, ctx.Err()
		case <-timer.C:
		}
	}
	return deleted, nil
}
