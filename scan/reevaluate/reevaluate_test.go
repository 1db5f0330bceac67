package reevaluate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/sse"
	"scand/store"
)

// advisoryDB is the fake tool's advisory data: "name@version" -> ids.
type advisoryDB struct {
	mu   sync.Mutex
	advs map[string][]string
}

func (d *advisoryDB) set(pkg string, ids ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.advs[pkg] = ids
}

func (d *advisoryDB) of(pkg string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.advs[pkg]
}

// sbomTool stands in for osv-scanner: on a tree it reads deps.txt
// ("name@version" lines), on an SBOM target the CycloneDX documents, and
// reports each package's advisories. block, when set, holds an SBOM run
// until its context ends (a tool that hangs).
type sbomTool struct {
	scan.Builtin
	db    *advisoryDB
	block chan struct{}
	// failSBOM, when set, is what an SBOM run returns (a tool whose
	// advisory data cannot be read).
	failSBOM error
	runs     *int
	mu       *sync.Mutex
}

func (s sbomTool) ReadsSBOM() bool { return true }

func (s sbomTool) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	type pkg struct{ name, version, source string }
	var pkgs []pkg
	if len(t.SBOM) == 0 {
		f, err := os.Open(filepath.Join(t.Path, "deps.txt"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			name, version, _ := strings.Cut(sc.Text(), "@")
			pkgs = append(pkgs, pkg{name, version, "deps.txt"})
		}
	} else {
		if s.failSBOM != nil {
			return nil, s.failSBOM
		}
		s.mu.Lock()
		*s.runs++
		s.mu.Unlock()
		if s.block != nil {
			select {
			case <-s.block:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		for _, doc := range t.SBOM {
			b, err := os.ReadFile(doc.Path)
			if err != nil {
				return nil, err
			}
			var d cdxDoc
			if err := json.Unmarshal(b, &d); err != nil {
				return nil, err
			}
			for _, c := range d.Components {
				if c.Type == "library" {
					pkgs = append(pkgs, pkg{c.Name, c.Version, doc.Source})
				}
			}
		}
	}
	var out []finding.Finding
	for _, p := range pkgs {
		for _, id := range s.db.of(p.name + "@" + p.version) {
			out = append(out, finding.Finding{Severity: finding.High, Title: id + " in " + p.name, FilePath: p.source, RuleID: id,
				Metadata: map[string]any{"package": p.name, "version": p.version, "ecosystem": "npm", "aliases": []string{"CVE-" + id}}})
		}
	}
	return out, nil
}

// secretsTool is a code scanner whose finding a re-evaluation carries.
type secretsTool struct{ scan.Builtin }

func (secretsTool) Scan(context.Context, scan.Target) ([]finding.Finding, error) {
	return []finding.Finding{{Severity: finding.Critical, Title: "key", FilePath: "config.py", Line: 1, RuleID: "aws-key", Snippet: "aws_key = x"}}, nil
}

type fixture struct {
	st     *store.Store
	orch   *scan.Orchestrator
	bus    *sse.Bus
	db     *advisoryDB
	tool   *sbomTool
	mu     sync.Mutex
	events []sse.Event
	scans  map[string]store.Scan // base scan per directory name
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{st: st, bus: sse.NewBus(nil), db: &advisoryDB{advs: map[string][]string{}}, scans: map[string]store.Scan{}}
	runs := 0
	f.tool = &sbomTool{Builtin: scan.NewBuiltin("fake-osv", scan.TypeDependency), db: f.db, runs: &runs, mu: &sync.Mutex{}}
	f.orch = scan.NewOrchestrator(scan.OrchestratorOptions{Store: st, Bus: f.bus, ScannerTimeout: 20 * time.Second,
		Scanners: []scan.Scanner{secretsTool{scan.NewBuiltin("fake-secrets", scan.TypeCode)}, f.tool}})
	f.bus.AddSink("test", func(_ context.Context, ev sse.Event) error {
		f.mu.Lock()
		f.events = append(f.events, ev)
		f.mu.Unlock()
		return nil
	})
	return f
}

// scanTree scans a directory holding deps.txt as the daemon would,
// components stored beside the findings.
func (f *fixture) scanTree(t *testing.T, name string, deps ...string) store.Scan {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "deps.txt"), []byte(strings.Join(deps, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var comps []map[string]any
	for _, d := range deps {
		n, v, _ := strings.Cut(d, "@")
		comps = append(comps, map[string]any{"name": n, "version": v, "ecosystem": "npm", "purl": "pkg:npm/" + n + "@" + v, "source": "deps.txt"})
	}
	sc, err := f.st.CreateScan(ctx, store.Scan{ID: store.NewID(), TargetPath: dir, ScanTypes: []string{scan.TypeCode, scan.TypeDependency}, StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(comps)
	if err := f.st.SetScanComponents(ctx, sc.ID, b); err != nil {
		t.Fatal(err)
	}
	f.orch.RunNow(ctx, sc.ID, scan.RunOptions{})
	sc, err = f.st.ScanByID(ctx, sc.ID)
	if err != nil || sc.Status != store.StatusCompleted {
		t.Fatalf("base scan: %v %+v", err, sc)
	}
	f.scans[name] = sc
	return sc
}

func (f *fixture) matchEvents() []sse.AdvisoryNewMatchesData {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []sse.AdvisoryNewMatchesData
	for _, ev := range f.events {
		if ev.Name == sse.AdvisoryNewMatches {
			out = append(out, ev.Data.(sse.AdvisoryNewMatchesData))
		}
	}
	return out
}

// sinkEvents counts the events of the scans' lifecycle the sinks saw.
func (f *fixture) sinkEvents(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, ev := range f.events {
		if ev.Name == name {
			n++
		}
	}
	return n
}

func waitRun(t *testing.T, st *store.Store, id string) store.Reevaluation {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := st.Reevaluation(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != "pending" && r.Status != "running" && r.Announced {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run did not end: %+v", r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func findingsOf(t *testing.T, st *store.Store, scanID string) []store.FindingWithState {
	t.Helper()
	fs, err := st.FindingsByScan(context.Background(), scanID, store.FindingQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestReevaluationMatchesNewAdvisories: new advisory data reaches stored
// components; only what the previous latest scan lacked is announced,
// once; findings of other scanners and verdicts carry over; a second run
// with nothing new announces nothing.
func TestReevaluationMatchesNewAdvisories(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.db.set("lodash@4.17.15", "GHSA-1")
	a := f.scanTree(t, "a", "lodash@4.17.15", "minimist@1.2.0")
	b := f.scanTree(t, "b", "lodash@4.17.15")
	var lodashB string
	for _, fw := range findingsOf(t, f.st, b.ID) {
		if fw.RuleID == "GHSA-1" {
			lodashB = fw.Fingerprint
		}
	}
	if _, err := f.st.SetTriage(ctx, store.TriageState{Fingerprint: lodashB, Status: "false_positive", Note: "not reachable", UpdatedBy: "alice"}); err != nil {
		t.Fatal(err)
	}
	completes := f.sinkEvents(sse.ScanComplete)
	for _, n := range []string{"a", "b"} {
		os.RemoveAll(f.scans[n].TargetPath) // the trees are gone; the components are stored
	}
	f.db.set("minimist@1.2.0", "GHSA-2")

	e := New(Options{Store: f.st, Orchestrator: f.orch, Bus: f.bus, PollInterval: -1})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(5 * time.Second)
	r, err := e.Submit(ctx, store.ReevalTriggerManual, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r = waitRun(t, f.st, r.ID)
	if r.Status != "completed" || r.Targets != 2 || r.ByStatus["completed"] != 2 || r.NewMatches != 1 {
		t.Fatalf("run: %+v", r)
	}
	evs := f.matchEvents()
	if len(evs) != 1 || evs[0].Count != 1 || evs[0].TargetsCount != 1 || len(evs[0].Targets) != 1 {
		t.Fatalf("advisory.new_matches: %+v", evs)
	}
	m := evs[0].Targets[0]
	if m.TargetName != a.TargetPath || len(m.Matches) != 1 || m.Matches[0].AdvisoryID == "" || m.Matches[0].Package != "minimist" ||
		m.Matches[0].Version != "1.2.0" || m.Matches[0].Severity != "high" || len(m.Matches[0].Aliases) != 1 {
		t.Fatalf("match: %+v", m)
	}
	if n := f.sinkEvents(sse.ScanComplete); n != completes {
		t.Fatalf("the re-evaluation's scans reached the sinks: %d scan.complete, %d before", n, completes)
	}
	ts, err := f.st.ReevaluationTargets(ctx, r.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range ts {
		sc, err := f.st.ScanByID(ctx, target.ScanID)
		if err != nil {
			t.Fatal(err)
		}
		base := f.scans[filepath.Base(sc.TargetPath)]
		if sc.Source != store.SourceReevaluation || sc.BasedOnScan != base.ID || target.BaseScanID != base.ID || sc.Status != store.StatusCompleted {
			t.Fatalf("scan of %s: %+v", sc.TargetPath, sc)
		}
		latest, err := f.st.LatestCompletedScanOfTarget(ctx, target.TargetID)
		if err != nil || latest.ID != sc.ID {
			t.Fatalf("the re-evaluation is not the target's latest scan: %v %s", err, latest.ID)
		}
		rules := map[string]string{}
		for _, fw := range findingsOf(t, f.st, sc.ID) {
			state := ""
			if fw.State != nil {
				state = fw.State.Status
			}
			rules[fw.RuleID] = state
		}
		if _, ok := rules["aws-key"]; !ok {
			t.Fatalf("the code finding was not carried: %v", rules)
		}
		if filepath.Base(sc.TargetPath) == "b" && rules["GHSA-1"] != "false_positive" {
			t.Fatalf("the verdict did not follow the fingerprint: %v", rules)
		}
		if filepath.Base(sc.TargetPath) == "a" && (rules["GHSA-2"] != "" || len(rules) != 3) {
			t.Fatalf("findings of a: %v", rules)
		}
		if sc.Coverage == nil || len(sc.Coverage.Scanners) != 2 {
			t.Fatalf("coverage: %+v", sc.Coverage)
		}
	}

	// Nothing new: nothing announced.
	r2, err := e.Submit(ctx, store.ReevalTriggerManual, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r2 = waitRun(t, f.st, r2.ID); r2.NewMatches != 0 || r2.Status != "completed" || len(f.matchEvents()) != 1 {
		t.Fatalf("second run: %+v, events %d", r2, len(f.matchEvents()))
	}
	if _, err := e.Submit(ctx, store.ReevalTriggerManual, "test", []int64{424242}); err == nil {
		t.Fatal("an unknown target was accepted")
	}
}

// TestReevaluationCancel: cancelling a run cancels its current scan and
// leaves the other targets undone; cancelling again is a conflict.
func TestReevaluationCancel(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.scanTree(t, "a", "lodash@4.17.15")
	f.scanTree(t, "b", "lodash@4.17.15")
	f.tool.block = make(chan struct{})
	e := New(Options{Store: f.st, Orchestrator: f.orch, Bus: f.bus, PollInterval: -1})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(5 * time.Second)
	r, err := e.Submit(ctx, store.ReevalTriggerManual, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	var scanID string
	deadline := time.Now().Add(10 * time.Second)
	for scanID == "" {
		ts, _ := f.st.ReevaluationTargets(ctx, r.ID, 0, 10)
		if len(ts) > 0 && ts[0].ScanID != "" {
			if sc, _ := f.st.ScanByID(ctx, ts[0].ScanID); sc.Status == store.StatusRunning {
				scanID = sc.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the first target's scan never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := e.Cancel(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	r = waitRun(t, f.st, r.ID)
	sc, _ := f.st.ScanByID(ctx, scanID)
	if r.Status != "cancelled" || sc.Status != store.StatusCancelled || r.ByStatus["cancelled"] != 2 {
		t.Fatalf("after cancel: run %+v, scan %s", r, sc.Status)
	}
	if _, err := e.Cancel(ctx, r.ID); err != store.ErrConflict {
		t.Fatalf("second cancel: %v", err)
	}
}

// TestReevaluationResumesAfterRestart: a run a stopped daemon left
// running is resumed by the next engine, the scan it left pending is
// failed, and an import made meanwhile starts a run of its own.
func TestReevaluationResumesAfterRestart(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.db.set("lodash@4.17.15", "GHSA-1")
	base := f.scanTree(t, "a", "lodash@4.17.15")
	left, err := f.st.CreateReevaluation(ctx, store.Reevaluation{Trigger: store.ReevalTriggerImport, DataState: "v1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.StartReevaluation(ctx, left.ID); err != nil {
		t.Fatal(err)
	}
	orphan, err := f.st.CreateScan(ctx, store.Scan{ID: store.NewID(), TargetPath: base.TargetPath, ScanTypes: base.ScanTypes, StartedAt: time.Now(),
		Source: store.SourceReevaluation, BasedOnScan: base.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.StartReevaluationTarget(ctx, left.ID, 1, base.ID, orphan.ID); err != nil {
		t.Fatal(err)
	}
	f.db.set("lodash@4.17.15", "GHSA-1", "GHSA-3")
	state := "v2" // imported while the daemon was down
	e := New(Options{Store: f.st, Orchestrator: f.orch, Bus: f.bus, PollInterval: -1, DataState: func() string { return state }})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(5 * time.Second)
	r := waitRun(t, f.st, left.ID)
	if r.Status != "completed" || r.ByStatus["completed"] != 1 || r.NewMatches != 1 {
		t.Fatalf("resumed run: %+v", r)
	}
	if sc, _ := f.st.ScanByID(ctx, orphan.ID); sc.Status != store.StatusFailed {
		t.Fatalf("the scan left pending: %s", sc.Status)
	}
	runs, err := f.st.Reevaluations(ctx, "", 10)
	if err != nil || len(runs) != 2 || runs[0].DataState != "v2" || runs[0].Trigger != "import" {
		t.Fatalf("runs: %v %+v", err, runs)
	}
	waitRun(t, f.st, runs[0].ID)
	if evs := f.matchEvents(); len(evs) != 1 {
		t.Fatalf("events: %+v", evs)
	}
	// The API's import and the watcher agree on one run per import.
	if _, ok, err := e.AfterImport(ctx, "api"); err != nil || ok {
		t.Fatalf("the same data started a second run: %v %v", ok, err)
	}
	state = "v3"
	if _, ok, err := e.AfterImport(ctx, "api"); err != nil || !ok {
		t.Fatalf("new data started no run: %v %v", ok, err)
	}
}

// A reader that could not look must not make the target's dependency
// findings look fixed: its scan goes, the base stays the latest.
func TestReevaluationThatCouldNotLookLeavesTheTarget(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.db.set("lodash@4.17.15", "GHSA-1")
	a := f.scanTree(t, "a", "lodash@4.17.15")
	f.tool.failSBOM = errors.New("advisory database unreadable")
	e := New(Options{Store: f.st, Orchestrator: f.orch, Bus: f.bus, PollInterval: -1})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(5 * time.Second)
	r, err := e.Submit(ctx, store.ReevalTriggerManual, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitRun(t, f.st, r.ID)
	ts, err := f.st.ReevaluationTargets(ctx, r.ID, 0, 10)
	if err != nil || len(ts) != 1 || ts[0].Status != store.StatusFailed || !strings.Contains(ts[0].Note, "fake-osv") {
		t.Fatalf("target of a run whose reader failed: %v %+v", err, ts)
	}
	latest, err := f.st.LatestCompletedScanOfTarget(ctx, ts[0].TargetID)
	if err != nil || latest.ID != a.ID {
		t.Fatalf("latest scan after a failed re-evaluation: %v %s, want the base %s", err, latest.ID, a.ID)
	}
	if evs := f.matchEvents(); len(evs) != 0 {
		t.Fatalf("announced: %+v", evs)
	}
}

// Only changed advisory data starts a run: none imported yet, or the
// same data again, starts nothing.
func TestReevaluationNeedsNewData(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	state := ""
	e := New(Options{Store: f.st, Orchestrator: f.orch, Bus: f.bus, PollInterval: -1, DataState: func() string { return state }})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(5 * time.Second)
	if _, ok, err := e.AfterImport(ctx, "poll"); ok || err != nil {
		t.Fatalf("no advisory data started a run (%v)", err)
	}
	state = "v1"
	if _, ok, err := e.AfterImport(ctx, "poll"); !ok || err != nil {
		t.Fatalf("new data started no run (%v)", err)
	}
	if _, ok, err := e.AfterImport(ctx, "poll"); ok || err != nil {
		t.Fatalf("the same data started a second run (%v)", err)
	}
}
