package store

import (
	"context"
	"database/sql"
	"errors"

	"scand/finding"
	"scand/store/sqlbase"
)

// scanTypesKey is an SQL expression giving a scan's types as a sorted,
// comma-separated set, so ["dependency","code"] and ["code","dependency"]
// name the same kind of scan.
func scanTypesKey(alias string) string {
	return `(SELECT group_concat(value, ',' ORDER BY value) FROM (SELECT DISTINCT value FROM json_each(` + alias + `.scan_types)))`
}

// liveFinding is an SQL condition on findings row alias: not suppressed
// in the source (metadata.suppressed_by absent, null or "", as
// finding.IsSuppressed) and not hidden by a triage verdict (the
// dashboard's default-hidden set).
func liveFinding(alias string) string {
	return alias + `.suppressed = 0
		AND NOT EXISTS (SELECT 1 FROM triage_states t WHERE t.fingerprint = ` + alias + `.fingerprint
			AND t.status IN ('false_positive','accepted_risk','wont_fix'))`
}

// scannerRan is an SQL condition: the scanner of findings row alias is in
// the scanners_run of the scan whose id is bound to param.
func scannerRan(alias, param string) string {
	return alias + `.scanner IN (SELECT value FROM json_each((SELECT scanners_run FROM scans WHERE id = ` + param + `)))`
}

// ScanChanges is how a completed scan differs from the previous completed
// scan of the same target and scan types, counted by fingerprint.
type ScanChanges struct {
	ScanID         string
	PreviousScanID string
	TargetPath     string
	ScheduleID     string
	// New counts live findings whose fingerprint the previous scan did not
	// have, by severity. Only findings of scanners that also ran in the
	// previous scan count: a tool that was missing or crashed there (or is
	// newly installed) would otherwise report everything it finds as new.
	New map[string]int
	// Fixed counts live findings of the previous scan whose fingerprint
	// this scan no longer has, again only for scanners that ran in both.
	Fixed int
	// NotCompared are the scanners left out of both counts because they
	// failed, ran partly or could not run in either scan, each as
	// "scanner: reason" (finding.NotComparedReason): no alert is built
	// from a side that did not look.
	NotCompared []string
}

// onlyIn selects the live findings f of one scan (its id bound first)
// whose fingerprint another scan (bound second) does not have, of the
// scanners that ran in a scan (bound third) but not of a JSON list
// (fourth). It walks the first scan's fingerprints in order and probes
// the other's in the same order, so both indexes are read front to back;
// only a finding the other scan lacks is read from findings. Walked in
// key order instead, each probe landed at a random place of the other
// scan's fingerprints: seconds of a reader after every 1M-finding scan.
var onlyIn = ` FROM finding_fps p CROSS JOIN findings f ON f.k = (p.scan_seq << 32) | p.ord
	WHERE p.scan_seq = (SELECT seq FROM scans WHERE id = ?)
		AND NOT EXISTS (SELECT 1 FROM finding_fps o WHERE o.scan_seq = (SELECT seq FROM scans WHERE id = ?) AND o.fingerprint = p.fingerprint)
		AND ` + liveFinding("f") + ` AND ` + scannerRan("f", "?") + ` AND f.scanner NOT IN (SELECT value FROM json_each(?))`

// ChangesSincePrevious compares a completed scan with the previous
// completed scan (by completion time) of the same target (path, url and
// host) and the same set of scan types. ok is false when the scan is not
// completed or has no such predecessor: the first scan of a target is the
// baseline. The comparison runs in SQL; no scan's findings are loaded.
func (s *Store) ChangesSincePrevious(ctx context.Context, scanID string) (ch ScanChanges, ok bool, err error) {
	var prev, schedule sql.NullString
	err = s.db.QueryRowContext(ctx, `SELECT c.target_path, c.schedule_id, (SELECT p.id FROM scans p
			WHERE p.status = 'completed' AND p.hidden = 0 AND p.id != c.id AND p.target_path = c.target_path
				AND p.target_url IS c.target_url AND p.target_host IS c.target_host
				AND (p.completed_at < c.completed_at OR (p.completed_at = c.completed_at AND p.seq < c.seq))
				AND `+scanTypesKey("p")+` = `+scanTypesKey("c")+`
			ORDER BY p.completed_at DESC, p.seq DESC LIMIT 1)
		FROM scans c WHERE c.id = ? AND c.status = 'completed'`, scanID).Scan(&ch.TargetPath, &schedule, &prev)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !prev.Valid) {
		return ch, false, nil
	}
	if err != nil {
		return ch, false, err
	}
	ch.ScanID, ch.PreviousScanID, ch.ScheduleID = scanID, prev.String, schedule.String
	ch.New = map[string]int{}
	excluded, err := s.notComparedScanners(ctx, &ch)
	if err != nil {
		return ch, false, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.severity, count(DISTINCT f.fingerprint)`+onlyIn+`
		GROUP BY f.severity`, scanID, ch.PreviousScanID, ch.PreviousScanID, excluded)
	if err != nil {
		return ch, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var sev string
		var n int
		if err := rows.Scan(&sev, &n); err != nil {
			return ch, false, err
		}
		ch.New[sev] = n
	}
	if err := rows.Err(); err != nil {
		return ch, false, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT count(DISTINCT f.fingerprint)`+onlyIn,
		ch.PreviousScanID, scanID, scanID, excluded).Scan(&ch.Fixed)
	if err != nil {
		return ch, false, err
	}
	return ch, true, nil
}

// notComparedScanners fills ch.NotCompared from the two scans' coverage
// and returns the scanner names as a JSON array for the queries.
func (s *Store) notComparedScanners(ctx context.Context, ch *ScanChanges) (string, error) {
	cur, err := s.ScanByID(ctx, ch.ScanID)
	if err != nil {
		return "", err
	}
	prev, err := s.ScanByID(ctx, ch.PreviousScanID)
	if err != nil {
		return "", err
	}
	names, reasons := finding.NotComparedScanners(prev.Coverage, cur.Coverage)
	ch.NotCompared = reasons
	return sqlbase.MustJSON(append([]string{}, names...)), nil
}
