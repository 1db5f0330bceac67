package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"scand/store/audit"
	"scand/store/sqlbase"
)

// ExpiringStatuses are the verdicts that may carry an expiry: an accepted
// risk or a won't-fix is a decision for a while, not for good.
var ExpiringStatuses = []string{"accepted_risk", "wont_fix"}

// MaxBulkTriage caps one bulk verdict: a larger set is one the reviewer
// has not looked at, and the write stays one short transaction.
const MaxBulkTriage = 10000

// ErrTooMany means a bulk verdict named more than MaxBulkTriage findings.
var ErrTooMany = errors.New("too many findings for one verdict")

// SetVerdicts sets one verdict on every fingerprint in one transaction:
// one history entry per fingerprint, the facet counts moved, and rec (when
// not nil) appended to the audit log in the same transaction. It returns
// rec as stored.
func (s *Store) SetVerdicts(ctx context.Context, fps []string, st TriageState, rec *audit.Record) (TriageState, *audit.Record, error) {
	if len(fps) > MaxBulkTriage {
		return st, rec, fmt.Errorf("%w: %d (at most %d)", ErrTooMany, len(fps), MaxBulkTriage)
	}
	st.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
	var stored audit.Record
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := setVerdictsTx(ctx, tx, fps, st); err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		var err error
		stored, err = s.AppendAuditTx(ctx, tx, *rec)
		return err
	})
	if err != nil {
		return st, rec, err
	}
	if rec == nil {
		return st, nil, nil
	}
	s.Emit(stored)
	return st, &stored, nil
}

// setVerdictsTx writes st (its Fingerprint ignored) on each of fps. The
// fingerprints go to a temporary table in one statement (one JSON array,
// not one parameter per fingerprint), and the verdicts, the history and
// the count moves are each one statement over the set, so a bulk verdict
// does no per-finding round trip between Go and SQLite.
func setVerdictsTx(ctx context.Context, tx *sql.Tx, fps []string, st TriageState) error {
	if len(fps) == 0 {
		return nil
	}
	list, err := json.Marshal(fps)
	if err != nil {
		return err
	}
	for _, q := range []string{
		"CREATE TEMP TABLE IF NOT EXISTS verdict_batch (fp TEXT PRIMARY KEY, old TEXT NOT NULL) WITHOUT ROWID",
		"DELETE FROM temp.verdict_batch",
		`CREATE TEMP TABLE IF NOT EXISTS verdict_moves (scan_seq INTEGER, severity TEXT, scanner TEXT, scan_type TEXT,
			suppressed INTEGER, triage TEXT, tagset INTEGER, n INTEGER)`,
		"DELETE FROM temp.verdict_moves",
		"CREATE TEMP TABLE IF NOT EXISTS verdict_keys (k INTEGER PRIMARY KEY, old TEXT NOT NULL)",
		"DELETE FROM temp.verdict_keys",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO temp.verdict_batch (fp, old)
		SELECT j.value, coalesce(t.status, 'new') FROM json_each(?) j LEFT JOIN main.triage_states t ON t.fingerprint = j.value`, string(list)); err != nil {
		return err
	}
	// Count moves first, while the old verdicts are still what the counts
	// say: the findings of every scan holding a fingerprint whose verdict
	// changes, grouped by facet, leave the old verdict's count and join
	// the new one's. Their keys are collected first and the findings read
	// in key order, page after page, instead of in fingerprint order,
	// which jumps across the table and misses the page cache.
	if _, err := tx.ExecContext(ctx, `INSERT INTO temp.verdict_keys
		SELECT p.scan_seq * 4294967296 + p.ord, b.old
		FROM temp.verdict_batch b CROSS JOIN scans s CROSS JOIN finding_fps p
		WHERE b.old <> ? AND p.scan_seq = s.seq AND p.fingerprint = b.fp`, st.Status); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO temp.verdict_moves
		SELECT f.k >> 32, f.severity, f.scanner, f.scan_type, f.suppressed, x.old, f.tagset, count(*)
		FROM temp.verdict_keys x CROSS JOIN findings f WHERE f.k = x.k
		GROUP BY 1, 2, 3, 4, 5, 6, 7`); err != nil {
		return err
	}
	const upsert = ` ON CONFLICT (scan_seq, severity, scanner, scan_type, suppressed, triage, tagset) DO UPDATE SET n = n + excluded.n`
	if _, err := tx.ExecContext(ctx, `INSERT INTO finding_counts (scan_seq, severity, scanner, scan_type, suppressed, triage, tagset, n)
		SELECT scan_seq, severity, scanner, scan_type, suppressed, triage, tagset, -n FROM temp.verdict_moves WHERE true`+upsert); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO finding_counts (scan_seq, severity, scanner, scan_type, suppressed, triage, tagset, n)
		SELECT scan_seq, severity, scanner, scan_type, suppressed, ?, tagset, sum(n) FROM temp.verdict_moves
		GROUP BY scan_seq, severity, scanner, scan_type, suppressed, tagset`+upsert, st.Status); err != nil {
		return err
	}
	at, exp := sqlbase.FormatTime(st.UpdatedAt), sqlbase.NullTime(st.ExpiresAt)
	if _, err := tx.ExecContext(ctx, `INSERT INTO triage_states (fingerprint, status, note, updated_at, updated_by, expires_at, justification)
		SELECT fp, ?, ?, ?, ?, ?, ? FROM temp.verdict_batch WHERE true
		ON CONFLICT (fingerprint) DO UPDATE SET status = excluded.status, note = excluded.note, updated_at = excluded.updated_at,
			updated_by = excluded.updated_by, expires_at = excluded.expires_at, justification = excluded.justification`,
		st.Status, st.Note, at, st.UpdatedBy, exp, st.Justification); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO triage_history (fingerprint, status, note, updated_at, updated_by, expires_at, justification)
		SELECT fp, ?, ?, ?, ?, ?, ? FROM temp.verdict_batch ORDER BY fp`, st.Status, st.Note, at, st.UpdatedBy, exp, st.Justification)
	return err
}

