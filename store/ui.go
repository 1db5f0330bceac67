package store

// Reads the web console (api/ui) needs beyond what the API's handlers use:
// filtered keyset pages of a scan's findings, one finding with the scans it
// appeared in, a paged compare, and the overview's breakdown. They live in
// their own file so the findings reads in findings.go can change without
// touching them.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
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

// consoleFindingWhere renders q's filters (not its bounds) as SQL over
// findings f LEFT JOIN triage_states t.
func consoleFindingWhere(scanID string, q ConsoleFindingQuery) (string, []any) {
	where := "f.scan_id = ?"
	args := []any{scanID}
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
		where += " AND EXISTS (SELECT 1 FROM json_each(f.body, '$.compliance_tags') j WHERE j.value IN (" + placeholders(len(q.Compliance)) + "))"
		for _, v := range q.Compliance {
			args = append(args, v)
		}
	}
	if q.Suppressed != nil {
		if *q.Suppressed {
			where += " AND json_extract(f.body, '$.metadata.suppressed_by') IS NOT NULL"
		} else {
			where += " AND json_extract(f.body, '$.metadata.suppressed_by') IS NULL"
		}
	}
	if q.Text != "" {
		// LIKE is case-insensitive for ASCII, as asciiLower is. The title
		// lives in the JSON body: a LIKE over the raw body first rules out
		// most rows without parsing them, which is only sound when the
		// needle has no character JSON encoding changes.
		pattern := "%" + likeEscaper.Replace(q.Text) + "%"
		title := "json_extract(f.body, '$.title') LIKE ? ESCAPE '\\'"
		targs := []any{pattern}
		if !strings.ContainsAny(q.Text, jsonEscaped) {
			title = "(f.body LIKE ? ESCAPE '\\' AND " + title + ")"
			targs = []any{pattern, pattern}
		}
		where += " AND (f.file_path LIKE ? ESCAPE '\\' OR f.rule_id LIKE ? ESCAPE '\\' OR " + title + ")"
		args = append(append(args, pattern, pattern), targs...)
	}
	return where, args
}

const consoleFindingFrom = ` FROM findings f LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint WHERE `

// ConsoleFindings returns one keyset page of a scan's findings in
// canonical order with their triage states.
func (s *Store) ConsoleFindings(ctx context.Context, scanID string, q ConsoleFindingQuery) ([]OrderedFinding, error) {
	where, args := consoleFindingWhere(scanID, q)
	limit := max(q.Limit, 1)
	order := " ORDER BY f.ord"
	switch {
	case q.After >= 0:
		where += " AND f.ord > ?"
		args = append(args, q.After)
	case q.Before >= 0:
		// The rows just before the bound, read backwards and reversed below.
		where += " AND f.ord < ?"
		args = append(args, q.Before)
		order = " ORDER BY f.ord DESC"
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, `SELECT f.ord, f.fingerprint, f.body, t.status, t.note, t.updated_at, t.updated_by`+
		consoleFindingFrom+where+order+" LIMIT ?", args...)
	if err != nil {
		return nil, err
	}
	out, err := scanOrderedFindings(rows)
	if err != nil {
		return nil, err
	}
	if q.After < 0 && q.Before >= 0 {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, nil
}

// CountConsoleFindings counts a scan's findings that match q's filters,
// stopping at upTo: past that, a page only needs to say "more than".
func (s *Store) CountConsoleFindings(ctx context.Context, scanID string, q ConsoleFindingQuery, upTo int) (int, error) {
	where, args := consoleFindingWhere(scanID, q)
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1"+consoleFindingFrom+where+" LIMIT ?)", append(args, upTo)...).Scan(&n)
	return n, err
}

func scanOrderedFindings(rows *sql.Rows) ([]OrderedFinding, error) {
	defer rows.Close()
	out := []OrderedFinding{}
	for rows.Next() {
		var of OrderedFinding
		var body []byte
		var tStatus, tNote, tAt, tBy sql.NullString
		if err := rows.Scan(&of.Ord, &of.Fingerprint, &body, &tStatus, &tNote, &tAt, &tBy); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(body, &of.Finding); err != nil {
			return nil, err
		}
		if tStatus.Valid {
			of.State = &TriageState{Fingerprint: of.Fingerprint, Status: tStatus.String, Note: tNote.String, UpdatedAt: parseTime(tAt.String), UpdatedBy: tBy.String}
		}
		out = append(out, of)
	}
	return out, rows.Err()
}

