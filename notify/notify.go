// Package notify turns scan events into in-app notifications (SPEC.md
// "Notification creation", plus scan.new_findings at or above its alert
// threshold) and prunes old read ones.
package notify

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"scand/finding"
	"scand/sse"
	"scand/store"
)

// Retention is how long a read notification is kept (SPEC.md Limits).
const Retention = 30 * 24 * time.Hour

// DefaultQueueSize bounds the events accepted by Sink and not yet stored.
const DefaultQueueSize = 1024

// Config is what New needs.
type Config struct {
	Store *store.Store
	Log   *slog.Logger
	Now   func() time.Time
	// Created, when set, is told the severity of every notification stored
	// (for /metrics).
	Created func(severity string)
}

// Service stores notifications for the events that deserve one.
type Service struct {
	// QueueSize may be changed between New and Start.
	QueueSize int

	store *store.Store
	log   *slog.Logger
	now   func() time.Time
	// created counts stored notifications for /metrics (Config.Created).
	created func(severity string)

	mu       sync.Mutex
	events   chan sse.Event
	quit     chan struct{}
	done     chan struct{}
	stopping bool
}

// New returns a service; Sink refuses events until Start.
func New(cfg Config) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{QueueSize: DefaultQueueSize, store: cfg.Store, log: cfg.Log, now: cfg.Now, created: cfg.Created}
}

