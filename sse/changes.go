package sse

// ScanNewFindings is published after a scan completes with live findings
// that the previous completed scan of the same target and scan types did
// not have (issue 17; additive to SPEC.md's events). It is not part of any
// scan's stream: only the webhook and notification sinks receive it.
const ScanNewFindings = "scan.new_findings"

// ScanNewFindingsData is the payload of scan.new_findings. The first five
// fields are the issue's; schedule_id and alert_min_severity are additive.
type ScanNewFindingsData struct {
	ScanID         string         `json:"scan_id"`
	PreviousScanID string         `json:"previous_scan_id"`
	TargetPath     string         `json:"target_path"`
	New            SeverityCounts `json:"new"`
	FixedCount     int            `json:"fixed_count"`
	// ScheduleID is the schedule that started the scan, or null.
	ScheduleID *string `json:"schedule_id"`
	// AlertMinSeverity is the threshold at or above which a new finding
	// also makes a notification: the schedule's, else the daemon's.
	AlertMinSeverity string `json:"alert_min_severity"`
	// NotCompared are the scanners whose findings were left out of new
	// and fixed because they failed, ran partly or could not run in either
	// scan ("scanner: reason"; issue 23, additive).
	NotCompared []string `json:"not_compared"`
}

// FindingAcceptanceExpired is published once when an accepted_risk or
// wont_fix verdict reaches its expires_at and the fingerprint returns to
// new (issue 26). Like scan.new_findings it belongs to no scan's stream.
const FindingAcceptanceExpired = "finding.acceptance_expired"

// AcceptanceExpiredData is the payload of finding.acceptance_expired. The
// verdict's note is left out: it is free text a reviewer wrote for people
// who can read the finding, not for every webhook receiver.
type AcceptanceExpiredData struct {
	Fingerprint    string `json:"fingerprint"`
	PreviousStatus string `json:"previous_status"`
	ExpiresAt      string `json:"expires_at"`
	Status         string `json:"status"`
}
