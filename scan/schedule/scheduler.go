// Package schedule runs recurring scans (issue 17): the scheduler that
// starts a schedule's scans when its cron expression comes due, the change
// alerts published after every completed scan, and retention of old
// scans. Scans it starts go through the orchestrator's normal queue, so
// SVC_MAX_CONCURRENT_SCANS applies to them like to any other.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"scand/finding"
	"scand/scan"
	"scand/scan/cron"
	"scand/scan/request"
	"scand/store"
	"scand/store/audit"
)

// DefaultMaxSleep bounds how long the scheduler sleeps between looks at
// the clock, so a stepped system clock or a suspended machine is noticed
// within a minute even though the wake-up time is computed exactly.
const DefaultMaxSleep = time.Minute

// errorBackoff is the pause after a database error, so a broken disk does
// not turn the loop into a busy one.
const errorBackoff = 10 * time.Second

// dueBatch bounds how many due schedules one query returns.
const dueBatch = 100

// Limits of a schedule's fields.
const (
	MaxNameLen     = 200
	MaxTimezoneLen = 64
	MaxKeepLast    = 100000
)

// Options wires a Scheduler.
type Options struct {
	Store *store.Store
	// Submit queues a pending scan with the orchestrator (its Submit).
	Submit func(scanID string)
	// Policy is the same target confinement POST /scans applies.
	Policy request.TargetPolicy
	// Now is the scheduler's clock: when schedules are due and from when
	// their next run is computed.
	Now      func() time.Time
	Log      *slog.Logger
	MaxSleep time.Duration
	// Ran, when set, is told the outcome of every recorded run (started,
	// skipped, failed) for /metrics.
	Ran func(outcome string)
}

// Scheduler starts the scans of due schedules.
type Scheduler struct {
	store    *store.Store
	submit   func(string)
	policy   request.TargetPolicy
	now      func() time.Time
	log      *slog.Logger
	maxSleep time.Duration
	// ran counts recorded runs by outcome for /metrics (Options.Ran).
	ran   func(outcome string)
	zones *zoneCache
	bg    *background
}

// New returns a scheduler; Start runs it.
func New(o Options) *Scheduler {
	o.Log, o.Now = scan.LoggerOrDiscard(o.Log), scan.ClockOrWall(o.Now)
	if o.MaxSleep <= 0 {
		o.MaxSleep = DefaultMaxSleep
	}
	if o.Submit == nil {
		o.Submit = func(string) {}
	}
	return &Scheduler{store: o.Store, submit: o.Submit, policy: o.Policy, now: o.Now, log: o.Log, maxSleep: o.MaxSleep, ran: o.Ran,
		zones: newZoneCache(), bg: newBackground("scheduler")}
}

// Now is the scheduler's clock.
func (s *Scheduler) Now() time.Time { return s.now() }

// Start runs every schedule that came due while the daemon was down (once
// each, however many run times it missed) and then keeps running
// schedules as they come due. Start the orchestrator first.
func (s *Scheduler) Start(ctx context.Context) error {
	return s.bg.start(ctx, s.loop)
}

// Stop ends the loop, waiting at most timeout for a run in progress.
func (s *Scheduler) Stop(timeout time.Duration) {
	s.bg.stop(timeout, s.log)
}

// Wake makes the loop look at the schedules now: after an edit, or after
// a test moved the clock.
func (s *Scheduler) Wake() { s.bg.poke() }

func (s *Scheduler) loop(ctx context.Context) {
	for {
		wait := s.maxSleep
		if _, err := s.RunDue(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Error("running due schedules failed", "error", err.Error())
			wait = errorBackoff
		} else if at, ok, err := s.store.NextScheduledRun(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Error("reading the next scheduled run failed", "error", err.Error())
			wait = errorBackoff
		} else if ok {
			d := at.Sub(s.now())
			if d <= 0 {
				// Still due right after RunDue: its run could not be
				// recorded. Look again soon rather than spin.
				d = time.Second
			}
			wait = min(wait, d)
		}
		if !s.bg.pause(ctx, wait) {
			return
		}
	}
}

