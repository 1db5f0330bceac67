package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"time"

	"scand/finding"
)

// TriageState is the verdict on one fingerprint.
type TriageState struct {
	Fingerprint string    `json:"fingerprint"`
	Status      string    `json:"status"`
	Note        string    `json:"note"`
	UpdatedAt   time.Time `json:"updated_at"`
	UpdatedBy   string    `json:"updated_by"`
}

// FindingWithState is a finding plus its current triage verdict (nil when
// none is set).
type FindingWithState struct {
	finding.Finding
	State *TriageState `json:"state"`
}

// ScanResult is what a completed scan persists in one transaction.
type ScanResult struct {
	Findings       []finding.Finding
	ScannersRun    []string
	Skipped        []SkippedScanner
	RiskScore      int
	SeverityCounts map[string]int
}

// CompleteScan stores every finding and marks the scan completed in one
// transaction: a reader never sees a completed scan with half its
// findings. ErrConflict when the scan is no longer running (cancelled).
func (s *Store) CompleteScan(ctx context.Context, id string, r ScanResult) error {
	if r.ScannersRun == nil {
		r.ScannersRun = []string{}
	}
	if r.Skipped == nil {
		r.Skipped = []SkippedScanner{}
	}
	bodies, err := encodeFindings(id, r.Findings)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE scans SET status = 'completed', completed_at = ?, scanners_run = ?, scanners_skipped = ?,
			findings_count = ?, risk_score = ?, severity_counts = ? WHERE id = ? AND status = 'running'`,
			formatTime(s.now()), mustJSON(r.ScannersRun), mustJSON(r.Skipped), len(r.Findings), r.RiskScore, mustJSON(r.SeverityCounts), id)
		if err != nil {
			return err
		}
		if err := expectOne(res); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO findings (id, scan_id, ord, scanner, scan_type, severity, file_path, line, rule_id,
			cwe, fingerprint, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, f := range r.Findings {
			var cwe any
			if f.CWE != "" {
				cwe = string(f.CWE)
			}
			if _, err := stmt.ExecContext(ctx, f.ID, id, i, f.Scanner, f.ScanType, string(f.Severity), f.FilePath, f.Line, f.RuleID,
				cwe, f.Fingerprint, bodies[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// encodeFindings renders each finding's canonical JSON on every core
// before the write transaction starts, so the database write lock is held
// only for the inserts.
func encodeFindings(scanID string, fs []finding.Finding) ([]string, error) {
	bodies := make([]string, len(fs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(fs)/1000))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(fs); i += workers {
				f := fs[i]
				f.ScanID = scanID
				f.ComplianceTags = nonNilStrings(f.ComplianceTags)
				b, err := json.Marshal(f)
				if err != nil {
					errs[w] = err
					return
				}
				bodies[i] = string(b)
			}
		}(w)
	}
	wg.Wait()
	return bodies, errors.Join(errs...)
}

func nonNilStrings(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// FindingFilter narrows a scan's findings. Values inside one field are
// OR-combined; fields are AND-combined.
type FindingFilter struct {
	Severities []string
	ScanTypes  []string
	Compliance []string
	Limit      int
	Offset     int
}

func findingsQuery(columns, scanID string, f FindingFilter) (string, []any) {
	q := `SELECT ` + columns + `, t.status, t.note, t.updated_at, t.updated_by
		FROM findings f LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint WHERE f.scan_id = ?`
	args := []any{scanID}
	if len(f.Severities) > 0 {
		q += " AND f.severity IN (" + placeholders(len(f.Severities)) + ")"
		for _, v := range f.Severities {
			args = append(args, v)
		}
	}
	if len(f.ScanTypes) > 0 {
		q += " AND f.scan_type IN (" + placeholders(len(f.ScanTypes)) + ")"
		for _, v := range f.ScanTypes {
			args = append(args, v)
		}
	}
	if len(f.Compliance) > 0 {
		q += " AND EXISTS (SELECT 1 FROM json_each(f.body, '$.compliance_tags') j WHERE j.value IN (" + placeholders(len(f.Compliance)) + "))"
		for _, v := range f.Compliance {
			args = append(args, v)
		}
	}
	q += " ORDER BY f.ord LIMIT ? OFFSET ?"
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	args = append(args, limit, f.Offset)
	return q, args
}

// FindingsByScan returns a scan's findings in canonical order with their
// triage states.
func (s *Store) FindingsByScan(ctx context.Context, scanID string, f FindingFilter) ([]FindingWithState, error) {
	q, args := findingsQuery(`f.fingerprint, f.body`, scanID, f)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []FindingWithState{}
	for rows.Next() {
		var fw FindingWithState
		var body []byte
		var tStatus, tNote, tAt, tBy sql.NullString
		if err := rows.Scan(&fw.Fingerprint, &body, &tStatus, &tNote, &tAt, &tBy); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(body, &fw.Finding); err != nil {
			return nil, err
		}
		if tStatus.Valid {
			fw.State = &TriageState{Fingerprint: fw.Fingerprint, Status: tStatus.String, Note: tNote.String, UpdatedAt: parseTime(tAt.String), UpdatedBy: tBy.String}
		}
		out = append(out, fw)
	}
	return out, rows.Err()
}

// AppendFindingsJSON appends the JSON array of a scan's FindingWithState
// values to buf. It splices each finding's stored canonical JSON with its
// triage state instead of decoding and re-encoding every finding, which
// keeps large scans fast to serve.
func (s *Store) AppendFindingsJSON(ctx context.Context, buf []byte, scanID string, f FindingFilter) ([]byte, error) {
	q, args := findingsQuery(`f.fingerprint, f.body`, scanID, f)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return buf, err
	}
	defer rows.Close()
	buf = append(buf, '[')
	first := true
	var fp string
	var body sql.RawBytes
	var tStatus, tNote, tAt, tBy sql.NullString
	for rows.Next() {
		if err := rows.Scan(&fp, &body, &tStatus, &tNote, &tAt, &tBy); err != nil {
			return buf, err
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		if len(body) < 2 || body[len(body)-1] != '}' {
			return buf, errors.New("stored finding body is not a JSON object")
		}
		buf = append(buf, body[:len(body)-1]...)
		buf = append(buf, `,"state":`...)
		if !tStatus.Valid {
			buf = append(buf, "null}"...)
			continue
		}
		state, err := json.Marshal(TriageState{Fingerprint: fp, Status: tStatus.String, Note: tNote.String, UpdatedAt: parseTime(tAt.String), UpdatedBy: tBy.String})
		if err != nil {
			return buf, err
		}
		buf = append(buf, state...)
		buf = append(buf, '}')
	}
	if err := rows.Err(); err != nil {
		return buf, err
	}
	return append(buf, ']'), nil
}

// TriageStatuses are the verdicts of SPEC.md.
var TriageStatuses = []string{"new", "triaged", "false_positive", "accepted_risk", "fixed", "wont_fix"}

// SetTriage sets or replaces the verdict on a fingerprint and appends the
// change to its history. Setting "new" clears an earlier verdict: the row
// stays (so the history and the reply show who reset it) with status new.
func (s *Store) SetTriage(ctx context.Context, st TriageState) (TriageState, error) {
	st.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO triage_states (fingerprint, status, note, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (fingerprint) DO UPDATE SET status = excluded.status, note = excluded.note, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
			st.Fingerprint, st.Status, st.Note, formatTime(st.UpdatedAt), st.UpdatedBy); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO triage_history (fingerprint, status, note, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)",
			st.Fingerprint, st.Status, st.Note, formatTime(st.UpdatedAt), st.UpdatedBy)
		return err
	})
	return st, err
}

// TriageHistory lists every verdict change on a fingerprint, oldest first.
func (s *Store) TriageHistory(ctx context.Context, fingerprint string) ([]TriageState, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT fingerprint, status, note, updated_at, updated_by FROM triage_history WHERE fingerprint = ? ORDER BY seq", fingerprint)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []TriageState{}
	for rows.Next() {
		var t TriageState
		var at string
		if err := rows.Scan(&t.Fingerprint, &t.Status, &t.Note, &at, &t.UpdatedBy); err != nil {
			return nil, err
		}
		t.UpdatedAt = parseTime(at)
		out = append(out, t)
	}
	return out, rows.Err()
}

// FingerprintKnown reports whether any stored finding, verdict or comment
// carries the fingerprint.
func (s *Store) FingerprintKnown(ctx context.Context, fingerprint string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM findings WHERE fingerprint = ?)
		OR EXISTS (SELECT 1 FROM triage_states WHERE fingerprint = ?)
		OR EXISTS (SELECT 1 FROM finding_comments WHERE fingerprint = ?)`, fingerprint, fingerprint, fingerprint).Scan(&n)
	return n == 1, err
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
	_, err := s.db.ExecContext(ctx, "INSERT INTO finding_comments (id, fingerprint, text, author, created_at) VALUES (?, ?, ?, ?, ?)",
		c.ID, c.Fingerprint, c.Text, c.Author, formatTime(c.CreatedAt))
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
		c.CreatedAt = parseTime(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeleteComment removes one comment of a fingerprint.
func (s *Store) DeleteComment(ctx context.Context, fingerprint, id string) error {
	res, err := s.db.ExecContext(ctx, "DELETE FROM finding_comments WHERE fingerprint = ? AND id = ?", fingerprint, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ScanFingerprints returns the distinct fingerprints of a scan.
func (s *Store) ScanFingerprints(ctx context.Context, scanID string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT fingerprint FROM findings WHERE scan_id = ?", scanID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var fp string
		if err := rows.Scan(&fp); err != nil {
			return nil, err
		}
		out[fp] = true
	}
	return out, rows.Err()
}
