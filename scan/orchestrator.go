package scan

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"scand/finding"
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
	targets  TargetPreparer

	mu      sync.Mutex
	queue   []string
	running map[string]context.CancelFunc
	wake    chan struct{}
	base    context.Context
	stopAll context.CancelFunc
	wg      sync.WaitGroup
	started bool
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
	// Targets prepares image and repository targets; nil refuses them.
	Targets TargetPreparer
}

// interruptedReason is what a scan left running by a crash is failed with.
const interruptedReason = "interrupted by restart"

// NewOrchestrator builds an orchestrator; call Start to run queued scans.
func NewOrchestrator(o OrchestratorOptions) *Orchestrator {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 2
	}
	return &Orchestrator{store: o.Store, bus: o.Bus, scanners: o.Scanners, log: o.Log, now: o.Now, max: o.MaxConcurrent,
		capture: o.CaptureComponents, targets: o.Targets, running: map[string]context.CancelFunc{}, wake: make(chan struct{}, 1)}
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
		o.runScan(ctx, id)
		cancel()
		o.mu.Lock()
		delete(o.running, id)
		o.mu.Unlock()
	}
}

// Running reports how many scans are executing now.
func (o *Orchestrator) Running() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.running)
}

// runScan executes one scan. Anything that goes wrong outside a scanner
// (a panic included) fails the scan with scan.failed; a scanner's own
// error only fails that scanner.
func (o *Orchestrator) runScan(ctx context.Context, id string) {
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
		o.fail(bg, id, "", nil, nil, fmt.Errorf("load scan: %w", err))
		return
	}
	var run []string
	var skipped []store.SkippedScanner
	defer func() {
		if r := recover(); r != nil {
			o.log.Error("orchestrator panic", "scan_id", id, "panic", r, "stack", string(debug.Stack()))
			o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("internal error: %v", r))
		}
	}()
	start := o.now()
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
	prep, err := o.prepareTarget(ctx, id, sc.ScanTypes, &target)
	defer prep.Close()
	if err != nil {
		if ctx.Err() != nil {
			o.interrupted(bg, id, sc.TargetPath, run, skipped)
			return
		}
		o.fail(bg, id, sc.TargetPath, run, skipped, err)
		return
	}

	if o.capture != nil && target.Path != "/" {
		if comps, err := o.capture(ctx, target.Path); err != nil {
			o.log.Warn("component capture failed; the SBOM of this scan will be empty", "scan_id", id, "error", err.Error())
		} else if err := o.store.SetScanComponents(bg, id, comps); err != nil {
			o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("store components: %w", err))
			return
		}
	}

	var raw []finding.Finding
	for _, s := range ExpandScanTypes(prep.scanners(o.scanners), sc.ScanTypes) {
		if ctx.Err() != nil {
			break
		}
		fs, ran, skip := o.runScanner(ctx, id, s, target)
		if ctx.Err() != nil {
			break
		}
		if skip != nil {
			skipped = append(skipped, *skip)
		}
		if ran {
			run = append(run, s.Name())
			raw = append(raw, fs...)
		}
	}
	if ctx.Err() != nil {
		o.interrupted(bg, id, sc.TargetPath, run, skipped)
		return
	}

	prepared := finding.Prepare(id, raw, prep.lineSource(newLineSource(target.Path)), store.NewID)
	counts := severityCounts(prepared)
	risk := finding.RiskScore(prepared)
	err = o.store.CompleteScan(bg, id, store.ScanResult{Findings: prepared, ScannersRun: run, Skipped: skipped, RiskScore: risk,
		SeverityCounts: map[string]int{"critical": counts.Critical, "high": counts.High, "medium": counts.Medium, "low": counts.Low, "info": counts.Info}})
	if errors.Is(err, store.ErrConflict) {
		return // cancelled while finishing; Cancel published the event
	}
	if err != nil {
		o.fail(bg, id, sc.TargetPath, run, skipped, fmt.Errorf("store findings: %w", err))
		return
	}
	o.publish(bg, id, sse.ScanComplete, sse.ScanCompleteData{ScanID: id, TargetPath: sc.TargetPath, FindingsCount: len(prepared),
		RiskScore: risk, SeverityCounts: counts, DurationS: roundSeconds(o.now().Sub(start))})
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

