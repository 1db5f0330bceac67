// Package report writes a scan's findings in the formats scand hands out:
// SARIF 2.1.0 and the HTML report (the API's report route) and the JSON,
// markdown and text of the command line. There is one writer per format,
// used by the daemon and by `scand scan`, so both give the same document
// for the same findings.
//
// Writers are pure: they read findings from an iterator and write to an
// io.Writer, nothing else. They never hold a scan's findings: each row is
// written as it comes, so a million-finding SARIF costs a buffer.
package report

import (
	"encoding/json"
	"fmt"
	"time"

	"scand/finding"
	"scand/finding/excerpt"
)

// Scan is what the writers say about the scan itself.
type Scan struct {
	ID         string
	TargetPath string
	ScanTypes  []string
	// TargetURL and TargetHost are the dast and network targets ("" when
	// none); findings without a file point at them.
	TargetURL   string
	TargetHost  string
	StartedAt   time.Time
	CompletedAt *time.Time
	RiskScore   int
	ScannersRun []string
	Skipped     []Skipped
	// DataSources is the offline advisory data the scanners read.
	DataSources []ScanDataSource
	// CoverageWarnings say what else the findings may miss, such as
	// components whose versions are unknown.
	CoverageWarnings []string
	// Version is scand's release, printed in the report's footer.
	Version string
	// Coverage is what the scan examined; nil for a scan stored before
	// coverage was recorded.
	Coverage *finding.ScanCoverage
	// Notices are a run's warnings beyond the coverage's (the command
	// line's --allow-partial, an unreachable optional daemon): SARIF
	// carries them as tool execution notifications.
	Notices []string
	// SARIFFixed writes a diff's fixed findings into SARIF as kind
	// "pass", level "none"; without it they are left out.
	SARIFFixed bool
}

// Skipped is a scanner that did not run, and why.
type Skipped struct {
	Name        string `json:"name"`
	Reason      string `json:"reason"`
	InstallHint string `json:"install_hint"`
}

// ScanDataSource is one offline advisory database a scan read, with its
// build date and age at scan time; the store keeps it as it is.
type ScanDataSource struct {
	Name    string     `json:"name"`
	Tool    string     `json:"tool"`
	Path    string     `json:"path"`
	Source  string     `json:"source"`
	BuiltAt *time.Time `json:"built_at"`
	AgeDays *float64   `json:"age_days"`
	Stale   bool       `json:"stale"`
	Warning string     `json:"warning,omitempty"`
}

// Triage is a reviewer's verdict on a finding.
type Triage struct {
	Status    string
	Note      string
	UpdatedBy string
	UpdatedAt time.Time
}

// Stored is a finding as a store hands it out. Implementations may return
// views into a buffer the next row reuses.
type Stored interface {
	// Raw returns the tokens of the finding's JSON without decoding them;
	// ok is false when the writer must decode (Finding) instead.
	Raw(tags [][]byte) (f finding.RawFinding, ok bool)
	// Finding decodes the finding with at least the metadata MetadataKeys.
	Finding() (finding.Finding, error)
	// AppendJSON appends the finding as the API shows it: the Finding
	// object with its "state" (the triage verdict or null).
	AppendJSON(b []byte) ([]byte, error)
}

// Row is one finding handed to a writer, valid until the next one.
type Row struct {
	Stored
	// Triage is the verdict on the finding's fingerprint; nil when none.
	Triage *Triage
	// Diff is the finding's place in a comparison of two trees (DiffNew,
	// DiffUnchanged, DiffFixed); "" outside a diff.
	Diff string
	// Baselined marks a finding listed in the baseline file given.
	Baselined bool
	// FromBase marks a diff's row read from the base scan (a fixed or
	// not-compared finding the head does not have).
	FromBase bool
	// Excerpt is the code kept around the finding at scan time; nil when
	// none was kept.
	Excerpt *excerpt.Excerpt
	// Seen is the finding's first and last sighting on its scan's target;
	// nil when the writer's caller keeps no history (the command line).
	Seen *Seen
}

