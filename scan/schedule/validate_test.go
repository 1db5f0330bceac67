package schedule_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan/request"
	"scand/scan/schedule"
	"scand/store"
)

func TestCreateValidatesLikePOSTScans(t *testing.T) {
	e := newEnv(t, mustTime(t, "2026-01-10T12:00:00Z"), envOptions{})
	dir := e.writeTarget(map[string]string{"a.txt": "x\n"})
	outside := t.TempDir()
	escape := filepath.Join(e.root, "escape")
	if err := os.Symlink(outside, escape); err != nil {
		t.Fatal(err)
	}
	ok := schedule.Spec{Name: "n", TargetPath: dir, ScanTypes: []string{"code"}, Cron: "@daily", Enabled: true}
	cases := []struct {
		name  string
		edit  func(*schedule.Spec)
		field string
		msg   string
	}{
		{"empty name", func(s *schedule.Spec) { s.Name = "  " }, "name", "1 to 200 characters"},
		{"long name", func(s *schedule.Spec) { s.Name = strings.Repeat("x", 201) }, "name", "1 to 200"},
		{"six fields", func(s *schedule.Spec) { s.Cron = "* * * * * *" }, "cron", "expected 5 fields"},
		{"minute out of range", func(s *schedule.Spec) { s.Cron = "61 * * * *" }, "cron", `minute field "61": 61 is out of range (accepts 0-59)`},
		{"bad weekday name", func(s *schedule.Spec) { s.Cron = "0 0 * * FUNDAY" }, "cron", "day-of-week field"},
		{"never fires", func(s *schedule.Spec) { s.Cron = "0 0 31 2 *" }, "cron", "would never run"},
		{"unknown zone", func(s *schedule.Spec) { s.Timezone = "Mars/Olympus_Mons" }, "timezone", `unknown time zone "Mars/Olympus_Mons"`},
		{"Local", func(s *schedule.Spec) { s.Timezone = "Local" }, "timezone", `"Local" is not allowed`},
		{"path traversal zone", func(s *schedule.Spec) { s.Timezone = "../../etc/passwd" }, "timezone", "unknown time zone"},
		{"bad severity", func(s *schedule.Spec) { s.AlertMinSeverity = "severe" }, "alert_min_severity", "one of critical"},
		{"negative keep_last", func(s *schedule.Spec) { s.KeepLast = -1 }, "keep_last", "0 (no limit)"},
		{"relative target", func(s *schedule.Spec) { s.TargetPath = "repo" }, "target_path", "absolute path"},
		{"missing target", func(s *schedule.Spec) { s.TargetPath = filepath.Join(dir, "nope") }, "target_path", "existing directory"},
		{"no scan types", func(s *schedule.Spec) { s.ScanTypes = []string{} }, "scan_types", "must not be empty"},
		{"unknown scan type", func(s *schedule.Spec) { s.ScanTypes = []string{"code", "fuzz"} }, "scan_types", "one of code"},
		{"dast without url", func(s *schedule.Spec) { s.ScanTypes = []string{"dast"} }, "target_url", "required for dast"},
		{"network option injection", func(s *schedule.Spec) { s.ScanTypes = []string{"network"}; h := "-oN/tmp/x"; s.TargetHost = &h }, "target_host", "must not start with '-'"},
	}
	for _, c := range cases {
		spec := ok
		c.edit(&spec)
		_, err := e.sched.Create(context.Background(), spec, "admin")
		var ve *schedule.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want a ValidationError", c.name, err)
			continue
		}
		found := false
		for _, p := range ve.Problems {
			if p.Loc[0] == c.field && strings.Contains(p.Msg, c.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: problems %+v, want one on %s containing %q", c.name, ve.Problems, c.field, c.msg)
		}
	}
	spec := ok
	spec.TargetPath = escape
	if _, err := e.sched.Create(context.Background(), spec, "admin"); !errors.Is(err, request.ErrOutsideRoots) {
		t.Errorf("symlink out of the roots: %v", err)
	}
	if list, _ := e.store.Schedules(context.Background()); len(list) != 0 {
		t.Fatalf("invalid schedules were stored: %+v", list)
	}
	// Defaults: UTC, trimmed name and expression.
	spec = ok
	spec.Name, spec.Cron = "  nightly  ", " 30 4 * * * "
	sc, err := e.sched.Create(context.Background(), spec, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "nightly" || sc.Cron != "30 4 * * *" || sc.Timezone != "UTC" || !sc.NextRunAt.Equal(mustTime(t, "2026-01-11T04:30:00Z")) || sc.CreatedBy != "admin" {
		t.Fatalf("created = %+v", sc)
	}
}

func TestUpdateRecomputesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, mustTime(t, "2026-01-10T12:00:00Z"), envOptions{})
	dir := e.writeTarget(map[string]string{"a.txt": "x\n"})
	sc, err := e.sched.Create(ctx, schedule.Spec{Name: "n", TargetPath: dir, ScanTypes: []string{"code"}, Cron: "0 3 * * *", Enabled: true}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	// The tree vanishes: renaming still works, moving the target does not.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	renamed, err := e.sched.Update(ctx, sc.ID, func(s *schedule.Spec) { s.Name = "renamed" })
	if err != nil || renamed.Name != "renamed" || !renamed.NextRunAt.Equal(*sc.NextRunAt) {
		t.Fatalf("rename: %+v %v", renamed, err)
	}
	var ve *schedule.ValidationError
	if _, err := e.sched.Update(ctx, sc.ID, func(s *schedule.Spec) { s.TargetPath = filepath.Join(e.root, "gone") }); !errors.As(err, &ve) {
		t.Fatalf("moving to a missing target: %v", err)
	}
	// A new zone recomputes the next run from now.
	zoned, err := e.sched.Update(ctx, sc.ID, func(s *schedule.Spec) { s.Timezone = "Europe/Berlin" })
	if err != nil || !zoned.NextRunAt.Equal(mustTime(t, "2026-01-11T03:00:00+01:00")) {
		t.Fatalf("zone change: %+v %v", zoned.NextRunAt, err)
	}
	off, err := e.sched.Update(ctx, sc.ID, func(s *schedule.Spec) { s.Enabled = false })
	if err != nil || off.NextRunAt != nil || off.Enabled {
		t.Fatalf("disable: %+v %v", off, err)
	}
	// Re-enabling days later does not catch up the disabled period.
	e.at(mustTime(t, "2026-01-20T12:00:00Z"))
	on, err := e.sched.Update(ctx, sc.ID, func(s *schedule.Spec) { s.Enabled = true })
	if err != nil || !on.NextRunAt.Equal(mustTime(t, "2026-01-21T03:00:00+01:00")) {
		t.Fatalf("enable: %+v %v", on.NextRunAt, err)
	}
	if _, err := e.sched.Update(ctx, "nope", func(*schedule.Spec) {}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown schedule: %v", err)
	}
}

