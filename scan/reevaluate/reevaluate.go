// Package reevaluate matches the stored components of each target's
// latest completed scan against the advisory data imported now (issue
// 27), so new advisories reach last week's scans without rescanning their
// trees, which may be gone.
//
// A run takes its targets one at a time. For each, it writes the
// components of the target's latest completed scan as CycloneDX documents
// (one per manifest or lockfile) and has the orchestrator run, on them,
// the wrapped tools that read an SBOM offline (osv-scanner, trivy: see
// scan.SBOMReader), with the scanner timeout, into a new scan of the
// target: source "reevaluation", based_on_scan naming the scan read. The
// findings of every other scanner of that scan are carried into the new
// one unchanged, so the target's latest scan stays its whole picture.
// Verdicts follow by fingerprint, as for any scan; coverage says what
// each tool did. The advisories the new scan has and the previous one did
// not are the run's new matches: after the last target, one
// advisory.new_matches event lists them all (none when there are none).
//
// Runs come from POST /api/v1/reevaluations, from an import through the
// API, and from the engine noticing that the imported data changed
// (`scand vulndb import` on the command line, even while the daemon was
// down). A run can be cancelled; a daemon that stops leaves it running
// and resumes it at the next start with the targets not yet done.
package reevaluate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/sse"
	"scand/store"
)

// DefaultPollInterval is how often the imported data is checked for an
// import made outside the daemon.
const DefaultPollInterval = 30 * time.Second

// interruptedReason fails a scan a stopped daemon left pending.
const interruptedReason = "interrupted by restart"

// Options wire an Engine.
type Options struct {
	Store        *store.Store
	Orchestrator *scan.Orchestrator
	Bus          *sse.Bus
	Log          *slog.Logger
	Now          func() time.Time
	// WorkDir is where the documents of one target are written (a fresh
	// folder per target, removed after it); "" is the system's.
	WorkDir string
	// DataState identifies the imported advisory data now
	// (vulndb.ImportState); nil never notices imports by itself.
	DataState func() string
	// PollInterval is how often DataState is read; zero means
	// DefaultPollInterval, negative never.
	PollInterval time.Duration
}

// Engine runs re-evaluations, one at a time, in arrival order.
type Engine struct {
	o       Options
	mu      sync.Mutex
	queue   []string
	current string
	cancel  context.CancelFunc
	// scanID is the scan the current run's target is being matched in.
	scanID string
	// lastState is the imported data the engine last acted on.
	lastState string
	wake      chan struct{}
	base      context.Context
	stop      context.CancelFunc
	wg        sync.WaitGroup
}

// New builds an engine; Start runs it.
func New(o Options) *Engine {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PollInterval == 0 {
		o.PollInterval = DefaultPollInterval
	}
	return &Engine{o: o, wake: make(chan struct{}, 1)}
}

// Start recovers what a stopped daemon left (scans of a run that never
// started are failed; unfinished runs are queued again and resume with
// their targets not yet done), notices an import made while the daemon was
// down, and starts the worker. Call it after the orchestrator's Start,
// which fails the scans a crash left running.
func (e *Engine) Start(ctx context.Context) error {
	st := e.o.Store
	pending, err := st.ScansByStatus(ctx, store.StatusPending)
	if err != nil {
		return err
	}
	for _, sc := range pending {
		if sc.Source == store.SourceReevaluation {
			if err := st.FinishScan(ctx, sc.ID, store.StatusFailed, interruptedReason, nil, nil); err != nil && !errors.Is(err, store.ErrConflict) {
				return err
			}
		}
	}
	runs, err := st.UnfinishedReevaluations(ctx)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.base, e.stop = context.WithCancel(context.WithoutCancel(ctx))
	for _, r := range runs {
		e.o.Log.Info("re-evaluation resumed after restart", "reevaluation_id", r.ID)
		e.queue = append(e.queue, r.ID)
	}
	e.mu.Unlock()
	if e.o.DataState != nil {
		last, ok, err := st.LastImportDataState(ctx)
		if err != nil {
			return err
		}
		cur := e.o.DataState()
		e.mu.Lock()
		e.lastState = cur
		e.mu.Unlock()
		if ok && cur != "" && cur != last {
			// Imported on the command line while the daemon was down.
			if _, err := e.submit(ctx, store.ReevalTriggerImport, "vulndb import", nil, cur); err != nil {
				return err
			}
		}
	}
	e.wg.Add(1)
	go e.worker()
	if e.o.DataState != nil && e.o.PollInterval > 0 {
		e.wg.Add(1)
		go e.watch()
	}
	e.signal()
	return nil
}

