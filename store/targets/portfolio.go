package targets

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"scand/finding"
	"scand/store/findingjson"
	"scand/store/findings"
	"scand/store/sqlbase"
)

// SLA is what the portfolio reads need of the fix-deadline policy: per
// severity, the first_seen before which a finding is overdue now.
type SLA struct {
	Cutoffs map[finding.Severity]time.Time
}

// overdueExpr is the SQL condition "this finding row is overdue": the
// row's first sighting (alias a of finding_age, falling back to the
// completion of its scan s while the age is being written) is before its
// severity's cutoff. No cutoff: never overdue.
func (p SLA) overdueExpr() (string, []any) {
	if len(p.Cutoffs) == 0 {
		return "0", nil
	}
	var b strings.Builder
	var args []any
	b.WriteString("(coalesce(a.first_seen, s.completed_at) < CASE f.severity")
	for _, sev := range []finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low, finding.Info} {
		if c, ok := p.Cutoffs[sev]; ok {
			b.WriteString(" WHEN ? THEN ?")
			args = append(args, string(sev), sqlbase.FormatTime(c))
		}
	}
	b.WriteString(" ELSE NULL END)")
	return b.String(), args
}

// TargetQuery selects targets for the portfolio list.
type TargetQuery struct {
	Kind string
	// Labels must all be set on the target with these values.
	Labels map[string]string
	// Text is a case-insensitive substring of the name or the key.
	Text string
	// Overdue selects targets with at least one overdue open finding.
	Overdue bool
	// Hidden are the verdicts that do not count as open.
	Hidden []string
	SLA    SLA
	// After is the id of the last target of the previous page.
	After int64
	Limit int
}

// TargetSummary is a target with what the portfolio shows of it.
type TargetSummary struct {
	Target
	FirstScanAt, LastScanAt *time.Time
	LastScanID              string
	// LatestScanID and LatestCompletedAt name the latest completed scan;
	// "" and nil before one.
	LatestScanID      string
	LatestCompletedAt *time.Time
	// LatestSource is the latest completed scan's source (reevaluation:
	// its stored components matched against newer advisory data, then
	// LatestBasedOn is the scan whose components they were).
	LatestSource, LatestBasedOn string
	// Open counts the latest completed scan's findings by severity,
	// without suppressed ones and hidden verdicts; Overdue those of them
	// past their deadline.
	Open    finding.SeverityCount
	Overdue int
}

func (q TargetQuery) where() (string, []any) {
	where := []string{"1"}
	var args []any
	if q.Kind != "" {
		where = append(where, "t.kind = ?")
		args = append(args, q.Kind)
	}
	for k, v := range q.Labels {
		where = append(where, "json_extract(t.labels, '$.\"' || ? || '\"') = ?")
		args = append(args, strings.ReplaceAll(k, `"`, ``), v)
	}
	if q.Text != "" {
		where = append(where, "(instr(lower(t.name), lower(?)) > 0 OR instr(lower(t.key), lower(?)) > 0)")
		args = append(args, q.Text, q.Text)
	}
	return strings.Join(where, " AND "), args
}

// openRowFilter is the condition on a latest-scan finding row (aliases p
// of finding_fps or f of findings with ts of triage_states) that makes it
// open: not suppressed and no hidden verdict.
func openRowFilter(suppressedCol string, hidden []string) (string, []any) {
	cond := suppressedCol + " = 0"
	if len(hidden) > 0 {
		cond += " AND coalesce(ts.status, 'new') NOT IN (" + sqlbase.Placeholders(len(hidden)) + ")"
	}
	return cond, sqlbase.AnySlice(hidden)
}

// overdueCountSQL counts one target's overdue open findings (args: the
// target's id twice, then overdueExpr's and openRowFilter's).
func overdueCountSQL(sla SLA, hidden []string, exists bool) (string, []any) {
	od, odArgs := sla.overdueExpr()
	open, openArgs := openRowFilter("+f.suppressed", hidden)
	sel := "count(*)"
	if exists {
		sel = "1"
	}
	q := `SELECT ` + sel + ` FROM targets tt JOIN scans s ON s.seq = tt.latest_seq
		JOIN findings f ON f.k BETWEEN tt.latest_seq << 32 AND (tt.latest_seq << 32) + 4294967295
		LEFT JOIN finding_age a ON a.target_id = tt.id AND a.fingerprint = f.fingerprint
		LEFT JOIN triage_states ts ON ts.fingerprint = f.fingerprint
		WHERE tt.id = ? AND ` + od + ` AND ` + open
	if exists {
		q += " LIMIT 1"
	}
	return q, append(odArgs, openArgs...)
}

