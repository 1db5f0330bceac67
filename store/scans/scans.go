// Package scans is the scans table: a scan's row (Scan), its lifecycle
// from pending through running to a terminal status, deletion (hidden at
// once, purged in the background), and the listings. store embeds a
// Table, so these are *store.Store's methods.
package scans

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"scand/finding"
	"scand/store/sqlbase"
)

// Scan statuses.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// TerminalStatus reports whether a scan in status s can no longer change.
func TerminalStatus(s string) bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// SkippedScanner is one entry of a scan's scanners_skipped.
type SkippedScanner struct {
	Name        string `json:"name"`
	Reason      string `json:"reason"`
	InstallHint string `json:"install_hint"`
}

// Scan is a stored scan row.
type Scan struct {
	// Seq is the scan's arrival number, the key of its findings.
	Seq             int64
	ID              string
	TargetPath      string
	ScanTypes       []string
	TargetURL       *string
	TargetHost      *string
	Status          string
	StartedAt       time.Time
	CompletedAt     *time.Time
	ScannersRun     []string
	ScannersSkipped []SkippedScanner
	Error           string
	FindingsCount   int
	RiskScore       int
	// SeverityCounts counts every stored finding by severity.
	SeverityCounts map[string]int
	// LiveCounts counts the findings not suppressed inline by severity;
	// Suppressed counts the others.
	LiveCounts map[string]int
	Suppressed int
	CreatedBy  string
	// ScheduleID names the schedule that started the scan; "" for others.
	ScheduleID string
	// Source is SourceScan for a scan this daemon ran, SourceImport for
	// one computed elsewhere and imported; Commit is the git commit an
	// import names ("" when none).
	Source string
	Commit string
	// Coverage is what the scan examined (finding.ScanCoverage); nil
	// until it completes, and for a scan stored before coverage was
	// recorded. DefaultTypes: ScanTypes are the built-in default, not
	// asked for.
	Coverage     *finding.ScanCoverage
	DefaultTypes bool
	// BasedOnScan is, for a re-evaluation (SourceReevaluation), the scan
	// whose stored components it matched against newer advisory data; ""
	// for every other scan. Such a scan belongs to that scan's target.
	BasedOnScan string
}

// Scan sources.
const (
	SourceScan   = "scan"
	SourceImport = "import"
	// SourceReevaluation: the stored components of an earlier scan
	// matched again against newer advisory data (scan/reevaluate).
	SourceReevaluation = "reevaluation"
)

// Columns is the select list ScanRow reads.
const Columns = `seq, id, target_path, scan_types, target_url, target_host, status, started_at, completed_at,
	scanners_run, scanners_skipped, error, findings_count, risk_score, severity_counts, live_counts, suppressed_count, created_by, schedule_id,
	source, commit_id, coverage, default_types, based_on_scan`

// ScanRow reads one scan selected with Columns; ErrNotFound when there
// was no row.
func ScanRow(row sqlbase.Row) (Scan, error) {
	var sc Scan
	var types, run, skipped, counts, live, started string
	var url, host, completed, schedule sql.NullString
	var coverage string
	err := row.Scan(&sc.Seq, &sc.ID, &sc.TargetPath, &types, &url, &host, &sc.Status, &started, &completed,
		&run, &skipped, &sc.Error, &sc.FindingsCount, &sc.RiskScore, &counts, &live, &sc.Suppressed, &sc.CreatedBy, &schedule,
		&sc.Source, &sc.Commit, &coverage, &sc.DefaultTypes, &sc.BasedOnScan)
	if errors.Is(err, sql.ErrNoRows) {
		return sc, sqlbase.ErrNotFound
	}
	if err != nil {
		return sc, err
	}
	if url.Valid {
		sc.TargetURL = &url.String
	}
	if host.Valid {
		sc.TargetHost = &host.String
	}
	sc.StartedAt = sqlbase.ParseTime(started)
	sc.CompletedAt = sqlbase.ParseNullTime(completed)
	sc.ScheduleID = schedule.String
	for _, f := range []struct {
		src string
		dst any
	}{{types, &sc.ScanTypes}, {run, &sc.ScannersRun}, {skipped, &sc.ScannersSkipped}, {counts, &sc.SeverityCounts}, {live, &sc.LiveCounts}} {
		if err := json.Unmarshal([]byte(f.src), f.dst); err != nil {
			return sc, err
		}
	}
	if coverage != "" {
		sc.Coverage = &finding.ScanCoverage{}
		if err := json.Unmarshal([]byte(coverage), sc.Coverage); err != nil {
			return sc, err
		}
	}
	if sc.ScannersRun == nil {
		sc.ScannersRun = []string{}
	}
	if sc.ScannersSkipped == nil {
		sc.ScannersSkipped = []SkippedScanner{}
	}
	return sc, nil
}

