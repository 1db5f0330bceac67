package schedule

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/sse"
	"scand/store"
)

// DefaultAlertMinSeverity is SVC_ALERT_MIN_SEVERITY's default.
const DefaultAlertMinSeverity = "high"

// alertQueue bounds the completed scans waiting for their comparison.
const alertQueue = 1024

// AlertOptions wires Alerts.
type AlertOptions struct {
	Store *store.Store
	Bus   *sse.Bus
	Log   *slog.Logger
	Now   func() time.Time
	// MinSeverity is the notification threshold of scans whose schedule
	// sets none (SVC_ALERT_MIN_SEVERITY).
	MinSeverity string
}

// Alerts compares every completed scan, scheduled or not, with the
// previous completed scan of its target and publishes scan.new_findings
// when live findings appeared.
type Alerts struct {
	store *store.Store
	bus   *sse.Bus
	log   *slog.Logger
	now   func() time.Time
	min   string

	mu       sync.Mutex
	queue    chan string
	quit     chan struct{}
	done     chan struct{}
	stopping bool
}

// NewAlerts returns the change-alert service; Sink refuses events until
// Start.
func NewAlerts(o AlertOptions) *Alerts {
	o.Log, o.Now = scan.LoggerOrDiscard(o.Log), scan.ClockOrWall(o.Now)
	if !finding.Severity(o.MinSeverity).Valid() {
		o.MinSeverity = DefaultAlertMinSeverity
	}
	return &Alerts{store: o.Store, bus: o.Bus, log: o.Log, now: o.Now, min: o.MinSeverity}
}

// Start begins comparing completed scans.
func (a *Alerts) Start(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.queue != nil {
		return errors.New("change alerts already started")
	}
	a.queue = make(chan string, alertQueue)
	a.quit = make(chan struct{})
	a.done = make(chan struct{})
	go a.loop(context.WithoutCancel(ctx))
	return nil
}

// Stop compares what is still queued, waiting at most timeout. Stop it
// after the orchestrator (whose last scans it compares) and before the
// sinks its events go to.
func (a *Alerts) Stop(timeout time.Duration) {
	a.mu.Lock()
	if a.queue == nil || a.stopping {
		a.mu.Unlock()
		return
	}
	a.stopping = true
	a.mu.Unlock()
	close(a.quit)
	select {
	case <-a.done:
	case <-time.After(timeout):
		a.log.Error("change alerts: queued scans not compared before the stop timeout")
	}
}

// Sink is the bus side effect: it queues each completed scan and never
// blocks the publisher or touches the database.
func (a *Alerts) Sink(_ context.Context, ev sse.Event) error {
	if ev.Name != sse.ScanComplete {
		return nil
	}
	scanID := ev.Scan
	if d, ok := ev.Data.(sse.ScanCompleteData); ok && d.ScanID != "" {
		scanID = d.ScanID
	}
	a.mu.Lock()
	queue, stopping := a.queue, a.stopping
	a.mu.Unlock()
	if queue == nil || stopping {
		return errors.New("change alerts not running; scan " + scanID + " not compared")
	}
	select {
	case queue <- scanID:
		return nil
	default:
		return errors.New("change-alert queue full; scan " + scanID + " not compared")
	}
}

func (a *Alerts) loop(ctx context.Context) {
	defer close(a.done)
	for {
		select {
		case id := <-a.queue:
			a.check(ctx, id)
		case <-a.quit:
			for {
				select {
				case id := <-a.queue:
					a.check(ctx, id)
				default:
					return
				}
			}
		}
	}
}

func (a *Alerts) check(ctx context.Context, scanID string) {
	if _, _, err := a.Check(ctx, scanID); err != nil {
		a.log.Error("change alert not computed", "scan_id", scanID, "error", err.Error())
	}
}

// Check compares a completed scan with its predecessor and publishes
// scan.new_findings when it has new live findings. It returns the payload
// and whether it was published.
func (a *Alerts) Check(ctx context.Context, scanID string) (sse.ScanNewFindingsData, bool, error) {
	var data sse.ScanNewFindingsData
	ch, ok, err := a.store.ChangesSincePrevious(ctx, scanID)
	if err != nil || !ok {
		return data, false, err
	}
	counts := sse.SeverityCounts{Critical: ch.New["critical"], High: ch.New["high"], Medium: ch.New["medium"], Low: ch.New["low"], Info: ch.New["info"]}
	data = sse.ScanNewFindingsData{ScanID: ch.ScanID, PreviousScanID: ch.PreviousScanID, TargetPath: ch.TargetPath, New: counts,
		FixedCount: ch.Fixed, AlertMinSeverity: a.min, NotCompared: ch.NotCompared}
	if data.NotCompared == nil {
		data.NotCompared = []string{}
	}
	if data.New.Highest() == "" {
		return data, false, nil
	}
	if ch.ScheduleID != "" {
		id := ch.ScheduleID
		data.ScheduleID = &id
		sc, err := a.store.ScheduleByID(ctx, id)
		switch {
		case err == nil && sc.AlertMinSeverity != "":
			data.AlertMinSeverity = sc.AlertMinSeverity
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return data, false, err
		}
	}
	a.bus.Publish(ctx, sse.Event{Name: sse.ScanNewFindings, Data: data, At: a.now()})
	a.log.Info("new findings since the previous scan", "scan_id", data.ScanID, "previous_scan_id", data.PreviousScanID,
		"new", data.New.Breakdown(), "fixed", data.FixedCount)
	return data, true, nil
}
