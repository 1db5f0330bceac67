package finding

import (
	"fmt"
	"slices"
	"strings"
)

// A scan says what it examined: per requested scan type and per scanner,
// whether the scanner ran, and when it did not or not fully, why. The
// command line and the daemon build this one record (scan's orchestrator),
// store it with the scan, and every report, diff and compare reads it: a
// scanner that failed to look is never taken for one that found nothing.

// Coverage statuses of a scanner.
const (
	// CoverageRan: the scanner ran on the whole target.
	CoverageRan = "ran"
	// CoveragePartial: it ran but left parts out (files it could not read
	// or parse, history a shallow clone truncated, an ecosystem whose
	// advisory data is missing); its findings stand for the rest.
	CoveragePartial = "partial"
	// CoverageFailed: it ran and failed; none of its findings are kept.
	CoverageFailed = "failed"
	// CoverageNotInstalled: the tool, or the offline data it reads, is
	// not on this machine.
	CoverageNotInstalled = "not_installed"
	// CoverageNotNeeded: the tree holds nothing of its kind.
	CoverageNotNeeded = "not_needed"
	// CoverageDisabled: the repository's .scand.toml turns it off.
	CoverageDisabled = "disabled"
)

// CoverageMaxPaths is how many of the paths a partial scanner skipped are
// kept; SkippedCount counts them all.
const CoverageMaxPaths = 5

// ScannerCoverage is what one scanner examined in a scan.
type ScannerCoverage struct {
	Scanner  string `json:"scanner"`
	ScanType string `json:"scan_type"`
	Status   string `json:"status" doc:"ran, partial, failed, not_installed, not_needed or disabled"`
	// Version is what the tool reported of itself when this scan ran it,
	// so a report of an old scan names the version that produced it.
	Version string `json:"version,omitempty" doc:"the tool's version when the scan ran it (absent when the scanner did not run, or for scans recorded before versions were)"`
	// Reason says why a scanner did not run or not fully; "" when it ran.
	Reason string `json:"reason,omitempty"`
	// Hint is what to install or configure.
	Hint string `json:"hint,omitempty"`
	// SkippedCount counts the files (or parts) a partial scanner left
	// out; SkippedPaths are the first CoverageMaxPaths of them.
	SkippedCount int      `json:"skipped_count,omitempty"`
	SkippedPaths []string `json:"skipped_paths,omitempty"`
	// Supplementary marks a scanner that cannot by itself find what its
	// type is about (licenses in a dependency scan finds no vulnerable
	// dependency): its running alone does not make the type covered.
	Supplementary bool `json:"supplementary,omitempty"`
}

// Looked reports whether the scanner examined the target, fully or not.
func (s ScannerCoverage) Looked() bool { return s.Status == CoverageRan || s.Status == CoveragePartial }

// Incomplete reports whether the scanner was meant to look and did not,
// or not fully: its findings cannot be compared with another scan's.
func (s ScannerCoverage) Incomplete() bool {
	return s.Status == CoveragePartial || s.Status == CoverageFailed || s.Status == CoverageNotInstalled
}

// Describe is the scanner's state in one line: "gosec failed: ...",
// "eslint partial: 3 unparsable files (a.js, b.js, ...)".
func (s ScannerCoverage) Describe() string {
	status := strings.ReplaceAll(s.Status, "_", " ")
	out := s.Scanner + " " + status
	if s.Reason != "" && s.Reason != status {
		out += ": " + s.Reason
	}
	if len(s.SkippedPaths) > 0 {
		out += " (" + strings.Join(s.SkippedPaths, ", ")
		if s.SkippedCount > len(s.SkippedPaths) {
			out += fmt.Sprintf(", and %d more", s.SkippedCount-len(s.SkippedPaths))
		}
		out += ")"
	}
	return out
}

// Type coverage statuses: ran, partial (some scanner able to find what the
// type is about ran, another failed or ran partly), failed (none able ran
// though one was meant to), not_needed (nothing of the kind in the tree).
const (
	TypeRan       = "ran"
	TypePartial   = "partial"
	TypeFailed    = "failed"
	TypeNotNeeded = "not_needed"
)

// TypeCoverage is what one requested scan type examined.
type TypeCoverage struct {
	ScanType string `json:"scan_type"`
	Status   string `json:"status" doc:"ran, partial, failed or not_needed"`
	Reason   string `json:"reason,omitempty"`
	// Explicit: the type was asked for (a flag, .scand.toml, the API's
	// scan_types), not a built-in default. An explicit type that ran
	// nothing fails closed; a default one is left out with a note.
	Explicit bool `json:"explicit"`
}

// ScanCoverage is what a scan examined, and whether its result is
// partial.
type ScanCoverage struct {
	Types    []TypeCoverage    `json:"scan_types"`
	Scanners []ScannerCoverage `json:"scanners"`
	// Partial is true when Reasons says why the result is incomplete: a
	// scanner failed or ran partly, an explicit type ran nothing.
	Partial bool     `json:"partial"`
	Reasons []string `json:"partial_reasons"`
	// Notes are what was left out without making the result partial (a
	// default scan type nothing can run for on this machine).
	Notes []string `json:"notes"`
}

