// Package reevals is the re-evaluation tables (issue 27): runs that match
// the stored components of each target's latest completed scan against
// newer advisory data, and their targets in processing order. The scans
// such a run makes are ordinary scans rows (source 'reevaluation',
// based_on_scan); this package keeps the run's own bookkeeping, which
// lets a restarted daemon resume it where it stopped. store embeds a
// *Runs, so these are *store.Store's methods.
package reevals

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"scand/store/sqlbase"
)

// Statuses of a run, as a scan's.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Triggers of a run.
const (
	TriggerImport = "import"
	TriggerManual = "manual"
)

// Reevaluation is a stored run with its progress.
type Reevaluation struct {
	ID          string
	Trigger     string
	Status      string
	DataState   string
	CreatedBy   string
	CreatedAt   time.Time
	StartedAt   *time.Time
	CompletedAt *time.Time
	Error       string
	Announced   bool
	// Counts of its targets by status (pending, completed, failed,
	// cancelled) and of the advisories newly matched so far.
	Targets    int
	ByStatus   map[string]int
	NewMatches int
}

// Target is one target of a run.
type Target struct {
	Position   int
	TargetID   int64
	TargetName string
	BaseScanID string
	ScanID     string
	Status     string
	Note       string
	NewMatches []Match
}

// Match is one advisory a re-evaluation matched on a target that the
// target's previous latest scan did not have.
type Match struct {
	TargetID    int64    `json:"target_id"`
	TargetName  string   `json:"target_name"`
	ScanID      string   `json:"scan_id"`
	Fingerprint string   `json:"fingerprint"`
	AdvisoryID  string   `json:"advisory_id"`
	Aliases     []string `json:"aliases"`
	Severity    string   `json:"severity"`
	Package     string   `json:"package"`
	Version     string   `json:"version"`
	Ecosystem   string   `json:"ecosystem"`
	FilePath    string   `json:"file_path"`
	Title       string   `json:"title"`
}

// UnknownTargetsError names asked-for targets that do not exist.
type UnknownTargetsError struct{ IDs []int64 }

func (e *UnknownTargetsError) Error() string {
	return fmt.Sprintf("unknown target ids: %v", e.IDs)
}

// Runs is the reevaluations and reevaluation_targets tables.
type Runs struct {
	db, w *sql.DB
	now   func() time.Time
}

// New reads through db, writes through the writer w, stamps with now.
func New(db, w *sql.DB, now func() time.Time) *Runs { return &Runs{db: db, w: w, now: now} }

const columns = `r.id, r.trigger, r.status, r.data_state, r.created_by, r.created_at, r.started_at, r.completed_at, r.error, r.announced,
	(SELECT count(*) FROM reevaluation_targets t WHERE t.reevaluation_id = r.id),
	(SELECT json_group_object(status, n) FROM (SELECT t.status, count(*) AS n FROM reevaluation_targets t WHERE t.reevaluation_id = r.id GROUP BY t.status)),
	(SELECT coalesce(sum(json_array_length(t.new_matches)), 0) FROM reevaluation_targets t WHERE t.reevaluation_id = r.id)`

func scanRow(row sqlbase.Row) (Reevaluation, error) {
	var r Reevaluation
	var created, byStatus string
	var started, completed sql.NullString
	err := row.Scan(&r.ID, &r.Trigger, &r.Status, &r.DataState, &r.CreatedBy, &created, &started, &completed, &r.Error, &r.Announced,
		&r.Targets, &byStatus, &r.NewMatches)
	if errors.Is(err, sql.ErrNoRows) {
		return r, sqlbase.ErrNotFound
	}
	if err != nil {
		return r, err
	}
	r.CreatedAt, r.StartedAt, r.CompletedAt = sqlbase.ParseTime(created), sqlbase.ParseNullTime(started), sqlbase.ParseNullTime(completed)
	r.ByStatus = map[string]int{}
	if err := json.Unmarshal([]byte(byStatus), &r.ByStatus); err != nil {
		return r, err
	}
	return r, nil
}

