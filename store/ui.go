package store

// Reads the web console (api/ui) needs beyond what the API's handlers use:
// filtered keyset pages of a scan's findings, one finding with the scans it
// appeared in, a paged compare, and the overview's breakdown. They live in
// their own file so the findings reads in findings.go can change without
// touching them.

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"
)

// ConsoleFindingQuery narrows and pages a scan's findings for the console.
// Values inside one field are OR-combined; fields are AND-combined.
type ConsoleFindingQuery struct {
	Severities []string
	ScanTypes  []string
	Scanners   []string
	Compliance []string
	// Triage lists triage statuses; a finding without a verdict is "new".
	Triage []string
	// Suppressed: nil = any, true = only suppressed, false = only live.
	Suppressed *bool
	// Text is matched, ASCII case-insensitively, as a substring of the
	// title, the file path and the rule id.
	Text string
	// After and Before are keyset bounds on the canonical position (ord):
	// rows strictly after After, or the rows just before Before. Negative
	// means no bound; After wins when both are set.
	After, Before int
	// Limit is the page size (at least 1).
	Limit int
}

// Filtered reports whether q narrows the findings at all.
func (q ConsoleFindingQuery) Filtered() bool {
	return len(q.Severities)+len(q.ScanTypes)+len(q.Scanners)+len(q.Compliance)+len(q.Triage) > 0 || q.Suppressed != nil || q.Text != ""
}

// OrderedFinding is a finding with its canonical position in its scan,
// the keyset paging key.
type OrderedFinding struct {
	Ord int
	FindingWithState
}

// likeEscaper makes a search text match literally inside a LIKE pattern.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// jsonEscaped are the characters a stored JSON body spells differently
// from the text (Go's encoder escapes <, > and & too), plus the control
// characters, for which the raw-body prefilter would be unsound.
const jsonEscaped = "<>&\"\\\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\u2028\u2029"

// scanRange bounds a scan's findings rows: their keys are seq<<32|ord.
const scanRange = `f.k >= ((SELECT seq FROM scans WHERE id = ?) << 32) AND f.k < (((SELECT seq FROM scans WHERE id = ?) + 1) << 32)`

// consoleFindingWhere renders q's filters (not its bounds) as SQL over
// findings f LEFT JOIN triage_states t.
func consoleFindingWhere(scanID string, q ConsoleFindingQuery) (string, []any) {
	where := scanRange
	args := []any{scanID, scanID}
	in := func(expr string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where += " AND " + expr + " IN (" + placeholders(len(vals)) + ")"
		for _, v := range vals {
			args = append(args, v)
		}
	}
	in("f.severity", q.Severities)
	in("f.scan_type", q.ScanTypes)
	in("f.scanner", q.Scanners)
	in("COALESCE(t.status, 'new')", q.Triage)
	if len(q.Compliance) > 0 {
		where += " AND f.tagset IN (SELECT tagset FROM tagset_tags WHERE tag IN (" + placeholders(len(q.Compliance)) + "))"
		for _, v := range q.Compliance {
			args = append(args, v)
		}
	}
	if q.Suppressed != nil {
		if *q.Suppressed {
			where += " AND f.suppressed = 1"
		} else {
			where += " AND f.suppressed = 0"
		}
	}
	if q.Text != "" {
		// LIKE is case-insensitive for ASCII, as asciiLower is. Title, file
		// and rule live in the JSON body: a LIKE over the raw body first
		// rules out most rows without parsing them, which is only sound
		// when the needle has no character JSON encoding changes.
		pattern := "%" + likeEscaper.Replace(q.Text) + "%"
		fields := "(json_extract(CAST(f.body AS TEXT), '$.title') LIKE ? ESCAPE '\\' OR json_extract(CAST(f.body AS TEXT), '$.file_path') LIKE ? ESCAPE '\\' OR json_extract(CAST(f.body AS TEXT), '$.rule_id') LIKE ? ESCAPE '\\')"
		if !strings.ContainsAny(q.Text, jsonEscaped) {
			where += " AND CAST(f.body AS TEXT) LIKE ? ESCAPE '\\'"
			args = append(args, pattern)
		}
		where += " AND " + fields
		args = append(args, pattern, pattern, pattern)
	}
	return where, args
}

const consoleFindingColumns = `SELECT f.k, f.fingerprint, f.body, x.text, t.status, t.note, t.updated_at, t.updated_by FROM findings f
	LEFT JOIN finding_texts x ON x.scan_seq = (f.k >> 32) AND x.id = f.text_id
	LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint WHERE `

