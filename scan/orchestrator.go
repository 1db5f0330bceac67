package scan

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"scand/finding"
	"scand/finding/report"
	"scand/scan/excerpt"
	"scand/scan/proc"
	"scand/scan/repoconfig"
	"scand/scan/tree"
	"scand/scan/vulndb"
	"scand/sse"
	"scand/store"
)

// Orchestrator runs scans in the background: at most MaxConcurrent at
// once, the rest waiting in arrival order. It is the only publisher of
// scan lifecycle events.
type Orchestrator struct {
	store    *store.Store
	bus      *sse.Bus
	scanners []Scanner
	log      *slog.Logger
	now      func() time.Time
	max      int
	capture  func(ctx context.Context, root string) ([]byte, error)
	roots    []string
	// maxDataAge is SVC_VULNDB_MAX_AGE_DAYS (dataage.go).
	maxDataAge time.Duration
	targets    TargetPreparer
	// scannerTimeout bounds each scanner's whole run (SVC_SCANNER_TIMEOUT):
	// a built-in's walk and the [ignore] matching of what it emits, not
	// only a wrapped tool's process.
	scannerTimeout time.Duration
	redact         excerpt.Redactor

	mu      sync.Mutex
	queue   []string
	running map[string]context.CancelFunc
	// streamOnly holds the scans whose events go to their stream only
	// (RunOptions.SBOM: a re-evaluation reports once per run).
	streamOnly map[string]bool
	wake       chan struct{}
	base       context.Context
	stopAll    context.CancelFunc
	wg         sync.WaitGroup
	started    bool
}

// OrchestratorOptions wires an Orchestrator.
type OrchestratorOptions struct {
	Store         *store.Store
	Bus           *sse.Bus
	Scanners      []Scanner
	Log           *slog.Logger
	Now           func() time.Time
	MaxConcurrent int
	// CaptureComponents records the target's components for the SBOM at
	// scan time; nil skips the capture.
	CaptureComponents func(ctx context.Context, root string) ([]byte, error)
	// ScanRoots (SVC_SCAN_ROOTS) are checked again when a scan starts:
	// the tree may have moved since the API accepted it.
	ScanRoots []string
	// MaxDataAge is the age past which offline advisory data makes a
	// scan's warning (SVC_VULNDB_MAX_AGE_DAYS); zero means DefaultMaxDataAge.
	MaxDataAge time.Duration
	// Targets prepares image and repository targets; nil refuses them.
	Targets TargetPreparer
	// ScannerTimeout bounds each scanner's run, built-ins included; zero
	// means no bound beyond the scan's own context.
	ScannerTimeout time.Duration
	// Redact marks the secrets in a file for the code excerpts kept
	// around findings (registry.Redactor); nil keeps no excerpt.
	Redact excerpt.Redactor
}

// interruptedReason is what a scan left running by a crash is failed with.
const interruptedReason = "interrupted by restart"

// NewOrchestrator builds an orchestrator; call Start to run queued scans.
func NewOrchestrator(o OrchestratorOptions) *Orchestrator {
	o.Log, o.Now = LoggerOrDiscard(o.Log), ClockOrWall(o.Now)
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 2
	}
	return &Orchestrator{store: o.Store, bus: o.Bus, scanners: o.Scanners, log: o.Log, now: o.Now, max: o.MaxConcurrent,
		capture: o.CaptureComponents, roots: o.ScanRoots, targets: o.Targets, running: map[string]context.CancelFunc{}, streamOnly: map[string]bool{}, wake: make(chan struct{}, 1), maxDataAge: o.MaxDataAge,
		scannerTimeout: o.ScannerTimeout, redact: o.Redact}
}

// Scanners returns the registry in run order.
func (o *Orchestrator) Scanners() []Scanner { return append([]Scanner(nil), o.scanners...) }

