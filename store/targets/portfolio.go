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
// row's first sighting (latest_findings lf) is before its severity's
// cutoff. It is a comparison at query time, never a stored flag: now and
// the policy move. No cutoff: never overdue. The OR of one range per
// severity reads index latest_findings_overdue.
func (p SLA) overdueExpr() (string, []any) {
	if len(p.Cutoffs) == 0 {
		return "0", nil
	}
	var terms []string
	var args []any
	for _, sev := range []finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low, finding.Info} {
		if c, ok := p.Cutoffs[sev]; ok {
			terms = append(terms, "(lf.severity = ? AND lf.first_seen < ?)")
			args = append(args, string(sev), sqlbase.FormatTime(c))
		}
	}
	return "(" + strings.Join(terms, " OR ") + ")", args
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
// target's id, then overdueExpr's and openRowFilter's).
func overdueCountSQL(sla SLA, hidden []string, exists bool) (string, []any) {
	od, odArgs := sla.overdueExpr()
	open, openArgs := openRowFilter("lf.suppressed", hidden)
	sel := "count(*)"
	if exists {
		sel = "1"
	}
	// lt, not t: the query is also a subquery of queries over targets t.
	q := `SELECT ` + sel + ` FROM latest_findings lf JOIN targets lt ON lt.id = lf.target_id
		LEFT JOIN triage_states ts ON ts.fingerprint = lf.fingerprint
		WHERE lf.target_id = ? AND lf.k >> 32 = lt.latest_seq AND ` + od + ` AND ` + open
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
		sub = strings.Replace(sub, "lf.target_id = ?", "lf.target_id = t.id", 1)
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
	return s.summarize(ctx, ts, q.Hidden, q.SLA)
}

// TargetSummaryByID is one target's summary; ErrNotFound when unknown.
func (s *Targets) TargetSummaryByID(ctx context.Context, id int64, hidden []string, sla SLA) (TargetSummary, error) {
	t, err := s.TargetByID(ctx, id)
	if err != nil {
		return TargetSummary{}, err
	}
	out, err := s.summarize(ctx, []Target{t}, hidden, sla)
	if err != nil {
		return TargetSummary{}, err
	}
	return out[0], nil
}

