package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"scand/finding"
)

// What every format says about a scan's coverage (finding.ScanCoverage):
// the scan types and the scanners that did not look fully, the partial
// reasons on the verdict line, and in a diff the findings that could not
// be compared.

// DiffNotCompared is the place in a diff of a finding whose scanner failed,
// ran partly or could not run on either side: it is neither new nor fixed,
// never gates, and is counted apart.
const DiffNotCompared = "not_compared"

// NotCompared is one scanner whose findings a diff could not compare.
type NotCompared struct {
	Scanner string `json:"scanner"`
	Reason  string `json:"reason"`
	// Findings counts its findings on either side (one per fingerprint).
	Findings int `json:"findings"`
}

// coverageHead is the JSON report's account of what was examined, before
// its summary.
type coverageHead struct {
	Verdict        string                `json:"verdict"`
	Partial        bool                  `json:"partial"`
	PartialReasons []string              `json:"partial_reasons"`
	Coverage       *finding.ScanCoverage `json:"coverage"`
	BaseCoverage   *finding.ScanCoverage `json:"base_coverage,omitempty"`
	NotCompared    []NotCompared         `json:"not_compared,omitempty"`
}

// verdictOf is a run's verdict word and the partial reasons it carries:
// "failed" when findings gate, "incomplete" when a coverage problem fails
// the run (exit 3), else "passed"; partial lists why a result that is not
// failed is incomplete.
func verdictOf(run *Run) (verdict string, partial []string) {
	switch {
	case run.Summary.Gating > 0:
		verdict = "failed"
	case len(run.Problems) > 0:
		verdict = "incomplete"
	default:
		verdict = "passed"
	}
	return verdict, run.PartialReasons()
}

// PartialReasons are why the run's result is incomplete: the head's (or
// the scan's) coverage reasons, then the base's of a diff.
func (r *Run) PartialReasons() []string {
	var out []string
	if r.Coverage != nil {
		out = append(out, r.Coverage.Reasons...)
	}
	if r.BaseCoverage != nil {
		for _, reason := range r.BaseCoverage.Reasons {
			out = append(out, "base: "+reason)
		}
	}
	// What --allow-partial let pass (a scanner asked for by name that
	// did not run) is as partial as what the coverage says.
	for _, n := range r.Notices {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// coverageLines are the text report's lines on what was not examined
// fully: one per scan type that did not simply run, one per scanner that
// failed, ran partly or could not run, the notes, and the scanners a diff
// could not compare.
func coverageLines(run *Run) []string {
	var out []string
	sides := []struct {
		prefix string
		c      *finding.ScanCoverage
	}{{"", run.Coverage}}
	if run.BaseCoverage != nil {
		sides = append(sides, struct {
			prefix string
			c      *finding.ScanCoverage
		}{"base: ", run.BaseCoverage})
	}
	for _, side := range sides {
		if side.c == nil {
			continue
		}
		var types []string
		for _, t := range side.c.Types {
			s := t.ScanType + " " + strings.ReplaceAll(t.Status, "_", " ")
			if t.Reason != "" {
				s += " (" + t.Reason + ")"
			}
			types = append(types, s)
		}
		if len(types) > 0 {
			out = append(out, side.prefix+"coverage: "+strings.Join(types, "; "))
		}
		// Failed and missing scanners have their "skipped" line; a partial
		// one's line names what it left out.
		for _, s := range side.c.Scanners {
			if s.Status == finding.CoveragePartial {
				out = append(out, side.prefix+"coverage: "+s.Describe())
			}
		}
		for _, n := range side.c.Notes {
			out = append(out, side.prefix+"note: "+n)
		}
	}
	for _, nc := range run.NotCompared {
		out = append(out, fmt.Sprintf("not compared: %s, %s: %s", nc.Scanner, plural(nc.Findings, "finding"), nc.Reason))
	}
	return out
}

// CountNotCompared fills the Findings of each entry from a diff's rows
// marked not_compared, by scanner; entries are sorted by scanner.
func CountNotCompared(entries []NotCompared, counts map[string]int) []NotCompared {
	for i := range entries {
		entries[i].Findings = counts[entries[i].Scanner]
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Scanner < entries[j].Scanner })
	return entries
}

// SARIFCoverageTool is the driver name of the run that carries what no
// scanner's own run can say: scanners that failed or could not run, scan
// types that ran nothing, the command line's warnings. It has no results.
const SARIFCoverageTool = "scand"

// sarifWritten reports whether a row becomes a SARIF result: a diff's
// fixed finding only with SARIFFixed (as kind "pass"), a not-compared one
// only when the head has it (a base-only row points at code the upload's
// revision may not have).
func sarifWritten(sc *Scan, r *Row) bool {
	switch r.Diff {
	case DiffFixed:
		return sc.SARIFFixed
	case DiffNotCompared:
		return !r.FromBase
	}
	return true
}

// sarifToolInvocation is a scanner run's invocation: successful when the
// scanner ran fully, with a notification per part it left out.
func sarifToolInvocation(c *finding.ScanCoverage, name string) sarifInvocation {
	s, ok := c.Scanner(name)
	if !ok || s.Status == finding.CoverageRan {
		return sarifInvocation{ExecutionSuccessful: true}
	}
	return sarifInvocation{ExecutionSuccessful: false, ToolExecutionNotifications: []sarifNotification{{Level: "warning", Message: sarifText{Text: s.Describe()}}}}
}

// sarifCoverageRun is the "scand" run with the coverage no scanner run
// carries; ok is false when there is nothing to say.
func sarifCoverageRun(sc *Scan, tools []Tool) (sarifRun, bool) {
	var notes []sarifNotification
	ran := map[string]bool{}
	for _, t := range tools {
		ran[t.Name] = true
	}
	failed := false
	if c := sc.Coverage; c != nil {
		for _, s := range c.Scanners {
			switch {
			case ran[s.Scanner]:
			case s.Status == finding.CoverageFailed:
				failed = true
				notes = append(notes, sarifNotification{Level: "error", Message: sarifText{Text: s.Describe()}})
			case s.Status == finding.CoverageNotInstalled:
				notes = append(notes, sarifNotification{Level: "warning", Message: sarifText{Text: s.Describe()}})
			}
		}
		for _, t := range c.FailedTypes() {
			failed = true
			notes = append(notes, sarifNotification{Level: "error", Message: sarifText{Text: "scan type " + t.ScanType + ": " + t.Reason}})
		}
		for _, n := range c.Notes {
			notes = append(notes, sarifNotification{Level: "note", Message: sarifText{Text: n}})
		}
	}
	for _, n := range sc.Notices {
		if !slices.ContainsFunc(notes, func(s sarifNotification) bool { return s.Message.Text == n }) {
			notes = append(notes, sarifNotification{Level: "warning", Message: sarifText{Text: n + " (allowed by --allow-partial)"}})
		}
	}
	if len(notes) == 0 {
		return sarifRun{}, false
	}
	return sarifRun{
		Tool:              sarifTool{Driver: sarifToolComponent{Name: SARIFCoverageTool, Version: sc.Version, InformationURI: ""}},
		AutomationDetails: sarifAutomationDetails{ID: "scand/" + SARIFCoverageTool + "/" + sc.ID},
		Invocations:       []sarifInvocation{{ExecutionSuccessful: !failed, ToolExecutionNotifications: notes}},
		OriginalURIBaseIDs: map[string]sarifArtifactLocation{
			sarifSrcRoot: {Description: &sarifText{Text: "The scan's target_path; every file location is relative to it."}},
		},
		Results: []sarifResult{},
	}, true
}