// Start recovers from a previous crash, queues pending scans again and
// starts the workers. Scans left running are failed: their partial work
// is gone and rerunning silently would hide the crash.
func (o *Orchestrator) Start(ctx context.Context) error {
	interrupted, err := o.store.FailInterruptedScans(ctx, interruptedReason)
	if err != nil {
		return fmt.Errorf("recover interrupted scans: %w", err)
	}
	for _, sc := range interrupted {
		o.log.Warn("scan interrupted by restart marked failed", "scan_id", sc.ID)
		o.publish(ctx, sc.ID, sse.ScanFailed, sse.ScanFailedData{ScanID: sc.ID, TargetPath: sc.TargetPath, Error: interruptedReason})
	}
	pending, err := o.store.ScansByStatus(ctx, store.StatusPending)
	if err != nil {
		return fmt.Errorf("list pending scans: %w", err)
	}
	o.mu.Lock()
	o.base, o.stopAll = context.WithCancel(context.WithoutCancel(ctx))
	o.started = true
	for _, sc := range pending {
		if sc.Source == store.SourceReevaluation {
			continue // scan/reevaluate runs its own scans (and resumes them)
		}
		o.queue = append(o.queue, sc.ID)
	}
	o.mu.Unlock()
	for i := 0; i < o.max; i++ {
		o.wg.Add(1)
		go o.worker()
	}
	o.signal()
	return nil
}

// Stop cancels running scans, which are marked failed, and waits (at most
// timeout) for the workers. Pending scans stay pending for the next start.
func (o *Orchestrator) Stop(timeout time.Duration) {
	o.mu.Lock()
	if !o.started {
		o.mu.Unlock()
		return
	}
	o.stopAll()
	o.mu.Unlock()
	done := make(chan struct{})
	go func() { o.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		o.log.Error("scan workers did not stop in time", "timeout", timeout.String())
	}
}

// Submit queues a pending scan.
func (o *Orchestrator) Submit(scanID string) {
	o.mu.Lock()
	o.queue = append(o.queue, scanID)
	o.mu.Unlock()
	o.signal()
}

func (o *Orchestrator) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// Cancel cancels a pending or running scan. It returns store.ErrConflict
// for a terminal scan and store.ErrNotFound for an unknown one.
func (o *Orchestrator) Cancel(ctx context.Context, scanID string) (store.Scan, error) {
	sc, err := o.store.CancelScan(ctx, scanID)
	if err != nil {
		return sc, err
	}
	o.mu.Lock()
	if cancel, ok := o.running[scanID]; ok {
		cancel()
	}
	for i, id := range o.queue {
		if id == scanID {
			o.queue = append(o.queue[:i], o.queue[i+1:]...)
			break
		}
	}
	o.mu.Unlock()
	o.publish(ctx, scanID, sse.ScanCancelled, sse.ScanCancelledData{ScanID: scanID, TargetPath: sc.TargetPath})
	return sc, nil
}

func (o *Orchestrator) worker() {
	defer o.wg.Done()
	for {
		o.mu.Lock()
		if o.base.Err() != nil {
			o.mu.Unlock()
			return
		}
		if len(o.queue) == 0 {
			o.mu.Unlock()
			select {
			case <-o.wake:
				continue
			case <-o.base.Done():
				return
			}
		}
		id := o.queue[0]
		o.queue = o.queue[1:]
		ctx, cancel := context.WithCancel(o.base)
		o.running[id] = cancel
		more := len(o.queue) > 0
		o.mu.Unlock()
		if more {
			o.signal() // let an idle sibling take the next one
		}
		o.runScan(ctx, id, RunOptions{})
		cancel()
		o.mu.Lock()
		delete(o.running, id)
		o.mu.Unlock()
	}
}

// Now is the orchestrator's clock; scan/importscan stamps the scans it
// stores with it too.
func (o *Orchestrator) Now() time.Time { return o.now() }

// Log is the orchestrator's logger; scan/importscan logs there too.
func (o *Orchestrator) Log() *slog.Logger { return o.log }

// AnnounceImported publishes scan.start and scan.complete for a scan
// scan/importscan stored as completed, so an import reaches webhooks,
// notifications and change alerts like a scan run here, and the
// orchestrator stays the one publisher of scan lifecycle events.
func (o *Orchestrator) AnnounceImported(ctx context.Context, done store.Scan, sum store.IngestSummary) {
	o.publish(ctx, done.ID, sse.ScanStart, sse.ScanStartData{ScanID: done.ID, ScanTypes: done.ScanTypes, TargetPath: done.TargetPath})
	a := sum.All
	var dur float64
	if done.CompletedAt != nil {
		dur = roundSeconds(done.CompletedAt.Sub(done.StartedAt))
	}
	o.publish(ctx, done.ID, sse.ScanComplete, sse.ScanCompleteData{ScanID: done.ID, TargetPath: done.TargetPath, FindingsCount: sum.Findings,
		RiskScore: sum.RiskScore, SeverityCounts: sse.SeverityCounts{Critical: a.Critical, High: a.High, Medium: a.Medium, Low: a.Low, Info: a.Info},
		DurationS: dur, Partial: done.Coverage != nil && done.Coverage.Partial, PartialReasons: partialReasons(done.Coverage), Coverage: done.Coverage})
}

