package scan

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/sse"
	"scand/store"
)

// stubbornScanner ignores its context and would emit findings for ever,
// the way a walk stuck matching a hostile [ignore] pattern would go on.
type stubbornScanner struct{ Builtin }

func (stubbornScanner) Available(context.Context) (string, string, bool) { return "1", "", true }
func (stubbornScanner) Scan(context.Context, Target) ([]finding.Finding, error) {
	return nil, nil
}
func (stubbornScanner) ScanStream(_ context.Context, _ Target, emit func(finding.Finding) error) error {
	for i := 0; ; i++ {
		time.Sleep(time.Millisecond)
		if err := emit(finding.Finding{Severity: finding.Low, Title: "t", RuleID: "r", FilePath: "f" + strings.Repeat("x", i%7), Line: i + 1}); err != nil {
			return err
		}
	}
}

// TestScannerTimeoutBoundsBuiltins: SVC_SCANNER_TIMEOUT bounds a built-in
// (and the matching of what it emits) as it bounds a wrapped tool's
// process: the scanner fails as timed out and the scan completes.
func TestScannerTimeoutBoundsBuiltins(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := NewOrchestrator(OrchestratorOptions{Store: st, Bus: sse.NewBus(nil), ScannerTimeout: 300 * time.Millisecond,
		Scanners: []Scanner{stubbornScanner{NewBuiltin("stubborn", TypeCode)}}})
	sc, err := st.CreateScan(context.Background(), store.Scan{ID: store.NewID(), TargetPath: t.TempDir(), ScanTypes: []string{TypeCode}, StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	o.RunNow(context.Background(), sc.ID, RunOptions{})
	took := time.Since(start)
	sc, err = st.ScanByID(context.Background(), sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if took > 5*time.Second {
		t.Fatalf("the scan took %v with a 300 ms scanner timeout", took)
	}
	if sc.Status != store.StatusCompleted || len(sc.ScannersSkipped) != 1 || !strings.Contains(sc.ScannersSkipped[0].Reason, "timed out after 300ms (SVC_SCANNER_TIMEOUT)") {
		t.Fatalf("scan %s, skipped %+v", sc.Status, sc.ScannersSkipped)
	}
}

// quietScanner runs, finds nothing and reports a version.
type quietScanner struct{ Builtin }

func (quietScanner) Available(context.Context) (string, string, bool) { return "2.3.4", "", true }
func (quietScanner) Scan(context.Context, Target) ([]finding.Finding, error) {
	return nil, nil
}

// The version a tool reported when the scan ran it is kept in the scan's
// coverage (SARIF names it later), for a scanner that failed as for one
// that ran.
func TestCoverageRecordsTheVersionThatRan(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := NewOrchestrator(OrchestratorOptions{Store: st, Bus: sse.NewBus(nil), ScannerTimeout: 200 * time.Millisecond,
		Scanners: []Scanner{quietScanner{NewBuiltin("quiet", TypeCode)}, stubbornScanner{NewBuiltin("stubborn", TypeCode)}}})
	sc, err := st.CreateScan(context.Background(), store.Scan{ID: store.NewID(), TargetPath: t.TempDir(), ScanTypes: []string{TypeCode}, StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	o.RunNow(context.Background(), sc.ID, RunOptions{})
	if sc, err = st.ScanByID(context.Background(), sc.ID); err != nil {
		t.Fatal(err)
	}
	if sc.Coverage == nil {
		t.Fatalf("scan %s recorded no coverage", sc.Status)
	}
	got := map[string]string{}
	for _, c := range sc.Coverage.Scanners {
		got[c.Scanner] = c.Status + " " + c.Version
	}
	if got["quiet"] != "ran 2.3.4" || got["stubborn"] != "failed 1" {
		t.Errorf("coverage %v, want quiet ran 2.3.4 and stubborn failed 1", got)
	}
}
