package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"scand/finding"
)

func openClockedStore(t *testing.T) (*Store, *storeClock) {
	t.Helper()
	clock := &storeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	return openTestStoreAt(t, filepath.Join(t.TempDir(), "s.db"), clock), clock
}

func strPtr(s string) *string { return &s }

func TestScheduleCRUD(t *testing.T) {
	ctx := context.Background()
	s, clock := openClockedStore(t)
	next := time.Date(2026, 3, 2, 2, 0, 0, 0, time.UTC)
	created, err := s.CreateSchedule(ctx, Schedule{ID: "sch1", Name: "nightly", TargetPath: "/srv/repo", ScanTypes: []string{"code", "dependency"},
		TargetURL: strPtr("https://x.example"), Cron: "0 2 * * *", Timezone: "Europe/Berlin", Enabled: true, NextRunAt: &next, CreatedBy: "key1"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ScheduleByID(ctx, "sch1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "nightly" || !slices.Equal(got.ScanTypes, []string{"code", "dependency"}) || *got.TargetURL != "https://x.example" ||
		got.TargetHost != nil || got.Cron != "0 2 * * *" || got.Timezone != "Europe/Berlin" || !got.Enabled ||
		got.AlertMinSeverity != "" || got.KeepLast != 0 || !got.NextRunAt.Equal(next) || got.LastRunAt != nil ||
		!got.CreatedAt.Equal(clock.Now()) || !got.UpdatedAt.Equal(created.CreatedAt) || got.CreatedBy != "key1" {
		t.Fatalf("stored schedule = %+v", got)
	}
	if _, err := s.ScheduleByID(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown schedule: %v", err)
	}

	clock.Set(clock.Now().Add(time.Minute))
	updated, err := s.UpdateSchedule(ctx, "sch1", func(sc *Schedule) error {
		sc.AlertMinSeverity, sc.KeepLast, sc.Enabled, sc.NextRunAt = "medium", 3, false, nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = s.ScheduleByID(ctx, "sch1")
	if got.AlertMinSeverity != "medium" || got.KeepLast != 3 || got.Enabled || got.NextRunAt != nil || !got.UpdatedAt.Equal(clock.Now()) || !updated.UpdatedAt.Equal(got.UpdatedAt) {
		t.Fatalf("updated schedule = %+v", got)
	}
	refuse := errors.New("no")
	if _, err := s.UpdateSchedule(ctx, "sch1", func(sc *Schedule) error { sc.Name = "changed"; return refuse }); !errors.Is(err, refuse) {
		t.Fatalf("edit error: %v", err)
	}
	if got, _ := s.ScheduleByID(ctx, "sch1"); got.Name != "nightly" {
		t.Fatalf("a refused edit was written: %+v", got)
	}
	if _, err := s.UpdateSchedule(ctx, "nope", func(*Schedule) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update unknown: %v", err)
	}
	list, err := s.Schedules(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "sch1" {
		t.Fatalf("Schedules = %+v, %v", list, err)
	}
	if err := s.DeleteSchedule(ctx, "sch1"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSchedule(ctx, "sch1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestDueSchedulesAndRunRecords(t *testing.T) {
	ctx := context.Background()
	s, clock := openClockedStore(t)
	now := clock.Now()
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	for _, sc := range []Schedule{
		{ID: "late", NextRunAt: at(-2 * time.Hour), Enabled: true},
		{ID: "due", NextRunAt: at(0), Enabled: true},
		{ID: "future", NextRunAt: at(time.Hour), Enabled: true},
		{ID: "off", NextRunAt: at(-3 * time.Hour), Enabled: false},
	} {
		sc.Name, sc.TargetPath, sc.ScanTypes, sc.Cron, sc.Timezone = sc.ID, "/t", []string{"code"}, "* * * * *", "UTC"
		if _, err := s.CreateSchedule(ctx, sc); err != nil {
			t.Fatal(err)
		}
	}
	due, err := s.DueSchedules(ctx, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(due) != 2 || due[0].ID != "late" || due[1].ID != "due" {
		t.Fatalf("DueSchedules = %+v", due)
	}
	if first, ok, err := s.NextScheduledRun(ctx); err != nil || !ok || !first.Equal(*at(-2 * time.Hour)) {
		t.Fatalf("NextScheduledRun = %v %v %v", first, ok, err)
	}

	// A started run commits the scan (pending, with the schedule id), the
	// run and the next run time together.
	next := now.Add(24 * time.Hour)
	run, err := s.RecordScheduleRun(ctx, ScheduleRunRecord{ScheduleID: "late", Due: *at(-2 * time.Hour), Next: &next,
		Run:  ScheduleRun{ScheduledFor: *at(-2 * time.Hour), Outcome: RunStarted},
		Scan: &Scan{ID: "scanA", TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: now}})
	if err != nil {
		t.Fatal(err)
	}
	if run.ScanID != "scanA" || run.ScanStatus != StatusPending || run.ID == "" {
		t.Fatalf("run = %+v", run)
	}
	sc, err := s.ScanByID(ctx, "scanA")
	if err != nil || sc.ScheduleID != "late" || sc.Status != StatusPending {
		t.Fatalf("scan = %+v, %v", sc, err)
	}
	got, _ := s.ScheduleByID(ctx, "late")
	if !got.NextRunAt.Equal(next) || got.LastRunAt == nil || !got.LastRunAt.Equal(now) {
		t.Fatalf("schedule after run = %+v", got)
	}
	if busy, err := s.ScheduleBusy(ctx, "late"); err != nil || !busy {
		t.Fatalf("ScheduleBusy with a pending scan = %v %v", busy, err)
	}
	// The same due time again (a second scheduler, or an edit meanwhile)
	// is refused and writes nothing.
	if _, err := s.RecordScheduleRun(ctx, ScheduleRunRecord{ScheduleID: "late", Due: *at(-2 * time.Hour), Next: &next,
		Run:  ScheduleRun{ScheduledFor: *at(-2 * time.Hour), Outcome: RunStarted},
		Scan: &Scan{ID: "scanB", TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: now}}); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale due time: %v", err)
	}
	if _, err := s.ScanByID(ctx, "scanB"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused run left its scan: %v", err)
	}
	// A disabled schedule records nothing either.
	if _, err := s.RecordScheduleRun(ctx, ScheduleRunRecord{ScheduleID: "off", Due: *at(-3 * time.Hour), Next: &next,
		Run: ScheduleRun{Outcome: RunSkipped}}); !errors.Is(err, ErrConflict) {
		t.Fatalf("disabled schedule: %v", err)
	}
	clock.Set(now.Add(time.Second))
	if _, err := s.RecordScheduleRun(ctx, ScheduleRunRecord{ScheduleID: "late", Due: next, Next: at(48 * time.Hour),
		Run: ScheduleRun{ScheduledFor: next, Outcome: RunSkipped, Reason: "previous run still pending"}}); err != nil {
		t.Fatal(err)
	}
	runs, err := s.ScheduleRuns(ctx, "late", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Outcome != RunSkipped || runs[0].ScanID != "" || runs[0].ScanStatus != "" ||
		runs[0].Reason != "previous run still pending" || runs[1].ScanID != "scanA" || runs[1].ScanStatus != StatusPending {
		t.Fatalf("runs = %+v", runs)
	}
	// Deleting the schedule removes its history and keeps its scans.
	if err := s.DeleteSchedule(ctx, "late"); err != nil {
		t.Fatal(err)
	}
	if runs, _ := s.ScheduleRuns(ctx, "late", 10); len(runs) != 0 {
		t.Fatalf("runs after delete: %+v", runs)
	}
	if sc, err := s.ScanByID(ctx, "scanA"); err != nil || sc.ScheduleID != "late" {
		t.Fatalf("scan after its schedule was deleted: %+v, %v", sc, err)
	}
}

// completeScanWith stores a completed scan with findings given as
// fingerprint:severity pairs; suppressed ones carry metadata.suppressed_by.
func completeScanWith(t *testing.T, s *Store, clock *storeClock, id, target string, types []string, url *string, fps map[string]finding.Severity, suppressed ...string) {
	t.Helper()
	completeScanRun(t, s, clock, id, target, types, url, []string{"secrets", "other"}, fps, suppressed...)
}

// completeScanRun is completeScanWith with the scanners that ran; a
// fingerprint "name@scanner" is reported by that scanner.
func completeScanRun(t *testing.T, s *Store, clock *storeClock, id, target string, types []string, url *string, ran []string, fps map[string]finding.Severity, suppressed ...string) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateScan(ctx, Scan{ID: id, TargetPath: target, ScanTypes: types, TargetURL: url, StartedAt: clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	var fs []finding.Finding
	for fp, sev := range fps {
		scanner := "secrets"
		if _, by, ok := strings.Cut(fp, "@"); ok {
			scanner = by
		}
		f := finding.Finding{ID: NewID(), Scanner: scanner, ScanType: "code", Severity: sev, Title: fp, FilePath: "a.txt", Line: 1,
			RuleID: "r", Fingerprint: fp, Metadata: map[string]any{"suppressed_by": nil}}
		if slices.Contains(suppressed, fp) {
			f.Metadata["suppressed_by"] = "inline: scand:ignore"
		}
		fs = append(fs, f)
	}
	if err := s.CompleteScan(ctx, id, ScanResult{Findings: fs, ScannersRun: ran}); err != nil {
		t.Fatal(err)
	}
	clock.Set(clock.Now().Add(time.Minute))
}

func TestChangesSincePrevious(t *testing.T) {
	ctx := context.Background()
	s, clock := openClockedStore(t)
	code := []string{"code"}
	completeScanWith(t, s, clock, "a", "/repo", code, nil, map[string]finding.Severity{"k1": finding.High, "k2": finding.Low, "gone": finding.Medium, "gone-fp": finding.High})
	if _, ok, err := s.ChangesSincePrevious(ctx, "a"); err != nil || ok {
		t.Fatalf("the first scan of a target has no predecessor: ok=%v err=%v", ok, err)
	}
	// Other targets and other scan types are not predecessors.
	completeScanWith(t, s, clock, "other-types", "/repo", []string{"code", "iac"}, nil, map[string]finding.Severity{"x": finding.Critical})
	completeScanWith(t, s, clock, "other-url", "/repo", code, strPtr("https://a.example"), map[string]finding.Severity{"x": finding.Critical})
	completeScanWith(t, s, clock, "other-path", "/elsewhere", code, nil, map[string]finding.Severity{"x": finding.Critical})
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "new-fp", Status: "false_positive"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "new-fixed", Status: "fixed"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "gone-fp", Status: "accepted_risk"}); err != nil {
		t.Fatal(err)
	}
	completeScanWith(t, s, clock, "b", "/repo", code, nil, map[string]finding.Severity{
		"k1": finding.High, "k2": finding.Low, // unchanged
		"n1": finding.Critical, "n2": finding.High, "n3": finding.High, "n4": finding.Info, // new and live
		"new-fixed":      finding.Medium,   // a "fixed" verdict does not hide a finding
		"new-fp":         finding.Critical, // hidden by its verdict
		"new-suppressed": finding.Critical, // suppressed in the source
	}, "new-suppressed")
	ch, ok, err := s.ChangesSincePrevious(ctx, "b")
	if err != nil || !ok {
		t.Fatalf("ChangesSincePrevious(b) ok=%v err=%v", ok, err)
	}
	want := map[string]int{"critical": 1, "high": 2, "medium": 1, "info": 1}
	if ch.PreviousScanID != "a" || ch.TargetPath != "/repo" || ch.Fixed != 1 || len(ch.New) != len(want) {
		t.Fatalf("changes = %+v", ch)
	}
	for sev, n := range want {
		if ch.New[sev] != n {
			t.Errorf("new %s = %d, want %d (all: %v)", sev, ch.New[sev], n, ch.New)
		}
	}
	// Scan types compare as a set: [code] then [iac, code] is not the same
	// kind, but [iac, code] after [code, iac] is.
	completeScanWith(t, s, clock, "c", "/repo", []string{"iac", "code"}, nil, map[string]finding.Severity{"x": finding.Critical})
	ch, ok, err = s.ChangesSincePrevious(ctx, "c")
	if err != nil || !ok || ch.PreviousScanID != "other-types" || len(ch.New) != 0 || ch.Fixed != 0 {
		t.Fatalf("changes of c = %+v ok=%v err=%v", ch, ok, err)
	}
	if _, ok, err := s.ChangesSincePrevious(ctx, "nope"); ok || err != nil {
		t.Fatalf("unknown scan: ok=%v err=%v", ok, err)
	}

	// A scanner that did not run in the previous scan (missing, crashed or
	// newly installed) is not compared, in either direction.
	completeScanRun(t, s, clock, "d1", "/svc", code, nil, []string{"secrets"}, map[string]finding.Severity{"s1": finding.High})
	completeScanRun(t, s, clock, "d2", "/svc", code, nil, []string{"secrets", "other"}, map[string]finding.Severity{"s1": finding.High, "t1@other": finding.Critical, "s2": finding.Low})
	ch, ok, err = s.ChangesSincePrevious(ctx, "d2")
	if err != nil || !ok || ch.PreviousScanID != "d1" || len(ch.New) != 1 || ch.New["low"] != 1 || ch.Fixed != 0 {
		t.Fatalf("changes with a newly run scanner = %+v ok=%v err=%v", ch, ok, err)
	}
	completeScanRun(t, s, clock, "d3", "/svc", code, nil, []string{"secrets"}, map[string]finding.Severity{"s1": finding.High, "s2": finding.Low})
	ch, _, _ = s.ChangesSincePrevious(ctx, "d3")
	if len(ch.New) != 0 || ch.Fixed != 0 {
		t.Fatalf("a scanner missing this time fixed its findings: %+v", ch)
	}

	// A scanner that ran partly (or failed) on either side is not
	// compared either, though it is in scanners_run, and is named.
	cov := func(status string) *finding.ScanCoverage {
		return &finding.ScanCoverage{Scanners: []finding.ScannerCoverage{{Scanner: "secrets", ScanType: "code", Status: finding.CoverageRan},
			{Scanner: "other", ScanType: "code", Status: status, Reason: "module .: type errors"}}}
	}
	both := []string{"secrets", "other"}
	for _, sc := range []struct {
		id  string
		fps map[string]finding.Severity
		cov *finding.ScanCoverage
	}{
		{"e1", map[string]finding.Severity{"s1": finding.High, "t1@other": finding.Critical}, cov(finding.CoverageRan)},
		{"e2", map[string]finding.Severity{"s1": finding.High, "t2@other": finding.Critical, "s3": finding.Medium}, cov(finding.CoveragePartial)},
	} {
		if _, err := s.CreateScan(ctx, Scan{ID: sc.id, TargetPath: "/partial", ScanTypes: code, StartedAt: clock.Now()}); err != nil {
			t.Fatal(err)
		}
		s.MarkScanRunning(ctx, sc.id)
		var fs []finding.Finding
		for fp, sev := range sc.fps {
			scanner := "secrets"
			if _, by, ok := strings.Cut(fp, "@"); ok {
				scanner = by
			}
			fs = append(fs, finding.Finding{ID: NewID(), Scanner: scanner, ScanType: "code", Severity: sev, Title: fp, FilePath: "a.txt", Line: 1,
				RuleID: "r", Fingerprint: fp, Metadata: map[string]any{"suppressed_by": nil}})
		}
		if err := s.CompleteScan(ctx, sc.id, ScanResult{Findings: fs, ScannersRun: both, Coverage: sc.cov}); err != nil {
			t.Fatal(err)
		}
		clock.Set(clock.Now().Add(time.Minute))
	}
	ch, ok, err = s.ChangesSincePrevious(ctx, "e2")
	if err != nil || !ok || ch.PreviousScanID != "e1" || ch.Fixed != 0 || len(ch.New) != 1 || ch.New["medium"] != 1 ||
		len(ch.NotCompared) != 1 || !strings.HasPrefix(ch.NotCompared[0], "other: head: other partial: module .") {
		t.Fatalf("changes across a partial scanner = %+v ok=%v err=%v", ch, ok, err)
	}
}

func TestRetentionCandidates(t *testing.T) {
	ctx := context.Background()
	s, clock := openClockedStore(t)
	start := clock.Now()
	if _, err := s.CreateSchedule(ctx, Schedule{ID: "nightly", Name: "n", TargetPath: "/repo", ScanTypes: []string{"code"}, Cron: "@daily", Timezone: "UTC", Enabled: true, KeepLast: 2}); err != nil {
		t.Fatal(err)
	}
	mk := func(id, target string, schedule string, status string) {
		t.Helper()
		if _, err := s.CreateScan(ctx, Scan{ID: id, TargetPath: target, ScanTypes: []string{"code"}, StartedAt: clock.Now(), ScheduleID: schedule}); err != nil {
			t.Fatal(err)
		}
		switch status {
		case StatusCompleted:
			s.MarkScanRunning(ctx, id)
			if err := s.CompleteScan(ctx, id, ScanResult{}); err != nil {
				t.Fatal(err)
			}
		case StatusFailed:
			s.FinishScan(ctx, id, StatusFailed, "x", nil, nil)
		}
		clock.Set(clock.Now().Add(24 * time.Hour))
	}
	mk("old-manual", "/repo", "", StatusCompleted)   // day 0
	mk("s1", "/repo", "nightly", StatusCompleted)    // day 1
	mk("s2", "/repo", "nightly", StatusCompleted)    // day 2
	mk("failed", "/repo", "nightly", StatusFailed)   // day 3: not completed
	mk("s3", "/repo", "nightly", StatusCompleted)    // day 4
	mk("s4", "/repo", "nightly", StatusCompleted)    // day 5: newest of /repo
	mk("lonely", "/other", "", StatusCompleted)      // day 6: the only scan of /other
	mk("pending", "/repo", "nightly", StatusPending) // day 7

	ids, err := s.RetentionCandidates(ctx, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	// keep_last 2 keeps s3 and s4 of the schedule; the manual scan is not
	// the schedule's.
	if !slices.Equal(ids, []string{"s1", "s2"}) {
		t.Fatalf("keep_last candidates = %v", ids)
	}
	// By age: everything completed before day 3, except that the newest
	// completed scan of a target always stays.
	cutoff := start.Add(3 * 24 * time.Hour)
	if ids, _ = s.RetentionCandidates(ctx, &cutoff, 100); !slices.Equal(ids, []string{"old-manual", "s1", "s2"}) {
		t.Fatalf("age candidates = %v", ids)
	}
	far := start.Add(100 * 24 * time.Hour)
	if ids, _ = s.RetentionCandidates(ctx, &far, 100); !slices.Equal(ids, []string{"old-manual", "s1", "s2", "s3"}) {
		t.Fatalf("everything old: %v (s4 and lonely must stay)", ids)
	}
	if ids, _ = s.RetentionCandidates(ctx, &far, 2); !slices.Equal(ids, []string{"old-manual", "s1"}) {
		t.Fatalf("batch of 2: %v", ids)
	}
}