// CreateReevaluation stores a pending run over the targets named, in
// that order, or over every target that has a completed scan (by id) when
// targetIDs is empty. An id that names no target is an
// *UnknownTargetsError and nothing is stored.
func (s *Runs) CreateReevaluation(ctx context.Context, r Reevaluation, targetIDs []int64) (Reevaluation, error) {
	r.ID, r.Status, r.CreatedAt = sqlbase.NewID(), StatusPending, s.now()
	err := sqlbase.InTx(ctx, s.w, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO reevaluations (id, trigger, status, data_state, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			r.ID, r.Trigger, r.Status, r.DataState, r.CreatedBy, sqlbase.FormatTime(r.CreatedAt)); err != nil {
			return err
		}
		if len(targetIDs) == 0 {
			_, err := tx.ExecContext(ctx, `INSERT INTO reevaluation_targets (reevaluation_id, position, target_id)
				SELECT ?, row_number() OVER (ORDER BY id), id FROM targets WHERE latest_seq IS NOT NULL`, r.ID)
			return err
		}
		var unknown []int64
		seen := map[int64]bool{}
		pos := 0
		for _, id := range targetIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			res, err := tx.ExecContext(ctx, `INSERT INTO reevaluation_targets (reevaluation_id, position, target_id)
				SELECT ?, ?, id FROM targets WHERE id = ?`, r.ID, pos+1, id)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				unknown = append(unknown, id)
				continue
			}
			pos++
		}
		if len(unknown) > 0 {
			return &UnknownTargetsError{IDs: unknown}
		}
		return nil
	})
	if err != nil {
		return Reevaluation{}, err
	}
	return s.Reevaluation(ctx, r.ID)
}

// Reevaluation returns one run with its progress.
func (s *Runs) Reevaluation(ctx context.Context, id string) (Reevaluation, error) {
	return scanRow(s.db.QueryRowContext(ctx, "SELECT "+columns+" FROM reevaluations r WHERE r.id = ?", id))
}

// Reevaluations lists runs, newest first, at most limit, those created
// before the run before (keyset; "" from the newest).
func (s *Runs) Reevaluations(ctx context.Context, before string, limit int) ([]Reevaluation, error) {
	q := "SELECT " + columns + " FROM reevaluations r"
	var args []any
	if before != "" {
		q += ` WHERE (r.created_at, r.id) < (SELECT created_at, id FROM reevaluations WHERE id = ?)`
		args = append(args, before)
	}
	q += " ORDER BY r.created_at DESC, r.id DESC LIMIT ?"
	rows, err := s.db.QueryContext(ctx, q, append(args, max(limit, 1))...)
	return sqlbase.Collect(rows, err, scanRow)
}

// UnfinishedReevaluations are the runs a stopped daemon left pending or
// running, oldest first.
func (s *Runs) UnfinishedReevaluations(ctx context.Context) ([]Reevaluation, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+columns+" FROM reevaluations r WHERE r.status IN ('pending', 'running') ORDER BY r.created_at, r.id")
	return sqlbase.Collect(rows, err, scanRow)
}