func (o *Orchestrator) fail(ctx context.Context, id, targetPath string, run []string, skipped []store.SkippedScanner, cause error) {
	o.log.Error("scan failed", "scan_id", id, "error", cause.Error())
	if err := o.store.FinishScan(ctx, id, store.StatusFailed, truncate(cause.Error(), 1000), run, skipped); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			o.log.Error("cannot record failed scan", "scan_id", id, "error", err.Error())
		}
		return
	}
	o.publish(ctx, id, sse.ScanFailed, sse.ScanFailedData{ScanID: id, TargetPath: targetPath, Error: truncate(cause.Error(), 200)})
}

// runScanner runs one scanner and reports its findings, whether it ran,
// and the skipped entry when it did not run (not installed) or failed.
func (o *Orchestrator) runScanner(ctx context.Context, scanID string, s Scanner, t Target) (fs []finding.Finding, ran bool, skip *store.SkippedScanner) {
	bg := context.WithoutCancel(ctx)
	name := s.Name()
	if _, hint, ok := s.Available(ctx); !ok {
		entry := store.SkippedScanner{Name: name, Reason: "not installed", InstallHint: hint}
		o.publish(bg, scanID, sse.ScannerSkipped, sse.ScannerSkippedData{ScanID: scanID, Name: name, Reason: entry.Reason, InstallHint: hint})
		return nil, false, &entry
	}
	o.publish(bg, scanID, sse.ScannerStart, sse.ScannerStartData{ScanID: scanID, Name: name})
	start := o.now()
	fs, err := safeScan(ctx, s, t)
	if ctx.Err() != nil {
		return nil, false, nil
	}
	if errors.Is(err, ErrNotInstalled) {
		// The tool or its offline database went missing after the
		// availability probe: that is a skip with a hint, not a crash.
		hint := truncate(err.Error(), 500)
		entry := store.SkippedScanner{Name: name, Reason: "not installed", InstallHint: hint}
		o.publish(bg, scanID, sse.ScannerSkipped, sse.ScannerSkippedData{ScanID: scanID, Name: name, Reason: entry.Reason, InstallHint: hint})
		return nil, false, &entry
	}
	if err != nil {
		msg := truncate(err.Error(), 200)
		o.log.Warn("scanner failed", "scan_id", scanID, "scanner", name, "error", msg)
		o.publish(bg, scanID, sse.ScannerFailed, sse.ScannerFailedData{ScanID: scanID, Name: name, Error: msg})
		return nil, false, &store.SkippedScanner{Name: name, Reason: "failed: " + msg}
	}
	for i := range fs {
		if fs[i].Scanner == "" {
			fs[i].Scanner = name
		}
		if fs[i].ScanType == "" {
			fs[i].ScanType = s.Type()
		}
	}
	o.publish(bg, scanID, sse.ScannerComplete, sse.ScannerCompleteData{ScanID: scanID, Name: name, DurationS: roundSeconds(o.now().Sub(start)), FindingsCount: len(fs)})
	return fs, true, nil
}

// safeScan turns a scanner panic into that scanner's error.
func safeScan(ctx context.Context, s Scanner, t Target) (fs []finding.Finding, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("scanner panicked: %v", r)
		}
	}()
	return s.Scan(ctx, t)
}

func (o *Orchestrator) publish(ctx context.Context, scanID, name string, data any) {
	o.bus.Publish(ctx, sse.Event{Scan: scanID, Name: name, Data: data, At: o.now()})
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

func severityCounts(fs []finding.Finding) sse.SeverityCounts {
	var c sse.SeverityCounts
	for _, f := range fs {
		switch f.Severity {
		case finding.Critical:
			c.Critical++
		case finding.High:
			c.High++
		case finding.Medium:
			c.Medium++
		case finding.Low:
			c.Low++
		default:
			c.Info++
		}
	}
	return c
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

// maxSourceFileBytes bounds what the line source reads per file.
const maxSourceFileBytes = 4 << 20

// newLineSource reads finding lines from the target for fingerprints and
// inline suppressions. It only opens regular files inside root.
func newLineSource(root string) finding.LineSource {
	cache := map[string][]string{}
	return func(rel string, line int) (string, string, bool) {
		if line <= 0 || rel == "" || strings.Contains(rel, "://") {
			return "", "", false
		}
		clean := path.Clean("/" + rel)[1:]
		if clean == "" || clean != strings.TrimPrefix(rel, "./") {
			return "", "", false
		}
		lines, ok := cache[clean]
		if !ok {
			lines = readLines(filepath.Join(root, filepath.FromSlash(clean)))
			cache[clean] = lines
		}
		if line > len(lines) {
			return "", "", false
		}
		prev := ""
		if line > 1 {
			prev = lines[line-2]
		}
		return lines[line-1], prev, true
	}
}

func readLines(p string) []string {
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxSourceFileBytes {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxSourceFileBytes)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