// ConsoleFindings returns one keyset page of a completed scan's findings
// in canonical order with their triage states.
func (s *Store) ConsoleFindings(ctx context.Context, scanID string, q ConsoleFindingQuery) ([]OrderedFinding, error) {
	where, args := consoleFindingWhere(scanID, q)
	limit := max(q.Limit, 1)
	order := " ORDER BY f.k"
	switch {
	case q.After >= 0:
		where += " AND (f.k & 4294967295) > ?"
		args = append(args, q.After)
	case q.Before >= 0:
		// The rows just before the bound, read backwards and reversed below.
		where += " AND (f.k & 4294967295) < ?"
		args = append(args, q.Before)
		order = " ORDER BY f.k DESC"
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, consoleFindingColumns+where+order+" LIMIT ?", args...)
	if err != nil {
		return nil, err
	}
	out, err := scanOrderedFindings(rows)
	if err != nil {
		return nil, err
	}
	if q.After < 0 && q.Before >= 0 {
		slices.Reverse(out)
	}
	return out, nil
}

// CountConsoleFindings counts a scan's findings that match q's filters,
// stopping at upTo: past that, a page only needs to say "more than".
func (s *Store) CountConsoleFindings(ctx context.Context, scanID string, q ConsoleFindingQuery, upTo int) (int, error) {
	where, args := consoleFindingWhere(scanID, q)
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM findings f LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint WHERE "+
		where+" LIMIT ?)", append(args, upTo)...).Scan(&n)
	return n, err
}

func scanOrderedFindings(rows *sql.Rows) ([]OrderedFinding, error) {
	defer rows.Close()
	out := []OrderedFinding{}
	var buf []byte
	for rows.Next() {
		var k int64
		var fp string
		var body, text []byte
		var tStatus, tNote, tAt, tBy sql.NullString
		if err := rows.Scan(&k, &fp, &body, &text, &tStatus, &tNote, &tAt, &tBy); err != nil {
			return nil, err
		}
		row := FindingRow{Ord: int(k & 0xffffffff), Fingerprint: fp, Body: body}
		if text != nil {
			var err error
			if buf, err = spliceText(buf, body, text); err != nil {
				return nil, err
			}
			row.Body = buf
		}
		if tStatus.Valid {
			row.State = &TriageState{Fingerprint: fp, Status: tStatus.String, Note: tNote.String, UpdatedAt: parseTime(tAt.String), UpdatedBy: tBy.String}
		}
		fw, err := row.Decode()
		if err != nil {
			return nil, err
		}
		out = append(out, OrderedFinding{Ord: row.Ord, FindingWithState: fw})
	}
	return out, rows.Err()
}

// FindingOccurrence returns the finding with a fingerprint as one scan
// recorded it, or as the newest scan that has it when scanID is empty,
// together with that scan. ErrNotFound when no stored finding has it.
func (s *Store) FindingOccurrence(ctx context.Context, fingerprint, scanID string) (FindingWithState, Scan, error) {
	q := `SELECT s.seq, p.ord FROM scans s JOIN finding_fps p ON p.scan_seq = s.seq AND p.fingerprint = ?
		WHERE s.status = 'completed' AND s.hidden = 0`
	args := []any{fingerprint}
	if scanID != "" {
		q += " AND s.id = ?"
		args = append(args, scanID)
	}
	q += " ORDER BY s.seq DESC, p.ord LIMIT 1"
	var fw FindingWithState
	var seq, ord int64
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&seq, &ord); errors.Is(err, sql.ErrNoRows) {
		return fw, Scan{}, ErrNotFound
	} else if err != nil {
		return fw, Scan{}, err
	}
	sc, err := scanScan(s.db.QueryRowContext(ctx, "SELECT "+scanColumns+" FROM scans WHERE seq = ?", seq))
	if err != nil {
		return fw, sc, err
	}
	rows, err := s.db.QueryContext(ctx, consoleFindingColumns+"f.k = ?", seq<<32|ord)
	if err != nil {
		return fw, sc, err
	}
	found, err := scanOrderedFindings(rows)
	if err != nil {
		return fw, sc, err
	}
	if len(found) == 0 {
		return fw, sc, ErrNotFound
	}
	return found[0].FindingWithState, sc, nil
}

