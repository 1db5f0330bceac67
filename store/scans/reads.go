package scans

// Reads of the scans table the web console needs beyond the API's: scans
// by fingerprint, counts and targets for the lists, the previous scan of
// a target, and the overview's activity by day.

import (
	"context"
	"sort"
	"strings"
	"time"

	"scand/store/sqlbase"
)

// ScansWithFingerprint lists the completed scans that recorded a
// fingerprint, newest first, at most limit.
func (s *Table) ScansWithFingerprint(ctx context.Context, fingerprint string, limit int) ([]Scan, error) {
	return s.queryScans(ctx, "SELECT "+Columns+` FROM scans s WHERE s.status = 'completed' AND s.hidden = 0
		AND EXISTS (SELECT 1 FROM finding_fps p WHERE p.scan_seq = s.seq AND p.fingerprint = ?) ORDER BY s.seq DESC LIMIT ?`,
		fingerprint, max(limit, 1))
}

// CountScans counts the scans a ScanFilter selects (ignoring its paging).
func (s *Table) CountScans(ctx context.Context, f ScanFilter) (int, error) {
	q := "SELECT count(*) FROM scans"
	where, args := f.where()
	q += " WHERE " + strings.Join(where, " AND ")
	var n int
	err := s.db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// ScanTargets lists distinct target paths, most recently scanned first.
func (s *Table) ScanTargets(ctx context.Context, limit int) ([]string, error) {
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
func (s *Table) PreviousCompletedScan(ctx context.Context, scanID string) (Scan, error) {
	return ScanRow(s.db.QueryRowContext(ctx, "SELECT "+prefixColumns("o.", Columns)+` FROM scans s JOIN scans o
		ON o.target_path = s.target_path AND COALESCE(o.target_url, '') = COALESCE(s.target_url, '')
		AND COALESCE(o.target_host, '') = COALESCE(s.target_host, '')
		WHERE s.id = ? AND o.status = 'completed' AND o.hidden = 0 AND o.seq < s.seq ORDER BY o.seq DESC LIMIT 1`, scanID))
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
func (s *Table) ConsoleActivity(ctx context.Context, from, to time.Time) ([]ConsoleDay, error) {
	lo, hi := sqlbase.FormatTime(from), sqlbase.FormatTime(to)
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
