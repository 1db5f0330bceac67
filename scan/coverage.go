package scan

import (
	"strings"

	"scand/finding"
)

// scannerCoverage is a scanner's entry in a scan's coverage.
func scannerCoverage(s Scanner, status, reason, hint string) finding.ScannerCoverage {
	c := finding.ScannerCoverage{Scanner: s.Name(), ScanType: s.Type(), Status: status, Reason: truncate(reason, 500), Hint: truncate(hint, 500)}
	if sup, ok := unwrapped(s).(Supplementary); ok && sup.Supplementary() {
		c.Supplementary = true
	} else if sup, ok := s.(Supplementary); ok && sup.Supplementary() {
		c.Supplementary = true
	}
	return c
}

// partialCoverage is the entry of a scanner that left parts of the target
// out: partial, or not_installed when what it left out was everything it
// could read (no advisory data for any ecosystem in the tree).
func partialCoverage(s Scanner, p *PartialSkip) finding.ScannerCoverage {
	var reasons, hints []string
	count := 0
	var paths []string
	for _, part := range p.Parts {
		r := part.Part + ": " + part.Reason
		if part.Count > 0 {
			count += part.Count
		} else {
			count++
		}
		reasons = append(reasons, r)
		if part.Hint != "" {
			hints = append(hints, part.Hint)
		}
		for _, path := range part.Paths {
			if len(paths) < finding.CoverageMaxPaths {
				paths = append(paths, path)
			}
		}
	}
	status := finding.CoveragePartial
	if p.NothingScanned {
		status = finding.CoverageNotInstalled
	}
	c := scannerCoverage(s, status, strings.Join(reasons, "; "), strings.Join(hints, "; "))
	c.SkippedCount, c.SkippedPaths = count, paths
	return c
}

// settleCoverage orders the entries as the registry runs the scanners and
// settles the types. explicit: the scan's types were asked for.
func settleCoverage(order []Scanner, entries []finding.ScannerCoverage, types []string, explicit bool) *finding.ScanCoverage {
	c := &finding.ScanCoverage{Scanners: []finding.ScannerCoverage{}}
	for _, s := range order {
		for _, e := range entries {
			if e.Scanner == s.Name() {
				c.Scanners = append(c.Scanners, e)
			}
		}
	}
	c.Settle(types, explicit)
	return c
}

// partialReasons are a coverage's reasons, never nil.
func partialReasons(c *finding.ScanCoverage) []string {
	if c == nil || c.Reasons == nil {
		return []string{}
	}
	return c.Reasons
}