// summarize adds to a page of targets what the portfolio shows of each,
// in two queries for the whole page: the scans and overdue counts, then
// the open counts from finding_counts.
func (s *Targets) summarize(ctx context.Context, ts []Target, hidden []string, sla SLA) ([]TargetSummary, error) {
	out := make([]TargetSummary, len(ts))
	if len(ts) == 0 {
		return out, nil
	}
	byID := map[int64]*TargetSummary{}
	ids := make([]any, len(ts))
	for i, t := range ts {
		out[i] = TargetSummary{Target: t}
		byID[t.ID] = &out[i]
		ids[i] = t.ID
	}
	overdue, args := "0", []any(nil)
	if len(sla.Cutoffs) > 0 {
		overdue, args = overdueCountSQL(sla, hidden, false)
		overdue = "(" + strings.Replace(overdue, "lf.target_id = ?", "lf.target_id = t.id", 1) + ")"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT t.id,
			(SELECT started_at FROM scans WHERE target_id = t.id AND hidden = 0 ORDER BY seq LIMIT 1),
			(SELECT started_at FROM scans WHERE target_id = t.id AND hidden = 0 ORDER BY seq DESC LIMIT 1),
			(SELECT id FROM scans WHERE target_id = t.id AND hidden = 0 ORDER BY seq DESC LIMIT 1),
			s.id, s.completed_at, coalesce(s.source, ''), coalesce(s.based_on_scan, ''), `+overdue+`
		FROM targets t LEFT JOIN scans s ON s.seq = t.latest_seq WHERE t.id IN (`+sqlbase.Placeholders(len(ids))+`)`, append(args, ids...)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var first, last, lastID, latestID, completed sql.NullString
		var source, basedOn string
		var n int
		if err := rows.Scan(&id, &first, &last, &lastID, &latestID, &completed, &source, &basedOn, &n); err != nil {
			rows.Close()
			return nil, err
		}
		t := byID[id]
		t.FirstScanAt, t.LastScanAt, t.LastScanID = sqlbase.ParseNullTime(first), sqlbase.ParseNullTime(last), lastID.String
		if t.LatestSeq != 0 {
			t.LatestScanID, t.LatestCompletedAt, t.Overdue = latestID.String, sqlbase.ParseNullTime(completed), n
			t.LatestSource, t.LatestBasedOn = source, basedOn
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hiddenCond := "0"
	if len(hidden) > 0 {
		hiddenCond = "c.triage IN (" + sqlbase.Placeholders(len(hidden)) + ")"
	}
	rows, err = s.db.QueryContext(ctx, `SELECT t.id, c.severity, sum(c.n) FROM targets t JOIN finding_counts c ON c.scan_seq = t.latest_seq
		WHERE t.id IN (`+sqlbase.Placeholders(len(ids))+`) AND c.suppressed = 0 AND NOT `+hiddenCond+` GROUP BY 1, 2`,
		append(append([]any{}, ids...), sqlbase.AnySlice(hidden)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sev string
		var n int
		if err := rows.Scan(&id, &sev, &n); err != nil {
			return nil, err
		}
		byID[id].Open.Add(finding.Severity(sev), n)
	}
	return out, rows.Err()
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
	m, err := s.OpenSeriesOf(ctx, []int64{targetID}, from)
	return m[targetID], err
}

// OpenSeriesOf is OpenSeries of several targets in one query; every
// target asked for has an entry.
func (s *Targets) OpenSeriesOf(ctx context.Context, targetIDs []int64, from time.Time) (map[int64][]DayCount, error) {
	out := map[int64][]DayCount{}
	if len(targetIDs) == 0 {
		return out, nil
	}
	args := []any{}
	for _, id := range targetIDs {
		out[id] = []DayCount{}
		args = append(args, id)
	}
	// Unary plus: the targets' few scans by scans_target_seq, never every
	// completed scan since from by scans_completed.
	rows, err := s.db.QueryContext(ctx, `SELECT target_id, substr(completed_at, 1, 10), live_counts FROM scans
		WHERE target_id IN (`+sqlbase.Placeholders(len(targetIDs))+`) AND +status = 'completed' AND hidden = 0 AND +completed_at >= ?
		ORDER BY target_id, completed_at, seq`, append(args, sqlbase.FormatTime(from))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var day, live string
		if err := rows.Scan(&id, &day, &live); err != nil {
			return nil, err
		}
		var counts map[string]int
		_ = json.Unmarshal([]byte(live), &counts)
		n := 0
		for _, v := range counts {
			n += v
		}
		days := out[id]
		if len(days) > 0 && days[len(days)-1].Day == day {
			days[len(days)-1].Open = n
			continue
		}
		out[id] = append(days, DayCount{Day: day, Open: n})
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
	q = strings.Replace(q, "WHERE lf.target_id = ? AND", "WHERE", 1)
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

// portfolioRows is where a page of findings is read: latest_findings
// (lf) picks and orders the rows, the finding's JSON comes from findings.
const portfolioRows = ` FROM latest_findings lf JOIN targets t ON t.id = lf.target_id JOIN scans s ON s.seq = t.latest_seq
	JOIN findings f ON f.k = lf.k
	LEFT JOIN triage_states ts ON ts.fingerprint = lf.fingerprint
	LEFT JOIN finding_age a ON a.target_id = lf.target_id AND a.fingerprint = lf.fingerprint`

// portfolioRowsByTarget is portfolioRows for the target sort: CROSS JOIN
// makes SQLite walk targets in name order (index targets_name) and each
// one's rows, instead of sorting every row of every target.
const portfolioRowsByTarget = ` FROM targets t CROSS JOIN latest_findings lf ON lf.target_id = t.id JOIN scans s ON s.seq = t.latest_seq
	JOIN findings f ON f.k = lf.k
	LEFT JOIN triage_states ts ON ts.fingerprint = lf.fingerprint
	LEFT JOIN finding_age a ON a.target_id = lf.target_id AND a.fingerprint = lf.fingerprint`

// portfolioCount is where a count reads: latest_findings alone holds
// every column a filter tests.
const portfolioCount = ` FROM latest_findings lf JOIN targets t ON t.id = lf.target_id
	LEFT JOIN triage_states ts ON ts.fingerprint = lf.fingerprint`

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

// latestRows keeps to rows of each target's latest scan: while a large
// change is rewritten in batches (latest_stale), rows of the scan before
// are still there.
const latestRows = "lf.k >> 32 = t.latest_seq"

func (q FindingsQuery) where() (string, []any) {
	where, args := q.targetTerms()
	where = append(where, latestRows)
	in := func(col string, vals []string) {
		if len(vals) > 0 {
			where = append(where, col+" IN ("+sqlbase.Placeholders(len(vals))+")")
			args = append(args, sqlbase.AnySlice(vals)...)
		}
	}
	in("lf.severity", q.Severities)
	in("lf.scanner", q.Scanners)
	in("lf.scan_type", q.ScanTypes)
	if len(q.Compliance) > 0 {
		where = append(where, "lf.tagset IN (SELECT tagset FROM tagset_tags WHERE tag IN ("+sqlbase.Placeholders(len(q.Compliance))+"))")
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
		where = append(where, "lf.suppressed = 0")
	default:
		where = append(where, "lf.suppressed = ?")
		args = append(args, sqlbase.BoolInt(*q.Suppressed))
	}
	if q.FirstSeenBefore != nil {
		where = append(where, "lf.first_seen < ?")
		args = append(args, sqlbase.FormatTime(*q.FirstSeenBefore))
	}
	if q.Overdue {
		od, odArgs := q.SLA.overdueExpr()
		where = append(where, od)
		args = append(args, odArgs...)
	}
	if q.Advisory != "" {
		// latest_advisories holds the upper-cased rule id and aliases of
		// every dependency finding of the latest scans.
		where = append(where, "lf.k IN (SELECT k FROM latest_advisories WHERE advisory = upper(?))")
		args = append(args, q.Advisory)
	}
	if q.Package != "" {
		where = append(where, "lf.package = ?")
		args = append(args, q.Package)
		if len(q.Ecosystems) > 0 {
			where = append(where, "coalesce(lower(lf.ecosystem) IN ("+sqlbase.Placeholders(len(q.Ecosystems))+"), 1)")
			args = append(args, sqlbase.AnySlice(q.Ecosystems)...)
		}
		if q.Version != "" {
			where = append(where, "lf.version = ?")
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
	err := s.db.QueryRowContext(ctx, "SELECT count(*)"+portfolioCount+" WHERE "+where, args...).Scan(&n)
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
		lf.first_seen, coalesce(max(a.last_seen, s.completed_at), s.completed_at),
		t.name, json_extract(f.body, '$.file_path'), json_extract(f.body, '$.line')`
	var out []PortfolioFinding
	run := func(extra string, extraArgs []any, order string, n int) error {
		from := portfolioRows
		if q.Sort == "target" {
			from = portfolioRowsByTarget
		}
		sqlq := cols + from + " WHERE " + where + extra + " ORDER BY " + order + " LIMIT ?"
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
			extra = " AND (lf.first_seen, lf.target_id, lf.k) > (?, ?, ?)"
			ea = []any{c.Str, c.Target, c.K}
		}
		return out, run(extra, ea, "lf.first_seen, lf.target_id, lf.k", limit)
	case "target":
		extra, ea := "", []any(nil)
		if c != nil {
			extra = " AND (t.name > ? OR (t.name = ? AND (t.id > ? OR (t.id = ? AND lf.k > ?))))"
			ea = []any{c.Str, c.Str, c.Target, c.Target, c.K}
		}
		return out, run(extra, ea, "t.name, t.id, lf.k", limit)
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
		extra, ea := " AND lf.severity = ?", []any{string(sev)}
		if c != nil && sev.Rank() == c.Sev {
			extra += " AND (lf.target_id > ? OR (lf.target_id = ? AND lf.k > ?))"
			ea = append(ea, c.Target, c.Target, c.K)
		}
		if err := run(extra, ea, "lf.target_id, lf.k", limit-len(out)); err != nil {
			return nil, err
		}
		if len(out) >= limit {
			break
		}
	}
	return out, nil
}