// Stop ends the worker and the watcher, waiting at most timeout. A run
// in progress stays running in the store and resumes at the next Start.
func (e *Engine) Stop(timeout time.Duration) {
	e.mu.Lock()
	if e.stop == nil {
		e.mu.Unlock()
		return
	}
	e.stop()
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		e.o.Log.Error("re-evaluation did not stop in time", "timeout", timeout.String())
	}
}

func (e *Engine) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Submit stores and queues a run over the targets named (every target
// with a completed scan when none is). An unknown target is a
// *store.UnknownTargetsError.
func (e *Engine) Submit(ctx context.Context, trigger, createdBy string, targets []int64) (store.Reevaluation, error) {
	state := ""
	if e.o.DataState != nil {
		state = e.o.DataState()
	}
	return e.submit(ctx, trigger, createdBy, targets, state)
}

func (e *Engine) submit(ctx context.Context, trigger, createdBy string, targets []int64, state string) (store.Reevaluation, error) {
	r, err := e.o.Store.CreateReevaluation(ctx, store.Reevaluation{Trigger: trigger, CreatedBy: createdBy, DataState: state}, targets)
	if err != nil {
		return r, err
	}
	e.mu.Lock()
	e.queue = append(e.queue, r.ID)
	e.mu.Unlock()
	e.signal()
	return r, nil
}

// AfterImport starts the run an import calls for, unless the engine has
// already acted on this data (the watcher saw it first): one run per
// import. ok is false when no run was started.
func (e *Engine) AfterImport(ctx context.Context, createdBy string) (r store.Reevaluation, ok bool, err error) {
	state := ""
	if e.o.DataState != nil {
		state = e.o.DataState()
	}
	e.mu.Lock()
	// With a DataState, a run needs advisory data that changed since the
	// last one: no data at all (nothing imported yet) or the same data
	// would re-scan every target for nothing, at every poll.
	if e.o.DataState != nil && (state == "" || state == e.lastState) {
		e.mu.Unlock()
		return r, false, nil
	}
	e.lastState = state
	e.mu.Unlock()
	r, err = e.submit(ctx, store.ReevalTriggerImport, createdBy, nil, state)
	return r, err == nil, err
}

// watch notices imports made outside the daemon.
func (e *Engine) watch() {
	defer e.wg.Done()
	t := time.NewTicker(e.o.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-e.base.Done():
			return
		case <-t.C:
			if _, _, err := e.AfterImport(e.base, "vulndb import"); err != nil {
				e.o.Log.Error("re-evaluation after an import not started", "error", err.Error())
			}
		}
	}
}

// Cancel cancels a pending or running run: its current target's scan is
// cancelled and no further target is taken. store.ErrConflict when it
// already ended, store.ErrNotFound when there is none.
func (e *Engine) Cancel(ctx context.Context, id string) (store.Reevaluation, error) {
	r, err := e.o.Store.CancelReevaluation(ctx, id)
	if err != nil {
		return r, err
	}
	e.mu.Lock()
	scanID := ""
	if e.current == id {
		scanID = e.scanID
	}
	e.mu.Unlock()
	if scanID != "" {
		// The scan ends cancelled, like a scan cancelled by itself, before
		// the run's context ends (which would fail it as interrupted).
		if _, err := e.o.Orchestrator.Cancel(context.WithoutCancel(ctx), scanID); err != nil && !errors.Is(err, store.ErrConflict) {
			e.o.Log.Warn("re-evaluation scan not cancelled", "scan_id", scanID, "error", err.Error())
		}
	}
	e.mu.Lock()
	if e.current == id && e.cancel != nil {
		e.cancel()
	}
	e.mu.Unlock()
	return r, nil
}

