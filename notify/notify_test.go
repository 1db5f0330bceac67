package notify

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/sse"
	"scand/store"
)

func TestNotificationRules(t *testing.T) {
	counts := func(c, h, m, l, i int) sse.SeverityCounts {
		return sse.SeverityCounts{Critical: c, High: h, Medium: m, Low: l, Info: i}
	}
	cases := []struct {
		name     string
		ev       sse.Event
		want     bool
		severity string
		contains []string
	}{
		{"complete with a critical", sse.Event{Name: sse.ScanComplete, Data: sse.ScanCompleteData{ScanID: "s1", TargetPath: "/srv/app", FindingsCount: 4, RiskScore: 61, SeverityCounts: counts(1, 0, 2, 1, 0)}},
			true, "critical", []string{"4 findings", "/srv/app", "1 critical, 2 medium, 1 low", "risk score 61"}},
		{"complete, highest low", sse.Event{Name: sse.ScanComplete, Data: sse.ScanCompleteData{ScanID: "s1", TargetPath: "/a", FindingsCount: 3, SeverityCounts: counts(0, 0, 0, 1, 2)}},
			true, "low", []string{"3 findings"}},
		{"complete, only info", sse.Event{Name: sse.ScanComplete, Data: sse.ScanCompleteData{ScanID: "s1", TargetPath: "/a", FindingsCount: 1, SeverityCounts: counts(0, 0, 0, 0, 1)}},
			true, "info", []string{"1 finding "}},
		{"complete, highest high (pointer payload)", sse.Event{Name: sse.ScanComplete, Data: &sse.ScanCompleteData{ScanID: "s1", TargetPath: "/a", FindingsCount: 2, SeverityCounts: counts(0, 2, 0, 0, 0)}},
			true, "high", nil},
		{"complete, map payload", sse.Event{Name: sse.ScanComplete, Data: map[string]any{"scan_id": "s9", "findings_count": 2, "severity_counts": map[string]int{"medium": 2}}},
			true, "medium", []string{"s9"}},
		{"complete without findings", sse.Event{Name: sse.ScanComplete, Data: sse.ScanCompleteData{ScanID: "s1", FindingsCount: 0}}, false, "", nil},
		{"scan failed", sse.Event{Name: sse.ScanFailed, Data: sse.ScanFailedData{ScanID: "s2", TargetPath: "/b", Error: "disk full"}},
			true, "high", []string{"/b", "disk full"}},
		{"scanner failed", sse.Event{Name: sse.ScannerFailed, Data: sse.ScannerFailedData{ScanID: "s3", Name: "trivy", Error: "exit status 1"}},
			true, "medium", []string{"trivy", "exit status 1", "s3"}},
		{"scan.start", sse.Event{Name: sse.ScanStart, Data: sse.ScanStartData{ScanID: "s"}}, false, "", nil},
		{"scanner.complete", sse.Event{Name: sse.ScannerComplete, Data: sse.ScannerCompleteData{ScanID: "s", FindingsCount: 3}}, false, "", nil},
		{"scanner.skipped", sse.Event{Name: sse.ScannerSkipped}, false, "", nil},
		{"scan.cancelled", sse.Event{Name: sse.ScanCancelled}, false, "", nil},
		{"webhook.test", sse.Event{Name: sse.WebhookTest, Data: sse.WebhookTestData{}}, false, "", nil},
		{"new findings at the threshold", sse.Event{Name: sse.ScanNewFindings, Data: sse.ScanNewFindingsData{ScanID: "s4", PreviousScanID: "s3", TargetPath: "/repo",
			New: counts(0, 1, 2, 0, 0), FixedCount: 1, AlertMinSeverity: "high"}},
			true, "high", []string{"3 new findings", "/repo", "1 high, 2 medium", "s3", "1 finding no longer reported"}},
		{"new findings above a low threshold", sse.Event{Name: sse.ScanNewFindings, Data: sse.ScanNewFindingsData{ScanID: "s4", PreviousScanID: "s3", TargetPath: "/repo",
			New: counts(0, 0, 0, 1, 0), AlertMinSeverity: "low"}},
			true, "low", []string{"1 new finding"}},
		{"new findings below the threshold", sse.Event{Name: sse.ScanNewFindings, Data: sse.ScanNewFindingsData{ScanID: "s4", PreviousScanID: "s3",
			New: counts(0, 0, 5, 3, 0), AlertMinSeverity: "high"}}, false, "", nil},
		{"new findings, threshold missing means high", sse.Event{Name: sse.ScanNewFindings, Data: sse.ScanNewFindingsData{ScanID: "s4", PreviousScanID: "s3",
			New: counts(0, 0, 5, 0, 0)}}, false, "", nil},
		{"new findings, critical over a critical threshold", sse.Event{Name: sse.ScanNewFindings, Data: sse.ScanNewFindingsData{ScanID: "s4", PreviousScanID: "s3",
			New: counts(1, 0, 0, 0, 0), AlertMinSeverity: "critical"}}, true, "critical", nil},
		{"stale advisory data", sse.Event{Name: sse.ScanStaleData, Data: sse.ScanStaleDataData{ScanID: "s5", TargetPath: "/repo",
			Databases: []string{"trivy"}, Warnings: []string{"trivy data of trivy is 330 days old"}}},
			true, "medium", []string{"Stale advisory data", "/repo", "330 days old"}},
		{"no stale data", sse.Event{Name: sse.ScanStaleData, Data: sse.ScanStaleDataData{ScanID: "s5"}}, false, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, ok, err := Build(tc.ev)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.want {
				t.Fatalf("notification created = %v, want %v", ok, tc.want)
			}
			if !ok {
				return
			}
			if n.Severity != tc.severity {
				t.Errorf("severity %q, want %q", n.Severity, tc.severity)
			}
			if n.Title == "" || n.Body == "" || n.ScanID == "" {
				t.Errorf("empty field in %+v", n)
			}
			text := n.Title + " | " + n.Body
			for _, c := range tc.contains {
				if !strings.Contains(text, c) {
					t.Errorf("%q does not mention %q", text, c)
				}
			}
		})
	}
}

func openNotifyStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "n.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestNotificationServiceSinkStoresInOrder(t *testing.T) {
	st := openNotifyStore(t)
	svc := New(Config{Store: st})
	if err := svc.Sink(context.Background(), sse.Event{Name: sse.ScanFailed, Data: sse.ScanFailedData{ScanID: "x"}}); err == nil {
		t.Error("Sink before Start accepted an event")
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{sse.ScanStart, sse.ScannerFailed, sse.ScannerComplete, sse.ScanFailed} {
		ev := sse.Event{Name: name, Data: sse.ScanFailedData{ScanID: "scan-" + string(rune('a'+i)), Error: "e"}}
		if err := svc.Sink(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	svc.Stop(5 * time.Second) // drains the buffer
	ns, err := st.Notifications(context.Background(), false, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 2 || ns[0].Severity != "high" || ns[0].ScanID != "scan-d" || ns[1].Severity != "medium" || ns[1].ScanID != "scan-b" {
		t.Fatalf("stored %+v; want the scan.failed (high) then, older, the scanner.failed (medium)", ns)
	}
	if err := svc.Sink(context.Background(), sse.Event{Name: sse.ScanFailed, Data: sse.ScanFailedData{}}); err == nil {
		t.Error("Sink after Stop accepted an event")
	}
}

func TestNotificationRetentionAtStart(t *testing.T) {
	st := openNotifyStore(t)
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	mk := func(age time.Duration, read bool) string {
		n, err := st.CreateNotification(ctx, store.Notification{Severity: "high", Title: "t", Body: "b", CreatedAt: now.Add(-age)})
		if err != nil {
			t.Fatal(err)
		}
		if read {
			st.MarkNotificationRead(ctx, n.ID, now.Add(-age/2))
		}
		return n.ID
	}
	oldRead := mk(45*24*time.Hour, true)
	oldUnread := mk(45*24*time.Hour, false)
	recentRead := mk(2*24*time.Hour, true)
	svc := New(Config{Store: st, Now: func() time.Time { return now }})
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(time.Second)
	left := map[string]bool{}
	ns, _ := st.Notifications(ctx, false, 200)
	for _, n := range ns {
		left[n.ID] = true
	}
	if left[oldRead] || !left[oldUnread] || !left[recentRead] {
		t.Errorf("kept: old read %v (want false), old unread %v (want true), recent read %v (want true)", left[oldRead], left[oldUnread], left[recentRead])
	}
}