// Running reports how many scans are executing now.
func (o *Orchestrator) Running() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.running)
}

// RunOptions adjust one run of a scan; the zero value is the daemon's.
type RunOptions struct {
	// Config is the repository configuration to apply when ConfigGiven;
	// otherwise the scan reads .scand.toml at the root of its tree or
	// clone, if there is one.
	Config      *repoconfig.Config
	ConfigGiven bool
	// Scanners, when not nil, names the only scanners that run.
	Scanners []string
	// SkipIdle skips, without probing it, a scanner that reads only some
	// files (Selective) when the tree holds none of them, unless Required
	// names it: a command line's scan of a small tree is then not spent
	// starting tools that have nothing to read.
	SkipIdle bool
	Required []string
	// Worktree: the target is a git worktree scand made (Target.Worktree).
	Worktree bool
	// DefaultTypes: the command line's scan types are its built-in
	// default, not asked for (stored on the scan it creates; see
	// store.Scan.DefaultTypes).
	DefaultTypes bool
	// SBOM, when set, runs the scan on stored components instead of a
	// tree (scan/reevaluate): only the scanners that read SBOMs run, the
	// findings and coverage it carries are added as they are, and the
	// scan's events go to its stream only.
	SBOM *SBOMRun
}

// SBOMRun is a scan of stored components (RunOptions.SBOM).
type SBOMRun struct {
	// Dir holds Files, the CycloneDX documents to match.
	Dir   string
	Files []SBOMFile
	// Carry adds the findings kept from the scan the components came
	// from (those of the scanners not run again), already prepared.
	Carry func(ctx context.Context, add func(finding.Finding) error) error
	// Coverage is those scanners' entries, kept as they were.
	Coverage []finding.ScannerCoverage
}

// SkipNothingToScan is the skip reason of a scanner SkipIdle left out.
const SkipNothingToScan = report.SkippedIdle

// RunNow runs a pending scan to its end on the caller's goroutine, exactly
// as a worker runs it: the command line's entry to the engine. The
// outcome is the scan's stored status.
func (o *Orchestrator) RunNow(ctx context.Context, scanID string, opts RunOptions) {
	// Registered like a worker's scan, so Cancel stops it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o.mu.Lock()
	o.running[scanID] = cancel
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		delete(o.running, scanID)
		o.mu.Unlock()
	}()
	o.runScan(ctx, scanID, opts)
}

