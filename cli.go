package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"scand/api"
	"scand/finding"
	"scand/finding/report"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/netguard"
	"scand/scan/proc"
	"scand/scan/registry"
	"scand/scan/repoconfig"
	"scand/scan/request"
	"scand/scan/workdir"
	"scand/sse"
	"scand/store"
	"scand/vex/vexops"
)

// The command line's scans (scand scan, diff, baseline) run the daemon's
// engine in-process: the same registry, runner, orchestrator path,
// normalization, fingerprints, dedup and canonical order, over a store
// opened on a temporary SQLite file in a private directory that is always
// removed. It never touches SVC_DB or takes its lock.

// exitError ends a command with a code of its own: 1 when findings gate
// the run, 3 when the scan could not run (exitCode).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Exit codes of scand scan, diff and baseline (docs/gate.md, "Exit codes").
const (
	exitGate   = 1
	exitNoScan = 3
)

// parseInterleaved parses flags that may come before or after the
// positional arguments (trivy and gitleaks allow both); "--" ends the
// flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return append(pos, tail...), nil
}

// flagError turns a flag-parsing failure into the command's outcome: -h
// prints the usage and exits 0, anything else is a usage error.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &usageError{err.Error()}
}

// splitList reads a comma-separated flag value.
func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// treeArg is the directory a command's one PATH names (default .), made
// absolute; cmd names the command in the usage error.
func treeArg(cmd string, pos []string) (string, error) {
	if len(pos) > 1 {
		return "", &usageError{fmt.Sprintf("%s takes one PATH, got %q", cmd, pos)}
	}
	root := "."
	if len(pos) == 1 {
		root = pos[0]
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", &usageError{err.Error()}
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return "", &usageError{fmt.Sprintf("%s is not a directory", root)}
	}
	return abs, nil
}

// scanFlags are the flags scan and diff share.
type scanFlags struct {
	types, scanners, require       string
	format, output, failOn         string
	baseline, config               string
	url, host                      string
	server, label                  string
	serverOptional, quiet, noColor bool
	show, linkBase                 string
	allowPartial, sarifFixed       bool
}

var formats = []string{"text", "json", "sarif", "markdown"}

func (f *scanFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.types, "type", "", "comma-separated scan types: code, dependency, iac, baseline, dast, network (default: scan_types of the config, else code,dependency)")
	fs.StringVar(&f.scanners, "scanners", "", "comma-separated scanner ids to run, e.g. secrets (default: every scanner of the scan types)")
	fs.StringVar(&f.require, "require", "", "comma-separated scanner ids that must run: one not installed or failing makes the run exit 3")
	fs.StringVar(&f.format, "format", "text", "report format: text, json, sarif or markdown")
	fs.StringVar(&f.output, "output", "", "write the report to this file instead of stdout (progress and warnings go to stderr)")
	fs.StringVar(&f.output, "o", "", "shorthand for -output")
	fs.StringVar(&f.failOn, "fail-on", "", "exit 1 when a finding at or above this severity counts: critical, high, medium, low, info or none (default: fail_on of the config, else none)")
	fs.StringVar(&f.baseline, "baseline", "", "baseline file (scand baseline): findings it lists are shown, marked baselined, and never gate")
	fs.StringVar(&f.config, "config", "", "repository config file (default: .scand.toml at the root of PATH, when there is one)")
	fs.StringVar(&f.url, "url", "", "target URL of a dast scan")
	fs.StringVar(&f.host, "host", "", "target host, address or CIDR range of a network scan")
	fs.StringVar(&f.server, "server", "", "a scand daemon's base URL: send the result there (POST /api/v1/scans/import, key from SCAND_API_KEY) and let its verdicts count")
	fs.StringVar(&f.label, "label", "", "target label the daemon files the imported scan under (default: the git remote's URL, else the absolute path)")
	fs.BoolVar(&f.serverOptional, "server-optional", false, "an unreachable -server is a warning, not exit 3")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines on stderr")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour in the text report (also NO_COLOR)")
	fs.StringVar(&f.show, "show", "", "list only findings at or above this severity in the text and markdown reports: critical, high, medium, low or info (counts, JSON, SARIF and the gate keep every finding)")
	fs.StringVar(&f.linkBase, "link-base", "", "URL the markdown report's file links start with, e.g. https://git.example/team/shop/blob/<commit>/ (default: from the git remote origin and HEAD, else relative links)")
	f.registerGate(fs)
}