// LastImportDataState is the data_state of the newest run an import
// made; ok is false before the first.
func (s *Runs) LastImportDataState(ctx context.Context) (state string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT data_state FROM reevaluations WHERE trigger = 'import' ORDER BY created_at DESC, id DESC LIMIT 1`).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return state, err == nil, err
}

// StartReevaluation moves a pending (or, resumed, running) run to running.
func (s *Runs) StartReevaluation(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `UPDATE reevaluations SET status = 'running', started_at = coalesce(started_at, ?)
		WHERE id = ? AND status IN ('pending', 'running')`, sqlbase.FormatTime(s.now()), id)
	if err != nil {
		return err
	}
	return conflictUnlessOne(res)
}

// FinishReevaluation ends a run that is not yet terminal; targets still
// pending take the run's status (failed or cancelled runs leave some).
func (s *Runs) FinishReevaluation(ctx context.Context, id, status, errText string) error {
	return sqlbase.InTx(ctx, s.w, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE reevaluations SET status = ?, error = ?, completed_at = ?
			WHERE id = ? AND status IN ('pending', 'running')`, status, errText, sqlbase.FormatTime(s.now()), id)
		if err != nil {
			return err
		}
		if err := conflictUnlessOne(res); err != nil {
			return err
		}
		if status == StatusCompleted {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE reevaluation_targets SET status = ? WHERE reevaluation_id = ? AND status = 'pending'`, status, id)
		return err
	})
}

// MarkAnnounced records that the run's advisory.new_matches event went
// out (or that there was nothing to send); false when it already had.
func (s *Runs) MarkAnnounced(ctx context.Context, id string) (bool, error) {
	res, err := s.w.ExecContext(ctx, `UPDATE reevaluations SET announced = 1 WHERE id = ? AND announced = 0`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func conflictUnlessOne(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return sqlbase.ErrConflict
	}
	return nil
}

const targetColumns = `t.position, t.target_id, coalesce(g.name, ''), t.base_scan_id, t.scan_id, t.status, t.note, t.new_matches`

func scanTarget(row sqlbase.Row) (Target, error) {
	var t Target
	var matches string
	if err := row.Scan(&t.Position, &t.TargetID, &t.TargetName, &t.BaseScanID, &t.ScanID, &t.Status, &t.Note, &matches); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return t, sqlbase.ErrNotFound
		}
		return t, err
	}
	if err := json.Unmarshal([]byte(matches), &t.NewMatches); err != nil {
		return t, err
	}
	if t.NewMatches == nil {
		t.NewMatches = []Match{}
	}
	return t, nil
}

// ReevaluationTargets lists a run's targets in processing order from
// position after+1, at most limit.
func (s *Runs) ReevaluationTargets(ctx context.Context, id string, after, limit int) ([]Target, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+targetColumns+` FROM reevaluation_targets t LEFT JOIN targets g ON g.id = t.target_id
		WHERE t.reevaluation_id = ? AND t.position > ? ORDER BY t.position LIMIT ?`, id, after, max(limit, 1))
	return sqlbase.Collect(rows, err, scanTarget)
}

// NextReevaluationTarget is the run's first target still pending; ok is
// false when none is.
func (s *Runs) NextReevaluationTarget(ctx context.Context, id string) (Target, bool, error) {
	t, err := scanTarget(s.db.QueryRowContext(ctx, "SELECT "+targetColumns+` FROM reevaluation_targets t LEFT JOIN targets g ON g.id = t.target_id
		WHERE t.reevaluation_id = ? AND t.status = 'pending' ORDER BY t.position LIMIT 1`, id))
	if errors.Is(err, sqlbase.ErrNotFound) {
		return t, false, nil
	}
	return t, err == nil, err
}

// StartReevaluationTarget records the scan a target's turn made (before
// it runs: a restart finds it).
func (s *Runs) StartReevaluationTarget(ctx context.Context, id string, position int, baseScanID, scanID string) error {
	_, err := s.w.ExecContext(ctx, `UPDATE reevaluation_targets SET base_scan_id = ?, scan_id = ? WHERE reevaluation_id = ? AND position = ?`,
		baseScanID, scanID, id, position)
	return err
}

// FinishReevaluationTarget ends a target's turn.
func (s *Runs) FinishReevaluationTarget(ctx context.Context, id string, position int, status, note string, matches []Match) error {
	if matches == nil {
		matches = []Match{}
	}
	_, err := s.w.ExecContext(ctx, `UPDATE reevaluation_targets SET status = ?, note = ?, new_matches = ? WHERE reevaluation_id = ? AND position = ?`,
		status, note, sqlbase.MustJSON(matches), id, position)
	return err
}

// ReevaluationMatches are every advisory the run matched anew, in
// target order.
func (s *Runs) ReevaluationMatches(ctx context.Context, id string) ([]Match, error) {
	var out []Match
	after := 0
	for {
		ts, err := s.ReevaluationTargets(ctx, id, after, 500)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			out = append(out, t.NewMatches...)
			after = t.Position
		}
		if len(ts) < 500 {
			return out, nil
		}
	}
}

// ReevaluationOfScan is the run that made a scan; ErrNotFound for a scan
// no run made.
func (s *Runs) ReevaluationOfScan(ctx context.Context, scanID string) (Reevaluation, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT reevaluation_id FROM reevaluation_targets WHERE scan_id = ? LIMIT 1`, scanID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Reevaluation{}, sqlbase.ErrNotFound
	}
	if err != nil {
		return Reevaluation{}, err
	}
	return s.Reevaluation(ctx, id)
}

