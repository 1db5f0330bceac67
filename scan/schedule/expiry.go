package schedule

import (
	"context"
	"log/slog"
	"time"

	"scand/scan"
	"scand/sse"
	"scand/store"
)

// DefaultExpiryInterval is how often expiring verdicts are checked: an
// acceptance ends within a minute of its expires_at.
const DefaultExpiryInterval = time.Minute

// expiryBatch bounds one transaction of the sweep.
const expiryBatch = 500

// ExpiryOptions wires Expiry.
type ExpiryOptions struct {
	Store *store.Store
	Bus   *sse.Bus
	Log   *slog.Logger
	// Now decides what has expired; SVC_FAKE_NOW pins it.
	Now      func() time.Time
	Interval time.Duration
}

// Expiry returns accepted_risk and wont_fix verdicts to new when their
// expires_at passes, and publishes finding.acceptance_expired once per
// verdict (webhooks, notifications). The store clears expires_at in the
// same transaction as the change, so a verdict expires once even across
// restarts.
type Expiry struct {
	o  ExpiryOptions
	bg *background
}

// NewExpiry returns the sweep; Start runs it.
func NewExpiry(o ExpiryOptions) *Expiry {
	o.Log, o.Now = scan.LoggerOrDiscard(o.Log), scan.ClockOrWall(o.Now)
	if o.Interval <= 0 {
		o.Interval = DefaultExpiryInterval
	}
	return &Expiry{o: o, bg: newBackground("expiry")}
}

// Start runs a pass now and then every interval.
func (e *Expiry) Start(ctx context.Context) error { return e.bg.start(ctx, e.loop) }

// Stop ends the loop, waiting at most timeout.
func (e *Expiry) Stop(timeout time.Duration) { e.bg.stop(timeout, e.o.Log) }

func (e *Expiry) loop(ctx context.Context) {
	for {
		if _, err := e.RunOnce(ctx); err != nil && ctx.Err() == nil {
			e.o.Log.Error("acceptance expiry pass failed", "error", err.Error())
		}
		if !e.bg.pause(ctx, e.o.Interval) {
			return
		}
	}
}

// RunOnce expires every verdict due now and returns how many.
func (e *Expiry) RunOnce(ctx context.Context) (int, error) {
	total := 0
	for {
		expired, err := e.o.Store.ExpireVerdicts(ctx, e.o.Now(), expiryBatch)
		if err != nil {
			return total, err
		}
		for _, v := range expired {
			e.o.Log.Info("acceptance expired", "fingerprint", v.Fingerprint, "previous_status", v.Status)
			if e.o.Bus != nil {
				e.o.Bus.Publish(ctx, sse.Event{Name: sse.FindingAcceptanceExpired, At: e.o.Now(), Data: sse.AcceptanceExpiredData{
					Fingerprint: v.Fingerprint, PreviousStatus: v.Status, ExpiresAt: v.ExpiresAt.UTC().Format(time.RFC3339), Status: "new"}})
			}
		}
		total += len(expired)
		if len(expired) < expiryBatch || ctx.Err() != nil {
			return total, ctx.Err()
		}
	}
}