// TestRunFailsWhenTargetNoLongerValid: the checks of POST /scans run again
// when each run starts; a run whose target moved out of bounds is a
// failed run with the reason, and no scan.
func TestRunFailsWhenTargetNoLongerValid(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, mustTime(t, "2026-01-10T12:00:00Z"), envOptions{})
	dir := e.writeTarget(map[string]string{"a.txt": "x\n"})
	sc, err := e.sched.Create(ctx, schedule.Spec{Name: "n", TargetPath: dir, ScanTypes: []string{"code"}, Cron: "@hourly", Enabled: true}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	e.at(mustTime(t, "2026-01-10T13:00:00Z"))
	runs := e.waitRuns(sc.ID, 1)
	if runs[0].Outcome != store.RunFailed || runs[0].ScanID != "" || runs[0].Reason != "target no longer valid: target_path must be an existing directory" {
		t.Fatalf("run of a vanished target = %+v", runs[0])
	}
	// Now the path is a symlink out of the scan roots.
	if err := os.Symlink(t.TempDir(), dir); err != nil {
		t.Fatal(err)
	}
	e.at(mustTime(t, "2026-01-10T14:00:00Z"))
	runs = e.waitRuns(sc.ID, 2)
	if runs[0].Outcome != store.RunFailed || !strings.Contains(runs[0].Reason, "outside the allowed scan roots") {
		t.Fatalf("run of an escaped target = %+v", runs[0])
	}
	if scans, _ := e.store.Scans(ctx, store.ScanFilter{}); len(scans) != 0 {
		t.Fatalf("failed runs started scans: %+v", scans)
	}
	got, _ := e.store.ScheduleByID(ctx, sc.ID)
	if !got.NextRunAt.Equal(mustTime(t, "2026-01-10T15:00:00Z")) {
		t.Fatalf("next run after a failed run = %v", got.NextRunAt)
	}
}