// FindingOccurrence returns the finding with a fingerprint as one scan
// recorded it, or as the newest scan that has it when scanID is empty,
// together with that scan. ErrNotFound when no stored finding has it.
func (s *Store) FindingOccurrence(ctx context.Context, fingerprint, scanID string) (FindingWithState, Scan, error) {
	q := `SELECT f.fingerprint, f.body, ` + prefixColumns("s.", scanColumns) + `
		FROM findings f JOIN scans s ON s.id = f.scan_id WHERE f.fingerprint = ?`
	args := []any{fingerprint}
	if scanID != "" {
		q += " AND f.scan_id = ?"
		args = append(args, scanID)
	}
	q += " ORDER BY s.seq DESC, f.ord LIMIT 1"
	var fw FindingWithState
	var body []byte
	sc, err := scanScan(prefixedRow{row: s.db.QueryRowContext(ctx, q, args...), head: []any{&fw.Fingerprint, &body}})
	if err != nil {
		return fw, sc, err
	}
	if err := json.Unmarshal(body, &fw.Finding); err != nil {
		return fw, sc, err
	}
	fw.State, err = s.TriageStateOf(ctx, fingerprint)
	return fw, sc, err
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

// ScansWithFingerprint lists the scans that recorded a fingerprint,
// newest first, at most limit.
func (s *Store) ScansWithFingerprint(ctx context.Context, fingerprint string, limit int) ([]Scan, error) {
	return s.queryScans(ctx, "SELECT "+scanColumns+" FROM scans WHERE id IN (SELECT scan_id FROM findings WHERE fingerprint = ?) ORDER BY seq DESC LIMIT ?",
		fingerprint, max(limit, 1))
}

// CountScans counts the scans a ScanFilter selects (ignoring its paging).
func (s *Store) CountScans(ctx context.Context, f ScanFilter) (int, error) {
	q := "SELECT count(*) FROM scans"
	var where []string
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
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	var n int
	err := s.db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// ScanTargets lists distinct target paths, most recently scanned first.
func (s *Store) ScanTargets(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT target_path FROM scans GROUP BY target_path ORDER BY max(seq) DESC LIMIT ?", max(limit, 1))
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
		WHERE s.id = ? AND o.status = 'completed' AND o.seq < s.seq ORDER BY o.seq DESC LIMIT 1`, scanID))
}

// Compare kinds: findings only in the newer scan, only in the older one,
// and in both (the newer scan's copy).
const (
	CompareNew       = "new"
	CompareFixed     = "fixed"
	CompareUnchanged = "unchanged"
)

// compareSQL selects one kind of a compare of scan a (older) with scan b,
// by fingerprint as the API's compare does, in the canonical order of the
// scan the rows come from.
func compareSQL(kind string) (from, other, exists string, ok bool) {
	switch kind {
	case CompareNew:
		return "b", "a", "NOT EXISTS", true
	case CompareFixed:
		return "a", "b", "NOT EXISTS", true
	case CompareUnchanged:
		return "b", "a", "EXISTS", true
	}
	return "", "", "", false
}

// CompareCounts counts the new, fixed and unchanged findings between an
// older scan a and a newer scan b.
func (s *Store) CompareCounts(ctx context.Context, a, b string) (map[string]int, error) {
	out := map[string]int{}
	for _, kind := range []string{CompareNew, CompareFixed, CompareUnchanged} {
		from, other, exists, _ := compareSQL(kind)
		ids := map[string]string{"a": a, "b": b}
		var n int
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM findings f WHERE f.scan_id = ? AND `+exists+
			` (SELECT 1 FROM findings o WHERE o.fingerprint = f.fingerprint AND o.scan_id = ?)`, ids[from], ids[other]).Scan(&n)
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
	rows, err := s.db.QueryContext(ctx, `SELECT f.ord, f.fingerprint, f.body, t.status, t.note, t.updated_at, t.updated_by
		FROM findings f LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint
		WHERE f.scan_id = ? AND f.ord > ? AND `+exists+` (SELECT 1 FROM findings o WHERE o.fingerprint = f.fingerprint AND o.scan_id = ?)
		ORDER BY f.ord LIMIT ?`, ids[from], after, ids[other], max(limit, 1))
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
		hiddenExpr = "t.status IN (" + placeholders(len(hidden)) + ")"
		for _, h := range hidden {
			args = append(args, h)
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.severity, CASE
			WHEN json_extract(f.body, '$.metadata.suppressed_by') IS NOT NULL THEN 'suppressed'
			WHEN `+hiddenExpr+` THEN 'hidden' ELSE 'live' END, count(*)
		FROM findings f LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint
		WHERE f.scan_id IN (`+latestCompletedScans+`)
		GROUP BY 1, 2 ORDER BY 1, 2`, args...)
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
		WHERE started_at >= ? AND started_at < ? GROUP BY 1`, lo, hi)
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
			FROM scans WHERE status = 'completed' AND completed_at >= ? AND completed_at < ?)
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

// prefixedRow scans leading columns into head, the rest as the caller asks,
// so scanScan can read a scan that follows other columns.
type prefixedRow struct {
	row  *sql.Row
	head []any
}

func (p prefixedRow) Scan(dest ...any) error { return p.row.Scan(append(p.head, dest...)...) }

// prefixColumns qualifies a comma-separated column list with a table alias.
func prefixColumns(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
