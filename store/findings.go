package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"scand/finding"
	"scand/store/sqlbase"
)

// ScanResult is what CompleteScan stores for a scan.
type ScanResult struct {
	Findings       []finding.Finding
	ScannersRun    []string
	Skipped        []SkippedScanner
	RiskScore      int
	SeverityCounts map[string]int
	// Coverage is what the scan examined; nil records none.
	Coverage *finding.ScanCoverage
}

// TriageStatuses are the verdicts of SPEC.md.
var TriageStatuses = []string{"new", "triaged", "false_positive", "accepted_risk", "fixed", "wont_fix"}

// SetTriage sets or replaces the verdict on a fingerprint and appends the
// change to its history. Setting "new" clears an earlier verdict: the row
// stays (so the history and the reply show who reset it) with status new.
func (s *Store) SetTriage(ctx context.Context, st TriageState) (TriageState, error) {
	fp := st.Fingerprint
	st, _, err := s.SetVerdicts(ctx, []string{fp}, st, nil)
	st.Fingerprint = fp
	return st, err
}

// TriageHistory lists every verdict change on a fingerprint, oldest first.
func (s *Store) TriageHistory(ctx context.Context, fingerprint string) ([]TriageState, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT fingerprint, status, note, updated_at, updated_by, expires_at, justification FROM triage_history WHERE fingerprint = ? ORDER BY seq", fingerprint)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []TriageState{}
	for rows.Next() {
		var t TriageState
		var at string
		var exp sql.NullString
		if err := rows.Scan(&t.Fingerprint, &t.Status, &t.Note, &at, &t.UpdatedBy, &exp, &t.Justification); err != nil {
			return nil, err
		}
		t.UpdatedAt, t.ExpiresAt = sqlbase.ParseTime(at), sqlbase.ParseNullTime(exp)
		out = append(out, t)
	}
	return out, rows.Err()
}

// FingerprintKnown reports whether any stored finding, verdict or comment
// carries the fingerprint.
func (s *Store) FingerprintKnown(ctx context.Context, fingerprint string) (bool, error) {
	unknown, err := s.UnknownFingerprints(ctx, []string{fingerprint})
	return len(unknown) == 0, err
}

// UnknownFingerprints returns those of fps that no stored finding,
// verdict or comment carries, in one query however many are asked (a
// bulk verdict checks 10,000 at once).
func (s *Store) UnknownFingerprints(ctx context.Context, fps []string) ([]string, error) {
	list, err := json.Marshal(fps)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT j.value FROM json_each(?) j WHERE NOT (
		EXISTS (SELECT 1 FROM triage_states WHERE fingerprint = j.value)
		OR EXISTS (SELECT 1 FROM finding_comments WHERE fingerprint = j.value)
		OR EXISTS (SELECT 1 FROM scans s CROSS JOIN finding_fps p
			WHERE p.scan_seq = s.seq AND p.fingerprint = j.value AND s.status = 'completed' AND s.hidden = 0))`, string(list))
	return sqlbase.Collect(rows, err, sqlbase.ScanString)
}

// Comment is a note on a fingerprint.
type Comment struct {
	ID          string    `json:"id"`
	Fingerprint string    `json:"fingerprint"`
	Text        string    `json:"text"`
	Author      string    `json:"author"`
	CreatedAt   time.Time `json:"created_at"`
}

// AddComment stores a comment; ID and CreatedAt are set here.
func (s *Store) AddComment(ctx context.Context, c Comment) (Comment, error) {
	c.ID = NewID()
	c.CreatedAt = s.now().UTC().Truncate(time.Microsecond)
	_, err := s.w.ExecContext(ctx, "INSERT INTO finding_comments (id, fingerprint, text, author, created_at) VALUES (?, ?, ?, ?, ?)",
		c.ID, c.Fingerprint, c.Text, c.Author, sqlbase.FormatTime(c.CreatedAt))
	return c, err
}

// Comments lists a fingerprint's comments, oldest first.
func (s *Store) Comments(ctx context.Context, fingerprint string) ([]Comment, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT id, fingerprint, text, author, created_at FROM finding_comments WHERE fingerprint = ? ORDER BY seq", fingerprint)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Comment{}
	for rows.Next() {
		var c Comment
		var at string
		if err := rows.Scan(&c.ID, &c.Fingerprint, &c.Text, &c.Author, &at); err != nil {
			return nil, err
		}
		c.CreatedAt = sqlbase.ParseTime(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeleteComment removes one comment of a fingerprint.
func (s *Store) DeleteComment(ctx context.Context, fingerprint, id string) error {
	res, err := s.w.ExecContext(ctx, "DELETE FROM finding_comments WHERE fingerprint = ? AND id = ?", fingerprint, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
