package notify

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"scand/finding"
	"scand/sse"
	"scand/store"
	"scand/store/targets"
)

// SLAWatch announces findings that passed their fix deadline: once a day
// (and at start), one finding.sla_breached event per target listing its
// newly overdue open findings. A finding is announced once: the store
// marks it after the event is published (a crash in between repeats it,
// as any at-least-once delivery may).
type SLAWatch struct {
	Store *store.Store
	Bus   *sse.Bus
	// Now is the deadline clock (SVC_FAKE_NOW when set).
	Now    func() time.Time
	SLA    finding.SLAPolicy
	Hidden []string
	Log    *slog.Logger
	// Interval between checks; a day when zero.
	Interval time.Duration

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// slaBatch bounds the breaches one round reads.
const slaBatch = 2000

// maxBreachesListed caps the findings one event lists.
const maxBreachesListed = 100

// Start checks at once, then every Interval, until Stop.
func (w *SLAWatch) Start(ctx context.Context) {
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	if !w.SLA.Enabled() {
		close(w.done)
		return
	}
	interval := w.Interval
	if interval <= 0 {
		interval = 24 * time.Hour
	}
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(w.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if _, err := w.Check(ctx); err != nil && w.Log != nil {
				w.Log.Error("SLA check failed", "error", err.Error())
			}
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends the watch, waiting at most timeout for a check in progress.
func (w *SLAWatch) Stop(timeout time.Duration) {
	if w.stop == nil {
		return
	}
	w.once.Do(func() { close(w.stop) })
	select {
	case <-w.done:
	case <-time.After(timeout):
	}
}

// Check publishes the events for every finding newly past its deadline and
// returns how many findings it announced.
func (w *SLAWatch) Check(ctx context.Context) (int, error) {
	sla := targets.SLA{Cutoffs: w.SLA.Cutoffs(w.Now())}
	total := 0
	for {
		bs, err := w.Store.NewlyOverdue(ctx, sla, w.Hidden, slaBatch)
		if err != nil || len(bs) == 0 {
			return total, err
		}
		for start := 0; start < len(bs); {
			end := start
			for end < len(bs) && bs[end].TargetID == bs[start].TargetID {
				end++
			}
			group := bs[start:end]
			w.publish(ctx, group)
			if err := w.Store.MarkBreachesAnnounced(ctx, group); err != nil {
				return total, err
			}
			total += len(group)
			start = end
		}
		if len(bs) < slaBatch {
			return total, nil
		}
	}
}

func (w *SLAWatch) publish(ctx context.Context, group []targets.Breach) {
	b0 := group[0]
	data := sse.FindingSLABreachedData{TargetID: b0.TargetID, TargetName: b0.TargetName, TargetKind: b0.TargetKind, ScanID: b0.ScanID,
		Count: len(group), Findings: []sse.SLABreach{}}
	for _, b := range group {
		data.BySeverity.Add(b.Severity, 1)
		if len(data.Findings) < maxBreachesListed {
			due, _ := w.SLA.DueAt(finding.Severity(b.Severity), b.FirstSeen)
			data.Findings = append(data.Findings, sse.SLABreach{Fingerprint: b.Fingerprint, Severity: b.Severity, Title: b.Title,
				FirstSeen: b.FirstSeen, DueAt: due})
		}
	}
	w.Bus.Publish(ctx, sse.Event{Name: sse.FindingSLABreached, Data: data, At: w.Now()})
	if w.Log != nil {
		w.Log.Info("findings past their fix deadline", "target_id", b0.TargetID, "target", b0.TargetName, "count", len(group))
	}
}
