package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"scand/finding"
	"scand/store/targets"
)

// completeFindings runs a scan of sc.TargetPath to completion at time at
// with the given findings (ids and fingerprints as given).
func completeFindings(t *testing.T, s *Store, clock *storeClock, id string, sc Scan, at time.Time, fs []finding.Finding) {
	t.Helper()
	ctx := context.Background()
	sc.ID, sc.StartedAt, sc.ScanTypes = id, at, []string{"code", "dependency"}
	if _, err := s.CreateScan(ctx, sc); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	clock.Set(at)
	for i := range fs {
		fs[i].ID = fmt.Sprintf("%s-%d", id, i)
	}
	if err := s.CompleteScan(ctx, id, ScanResult{Findings: fs}); err != nil {
		t.Fatal(err)
	}
}

func secretFinding(fp string, sev finding.Severity) finding.Finding {
	return finding.Finding{Scanner: "secrets", ScanType: "code", Severity: sev, Title: "t", RuleID: "r", FilePath: "a.go", Line: 1, Fingerprint: fp}
}

func depFinding(fp, rule, pkg, version string, aliases ...string) finding.Finding {
	al := []any{}
	for _, a := range aliases {
		al = append(al, a)
	}
	return finding.Finding{Scanner: "osv-scanner", ScanType: "dependency", Severity: finding.High, Title: rule, RuleID: rule, FilePath: "package-lock.json",
		Line: 1, Fingerprint: fp, Metadata: map[string]any{"package": pkg, "version": version, "ecosystem": "npm", "fixed_version": "9.9.9", "aliases": al}}
}

// checkLatestMaintained fails when latest_findings or latest_advisories
// (kept by triggers, migrations 0022 and 0023, and by the batched
// rewrite) differ in any column from what the views compute
// from findings, targets and finding_age now.
func checkLatestMaintained(t *testing.T, s *Store, when string) {
	t.Helper()
	for _, q := range []string{
		"SELECT count(*) FROM (SELECT * FROM latest_findings EXCEPT SELECT * FROM latest_finding_rows)",
		"SELECT count(*) FROM (SELECT * FROM latest_finding_rows EXCEPT SELECT * FROM latest_findings)",
		"SELECT count(*) FROM (SELECT * FROM latest_advisories EXCEPT SELECT * FROM latest_advisory_rows)",
		"SELECT count(*) FROM (SELECT * FROM latest_advisory_rows EXCEPT SELECT * FROM latest_advisories)",
	} {
		var n int
		if err := s.db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows differ: %s", when, n, q)
		}
	}
}

