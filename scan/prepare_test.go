package scan

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"scand/finding"
	"scand/scan/workdir"
	"scand/sse"
	"scand/store"
)

// fakePreparer makes a real directory in a work directory and records
// whether it was cleaned up; the knobs make it fail or misbehave.
type fakePreparer struct {
	work        *workdir.Dir
	fail        error
	panicInLine bool
	cleaned     atomic.Int32
	extra       []Scanner
	// image is the archive the target was unpacked from (Prepared.Image).
	image string
}

func (f *fakePreparer) Prepare(ctx context.Context, spec TargetSpec, _ []string) (*Prepared, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	dir, err := f.work.Temp("fake-")
	if err != nil {
		return nil, err
	}
	os.WriteFile(filepath.Join(dir, "app.conf"), []byte("line one\nline two\n"), 0o600)
	p := &Prepared{Root: dir, Resolved: Resolved{Image: &ImageInfo{Digest: "sha256:abc", OS: "linux"}}, Scanners: f.extra,
		MapPath: func(rel string) string { return "sha256:l1:/" + rel },
		UnmapPath: func(fp string) (string, bool) {
			if f.panicInLine {
				panic("line source exploded")
			}
			return strings.CutPrefix(fp, "sha256:l1:/")
		},
		Cleanup: func() { f.cleaned.Add(1); workdir.RemoveTree(dir) }}
	p.Image = f.image
	return p, nil
}

// lineScanner reports line 2 of app.conf; blockingScanner waits for cancel.
type lineScanner struct{ Builtin }

func (lineScanner) Scan(ctx context.Context, t Target) ([]finding.Finding, error) {
	if _, err := os.Stat(filepath.Join(t.Path, "app.conf")); err != nil {
		return nil, err
	}
	return []finding.Finding{{Severity: finding.High, Title: "t", RuleID: "R1", FilePath: "app.conf", Line: 2}}, nil
}

type blockingScanner struct {
	Builtin
	started chan struct{}
}

func (b blockingScanner) Scan(ctx context.Context, t Target) ([]finding.Finding, error) {
	close(b.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

func prepHarness(t *testing.T, scanners []Scanner, p TargetPreparer) (*store.Store, *Orchestrator) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := NewOrchestrator(OrchestratorOptions{Store: st, Bus: sse.NewBus(nil), Scanners: scanners, MaxConcurrent: 1, Targets: p})
	if err := o.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Stop(10 * time.Second) })
	return st, o
}

func submitImageScan(t *testing.T, st *store.Store, o *Orchestrator) string {
	t.Helper()
	id := store.NewID()
	spec, _ := json.Marshal(TargetSpec{Image: &ImageSpec{Path: "/images/app.tar"}})
	if _, err := st.CreateScanWithTarget(context.Background(), store.Scan{ID: id, TargetPath: "/images/app.tar", ScanTypes: []string{TypeCode}, StartedAt: time.Now()}, string(spec)); err != nil {
		t.Fatal(err)
	}
	o.Submit(id)
	return id
}

func waitEnded(t *testing.T, st *store.Store, id string) store.Scan {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		sc, err := st.ScanByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if store.TerminalStatus(sc.Status) {
			return sc
		}
	}
	t.Fatal("scan did not end")
	return store.Scan{}
}

func waitCleaned(t *testing.T, f *fakePreparer) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); f.cleaned.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the prepared root was never cleaned up")
		}
	}
	if n := f.cleaned.Load(); n != 1 {
		t.Errorf("cleaned up %d times", n)
	}
}

func newFake(t *testing.T) *fakePreparer {
	w, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &fakePreparer{work: w}
}

// Success: paths mapped, lines read back through the mapping, the extra
// scanner run, the resolution recorded, the root removed.
func TestPreparedTargetSuccess(t *testing.T) {
	f := newFake(t)
	f.extra = []Scanner{lineScanner{NewBuiltin("image-extra", TypeCode)}}
	st, o := prepHarness(t, []Scanner{lineScanner{NewBuiltin("liner", TypeCode)}}, f)
	id := submitImageScan(t, st, o)
	sc := waitEnded(t, st, id)
	if sc.Status != store.StatusCompleted || strings.Join(sc.ScannersRun, ",") != "liner,image-extra" {
		t.Fatalf("scan = %+v", sc)
	}
	waitCleaned(t, f)
	fs, _ := st.FindingsByScan(context.Background(), id, store.FindingFilter{})
	var mapped, unmapped bool
	for _, fw := range fs {
		switch {
		case fw.Scanner == "liner" && fw.FilePath == "sha256:l1:/app.conf":
			mapped = true
		case fw.Scanner == "image-extra" && fw.FilePath == "app.conf":
			unmapped = true // extra scanners' paths are final
		}
	}
	if !mapped || !unmapped {
		b, _ := json.Marshal(fs)
		t.Errorf("findings: %s", b)
	}
	targets, _ := st.ScanTargetsByID(context.Background(), []string{id})
	if !strings.Contains(targets[id].Resolved, `"digest":"sha256:abc"`) {
		t.Errorf("resolved = %q", targets[id].Resolved)
	}
}