// runScan executes one scan. Anything that goes wrong outside a scanner
// (a panic included) fails the scan with scan.failed; a scanner's own
// error only fails that scanner.
func (o *Orchestrator) runScan(ctx context.Context, id string, opts RunOptions) {
	// Bookkeeping writes must land even when ctx was cancelled by Stop.
	bg := context.WithoutCancel(ctx)
	if err := o.store.MarkScanRunning(bg, id); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			o.log.Error("cannot start scan", "scan_id", id, "error", err.Error())
		}
		return
	}
	sc, err := o.store.ScanByID(bg, id)
	if err != nil {
		o.log.Error("cannot load scan", "scan_id", id, "error", err.Error())
		o.fail(bg, id, "", nil, nil, fmt.Errorf("load scan: %w", err))
		return
	}
	// Registered first so it runs last, after a panic has failed the scan.
	start := o.now()
	o.logStart(sc)
	defer o.logEnd(bg, id, start)
	var run []string
	var skipped []store.SkippedScanner
	defer func() {
		if r := recover(); r != nil {
			o.log.Error("orchestrator panic", "scan_id", id, "panic", r, "stack", string(debug.Stack()))
			o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("internal error: %v", r))
		}
	}()
	if opts.SBOM != nil {
		o.mu.Lock()
		o.streamOnly[id] = true
		o.mu.Unlock()
		defer func() {
			o.mu.Lock()
			delete(o.streamOnly, id)
			o.mu.Unlock()
		}()
	}
	o.publish(bg, id, sse.ScanStart, sse.ScanStartData{ScanID: id, ScanTypes: sc.ScanTypes, TargetPath: sc.TargetPath})
	target := Target{ScanID: id, Path: sc.TargetPath}
	if sc.TargetURL != nil {
		target.URL = *sc.TargetURL
	}
	if sc.TargetHost != nil {
		target.Host = *sc.TargetHost
	}
	// An image or repository becomes a directory first (prepare.go);
	// deferred after recover's defer, so it runs first on a panic too.
	var prep *Prepared
	if opts.SBOM == nil {
		prep, err = o.prepareTarget(ctx, id, sc.ScanTypes, &target)
	} else {
		target.Path, target.SBOM = opts.SBOM.Dir, opts.SBOM.Files
	}
	defer prep.Close()
	if err != nil {
		if ctx.Err() != nil {
			o.interrupted(bg, id, sc.TargetPath, run, skipped)
			return
		}
		o.fail(bg, id, sc.TargetPath, run, skipped, err)
		return
	}

	readsTree := ReadsTree(sc.ScanTypes) && opts.SBOM == nil
	if readsTree && prep == nil {
		// A tree is confined again now; a prepared image or clone lives in
		// scand's own work directory and its preparer checked its source.
		real, err := o.confine(id, sc.TargetPath)
		if err != nil {
			o.fail(bg, id, sc.TargetPath, run, skipped, err)
			return
		}
		target.Path = real
	}
	if o.capture != nil && readsTree && target.Path != "/" {
		if comps, err := o.capture(ctx, target.Path); err != nil {
			o.log.Warn("component capture failed; the SBOM of this scan will be empty", "scan_id", id, "error", err.Error())
		} else if err := o.store.SetScanComponents(bg, id, comps); err != nil {
			o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("store components: %w", err))
			return
		}
	}

	// The repository's own configuration applies from here on: a bad
	// file fails the scan, naming its line, before any scanner runs.
	cfg, err := o.repoConfig(target.Path, readsTree && (prep == nil || prep.Image == ""), opts)
	if err != nil {
		o.fail(bg, id, sc.TargetPath, run, skipped, err)
		return
	}
	if ps := cfg.Paths(); ps != nil {
		target.Ignore = ps
		// What the tree's configuration kept out of the scan is on the
		// record, like a scanner's skipped parts: a reader of the scan sees
		// what was not looked at.
		entry := store.SkippedScanner{Name: cfg.File + " [ignore] paths", Reason: truncate(strings.Join(ps.Patterns(), ", "), 400) + " (not scanned, findings there not reported)"}
		skipped = append(skipped, entry)
		o.publish(bg, id, sse.ScannerSkipped, sse.ScannerSkippedData{ScanID: id, Name: entry.Name, Reason: entry.Reason})
	}
	target.Worktree = opts.Worktree
	// An unpacked image is a whole operating system, not a project: a
	// Python or JavaScript analyzer with nothing of its language to read
	// there is left out (skipped, "nothing to scan") by the daemon too,
	// instead of costing a tool start per scan.
	unpackedImage := prep != nil && prep.Image != ""
	skipIdle := readsTree && (unpackedImage || opts.SkipIdle)
	scanners, skips, cov := o.selectScanners(ctx, id, ExpandScanTypes(prep.scanners(o.scanners), sc.ScanTypes), target, cfg, opts, skipIdle)
	skipped = append(skipped, skips...)
	// Probes start tools; asked for together they cost the slowest one.
	ProbeAll(ctx, o.log, scanners)

	var dataSources []vulndb.Info // offline advisory data the scanners that ran read
	// Findings stream into the store as scanners report them; nothing
	// holds a whole scan in memory (see store.Ingest).
	in, err := o.store.BeginIngest(bg, id)
	if err != nil {
		o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("start storing findings: %w", err))
		return
	}
	defer in.Close()
	src := prep.lineSource(tree.LineSource(target.Path))
	if opts.SBOM != nil {
		src = nil // no tree: the documents are not the lockfiles findings name
		if opts.SBOM.Carry != nil {
			if err := opts.SBOM.Carry(ctx, in.Add); err != nil {
				o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("carry findings: %w", err))
				return
			}
		}
		cov = append(cov, opts.SBOM.Coverage...)
	}
	var moves *moveTracker
	if readsTree {
		var git *gitMoves
		if prep == nil {
			// A directory that is a git work tree: its HEAD is recorded,
			// so the next scan asks git what moved since.
			if commit := gitHead(ctx, target.Path); commit != "" {
				if err := o.store.SetScanCommit(bg, id, commit); err != nil {
					o.log.Warn("scanned commit not recorded", "scan_id", id, "error", err.Error())
				}
				git = &gitMoves{root: target.Path}
			}
		}
		if moves, err = newMoveTracker(ctx, o.store, id, target.Path, git); err != nil {
			o.log.Warn("moved findings not looked for", "scan_id", id, "error", err.Error())
			moves = nil
		}
	}
	var excerpts *excerptSink
	if readsTree {
		excerpts = o.newExcerptSink(ctx, id, target.Path, prep)
		defer excerpts.close(bg)
	}
	for _, s := range scanners {
		if ctx.Err() != nil {
			break
		}
		ran, sc1, skips, err := o.runScanner(ctx, id, s, target, in, src, cfg, moves, excerpts)
		if err != nil {
			o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("store findings: %w", err))
			return
		}
		if ctx.Err() != nil {
			break
		}
		skipped = append(skipped, skips...)
		cov = append(cov, sc1)
		if ran {
			run = append(run, s.Name())
			dataSources = append(dataSources, dataSourcesOf(ctx, s)...)
		}
	}
	if ctx.Err() != nil {
		o.interrupted(bg, id, sc.TargetPath, run, skipped)
		return
	}

	staleNames, staleWarnings := o.recordDataAge(bg, id, dataSources)
	// Storing is part of the scan: completed_at (and so duration_s) is
	// stamped when the last chunk is written.
	coverage := settleCoverage(ExpandScanTypes(prep.scanners(o.scanners), sc.ScanTypes), cov, sc.ScanTypes, !sc.DefaultTypes)
	// Verdicts follow moved findings in the transaction that completes
	// the scan, so its first reader already sees them.
	sum, err := in.Finish(ctx, store.IngestMeta{ScannersRun: run, Skipped: skipped, Links: moves.links(), Coverage: coverage,
		BeforeComplete: excerpts.flush(bg)})
	if errors.Is(err, store.ErrConflict) {
		return // cancelled while storing; Cancel published the event
	}
	if ctx.Err() != nil {
		o.interrupted(bg, id, sc.TargetPath, run, skipped)
		return
	}
	if err != nil {
		o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("store findings: %w", err))
		return
	}
	if sum.MovedVerdicts > 0 {
		o.log.Info("verdicts followed moved findings", "scan_id", id, "count", sum.MovedVerdicts)
	}
	a := sum.All
	o.publish(bg, id, sse.ScanComplete, sse.ScanCompleteData{ScanID: id, TargetPath: sc.TargetPath, FindingsCount: sum.Findings,
		RiskScore: sum.RiskScore, SeverityCounts: sse.SeverityCounts{Critical: a.Critical, High: a.High, Medium: a.Medium, Low: a.Low, Info: a.Info},
		DurationS: roundSeconds(o.now().Sub(start)), Partial: coverage.Partial, PartialReasons: partialReasons(coverage), Coverage: coverage})
	o.warnStaleData(bg, id, sc.TargetPath, staleNames, staleWarnings)
}