// TestRetentionByAge: SVC_RETENTION_DAYS deletes completed scans older
// than the cutoff through DeleteScan, never a target's newest, and keeps
// the triage of their fingerprints.
func TestRetentionByAge(t *testing.T) {
	ctx := context.Background()
	day0 := mustTime(t, "2026-01-01T00:00:00Z")
	e := newEnv(t, day0, envOptions{retentionDays: 30})
	// Passes run by hand below, at chosen times.
	e.ret.Stop(5 * time.Second)
	dir := e.writeTarget(map[string]string{"deploy/aws.py": awsKeyFile})
	other := filepath.Join(e.root, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	scanAt := func(day int, target string, types []string) store.Scan {
		t.Helper()
		e.clock.Set(day0.Add(time.Duration(day) * 24 * time.Hour))
		sc, err := e.store.CreateScan(ctx, store.Scan{ID: store.NewID(), TargetPath: target, ScanTypes: types, StartedAt: e.clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		e.orch.Submit(sc.ID)
		return e.waitScan(sc.ID, store.StatusCompleted)
	}
	old := scanAt(0, dir, []string{"code"})
	lonely := scanAt(1, other, []string{"code"})
	oldIaC := scanAt(2, dir, []string{"iac"}) // the newest (only) iac scan of the target
	recent := scanAt(20, dir, []string{"code"})
	newest := scanAt(40, dir, []string{"code"})
	fs, err := e.store.FindingsByScan(ctx, old.ID, store.FindingFilter{})
	if err != nil || len(fs) == 0 {
		t.Fatalf("findings of the old scan: %d, %v", len(fs), err)
	}
	fp := fs[0].Fingerprint
	if fs[0].Severity != finding.Critical {
		t.Fatalf("fixture finding is %s", fs[0].Severity)
	}
	if _, err := e.store.SetTriage(ctx, store.TriageState{Fingerprint: fp, Status: "accepted_risk", Note: "rotated", UpdatedBy: "me"}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(day0.Add(45 * 24 * time.Hour))
	n, err := e.ret.RunOnce(ctx)
	if err != nil || n != 1 {
		t.Fatalf("RunOnce deleted %d (%v), want 1", n, err)
	}
	if _, err := e.store.ScanByID(ctx, old.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the old scan is still there: %v", err)
	}
	for _, keep := range []store.Scan{lonely, oldIaC, recent, newest} {
		if _, err := e.store.ScanByID(ctx, keep.ID); err != nil {
			t.Errorf("scan %s (%s %v) was deleted: %v", keep.ID, keep.TargetPath, keep.ScanTypes, err)
		}
	}
	if hist, err := e.store.TriageHistory(ctx, fp); err != nil || len(hist) != 1 {
		t.Fatalf("triage history after retention: %+v %v", hist, err)
	}
	if known, _ := e.store.FingerprintKnown(ctx, fp); !known {
		t.Fatal("the triaged fingerprint is unknown after retention")
	}
	// Nothing more to do: a second pass deletes nothing.
	if n, err := e.ret.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("second pass deleted %d (%v)", n, err)
	}
}