func TestPreparedTargetFailureCancelAndPanic(t *testing.T) {
	t.Run("prepare fails", func(t *testing.T) {
		f := newFake(t)
		f.fail = errors.New("layer 2: entry \"../x\": \"..\" in path")
		st, o := prepHarness(t, []Scanner{lineScanner{NewBuiltin("liner", TypeCode)}}, f)
		sc := waitEnded(t, st, submitImageScan(t, st, o))
		if sc.Status != store.StatusFailed || !strings.Contains(sc.Error, `prepare target: layer 2`) || len(sc.ScannersRun) != 0 {
			t.Errorf("scan = %s %q %v", sc.Status, sc.Error, sc.ScannersRun)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		f := newFake(t)
		b := blockingScanner{NewBuiltin("blocker", TypeCode), make(chan struct{})}
		st, o := prepHarness(t, []Scanner{b}, f)
		id := submitImageScan(t, st, o)
		<-b.started
		if _, err := o.Cancel(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		waitCleaned(t, f)
	})
	t.Run("panic", func(t *testing.T) {
		f := newFake(t)
		f.panicInLine = true
		st, o := prepHarness(t, []Scanner{lineScanner{NewBuiltin("liner", TypeCode)}}, f)
		sc := waitEnded(t, st, submitImageScan(t, st, o))
		if sc.Status != store.StatusFailed || !strings.Contains(sc.Error, "internal error") {
			t.Errorf("scan = %s %q", sc.Status, sc.Error)
		}
		waitCleaned(t, f)
	})
	t.Run("no preparer", func(t *testing.T) {
		st, o := prepHarness(t, nil, nil)
		sc := waitEnded(t, st, submitImageScan(t, st, o))
		if sc.Status != store.StatusFailed || !strings.Contains(sc.Error, "not available") {
			t.Errorf("scan = %s %q", sc.Status, sc.Error)
		}
	})
}

// imageReadingScanner reads the image archive when there is one, like
// trivy image; its Reads matches nothing in the unpacked root.
type imageReadingScanner struct{ selectiveScanner }

func (imageReadingScanner) ReadsImage() bool { return true }

// An unpacked image is narrowed to the scanners with something to read in
// it, by the daemon too; a scanner of the archive itself stays.
func TestUnpackedImageSkipsIdleScanners(t *testing.T) {
	py := selectiveScanner{&walkScanner{Builtin: NewBuiltin("py", TypeCode), rule: "P", wants: ".py"}}
	conf := selectiveScanner{&walkScanner{Builtin: NewBuiltin("conf", TypeCode), rule: "C", wants: ".conf"}}
	archive := imageReadingScanner{selectiveScanner{&walkScanner{Builtin: NewBuiltin("archive", TypeCode), rule: "A", wants: ".lock"}}}
	plain := &walkScanner{Builtin: NewBuiltin("plain", TypeCode), rule: "R"}
	f := newFake(t)
	f.image = "/images/app.tar"
	st, o := prepHarness(t, []Scanner{py, conf, archive, plain}, f)
	sc := waitEnded(t, st, submitImageScan(t, st, o))
	if sc.Status != store.StatusCompleted {
		t.Fatalf("scan %s: %s", sc.Status, sc.Error)
	}
	if got := strings.Join(sc.ScannersRun, ","); got != "conf,archive,plain" {
		t.Errorf("ran %s, want conf,archive,plain", got)
	}
	if py.probed || len(py.visited) != 0 {
		t.Error("the idle scanner was probed or run")
	}
	if len(sc.ScannersSkipped) != 1 || sc.ScannersSkipped[0].Name != "py" || sc.ScannersSkipped[0].Reason != SkipNothingToScan {
		t.Errorf("skipped %+v", sc.ScannersSkipped)
	}

	// A prepared target without an archive (a repository clone) is a
	// project: the daemon runs every scanner of the type, as for a tree.
	f2 := newFake(t)
	st2, o2 := prepHarness(t, []Scanner{py, conf}, f2)
	sc = waitEnded(t, st2, submitImageScan(t, st2, o2))
	if got := strings.Join(sc.ScannersRun, ","); got != "py,conf" {
		t.Errorf("without an archive (a prepared clone) ran %s, want py,conf", got)
	}
}
