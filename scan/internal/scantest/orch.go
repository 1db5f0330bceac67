package scantest

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/scan"
	"scand/scan/components"
	"scand/sse"
	"scand/store"
)

// Daemon is the scan path of the daemon without its HTTP server: a real
// store in a temporary file, the event bus with every event recorded, the
// orchestrator with the given scanners and target preparer, and every log
// line in Logs.
type Daemon struct {
	DBPath string
	Store  *store.Store
	Orch   *scan.Orchestrator
	logs   syncBuffer
	mu     sync.Mutex
	events []string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// NewDaemon starts one for the test (it stops with the test); build gets
// the scanners' Config, logging into Logs, and returns the registry and
// the target preparer.
func NewDaemon(t *testing.T, cfg scan.Config, build func(scan.Config) ([]scan.Scanner, scan.TargetPreparer)) *Daemon {
	t.Helper()
	d := &Daemon{DBPath: filepath.Join(t.TempDir(), "scand.db")}
	log := slog.New(slog.NewJSONHandler(&d.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Logger = log.With("logger", "scand.scan")
	scanners, targets := build(cfg)
	st, err := store.Open(context.Background(), d.DBPath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bus := sse.NewBus(log)
	bus.AddSink("recorder", func(_ context.Context, ev sse.Event) error {
		b, _ := json.Marshal(ev.Data)
		d.mu.Lock()
		d.events = append(d.events, ev.Name+" "+string(b))
		d.mu.Unlock()
		return nil
	})
	d.Store = st
	d.Orch = scan.NewOrchestrator(scan.OrchestratorOptions{Store: st, Bus: bus, Scanners: scanners, Log: log.With("logger", "scand.orchestrator"),
		MaxConcurrent: 1, CaptureComponents: components.CaptureJSON, Targets: targets})
	if err := d.Orch.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Orch.Stop(30 * time.Second) })
	return d
}

// Logs is every log line so far.
func (d *Daemon) Logs() string { return d.logs.String() }

// Events is every event so far, one "name {data}" line each.
func (d *Daemon) Events() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.events...)
}

// Scan stores a scan of target (with spec, for an image or repository),
// runs it and returns it once it has ended.
func (d *Daemon) Scan(t *testing.T, targetPath string, types []string, spec *scan.TargetSpec) store.Scan {
	t.Helper()
	ctx := context.Background()
	sc := store.Scan{ID: store.NewID(), TargetPath: targetPath, ScanTypes: types, StartedAt: time.Now().UTC()}
	var err error
	if spec == nil {
		_, err = d.Store.CreateScan(ctx, sc)
	} else {
		b, _ := json.Marshal(spec)
		_, err = d.Store.CreateScanWithTarget(ctx, sc, string(b))
	}
	if err != nil {
		t.Fatal(err)
	}
	d.Orch.Submit(sc.ID)
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		got, err := d.Store.ScanByID(ctx, sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if store.TerminalStatus(got.Status) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
	ev := d.Events()
	t.Fatalf("scan %s did not end in 5 minutes; last events:\n%s", sc.ID, strings.Join(ev[max(0, len(ev)-5):], "\n"))
	return store.Scan{}
}

// Findings returns a scan's stored findings.
func (d *Daemon) Findings(t *testing.T, scanID string) []store.FindingWithState {
	t.Helper()
	fs, err := d.Store.FindingsByScan(context.Background(), scanID, store.FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}