// RunDue handles every schedule due at the scheduler's current time and
// returns how many it recorded a run for. Each schedule runs once however
// many run times it missed; its next run is computed from now.
func (s *Scheduler) RunDue(ctx context.Context) (int, error) {
	now := s.now()
	seen := map[string]bool{}
	n := 0
	for {
		due, err := s.store.DueSchedules(ctx, now, dueBatch)
		if err != nil {
			return n, err
		}
		progress := false
		for _, sc := range due {
			if seen[sc.ID] {
				continue
			}
			seen[sc.ID] = true
			progress = true
			recorded, err := s.runOne(ctx, sc, now)
			if err != nil {
				return n, err
			}
			if recorded {
				n++
			}
		}
		if !progress || len(due) < dueBatch {
			return n, nil
		}
	}
}

// reasonBusy is the reason of a skipped run.
const reasonBusy = "the previous run of this schedule is still pending or running"

// runOne records one due schedule's run: a scan started, a skip while its
// previous scan is still pending or running, or a failure (the target no
// longer passes the checks of POST /scans, or the schedule cannot be
// computed any more). false with a nil error means the schedule changed
// under us and another look will handle it.
func (s *Scheduler) runOne(ctx context.Context, sc store.Schedule, now time.Time) (bool, error) {
	due := *sc.NextRunAt
	rec := store.ScheduleRunRecord{ScheduleID: sc.ID, Due: due, Run: store.ScheduleRun{ScheduledFor: due}}
	next, err := s.NextRun(sc.Cron, sc.Timezone, now)
	if err != nil {
		// The time-zone database lost the zone, or the stored expression
		// no longer parses: record why and try again in an hour.
		retry := now.Add(time.Hour)
		rec.Next = &retry
		rec.Run.Outcome, rec.Run.Reason = store.RunFailed, "cannot compute the next run: "+err.Error()
		return s.record(ctx, sc, rec)
	}
	rec.Next = &next
	busy, err := s.store.ScheduleBusy(ctx, sc.ID)
	if err != nil {
		return false, err
	}
	if busy {
		rec.Run.Outcome, rec.Run.Reason = store.RunSkipped, reasonBusy
		return s.record(ctx, sc, rec)
	}
	req, probs, err := s.policy.Check(request.Request{TargetPath: sc.TargetPath, ScanTypes: sc.ScanTypes, TargetURL: sc.TargetURL, TargetHost: sc.TargetHost})
	switch {
	case len(probs) > 0:
		rec.Run.Outcome, rec.Run.Reason = store.RunFailed, "target no longer valid: "+describe(probs)
	case err != nil:
		rec.Run.Outcome, rec.Run.Reason = store.RunFailed, "target no longer valid: "+err.Error()
	default:
		rec.Run.Outcome = store.RunStarted
		rec.Scan = &store.Scan{ID: store.NewID(), TargetPath: req.ScanPath, ScanTypes: req.ScanTypes, TargetURL: req.TargetURL,
			TargetHost: req.TargetHost, CreatedBy: sc.CreatedBy}
	}
	return s.record(ctx, sc, rec)
}