// TriageStateOf returns the current verdict on a fingerprint, nil if none.
func (s *Store) TriageStateOf(ctx context.Context, fingerprint string) (*TriageState, error) {
	var t TriageState
	var at string
	err := s.db.QueryRowContext(ctx, "SELECT fingerprint, status, note, updated_at, updated_by FROM triage_states WHERE fingerprint = ?", fingerprint).
		Scan(&t.Fingerprint, &t.Status, &t.Note, &at, &t.UpdatedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.UpdatedAt = parseTime(at)
	return &t, nil
}

// ScansWithFingerprint lists the completed scans that recorded a
// fingerprint, newest first, at most limit.
func (s *Store) ScansWithFingerprint(ctx context.Context, fingerprint string, limit int) ([]Scan, error) {
	return s.queryScans(ctx, "SELECT "+scanColumns+` FROM scans s WHERE s.status = 'completed' AND s.hidden = 0
		AND EXISTS (SELECT 1 FROM finding_fps p WHERE p.scan_seq = s.seq AND p.fingerprint = ?) ORDER BY s.seq DESC LIMIT ?`,
		fingerprint, max(limit, 1))
}

// CountScans counts the scans a ScanFilter selects (ignoring its paging).
func (s *Store) CountScans(ctx context.Context, f ScanFilter) (int, error) {
	q := "SELECT count(*) FROM scans"
	where := []string{"hidden = 0"}
	var args []any
	if len(f.Statuses) > 0 {
		where = append(where, "status IN ("+placeholders(len(f.Statuses))+")")
		for _, st := range f.Statuses {
			args = append(args, st)
		}
	}
	if f.TargetPath != "" {
		where = append(where, "target_path = ?")
		args = append(args, f.TargetPath)
	}
	q += " WHERE " + strings.Join(where, " AND ")
	var n int
	err := s.db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// ScanTargets lists distinct target paths, most recently scanned first.
func (s *Store) ScanTargets(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT target_path FROM scans WHERE hidden = 0 GROUP BY target_path ORDER BY max(seq) DESC LIMIT ?", max(limit, 1))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PreviousCompletedScan returns the completed scan of the same target
// (path, URL and host) that arrived last before scanID. ErrNotFound when
// there is none.
func (s *Store) PreviousCompletedScan(ctx context.Context, scanID string) (Scan, error) {
	return scanScan(s.db.QueryRowContext(ctx, "SELECT "+prefixColumns("o.", scanColumns)+` FROM scans s JOIN scans o
		ON o.target_path = s.target_path AND COALESCE(o.target_url, '') = COALESCE(s.target_url, '')
		AND COALESCE(o.target_host, '') = COALESCE(s.target_host, '')
		WHERE s.id = ? AND o.status = 'completed' AND o.hidden = 0 AND o.seq < s.seq ORDER BY o.seq DESC LIMIT 1`, scanID))
}

// Console compare kinds: findings only in the newer scan, only in the
// older one, and in both (the newer scan's copy).
const (
	ConsoleCompareNew       = "new"
	ConsoleCompareFixed     = "fixed"
	ConsoleCompareUnchanged = "unchanged"
)

// compareSQL selects one kind of a compare of scan a (older) with scan b
// by fingerprint, as the API's compare does: which scan the rows come
// from, which scan is probed, and whether the fingerprint must be there.
func compareSQL(kind string) (from, other, exists string, ok bool) {
	switch kind {
	case ConsoleCompareNew:
		return "b", "a", "NOT EXISTS", true
	case ConsoleCompareFixed:
		return "a", "b", "NOT EXISTS", true
	case ConsoleCompareUnchanged:
		return "b", "a", "EXISTS", true
	}
	return "", "", "", false
}

// probeOther is the membership test of a compare row f in the scan whose
// id is bound next, through that scan's fingerprint index.
const probeOther = ` (SELECT 1 FROM finding_fps o WHERE o.scan_seq = (SELECT seq FROM scans WHERE id = ?) AND o.fingerprint = f.fingerprint)`

// CompareCounts counts the new, fixed and unchanged findings between an
// older scan a and a newer scan b.
func (s *Store) CompareCounts(ctx context.Context, a, b string) (map[string]int, error) {
	out := map[string]int{}
	for _, kind := range []string{ConsoleCompareNew, ConsoleCompareFixed, ConsoleCompareUnchanged} {
		from, other, exists, _ := compareSQL(kind)
		ids := map[string]string{"a": a, "b": b}
		var n int
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM finding_fps f WHERE f.scan_seq = (SELECT seq FROM scans WHERE id = ?) AND `+
			exists+probeOther, ids[from], ids[other]).Scan(&n)
		if err != nil {
			return nil, err
		}
		out[kind] = n
	}
	return out, nil
}

// CompareFindings returns one keyset page (rows after position after; a
// negative after starts at the top) of one compare kind.
func (s *Store) CompareFindings(ctx context.Context, a, b, kind string, after, limit int) ([]OrderedFinding, error) {
	from, other, exists, ok := compareSQL(kind)
	if !ok {
		return nil, errors.New("unknown compare kind " + kind)
	}
	ids := map[string]string{"a": a, "b": b}
	rows, err := s.db.QueryContext(ctx, consoleFindingColumns+scanRange+` AND (f.k & 4294967295) > ? AND `+exists+probeOther+` ORDER BY f.k LIMIT ?`,
		ids[from], ids[from], after, ids[other], max(limit, 1))
	if err != nil {
		return nil, err
	}
	return scanOrderedFindings(rows)
}

// Overview classes of a current finding.
const (
	FindingLive       = "live"
	FindingSuppressed = "suppressed"
	FindingHidden     = "hidden"
)

// SeverityClassCount counts current findings of one severity and class.
type SeverityClassCount struct {
	Severity string
	// Class is FindingSuppressed (an in-source ignore), FindingHidden (a
	// verdict in the hidden set) or FindingLive (the rest).
	Class string
	Count int
}

// CurrentFindingClasses counts the findings of the latest completed scan
// of each target by severity and class. hidden is the set of triage
// statuses a dashboard hides by default; a suppressed finding counts as
// suppressed whatever its verdict.
func (s *Store) CurrentFindingClasses(ctx context.Context, hidden []string) ([]SeverityClassCount, error) {
	hiddenExpr := "0"
	args := []any{}
	if len(hidden) > 0 {
		hiddenExpr = "c.triage IN (" + placeholders(len(hidden)) + ")"
		for _, h := range hidden {
			args = append(args, h)
		}
	}
	// The targets table names the latest completed scan of each target and
	// finding_counts holds its counts: no finding row is read.
	rows, err := s.db.QueryContext(ctx, `SELECT c.severity, CASE
			WHEN c.suppressed = 1 THEN 'suppressed'
			WHEN `+hiddenExpr+` THEN 'hidden' ELSE 'live' END, sum(c.n)
		FROM targets g JOIN finding_counts c ON c.scan_seq = g.scan_seq
		GROUP BY 1, 2 HAVING sum(c.n) > 0 ORDER BY 1, 2`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SeverityClassCount{}
	for rows.Next() {
		var c SeverityClassCount
		if err := rows.Scan(&c.Severity, &c.Class, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ConsoleDay is one UTC day of the overview's trend.
type ConsoleDay struct {
	Day          string
	ScansStarted int
	// RiskScore is the risk score of the scan completed last that day;
	// nil when none completed.
	RiskScore *int
	// Findings sums the findings of the scans completed that day.
	Findings int
}

// ConsoleActivity returns the days in [from, to) that saw a scan start or
// complete, oldest first. It reads only the scans table: the findings of
// a completed scan are counted at ingest (findings_count), so the trend
// never touches the findings of every scan of the month.
func (s *Store) ConsoleActivity(ctx context.Context, from, to time.Time) ([]ConsoleDay, error) {
	lo, hi := formatTime(from), formatTime(to)
	days := map[string]*ConsoleDay{}
	day := func(d string) *ConsoleDay {
		if a, ok := days[d]; ok {
			return a
		}
		a := &ConsoleDay{Day: d}
		days[d] = a
		return a
	}
	rows, err := s.db.QueryContext(ctx, `SELECT substr(started_at, 1, 10), count(*) FROM scans
		WHERE hidden = 0 AND started_at >= ? AND started_at < ? GROUP BY 1`, lo, hi)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var d string
		var n int
		if err := rows.Scan(&d, &n); err != nil {
			rows.Close()
			return nil, err
		}
		day(d).ScansStarted = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT d, risk_score, total FROM (
			SELECT substr(completed_at, 1, 10) AS d, risk_score,
				sum(findings_count) OVER (PARTITION BY substr(completed_at, 1, 10)) AS total,
				row_number() OVER (PARTITION BY substr(completed_at, 1, 10) ORDER BY completed_at DESC, seq DESC) AS rn
			FROM scans WHERE status = 'completed' AND hidden = 0 AND completed_at >= ? AND completed_at < ?)
		WHERE rn = 1`, lo, hi)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var d string
		var score, total int
		if err := rows.Scan(&d, &score, &total); err != nil {
			rows.Close()
			return nil, err
		}
		a := day(d)
		a.RiskScore, a.Findings = &score, total
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]ConsoleDay, 0, len(days))
	for _, a := range days {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day < out[j].Day })
	return out, nil
}

// prefixColumns qualifies a comma-separated column list with a table alias.
func prefixColumns(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
