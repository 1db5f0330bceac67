package store

import (
	"context"
	"sort"
	"time"
)

// ScanCountsByStatus returns how many scans are in each status. Every
// status is present, with 0 when no scan has it, so a dashboard can render
// a fixed set of tiles.
func (s *Store) ScanCountsByStatus(ctx context.Context) (map[string]int, error) {
	out := map[string]int{StatusPending: 0, StatusRunning: 0, StatusCompleted: 0, StatusFailed: 0, StatusCancelled: 0}
	rows, err := s.db.QueryContext(ctx, "SELECT status, count(*) FROM scans GROUP BY status")
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

// latestCompletedScans selects the id of the latest completed scan of each
// target. A target is target_path plus target_url and target_host, so two
// DAST scans of different URLs from the same working directory do not hide
// each other. "Latest" is arrival order (seq): the scan started last saw
// the newest state of the target, even if an older scan finished after it.
const latestCompletedScans = `SELECT s.id FROM scans s WHERE s.status = 'completed' AND s.seq = (
	SELECT max(o.seq) FROM scans o WHERE o.status = 'completed' AND o.target_path = s.target_path
		AND COALESCE(o.target_url, '') = COALESCE(s.target_url, '') AND COALESCE(o.target_host, '') = COALESCE(s.target_host, ''))`

// CurrentFindingCounts counts the findings of the latest completed scan of
// each target by severity and triage status. Rows are counted, not
// distinct fingerprints, so the severity and the triage totals add up to
// the same number even when two checkouts of one tree share fingerprints.
func (s *Store) CurrentFindingCounts(ctx context.Context) (CurrentFindings, error) {
	var out CurrentFindings
	out.Counts = []SeverityTriageCount{}
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM ("+latestCompletedScans+")").Scan(&out.Targets)
	if err != nil {
		return out, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.severity, COALESCE(t.status, 'new'), count(*)
		FROM findings f LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint
		WHERE f.scan_id IN (`+latestCompletedScans+`)
		GROUP BY 1, 2 ORDER BY 1, 2`)
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
// caller decides how to fill the gaps.
func (s *Store) DailyActivity(ctx context.Context, from, to time.Time) ([]DayActivity, error) {
	lo, hi := formatTime(from), formatTime(to)
	days := map[string]*DayActivity{}
	day := func(d string) *DayActivity {
		if a, ok := days[d]; ok {
			return a
		}
		a := &DayActivity{Day: d, FindingsBySeverity: map[string]int{}}
		days[d] = a
		return a
	}

	// The stored timestamps are fixed-width UTC text, so the first ten
	// characters are the UTC date and a range on the text is a range in time.
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

	rows, err = s.db.QueryContext(ctx, `SELECT d, risk_score FROM (
			SELECT substr(completed_at, 1, 10) AS d, risk_score,
				row_number() OVER (PARTITION BY substr(completed_at, 1, 10) ORDER BY completed_at DESC, seq DESC) AS rn
			FROM scans WHERE status = 'completed' AND completed_at >= ? AND completed_at < ?)
		WHERE rn = 1`, lo, hi)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var d string
		var score int
		if err := rows.Scan(&d, &score); err != nil {
			rows.Close()
			return nil, err
		}
		day(d).RiskScore = &score
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	rows, err = s.db.QueryContext(ctx, `SELECT substr(s.completed_at, 1, 10), f.severity, count(*)
		FROM scans s JOIN findings f ON f.scan_id = s.id
		WHERE s.status = 'completed' AND s.completed_at >= ? AND s.completed_at < ?
		GROUP BY 1, 2`, lo, hi)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var d, sev string
		var n int
		if err := rows.Scan(&d, &sev, &n); err != nil {
			rows.Close()
			return nil, err
		}
		day(d).FindingsBySeverity[sev] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	out := make([]DayActivity, 0, len(days))
	for _, a := range days {
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day < out[j].Day })
	return out, nil
}
