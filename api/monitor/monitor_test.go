package monitor

import (
	"context"
	"strings"
	"testing"
	"time"

	"scand/sse"
)

func scrape(t *testing.T, m *Monitor) string {
	t.Helper()
	var b strings.Builder
	if err := m.Registry().Write(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSinkCountsScannerRunsAndScans: the bus events become scanner runs by
// outcome, durations (a failed run's from its start event), finished scans
// and ingested findings; a scan that ends drops its scanners' start times.
func TestSinkCountsScannerRunsAndScans(t *testing.T) {
	m := New(Config{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.Background()
	for _, ev := range []sse.Event{
		{Name: sse.ScannerStart, At: t0, Data: sse.ScannerStartData{ScanID: "s1", Name: "gosec"}},
		{Name: sse.ScannerFailed, At: t0.Add(3 * time.Second), Data: sse.ScannerFailedData{ScanID: "s1", Name: "gosec", Error: "boom"}},
		{Name: sse.ScannerStart, At: t0, Data: sse.ScannerStartData{ScanID: "s1", Name: "secrets"}},
		{Name: sse.ScannerComplete, At: t0, Data: sse.ScannerCompleteData{ScanID: "s1", Name: "secrets", DurationS: 0.2, FindingsCount: 7}},
		{Name: sse.ScannerSkipped, At: t0, Data: sse.ScannerSkippedData{ScanID: "s1", Name: "trivy", Reason: "not_installed"}},
		{Name: sse.ScanComplete, At: t0, Data: sse.ScanCompleteData{ScanID: "s1", FindingsCount: 7}},
		{Name: sse.ScannerStart, At: t0, Data: sse.ScannerStartData{ScanID: "s2", Name: "gosec"}},
		{Name: sse.ScanCancelled, At: t0, Data: sse.ScanCancelledData{ScanID: "s2"}},
	} {
		m.Sink(ctx, ev)
	}
	body := scrape(t, m)
	for _, want := range []string{
		`scand_scanner_runs_total{scanner="gosec",outcome="failed"} 1`,
		`scand_scanner_runs_total{scanner="secrets",outcome="ok"} 1`,
		`scand_scanner_runs_total{scanner="trivy",outcome="skipped"} 1`,
		`scand_scanner_run_duration_seconds_sum{scanner="gosec"} 3`,
		`scand_scanner_run_duration_seconds_bucket{scanner="gosec",le="2.5"} 0`,
		`scand_scanner_run_duration_seconds_bucket{scanner="gosec",le="5"} 1`,
		`scand_scanner_run_duration_seconds_sum{scanner="secrets"} 0.2`,
		`scand_scans_finished_total{outcome="completed"} 1`,
		`scand_scans_finished_total{outcome="cancelled"} 1`,
		`scand_findings_ingested_total 7`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("scrape lacks %s:\n%s", want, body)
		}
	}
	if len(m.starts) != 0 {
		t.Fatalf("start times kept after their scans ended: %v", m.starts)
	}
	if strings.Contains(body, `scand_scanner_run_duration_seconds_count{scanner="trivy"}`) {
		t.Error("a skipped scanner got a duration")
	}
}

// TestOmittedModeIsKey: a Monitor built without a mode never serves
// /metrics to anyone.
func TestOmittedModeIsKey(t *testing.T) {
	if m := New(Config{}); m.cfg.Mode != ModeKey {
		t.Fatalf("mode %q, want key", m.cfg.Mode)
	}
}