// Table is the scans table.
type Table struct {
	db, w *sql.DB
	now   func() time.Time
	// wakePurger starts the background purger early (a scan was deleted,
	// cancelled or failed).
	wakePurger func()
}

// New reads through db, writes through the writer w, stamps times with now
// and calls wakePurger when a scan leaves rows to purge.
func New(db, w *sql.DB, now func() time.Time, wakePurger func()) *Table {
	return &Table{db: db, w: w, now: now, wakePurger: wakePurger}
}

func (s *Table) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return sqlbase.InTx(ctx, s.w, fn)
}

// CreateScan inserts a pending scan; ID and StartedAt come from the caller.
func (s *Table) CreateScan(ctx context.Context, sc Scan) (Scan, error) {
	return Insert(ctx, s.w, sc)
}

// Insert is CreateScan on the writer or inside a transaction.
func Insert(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, sc Scan) (Scan, error) {
	sc.Status = StatusPending
	sc.ScannersRun, sc.ScannersSkipped = []string{}, []SkippedScanner{}
	sc.SeverityCounts, sc.LiveCounts = map[string]int{}, map[string]int{}
	var schedule any
	if sc.ScheduleID != "" {
		schedule = sc.ScheduleID
	}
	if sc.Source == "" {
		sc.Source = SourceScan
	}
	// A re-evaluation takes its base scan's target as it is: derived from
	// its path, an image's or a repository's would become a directory.
	err := db.QueryRowContext(ctx, `INSERT INTO scans (id, target_path, scan_types, target_url, target_host, status, started_at, created_by, schedule_id,
		source, commit_id, default_types, based_on_scan, target_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
		(SELECT b.target_id FROM scans b WHERE ? != '' AND b.id = ?)) RETURNING seq`,
		sc.ID, sc.TargetPath, sqlbase.MustJSON(sc.ScanTypes), sc.TargetURL, sc.TargetHost, sc.Status, sqlbase.FormatTime(sc.StartedAt), sc.CreatedBy, schedule,
		sc.Source, sc.Commit, sc.DefaultTypes, sc.BasedOnScan, sc.BasedOnScan, sc.BasedOnScan).Scan(&sc.Seq)
	return sc, err
}

// ScanByID returns one scan. A deleted scan whose findings are still being
// purged is already not found.
func (s *Table) ScanByID(ctx context.Context, id string) (Scan, error) {
	return ScanRow(s.db.QueryRowContext(ctx, "SELECT "+Columns+" FROM scans WHERE id = ? AND hidden = 0", id))
}

// ScanFilter selects scans for listing.
type ScanFilter struct {
	Statuses   []string
	TargetPath string
	Limit      int
	Offset     int
	// Before, when > 0, lists only scans that arrived before the scan with
	// this Seq: keyset paging, which costs the same on every page.
	Before int64
}

// where is the filter's conditions on the scans table, paging aside.
func (f ScanFilter) where() ([]string, []any) {
	where := []string{"hidden = 0"}
	var args []any
	if len(f.Statuses) > 0 {
		where = append(where, "status IN ("+sqlbase.Placeholders(len(f.Statuses))+")")
		for _, st := range f.Statuses {
			args = append(args, st)
		}
	}
	if f.TargetPath != "" {
		where = append(where, "target_path = ?")
		args = append(args, f.TargetPath)
	}
	return where, args
}

// Scans lists scans newest first.
func (s *Table) Scans(ctx context.Context, f ScanFilter) ([]Scan, error) {
	q := "SELECT " + Columns + " FROM scans"
	where, args := f.where()
	if f.Before > 0 {
		where = append(where, "seq < ?")
		args = append(args, f.Before)
	}
	q += " WHERE " + strings.Join(where, " AND ")
	q += " ORDER BY seq DESC LIMIT ? OFFSET ?"
	if f.Limit <= 0 {
		f.Limit = -1
	}
	args = append(args, f.Limit, f.Offset)
	return s.queryScans(ctx, q, args...)
}

// ScansByStatus lists scans in a status in arrival order (oldest first).
func (s *Table) ScansByStatus(ctx context.Context, status string) ([]Scan, error) {
	return s.queryScans(ctx, "SELECT "+Columns+" FROM scans WHERE status = ? AND hidden = 0 ORDER BY seq", status)
}

func (s *Table) queryScans(ctx context.Context, q string, args ...any) ([]Scan, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	return sqlbase.Collect(rows, err, ScanRow)
}

// SetScanCommit records the git commit a scan of a work tree read (its
// HEAD when the scan started): the next scan of the target asks git which
// files moved since.
func (s *Table) SetScanCommit(ctx context.Context, id, commit string) error {
	_, err := s.w.ExecContext(ctx, "UPDATE scans SET commit_id = ? WHERE id = ?", commit, id)
	return err
}

