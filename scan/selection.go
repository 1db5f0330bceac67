package scan

import (
	"context"
	"errors"
	"slices"

	"scand/finding"
	"scand/scan/repoconfig"
	"scand/scan/tree"
	"scand/sse"
	"scand/store"
)

// repoConfig is the configuration a scan applies: the one given to RunNow,
// else the .scand.toml at the root of the tree (or clone) when the scan
// reads one. A scanner list that names an unknown scanner is an error too.
func (o *Orchestrator) repoConfig(root string, readsTree bool, opts RunOptions) (*repoconfig.Config, error) {
	cfg := opts.Config
	if !opts.ConfigGiven {
		if !readsTree {
			return nil, nil
		}
		var err error
		if cfg, err = repoconfig.LoadTree(root); err != nil {
			return nil, err
		}
	}
	if cfg == nil {
		return nil, nil
	}
	names := make([]string, len(o.scanners))
	for i, s := range o.scanners {
		names[i] = s.Name()
	}
	return cfg, cfg.CheckScanners(names)
}

// errEnoughFiles stops the walk that looks for files to read.
var errEnoughFiles = errors.New("every scanner has a file to read")

// selectScanners narrows the scanners of a scan's types to those that
// run: the ones RunOptions names, minus those the configuration disables
// and, when skipIdle, those the tree gives nothing to read. The left-out
// ones are returned as skipped, with their event published.
func (o *Orchestrator) selectScanners(ctx context.Context, scanID string, all []Scanner, t Target, cfg *repoconfig.Config,
	opts RunOptions, skipIdle bool) ([]Scanner, []store.SkippedScanner, []finding.ScannerCoverage) {
	var run []Scanner
	var skipped []store.SkippedScanner
	var cov []finding.ScannerCoverage
	skip := func(s Scanner, reason, hint string) {
		status := finding.CoverageNotNeeded
		if reason != SkipNothingToScan {
			status = finding.CoverageDisabled
		}
		cov = append(cov, scannerCoverage(s, status, reason, hint))
		skipped = append(skipped, store.SkippedScanner{Name: s.Name(), Reason: reason, InstallHint: hint})
		o.publish(context.WithoutCancel(ctx), scanID, sse.ScannerSkipped, sse.ScannerSkippedData{ScanID: scanID, Name: s.Name(), Reason: reason, InstallHint: hint})
	}
	for _, s := range all {
		switch {
		case opts.Scanners != nil && !slices.Contains(opts.Scanners, s.Name()):
		case cfg.Disabled(s.Name()):
			skip(s, "disabled in "+cfg.File, "")
		default:
			run = append(run, s)
		}
	}
	if !skipIdle {
		return run, skipped, cov
	}
	// One walk finds, for every selective scanner, whether the tree holds
	// a file it reads; it stops as soon as each has one.
	wanting := map[int]Selective{}
	for i, s := range run {
		if ir, ok := unwrapped(s).(ImageReader); ok && t.Image != "" && ir.ReadsImage() {
			continue
		}
		if sel, ok := unwrapped(s).(Selective); ok && !slices.Contains(opts.Required, s.Name()) {
			wanting[i] = sel
		}
	}
	if len(wanting) == 0 {
		return run, skipped, cov
	}
	_ = tree.Walk{Ignore: t.Ignored}.Files(ctx, t.Path, func(_, rel string) error {
		for i, sel := range wanting {
			if sel.Reads(rel) {
				delete(wanting, i)
			}
		}
		if len(wanting) == 0 {
			return errEnoughFiles
		}
		return nil
	})
	kept := run[:0:0]
	for i, s := range run {
		if _, idle := wanting[i]; idle {
			skip(s, SkipNothingToScan, "")
			continue
		}
		kept = append(kept, s)
	}
	return kept, skipped, cov
}
