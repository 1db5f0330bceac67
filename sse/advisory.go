package sse

// AdvisoryNewMatches is published once per re-evaluation (issue 27) that
// matched advisories the targets' previous latest scans did not have:
// after an advisory-data import or an on-demand run. Nothing is published
// when nothing new matched. Like scan.new_findings it belongs to no
// scan's stream; webhooks and notifications receive it.
const AdvisoryNewMatches = "advisory.new_matches"

// MaxAdvisoryMatchesListed caps the matches one event lists; count has
// them all and truncated says some were left out.
const MaxAdvisoryMatchesListed = 500

// AdvisoryNewMatchesData is the payload of advisory.new_matches.
type AdvisoryNewMatchesData struct {
	ReevaluationID string           `json:"reevaluation_id"`
	Trigger        string           `json:"trigger"`
	TargetsCount   int              `json:"targets_count"`
	Count          int              `json:"count"`
	BySeverity     SeverityCounts   `json:"by_severity"`
	Truncated      bool             `json:"truncated"`
	Targets        []AdvisoryTarget `json:"targets"`
}

// AdvisoryTarget is one target with new matches and the scan that found
// them (source reevaluation).
type AdvisoryTarget struct {
	TargetID   int64           `json:"target_id"`
	TargetName string          `json:"target_name"`
	ScanID     string          `json:"scan_id"`
	Matches    []AdvisoryMatch `json:"matches"`
}

// AdvisoryMatch is one advisory newly matched on a package of a target.
type AdvisoryMatch struct {
	AdvisoryID  string   `json:"advisory_id"`
	Aliases     []string `json:"aliases"`
	Severity    string   `json:"severity"`
	Package     string   `json:"package"`
	Version     string   `json:"version"`
	Ecosystem   string   `json:"ecosystem"`
	FilePath    string   `json:"file_path"`
	Fingerprint string   `json:"fingerprint"`
	Title       string   `json:"title"`
}
