package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"scand/store/audit"
	"scand/store/sqlbase"
)

// FindingLink ties a finding new in a scan to the finding of the same
// rule and line context that disappeared from the target in that scan (a
// renamed, moved or copied-then-deleted file). Linked is false when the
// match was ambiguous; Reason says why, and nothing is carried.
type FindingLink struct {
	NewFP   string `json:"new_fingerprint"`
	OldFP   string `json:"old_fingerprint"`
	OldPath string `json:"old_path"`
	NewPath string `json:"new_path"`
	Linked  bool   `json:"linked"`
	Reason  string `json:"reason"`
}

// ScanFilePaths returns the distinct file paths of a completed scan's
// findings (one pass over the scan's rows).
func (s *Store) ScanFilePaths(ctx context.Context, sc Scan) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT json_extract(CAST(f.body AS TEXT), '$.file_path') FROM findings f
		WHERE f.k >= ? AND f.k < ?`, sc.Seq<<32, (sc.Seq+1)<<32)
	return sqlbase.Collect(rows, err, func(r sqlbase.Row) (string, error) {
		var p sql.NullString
		err := r.Scan(&p)
		return p.String, err
	})
}

// OldFinding is where a finding of an earlier scan was and what found
// it: what a moved finding is matched on.
type OldFinding struct {
	Path, Scanner, RuleID, CWE string
	Line                       int
}

// FingerprintsInFiles returns the findings of a scan in the given files
// by fingerprint.
func (s *Store) FingerprintsInFiles(ctx context.Context, sc Scan, paths []string) (map[string]OldFinding, error) {
	out := map[string]OldFinding{}
	if len(paths) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.fingerprint, f.scanner, json_extract(CAST(f.body AS TEXT), '$.file_path'),
		json_extract(CAST(f.body AS TEXT), '$.rule_id'), json_extract(CAST(f.body AS TEXT), '$.cwe'), json_extract(CAST(f.body AS TEXT), '$.line') FROM findings f
		WHERE f.k >= ? AND f.k < ?`, sc.Seq<<32, (sc.Seq+1)<<32)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var fp, scanner string
		var p, rule, cwe sql.NullString
		var line sql.NullInt64
		if err := rows.Scan(&fp, &scanner, &p, &rule, &cwe, &line); err != nil {
			return nil, err
		}
		if want[p.String] {
			out[fp] = OldFinding{Path: p.String, Scanner: scanner, RuleID: rule.String, CWE: cwe.String, Line: int(line.Int64)}
		}
	}
	return out, rows.Err()
}

// linkMovedTx records a scan's links inside the transaction that
// completes it, so no reader sees the scan completed before the verdicts
// followed. For each linked one whose new fingerprint has no verdict of
// its own, the old fingerprint's verdict, history and comments are copied
// to the new one, with a history entry "moved from <old path>" and an
// audit record (actor system). It returns the records to emit after the
// commit and how many verdicts followed.
func (s *Store) linkMovedTx(ctx context.Context, tx *sql.Tx, scanID string, links []FindingLink) ([]audit.Record, int, error) {
	now := s.now().UTC().Truncate(time.Microsecond)
	var recs []audit.Record
	carried := 0
	for _, l := range links {
		if _, err := tx.ExecContext(ctx, `INSERT INTO finding_links (scan_id, new_fp, old_fp, old_path, new_path, linked, reason, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, scanID, l.NewFP, l.OldFP, l.OldPath, l.NewPath, sqlbase.BoolInt(l.Linked), l.Reason, sqlbase.FormatTime(now)); err != nil {
			return nil, 0, err
		}
		if !l.Linked {
			continue
		}
		var inScan, has int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM finding_fps WHERE scan_seq = (SELECT seq FROM scans WHERE id = ?) AND fingerprint = ?`,
			scanID, l.NewFP).Scan(&inScan); err != nil {
			return nil, 0, err
		}
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM triage_states WHERE fingerprint = ?", l.NewFP).Scan(&has); err != nil {
			return nil, 0, err
		}
		if inScan == 0 || has > 0 {
			continue // rolled back with its scanner, or it has a verdict of its own, which wins
		}
		var old TriageState
		var oldExp sql.NullString
		var at string
		err := tx.QueryRowContext(ctx, "SELECT status, note, updated_at, updated_by, expires_at, justification FROM triage_states WHERE fingerprint = ?", l.OldFP).
			Scan(&old.Status, &old.Note, &at, &old.UpdatedBy, &oldExp, &old.Justification)
		noVerdict := errors.Is(err, sql.ErrNoRows)
		if err != nil && !noVerdict {
			return nil, 0, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO triage_history (fingerprint, status, note, updated_at, updated_by, expires_at, justification)
			SELECT ?, status, note, updated_at, updated_by, expires_at, justification FROM triage_history WHERE fingerprint = ? ORDER BY seq`, l.NewFP, l.OldFP); err != nil {
			return nil, 0, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO finding_comments (id, fingerprint, text, author, created_at)
			SELECT lower(hex(randomblob(16))), ?, text, author, created_at FROM finding_comments WHERE fingerprint = ? ORDER BY seq`, l.NewFP, l.OldFP); err != nil {
			return nil, 0, err
		}
		if noVerdict {
			continue // comments followed; there is no verdict to carry
		}
		st := TriageState{Status: old.Status, Note: "moved from " + l.OldPath, UpdatedBy: "system", UpdatedAt: now, ExpiresAt: sqlbase.ParseNullTime(oldExp),
			Justification: old.Justification}
		if err := setVerdictsTx(ctx, tx, []string{l.NewFP}, st); err != nil {
			return nil, 0, err
		}
		// The verdict keeps the reviewer's note; the history says it moved.
		if _, err := tx.ExecContext(ctx, "UPDATE triage_states SET note = ? WHERE fingerprint = ?", old.Note, l.NewFP); err != nil {
			return nil, 0, err
		}
		rec, err := s.AppendAuditTx(ctx, tx, audit.Record{Actor: audit.System("move detection"), Action: "finding.moved", ObjectType: "finding",
			ObjectID: l.NewFP, Changes: audit.Changes{"moved_from": {Before: l.OldPath, After: l.NewPath}, "old_fingerprint": {After: l.OldFP},
				"status": {Before: "new", After: old.Status}, "scan_id": {After: scanID}}})
		if err != nil {
			return nil, 0, err
		}
		recs = append(recs, rec)
		carried++
	}
	return recs, carried, nil
}

// FindingLinks lists the links recorded for a new fingerprint, oldest first.
func (s *Store) FindingLinks(ctx context.Context, fingerprint string) ([]FindingLink, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT new_fp, old_fp, old_path, new_path, linked, reason FROM finding_links WHERE new_fp = ? ORDER BY seq`, fingerprint)
	return sqlbase.Collect(rows, err, func(r sqlbase.Row) (FindingLink, error) {
		var l FindingLink
		var linked int
		err := r.Scan(&l.NewFP, &l.OldFP, &l.OldPath, &l.NewPath, &linked, &l.Reason)
		l.Linked = linked == 1
		return l, err
	})
}