// ReevaluationsOfTarget are the runs that included a target, newest
// first, at most limit, with that target's entry.
func (s *Runs) ReevaluationsOfTarget(ctx context.Context, targetID int64, limit int) ([]Target, []Reevaluation, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+targetColumns+`, t.reevaluation_id FROM reevaluation_targets t
		JOIN reevaluations r ON r.id = t.reevaluation_id LEFT JOIN targets g ON g.id = t.target_id
		WHERE t.target_id = ? ORDER BY r.created_at DESC, r.id DESC LIMIT ?`, targetID, max(limit, 1))
	if err != nil {
		return nil, nil, err
	}
	var ts []Target
	var ids []string
	for rows.Next() {
		var t Target
		var matches, id string
		if err := rows.Scan(&t.Position, &t.TargetID, &t.TargetName, &t.BaseScanID, &t.ScanID, &t.Status, &t.Note, &matches, &id); err != nil {
			rows.Close()
			return nil, nil, err
		}
		_ = json.Unmarshal([]byte(matches), &t.NewMatches)
		ts, ids = append(ts, t), append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rs := make([]Reevaluation, 0, len(ids))
	for _, id := range ids {
		r, err := s.Reevaluation(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		rs = append(rs, r)
	}
	return ts, rs, nil
}

// NewAdvisoryMatches are the advisories among the dependency findings of
// scan scanSeq whose fingerprints the scan prevSeq does not have (0: no
// previous scan, every one is new), from the scanners named.
func (s *Runs) NewAdvisoryMatches(ctx context.Context, scanSeq, prevSeq int64, scanners []string) ([]Match, error) {
	if len(scanners) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.fingerprint, f.severity, f.body FROM findings f
		WHERE f.k BETWEEN (? << 32) AND (? << 32) + 4294967295 AND f.scan_type = 'dependency'
			AND f.scanner IN (`+sqlbase.Placeholders(len(scanners))+`)
			AND json_extract(f.body, '$.metadata.advisory_id') IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM finding_fps p WHERE p.scan_seq = ? AND p.fingerprint = f.fingerprint)
		ORDER BY f.k`, append(append([]any{scanSeq, scanSeq}, sqlbase.AnySlice(scanners)...), prevSeq)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Match
	for rows.Next() {
		var m Match
		var body string
		if err := rows.Scan(&m.Fingerprint, &m.Severity, &body); err != nil {
			return nil, err
		}
		var f struct {
			FilePath string `json:"file_path"`
			Title    string `json:"title"`
			RuleID   string `json:"rule_id"`
			Meta     struct {
				AdvisoryID string   `json:"advisory_id"`
				Aliases    []string `json:"aliases"`
				Package    string   `json:"package"`
				Version    string   `json:"version"`
				Ecosystem  string   `json:"ecosystem"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(body), &f); err != nil {
			return nil, err
		}
		m.AdvisoryID, m.Package, m.Version, m.Ecosystem, m.FilePath, m.Title = f.Meta.AdvisoryID, f.Meta.Package, f.Meta.Version, f.Meta.Ecosystem, f.FilePath, f.Title
		for _, a := range f.Meta.Aliases {
			if a != m.AdvisoryID && strings.TrimSpace(a) != "" {
				m.Aliases = append(m.Aliases, a)
			}
		}
		if m.Aliases == nil {
			m.Aliases = []string{}
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// CancelReevaluation cancels a pending or running run; ErrConflict when
// it already ended, ErrNotFound when there is none.
func (s *Runs) CancelReevaluation(ctx context.Context, id string) (Reevaluation, error) {
	if _, err := s.Reevaluation(ctx, id); err != nil {
		return Reevaluation{}, err
	}
	if err := s.FinishReevaluation(ctx, id, StatusCancelled, ""); err != nil {
		return Reevaluation{}, err
	}
	return s.Reevaluation(ctx, id)
}