// Scanner returns a scanner's coverage; ok is false when the scan did not
// name it.
func (c *ScanCoverage) Scanner(name string) (ScannerCoverage, bool) {
	if c == nil {
		return ScannerCoverage{}, false
	}
	for _, s := range c.Scanners {
		if s.Scanner == name {
			return s, true
		}
	}
	return ScannerCoverage{}, false
}

// FailedTypes are the types that ran nothing able to find what they are
// about though a scanner was meant to: the explicit ones, and default ones
// whose scanners crashed (not merely missing here).
func (c *ScanCoverage) FailedTypes() []TypeCoverage {
	if c == nil {
		return nil
	}
	var out []TypeCoverage
	for _, t := range c.Types {
		if t.Status == TypeFailed && (t.Explicit || c.typeCrashed(t.ScanType)) {
			out = append(out, t)
		}
	}
	return out
}

func (c *ScanCoverage) typeCrashed(scanType string) bool {
	for _, s := range c.Scanners {
		if s.ScanType == scanType && !s.Supplementary && s.Status == CoverageFailed {
			return true
		}
	}
	return false
}

// Settle computes each type's status from its scanners and the scan's
// partial reasons and notes. types are the scan's types in request order;
// explicit says whether they were asked for.
func (c *ScanCoverage) Settle(types []string, explicit bool) {
	c.Types, c.Reasons, c.Notes = []TypeCoverage{}, []string{}, []string{}
	for _, t := range types {
		tc := TypeCoverage{ScanType: t, Explicit: explicit}
		var looked, broken, missing []string
		for _, s := range c.Scanners {
			if s.ScanType != t {
				continue
			}
			switch {
			case s.Supplementary:
			case s.Looked():
				looked = append(looked, s.Scanner)
				if s.Status == CoveragePartial {
					broken = append(broken, s.Scanner)
				}
			case s.Status == CoverageFailed:
				broken = append(broken, s.Scanner)
			case s.Status == CoverageNotInstalled:
				missing = append(missing, s.Scanner)
			}
		}
		switch {
		case len(looked) > 0 && len(broken) > 0:
			tc.Status, tc.Reason = TypePartial, "failed or partial: "+strings.Join(broken, ", ")
		case len(looked) > 0:
			tc.Status = TypeRan
		case len(broken)+len(missing) > 0:
			tc.Status = TypeFailed
			tc.Reason = "no scanner able to find " + typeSubject(t) + " ran (" + strings.Join(append(broken, missing...), ", ") + ")"
		default:
			tc.Status = TypeNotNeeded
		}
		c.Types = append(c.Types, tc)
	}
	for _, s := range c.Scanners {
		if s.Status == CoverageFailed || s.Status == CoveragePartial {
			c.Reasons = append(c.Reasons, s.Describe())
		}
	}
	for _, t := range c.FailedTypes() {
		c.Reasons = append(c.Reasons, "scan type "+t.ScanType+": "+t.Reason)
	}
	for _, t := range c.Types {
		if t.Status == TypeFailed && !t.Explicit && !c.typeCrashed(t.ScanType) {
			c.Notes = append(c.Notes, "default scan type "+t.ScanType+" left out: "+t.Reason+"; ask for it with --type to make this an error")
		}
	}
	c.Partial = len(c.Reasons) > 0
}

// typeSubject is what a scan type is about, for a reason's wording.
func typeSubject(scanType string) string {
	switch scanType {
	case "code":
		return "code flaws or secrets"
	case "dependency":
		return "vulnerable dependencies"
	case "iac":
		return "infrastructure misconfigurations"
	case "baseline":
		return "host misconfigurations"
	case "dast":
		return "web application flaws"
	case "network":
		return "exposed services"
	}
	return scanType + " findings"
}

// NotComparedReason says why a scanner's findings cannot be compared
// between two scans (base and head of a diff, scan_a and scan_b of a
// compare): it failed, ran partly or could not run on either side. ""
// when both sides looked fully; a side stored before coverage was
// recorded (nil) says nothing either way.
func NotComparedReason(base, head *ScanCoverage, scanner string) string {
	var why []string
	for _, side := range []struct {
		name string
		c    *ScanCoverage
	}{{"base", base}, {"head", head}} {
		if s, ok := side.c.Scanner(scanner); ok && s.Incomplete() {
			why = append(why, side.name+": "+s.Describe())
		}
	}
	return strings.Join(why, "; ")
}

// NotComparedScanners lists, in coverage order (head's first), every
// scanner NotComparedReason excludes from a comparison, and for each
// "scanner: reason".
func NotComparedScanners(base, head *ScanCoverage) (names, reasons []string) {
	for _, c := range []*ScanCoverage{head, base} {
		if c == nil {
			continue
		}
		for _, s := range c.Scanners {
			if slices.Contains(names, s.Scanner) {
				continue
			}
			if why := NotComparedReason(base, head, s.Scanner); why != "" {
				names = append(names, s.Scanner)
				reasons = append(reasons, s.Scanner+": "+why)
			}
		}
	}
	return names, reasons
}

// PartialReasons are why the result is partial; nil for a nil coverage.
func (c *ScanCoverage) PartialReasons() []string {
	if c == nil {
		return nil
	}
	return c.Reasons
}