// ExpiredVerdict is an acceptance the expiry sweep ended.
type ExpiredVerdict struct {
	Fingerprint string    `json:"fingerprint"`
	Status      string    `json:"previous_status"`
	Note        string    `json:"previous_note"`
	ExpiresAt   time.Time `json:"expires_at"`
	// Audit is the record of the change (actor system).
	Audit audit.Record `json:"-"`
}

// ExpireVerdicts returns to new, at most limit at a time, every verdict
// whose expires_at is at or before now: a history entry by "system", an
// audit record each, and expires_at cleared, so each expiry happens once.
// The caller notifies about the returned verdicts.
func (s *Store) ExpireVerdicts(ctx context.Context, now time.Time, limit int) ([]ExpiredVerdict, error) {
	var out []ExpiredVerdict
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, `SELECT fingerprint, status, note, expires_at FROM triage_states INDEXED BY triage_states_expiry
			WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at, fingerprint LIMIT ?`, sqlbase.FormatTime(now), limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var e ExpiredVerdict
			var at string
			if err := rows.Scan(&e.Fingerprint, &e.Status, &e.Note, &at); err != nil {
				rows.Close()
				return err
			}
			e.ExpiresAt = sqlbase.ParseTime(at)
			out = append(out, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i, e := range out {
			st := TriageState{Status: "new", UpdatedBy: "system",
				Note:      "acceptance expired: " + e.Status + " until " + e.ExpiresAt.UTC().Format(time.RFC3339),
				UpdatedAt: s.now().UTC().Truncate(time.Microsecond)}
			if err := setVerdictsTx(ctx, tx, []string{e.Fingerprint}, st); err != nil {
				return err
			}
			rec, err := s.AppendAuditTx(ctx, tx, audit.Record{Actor: audit.System("acceptance expiry"), Action: "finding.acceptance_expired",
				ObjectType: "finding", ObjectID: e.Fingerprint, Changes: audit.Changes{
					"status":     {Before: e.Status, After: "new"},
					"expires_at": {Before: e.ExpiresAt, After: nil},
				}})
			if err != nil {
				return err
			}
			out[i].Audit = rec
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, e := range out {
		s.Emit(e.Audit)
	}
	return out, nil
}

// ExpiringVerdicts counts the verdicts that expire before until (the
// dashboard's "acceptances expiring soon").
func (s *Store) ExpiringVerdicts(ctx context.Context, until time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM triage_states INDEXED BY triage_states_expiry
		WHERE expires_at IS NOT NULL AND expires_at < ?`, sqlbase.FormatTime(until)).Scan(&n)
	return n, err
}

// CanExpire reports whether a verdict may carry an expiry.
func CanExpire(status string) bool { return slices.Contains(ExpiringStatuses, status) }

// VerdictGroup is one verdict over a set of fingerprints. OverVEXOnly
// sets it only where there is no verdict, the verdict is new or triaged,
// or an earlier VEX statement set it (updated_by "vex:..."): a VEX
// document never overrides a reviewer's decision.
type VerdictGroup struct {
	Fingerprints []string
	State        TriageState
	OverVEXOnly  bool
}

// SetVEXVerdicts sets the verdicts of a VEX import in one transaction
// (one history entry per fingerprint set), with the statements' applied
// counts and v.Audit appended in it when not nil. It returns, per group,
// how many fingerprints were set, and the audit record as stored.
func (s *Store) SetVEXVerdicts(ctx context.Context, v VEXVerdicts) ([]int, *audit.Record, error) {
	var set []int
	var stored *audit.Record
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		set, stored, err = s.setVEXVerdictsTx(ctx, tx, v)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if stored != nil {
		s.Emit(*stored)
	}
	return set, stored, nil
}

// setVEXVerdictsTx is SetVEXVerdicts in the caller's transaction (the one
// that completes a scan); the caller emits the record.
func (s *Store) setVEXVerdictsTx(ctx context.Context, tx *sql.Tx, v VEXVerdicts) ([]int, *audit.Record, error) {
	at := s.now().UTC().Truncate(time.Microsecond)
	set := make([]int, len(v.Groups))
	applied := map[int64]int{}
	for i, g := range v.Groups {
		fps := g.Fingerprints
		if g.OverVEXOnly {
			var err error
			if fps, err = openToVEX(ctx, tx, fps); err != nil {
				return nil, nil, err
			}
		}
		g.State.UpdatedAt = at
		if err := setVerdictsTx(ctx, tx, fps, g.State); err != nil {
			return nil, nil, err
		}
		set[i] = len(fps)
		if len(fps) > 0 {
			applied[v.Statements[i]] += len(fps)
		}
	}
	if err := s.AddVEXAppliedTx(ctx, tx, applied); err != nil || v.Audit == nil {
		return set, nil, err
	}
	rec, err := s.AppendAuditTx(ctx, tx, *v.Audit)
	return set, &rec, err
}

// openToVEX keeps the fingerprints a VEX statement may set a verdict on.
func openToVEX(ctx context.Context, tx *sql.Tx, fps []string) ([]string, error) {
	out := fps[:0:0]
	for _, fp := range fps {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM triage_states WHERE fingerprint = ?
			AND status NOT IN ('new', 'triaged') AND updated_by NOT LIKE 'vex:%'`, fp).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			out = append(out, fp)
		}
	}
	return out, nil
}
