package sse

// ScanStaleData is published after a scan whose dependency scanners read
// offline advisory data older than SVC_VULNDB_MAX_AGE_DAYS (issue 16;
// additive to SPEC.md's events). Like scan.new_findings it is not part of
// any scan's stream: the notification sink turns it into a notification.
const ScanStaleData = "scan.stale_data"

// ScanStaleDataData is the payload of scan.stale_data.
type ScanStaleDataData struct {
	ScanID     string   `json:"scan_id"`
	TargetPath string   `json:"target_path"`
	Databases  []string `json:"databases"`
	Warnings   []string `json:"warnings"`
}