// TestLatestFindingsFollowScans: the maintained rows of each target's
// latest completed scan stay what a recomputation gives through new
// scans, deletion of the latest scan, purge, retention of old scans and
// ages rewritten out of order; advisory lookups follow.
func TestLatestFindingsFollowScans(t *testing.T) {
	s, clock := openClockedStore(t)
	ctx := context.Background()
	t1 := clock.Now()
	t2, t3 := t1.Add(24*time.Hour), t1.Add(48*time.Hour)
	completeFindings(t, s, clock, "a1", Scan{TargetPath: "/a"}, t1, []finding.Finding{
		secretFinding("fpA", finding.Critical), depFinding("fpD", "GHSA-aaaa", "lodash", "4.17.20", "CVE-2021-1")})
	checkLatestMaintained(t, s, "first scan")
	completeFindings(t, s, clock, "a2", Scan{TargetPath: "/a"}, t2, []finding.Finding{
		secretFinding("fpA", finding.Critical), secretFinding("fpB", finding.High)})
	completeFindings(t, s, clock, "b1", Scan{TargetPath: "/b"}, t3, []finding.Finding{
		depFinding("fpE", "GHSA-bbbb", "lodash", "4.17.15", "cve-2021-1")})
	checkLatestMaintained(t, s, "three scans")

	vuln := func(id string) []string {
		t.Helper()
		var fps []string
		if err := s.EachVulnerabilityFinding(ctx, id, -1, func(r targets.AffectedRow) error {
			fps = append(fps, r.Fingerprint)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return fps
	}
	// /a's latest scan has no dependency finding any more; /b's alias is
	// matched whatever its case.
	if got := fmt.Sprint(vuln("CVE-2021-1")); got != "[fpE]" {
		t.Errorf("CVE-2021-1 in the latest scans: %s", got)
	}
	ta, err := s.TargetOfScan(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	firstSeen := func(fp string) time.Time {
		t.Helper()
		fs, err := s.PortfolioFindings(ctx, targets.FindingsQuery{TargetIDs: []int64{ta.ID}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Row.Fingerprint == fp {
				return f.FirstSeen
			}
		}
		t.Fatalf("%s not among the latest findings of /a", fp)
		return time.Time{}
	}
	if got := firstSeen("fpA"); !got.Equal(t1) {
		t.Errorf("fpA first seen %v, want the first scan's %v", got, t1)
	}

	// Deleting the latest scan makes the one before it current again,
	// with its dependency finding and advisory rows.
	if err := s.DeleteScan(ctx, "a2"); err != nil {
		t.Fatal(err)
	}
	checkLatestMaintained(t, s, "latest scan deleted")
	if got := fmt.Sprint(vuln("cve-2021-1")); got != "[fpD fpE]" {
		t.Errorf("CVE-2021-1 after /a's latest scan was deleted: %s", got)
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	checkLatestMaintained(t, s, "purged")

	// A new scan, then retention deletes the old one: first_seen is kept.
	completeFindings(t, s, clock, "a3", Scan{TargetPath: "/a"}, t3, []finding.Finding{secretFinding("fpA", finding.Critical)})
	if err := s.DeleteScan(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	checkLatestMaintained(t, s, "old scan retired")
	if got := firstSeen("fpA"); !got.Equal(t1) {
		t.Errorf("fpA first seen %v after its first scan was deleted, want %v", got, t1)
	}
	if got := vuln("GHSA-aaaa"); len(got) != 0 {
		t.Errorf("GHSA-aaaa is in no latest scan, got %v", got)
	}

	// An age written after the fact (a crash between completion and
	// aging, or a scan aged out of order) reaches the maintained rows.
	if _, err := s.w.Exec("DELETE FROM finding_age WHERE target_id = ?", ta.ID); err != nil {
		t.Fatal(err)
	}
	a3, _ := s.ScanByID(ctx, "a3")
	if err := s.MarkUnaged(ctx, a3.Seq); err != nil {
		t.Fatal(err)
	}
	if err := s.RecoverSightings(ctx); err != nil {
		t.Fatal(err)
	}
	checkLatestMaintained(t, s, "re-aged")
	if got := firstSeen("fpA"); !got.Equal(t3) {
		t.Errorf("fpA first seen %v after its age was rewritten from the only scan left, want %v", got, t3)
	}

	// Rows a trigger could not see (written into a completed scan) are
	// repaired when the scan is aged.
	if _, err := s.w.Exec("DELETE FROM latest_findings WHERE target_id = ?", ta.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkUnaged(ctx, a3.Seq); err != nil {
		t.Fatal(err)
	}
	if err := s.RecoverSightings(ctx); err != nil {
		t.Fatal(err)
	}
	checkLatestMaintained(t, s, "repaired")
}

// TestOverdueFollowsClockAndVerdicts: overdue counts (targets, the
// dashboard total, the findings filter) compare first_seen with the
// deadline at query time, so they follow the clock, and a hidden verdict
// takes a finding out and its removal puts it back.
func TestOverdueFollowsClockAndVerdicts(t *testing.T) {
	s, clock := openClockedStore(t)
	ctx := context.Background()
	t0 := clock.Now()
	completeFindings(t, s, clock, "a1", Scan{TargetPath: "/a"}, t0, []finding.Finding{
		secretFinding("fpC", finding.Critical), secretFinding("fpH", finding.High)})
	completeFindings(t, s, clock, "a2", Scan{TargetPath: "/a"}, t0.Add(5*24*time.Hour), []finding.Finding{
		secretFinding("fpC", finding.Critical), secretFinding("fpH", finding.High), secretFinding("fpN", finding.Critical)})
	sla, err := finding.ParseSLA("critical:7,high:30")
	if err != nil {
		t.Fatal(err)
	}
	hidden := []string{"false_positive", "accepted_risk", "wont_fix"}
	ta, _ := s.TargetOfScan(ctx, "a2")
	counts := func(now time.Time) (perTarget, total, listed int) {
		t.Helper()
		q := targets.SLA{Cutoffs: sla.Cutoffs(now)}
		sum, err := s.TargetSummaryByID(ctx, ta.ID, hidden, q)
		if err != nil {
			t.Fatal(err)
		}
		if total, err = s.OverdueTotal(ctx, hidden, q); err != nil {
			t.Fatal(err)
		}
		if listed, err = s.CountPortfolioFindings(ctx, targets.FindingsQuery{Hidden: hidden, Overdue: true, SLA: q}); err != nil {
			t.Fatal(err)
		}
		return sum.Overdue, total, listed
	}
	cases := []struct {
		after time.Duration
		want  int
	}{
		{6 * 24 * time.Hour, 0},            // nothing due yet
		{7*24*time.Hour + time.Second, 1},  // fpC (first seen t0) past 7 days
		{12*24*time.Hour + time.Second, 2}, // fpN (first seen t0+5d) too
		{30*24*time.Hour + time.Second, 3}, // fpH past 30 days
		{7*24*time.Hour - time.Second, 0},  // the clock going back
	}
	for _, c := range cases {
		a, b, l := counts(t0.Add(c.after))
		if a != c.want || b != c.want || l != c.want {
			t.Errorf("at +%v: target %d, dashboard %d, list %d overdue, want %d", c.after, a, b, l, c.want)
		}
	}
	late := t0.Add(31 * 24 * time.Hour)
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "fpC", Status: "false_positive"}); err != nil {
		t.Fatal(err)
	}
	if a, b, l := counts(late); a != 2 || b != 2 || l != 2 {
		t.Errorf("fpC a false positive: %d %d %d overdue, want 2", a, b, l)
	}
	sum, _ := s.TargetSummaryByID(ctx, ta.ID, hidden, targets.SLA{Cutoffs: sla.Cutoffs(late)})
	if sum.Open.Total() != 2 {
		t.Errorf("open %+v with fpC hidden, want 2", sum.Open)
	}
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "fpC", Status: "new"}); err != nil {
		t.Fatal(err)
	}
	if a, b, l := counts(late); a != 3 || b != 3 || l != 3 {
		t.Errorf("fpC new again: %d %d %d overdue, want 3", a, b, l)
	}
	// No policy: nothing is ever overdue.
	none, _ := finding.ParseSLA("none")
	if n, err := s.OverdueTotal(ctx, hidden, targets.SLA{Cutoffs: none.Cutoffs(late)}); err != nil || n != 0 {
		t.Errorf("overdue without a policy: %d, %v", n, err)
	}
}

// TestLatestFindingsLargeChangeInBatches: a change between scans of more
// than 20,000 findings is not rewritten in the transaction that moved the
// latest scan (it would hold the writer for seconds) but marked and
// rewritten in batches right after the scan's aging, or by the
// maintenance loop after a deletion; readers never see rows of a scan
// that is not the latest meanwhile (vulnerabilities/{id} neither).
func TestLatestFindingsLargeChangeInBatches(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	n := 21000
	ingestAll(t, s, "big1", syntheticScan("big1", n))
	ingestAll(t, s, "big2", syntheticScan("big2", n))
	stale := func() int {
		t.Helper()
		var v int
		if err := s.db.QueryRow("SELECT latest_stale FROM targets t JOIN scans s ON s.target_id = t.id WHERE s.id = 'big1'").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if stale() != 0 {
		t.Error("the rewrite after the second scan's aging did not finish")
	}
	checkLatestMaintained(t, s, "after the second large scan")
	checkR0(t, s, "big2", syntheticR0(n))
	b1, _ := s.ScanByID(ctx, "big1")
	if err := s.DeleteScan(ctx, "big2"); err != nil {
		t.Fatal(err)
	}
	if stale() != 1 {
		t.Fatal("deleting a large latest scan rewrote its target's rows in the deleting transaction")
	}
	// Meanwhile the rows left are the deleted scan's: no reader shows them.
	fs, err := s.PortfolioFindings(ctx, targets.FindingsQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.ScanID != b1.ID {
			t.Fatalf("a finding of scan %s shows while big1 is the latest", f.ScanID)
		}
	}
	if n, err := s.CountPortfolioFindings(ctx, targets.FindingsQuery{FirstSeenBefore: ptrTime(time.Now().Add(time.Hour))}); err != nil || n != 0 {
		t.Errorf("counted %d rows of a scan that is not the latest (%v)", n, err)
	}
	checkR0(t, s, "big1", 0)
	if err := s.RecoverSightings(ctx); err != nil {
		t.Fatal(err)
	}
	if stale() != 0 {
		t.Error("the maintenance rewrite did not finish")
	}
	checkLatestMaintained(t, s, "after the large latest scan was deleted")
	checkR0(t, s, "big1", syntheticR0(n))
	var rows int
	s.db.QueryRow("SELECT count(*) FROM latest_findings").Scan(&rows)
	if rows != n {
		t.Errorf("%d latest rows, want the %d of big1", rows, n)
	}
}

func ptrTime(t time.Time) *time.Time { return &t }
