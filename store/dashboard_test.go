package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"scand/finding"
)

// dashboardTestClock is a settable clock: CompleteScan and FinishScan stamp
// completed_at from the store's clock, so each seed step sets it first.
type dashboardTestClock struct{ t time.Time }

func (c *dashboardTestClock) now() time.Time { return c.t }

func dashboardTestStore(t *testing.T) (*Store, *dashboardTestClock) {
	t.Helper()
	clock := &dashboardTestClock{t: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), clock.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, clock
}

type dashboardSeedScan struct {
	id, target, url string
	started         time.Time
	finished        time.Time // zero: left pending
	status          string    // terminal status to finish with
	risk            int
	findings        []finding.Finding
}

func dashboardSeed(t *testing.T, st *Store, clock *dashboardTestClock, scans []dashboardSeedScan) {
	t.Helper()
	ctx := context.Background()
	for _, sc := range scans {
		var url *string
		if sc.url != "" {
			url = &sc.url
		}
		if _, err := st.CreateScan(ctx, Scan{ID: sc.id, TargetPath: sc.target, TargetURL: url, ScanTypes: []string{"code"}, StartedAt: sc.started}); err != nil {
			t.Fatal(err)
		}
	}
	// Finish in completion order, not creation order: arrival order and
	// completion order differ on purpose in some cases.
	done := append([]dashboardSeedScan(nil), scans...)
	for i := 1; i < len(done); i++ {
		for j := i; j > 0 && done[j].finished.Before(done[j-1].finished); j-- {
			done[j], done[j-1] = done[j-1], done[j]
		}
	}
	for _, sc := range done {
		if sc.finished.IsZero() {
			continue
		}
		if err := st.MarkScanRunning(ctx, sc.id); err != nil {
			t.Fatal(err)
		}
		clock.t = sc.finished
		if sc.status == StatusCompleted {
			for i := range sc.findings {
				sc.findings[i].ID = fmt.Sprintf("%s-f%d", sc.id, i)
				sc.findings[i].ScanID = sc.id
			}
			if err := st.CompleteScan(ctx, sc.id, ScanResult{Findings: sc.findings, RiskScore: sc.risk}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := st.FinishScan(ctx, sc.id, sc.status, "boom", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func dashboardFinding(sev finding.Severity, fp string) finding.Finding {
	return finding.Finding{Scanner: "secrets", ScanType: "code", Severity: sev, Title: "t", RuleID: "r", FilePath: "a.go", Line: 1, Fingerprint: fp}
}

func TestDashboardStoreQueries(t *testing.T) {
	st, clock := dashboardTestStore(t)
	ctx := context.Background()
	day := func(d, h, m int) time.Time { return time.Date(2026, 3, d, h, m, 0, 0, time.UTC) }
	dashboardSeed(t, st, clock, []dashboardSeedScan{
		{id: "a1", target: "/repo", started: day(10, 10, 0), finished: day(10, 10, 5), status: StatusCompleted, risk: 40,
			findings: []finding.Finding{dashboardFinding(finding.High, "fpA"), dashboardFinding(finding.Medium, "fpB")}},
		{id: "f1", target: "/repo", url: "http://a.test", started: day(11, 23, 59), finished: day(12, 0, 1), status: StatusFailed},
		// a2 starts before a3 but completes after it: a3 is still the latest
		// scan of /repo because it saw the newer tree.
		{id: "a2", target: "/repo", started: day(12, 9, 0), finished: day(12, 9, 50), status: StatusCompleted, risk: 20,
			findings: []finding.Finding{dashboardFinding(finding.Medium, "fpB"), dashboardFinding(finding.Low, "fpC")}},
		{id: "a3", target: "/repo", started: day(12, 9, 30), finished: day(12, 9, 40), status: StatusCompleted, risk: 10,
			findings: []finding.Finding{dashboardFinding(finding.Medium, "fpB"), dashboardFinding(finding.Info, "fpE")}},
		{id: "b1", target: "/other", started: day(12, 8, 0), finished: day(12, 11, 0), status: StatusCompleted, risk: 70,
			findings: []finding.Finding{dashboardFinding(finding.Critical, "fpD")}},
		{id: "c1", target: "/other", started: day(12, 12, 0), finished: day(12, 12, 1), status: StatusCancelled},
		{id: "p1", target: "/other", started: day(12, 13, 0)},
	})
	for fp, status := range map[string]string{"fpB": "false_positive", "fpA": "fixed"} {
		if _, err := st.SetTriage(ctx, TriageState{Fingerprint: fp, Status: status}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("scans by status", func(t *testing.T) {
		got, err := st.ScanCountsByStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"pending": 1, "running": 0, "completed": 4, "failed": 1, "cancelled": 1}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})

	t.Run("current findings", func(t *testing.T) {
		got, err := st.CurrentFindingCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Current scans: a3 for /repo, b1 for /other; the failed URL scan is
		// its own target but has no completed scan.
		want := CurrentFindings{Targets: 2, Counts: []SeverityTriageCount{
			{"critical", "new", 1}, {"info", "new", 1}, {"medium", "false_positive", 1},
		}}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})

	t.Run("daily activity", func(t *testing.T) {
		ip := func(n int) *int { return &n }
		cases := []struct {
			name     string
			from, to time.Time
			want     []DayActivity
		}{
			{"whole range", day(9, 0, 0), day(13, 0, 0), []DayActivity{
				{Day: "2026-03-10", ScansStarted: 1, RiskScore: ip(40), FindingsBySeverity: map[string]int{"high": 1, "medium": 1}},
				{Day: "2026-03-11", ScansStarted: 1, FindingsBySeverity: map[string]int{}},
				// b1 completed last on the 12th (11:00), so its score wins.
				{Day: "2026-03-12", ScansStarted: 5, RiskScore: ip(70), FindingsBySeverity: map[string]int{"critical": 1, "medium": 2, "low": 1, "info": 1}},
			}},
			{"bounds are half-open", day(11, 0, 0), day(12, 0, 0), []DayActivity{
				{Day: "2026-03-11", ScansStarted: 1, FindingsBySeverity: map[string]int{}},
			}},
			{"empty window", day(1, 0, 0), day(5, 0, 0), []DayActivity{}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				got, err := st.DailyActivity(ctx, tc.from, tc.to)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("got %s, want %s", dashboardDump(got), dashboardDump(tc.want))
				}
			})
		}
	})
}

func dashboardDump(ds []DayActivity) string {
	out := ""
	for _, d := range ds {
		score := "nil"
		if d.RiskScore != nil {
			score = fmt.Sprint(*d.RiskScore)
		}
		out += fmt.Sprintf("{%s started=%d risk=%s %v} ", d.Day, d.ScansStarted, score, d.FindingsBySeverity)
	}
	return "[" + out + "]"
}
