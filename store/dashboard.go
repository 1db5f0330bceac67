package store

import (
	"context"
	"database/sql"
	"time"
)

// ScanCountsByStatus returns how many scans are in each status. Every
// status is present, with 0 when no scan has it, so a dashboard can render
// a fixed set of tiles. It reads the counts the scans triggers maintain
// (migration 0002), so it costs the same with ten or ten thousand scans.
func (s *Store) ScanCountsByStatus(ctx context.Context) (map[string]int, error) {
	out := map[string]int{StatusPending: 0, StatusRunning: 0, StatusCompleted: 0, StatusFailed: 0, StatusCancelled: 0}
	rows, err := s.db.QueryContext(ctx, "SELECT status, n FROM scan_status_counts")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			return nil, err
		}
		out[status] = n
	}
	return out, rows.Err()
}

// SeverityTriageCount is how many findings share one severity and one
// triage status.
type SeverityTriageCount struct {
	Severity string
	// Status is the finding's triage status; a finding without a verdict
	// counts as "new".
	Status string
	Count  int
}

// CurrentFindings describes what is open right now: the findings of the
// latest completed scan of each target.
type CurrentFindings struct {
	// Targets is how many distinct targets have a completed scan.
	Targets int
	// Counts is one row per (severity, triage status) pair that occurs.
	Counts []SeverityTriageCount
}

// CurrentFindingCounts counts the findings of the latest completed scan of
// each target by severity and triage status. A target (store/targets) is
// its kind and key plus target_url and target_host, so two DAST scans of
// different URLs from the same working directory do not hide each other;
// "latest" is arrival order
// (the scan started last saw the newest state of the target). Rows are
// counted, not distinct fingerprints, so the severity and the triage
// totals add up to the same number even when two checkouts of one tree
// share fingerprints. Both inputs are maintained aggregates (targets by
// triggers, finding_counts by the ingest writer and SetTriage): the cost
// grows with the number of targets, not findings.
func (s *Store) CurrentFindingCounts(ctx context.Context) (CurrentFindings, error) {
	var out CurrentFindings
	out.Counts = []SeverityTriageCount{}
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM targets WHERE latest_seq IS NOT NULL").Scan(&out.Targets)
	if err != nil {
		return out, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.severity, c.triage, sum(c.n)
		FROM targets t JOIN finding_counts c ON c.scan_seq = t.latest_seq
		GROUP BY 1, 2 HAVING sum(c.n) > 0 ORDER BY 1, 2`)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var c SeverityTriageCount
		if err := rows.Scan(&c.Severity, &c.Status, &c.Count); err != nil {
			return out, err
		}
		out.Counts = append(out.Counts, c)
	}
	return out, rows.Err()
}

// DayActivity is what happened on one UTC day.
type DayActivity struct {
	// Day is the UTC date, YYYY-MM-DD.
	Day          string
	ScansStarted int
	// RiskScore is the risk score of the scan that completed last on Day;
	// nil when no scan completed that day.
	RiskScore *int
	// FindingsBySeverity sums the findings of every scan completed on Day.
	FindingsBySeverity map[string]int
}

// DailyActivity returns one entry per UTC day in [from, to) that saw a scan
// start or complete, oldest first. Days without activity are absent: the
// caller decides how to fill the gaps. It reads the per-day aggregate the
// scans triggers maintain plus one index probe per day for the risk score.
func (s *Store) DailyActivity(ctx context.Context, from, to time.Time) ([]DayActivity, error) {
	// The aggregate is per UTC day: the window is the days from from's
	// date up to the last day that starts before to.
	lo := from.UTC().Format(time.DateOnly)
	end := to.UTC()
	hiDay := time.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, 0, time.UTC)
	if hiDay.Before(end) {
		hiDay = hiDay.AddDate(0, 0, 1)
	}
	// Stored timestamps are fixed-width UTC text ("2026-03-12T09:40:..."),
	// so one day's completions are the text range [day+"T", day+"U").
	rows, err := s.db.QueryContext(ctx, `SELECT day, started, completed, critical, high, medium, low, info,
			CASE WHEN completed > 0 THEN (SELECT risk_score FROM scans
				WHERE status = 'completed' AND completed_at >= day || 'T' AND completed_at < day || 'U' AND hidden = 0
				ORDER BY completed_at DESC, seq DESC LIMIT 1) END
		FROM daily_activity WHERE day >= ? AND day < ? AND (started > 0 OR completed > 0)
		ORDER BY day`, lo, hiDay.Format(time.DateOnly))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []DayActivity{}
	for rows.Next() {
		var a DayActivity
		var completed int
		var sev [5]int
		var risk sql.NullInt64
		if err := rows.Scan(&a.Day, &a.ScansStarted, &completed, &sev[0], &sev[1], &sev[2], &sev[3], &sev[4], &risk); err != nil {
			return nil, err
		}
		a.FindingsBySeverity = map[string]int{}
		for i, name := range [...]string{"critical", "high", "medium", "low", "info"} {
			if sev[i] != 0 {
				a.FindingsBySeverity[name] = sev[i]
			}
		}
		if risk.Valid {
			r := int(risk.Int64)
			a.RiskScore = &r
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