func (e *Engine) worker() {
	defer e.wg.Done()
	for {
		e.mu.Lock()
		if e.base.Err() != nil {
			e.mu.Unlock()
			return
		}
		if len(e.queue) == 0 {
			e.mu.Unlock()
			select {
			case <-e.wake:
				continue
			case <-e.base.Done():
				return
			}
		}
		id := e.queue[0]
		e.queue = e.queue[1:]
		ctx, cancel := context.WithCancel(e.base)
		e.current, e.cancel = id, cancel
		e.mu.Unlock()
		e.run(ctx, id)
		cancel()
		e.mu.Lock()
		e.current, e.cancel = "", nil
		e.mu.Unlock()
	}
}

// run processes a run's pending targets, then announces what it found.
func (e *Engine) run(ctx context.Context, id string) {
	st := e.o.Store
	bg := context.WithoutCancel(ctx)
	if err := st.StartReevaluation(bg, id); err != nil {
		if !errors.Is(err, store.ErrConflict) {
			e.o.Log.Error("re-evaluation not started", "reevaluation_id", id, "error", err.Error())
		}
		e.announce(bg, id) // cancelled before it started: nothing, or what a resumed run had found
		return
	}
	start := e.o.Now()
	for {
		if ctx.Err() != nil {
			break
		}
		t, ok, err := st.NextReevaluationTarget(bg, id)
		if err != nil {
			e.o.Log.Error("re-evaluation failed", "reevaluation_id", id, "error", err.Error())
			_ = st.FinishReevaluation(bg, id, store.StatusFailed, truncate(err.Error(), 1000))
			e.announce(bg, id)
			return
		}
		if !ok {
			break
		}
		status, note, matches := e.target(ctx, id, t)
		if ctx.Err() != nil && e.base.Err() != nil {
			// Stopping: the target stays pending and is done again at the
			// next start (its scan was failed by the orchestrator).
			return
		}
		if err := st.FinishReevaluationTarget(bg, id, t.Position, status, note, matches); err != nil {
			e.o.Log.Error("re-evaluation target not recorded", "reevaluation_id", id, "error", err.Error())
		}
	}
	if e.base.Err() != nil {
		return // resumed at the next start
	}
	if err := st.FinishReevaluation(bg, id, store.StatusCompleted, ""); err != nil && !errors.Is(err, store.ErrConflict) {
		e.o.Log.Error("re-evaluation not recorded as completed", "reevaluation_id", id, "error", err.Error())
	}
	r, _ := st.Reevaluation(bg, id)
	e.o.Log.Info("re-evaluation ended", "reevaluation_id", id, "status", r.Status, "targets", r.Targets, "new_matches", r.NewMatches,
		"duration_ms", e.o.Now().Sub(start).Milliseconds())
	e.announce(bg, id)
}

