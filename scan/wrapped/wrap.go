// Package wrapped runs the third-party scanners scand wraps: the
// command-line tools bandit, gosec, osv-scanner, govulncheck, trivy, kics
// and nmap, and a ZAP daemon.
//
// A command-line tool is a declaration, a tool value: how to find and
// version it, what offline data it needs, how to build its arguments from
// the target, what its exit codes mean and which parser reads its report.
// One generic implementation (cli) runs every declaration: availability
// with its cache, target validation, the run through the one runner,
// exit-code handling, crash text, the finding cap and relative paths.
// Adding a tool is one constructor holding its declaration, one parser,
// and their tests. ZAP is a service, not a command: zap.go reuses the same
// pieces around HTTP calls.
package wrapped

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/tree"
	"scand/scan/vulndb"
)

// availTTL bounds how stale /dashboard/status may be after an operator
// installs or removes a tool, while keeping a busy orchestrator from
// spawning `tool --version` for every scan.
const availTTL = 30 * time.Second

// probeTimeout bounds one availability probe (`--version`, ZAP's
// core/view/version). It is not a scan timeout: scans use cfg.Runner's.
const probeTimeout = 15 * time.Second

// maxFindings caps what one wrapped tool can add to a scan. A tool that
// reports more than this is almost always scanning something it should not
// (a vendored tree, a generated bundle); the most severe are kept.
const maxFindings = 10000

// maxFileRead caps how much of a manifest or report file is read.
const maxFileRead = 64 << 20

// errHeadLen is SPEC.md's limit for a scanner.failed error text.
const errHeadLen = 200

// tool declares one wrapped command-line scanner: data, plus the few
// functions that really differ from tool to tool. Fields are in reading
// order: what it is, what it runs on, how a run goes, how it is installed.
type tool struct {
	// name is the scanner's name, in findings and errors, and the program
	// looked up on PATH; SVC_<NAME>_PATH, an absolute path, wins over PATH.
	name     string
	scanType string

	// target validates the scan's target before anything runs and points
	// c at it; nil means pathTarget.
	target func(ctx context.Context, c *call, t scan.Target) error
	// noFollow records that the tool was seen not to follow symbolic links
	// in the target (trivy fs, osv-scanner). Every other tool with a
	// target directory is refused a tree holding a link to a file outside
	// it (tree.LinkOut): bandit, gosec, govulncheck and kics read such a
	// link's file and report it, and none has a flag to stop that. The
	// zero value is the safe one, so a new tool is checked until someone
	// proves it need not be.
	noFollow bool
	// eachDirOf, when set, runs the tool once in the directory of every
	// file of that name under the target instead of once in the target
	// (tools that load Go packages work only inside a module).
	eachDirOf string
	// reads tells the files the tool reads (by path relative to the
	// target), so a command-line scan of a tree without any skips it
	// without starting it; nil means any file (or, with eachDirOf, the
	// files of that name).
	reads func(rel string) bool
	// readsExactly: reads names every file the tool opens, so an image
	// target need write out only those (scan/image).
	readsExactly bool
	// readsImage: given a scan.Target.Image, the tool reads that archive
	// (its target function passes it on), not the unpacked root.
	readsImage bool
	// env is added to the runner's minimal environment.
	env []string
	// reportFile, when set, is the file the tool writes its report to in
	// c.outDir, a fresh temporary directory; otherwise stdout is the report.
	reportFile string
	// args builds one run's argument list.
	args  func(c *call) ([]string, error)
	exits exits
	// parse turns one run's report into findings.
	parse func(c *call, report []byte) ([]finding.Finding, error)

	// sbom, when set, is how the tool matches an SBOM target (sbom.go).
	sbom *sbomRun

	// db is the offline database the tool reads, if any; c.db is its folder.
	db offlineDB
	// ready checks anything else the tool needs besides its binary (a
	// query library); nil means nothing.
	ready   func(c *call) (hint string, ok bool)
	version versionProbe
	// installHint tells an operator on an air-gapped box what to install.
	installHint string
}

// offlineDB is a folder of offline data a tool reads, named by a setting.
// A tool whose data is missing is reported unavailable with a hint, never
// run: it would reach for the network or fail obscurely.
type offlineDB struct {
	env     string // the setting naming the folder; "" means no database
	fileURL bool   // the setting may be a file:// URL of the folder
	// imported is the folder under scan.Config.VulnDBDir that `scand
	// vulndb import` fills for this tool; it is used when env is unset.
	imported string
	unset    string // the hint when neither is there
	// needs are paths under the folder (glob patterns allowed) that must
	// exist. missing is the hint's tail after "<env>=<dir> " when one does
	// not; a %s in it stands for the path.
	needs   []string
	missing string
}