func (s *Scheduler) record(ctx context.Context, sc store.Schedule, rec store.ScheduleRunRecord) (bool, error) {
	run, err := s.store.RecordScheduleRun(ctx, rec)
	if errors.Is(err, store.ErrConflict) {
		s.log.Debug("schedule changed before its run was recorded", "schedule_id", sc.ID)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if s.ran != nil {
		s.ran(run.Outcome)
	}
	attrs := []any{"schedule_id", sc.ID, "run_id", run.ID, "scheduled_for", run.ScheduledFor.Format(time.RFC3339), "next_run_at", rec.Next.Format(time.RFC3339)}
	switch run.Outcome {
	case store.RunStarted:
		s.submit(run.ScanID)
		s.log.Info("scheduled scan started", append(attrs, "scan_id", run.ScanID)...)
		if _, err := s.store.AppendAudit(ctx, audit.Record{Actor: audit.System("schedule " + sc.ID), Action: "scan.start", ObjectType: "scan",
			ObjectID: run.ScanID, Changes: audit.Changes{"status": {After: "pending"}, "schedule_id": {After: sc.ID},
				"target_path": {After: rec.Scan.TargetPath}, "scan_types": {After: rec.Scan.ScanTypes}}}); err != nil {
			s.log.Error("audit record not written", "action", "scan.start", "scan_id", run.ScanID, "error", err.Error())
		}
	case store.RunSkipped:
		s.log.Info("scheduled scan skipped", append(attrs, "reason", run.Reason)...)
	default:
		s.log.Warn("scheduled scan not started", append(attrs, "reason", run.Reason)...)
	}
	return true, nil
}

func describe(probs []request.Problem) string {
	parts := make([]string, 0, len(probs))
	for _, p := range probs {
		field := fmt.Sprint(p.Loc[0])
		msg := p.Msg
		if !strings.HasPrefix(msg, field) {
			msg = field + ": " + msg
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

// NextRun is the first run time of expr in the named zone after `after`.
func (s *Scheduler) NextRun(expr, zone string, after time.Time) (time.Time, error) {
	loc, err := s.zones.load(zone)
	if err != nil {
		return time.Time{}, err
	}
	c, err := cron.Parse(expr)
	if err != nil {
		return time.Time{}, err
	}
	next := c.Next(after, loc)
	if next.IsZero() {
		return next, errors.New("the expression never fires")
	}
	return next.UTC(), nil
}

// Spec is the part of a schedule its owner writes.
type Spec struct {
	Name       string
	TargetPath string
	ScanTypes  []string
	TargetURL  *string
	TargetHost *string
	Cron       string
	// Timezone is an IANA name; "" means UTC.
	Timezone string
	Enabled  bool
	// AlertMinSeverity "" means the daemon's default.
	AlertMinSeverity string
	// KeepLast 0 means no per-schedule retention.
	KeepLast int
}

func specOf(sc store.Schedule) Spec {
	return Spec{Name: sc.Name, TargetPath: sc.TargetPath, ScanTypes: sc.ScanTypes, TargetURL: sc.TargetURL, TargetHost: sc.TargetHost,
		Cron: sc.Cron, Timezone: sc.Timezone, Enabled: sc.Enabled, AlertMinSeverity: sc.AlertMinSeverity, KeepLast: sc.KeepLast}
}

// ValidationError lists what is wrong with a Spec, field by field (the
// API's 422).
type ValidationError struct {
	Problems []request.Problem
}

func (e *ValidationError) Error() string { return "invalid schedule: " + describe(e.Problems) }

// check validates spec and returns it normalized. checkTarget is false
// when an edit leaves the target alone: a schedule whose tree vanished can
// still be renamed or disabled; its runs record the failure instead.
func (s *Scheduler) check(spec Spec, checkTarget bool) (Spec, error) {
	var probs []request.Problem
	add := func(field, typ, msg string, input any) {
		probs = append(probs, request.Problem{Loc: []any{field}, Type: typ, Msg: msg, Input: input})
	}
	name := strings.TrimSpace(spec.Name)
	if n := utf8.RuneCountInString(name); n < 1 || n > MaxNameLen {
		add("name", "string_length", fmt.Sprintf("name must be 1 to %d characters", MaxNameLen), spec.Name)
	}
	spec.Name = name
	spec.Cron = strings.TrimSpace(spec.Cron)
	if _, err := cron.Parse(spec.Cron); err != nil {
		add("cron", "value_error", err.Error(), spec.Cron)
	}
	if spec.Timezone == "" {
		spec.Timezone = "UTC"
	}
	if _, err := s.zones.load(spec.Timezone); err != nil {
		add("timezone", "value_error", err.Error(), spec.Timezone)
	}
	if spec.AlertMinSeverity != "" && !finding.Severity(spec.AlertMinSeverity).Valid() {
		add("alert_min_severity", "enum", "alert_min_severity must be one of critical, high, medium, low, info", spec.AlertMinSeverity)
	}
	if spec.KeepLast < 0 || spec.KeepLast > MaxKeepLast {
		add("keep_last", "value_error", fmt.Sprintf("keep_last must be 0 (no limit) to %d", MaxKeepLast), spec.KeepLast)
	}
	var outside error
	if checkTarget {
		req, targetProbs, err := s.policy.Check(request.Request{TargetPath: spec.TargetPath, ScanTypes: spec.ScanTypes, TargetURL: spec.TargetURL, TargetHost: spec.TargetHost})
		probs = append(probs, targetProbs...)
		spec.TargetPath, spec.ScanTypes, spec.TargetURL, spec.TargetHost = req.TargetPath, req.ScanTypes, req.TargetURL, req.TargetHost
		outside = err
	}
	if len(probs) > 0 {
		return spec, &ValidationError{Problems: probs}
	}
	return spec, outside
}

// Create validates spec like POST /scans validates a scan (a
// *ValidationError, or request.ErrOutsideRoots) and stores the schedule with
// its first run time.
func (s *Scheduler) Create(ctx context.Context, spec Spec, createdBy string) (store.Schedule, error) {
	spec, err := s.check(spec, true)
	if err != nil {
		return store.Schedule{}, err
	}
	sc := store.Schedule{ID: store.NewID(), CreatedBy: createdBy}
	if err := s.apply(&sc, spec, true); err != nil {
		return sc, err
	}
	sc, err = s.store.CreateSchedule(ctx, sc)
	if err != nil {
		return sc, err
	}
	s.Wake()
	return sc, nil
}

// Update applies edit to a schedule's Spec, validates the result (the
// target only when a target field changed) and stores it. A new
// expression, zone or enabling computes the next run from now; a disabled
// schedule has none.
func (s *Scheduler) Update(ctx context.Context, id string, edit func(*Spec)) (store.Schedule, error) {
	sc, err := s.store.UpdateSchedule(ctx, id, func(sc *store.Schedule) error {
		old := specOf(*sc)
		spec := old
		spec.ScanTypes = append([]string(nil), old.ScanTypes...)
		edit(&spec)
		targetChanged := spec.TargetPath != old.TargetPath || !equalStrings(spec.ScanTypes, old.ScanTypes) ||
			!equalPtr(spec.TargetURL, old.TargetURL) || !equalPtr(spec.TargetHost, old.TargetHost)
		spec, err := s.check(spec, targetChanged)
		if err != nil {
			return err
		}
		reschedule := spec.Cron != old.Cron || spec.Timezone != old.Timezone || spec.Enabled != old.Enabled || (spec.Enabled && sc.NextRunAt == nil)
		return s.apply(sc, spec, reschedule)
	})
	if err != nil {
		return sc, err
	}
	s.Wake()
	return sc, nil
}

// apply writes spec into sc, computing the next run when reschedule is set.
func (s *Scheduler) apply(sc *store.Schedule, spec Spec, reschedule bool) error {
	sc.Name, sc.TargetPath, sc.ScanTypes, sc.TargetURL, sc.TargetHost = spec.Name, spec.TargetPath, spec.ScanTypes, spec.TargetURL, spec.TargetHost
	sc.Cron, sc.Timezone, sc.Enabled, sc.AlertMinSeverity, sc.KeepLast = spec.Cron, spec.Timezone, spec.Enabled, spec.AlertMinSeverity, spec.KeepLast
	if !reschedule {
		return nil
	}
	sc.NextRunAt = nil
	if spec.Enabled {
		next, err := s.NextRun(spec.Cron, spec.Timezone, s.now())
		if err != nil {
			return err
		}
		sc.NextRunAt = &next
	}
	return nil
}

// Delete removes a schedule and its run history; its scans stay.
func (s *Scheduler) Delete(ctx context.Context, id string) error {
	if err := s.store.DeleteSchedule(ctx, id); err != nil {
		return err
	}
	s.Wake()
	return nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