// target re-evaluates one target and says how it went.
func (e *Engine) target(ctx context.Context, runID string, t store.ReevaluationTarget) (status, note string, matches []store.AdvisoryMatch) {
	st := e.o.Store
	bg := context.WithoutCancel(ctx)
	base, err := st.LatestCompletedScanOfTarget(bg, t.TargetID)
	if errors.Is(err, store.ErrNotFound) {
		return "skipped", "the target has no completed scan", nil
	}
	if err != nil {
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	comps, err := st.ScanComponents(bg, base.ID)
	if err != nil {
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	dir, err := os.MkdirTemp(e.o.WorkDir, "scand-reevaluate-")
	if err != nil {
		return store.StatusFailed, "work directory: " + err.Error(), nil
	}
	defer os.RemoveAll(dir)
	files, left, err := WriteDocuments(dir, comps)
	if err != nil {
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	if len(files) == 0 {
		note := "the scan recorded no components of an ecosystem the tools match"
		if len(comps) == 0 || string(comps) == "null" || string(comps) == "[]" {
			note = "the scan recorded no components"
		}
		return "skipped", note, nil
	}
	readers, carriedCoverage := e.readers(bg, base)
	if len(readers) == 0 {
		return store.StatusFailed, "no scanner that reads an SBOM is installed here (osv-scanner, trivy)", nil
	}
	sc, err := st.CreateScan(bg, store.Scan{ID: store.NewID(), TargetPath: base.TargetPath, ScanTypes: base.ScanTypes, TargetURL: base.TargetURL,
		TargetHost: base.TargetHost, StartedAt: e.o.Now(), CreatedBy: "reevaluation " + runID, Source: store.SourceReevaluation, BasedOnScan: base.ID})
	if err != nil {
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	if err := st.StartReevaluationTarget(bg, runID, t.Position, base.ID, sc.ID); err != nil {
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	if err := st.SetScanComponents(bg, sc.ID, comps); err != nil {
		_ = st.FinishScan(bg, sc.ID, store.StatusFailed, "store components: "+err.Error(), nil, nil)
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	carry := func(ctx context.Context, add func(finding.Finding) error) error {
		for row, err := range st.FindingRows(ctx, base, store.FindingQuery{}) {
			if err != nil {
				return err
			}
			fw, err := row.Decode()
			if err != nil {
				return err
			}
			if slices.Contains(readers, fw.Scanner) {
				continue
			}
			f := fw.Finding
			f.ID, f.ScanID = "", sc.ID
			if err := add(f); err != nil {
				return err
			}
		}
		return nil
	}
	e.mu.Lock()
	e.scanID = sc.ID
	e.mu.Unlock()
	if ctx.Err() == nil {
		e.o.Orchestrator.RunNow(ctx, sc.ID, scan.RunOptions{Scanners: readers,
			SBOM: &scan.SBOMRun{Dir: dir, Files: files, Carry: carry, Coverage: carriedCoverage}})
	} else {
		_ = st.FinishScan(bg, sc.ID, store.StatusCancelled, "", nil, nil)
	}
	e.mu.Lock()
	e.scanID = ""
	e.mu.Unlock()
	done, err := st.ScanByID(bg, sc.ID)
	if err != nil {
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	switch done.Status {
	case store.StatusCompleted:
	case store.StatusCancelled:
		return store.StatusCancelled, "", nil
	default:
		return store.StatusFailed, truncate(done.Error, 500), nil
	}
	// A reader that did not look left out its findings, which would make
	// them look fixed on the target: such a scan is removed (the base
	// scan stays the target's latest) and the target fails with why.
	if why := unexamined(done.Coverage, readers); why != "" {
		if err := st.DeleteScan(bg, done.ID); err != nil {
			return store.StatusFailed, truncate(why+"; removing its scan failed: "+err.Error(), 500), nil
		}
		return store.StatusFailed, truncate(why+"; its scan was removed so that no finding looks fixed", 500), nil
	}
	matches, err = st.NewAdvisoryMatches(bg, done.Seq, base.Seq, readers)
	if err != nil {
		return store.StatusFailed, truncate(err.Error(), 500), nil
	}
	for i := range matches {
		matches[i].TargetID, matches[i].TargetName, matches[i].ScanID = t.TargetID, t.TargetName, done.ID
	}
	var notes []string
	if done.Coverage != nil && done.Coverage.Partial {
		notes = append(notes, "partial: "+strings.Join(done.Coverage.Reasons, "; "))
	}
	if len(left) > 0 {
		notes = append(notes, "not matched (no tool reads them from an SBOM): "+strings.Join(left, ", "))
	}
	return store.StatusCompleted, truncate(strings.Join(notes, "; "), 1000), matches
}

// readers are the registered scanners that read SBOMs, by name, and the
// base scan's coverage entries of the others (kept as they were).
func (e *Engine) readers(ctx context.Context, base store.Scan) ([]string, []finding.ScannerCoverage) {
	var names []string
	for _, s := range e.o.Orchestrator.Scanners() {
		if r, ok := unwrap(s).(scan.SBOMReader); ok && r.ReadsSBOM() {
			// One not installed here keeps its findings and coverage
			// from the base scan, like the scanners that read no SBOM.
			if _, _, ok := s.Available(ctx); ok {
				names = append(names, s.Name())
			}
		}
	}
	var cov []finding.ScannerCoverage
	if base.Coverage != nil {
		for _, c := range base.Coverage.Scanners {
			if !slices.Contains(names, c.Scanner) {
				cov = append(cov, c)
			}
		}
	}
	return names, cov
}

// unexamined says which of the readers did not look at the SBOM in a
// scan's coverage ("" when each ran, fully or in part).
func unexamined(cov *finding.ScanCoverage, readers []string) string {
	var out []string
	for _, name := range readers {
		looked, said := false, "no coverage recorded"
		if cov != nil {
			for _, c := range cov.Scanners {
				if c.Scanner == name {
					looked, said = c.Looked(), c.Status
					if c.Reason != "" {
						said += ": " + c.Reason
					}
				}
			}
		}
		if !looked {
			out = append(out, name+" "+said)
		}
	}
	return strings.Join(out, "; ")
}

func unwrap(s scan.Scanner) scan.Scanner {
	if u, ok := s.(interface{ Unwrap() scan.Scanner }); ok {
		return u.Unwrap()
	}
	return s
}

// announce publishes the run's advisory.new_matches event once, when it
// matched anything new.
func (e *Engine) announce(ctx context.Context, id string) {
	st := e.o.Store
	r, err := st.Reevaluation(ctx, id)
	if err != nil || r.Announced {
		return
	}
	ms, err := st.ReevaluationMatches(ctx, id)
	if err != nil {
		e.o.Log.Error("re-evaluation matches not read", "reevaluation_id", id, "error", err.Error())
		return
	}
	if len(ms) > 0 {
		e.o.Bus.Publish(ctx, sse.Event{Name: sse.AdvisoryNewMatches, Data: Payload(r, ms), At: e.o.Now()})
	}
	if _, err := st.MarkAnnounced(ctx, id); err != nil {
		e.o.Log.Error("re-evaluation announcement not recorded", "reevaluation_id", id, "error", err.Error())
	}
}

// Payload is the advisory.new_matches body of a run's matches.
func Payload(r store.Reevaluation, ms []store.AdvisoryMatch) sse.AdvisoryNewMatchesData {
	d := sse.AdvisoryNewMatchesData{ReevaluationID: r.ID, Trigger: r.Trigger, Count: len(ms), Targets: []sse.AdvisoryTarget{}}
	listed := 0
	for _, m := range ms {
		d.BySeverity.Add(m.Severity, 1)
		if len(d.Targets) == 0 || d.Targets[len(d.Targets)-1].TargetID != m.TargetID {
			d.TargetsCount++
			if listed < sse.MaxAdvisoryMatchesListed {
				d.Targets = append(d.Targets, sse.AdvisoryTarget{TargetID: m.TargetID, TargetName: m.TargetName, ScanID: m.ScanID, Matches: []sse.AdvisoryMatch{}})
			}
		}
		if listed >= sse.MaxAdvisoryMatchesListed {
			d.Truncated = true
			continue
		}
		listed++
		t := &d.Targets[len(d.Targets)-1]
		t.Matches = append(t.Matches, sse.AdvisoryMatch{AdvisoryID: m.AdvisoryID, Aliases: m.Aliases, Severity: m.Severity, Package: m.Package,
			Version: m.Version, Ecosystem: m.Ecosystem, FilePath: m.FilePath, Fingerprint: m.Fingerprint, Title: m.Title})
	}
	return d
}

// component is the part of a stored component a document needs.
type component struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Ecosystem string `json:"ecosystem"`
	PURL      string `json:"purl"`
	Source    string `json:"source"`
}

// ecosystems maps a component's ecosystem (its purl type) to the OSV
// ecosystem osv-scanner's database is split by and to the application
// type trivy matches the packages of (aquasecurity:trivy:Type).
var ecosystems = map[string][2]string{
	"npm": {"npm", "npm"}, "golang": {"Go", "gomod"}, "pypi": {"PyPI", "pip"}, "cargo": {"crates.io", "cargo"},
	"gem": {"RubyGems", "bundler"}, "composer": {"Packagist", "composer"}, "maven": {"Maven", "pom"},
	"nuget": {"NuGet", "nuget"}, "pub": {"Pub", "pub"}, "hex": {"Hex", "hex"},
}

// WriteDocuments writes a scan's stored components (scans.components
// JSON) into dir as CycloneDX 1.5 documents, one per source file and
// ecosystem. Components of other ecosystems (an image's OS packages) are
// left out and their ecosystems returned.
func WriteDocuments(dir string, componentsJSON []byte) ([]scan.SBOMFile, []string, error) {
	var comps []component
	if len(componentsJSON) > 0 {
		if err := json.Unmarshal(componentsJSON, &comps); err != nil {
			return nil, nil, fmt.Errorf("stored components: %w", err)
		}
	}
	type key struct{ source, eco string }
	groups := map[key][]component{}
	var keys []key
	leftOut := map[string]bool{}
	for _, c := range comps {
		if c.PURL == "" || c.Version == "" {
			continue
		}
		if _, ok := ecosystems[c.Ecosystem]; !ok {
			leftOut[c.Ecosystem] = true
			continue
		}
		k := key{c.Source, c.Ecosystem}
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].source < keys[j].source || keys[i].source == keys[j].source && keys[i].eco < keys[j].eco
	})
	var files []scan.SBOMFile
	for i, k := range keys {
		eco := ecosystems[k.eco]
		app := k.source
		if app == "" {
			app = "components"
		}
		doc := cdxDoc{BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1}
		doc.Metadata.Component = cdxComponent{Type: "application", Name: "scand-reevaluation", BOMRef: "root"}
		appRef := fmt.Sprintf("app-%d", i)
		doc.Components = append(doc.Components, cdxComponent{Type: "application", Name: app, BOMRef: appRef,
			Properties: []cdxProperty{{"aquasecurity:trivy:Type", eco[1]}, {"aquasecurity:trivy:Class", "lang-pkgs"}}})
		deps := cdxDependency{Ref: appRef, DependsOn: []string{}}
		seen := map[string]bool{}
		for _, c := range groups[k] {
			if seen[c.PURL] {
				continue
			}
			seen[c.PURL] = true
			doc.Components = append(doc.Components, cdxComponent{Type: "library", Name: c.Name, Version: c.Version, PURL: c.PURL, BOMRef: c.PURL})
			deps.DependsOn = append(deps.DependsOn, c.PURL)
		}
		doc.Dependencies = []cdxDependency{{Ref: "root", DependsOn: []string{appRef}}, deps}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, nil, err
		}
		p := filepath.Join(dir, fmt.Sprintf("%d.cdx.json", i))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return nil, nil, err
		}
		files = append(files, scan.SBOMFile{Path: p, Source: k.source, Ecosystem: eco[0]})
	}
	var left []string
	for e := range leftOut {
		if e == "" {
			e = "unknown"
		}
		left = append(left, e)
	}
	sort.Strings(left)
	return files, left, nil
}

type cdxDoc struct {
	BOMFormat   string `json:"bomFormat"`
	SpecVersion string `json:"specVersion"`
	Version     int    `json:"version"`
	Metadata    struct {
		Component cdxComponent `json:"component"`
	} `json:"metadata"`
	Components   []cdxComponent  `json:"components"`
	Dependencies []cdxDependency `json:"dependencies"`
}

type cdxComponent struct {
	Type       string        `json:"type"`
	Name       string        `json:"name"`
	Version    string        `json:"version,omitempty"`
	PURL       string        `json:"purl,omitempty"`
	BOMRef     string        `json:"bom-ref"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type cdxDependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