// dir is the folder the setting names, else the imported copy under
// scand's vulndb directory when there is one.
func (d offlineDB) dir(cfg scan.Config) string {
	dir := strings.TrimSpace(cfg.Env(d.env))
	if d.fileURL {
		dir = strings.TrimPrefix(dir, "file://")
	}
	if dir == "" && d.imported != "" && cfg.VulnDBDir != "" {
		p := filepath.Join(cfg.VulnDBDir, d.imported)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return dir
}

// check reports whether the folder holds what the tool needs.
func (d offlineDB) check(dir string) (string, bool) {
	if dir == "" {
		return d.unset + "; or import the archives with `scand vulndb import FILE...` (kept under SVC_VULNDB_DIR)", false
	}
	if !filepath.IsAbs(dir) {
		return fmt.Sprintf("%s=%s must be an absolute path", d.env, dir), false
	}
	for _, need := range d.needs {
		p := filepath.Join(dir, need)
		found := false
		if strings.ContainsAny(need, "*?[") {
			m, _ := filepath.Glob(p)
			found = len(m) > 0
		} else {
			_, err := os.Stat(p)
			found = err == nil
		}
		if !found {
			tail := d.missing
			if strings.Contains(tail, "%s") {
				tail = fmt.Sprintf(tail, need)
			}
			return fmt.Sprintf("%s=%s %s", d.env, dir, tail), false
		}
	}
	return "", true
}

// versionProbe is how a tool tells its version: the arguments that make
// it print it, and a regexp whose first group captures it.
type versionProbe struct {
	args []string
	re   *regexp.Regexp
}

func probeVersion(re string, args ...string) versionProbe {
	return versionProbe{args: args, re: regexp.MustCompile(re)}
}

// exits says what a tool's exit status means; any status not listed is a
// crash.
type exits struct {
	// report lists the statuses after which the report is read: a clean
	// run, and findings.
	report []int
	// nothing lists the statuses that mean there was nothing to scan.
	nothing []int
	// nothingWhen recognizes "nothing to scan" where the status alone
	// cannot tell it from findings.
	nothingWhen func(res proc.Result) bool
	// unparsedIsCrash reports a report that does not parse after a
	// non-zero status as the crash it is, with the tool's own words.
	unparsedIsCrash bool
}

// call is what a declaration's functions see of one run.
type call struct {
	// ctx is the run's: the walks an args function makes end with it.
	ctx     context.Context
	cfg     scan.Config
	program string // SVC_<TOOL>_PATH or the tool's name
	db      string // the offline database's folder
	look    func(string) (string, error)
	root    string // the target directory; "" for a host target
	host    string // the target host of a network tool, as the tool gets it
	// hostName is the name the scan targets when host is the address it
	// was resolved to and checked as; "" otherwise.
	hostName string
	dir      string     // where this run executes; "" inherits scand's
	file     string     // the file eachDirOf found for this run
	outDir   string     // where reportFile is written
	image    string     // the image archive or layout the target was unpacked from
	lines    lineFinder // declaration lines under root, shared by all runs
	// skipped lists the parts of the target this run left out (args may
	// add to it); Scan reports them as a scan.PartialSkip.
	skipped []scan.SkippedPart
	// ignore is the repository's [ignore] paths; nil when none. A tool
	// with exclude flags gets its patterns (excludePatterns).
	ignore scan.PathFilter
	// nothing: args found nothing the tool can check (errNothingToScan).
	nothing bool
}

// ignoreFunc is a tree.Walk's Ignore for [ignore] paths; nil for none.
func ignoreFunc(f scan.PathFilter) func(string, bool) bool {
	if f == nil {
		return nil
	}
	return f.Ignored
}

// excludePatterns are the [ignore] paths patterns for a tool's exclude
// flags. A list that brings paths back with "!" is not handed over when
// the tool's flags cannot say that (negates false): excluding more than
// asked would lose findings, and the orchestrator drops the findings under
// ignored paths whatever the tool reports.
func (c *call) excludePatterns(negates bool) []string {
	if c.ignore == nil {
		return nil
	}
	ps := c.ignore.Patterns()
	if !negates {
		for _, p := range ps {
			if strings.HasPrefix(p, "!") {
				return nil
			}
		}
	}
	return ps
}

// runCtx is the run's context; Background for a call made outside a run
// (tests of a declaration's args).
func (c *call) runCtx() context.Context {
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

// rel makes a path the tool reported relative to the target.
func (c *call) rel(p string) string { return relPath(c.root, c.dir, p) }

// programPath resolves the program to a file; "" when it is not found.
func (c *call) programPath() string {
	if strings.Contains(c.program, "/") {
		return c.program
	}
	p, err := c.look(c.program)
	if err != nil {
		return ""
	}
	return p
}

// folderSetting is a folder a tool needs besides its program: the one
// the setting env names, else the one where the tool's install puts it,
// relative to its program (beside, given the program with its links
// resolved: npm links a program into node_modules/.bin, a release is often
// linked into a bin folder). "" when neither is known.
func (c *call) folderSetting(env string, beside func(program string) string) string {
	if d := strings.TrimSpace(c.cfg.Env(env)); d != "" {
		return d
	}
	prog := c.programPath()
	if prog == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return ""
	}
	return beside(real)
}

// pathTarget accepts an absolute, existing directory and runs in it.
func pathTarget(_ context.Context, c *call, t scan.Target) error {
	if err := validateDir(t.Path); err != nil {
		return err
	}
	c.root, c.dir = t.Path, t.Path
	c.lines = declLines(t.Path)
	return nil
}

// cli is the one implementation of every command-line tool.
type cli struct {
	tool  tool
	cfg   scan.Config
	avail availCache
}

func newCLI(cfg scan.Config, t tool) *cli { return &cli{cfg: cfg, tool: t} }

func (w *cli) Name() string { return w.tool.name }

// Reads implements scan.Selective.
func (w *cli) Reads(rel string) bool {
	switch {
	case w.tool.reads != nil:
		return w.tool.reads(rel)
	case w.tool.eachDirOf != "":
		return filepath.Base(rel) == w.tool.eachDirOf
	}
	return true
}
func (w *cli) Type() string { return w.tool.scanType }

// ReadsExactly tells an image target whether Reads names every file the
// tool opens.
func (w *cli) ReadsExactly() bool { return w.tool.readsExactly }

// ReadsImage implements scan.ImageReader.
func (w *cli) ReadsImage() bool { return w.tool.readsImage }

// pathEnv is the setting that overrides where the program is:
// SVC_OSV_SCANNER_PATH for osv-scanner.
func (w *cli) pathEnv() string {
	return "SVC_" + strings.ToUpper(strings.ReplaceAll(w.tool.name, "-", "_")) + "_PATH"
}

// program is the executable to run: the SVC_<TOOL>_PATH override when set,
// else the tool's name resolved on PATH by the runner.
func (w *cli) program() string {
	if p := strings.TrimSpace(w.cfg.Env(w.pathEnv())); p != "" {
		return p
	}
	return w.tool.name
}

func (w *cli) runner() *proc.Runner {
	if w.cfg.Runner != nil {
		return w.cfg.Runner
	}
	return proc.NewRunner(0)
}

func (w *cli) newCall() *call {
	look := w.runner().LookPath
	if look == nil {
		look = exec.LookPath
	}
	return &call{cfg: w.cfg, program: w.program(), look: look, db: w.tool.db.dir(w.cfg)}
}

// Available reports the tool's version, or why it cannot run here.
func (w *cli) Available(ctx context.Context) (string, string, bool) {
	return w.avail.get(ctx, w.cfg.Time(), func() (string, string, bool) { return w.probe(ctx) })
}

func (w *cli) probe(ctx context.Context) (string, string, bool) {
	c := w.newCall()
	prog, t, v := c.program, &w.tool, w.tool.version
	if prog != t.name && !filepath.IsAbs(prog) {
		return "", fmt.Sprintf("%s=%s must be an absolute path", w.pathEnv(), prog), false
	}
	res, err := w.runner().Run(ctx, proc.Cmd{Program: prog, Args: v.args, Timeout: probeTimeout})
	if errors.Is(err, proc.ErrNotInstalled) {
		if prog != t.name {
			return "", fmt.Sprintf("%s=%s is not an executable file; %s", w.pathEnv(), prog, t.installHint), false
		}
		return "", t.installHint, false
	}
	if err != nil {
		return "", fmt.Sprintf("%s did not answer %s: %v; %s", prog, strings.Join(v.args, " "), err, t.installHint), false
	}
	version := parseVersion(v.re, res.Stdout, res.Stderr)
	switch version {
	case "", "dev", "development", "(devel)":
		// Tools installed with `go install` print a placeholder: the
		// module version the Go toolchain stamped into the binary is the
		// truth, and a placeholder is no version at all.
		version = buildInfoVersion(c.programPath())
	}
	if version == "" && res.ExitCode != 0 {
		return "", fmt.Sprintf("%s %s exited with status %d: %s", prog, strings.Join(v.args, " "), res.ExitCode, stderrHead(res.Stderr)), false
	}
	if t.db.env != "" {
		if hint, ok := t.db.check(c.db); !ok {
			return version, hint, false
		}
	}
	if t.ready != nil {
		if hint, ok := t.ready(c); !ok {
			return version, hint, false
		}
	}
	return version, "", true
}

// buildInfoVersion is the module version stamped into a Go binary; "" for
// a missing file, a non-Go binary or a development build.
func buildInfoVersion(path string) string {
	if path == "" {
		return ""
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ""
	}
	return strings.TrimPrefix(bi.Main.Version, "v")
}

func parseVersion(re *regexp.Regexp, outs ...[]byte) string {
	for _, out := range outs {
		if re == nil {
			continue
		}
		if m := re.FindSubmatch(out); m != nil {
			return strings.TrimPrefix(string(m[1]), "v")
		}
	}
	return ""
}

// notReady is Scan's answer when Available would say no: the orchestrator
// normally skips such a scanner, and this keeps a direct call from failing
// later with a network timeout instead of saying what is missing.
func (w *cli) notReady(ctx context.Context) error {
	if _, hint, ok := w.Available(ctx); !ok {
		if w.SkipReason(ctx) == scan.SkipDatabaseNotConfigured {
			return fmt.Errorf("%s: %s: %w", w.tool.name, hint, scan.ErrDatabaseNotConfigured)
		}
		return fmt.Errorf("%s: %s: %w", w.tool.name, hint, proc.ErrNotInstalled)
	}
	return nil
}

// SkipReason tells "the tool is missing" from "the tool is here but its
// offline database is not" for a scanner Available said no to: the second
// is fixed by a setting (or `scand vulndb import`), not by an install.
func (w *cli) SkipReason(ctx context.Context) string {
	if w.tool.db.env == "" {
		return scan.SkipNotInstalled
	}
	c := w.newCall()
	if c.programPath() == "" {
		return scan.SkipNotInstalled
	}
	if _, ok := w.tool.db.check(c.db); !ok {
		return scan.SkipDatabaseNotConfigured
	}
	return scan.SkipNotInstalled
}

// DataSources lists the offline databases the tool reads, with their build
// dates (scan.DataSourcer): recorded with every scan it runs in.
func (w *cli) DataSources(context.Context) []vulndb.Info {
	if w.tool.db.env == "" {
		return nil
	}
	c := w.newCall()
	if c.db == "" {
		return nil
	}
	source := w.tool.db.env
	if strings.TrimSpace(w.cfg.Env(w.tool.db.env)) == "" {
		source = "imported"
	}
	return vulndb.Describe(w.tool.name, c.db, source, w.cfg.VulnDBDir)
}

// skippedFiles is a part of the target a run left out: files it could
// not read or parse, counted, the first few named.
func skippedFiles(part, reason, hint string, files []string) scan.SkippedPart {
	p := scan.SkippedPart{Part: part, Reason: reason, Hint: hint, Count: len(files)}
	p.Paths = append(p.Paths, files[:min(len(files), finding.CoverageMaxPaths)]...)
	return p
}

// errNothingToScan is what a declaration's args returns when the target
// holds nothing the tool can check (every lockfile's database is missing):
// the run is skipped, which is not an error.
var errNothingToScan = errors.New("nothing to scan")

// callOn is a run's call on the scan's target, validated by the
// declaration's target function.
func (w *cli) callOn(ctx context.Context, t scan.Target) (*call, error) {
	c := w.newCall()
	target := w.tool.target
	if target == nil {
		target = pathTarget
	}
	if err := target(ctx, c, t); err != nil {
		return nil, err
	}
	c.ignore = t.Ignore
	return c, nil
}

// Scan validates the target, then runs the tool once, or once per
// directory eachDirOf finds, and returns the findings of all runs.
func (w *cli) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	if len(t.SBOM) > 0 {
		return w.scanSBOM(ctx, t)
	}
	c, err := w.callOn(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := w.notReady(ctx); err != nil {
		return nil, err
	}
	if err := w.refuseLinksOut(ctx, c.root); err != nil {
		return nil, err
	}
	runs := []call{*c}
	if w.tool.eachDirOf != "" {
		runs = nil
		for _, f := range tree.FindFiles(c.root, skipForModules, w.tool.eachDirOf) {
			r := *c
			r.file, r.dir = f, filepath.Dir(f)
			runs = append(runs, r)
		}
	}
	var all []finding.Finding
	var skipped []scan.SkippedPart
	idle := 0
	for i := range runs {
		fs, err := w.runOnce(ctx, &runs[i])
		if err != nil {
			return nil, err
		}
		all = append(all, fs...)
		skipped = append(skipped, runs[i].skipped...)
		if runs[i].nothing {
			idle++
		}
	}
	if len(skipped) > 0 {
		return finish(w.cfg, w.tool.name, all), &scan.PartialSkip{Parts: skipped, NothingScanned: idle == len(runs)}
	}
	return finish(w.cfg, w.tool.name, all), nil
}

// refuseLinksOut fails a tool that follows symbolic links when the target
// holds one to a file outside it: the tool would read that file and scand
// would report its content as the target's.
func (w *cli) refuseLinksOut(ctx context.Context, root string) error {
	if root == "" || w.tool.noFollow {
		return nil
	}
	link, err := tree.LinkOut(ctx, root)
	if err != nil {
		return fmt.Errorf("%s: checking the target for symbolic links: %w", w.tool.name, err)
	}
	if link != "" {
		return fmt.Errorf("%s not run: it follows symbolic links and the target holds one to a file outside it (remove the link or scan where it points): %s", w.tool.name, link)
	}
	return nil
}

// skipForModules keeps module discovery out of the directories no project
// owns and out of testdata/, whose modules are fixtures, not the project.
func skipForModules(name string) bool { return tree.SkipDir(name) || name == "testdata" }

func (w *cli) runOnce(ctx context.Context, c *call) ([]finding.Finding, error) {
	t := &w.tool
	if t.reportFile != "" {
		dir, err := os.MkdirTemp("", "scand-"+t.name+"-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		c.outDir = dir
	}
	c.ctx = ctx
	args, err := t.args(c)
	if errors.Is(err, errNothingToScan) {
		c.nothing = true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := w.run(ctx, c.dir, args)
	if err != nil {
		return nil, err
	}
	return w.interpret(c, res)
}

// interpret turns one finished run into findings by the declaration's
// exit codes and parser.
func (w *cli) interpret(c *call, res proc.Result) ([]finding.Finding, error) {
	t := &w.tool
	if slices.Contains(t.exits.nothing, res.ExitCode) || t.exits.nothingWhen != nil && t.exits.nothingWhen(res) {
		return nil, nil
	}
	if !slices.Contains(t.exits.report, res.ExitCode) {
		return nil, crash(t.name, res)
	}
	report := res.Stdout
	if t.reportFile != "" {
		var err error
		if report, err = readReport(t.name, filepath.Join(c.outDir, t.reportFile)); err != nil {
			return nil, err
		}
	}
	fs, err := t.parse(c, report)
	if err != nil {
		if t.exits.unparsedIsCrash && res.ExitCode != 0 {
			return nil, crash(t.name, res)
		}
		return nil, err
	}
	return fs, nil
}

// run executes the tool through the one runner with the scan's timeout.
func (w *cli) run(ctx context.Context, dir string, args []string) (proc.Result, error) {
	r := w.runner()
	res, err := r.Run(ctx, proc.Cmd{Program: w.program(), Args: args, Dir: dir, Env: w.tool.env})
	if err != nil {
		return res, err
	}
	if r.MaxStdout > 0 && res.Truncated && len(res.Stdout) >= r.MaxStdout {
		return res, fmt.Errorf("%s wrote more than %d bytes of output; scan a smaller target", w.tool.name, r.MaxStdout)
	}
	return res, nil
}

// readReport reads the report a tool wrote to a file.
func readReport(tool, path string) ([]byte, error) {
	b, err := tree.ReadCapped(path, maxFileRead)
	switch {
	case errors.Is(err, tree.ErrTooLarge):
		return nil, fmt.Errorf("%s report is larger than %d bytes; scan a smaller target", tool, maxFileRead)
	case err != nil:
		return nil, fmt.Errorf("%s wrote no report: %w", tool, err)
	}
	return b, nil
}

// availCache remembers one scanner's availability for availTTL. The lock
// is held during the probe so concurrent callers share one probe instead
// of each spawning the tool.
type availCache struct {
	mu      sync.Mutex
	at      time.Time
	valid   bool
	version string
	hint    string
	ok      bool
}

func (c *availCache) get(ctx context.Context, now time.Time, probe func() (string, string, bool)) (string, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.valid && now.Sub(c.at) < availTTL && !now.Before(c.at) {
		return c.version, c.hint, c.ok
	}
	version, hint, ok := probe()
	// A probe cut short by its caller's cancellation says nothing about
	// the tool; the next caller probes again.
	if ctx.Err() == nil {
		c.version, c.hint, c.ok = version, hint, ok
		c.at, c.valid = now, true
	}
	return version, hint, ok
}

// toolError is a wrapped tool's crash. Its text is what scanner.failed
// shows, so it is the informative part of stderr, at most 200 characters.
type toolError struct {
	Tool     string
	ExitCode int
	Stderr   string
}

func (e *toolError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%s exited with status %d and printed nothing on stderr", e.Tool, e.ExitCode)
	}
	return e.Stderr
}

func crash(tool string, res proc.Result) error {
	head := stderrHead(res.Stderr)
	if head == "" {
		// A tool silent on stderr may have said why on stdout.
		head = stderrHead(res.Stdout)
	}
	return &toolError{Tool: tool, ExitCode: res.ExitCode, Stderr: head}
}

// stderrHead picks the first 200 characters of stderr, starting at the
// first line that reads like an error: several tools log progress on
// stderr before the line that says what went wrong.
func stderrHead(stderr []byte) string {
	text := strings.ToValidUTF8(string(stderr), "?")
	start := -1
	offset := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "error") || strings.Contains(l, "fatal") || strings.Contains(l, "panic") {
			start = offset
			break
		}
		offset += len(line)
	}
	if start > 0 {
		text = text[start:]
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > errHeadLen {
		r := []rune(text)
		text = string(r[:errHeadLen])
	}
	return text
}

// goToolEnv keeps Go-based analyzers (gosec, govulncheck) offline: the
// `go` command they run to load packages may not fetch a module or a
// toolchain, so a missing dependency is an error naming it, never a download.
func goToolEnv() []string {
	return []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off"}
}

// validateDir accepts an absolute, existing directory: every value that
// becomes an argument is checked first, so no target can be read by a tool
// as an option.
func validateDir(p string) error {
	if p == "" {
		return errors.New("target_path is empty")
	}
	if !filepath.IsAbs(p) {
		return fmt.Errorf("target_path %q is not absolute", p)
	}
	if strings.ContainsRune(p, 0) {
		return errors.New("target_path contains a NUL byte")
	}
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("target_path: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("target_path %q is not a directory", p)
	}
	return nil
}

// fileList names files in a skipped part's hint: the first five, then how
// many more.
func fileList(files []string) string {
	if len(files) > 5 {
		return strings.Join(files[:5], ", ") + fmt.Sprintf(", and %d more", len(files)-5)
	}
	return strings.Join(files, ", ")
}

// StartEarly implements scan.EarlyStarter for a tool that reads image
// archives (readsImage) and prints its report: the image preparer starts
// it on the archive as it begins unpacking, and the scan finds the run
// done or nearly so when the tool's turn comes.
func (w *cli) StartEarly(ctx context.Context, archive string) scan.Scanner {
	t := &w.tool
	if !t.readsImage || t.reportFile != "" || t.eachDirOf != "" {
		return nil
	}
	if _, _, ok := w.Available(ctx); !ok {
		return nil // the registry scanner reports the skip at its turn
	}
	c := w.newCall()
	c.image, c.ctx = archive, ctx
	args, err := t.args(c)
	if err != nil {
		return nil
	}
	e := &earlyRun{cli: w, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		e.res, e.err = w.run(ctx, "", args)
	}()
	return e
}

// earlyRun is a tool run StartEarly began; it is the tool in every other
// respect (availability, skip reason, data sources, files it reads).
type earlyRun struct {
	*cli
	done chan struct{}
	res  proc.Result
	err  error
}

// Scan waits for the run and reads its report against the unpacked root
// (t), as the tool's own Scan would have.
func (e *earlyRun) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil {
		return nil, e.err
	}
	c, err := e.callOn(ctx, t)
	if err != nil {
		return nil, err
	}
	fs, err := e.interpret(c, e.res)
	if err != nil {
		return nil, err
	}
	return finish(e.cfg, e.tool.name, fs), nil
}
