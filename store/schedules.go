package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"scand/store/scans"
	"scand/store/sqlbase"
)

// Schedule is a stored recurring scan.
type Schedule struct {
	ID         string
	Name       string
	TargetPath string
	ScanTypes  []string
	TargetURL  *string
	TargetHost *string
	Cron       string
	Timezone   string
	Enabled    bool
	// AlertMinSeverity is the notification threshold of its change
	// alerts; "" means the daemon's default (SVC_ALERT_MIN_SEVERITY).
	AlertMinSeverity string
	// KeepLast is how many of its completed scans retention keeps; 0 means
	// no per-schedule limit.
	KeepLast int
	// NextRunAt is nil while the schedule is disabled.
	NextRunAt *time.Time
	LastRunAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
	CreatedBy string
}

// Outcomes of a schedule run.
const (
	RunStarted = "started"
	RunSkipped = "skipped"
	RunFailed  = "failed"
)

// ScheduleRun is one time a schedule came due.
type ScheduleRun struct {
	ID           string
	ScheduleID   string
	ScheduledFor time.Time
	CreatedAt    time.Time
	Outcome      string
	Reason       string
	// ScanID is the scan the run started; "" when it started none.
	ScanID string
	// ScanStatus is that scan's current status; "" when there is no scan
	// or it has been deleted since.
	ScanStatus string
}

const scheduleColumns = `id, name, target_path, scan_types, target_url, target_host, cron, timezone, enabled,
	alert_min_severity, keep_last, next_run_at, last_run_at, created_at, updated_at, created_by`

func scanSchedule(row sqlbase.Row) (Schedule, error) {
	var sc Schedule
	var types, created, updated string
	var url, host, alert, next, last sql.NullString
	var keep sql.NullInt64
	err := row.Scan(&sc.ID, &sc.Name, &sc.TargetPath, &types, &url, &host, &sc.Cron, &sc.Timezone, &sc.Enabled,
		&alert, &keep, &next, &last, &created, &updated, &sc.CreatedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return sc, ErrNotFound
	}
	if err != nil {
		return sc, err
	}
	if err := json.Unmarshal([]byte(types), &sc.ScanTypes); err != nil {
		return sc, err
	}
	if url.Valid {
		sc.TargetURL = &url.String
	}
	if host.Valid {
		sc.TargetHost = &host.String
	}
	sc.AlertMinSeverity = alert.String
	sc.KeepLast = int(keep.Int64)
	sc.NextRunAt = sqlbase.ParseNullTime(next)
	sc.LastRunAt = sqlbase.ParseNullTime(last)
	sc.CreatedAt = sqlbase.ParseTime(created)
	sc.UpdatedAt = sqlbase.ParseTime(updated)
	return sc, nil
}

