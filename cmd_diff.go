package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"scand/finding"
	"scand/finding/report"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/reportdata"
	"scand/scan/request"
	"scand/store"
)

// gitTimeout bounds one git command of a diff (a worktree checkout of a
// large repository included).
const gitTimeout = 10 * time.Minute

// runDiffCommand is `scand diff [PATH] --base REF [--head REF]`: the tree
// at both revisions is scanned (each checked out with `git worktree add`,
// never by copying the repository; the head defaults to the working tree
// as it is), and every finding is new, fixed or unchanged by fingerprint.
// Only new findings gate.
func runDiffCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scand diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f scanFlags
	f.register(fs)
	baseRef := fs.String("base", "", "git revision to compare with (required), e.g. origin/main or a commit")
	headRef := fs.String("head", "", "git revision of the change (default: the working tree as it is)")
	fs.Usage = commandUsage(fs, "scand diff [flags] [PATH] --base REF [--head REF]",
		"Scans PATH (default ., inside a git repository) at two revisions and reports which findings are new, fixed or unchanged; only new findings gate.")
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
	if *baseRef == "" {
		return &usageError{"scand diff needs -base REF"}
	}
	abs, err := treeArg("scand diff", pos)
	if err != nil {
		return err
	}
	bl, err := loadBaseline(f.baseline)
	if err != nil {
		return err
	}
	// A diff compares trees: the secrets scanner's history scan would
	// report a removed secret as still there (it is, in history) and
	// reads only the checkout, not the base's worktree.
	treeOnly := func(k string) string {
		if k == "SVC_SECRETS_HISTORY" {
			return "0"
		}
		return getenv(k)
	}
	eng, err := newEngine(ctx, treeOnly, stderr, f.quiet)
	if err != nil {
		return err
	}
	defer eng.close()
	g := gitRunner{runner: eng.scanCfg.Runner}
	top, err := g.out(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return &usageError{fmt.Sprintf("%s is not inside a git work tree: %v", abs, err)}
	}
	realAbs, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return &usageError{err.Error()}
	}
	sub, err := filepath.Rel(top, realAbs)
	if err != nil || !filepath.IsLocal(sub) && sub != "." {
		return &usageError{fmt.Sprintf("%s is not inside the repository at %s", abs, top)}
	}
	baseCommit, err := g.commit(ctx, top, *baseRef)
	if err != nil {
		return err
	}
	headCommit, headLabel := "", "working tree"
	if *headRef != "" {
		if headCommit, err = g.commit(ctx, top, *headRef); err != nil {
			return err
		}
		headLabel = *headRef
	} else if c, err := g.out(ctx, top, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		headCommit = c
	}

	// Worktrees live in the engine's private directory and are removed
	// however the command ends.
	var trees []string
	defer func() {
		for _, t := range trees {
			g.run(context.Background(), top, "worktree", "remove", "--force", t)
		}
		if len(trees) > 0 {
			g.run(context.Background(), top, "worktree", "prune")
		}
	}()
	checkout := func(name, commit string) (string, error) {
		dir := filepath.Join(eng.dir, name)
		if _, err := g.out(ctx, top, "worktree", "add", "--detach", "--quiet", dir, commit); err != nil {
			return "", &exitError{exitNoScan, fmt.Sprintf("git worktree add of %s: %v", commit, err)}
		}
		trees = append(trees, dir)
		return filepath.Join(dir, sub), nil
	}
	baseDir, err := checkout("base", baseCommit)
	if err != nil {
		return err
	}
	headDir := realAbs
	if *headRef != "" {
		if headDir, err = checkout("head", headCommit); err != nil {
			return err
		}
	}
	for _, d := range []string{baseDir, headDir} {
		if info, err := os.Stat(d); err != nil || !info.IsDir() {
			return &exitError{exitNoScan, fmt.Sprintf("%s does not exist at both revisions", sub)}
		}
	}

	// Each side is read with its own .scand.toml unless -config names one;
	// the head's config gives the defaults.
	headCfg, err := loadRepoConfig(f.config, headDir)
	if err != nil {
		return err
	}
	baseCfg := headCfg
	if f.config == "" {
		if baseCfg, err = loadRepoConfig("", baseDir); err != nil {
			// A base revision with a bad config cannot hold the change
			// back: its findings are compared under the head's.
			fmt.Fprintf(stderr, "scand: warning: the base revision's %v; using the head's configuration for it\n", err)
			baseCfg = headCfg
		}
	}
	types, failOn := f.settle(headCfg)
	named, required := splitList(f.scanners), splitList(f.require)
	if err := eng.checkNames("scanners", named); err != nil {
		return err
	}
	if err := eng.checkNames("require", required); err != nil {
		return err
	}
	for _, c := range []interface{ CheckScanners([]string) error }{headCfg, baseCfg} {
		if err := c.CheckScanners(eng.names()); err != nil {
			return &usageError{err.Error()}
		}
	}
	req := func(dir string) request.Request {
		r := request.Request{TargetPath: dir, ScanTypes: types}
		if f.url != "" {
			r.TargetURL = &f.url
		}
		if f.host != "" {
			r.TargetHost = &f.host
		}
		return r
	}
	opts := scan.RunOptions{ConfigGiven: true, SkipIdle: true, Required: required, DefaultTypes: f.typesDefault(headCfg)}
	if len(named) > 0 {
		opts.Scanners = append(slices.Clone(named), required...)
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "scand: scanning the base %s (%s)\n", *baseRef, short(baseCommit))
	}
	opts.Config, opts.Worktree = baseCfg, true
	baseScan, err := eng.run(ctx, req(baseDir), opts)
	if err != nil {
		return err
	}
	if !f.quiet {
		fmt.Fprintf(stderr, "scand: scanning the head (%s)\n", headLabel)
	}
	opts.Config, opts.Worktree = headCfg, *headRef != ""
	headScan, err := eng.run(ctx, req(headDir), opts)
	if err != nil {
		return err
	}

	o := outcome{allowPartial: f.allowPartial}
	o.checkScanners(headScan, named, required)
	o.checkCoverage(baseScan.Coverage, "base: ", named)
	o.checkRequired(headScan, required)
	if f.server != "" {
		o.server(sendToServer(ctx, serverRequest{url: f.server, key: getenv("SCAND_API_KEY"), label: f.label, root: realAbs, commit: headCommit,
			eng: eng, scan: headScan}), f.serverOptional)
	}
	inBase, err := fingerprints(ctx, eng.st, baseScan)
	if err != nil {
		return err
	}
	inHead, err := fingerprints(ctx, eng.st, headScan)
	if err != nil {
		return err
	}
	// A scanner that did not look fully on either side has its findings
	// not compared: its silence on one side proves nothing.
	notCompared, uncomparable, err := notComparedScanners(ctx, eng.st, baseScan, headScan)
	if err != nil {
		return err
	}
	headMark := bl.mark(func(fp string) string {
		switch {
		case uncomparable[fp]:
			return report.DiffNotCompared
		case inBase[fp]:
			return report.DiffUnchanged
		}
		return report.DiffNew
	})
	baseMark := bl.mark(func(fp string) string {
		switch {
		case inHead[fp]:
			return "" // the head's row stands for it
		case uncomparable[fp]:
			return report.DiffNotCompared
		}
		return report.DiffFixed
	})
	// Rows are the head's findings, then the base's the head no longer has.
	// The new findings' code comes from the head scan.
	look := eng.st.ExcerptLookup(headScan.Seq)
	rows := func(q store.FindingQuery) iter.Seq2[report.Row, error] {
		return func(yield func(report.Row, error) bool) {
			for r, err := range reportdata.ExcerptedReportRows(ctx, look, eng.st.FindingRows(ctx, headScan, q), headMark) {
				if !yield(r, err) || err != nil {
					return
				}
			}
			for r, err := range reportdata.ReportRows(eng.st.FindingRows(ctx, baseScan, q), baseMark) {
				if err == nil && r.Diff != report.DiffFixed && r.Diff != report.DiffNotCompared {
					continue
				}
				r.FromBase = true
				if !yield(r, err) || err != nil {
					return
				}
			}
		}
	}
	data, err := eng.st.ScanDataSources(ctx, headScan.ID)
	if err != nil {
		return &exitError{exitNoScan, err.Error()}
	}
	coverage, err := reportdata.ScanCoverage(ctx, eng.st, headScan)
	if err != nil {
		return &exitError{exitNoScan, err.Error()}
	}
	gate := report.Gate{FailOn: failOn}
	all := func() iter.Seq2[report.Row, error] { return rows(store.FindingQuery{}) }
	sum, err := report.Summarize(gate, all())
	if err != nil {
		return &exitError{exitNoScan, err.Error()}
	}
	run := report.Run{Scan: reportdata.ReportScan(headScan, data, coverage, version()), Summary: sum, Base: *baseRef + " (" + short(baseCommit) + ")", Head: headLabel}
	if headCommit != "" && *headRef != "" {
		run.Head += " (" + short(headCommit) + ")"
	}
	run.TargetPath = filepath.Join(top, sub)
	run.Show, run.LinkBase = finding.Severity(f.show), linkBaseFor(ctx, &f, eng, realAbs, headCommit)
	run.Warnings = append(report.Warnings(run.Scan), o.warnings...)
	run.BaseCoverage, run.Problems, run.Notices = baseScan.Coverage, o.coverageProblems, o.allowed
	run.NotCompared = report.CountNotCompared(notCompared, sum.NotComparedBy)
	in := reportInput{run: run, gate: gate, rows: all, sarifFixed: f.sarifFixed, tools: func() ([]report.Tool, error) {
		// A run per scanner the head ran: a run for one it did not (it
		// failed, or only the base had it) would close that tool's alerts
		// in a code-scanning upload although nothing was checked.
		names := slices.Clone(headScan.ScannersRun)
		rules, err := diffRules(ctx, eng.st, headScan, baseScan)
		if err != nil {
			return nil, err
		}
		return reportdata.Tools(ctx, names, eng.scanners, data, headScan.Coverage, func(name string) []report.Rule { return rules[name] },
			func(name string) iter.Seq2[report.Row, error] {
				return rows(store.FindingQuery{Scanners: []string{name}})
			}), nil
	}}
	if err := writeReport(in, f.format, f.output, stdout, colorWanted(getenv, f.noColor)); err != nil {
		return err
	}
	return finish(stderr, o, sum)
}

