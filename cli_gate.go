package main

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"scand/finding"
	"scand/finding/report"
	"scand/scan/repoconfig"
	"scand/store"
)

// The gate fails closed (issue 23): a scan that did not examine what was
// asked for exits 3, never 0, unless --allow-partial makes that a warning
// every report prints. See docs/gate.md for the exit-code table.

// registerGate adds the flags of the coverage gate and of SARIF uploads.
func (f *scanFlags) registerGate(fs *flag.FlagSet) {
	fs.BoolVar(&f.allowPartial, "allow-partial", false, "a scanner asked for by -scanners that did not run, or a scan type that ran nothing able to find what it is about, is a warning printed in the report instead of exit 3")
	fs.BoolVar(&f.sarifFixed, "sarif-fixed", false, "SARIF of a diff: include the fixed findings as kind \"pass\", level \"none\", baselineState \"absent\" (default: left out, so an upload cannot alert on deleted code)")
}

// typesDefault reports whether settle's scan types are the built-in
// default (no -type, no scan_types in the config): a default type nothing
// can run for on this machine is left out with a note, an asked-for one
// fails closed.
func (f *scanFlags) typesDefault(cfg *repoconfig.Config) bool {
	return len(splitList(f.types)) == 0 && len(splitList(f.scanners)) == 0 && (cfg == nil || len(cfg.ScanTypes) == 0)
}

// checkCoverage turns what a scan (side names it in a diff: "base: ")
// did not examine into problems (exit 3) or, with allowPartial, warnings:
// a scanner -scanners names that did not run (not installed, failed,
// disabled), and a scan type that ran nothing able to find what it is
// about. A scanner that failed or ran partly beside others of its type is
// a warning; the verdict line says the result is partial.
func (o *outcome) checkCoverage(c *finding.ScanCoverage, side string, named []string) {
	if c == nil {
		return
	}
	var problems []string
	for _, s := range c.Scanners {
		asked := slices.Contains(named, s.Scanner)
		switch {
		case asked && s.Status == finding.CoverageFailed:
			problems = append(problems, fmt.Sprintf("%sscanner %s failed: %s", side, s.Scanner, s.Reason))
		case asked && (s.Status == finding.CoverageNotInstalled || s.Status == finding.CoverageDisabled):
			problems = append(problems, fmt.Sprintf("%sscanner %s did not run: %s", side, s.Scanner, s.Describe()))
		case s.Status == finding.CoverageFailed:
			o.warnings = append(o.warnings, fmt.Sprintf("%sscanner %s failed: %s", side, s.Scanner, s.Reason))
		}
	}
	for _, t := range c.FailedTypes() {
		problems = append(problems, fmt.Sprintf("%sscan type %s: %s", side, t.ScanType, t.Reason))
	}
	if o.allowPartial {
		for _, p := range problems {
			o.warnings = append(o.warnings, p+" (--allow-partial)")
			o.allowed = append(o.allowed, p)
		}
		return
	}
	o.problems = append(o.problems, problems...)
	o.coverageProblems = append(o.coverageProblems, problems...)
}

// sarifScan is the scan as the SARIF writer gets it: -sarif-fixed
// decides whether fixed findings are written.
func (in reportInput) sarifScan() report.Scan {
	sc := in.run.Scan
	sc.SARIFFixed = in.sarifFixed
	return sc
}

// notComparedScanners lists the scanners whose findings a diff cannot
// compare (finding.NotComparedReason: failed, partial or not installed on
// either side) and the fingerprints of their findings on both sides.
func notComparedScanners(ctx context.Context, st *store.Store, base, head store.Scan) ([]report.NotCompared, map[string]bool, error) {
	var out []report.NotCompared
	names, _ := finding.NotComparedScanners(base.Coverage, head.Coverage)
	for _, name := range names {
		out = append(out, report.NotCompared{Scanner: name, Reason: finding.NotComparedReason(base.Coverage, head.Coverage, name)})
	}
	fps := map[string]bool{}
	if len(names) == 0 {
		return out, fps, nil
	}
	for _, sc := range []store.Scan{base, head} {
		for row, err := range st.FindingRows(ctx, sc, store.FindingQuery{Scanners: names}) {
			if err != nil {
				return nil, nil, &exitError{exitNoScan, err.Error()}
			}
			fps[row.Fingerprint] = true
		}
	}
	return out, fps, nil
}
