package report

import (
	"iter"
	"slices"

	"scand/finding"
)

// FailOnValues are the thresholds a gate accepts, most severe first;
// "none" gates on nothing.
var FailOnValues = []string{"critical", "high", "medium", "low", "info", "none"}

// Gate is the rule that decides which findings fail a CI run.
type Gate struct {
	// FailOn is the least severe severity that fails ("none": nothing).
	FailOn string
}

// Gates reports whether a finding fails the run: at or above FailOn, and
// none of suppressed (inline or by configuration), listed in the baseline
// file, triaged false_positive, accepted_risk or wont_fix, or (in a diff)
// anything but new.
func (g Gate) Gates(f *finding.Finding, r *Row) bool {
	if g.FailOn == "" || g.FailOn == "none" {
		return false
	}
	if f.Severity.Rank() < finding.Severity(g.FailOn).Rank() {
		return false
	}
	return Live(f, r) && (r.Diff == "" || r.Diff == DiffNew)
}

// Live reports whether a finding still needs someone's attention: not
// suppressed, not baselined, without a verdict that hides it. A fixed
// finding of a diff is not live.
func Live(f *finding.Finding, r *Row) bool {
	return !finding.IsSuppressed(*f) && !r.Baselined && (r.Triage == nil || !HiddenVerdict(r.Triage.Status)) && r.Diff != DiffFixed && r.Diff != DiffNotCompared
}

// Summary is what a run's report says before its findings.
type Summary struct {
	FailOn string
	// Findings counts the findings reported (in a diff: new and
	// unchanged); Live counts, by severity, those Live.
	Findings int
	Live     finding.SeverityCount
	// Suppressed, Baselined and Hidden count findings taken out of the
	// live set by each reason (a finding counts under its first).
	Suppressed, Baselined, Hidden int
	// New, Unchanged and Fixed count a diff's findings; NotCompared
	// those whose scanner did not look fully on either side, and
	// NotComparedBy the same by scanner.
	New, Unchanged, Fixed int
	NotCompared           int
	NotComparedBy         map[string]int
	// Gating counts the findings that fail the run.
	Gating int
}

// Summarize reads every row once and counts.
func Summarize(g Gate, rows iter.Seq2[Row, error]) (Summary, error) {
	s := Summary{FailOn: g.FailOn}
	if s.FailOn == "" {
		s.FailOn = "none"
	}
	for r, err := range rows {
		if err != nil {
			return s, err
		}
		f, err := r.Finding()
		if err != nil {
			return s, err
		}
		s.add(&f, &r, g)
	}
	return s, nil
}

func (s *Summary) add(f *finding.Finding, r *Row, g Gate) {
	switch r.Diff {
	case DiffFixed:
		s.Fixed++
		return
	case DiffNotCompared:
		s.NotCompared++
		if s.NotComparedBy == nil {
			s.NotComparedBy = map[string]int{}
		}
		s.NotComparedBy[f.Scanner]++
		return
	case DiffNew:
		s.New++
	case DiffUnchanged:
		s.Unchanged++
	}
	s.Findings++
	switch {
	case finding.IsSuppressed(*f):
		s.Suppressed++
	case r.Baselined:
		s.Baselined++
	case r.Triage != nil && HiddenVerdict(r.Triage.Status):
		s.Hidden++
	default:
		s.Live.Add(f.Severity, 1)
	}
	if g.Gates(f, r) {
		s.Gating++
	}
}

// ValidFailOn reports whether v is a threshold Gate accepts.
func ValidFailOn(v string) bool { return slices.Contains(FailOnValues, v) }