// nullIfEmpty stores "" and 0 as NULL, the columns' "use the default".
func nullIfEmpty[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

// CreateSchedule inserts sc (ID from the caller); CreatedAt and UpdatedAt
// are the store clock's time.
func (s *Store) CreateSchedule(ctx context.Context, sc Schedule) (Schedule, error) {
	sc.CreatedAt = s.now().UTC().Truncate(time.Microsecond)
	sc.UpdatedAt = sc.CreatedAt
	_, err := s.w.ExecContext(ctx, `INSERT INTO schedules (id, name, target_path, scan_types, target_url, target_host, cron, timezone,
		enabled, alert_min_severity, keep_last, next_run_at, last_run_at, created_at, updated_at, created_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sc.ID, sc.Name, sc.TargetPath, sqlbase.MustJSON(sc.ScanTypes), sc.TargetURL, sc.TargetHost, sc.Cron, sc.Timezone,
		sc.Enabled, nullIfEmpty(sc.AlertMinSeverity), nullIfEmpty(sc.KeepLast), sqlbase.NullTime(sc.NextRunAt), sqlbase.NullTime(sc.LastRunAt),
		sqlbase.FormatTime(sc.CreatedAt), sqlbase.FormatTime(sc.UpdatedAt), sc.CreatedBy)
	return sc, err
}

// ScheduleByID returns one schedule.
func (s *Store) ScheduleByID(ctx context.Context, id string) (Schedule, error) {
	return scanSchedule(s.db.QueryRowContext(ctx, "SELECT "+scheduleColumns+" FROM schedules WHERE id = ?", id))
}

// Schedules lists schedules in creation order.
func (s *Store) Schedules(ctx context.Context) ([]Schedule, error) {
	return s.querySchedules(ctx, "SELECT "+scheduleColumns+" FROM schedules ORDER BY seq")
}

// DueSchedules lists up to limit enabled schedules whose next run is at or
// before now, the longest overdue first.
func (s *Store) DueSchedules(ctx context.Context, now time.Time, limit int) ([]Schedule, error) {
	return s.querySchedules(ctx, "SELECT "+scheduleColumns+` FROM schedules
		WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, seq LIMIT ?`, sqlbase.FormatTime(now), limit)
}

func (s *Store) querySchedules(ctx context.Context, q string, args ...any) ([]Schedule, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	return sqlbase.Collect(rows, err, scanSchedule)
}

// NextScheduledRun returns the earliest next run of any enabled schedule;
// ok is false when none is scheduled.
func (s *Store) NextScheduledRun(ctx context.Context) (at time.Time, ok bool, err error) {
	var v sql.NullString
	err = s.db.QueryRowContext(ctx, "SELECT min(next_run_at) FROM schedules WHERE enabled = 1").Scan(&v)
	if err != nil || !v.Valid {
		return time.Time{}, false, err
	}
	return sqlbase.ParseTime(v.String), true, nil
}

// UpdateSchedule reads the schedule, lets edit change it and writes it
// back in one transaction, so two edits never lose each other's changes.
// edit's error aborts the update and is returned as is. LastRunAt,
// CreatedAt and CreatedBy are not writable here.
func (s *Store) UpdateSchedule(ctx context.Context, id string, edit func(*Schedule) error) (Schedule, error) {
	var out Schedule
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		sc, err := scanSchedule(tx.QueryRowContext(ctx, "SELECT "+scheduleColumns+" FROM schedules WHERE id = ?", id))
		if err != nil {
			return err
		}
		if err := edit(&sc); err != nil {
			return err
		}
		sc.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
		_, err = tx.ExecContext(ctx, `UPDATE schedules SET name = ?, target_path = ?, scan_types = ?, target_url = ?, target_host = ?,
			cron = ?, timezone = ?, enabled = ?, alert_min_severity = ?, keep_last = ?, next_run_at = ?, updated_at = ? WHERE id = ?`,
			sc.Name, sc.TargetPath, sqlbase.MustJSON(sc.ScanTypes), sc.TargetURL, sc.TargetHost, sc.Cron, sc.Timezone, sc.Enabled,
			nullIfEmpty(sc.AlertMinSeverity), nullIfEmpty(sc.KeepLast), sqlbase.NullTime(sc.NextRunAt), sqlbase.FormatTime(sc.UpdatedAt), id)
		out = sc
		return err
	})
	return out, err
}

// DeleteSchedule deletes a schedule and its run history. The scans it
// started stay (their schedule_id then names a schedule that is gone).
func (s *Store) DeleteSchedule(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, "DELETE FROM schedules WHERE id = ?", id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ScheduleBusy reports whether a scan the schedule started is still
// pending or running.
func (s *Store) ScheduleBusy(ctx context.Context, scheduleID string) (bool, error) {
	var busy bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM scans WHERE schedule_id = ? AND status IN ('pending','running'))`,
		scheduleID).Scan(&busy)
	return busy, err
}

// ScheduleRunRecord is what the scheduler commits when a schedule comes
// due: the run, the scan it starts (if any) and the schedule's next run.
type ScheduleRunRecord struct {
	ScheduleID string
	// Due is the next_run_at the scheduler read; the record is refused
	// with ErrConflict when the schedule changed since (edited, disabled,
	// deleted or already run).
	Due  time.Time
	Next *time.Time
	Run  ScheduleRun
	// Scan, when set, is inserted pending with the schedule's id (and the
	// store clock's time as StartedAt when it has none).
	Scan *Scan
}

// RecordScheduleRun commits rec in one transaction: a crash leaves either
// the whole run (its scan pending, queued again at startup) or none of it.
func (s *Store) RecordScheduleRun(ctx context.Context, rec ScheduleRunRecord) (ScheduleRun, error) {
	run := rec.Run
	run.ScheduleID = rec.ScheduleID
	if run.ID == "" {
		run.ID = NewID()
	}
	run.CreatedAt = s.now().UTC().Truncate(time.Microsecond)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE schedules SET next_run_at = ?, last_run_at = ?
			WHERE id = ? AND enabled = 1 AND next_run_at = ?`,
			sqlbase.NullTime(rec.Next), sqlbase.FormatTime(run.CreatedAt), rec.ScheduleID, sqlbase.FormatTime(rec.Due))
		if err != nil {
			return err
		}
		if err := sqlbase.ExpectOne(res); err != nil {
			return err
		}
		if rec.Scan != nil {
			sc := *rec.Scan
			sc.ScheduleID = rec.ScheduleID
			if sc.StartedAt.IsZero() {
				sc.StartedAt = run.CreatedAt
			}
			if _, err := scans.Insert(ctx, tx, sc); err != nil {
				return err
			}
			run.ScanID = sc.ID
			run.ScanStatus = StatusPending
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO schedule_runs (id, schedule_id, scheduled_for, created_at, outcome, reason, scan_id)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, run.ID, run.ScheduleID, sqlbase.FormatTime(run.ScheduledFor), sqlbase.FormatTime(run.CreatedAt),
			run.Outcome, run.Reason, nullIfEmpty(run.ScanID))
		return err
	})
	return run, err
}

// ScheduleRuns lists up to limit runs of a schedule, newest first, each
// with its scan's current status.
func (s *Store) ScheduleRuns(ctx context.Context, scheduleID string, limit int) ([]ScheduleRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+scheduleRunColumns+`
		FROM schedule_runs r LEFT JOIN scans s ON s.id = r.scan_id
		WHERE r.schedule_id = ? ORDER BY r.seq DESC LIMIT ?`, scheduleID, limit)
	return sqlbase.Collect(rows, err, scanScheduleRun)
}

// LatestScheduleRuns returns every schedule's newest run with its scan's
// current status, by schedule id. Each schedule costs one seek on its
// run history, however long that history is.
func (s *Store) LatestScheduleRuns(ctx context.Context) (map[string]ScheduleRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+scheduleRunColumns+`
		FROM schedules sc JOIN schedule_runs r ON r.seq = (SELECT max(seq) FROM schedule_runs WHERE schedule_id = sc.id)
		LEFT JOIN scans s ON s.id = r.scan_id`)
	runs, err := sqlbase.Collect(rows, err, scanScheduleRun)
	if err != nil {
		return nil, err
	}
	out := make(map[string]ScheduleRun, len(runs))
	for _, r := range runs {
		out[r.ScheduleID] = r
	}
	return out, nil
}

// scheduleRunColumns are what scanScheduleRun reads: a run (r) and the
// status of its scan (s).
const scheduleRunColumns = `r.id, r.schedule_id, r.scheduled_for, r.created_at, r.outcome, r.reason, r.scan_id, s.status`

func scanScheduleRun(row sqlbase.Row) (ScheduleRun, error) {
	var r ScheduleRun
	var due, created string
	var scanID, status sql.NullString
	if err := row.Scan(&r.ID, &r.ScheduleID, &due, &created, &r.Outcome, &r.Reason, &scanID, &status); err != nil {
		return r, err
	}
	r.ScheduledFor, r.CreatedAt = sqlbase.ParseTime(due), sqlbase.ParseTime(created)
	r.ScanID, r.ScanStatus = scanID.String, status.String
	return r, nil
}