// Seen is when completed scans of a target first and last reported a
// fingerprint.
type Seen struct{ First, Last time.Time }

// seenLayout is how SARIF writes a sighting: RFC 3339 in UTC, to the
// second, as the API does.
const seenLayout = time.RFC3339

func (s *Seen) sarif() (first, last string) {
	if s == nil {
		return "", ""
	}
	return s.First.UTC().Format(seenLayout), s.Last.UTC().Format(seenLayout)
}

// reportText is the report's line for a sighting.
func (s *Seen) reportText() string {
	if s == nil {
		return ""
	}
	return "first " + s.First.UTC().Format(reportTimeLayout) + ", last " + s.Last.UTC().Format(reportTimeLayout)
}

// Diff statuses of a finding when two revisions are compared (and
// DiffNotCompared, scancoverage.go).
const (
	DiffNew       = "new"
	DiffUnchanged = "unchanged"
	DiffFixed     = "fixed"
)

// MetadataKeys are the metadata a writer reads from a decoded finding.
var MetadataKeys = []string{finding.MetaSuppressedBy, "url", finding.MetaFixedVersion}

// HiddenVerdict reports whether a triage status takes a finding out of
// the live set: false_positive, accepted_risk, wont_fix, the dashboard's
// default-hidden set (SPEC.md). Reports still list those findings, marked,
// and count them apart; a gate does not count them.
func HiddenVerdict(status string) bool {
	switch status {
	case "false_positive", "accepted_risk", "wont_fix":
		return true
	}
	return false
}

// SuppressedBy renders metadata.suppressed_by: empty when absent or null,
// the string itself, or compact JSON for a structured value.
func SuppressedBy(meta map[string]any) string {
	v, ok := meta[finding.MetaSuppressedBy]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Warnings are all of a scan's warnings: its advisory data's, then its
// coverage warnings.
func Warnings(sc Scan) []string {
	return append(DataWarnings(sc.DataSources), sc.CoverageWarnings...)
}

// DataWarnings are a scan's warnings about its advisory data.
func DataWarnings(data []ScanDataSource) []string {
	out := []string{}
	for _, d := range data {
		if d.Warning != "" {
			out = append(out, d.Warning)
		}
	}
	return out
}

// dataProperties is a SARIF run's property bag for the advisory data its
// tool read; nil when it read none.
func dataProperties(data []ScanDataSource) map[string]any {
	if len(data) == 0 {
		return nil
	}
	return map[string]any{"scand/vulndb": data}
}

// Decoded is a finding held in memory as a Stored: for findings that do
// not come from a store, and for tests.
type Decoded struct {
	F     finding.Finding
	State *Triage
}

// Raw always declines: a decoded finding has no stored tokens.
func (d *Decoded) Raw([][]byte) (finding.RawFinding, bool) { return finding.RawFinding{}, false }

// Finding returns the finding.
func (d *Decoded) Finding() (finding.Finding, error) { return d.F, nil }

// AppendJSON appends the finding with its state as the API shows it.
func (d *Decoded) AppendJSON(b []byte) ([]byte, error) {
	type state struct {
		Fingerprint string    `json:"fingerprint"`
		Status      string    `json:"status"`
		Note        string    `json:"note"`
		UpdatedAt   time.Time `json:"updated_at"`
		UpdatedBy   string    `json:"updated_by"`
	}
	v := struct {
		finding.Finding
		State *state `json:"state"`
	}{Finding: d.F}
	if d.F.ComplianceTags == nil {
		v.ComplianceTags = []string{}
	}
	if d.State != nil {
		v.State = &state{Fingerprint: d.F.Fingerprint, Status: d.State.Status, Note: d.State.Note, UpdatedAt: d.State.UpdatedAt, UpdatedBy: d.State.UpdatedBy}
	}
	out, err := json.Marshal(v)
	return append(b, out...), err
}