// interrupted handles a scan whose context ended: either Cancel already
// moved it to cancelled (nothing to do) or the daemon is stopping.
func (o *Orchestrator) interrupted(ctx context.Context, id, targetPath string, run []string, skipped []store.SkippedScanner) {
	err := o.store.FinishScan(ctx, id, store.StatusFailed, "interrupted by shutdown", run, skipped)
	if err == nil {
		o.publish(ctx, id, sse.ScanFailed, sse.ScanFailedData{ScanID: id, TargetPath: targetPath, Error: "interrupted by shutdown"})
	} else if !errors.Is(err, store.ErrConflict) {
		o.log.Error("cannot record interrupted scan", "scan_id", id, "error", err.Error())
	}
}

// fail records a failed scan; the scan's end line (logEnd) carries the
// cause into the log.
func (o *Orchestrator) fail(ctx context.Context, id, targetPath string, run []string, skipped []store.SkippedScanner, cause error) {
	if err := o.store.FinishScan(ctx, id, store.StatusFailed, truncate(cause.Error(), 1000), run, skipped); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			o.log.Error("cannot record failed scan", "scan_id", id, "error", err.Error())
		}
		return
	}
	o.publish(ctx, id, sse.ScanFailed, sse.ScanFailedData{ScanID: id, TargetPath: targetPath, Error: truncate(cause.Error(), 200)})
}