// MarkScanRunning moves a pending scan to running. It returns ErrConflict
// when the scan is no longer pending (cancelled meanwhile).
func (s *Table) MarkScanRunning(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, "UPDATE scans SET status = 'running' WHERE id = ? AND status = 'pending'", id)
	if err != nil {
		return err
	}
	return sqlbase.ExpectOne(res)
}

// FinishScan moves a pending or running scan to a terminal status and
// records what ran. It returns ErrConflict when the scan was already
// terminal, so a late finisher never overwrites a cancel.
func (s *Table) FinishScan(ctx context.Context, id, status, errText string, run []string, skipped []SkippedScanner) error {
	if run == nil {
		run = []string{}
	}
	if skipped == nil {
		skipped = []SkippedScanner{}
	}
	// A scan that ends without completing may have part of its findings
	// written already: purge = 1 hands them to the purger.
	res, err := s.w.ExecContext(ctx, `UPDATE scans SET status = ?, completed_at = ?, error = ?, scanners_run = ?, scanners_skipped = ?,
		purge = CASE WHEN ? = 'completed' THEN purge ELSE 1 END
		WHERE id = ? AND status IN ('pending','running')`,
		status, sqlbase.FormatTime(s.now()), errText, sqlbase.MustJSON(run), sqlbase.MustJSON(skipped), status, id)
	if err != nil {
		return err
	}
	if err := sqlbase.ExpectOne(res); err != nil {
		return err
	}
	s.wakePurger()
	return nil
}

// CancelScan cancels a pending or running scan; ErrConflict when terminal.
func (s *Table) CancelScan(ctx context.Context, id string) (Scan, error) {
	var out Scan
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		sc, err := ScanRow(tx.QueryRowContext(ctx, "SELECT "+Columns+" FROM scans WHERE id = ? AND hidden = 0", id))
		if err != nil {
			return err
		}
		if TerminalStatus(sc.Status) {
			return sqlbase.ErrConflict
		}
		now := s.now().UTC().Truncate(time.Microsecond)
		if _, err := tx.ExecContext(ctx, "UPDATE scans SET status = 'cancelled', completed_at = ?, purge = 1 WHERE id = ?", sqlbase.FormatTime(now), id); err != nil {
			return err
		}
		sc.Status, sc.CompletedAt = StatusCancelled, &now
		out = sc
		return nil
	})
	if err == nil {
		s.wakePurger()
	}
	return out, err
}

// DeleteScan deletes a terminal scan; triage states, history and comments
// are keyed on fingerprints and stay. The scan disappears from every read
// at once (hidden), and its findings go in the background in short
// batches (see Purge), so deleting a million-finding scan never holds the
// write lock for long.
func (s *Table) DeleteScan(ctx context.Context, id string) error {
	ctx = sqlbase.FreeingSpace(ctx)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, "SELECT status FROM scans WHERE id = ? AND hidden = 0", id).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return sqlbase.ErrNotFound
		}
		if err != nil {
			return err
		}
		if !TerminalStatus(status) {
			return sqlbase.ErrConflict
		}
		_, err = tx.ExecContext(ctx, "UPDATE scans SET hidden = 1, purge = 1 WHERE id = ?", id)
		return err
	})
	if err == nil {
		s.wakePurger()
	}
	return err
}

// SetScanComponents stores the components captured at scan time (JSON).
func (s *Table) SetScanComponents(ctx context.Context, id string, componentsJSON []byte) error {
	_, err := s.w.ExecContext(ctx, "UPDATE scans SET components = ? WHERE id = ?", string(componentsJSON), id)
	return err
}

// ScanComponents returns the stored components JSON (nil if never captured).
func (s *Table) ScanComponents(ctx context.Context, id string) ([]byte, error) {
	var v sql.NullString
	err := s.db.QueryRowContext(ctx, "SELECT components FROM scans WHERE id = ? AND hidden = 0", id).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sqlbase.ErrNotFound
	}
	if err != nil || !v.Valid {
		return nil, err
	}
	return []byte(v.String), nil
}

// FailInterruptedScans marks scans left running by a crash as failed and
// returns them; pending scans are left to be queued again.
func (s *Table) FailInterruptedScans(ctx context.Context, reason string) ([]Scan, error) {
	running, err := s.ScansByStatus(ctx, StatusRunning)
	if err != nil {
		return nil, err
	}
	var out []Scan
	for _, sc := range running {
		if err := s.FinishScan(ctx, sc.ID, StatusFailed, reason, sc.ScannersRun, sc.ScannersSkipped); err != nil && !errors.Is(err, sqlbase.ErrConflict) {
			return out, err
		}
		out = append(out, sc)
	}
	return out, nil
}
