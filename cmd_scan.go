package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	"scand/finding"
	"scand/finding/report"
	"scand/scan"
	"scand/scan/repoconfig"
	"scand/scan/reportdata"
	"scand/scan/request"
	"scand/store"
)

// runScanCommand is `scand scan [PATH]`: one scan of a tree, an image or
// a repository, reported in one format, with an exit code for CI.
func runScanCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scand scan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f scanFlags
	f.register(fs)
	image := fs.String("image", "", "scan a container image instead of PATH: a docker save archive, an OCI archive or an OCI layout directory")
	repoArg := fs.String("repo", "", "scan a git repository instead of PATH, cloned for the scan and removed: URL[@REF]")
	var vf vexFlags
	vf.register(fs)
	fs.Usage = commandUsage(fs, "scand scan [flags] [PATH]",
		"Scans PATH (default .) in-process with the daemon's scanners and prints a report; no daemon or database is needed.")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagError(err)
	}
	if err := f.check(); err != nil {
		return err
	}
	if err := f.checkServerKey(getenv, stderr); err != nil {
		return err
	}
	if len(pos) > 1 {
		return &usageError{fmt.Sprintf("scand scan takes one PATH, got %q", pos)}
	}
	if (*image != "" || *repoArg != "") && len(pos) > 0 || *image != "" && *repoArg != "" {
		return &usageError{"give one target: PATH, -image or -repo"}
	}
	req := request.Request{}
	var cfg *repoconfig.Config
	configGiven := true
	switch {
	case *image != "":
		abs, err := filepath.Abs(*image)
		if err != nil {
			return &usageError{err.Error()}
		}
		req.TargetImage = &scan.ImageSpec{Path: abs}
		if cfg, err = loadRepoConfig(f.config, ""); err != nil {
			return err
		}
	case *repoArg != "":
		req.TargetRepo = parseRepoArg(*repoArg)
		if cfg, err = loadRepoConfig(f.config, ""); err != nil {
			return err
		}
		// Without -config the clone's own .scand.toml applies, read by
		// the orchestrator once the repository is cloned.
		configGiven = f.config != ""
	default:
		abs, err := treeArg("scand scan", pos)
		if err != nil {
			return err
		}
		req.TargetPath = abs
		if cfg, err = loadRepoConfig(f.config, abs); err != nil {
			return err
		}
	}
	types, failOn := f.settle(cfg)
	req.ScanTypes = types
	if f.url != "" {
		req.TargetURL = &f.url
	}
	if f.host != "" {
		req.TargetHost = &f.host
	}
	bl, err := loadBaseline(f.baseline)
	if err != nil {
		return err
	}
	vexDocs, err := vf.read()
	if err != nil {
		return err
	}
	eng, err := newEngine(ctx, getenv, stderr, f.quiet)
	if err != nil {
		return err
	}
	defer eng.close()
	if err := vf.apply(ctx, eng.st, vexDocs); err != nil {
		return err
	}
	named, required := splitList(f.scanners), splitList(f.require)
	if err := eng.checkNames("scanners", named); err != nil {
		return err
	}
	if err := eng.checkNames("require", required); err != nil {
		return err
	}
	if err := cfg.CheckScanners(eng.names()); err != nil {
		return &usageError{err.Error()}
	}
	opts := scan.RunOptions{Config: cfg, ConfigGiven: configGiven, SkipIdle: true, Required: required, DefaultTypes: f.typesDefault(cfg)}
	if len(named) > 0 {
		opts.Scanners = append(slices.Clone(named), required...)
	}
	sc, err := eng.run(ctx, req, opts)
	if err != nil {
		return err
	}
	o := outcome{allowPartial: f.allowPartial}
	o.checkScanners(sc, named, required)
	o.checkRequired(sc, required)
	if f.server != "" {
		o.server(sendToServer(ctx, serverRequest{url: f.server, key: getenv("SCAND_API_KEY"), label: f.label, root: req.TargetPath, eng: eng, scan: sc}), f.serverOptional)
	}
	mark := bl.mark(nil)
	in, err := scanReportInput(ctx, eng, sc, failOn, mark, o.warnings)
	if err != nil {
		return err
	}
	in.run.Problems, in.run.Notices = o.coverageProblems, o.allowed
	in.run.Show, in.run.LinkBase = finding.Severity(f.show), linkBaseFor(ctx, &f, eng, req.TargetPath, "")
	if err := writeReport(in, f.format, f.output, stdout, colorWanted(getenv, f.noColor)); err != nil {
		return err
	}
	if err := vf.write(ctx, eng.st, sc, eng.settings.InstanceName); err != nil {
		return err
	}
	return finish(stderr, o, in.run.Summary)
}

