package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"scand/finding"
)

// digestOf renders what GET /vulnerabilities/{id} is made of, compactly:
// per target "name:findings/open", per package "version>fixed@targets",
// then each listed finding "fingerprint=verdict@scan".
func digestOf(t *testing.T, s *Store, id string, hidden []string, limit int) string {
	t.Helper()
	d, err := s.Vulnerability(context.Background(), id, hidden, limit)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, a := range d.Targets {
		parts = append(parts, fmt.Sprintf("%s:%d/%d", a.TargetName, a.Findings, a.Open))
	}
	parts = append(parts, "|")
	for _, p := range d.Packages {
		parts = append(parts, fmt.Sprintf("%s@%s>%s@%v", p.Name, p.Version, strings.Join(p.FixedVersions, ","), p.TargetIDs))
	}
	parts = append(parts, "|")
	for _, f := range d.Findings {
		parts = append(parts, fmt.Sprintf("%s=%s@%s", f.Fingerprint, f.Verdict, f.ScanID))
	}
	return fmt.Sprintf("%d %s", d.Total, strings.Join(parts, " "))
}

// TestVulnerabilityFollowsEveryChange: GET /vulnerabilities/{id} reads
// latest_advisories alone (migration 0023); its per-target sums, open
// counts, packages and listed findings stay what the findings say through
// a verdict set and cleared, new scans, deletion of the latest scan,
// retention of an old one, and a re-evaluation run, by the rule id and by
// an alias alike.
func TestVulnerabilityFollowsEveryChange(t *testing.T) {
	s, clock := openClockedStore(t)
	ctx := context.Background()
	t1 := clock.Now()
	hidden := []string{"false_positive", "accepted_risk", "wont_fix"}
	completeFindings(t, s, clock, "a1", Scan{TargetPath: "/a"}, t1, []finding.Finding{
		depFinding("fpA1", "GHSA-aaaa", "lodash", "4.17.20", "CVE-2021-1"),
		depFinding("fpA2", "GHSA-aaaa", "lodash", "4.17.20", "CVE-2021-1"),
		secretFinding("fpS", finding.High)})
	completeFindings(t, s, clock, "b1", Scan{TargetPath: "/b"}, t1.Add(time.Hour), []finding.Finding{
		depFinding("fpB", "GHSA-bbbb", "lodash", "4.17.15", "cve-2021-1")})
	ta, _ := s.TargetOfScan(ctx, "a1")
	tb, _ := s.TargetOfScan(ctx, "b1")
	ids := fmt.Sprintf("[%d]", ta.ID)
	both := func(want string) {
		t.Helper()
		checkLatestMaintained(t, s, want)
		for _, id := range []string{"CVE-2021-1", "cve-2021-1"} {
			if got := digestOf(t, s, id, hidden, 100); got != want {
				t.Errorf("%s:\n got %s\nwant %s", id, got, want)
			}
		}
	}
	both(fmt.Sprintf("3 /a:2/2 /b:1/1 | lodash@4.17.20>9.9.9@%s lodash@4.17.15>9.9.9@[%d] | fpA1=new@a1 fpA2=new@a1 fpB=new@b1", ids, tb.ID))
	if got, want := digestOf(t, s, "ghsa-aaaa", hidden, 1), fmt.Sprintf("2 /a:2/2 | lodash@4.17.20>9.9.9@%s | fpA1=new@a1", ids); got != want {
		t.Errorf("by the rule id, limit 1:\n got %s\nwant %s", got, want)
	}

	// A verdict is read where it is kept: open and the listed verdict
	// follow a triage and its reversal.
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "fpA1", Status: "false_positive"}); err != nil {
		t.Fatal(err)
	}
	both(fmt.Sprintf("3 /a:2/1 /b:1/1 | lodash@4.17.20>9.9.9@%s lodash@4.17.15>9.9.9@[%d] | fpA1=false_positive@a1 fpA2=new@a1 fpB=new@b1", ids, tb.ID))
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "fpA1", Status: "triaged"}); err != nil {
		t.Fatal(err)
	}
	both(fmt.Sprintf("3 /a:2/2 /b:1/1 | lodash@4.17.20>9.9.9@%s lodash@4.17.15>9.9.9@[%d] | fpA1=triaged@a1 fpA2=new@a1 fpB=new@b1", ids, tb.ID))

	// A new scan of /a fixed one finding and upgraded the other.
	fixed := depFinding("fpA2", "GHSA-aaaa", "lodash", "4.17.21", "CVE-2021-1")
	fixed.Metadata["fixed_version"] = "4.17.22"
	completeFindings(t, s, clock, "a2", Scan{TargetPath: "/a"}, t1.Add(2*time.Hour), []finding.Finding{fixed})
	both(fmt.Sprintf("2 /a:1/1 /b:1/1 | lodash@4.17.21>4.17.22@%s lodash@4.17.15>9.9.9@[%d] | fpA2=new@a2 fpB=new@b1", ids, tb.ID))

	// Deleting the latest scan brings the one before back.
	if err := s.DeleteScan(ctx, "a2"); err != nil {
		t.Fatal(err)
	}
	both(fmt.Sprintf("3 /a:2/2 /b:1/1 | lodash@4.17.20>9.9.9@%s lodash@4.17.15>9.9.9@[%d] | fpA1=triaged@a1 fpA2=new@a1 fpB=new@b1", ids, tb.ID))

	// Retention: a scan without the advisory, then the old one goes.
	completeFindings(t, s, clock, "a3", Scan{TargetPath: "/a"}, t1.Add(3*time.Hour), []finding.Finding{secretFinding("fpS", finding.High)})
	if err := s.DeleteScan(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	both(fmt.Sprintf("1 /b:1/1 | lodash@4.17.15>9.9.9@[%d] | fpB=new@b1", tb.ID))
	if got := digestOf(t, s, "GHSA-aaaa", hidden, 100); got != "0 | |" {
		t.Errorf("GHSA-aaaa is in no latest scan: %s", got)
	}

	// A re-evaluation run of /b's stored components is a scan of its own:
	// its matches replace the ones before.
	completeFindings(t, s, clock, "b2", Scan{TargetPath: "/b", Source: SourceReevaluation, BasedOnScan: "b1"}, t1.Add(4*time.Hour), []finding.Finding{
		depFinding("fpB", "GHSA-bbbb", "lodash", "4.17.15", "CVE-2021-1"),
		depFinding("fpB2", "GHSA-cccc", "minimist", "1.2.0", "CVE-2021-1")})
	if tb2, _ := s.TargetOfScan(ctx, "b2"); tb2.ID != tb.ID {
		t.Fatalf("the re-evaluation landed on target %d, not /b's %d", tb2.ID, tb.ID)
	}
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "fpB2", Status: "accepted_risk"}); err != nil {
		t.Fatal(err)
	}
	b := fmt.Sprintf("[%d]", tb.ID)
	both(fmt.Sprintf("2 /b:2/1 | lodash@4.17.15>9.9.9@%s minimist@1.2.0>9.9.9@%s | fpB=new@b2 fpB2=accepted_risk@b2", b, b))
}

// checkR0 fails unless advisory R0 (rule of every 550th finding of
// syntheticScan: dependency every 50th, rule R(i%11)) counts, sums and
// lists exactly total findings, all of scan.
func checkR0(t *testing.T, s *Store, scan string, total int) {
	t.Helper()
	d, err := s.Vulnerability(context.Background(), "r0", nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, tg := range d.Targets {
		listed += tg.Findings
	}
	if d.Total != total || listed != total || len(d.Findings) != min(total, 1000) {
		t.Errorf("R0 in %s: total %d, targets sum %d, %d listed, want %d", scan, d.Total, listed, len(d.Findings), total)
	}
	for _, f := range d.Findings {
		if f.ScanID != scan {
			t.Fatalf("a finding of scan %s listed while %s is the latest", f.ScanID, scan)
		}
	}
}

func syntheticR0(n int) int {
	c := 0
	for i := 0; i < n; i += 50 {
		if i%11 == 0 {
			c++
		}
	}
	return c
}