// runScanner runs one scanner, streaming its findings (prepared one by
// one) into the ingest, and reports whether it ran and the skipped
// entries: the scanner when it did not run (not installed, database not
// configured) or failed, the parts of the target it left out when it ran
// on the rest (PartialSkip). A failed scanner's findings are taken back
// out. err is a storage failure, which fails the scan.
func (o *Orchestrator) runScanner(ctx context.Context, scanID string, s Scanner, t Target, in *store.Ingest, src finding.LineSource,
	cfg *repoconfig.Config, moves *moveTracker, excerpts *excerptSink) (ran bool, cov finding.ScannerCoverage, skips []store.SkippedScanner, err error) {
	bg := context.WithoutCancel(ctx)
	name := s.Name()
	version, hint, ok := s.Available(ctx)
	if !ok {
		entry := store.SkippedScanner{Name: name, Reason: SkipReasonOf(ctx, s), InstallHint: hint}
		o.publish(bg, scanID, sse.ScannerSkipped, sse.ScannerSkippedData{ScanID: scanID, Name: name, Reason: entry.Reason, InstallHint: hint})
		return false, scannerCoverage(s, finding.CoverageNotInstalled, entry.Reason, hint), []store.SkippedScanner{entry}, nil
	}
	o.publish(bg, scanID, sse.ScannerStart, sse.ScannerStartData{ScanID: scanID, Name: name})
	start := o.now()
	mark, err := in.Mark()
	if err != nil {
		return false, cov, nil, err
	}
	scanCtx := ctx
	if o.scannerTimeout > 0 {
		var cancel context.CancelFunc
		scanCtx, cancel = context.WithTimeoutCause(ctx, o.scannerTimeout, errScannerTimedOut)
		defer cancel()
	}
	var count atomic.Int64
	var storeErr atomic.Pointer[error]
	// emit runs scand's own code (PrepareOne, the line source, the ingest)
	// on the scanner's goroutines: a panic there is an internal error that
	// fails the scan, not the scanner's, and must not kill the daemon from
	// a worker goroutine no recover covers.
	emit := func(f finding.Finding) (err error) {
		defer func() {
			if r := recover(); r != nil {
				o.log.Error("panic while storing a finding", "scan_id", scanID, "scanner", name, "panic", r, "stack", string(debug.Stack()))
				err = fmt.Errorf("internal error: %v", r)
				storeErr.CompareAndSwap(nil, &err)
			}
		}()
		if err := scanCtx.Err(); err != nil {
			// Past the timeout (or cancelled): a scanner that ignores its
			// context still stops at its next finding.
			return context.Cause(scanCtx)
		}
		if f.Scanner == "" {
			f.Scanner = name
		}
		if f.ScanType == "" {
			f.ScanType = s.Type()
		}
		pf, lineContext := finding.PrepareOneWithContext(scanID, f, src)
		if cfg != nil {
			// Whatever a scanner read, nothing under [ignore] paths is
			// reported; [ignore] rules and [severity] mark what is kept.
			if cfg.PathIgnored(pf.FilePath) {
				return nil
			}
			cfg.Apply(&pf)
		}
		if err := in.Add(pf); err != nil {
			storeErr.CompareAndSwap(nil, &err)
			return err
		}
		moves.observe(pf, lineContext)
		excerpts.observe(bg, pf)
		count.Add(1)
		return nil
	}
	err = safeScan(scanCtx, s, t, emit)
	if ctx.Err() == nil && errors.Is(context.Cause(scanCtx), errScannerTimedOut) {
		err = fmt.Errorf("%w after %s (SVC_SCANNER_TIMEOUT)", proc.ErrTimeout, o.scannerTimeout)
	}
	if p := storeErr.Load(); p != nil {
		return false, cov, nil, *p
	}
	if ctx.Err() != nil {
		return false, cov, nil, nil
	}
	var partialSkip *PartialSkip
	if err != nil && !errors.As(err, &partialSkip) {
		if rerr := in.Rollback(mark); rerr != nil {
			return false, cov, nil, rerr
		}
	}
	if errors.Is(err, proc.ErrNotInstalled) || errors.Is(err, ErrDatabaseNotConfigured) {
		// The tool or its offline database went missing after the
		// availability probe: that is a skip with a hint, not a crash.
		hint := truncate(err.Error(), 500)
		reason := SkipNotInstalled
		if errors.Is(err, ErrDatabaseNotConfigured) {
			reason = SkipDatabaseNotConfigured
		}
		entry := store.SkippedScanner{Name: name, Reason: reason, InstallHint: hint}
		o.publish(bg, scanID, sse.ScannerSkipped, sse.ScannerSkippedData{ScanID: scanID, Name: name, Reason: entry.Reason, InstallHint: hint})
		return false, scannerCoverage(s, finding.CoverageNotInstalled, reason, hint), []store.SkippedScanner{entry}, nil
	}
	cov = scannerCoverage(s, finding.CoverageRan, "", "")
	var partial *PartialSkip
	if errors.As(err, &partial) {
		cov = partialCoverage(s, partial)
		for _, p := range partial.Parts {
			entry := store.SkippedScanner{Name: name + " (" + p.Part + ")", Reason: p.Reason, InstallHint: truncate(p.Hint, 500)}
			skips = append(skips, entry)
			o.publish(bg, scanID, sse.ScannerSkipped, sse.ScannerSkippedData{ScanID: scanID, Name: entry.Name, Reason: entry.Reason, InstallHint: entry.InstallHint})
		}
		err = nil
	}
	if err != nil {
		msg := truncate(err.Error(), 200)
		o.log.Warn("scanner failed", "scan_id", scanID, "scanner", name, "error", msg)
		o.publish(bg, scanID, sse.ScannerFailed, sse.ScannerFailedData{ScanID: scanID, Name: name, Error: msg})
		failed := scannerCoverage(s, finding.CoverageFailed, msg, "")
		failed.Version = version
		return false, failed, []store.SkippedScanner{{Name: name, Reason: "failed: " + msg}}, nil
	}
	cov.Version = version
	o.publish(bg, scanID, sse.ScannerComplete, sse.ScannerCompleteData{ScanID: scanID, Name: name, DurationS: roundSeconds(o.now().Sub(start)), FindingsCount: int(count.Load())})
	// A scanner that left out everything it could read examined nothing:
	// no SARIF run may stand for it (an empty run closes a tool's alerts).
	return cov.Status != finding.CoverageNotInstalled, cov, skips, nil
}