// parseRepoArg reads -repo URL[@REF]: the ref follows the last "@" after
// the URL's host, so ssh://git@host/x.git still parses.
func parseRepoArg(v string) *scan.RepoSpec {
	spec := &scan.RepoSpec{URL: v}
	hostStart := 0
	if i := strings.Index(v, "://"); i >= 0 {
		hostStart = i + 3
	}
	if slash := strings.Index(v[hostStart:], "/"); slash >= 0 {
		if at := strings.LastIndex(v[hostStart+slash:], "@"); at >= 0 {
			cut := hostStart + slash + at
			spec.URL, spec.Ref = v[:cut], v[cut+1:]
		}
	}
	return spec
}

// checkRequired makes a required scanner that did not run (not of the
// scan's types, or skipped) a problem.
func (o *outcome) checkRequired(sc store.Scan, required []string) {
	for _, r := range required {
		if slices.Contains(sc.ScannersRun, r) || slices.ContainsFunc(sc.ScannersSkipped, func(s store.SkippedScanner) bool { return s.Name == r }) {
			continue
		}
		o.problems = append(o.problems, fmt.Sprintf("required scanner %s did not run: it is not of the scan types %s", r, strings.Join(sc.ScanTypes, ",")))
	}
}

// server records the outcome of sending the result to a daemon.
func (o *outcome) server(err error, optional bool) {
	if err == nil {
		return
	}
	if optional {
		o.warnings = append(o.warnings, err.Error()+" (-server-optional: going on without its verdicts)")
		return
	}
	o.problems = append(o.problems, err.Error())
}

// scanReportInput reads what the writers need of a completed scan.
func scanReportInput(ctx context.Context, eng *engine, sc store.Scan, failOn string, mark reportdata.Mark, warnings []string) (reportInput, error) {
	data, err := eng.st.ScanDataSources(ctx, sc.ID)
	if err != nil {
		return reportInput{}, &exitError{exitNoScan, err.Error()}
	}
	coverage, err := reportdata.ScanCoverage(ctx, eng.st, sc)
	if err != nil {
		return reportInput{}, &exitError{exitNoScan, err.Error()}
	}
	gate := report.Gate{FailOn: failOn}
	look := eng.st.ExcerptLookup(sc.Seq)
	rows := func() iter.Seq2[report.Row, error] {
		return reportdata.ExcerptedReportRows(ctx, look, eng.st.FindingRows(ctx, sc, store.FindingQuery{}), mark)
	}
	sum, err := report.Summarize(gate, rows())
	if err != nil {
		return reportInput{}, &exitError{exitNoScan, err.Error()}
	}
	run := report.Run{Scan: reportdata.ReportScan(sc, data, coverage, version()), Summary: sum}
	run.Warnings = append(report.Warnings(run.Scan), warnings...)
	return reportInput{run: run, gate: gate, rows: rows, tools: func() ([]report.Tool, error) {
		return reportdata.SARIFTools(ctx, eng.st, sc, eng.scanners, data, func(name string) iter.Seq2[report.Row, error] {
			return reportdata.ExcerptedReportRows(ctx, look, eng.st.FindingRows(ctx, sc, store.FindingQuery{Scanners: []string{name}}), mark)
		})
	}}, nil
}