// check validates what can be checked before anything runs. Formats,
// severities and scan types are read without case (--fail-on HIGH).
func (f *scanFlags) check() error {
	f.format, f.failOn, f.show = strings.ToLower(f.format), strings.ToLower(f.failOn), strings.ToLower(f.show)
	f.types = strings.ToLower(f.types)
	if !slices.Contains(formats, f.format) {
		return &usageError{fmt.Sprintf("-format must be one of %s, got %q", strings.Join(formats, ", "), f.format)}
	}
	if f.failOn != "" && !report.ValidFailOn(f.failOn) {
		return &usageError{fmt.Sprintf("-fail-on must be one of %s, got %q", strings.Join(report.FailOnValues, ", "), f.failOn)}
	}
	for _, t := range splitList(f.types) {
		if !slices.Contains(scan.ScanTypes, t) {
			return &usageError{fmt.Sprintf("-type: unknown scan type %q (one of %s)", t, strings.Join(scan.ScanTypes, ", "))}
		}
	}
	if f.types != "" && len(splitList(f.types)) == 0 {
		return &usageError{"-type names no scan type"}
	}
	if f.serverOptional && f.server == "" {
		return &usageError{"-server-optional needs -server"}
	}
	if f.show != "" && !finding.Severity(f.show).Valid() {
		return &usageError{fmt.Sprintf("-show must be one of critical, high, medium, low or info, got %q", f.show)}
	}
	if f.linkBase != "" {
		u, err := url.Parse(f.linkBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			strings.ContainsAny(f.linkBase, " \t\r\n()<>\"'`\\") {
			return &usageError{fmt.Sprintf("-link-base must be an http(s) URL without credentials, spaces, quotes or parentheses, got %q", f.linkBase)}
		}
		if !strings.HasSuffix(f.linkBase, "/") {
			f.linkBase += "/"
		}
	}
	if f.server != "" {
		if _, err := serverURL(f.server); err != nil {
			return &usageError{err.Error()}
		}
	}
	return nil
}

// checkServerKey says before any work that -server has no key to present:
// a daemon that needs one would refuse the import after the whole scan.
// Without SCAND_API_KEY only a daemon on this machine (in dev mode) is
// worth trying, with a warning.
func (f *scanFlags) checkServerKey(getenv func(string) string, stderr io.Writer) error {
	if f.server == "" || strings.TrimSpace(getenv("SCAND_API_KEY")) != "" {
		return nil
	}
	u, err := serverURL(f.server)
	if err != nil {
		return &usageError{err.Error()}
	}
	if isLoopbackHost(u.Hostname()) {
		fmt.Fprintf(stderr, "scand: warning: SCAND_API_KEY is not set: %s must be in dev mode to accept the result\n", u.Redacted())
		return nil
	}
	return &usageError{fmt.Sprintf("-server %s needs an API key with the write scope in SCAND_API_KEY (never on the command line), and it is not set", u.Redacted())}
}

// settle applies the repository config's defaults to the flags.
func (f *scanFlags) settle(cfg *repoconfig.Config) (types []string, failOn string) {
	types = splitList(f.types)
	if len(types) == 0 && cfg != nil && len(cfg.ScanTypes) > 0 {
		types = cfg.ScanTypes
	}
	if len(types) == 0 {
		types = []string{scan.TypeCode, scan.TypeDependency}
	}
	failOn = f.failOn
	if failOn == "" && cfg != nil {
		failOn = cfg.FailOn
	}
	if failOn == "" {
		failOn = "none"
	}
	return types, failOn
}

// loadRepoConfig reads -config, else the .scand.toml at root (nil when
// there is none). Errors are usage errors naming file, line and key.
func loadRepoConfig(path, root string) (*repoconfig.Config, error) {
	var cfg *repoconfig.Config
	var err error
	if path != "" {
		cfg, err = repoconfig.Load(path, path)
	} else if root != "" {
		cfg, err = repoconfig.LoadTree(root)
	}
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	return cfg, nil
}

// engine is the daemon's scanning engine over a throwaway store.
type engine struct {
	dir      string
	st       *store.Store
	orch     *scan.Orchestrator
	scanners []scan.Scanner
	scanCfg  scan.Config
	settings config
	policy   request.TargetPolicy
	work     *workdir.Dir
	log      *slog.Logger
	stderr   io.Writer
	beat     *heartbeat // nil with -quiet
}

// newEngine builds the engine from the daemon's own settings (SVC_*
// variables: scanner paths and databases, timeouts, target policy).
func newEngine(ctx context.Context, getenv func(string) string, stderr io.Writer, quiet bool) (*engine, error) {
	settings, err := loadConfig(nil, getenv, io.Discard)
	if err != nil {
		return nil, err
	}
	if v := strings.TrimSpace(getenv("SVC_VULNDB_DIR")); v == "" && strings.TrimSpace(getenv("SVC_DB")) == "" {
		// The daemon's default is beside its database; from a checkout's
		// directory that is ./vulndb, the same place `scand vulndb` uses.
		settings.VulnDBDir, _ = filepath.Abs(settings.VulnDBDir)
	}
	dir, err := os.MkdirTemp("", "scand-cli-")
	if err != nil {
		return nil, &exitError{exitNoScan, "temporary directory: " + err.Error()}
	}
	e := &engine{dir: dir, settings: settings, stderr: stderr}
	ok := false
	defer func() {
		if !ok {
			e.close()
		}
	}()
	e.log = newLogger(stderr, slog.LevelWarn, "text")
	e.st, err = store.Open(ctx, filepath.Join(dir, "scan.db"), time.Now)
	if err != nil {
		return nil, &exitError{exitNoScan, "temporary store: " + err.Error()}
	}
	e.st.SetVEXPlanner(vexops.Planner(e.st, e.log.With("logger", "scand.vex")))
	targets := netguard.Targets{Allow: settings.TargetAllow}
	e.scanCfg = scan.Config{Runner: proc.NewRunner(settings.ScannerTimeout), Getenv: getenv, Now: time.Now,
		Logger: e.log.With("logger", "scand.scan"), Targets: targets, VulnDBDir: settings.VulnDBDir}
	e.scanners = registry.All(e.scanCfg)
	e.policy = request.TargetPolicy{MaxHosts: settings.NmapMaxHosts, Targets: targets, GitAllow: settings.Targets.GitAllow, RefuseAddress: gitAddressRefusal}
	bus := sse.NewBus(nil)
	if !quiet {
		e.beat = newHeartbeat(stderr, heartbeatInterval)
		bus.AddSink("progress", progressSink(stderr, e.beat))
	}
	// The orchestrator's lines are the daemon's record of a scan; here the
	// progress lines and the command's own messages say the same.
	e.orch = scan.NewOrchestrator(scan.OrchestratorOptions{Store: e.st, Bus: bus, Scanners: e.scanners, Log: slog.New(slog.DiscardHandler),
		Now: time.Now, MaxConcurrent: 1, MaxDataAge: time.Duration(settings.VulnDBMaxAgeDays) * 24 * time.Hour, Targets: e,
		CaptureComponents: components.CaptureJSON,
		ScannerTimeout:    settings.ScannerTimeout, Redact: registry.Redactor(e.scanCfg)})
	ok = true
	return e, nil
}

// Prepare makes image and repository targets the daemon's way, opening
// the work directory only when a scan needs one.
func (e *engine) Prepare(ctx context.Context, spec scan.TargetSpec, types []string) (*scan.Prepared, error) {
	if e.work == nil {
		base := e.settings.Targets.WorkDir
		if base == "" {
			base = e.dir
		}
		w, err := workdir.Open(base)
		if err != nil {
			return nil, err
		}
		e.work = w
	}
	return registry.Targets(e.scanCfg, targetOptions(e.settings, e.work, e.scanners)).Prepare(ctx, spec, types)
}

func (e *engine) close() {
	if e.beat != nil {
		e.beat.close()
	}
	if e.st != nil {
		e.st.Close()
	}
	if e.work != nil {
		e.work.Close()
	}
	os.RemoveAll(e.dir)
}

// names are the registry's scanner ids.
func (e *engine) names() []string {
	out := make([]string, len(e.scanners))
	for i, s := range e.scanners {
		out[i] = s.Name()
	}
	return out
}

// checkNames refuses scanner ids the registry does not have.
func (e *engine) checkNames(flagName string, ids []string) error {
	for _, id := range ids {
		if !slices.Contains(e.names(), id) {
			return &usageError{fmt.Sprintf("-%s: unknown scanner %q (scanners: %s)", flagName, id, strings.Join(e.names(), ", "))}
		}
	}
	return nil
}

// run stores and runs one scan to its end.
func (e *engine) run(ctx context.Context, req request.Request, opts scan.RunOptions) (store.Scan, error) {
	checked, probs, err := e.policy.Check(req)
	if len(probs) > 0 {
		var msgs []string
		for _, p := range probs {
			msgs = append(msgs, p.Msg)
		}
		return store.Scan{}, &usageError{strings.Join(msgs, "; ")}
	}
	if err != nil {
		return store.Scan{}, &usageError{err.Error()}
	}
	sc := store.Scan{ID: store.NewID(), TargetPath: checked.ScanPath, ScanTypes: checked.ScanTypes, TargetURL: checked.TargetURL,
		TargetHost: checked.TargetHost, StartedAt: time.Now().UTC().Truncate(time.Microsecond), CreatedBy: "cli", DefaultTypes: opts.DefaultTypes}
	if checked.Target != nil {
		spec, err := json.Marshal(checked.Target)
		if err != nil {
			return store.Scan{}, err
		}
		sc, err = e.st.CreateScanWithTarget(ctx, sc, string(spec))
	} else {
		sc, err = e.st.CreateScan(ctx, sc)
	}
	if err != nil {
		return store.Scan{}, &exitError{exitNoScan, "store the scan: " + err.Error()}
	}
	e.orch.RunNow(ctx, sc.ID, opts)
	done, err := e.st.ScanByID(context.WithoutCancel(ctx), sc.ID)
	if err != nil {
		return store.Scan{}, &exitError{exitNoScan, "read the scan back: " + err.Error()}
	}
	if ctx.Err() != nil {
		return done, &exitError{exitNoScan, "interrupted"}
	}
	if done.Status != store.StatusCompleted {
		return done, &exitError{exitNoScan, "the scan did not complete: " + done.Error}
	}
	return done, nil
}

// progressSink prints one line per scanner to stderr, and has beat say
// every so often that a long one is still running.
func progressSink(w io.Writer, beat *heartbeat) sse.Sink {
	return func(_ context.Context, ev sse.Event) error {
		switch d := ev.Data.(type) {
		case sse.ScannerStartData:
			beat.started(d.Name)
		case sse.ScannerCompleteData:
			beat.finished(d.Name)
			fmt.Fprintf(w, "scand: %s: %d findings in %.1fs\n", d.Name, d.FindingsCount, d.DurationS)
		case sse.ScannerSkippedData:
			beat.finished(d.Name)
			if d.Reason != report.SkippedIdle {
				fmt.Fprintf(w, "scand: skipped %s: %s\n", d.Name, report.Printable(d.Reason, 200))
			}
		case sse.ScannerFailedData:
			beat.finished(d.Name)
			fmt.Fprintf(w, "scand: %s failed: %s\n", d.Name, report.Printable(d.Error, 300))
		}
		return nil
	}
}

// outcome collects what decides a command's exit code besides findings.
type outcome struct {
	// problems are reasons for exit 3 (required scanners, an unreachable
	// daemon), reported after the report is written.
	problems []string
	warnings []string
	// allowPartial (--allow-partial) makes coverage problems warnings;
	// coverageProblems are those the reports show (report.Run.Problems).
	allowPartial     bool
	coverageProblems []string
	// allowed are the problems --allow-partial made warnings; SARIF
	// carries them as notifications (report.Scan.Notices).
	allowed []string
}

// checkScanners turns a required scanner (-require) that was skipped or
// failed into a problem; the other scanners are the coverage's
// (checkCoverage).
func (o *outcome) checkScanners(sc store.Scan, named, required []string) {
	for _, s := range sc.ScannersSkipped {
		if slices.Contains(required, s.Name) {
			o.problems = append(o.problems, fmt.Sprintf("required scanner %s did not run: %s %s", s.Name, s.Reason, s.InstallHint))
		}
	}
	o.checkCoverage(sc.Coverage, "", named)
}

// reportInput is what the writers get for one command: the scan (the
// head of a diff), how to read its rows, the SARIF runs.
type reportInput struct {
	run        report.Run
	gate       report.Gate
	rows       func() iter.Seq2[report.Row, error]
	tools      func() ([]report.Tool, error)
	sarifFixed bool
}

// writeReport writes the chosen format to -output or stdout.
func writeReport(in reportInput, format, output string, stdout io.Writer, color bool) error {
	w := stdout
	var f *os.File
	if output != "" {
		var err error
		if f, err = os.OpenFile(output, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err != nil {
			return &exitError{exitNoScan, "write the report: " + err.Error()}
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	switch format {
	case "json":
		err = report.WriteJSON(bw, in.run, in.gate, in.rows())
	case "markdown":
		err = report.WriteMarkdown(bw, in.run, in.gate, in.rows())
	case "sarif":
		var tools []report.Tool
		if tools, err = in.tools(); err == nil {
			err = report.WriteSARIF(bw, in.sarifScan(), tools)
		}
	default:
		err = report.WriteText(bw, in.run, in.gate, in.rows(), color && output == "")
	}
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return &exitError{exitNoScan, "write the report: " + err.Error()}
	}
	return nil
}

// colorWanted reports whether the text report may use colour: stdout is
// a terminal and NO_COLOR is unset.
func colorWanted(getenv func(string) string, noColor bool) bool {
	if noColor || getenv("NO_COLOR") != "" {
		return false
	}
	info, err := os.Stdout.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// finish decides the exit: problems (exit 3) first, then gating findings
// (exit 1).
func finish(stderr io.Writer, o outcome, s report.Summary) error {
	for _, w := range o.warnings {
		fmt.Fprintln(stderr, "scand: warning:", report.Printable(w, 600))
	}
	if len(o.problems) > 0 {
		return &exitError{exitNoScan, strings.Join(o.problems, "; ")}
	}
	if s.Gating > 0 {
		return &exitError{exitGate, fmt.Sprintf("%d finding(s) at or above %s", s.Gating, s.FailOn)}
	}
	return nil
}

// version is what reports name as the tool's release.
func version() string { return api.Version }