// errScannerTimedOut is the cause of a scanner's context past its timeout.
var errScannerTimedOut = errors.New("scanner timed out")

// safeScan runs a scanner, streaming when it can, and turns a panic into
// that scanner's error.
func safeScan(ctx context.Context, s Scanner, t Target, emit func(finding.Finding) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("scanner panicked: %v", r)
		}
	}()
	if ss, ok := s.(StreamScanner); ok {
		return ss.ScanStream(ctx, t, emit)
	}
	fs, err := s.Scan(ctx, t)
	return emitEach(fs, err, emit)
}

// emitEach sends a slice-based scanner's findings one by one, as a
// streaming scanner would have, and returns the scanner's error. A
// PartialSkip keeps the findings of the parts that ran; any other error
// discards them.
func emitEach(fs []finding.Finding, err error, emit func(finding.Finding) error) error {
	var partial *PartialSkip
	if err != nil && !errors.As(err, &partial) {
		return err
	}
	for _, f := range fs {
		if err := emit(f); err != nil {
			return err
		}
	}
	return err
}

func (o *Orchestrator) publish(ctx context.Context, scanID, name string, data any) {
	o.mu.Lock()
	quiet := o.streamOnly[scanID]
	o.mu.Unlock()
	o.bus.Publish(ctx, sse.Event{Scan: scanID, Name: name, Data: data, At: o.now(), StreamOnly: quiet})
}

// ExpandScanTypes returns the scanners of the requested types in registry
// order (not request order), each once.
func ExpandScanTypes(registry []Scanner, types []string) []Scanner {
	want := map[string]bool{}
	for _, t := range types {
		want[t] = true
	}
	var out []Scanner
	for _, s := range registry {
		if want[s.Type()] {
			out = append(out, s)
		}
	}
	return out
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Milliseconds()) / 1000
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