// ListTargets returns a page of targets in id order.
func (s *Targets) ListTargets(ctx context.Context, q TargetQuery) ([]TargetSummary, error) {
	where, args := q.where()
	sqlq := "SELECT " + Columns + " FROM targets t WHERE t.id > ? AND " + where
	args = append([]any{q.After}, args...)
	if q.Overdue {
		if len(q.SLA.Cutoffs) == 0 {
			return []TargetSummary{}, nil
		}
		sub, subArgs := overdueCountSQL(q.SLA, q.Hidden, true)
		sub = strings.Replace(sub, "tt.id = ?", "tt.id = t.id", 1)
		sqlq += " AND EXISTS (" + sub + ")"
		args = append(args, subArgs...)
	}
	sqlq += " ORDER BY t.id LIMIT ?"
	args = append(args, max(q.Limit, 1))
	rows, err := s.db.QueryContext(ctx, sqlq, args...)
	ts, err := sqlbase.Collect(rows, err, TargetRow)
	if err != nil {
		return nil, err
	}
	out := make([]TargetSummary, len(ts))
	for i, t := range ts {
		if out[i], err = s.summarize(ctx, t, q.Hidden, q.SLA); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TargetSummaryByID is one target's summary; ErrNotFound when unknown.
func (s *Targets) TargetSummaryByID(ctx context.Context, id int64, hidden []string, sla SLA) (TargetSummary, error) {
	t, err := s.TargetByID(ctx, id)
	if err != nil {
		return TargetSummary{}, err
	}
	return s.summarize(ctx, t, hidden, sla)
}

func (s *Targets) summarize(ctx context.Context, t Target, hidden []string, sla SLA) (TargetSummary, error) {
	out := TargetSummary{Target: t}
	var first, last sql.NullString
	var lastID sql.NullString
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT started_at FROM scans WHERE target_id = ?1 AND hidden = 0 ORDER BY seq LIMIT 1),
		(SELECT started_at FROM scans WHERE target_id = ?1 AND hidden = 0 ORDER BY seq DESC LIMIT 1),
		(SELECT id FROM scans WHERE target_id = ?1 AND hidden = 0 ORDER BY seq DESC LIMIT 1)`, t.ID).Scan(&first, &last, &lastID); err != nil {
		return out, err
	}
	out.FirstScanAt, out.LastScanAt, out.LastScanID = sqlbase.ParseNullTime(first), sqlbase.ParseNullTime(last), lastID.String
	if t.LatestSeq == 0 {
		return out, nil
	}
	var latestID string
	var completed sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT id, completed_at, source, based_on_scan FROM scans WHERE seq = ?", t.LatestSeq).Scan(&latestID, &completed,
		&out.LatestSource, &out.LatestBasedOn); err != nil {
		return out, err
	}
	out.LatestScanID, out.LatestCompletedAt = latestID, sqlbase.ParseNullTime(completed)
	hiddenCond := "0"
	if len(hidden) > 0 {
		hiddenCond = "triage IN (" + sqlbase.Placeholders(len(hidden)) + ")"
	}
	rows, err := s.db.QueryContext(ctx, "SELECT severity, sum(n) FROM finding_counts WHERE scan_seq = ? AND suppressed = 0 AND NOT "+hiddenCond+
		" GROUP BY severity", append([]any{t.LatestSeq}, sqlbase.AnySlice(hidden)...)...)
	if err != nil {
		return out, err
	}
	for rows.Next() {
		var sev string
		var n int
		if err := rows.Scan(&sev, &n); err != nil {
			rows.Close()
			return out, err
		}
		out.Open.Add(finding.Severity(sev), n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	if len(sla.Cutoffs) > 0 {
		q, args := overdueCountSQL(sla, hidden, false)
		if err := s.db.QueryRowContext(ctx, q, append([]any{t.ID}, args...)...).Scan(&out.Overdue); err != nil {
			return out, err
		}
	}
	return out, nil
}

// DayCount is one day of a target's open-findings series: the open
// findings of the last scan completed that day.
type DayCount struct {
	Day  string
	Open int
}

// OpenSeries returns a target's open findings per day over the days
// since from, one entry per day with a completed scan (the last one of
// the day), oldest first. Open is the scan's unsuppressed findings (the
// verdicts of the past are not kept per day).
func (s *Targets) OpenSeries(ctx context.Context, targetID int64, from time.Time) ([]DayCount, error) {
	// Unary plus: the target's few scans by scans_by_target, never every
	// completed scan since from by scans_completed.
	rows, err := s.db.QueryContext(ctx, `SELECT substr(completed_at, 1, 10), live_counts FROM scans
		WHERE target_id = ? AND +status = 'completed' AND hidden = 0 AND +completed_at >= ? ORDER BY completed_at, seq`, targetID, sqlbase.FormatTime(from))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DayCount{}
	for rows.Next() {
		var day, live string
		if err := rows.Scan(&day, &live); err != nil {
			return nil, err
		}
		var counts map[string]int
		_ = json.Unmarshal([]byte(live), &counts)
		n := 0
		for _, v := range counts {
			n += v
		}
		if len(out) > 0 && out[len(out)-1].Day == day {
			out[len(out)-1].Open = n
			continue
		}
		out = append(out, DayCount{Day: day, Open: n})
	}
	return out, rows.Err()
}

// OverdueTotal counts the overdue open findings of every target's latest
// completed scan (the dashboard).
func (s *Targets) OverdueTotal(ctx context.Context, hidden []string, sla SLA) (int, error) {
	if len(sla.Cutoffs) == 0 {
		return 0, nil
	}
	q, args := overdueCountSQL(sla, hidden, false)
	q = strings.Replace(q, "WHERE tt.id = ? AND", "WHERE tt.latest_seq IS NOT NULL AND", 1)
	var n int
	err := s.db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// FindingsQuery selects findings of the latest completed scan of every
// target (or of the targets it picks).
type FindingsQuery struct {
	Targets TargetQuery // Kind, Labels, Text (paging fields unused)
	// TargetIDs, when set, restricts to these targets.
	TargetIDs  []int64
	Severities []string
	Scanners   []string
	ScanTypes  []string
	Compliance []string
	// Verdicts selects by verdict ("new" also matches none); when empty,
	// the Hidden verdicts are left out.
	Verdicts []string
	Hidden   []string
	// Suppressed nil leaves suppressed findings out; true selects only
	// them, false only the others.
	Suppressed      *bool
	FirstSeenBefore *time.Time
	Overdue         bool
	SLA             SLA
	// Advisory matches the rule id or any alias (case-insensitive).
	Advisory string
	// Package and Version match a dependency finding's package (and
	// installed version when set): a component purl's name and version.
	// Ecosystems, when set, are the names scanners give the purl's type;
	// a finding without an ecosystem matches any.
	Package, Version string
	Ecosystems       []string
	// Sort is severity (default), first_seen, target or file.
	Sort  string
	After *Cursor
	Limit int
}

// Cursor is the position of the last finding of a page in its sort.
type Cursor struct {
	Sev    int    `json:"v,omitempty"`
	Str    string `json:"s,omitempty"`
	Line   int    `json:"l,omitempty"`
	Target int64  `json:"t"`
	K      int64  `json:"k"`
}

// PortfolioFinding is one finding of a target's latest completed scan.
type PortfolioFinding struct {
	TargetID   int64
	TargetName string
	TargetKind string
	ScanID     string
	K          int64
	// Row is the finding's JSON and verdict, valid until the next row.
	Row                 findings.FindingRow
	Severity            string
	FirstSeen, LastSeen time.Time
	Cursor              Cursor
}

const portfolioFrom = ` FROM targets t JOIN scans s ON s.seq = t.latest_seq
	JOIN findings f ON f.k BETWEEN t.latest_seq << 32 AND (t.latest_seq << 32) + 4294967295
	LEFT JOIN triage_states ts ON ts.fingerprint = f.fingerprint
	LEFT JOIN finding_age a ON a.target_id = t.id AND a.fingerprint = f.fingerprint`

// portfolioFromDependency is portfolioFrom reading only the ord ranges
// of the scanners that reported dependency findings in each latest scan,
// for the filters only dependency findings can match (advisory, purl).
const portfolioFromDependency = ` FROM targets t JOIN scans s ON s.seq = t.latest_seq
	JOIN finding_blocks b ON b.scan_seq = t.latest_seq
		AND b.scanner IN (SELECT c.scanner FROM finding_counts c WHERE c.scan_seq = t.latest_seq AND c.scan_type = 'dependency')
	JOIN findings f ON f.k BETWEEN (t.latest_seq << 32) + b.first_ord AND (t.latest_seq << 32) + b.last_ord
	LEFT JOIN triage_states ts ON ts.fingerprint = f.fingerprint
	LEFT JOIN finding_age a ON a.target_id = t.id AND a.fingerprint = f.fingerprint`

func (q FindingsQuery) from() string {
	if q.Advisory != "" || q.Package != "" {
		return portfolioFromDependency
	}
	return portfolioFrom
}

// targetTerms picks the targets a findings query reads (each target's
// latest completed scan, the target filters and ids), shared by the row
// query and the count from facets.
func (q FindingsQuery) targetTerms() ([]string, []any) {
	tw, args := q.Targets.where()
	where := []string{"t.latest_seq IS NOT NULL", tw}
	if len(q.TargetIDs) > 0 {
		where = append(where, "t.id IN ("+sqlbase.Placeholders(len(q.TargetIDs))+")")
		for _, id := range q.TargetIDs {
			args = append(args, id)
		}
	}
	return where, args
}

func (q FindingsQuery) where() (string, []any) {
	where, args := q.targetTerms()
	in := func(col string, vals []string) {
		if len(vals) > 0 {
			where = append(where, col+" IN ("+sqlbase.Placeholders(len(vals))+")")
			args = append(args, sqlbase.AnySlice(vals)...)
		}
	}
	// Unary plus keeps SQLite from building an automatic index over every
	// finding for these terms: the rows come by rowid range per target.
	in("+f.severity", q.Severities)
	in("+f.scanner", q.Scanners)
	in("+f.scan_type", q.ScanTypes)
	if len(q.Compliance) > 0 {
		where = append(where, "+f.tagset IN (SELECT tagset FROM tagset_tags WHERE tag IN ("+sqlbase.Placeholders(len(q.Compliance))+"))")
		args = append(args, sqlbase.AnySlice(q.Compliance)...)
	}
	if len(q.Verdicts) > 0 {
		in("coalesce(ts.status, 'new')", q.Verdicts)
	} else if len(q.Hidden) > 0 {
		where = append(where, "coalesce(ts.status, 'new') NOT IN ("+sqlbase.Placeholders(len(q.Hidden))+")")
		args = append(args, sqlbase.AnySlice(q.Hidden)...)
	}
	switch {
	case q.Suppressed == nil:
		where = append(where, "+f.suppressed = 0")
	default:
		where = append(where, "+f.suppressed = ?")
		args = append(args, sqlbase.BoolInt(*q.Suppressed))
	}
	if q.FirstSeenBefore != nil {
		where = append(where, "coalesce(a.first_seen, s.completed_at) < ?")
		args = append(args, sqlbase.FormatTime(*q.FirstSeenBefore))
	}
	if q.Overdue {
		od, odArgs := q.SLA.overdueExpr()
		where = append(where, od)
		args = append(args, odArgs...)
	}
	if q.Advisory != "" {
		// Advisories are what dependency scanners report: the type test
		// spares every other row its JSON.
		where = append(where, `+f.scan_type = 'dependency' AND (upper(json_extract(f.body, '$.rule_id')) = upper(?)
			OR EXISTS (SELECT 1 FROM json_each(f.body, '$.metadata.aliases') WHERE upper(value) = upper(?)))`)
		args = append(args, q.Advisory, q.Advisory)
	}
	if q.Package != "" {
		where = append(where, "+f.scan_type = 'dependency' AND json_extract(f.body, '$.metadata.package') = ?")
		args = append(args, q.Package)
		if len(q.Ecosystems) > 0 {
			where = append(where, "coalesce(lower(json_extract(f.body, '$.metadata.ecosystem')) IN ("+sqlbase.Placeholders(len(q.Ecosystems))+"), 1)")
			args = append(args, sqlbase.AnySlice(q.Ecosystems)...)
		}
		if q.Version != "" {
			where = append(where, "json_extract(f.body, '$.metadata.version') = ?")
			args = append(args, q.Version)
		}
	}
	return strings.Join(where, " AND "), args
}

// CountPortfolioFindings counts what a FindingsQuery selects (paging
// aside).
func (s *Targets) CountPortfolioFindings(ctx context.Context, q FindingsQuery) (int, error) {
	if q.FirstSeenBefore == nil && !q.Overdue && q.Advisory == "" && q.Package == "" && len(q.Compliance) == 0 {
		return s.countFromFacets(ctx, q)
	}
	where, args := q.where()
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*)"+q.from()+" WHERE "+where, args...).Scan(&n)
	return n, err
}

// countFromFacets answers a count whose filters are all facets of
// finding_counts (kept at ingest and by SetTriage) from those rows: a
// few per target instead of every finding.
func (s *Targets) countFromFacets(ctx context.Context, q FindingsQuery) (int, error) {
	where, args := q.targetTerms()
	in := func(col string, vals []string) {
		if len(vals) > 0 {
			where = append(where, col+" IN ("+sqlbase.Placeholders(len(vals))+")")
			args = append(args, sqlbase.AnySlice(vals)...)
		}
	}
	in("c.severity", q.Severities)
	in("c.scanner", q.Scanners)
	in("c.scan_type", q.ScanTypes)
	if len(q.Verdicts) > 0 {
		in("c.triage", q.Verdicts)
	} else if len(q.Hidden) > 0 {
		where = append(where, "c.triage NOT IN ("+sqlbase.Placeholders(len(q.Hidden))+")")
		args = append(args, sqlbase.AnySlice(q.Hidden)...)
	}
	if q.Suppressed == nil {
		where = append(where, "c.suppressed = 0")
	} else {
		where = append(where, "c.suppressed = ?")
		args = append(args, sqlbase.BoolInt(*q.Suppressed))
	}
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT coalesce(sum(c.n), 0) FROM targets t JOIN finding_counts c ON c.scan_seq = t.latest_seq WHERE "+
		strings.Join(where, " AND "), args...).Scan(&n)
	return n, err
}

var severityOrder = []finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low, finding.Info}

// PortfolioFindings returns a page of what q selects, in its sort:
// severity (then target id, canonical order), first_seen (then target,
// canonical order), target (name, id, canonical order) or file (target id,
// file path, line, canonical order). Every sort is total, so keyset paging
// with the last row's Cursor is stable.
func (s *Targets) PortfolioFindings(ctx context.Context, q FindingsQuery) ([]PortfolioFinding, error) {
	limit := max(q.Limit, 1)
	where, args := q.where()
	cols := `SELECT t.id, t.name, t.kind, s.id, f.k, f.fingerprint, f.severity, f.body,
		(SELECT x.text FROM finding_texts x WHERE x.scan_seq = t.latest_seq AND x.id = f.text_id),
		ts.status, ts.note, ts.updated_at, ts.updated_by,
		coalesce(a.first_seen, s.completed_at), coalesce(max(a.last_seen, s.completed_at), s.completed_at),
		t.name, json_extract(f.body, '$.file_path'), json_extract(f.body, '$.line')`
	var out []PortfolioFinding
	run := func(extra string, extraArgs []any, order string, n int) error {
		sqlq := cols + q.from() + " WHERE " + where + extra + " ORDER BY " + order + " LIMIT ?"
		a := append(append(append([]any{}, args...), extraArgs...), n)
		rows, err := s.db.QueryContext(ctx, sqlq, a...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var pf PortfolioFinding
			var fp, sev string
			var body, text []byte
			var tStatus, tNote, tAt, tBy sql.NullString
			var first, last string
			var name string
			var file sql.NullString
			var line sql.NullInt64
			if err := rows.Scan(&pf.TargetID, &pf.TargetName, &pf.TargetKind, &pf.ScanID, &pf.K, &fp, &sev, &body, &text,
				&tStatus, &tNote, &tAt, &tBy, &first, &last, &name, &file, &line); err != nil {
				return err
			}
			if text != nil {
				if body, err = findingjson.Splice(nil, body, text); err != nil {
					return err
				}
			}
			pf.Row = findings.FindingRow{Ord: int(pf.K & 0xffffffff), Fingerprint: fp, Body: body}
			if tStatus.Valid {
				pf.Row.State = &findings.TriageState{Fingerprint: fp, Status: tStatus.String, Note: tNote.String,
					UpdatedAt: sqlbase.ParseTime(tAt.String), UpdatedBy: tBy.String}
			}
			pf.Severity = sev
			pf.FirstSeen, pf.LastSeen = sqlbase.ParseTime(first), sqlbase.ParseTime(last)
			pf.Cursor = Cursor{Target: pf.TargetID, K: pf.K}
			switch q.Sort {
			case "first_seen":
				pf.Cursor.Str = first
			case "target":
				pf.Cursor.Str = name
			case "file":
				pf.Cursor.Str, pf.Cursor.Line = file.String, int(line.Int64)
			default:
				pf.Cursor.Sev = finding.Severity(sev).Rank()
			}
			out = append(out, pf)
		}
		return rows.Err()
	}
	c := q.After
	switch q.Sort {
	case "first_seen":
		extra, ea := "", []any(nil)
		if c != nil {
			extra = " AND (coalesce(a.first_seen, s.completed_at), t.id, f.k) > (?, ?, ?)"
			ea = []any{c.Str, c.Target, c.K}
		}
		return out, run(extra, ea, "coalesce(a.first_seen, s.completed_at), t.id, f.k", limit)
	case "target":
		extra, ea := "", []any(nil)
		if c != nil {
			extra = " AND (t.name > ? OR (t.name = ? AND (t.id > ? OR (t.id = ? AND f.k > ?))))"
			ea = []any{c.Str, c.Str, c.Target, c.Target, c.K}
		}
		return out, run(extra, ea, "t.name, t.id, f.k", limit)
	case "file":
		extra, ea := "", []any(nil)
		if c != nil {
			extra = " AND (t.id, json_extract(f.body, '$.file_path'), json_extract(f.body, '$.line'), f.k) > (?, ?, ?, ?)"
			ea = []any{c.Target, c.Str, c.Line, c.K}
		}
		return out, run(extra, ea, "t.id, json_extract(f.body, '$.file_path'), json_extract(f.body, '$.line'), f.k", limit)
	}
	// Severity: one pass per severity, each in target then canonical
	// order, so no pass sorts (a scan's findings are stored severity first).
	for _, sev := range severityOrder {
		if c != nil && sev.Rank() > c.Sev {
			continue
		}
		if len(q.Severities) > 0 && !contains(q.Severities, string(sev)) {
			continue
		}
		extra, ea := " AND +f.severity = ?", []any{string(sev)}
		if c != nil && sev.Rank() == c.Sev {
			extra += " AND (t.id > ? OR (t.id = ? AND f.k > ?))"
			ea = append(ea, c.Target, c.Target, c.K)
		}
		if err := run(extra, ea, "t.id, f.k", limit-len(out)); err != nil {
			return nil, err
		}
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Breach is an open finding of a target's latest completed scan that is
// past its deadline and was never announced (finding.sla_breached).
type Breach struct {
	TargetID               int64
	TargetName, TargetKind string
	ScanID                 string
	Fingerprint, Severity  string
	Title                  string
	FirstSeen              time.Time
}

// NewlyOverdue returns up to limit breaches in target order. Findings
// whose age is still being written are left for the next call.
func (s *Targets) NewlyOverdue(ctx context.Context, sla SLA, hidden []string, limit int) ([]Breach, error) {
	if len(sla.Cutoffs) == 0 {
		return []Breach{}, nil
	}
	od, odArgs := sla.overdueExpr()
	open, openArgs := openRowFilter("+f.suppressed", hidden)
	rows, err := s.db.QueryContext(ctx, `SELECT t.id, t.name, t.kind, s.id, f.fingerprint, f.severity, coalesce(json_extract(f.body, '$.title'), ''), a.first_seen
		FROM targets t JOIN scans s ON s.seq = t.latest_seq
		JOIN findings f ON f.k BETWEEN t.latest_seq << 32 AND (t.latest_seq << 32) + 4294967295
		JOIN finding_age a ON a.target_id = t.id AND a.fingerprint = f.fingerprint
		LEFT JOIN triage_states ts ON ts.fingerprint = f.fingerprint
		WHERE t.latest_seq IS NOT NULL AND a.sla_notified = 0 AND `+od+` AND `+open+`
		ORDER BY t.id, f.k LIMIT ?`, append(append(odArgs, openArgs...), max(limit, 1))...)
	return sqlbase.Collect(rows, err, func(r sqlbase.Row) (Breach, error) {
		var b Breach
		var first string
		err := r.Scan(&b.TargetID, &b.TargetName, &b.TargetKind, &b.ScanID, &b.Fingerprint, &b.Severity, &b.Title, &first)
		b.FirstSeen = sqlbase.ParseTime(first)
		return b, err
	})
}

// MarkBreachesAnnounced records that finding.sla_breached went out for
// these findings: they are never announced again.
func (s *Targets) MarkBreachesAnnounced(ctx context.Context, bs []Breach) error {
	return sqlbase.InTx(ctx, s.w, func(tx *sql.Tx) error {
		for _, b := range bs {
			if _, err := tx.ExecContext(ctx, "UPDATE finding_age SET sla_notified = 1 WHERE target_id = ? AND fingerprint = ?", b.TargetID, b.Fingerprint); err != nil {
				return err
			}
		}
		return nil
	})
}