// Start prunes read notifications older than Retention (unread ones are
// kept whatever their age) and starts storing events.
func (s *Service) Start(ctx context.Context) error {
	n, err := s.store.PruneReadNotifications(ctx, s.now().Add(-Retention))
	if err != nil {
		return err
	}
	if n > 0 {
		s.log.Info("pruned read notifications older than the retention period", "count", n, "retention_days", int(Retention/(24*time.Hour)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.events != nil {
		return errors.New("notifications already started")
	}
	s.events = make(chan sse.Event, max(s.QueueSize, 1))
	s.quit = make(chan struct{})
	s.done = make(chan struct{})
	go s.loop(context.WithoutCancel(ctx))
	return nil
}

// Stop stores what is still buffered, waiting at most timeout.
func (s *Service) Stop(timeout time.Duration) {
	s.mu.Lock()
	if s.events == nil || s.stopping {
		s.mu.Unlock()
		return
	}
	s.stopping = true
	s.mu.Unlock()
	close(s.quit)
	select {
	case <-s.done:
	case <-time.After(timeout):
		s.log.Error("notifications: buffered events not stored before the stop timeout")
	}
}

// Sink is the bus side effect. It never blocks and never touches the
// database: a scan must not wait on, or fail because of, a notification.
func (s *Service) Sink(_ context.Context, ev sse.Event) error {
	if !relevant(ev.Name) {
		return nil
	}
	s.mu.Lock()
	events, stopping := s.events, s.stopping
	s.mu.Unlock()
	if events == nil || stopping {
		return errors.New("notifications not running; event not stored")
	}
	select {
	case events <- ev:
		return nil
	default:
		return errors.New("notification queue full; event not stored")
	}
}

func relevant(name string) bool {
	return name == sse.ScanComplete || name == sse.ScanFailed || name == sse.ScannerFailed || name == sse.ScanNewFindings ||
		name == sse.ScanStaleData || name == sse.FindingAcceptanceExpired || name == sse.FindingSLABreached || name == sse.AdvisoryNewMatches
}

func (s *Service) loop(ctx context.Context) {
	defer close(s.done)
	for {
		select {
		case ev := <-s.events:
			s.store1(ctx, ev)
		case <-s.quit:
			for {
				select {
				case ev := <-s.events:
					s.store1(ctx, ev)
				default:
					return
				}
			}
		}
	}
}

func (s *Service) store1(ctx context.Context, ev sse.Event) {
	if _, err := s.Handle(ctx, ev); err != nil {
		s.log.Error("notification not stored", "event", ev.Name, "scan_id", ev.Scan, "error", err.Error())
	}
}

// Handle stores the notification ev calls for, if any, synchronously.
func (s *Service) Handle(ctx context.Context, ev sse.Event) (*store.Notification, error) {
	n, ok, err := Build(ev)
	if err != nil || !ok {
		return nil, err
	}
	n.CreatedAt = s.now()
	stored, err := s.store.CreateNotification(ctx, n)
	if err != nil {
		return nil, err
	}
	if s.created != nil {
		s.created(stored.Severity)
	}
	return &stored, nil
}

// facts is the union of the payload fields a notification uses. Payloads
// arrive as the sse structs, but decoding through JSON also accepts a
// pointer or a map from a publisher that builds its own.
type facts struct {
	ScanID         string              `json:"scan_id"`
	TargetPath     string              `json:"target_path"`
	FindingsCount  int                 `json:"findings_count"`
	RiskScore      int                 `json:"risk_score"`
	SeverityCounts *sse.SeverityCounts `json:"severity_counts"`
	Name           string              `json:"name"`
	Error          string              `json:"error"`
	// scan.new_findings
	PreviousScanID   string             `json:"previous_scan_id"`
	New              sse.SeverityCounts `json:"new"`
	FixedCount       int                `json:"fixed_count"`
	AlertMinSeverity string             `json:"alert_min_severity"`
	// finding.acceptance_expired
	Fingerprint    string `json:"fingerprint"`
	PreviousStatus string `json:"previous_status"`
	ExpiresAt      string `json:"expires_at"`
	// scan.stale_data
	Databases []string `json:"databases"`
	Warnings  []string `json:"warnings"`
	// finding.sla_breached
	TargetName string             `json:"target_name"`
	Count      int                `json:"count"`
	BySeverity sse.SeverityCounts `json:"by_severity"`
	// advisory.new_matches
	ReevaluationID string               `json:"reevaluation_id"`
	TargetsCount   int                  `json:"targets_count"`
	Targets        []sse.AdvisoryTarget `json:"targets"`
}

// Build returns the notification ev calls for; ok is false when it calls
// for none (another event, or a scan that found nothing).
func Build(ev sse.Event) (n store.Notification, ok bool, err error) {
	if !relevant(ev.Name) {
		return n, false, nil
	}
	raw, err := json.Marshal(ev.Data)
	if err != nil {
		return n, false, err
	}
	var f facts
	if err := json.Unmarshal(raw, &f); err != nil {
		return n, false, errors.New("event " + ev.Name + ": unexpected payload shape")
	}
	if f.ScanID == "" {
		f.ScanID = ev.Scan
	}
	n.ScanID = f.ScanID
	target := f.TargetPath
	if target == "" {
		target = "scan " + f.ScanID
	}
	switch ev.Name {
	case sse.ScanComplete:
		if f.FindingsCount <= 0 {
			return n, false, nil
		}
		var counts sse.SeverityCounts
		if f.SeverityCounts != nil {
			counts = *f.SeverityCounts
		}
		// A scan.complete whose counts are missing still reports findings.
		if n.Severity = counts.Highest(); n.Severity == "" {
			n.Severity = "info"
		}
		n.Title = "Scan found " + plural(f.FindingsCount, "finding") + " in " + target
		n.Body = "Scan " + f.ScanID + " of " + target + " completed with " + plural(f.FindingsCount, "finding")
		if line := counts.Breakdown(); line != "" {
			n.Body += " (" + line + ")"
		}
		n.Body += "; risk score " + strconv.Itoa(f.RiskScore) + "."
	case sse.ScanFailed:
		n.Severity = "high"
		n.Title = "Scan failed: " + target
		n.Body = "Scan " + f.ScanID + " of " + target + " failed"
		if f.Error != "" {
			n.Body += ": " + f.Error
		}
		n.Body += ". No findings were recorded for it."
	case sse.ScannerFailed:
		name := f.Name
		if name == "" {
			name = "a scanner"
		}
		n.Severity = "medium"
		n.Title = "Scanner " + name + " failed"
		n.Body = "Scanner " + name + " failed during scan " + f.ScanID
		if f.Error != "" {
			n.Body += ": " + f.Error
		}
		n.Body += ". The scan went on without it; its results are incomplete."
	case sse.ScanNewFindings:
		// Only new findings at or above the threshold are worth a
		// notification; the webhook carries every change.
		highest := f.New.Highest()
		threshold := finding.Severity(f.AlertMinSeverity)
		if !threshold.Valid() {
			threshold = finding.High
		}
		if highest == "" || finding.Severity(highest).Rank() < threshold.Rank() {
			return n, false, nil
		}
		total := f.New.Critical + f.New.High + f.New.Medium + f.New.Low + f.New.Info
		n.Severity = highest
		n.Title = "New " + plural(total, "finding") + " in " + target
		n.Body = "Scan " + f.ScanID + " of " + target + " has " + plural(total, "new finding") + " (" + f.New.Breakdown() +
			") that scan " + f.PreviousScanID + " did not have"
		if f.FixedCount > 0 {
			n.Body += "; " + plural(f.FixedCount, "finding") + " no longer reported"
		}
		n.Body += "."
	case sse.FindingSLABreached:
		if f.Count <= 0 {
			return n, false, nil
		}
		if n.Severity = f.BySeverity.Highest(); n.Severity == "" {
			n.Severity = "info"
		}
		n.Title = plural(f.Count, "finding") + " past the fix deadline in " + f.TargetName
		n.Body = "Open findings of " + f.TargetName + " passed their SVC_SLA_DAYS deadline (" + f.BySeverity.Breakdown() +
			"), in its latest scan " + f.ScanID + "."
	case sse.AdvisoryNewMatches:
		if f.Count <= 0 {
			return n, false, nil
		}
		if n.Severity = f.BySeverity.Highest(); n.Severity == "" {
			n.Severity = "info"
		}
		n.ScanID = ""
		if len(f.Targets) > 0 {
			n.ScanID = f.Targets[0].ScanID
		}
		n.Title = plural(f.Count, "newly matched advisory") + " in " + plural(f.TargetsCount, "target")
		n.Title = strings.Replace(n.Title, "advisorys", "advisories", 1)
		var names []string
		for i, t := range f.Targets {
			if i == 5 {
				names = append(names, "and "+strconv.Itoa(len(f.Targets)-5)+" more")
				break
			}
			var ids []string
			for j, m := range t.Matches {
				if j == 5 {
					ids = append(ids, "...")
					break
				}
				ids = append(ids, m.AdvisoryID+" ("+m.Package+" "+m.Version+")")
			}
			names = append(names, t.TargetName+": "+strings.Join(ids, ", "))
		}
		n.Body = "Re-evaluation " + f.ReevaluationID + " of stored SBOMs against the current advisory data matched " +
			plural(f.Count, "advisory") + " (" + f.BySeverity.Breakdown() + ") that the targets' previous scans did not have: " +
			strings.Join(names, "; ") + "."
		n.Body = strings.Replace(n.Body, "advisorys", "advisories", 1)
	case sse.FindingAcceptanceExpired:
		n.Severity = "medium"
		n.Title = "Acceptance expired: finding " + short(f.Fingerprint) + " is open again"
		n.Body = "The " + strings.ReplaceAll(f.PreviousStatus, "_", " ") + " verdict on finding " + f.Fingerprint + " expired at " +
			f.ExpiresAt + "; the finding is new again and counts on the dashboard until someone triages it."
	case sse.ScanStaleData:
		if len(f.Warnings) == 0 {
			return n, false, nil
		}
		n.Severity = "medium"
		n.Title = "Stale advisory data in the scan of " + target
		n.Body = "Scan " + f.ScanID + " of " + target + " checked dependencies against old offline data: " +
			strings.Join(f.Warnings, "; ") + "."
	}
	return n, true, nil
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