// diffRules are the SARIF rules of a diff: the head's, plus those only
// the base's fixed findings need.
func diffRules(ctx context.Context, st *store.Store, head, base store.Scan) (map[string][]report.Rule, error) {
	out := map[string][]report.Rule{}
	seen := map[string]bool{}
	for _, sc := range []store.Scan{head, base} {
		rules, err := st.ScanRules(ctx, sc)
		if err != nil {
			return nil, err
		}
		for _, r := range rules {
			if key := r.Scanner + "\x00" + r.RuleID; !seen[key] {
				seen[key] = true
				out[r.Scanner] = append(out[r.Scanner], report.Rule{RuleID: r.RuleID, First: r.First, Worst: r.Worst, CWEs: r.CWEs, Tags: r.Tags})
			}
		}
	}
	for name, rs := range out {
		slices.SortFunc(rs, func(a, b report.Rule) int { return strings.Compare(a.RuleID, b.RuleID) })
		out[name] = rs
	}
	return out, nil
}

// fingerprints is the set of a scan's fingerprints.
func fingerprints(ctx context.Context, st *store.Store, sc store.Scan) (map[string]bool, error) {
	out := map[string]bool{}
	for row, err := range st.FindingRows(ctx, sc, store.FindingQuery{}) {
		if err != nil {
			return nil, &exitError{exitNoScan, err.Error()}
		}
		out[row.Fingerprint] = true
	}
	return out, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// gitRunner runs git through the one runner, with a timeout.
type gitRunner struct{ runner *proc.Runner }

func (g gitRunner) run(ctx context.Context, dir string, args ...string) (proc.Result, error) {
	// The repository's own settings may not run programs (hooks on the
	// worktree checkout, fsmonitor): a scan has no side effects.
	res, err := g.runner.Run(ctx, proc.Cmd{Program: "git", Args: append(proc.GitInTree(dir), args...), Dir: dir, Timeout: gitTimeout,
		Env: []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"}})
	if err != nil {
		return res, err
	}
	if res.ExitCode != 0 {
		return res, fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(report.Printable(string(res.Stderr), 300)))
	}
	return res, nil
}

func (g gitRunner) out(ctx context.Context, dir string, args ...string) (string, error) {
	res, err := g.run(ctx, dir, args...)
	return strings.TrimSpace(string(res.Stdout)), err
}

// commit resolves a revision to a commit id; a name that could be read as
// an option is refused before git sees it.
func (g gitRunner) commit(ctx context.Context, top, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return "", &usageError{fmt.Sprintf("%q is not a git revision", ref)}
	}
	c, err := g.out(ctx, top, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || c == "" {
		return "", &usageError{fmt.Sprintf("%q is not a commit of the repository at %s", ref, top)}
	}
	return c, nil
}