// PortfolioFingerprints returns the distinct fingerprints of what q
// selects across targets (its sort and paging fields ignored), stopping
// after upTo+1 so a caller can tell "more than upTo" without reading the
// rest: the set a bulk verdict by the findings list's filter covers.
func (s *Targets) PortfolioFingerprints(ctx context.Context, q FindingsQuery, upTo int) ([]string, error) {
	where, args := q.where()
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT lf.fingerprint"+portfolioCount+" WHERE "+where+" LIMIT ?", append(args, upTo+1)...)
	return sqlbase.Collect(rows, err, sqlbase.ScanString)
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
	open, openArgs := openRowFilter("lf.suppressed", hidden)
	rows, err := s.db.QueryContext(ctx, `SELECT t.id, t.name, t.kind, s.id, lf.fingerprint, lf.severity, coalesce(json_extract(f.body, '$.title'), ''), a.first_seen
		FROM latest_findings lf JOIN targets t ON t.id = lf.target_id JOIN scans s ON s.seq = t.latest_seq
		JOIN findings f ON f.k = lf.k
		JOIN finding_age a ON a.target_id = lf.target_id AND a.fingerprint = lf.fingerprint
		LEFT JOIN triage_states ts ON ts.fingerprint = lf.fingerprint
		WHERE a.sla_notified = 0 AND `+latestRows+` AND `+od+` AND `+open+`
		ORDER BY lf.target_id, lf.k LIMIT ?`, append(append(odArgs, openArgs...), max(limit, 1))...)
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
