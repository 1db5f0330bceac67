package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store/sqlbase"
)

type uiTestClock struct{ t time.Time }

func (c *uiTestClock) now() time.Time { return c.t }

func uiTestStore(t *testing.T) (*Store, *uiTestClock) {
	t.Helper()
	clock := &uiTestClock{t: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "ui.db"), clock.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, clock
}

func uiTestScan(t *testing.T, st *Store, target string, fs []finding.Finding) Scan {
	t.Helper()
	ctx := context.Background()
	sc, err := st.CreateScan(ctx, Scan{ID: NewID(), TargetPath: target, ScanTypes: []string{"code"}, StartedAt: st.now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.MarkScanRunning(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	for i := range fs {
		fs[i].ID = NewID()
	}
	if err := st.CompleteScan(ctx, sc.ID, ScanResult{Findings: fs, RiskScore: len(fs), SeverityCounts: map[string]int{}}); err != nil {
		t.Fatal(err)
	}
	sc, err = st.ScanByID(ctx, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func uiFinding(i int, title string) finding.Finding {
	return finding.Finding{Scanner: []string{"secrets", "gosec"}[i%2], ScanType: "code", Severity: []finding.Severity{finding.High, finding.Low}[i%3/2],
		Title: title, FilePath: fmt.Sprintf("dir/f%02d.go", i), Line: i + 1, RuleID: "R" + strconv.Itoa(i%4), Fingerprint: fmt.Sprintf("%064x", i+1),
		ComplianceTags: []string{"OWASP-A0" + strconv.Itoa(i%3+1)}, Metadata: map[string]any{"suppressed_by": nil}}
}

func ords(fs []OrderedFinding) []int {
	out := make([]int, len(fs))
	for i, f := range fs {
		out[i] = f.Ord
	}
	return out
}

func TestConsoleFindingsKeysetAndFilters(t *testing.T) {
	st, _ := uiTestStore(t)
	ctx := context.Background()
	var fs []finding.Finding
	for i := 0; i < 30; i++ {
		f := uiFinding(i, "Title "+strconv.Itoa(i))
		if i == 7 {
			f.Title = `Value <b> & "quoted" 100% of_it \ here`
		}
		if i%5 == 0 {
			f.Metadata["suppressed_by"] = "scand:ignore R0"
		}
		fs = append(fs, f)
	}
	sc := uiTestScan(t, st, "/t", fs)
	if _, err := st.SetTriage(ctx, TriageState{Fingerprint: fs[3].Fingerprint, Status: "fixed"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetTriage(ctx, TriageState{Fingerprint: fs[4].Fingerprint, Status: "new"}); err != nil {
		t.Fatal(err)
	}
	page := func(q ConsoleFindingQuery) []int {
		t.Helper()
		if q.Limit == 0 {
			q.Limit = 100
		}
		q.CountUpTo = 1000
		pg, err := st.ConsoleFindings(ctx, sc.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		if q.Limit >= 100 && (pg.Total != len(pg.Rows) || pg.Capped) {
			t.Fatalf("%+v: count %d (capped %v), rows %d", q, pg.Total, pg.Capped, len(pg.Rows))
		}
		return ords(pg.Rows)
	}
	eq := func(name string, got []int, want ...int) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	yes, no := true, false
	eq("after 25", page(ConsoleFindingQuery{After: 25, Before: -1, Limit: 10}), 26, 27, 28, 29)
	eq("before 5", page(ConsoleFindingQuery{After: -1, Before: 5, Limit: 3}), 2, 3, 4)
	eq("after wins over before", page(ConsoleFindingQuery{After: 27, Before: 3, Limit: 3}), 28, 29)
	eq("triage fixed", page(ConsoleFindingQuery{After: -1, Before: -1, Triage: []string{"fixed"}}), 3)
	if got := page(ConsoleFindingQuery{After: -1, Before: -1, Triage: []string{"new"}}); len(got) != 29 {
		t.Errorf("no verdict and an explicit new both count as new: %d rows", len(got))
	}
	eq("suppressed", page(ConsoleFindingQuery{After: -1, Before: -1, Suppressed: &yes}), 0, 5, 10, 15, 20, 25)
	if got := page(ConsoleFindingQuery{After: -1, Before: -1, Suppressed: &no}); len(got) != 24 {
		t.Errorf("unsuppressed: %d", len(got))
	}
	eq("scanner and severity", page(ConsoleFindingQuery{After: -1, Before: -1, Scanners: []string{"gosec"}, Severities: []string{"low"}}), 5, 11, 17, 23, 29)
	eq("compliance", page(ConsoleFindingQuery{After: -1, Before: -1, Compliance: []string{"OWASP-A02"}, Limit: 100})[:3], 1, 4, 7)
	// Text: title, file or rule, ASCII case-insensitive, taken literally.
	eq("file", page(ConsoleFindingQuery{After: -1, Before: -1, Text: "DIR/F2"}), 20, 21, 22, 23, 24, 25, 26, 27, 28, 29)
	eq("rule", page(ConsoleFindingQuery{After: -1, Before: -1, Text: "r3", Limit: 100})[:2], 3, 7)
	eq("title", page(ConsoleFindingQuery{After: -1, Before: -1, Text: "title 1"}), 1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
	eq("percent is literal", page(ConsoleFindingQuery{After: -1, Before: -1, Text: "100%"}), 7)
	eq("underscore is literal", page(ConsoleFindingQuery{After: -1, Before: -1, Text: "of_it"}), 7)
	eq("characters JSON escapes", page(ConsoleFindingQuery{After: -1, Before: -1, Text: `<b> & "QUOTED"`}), 7)
	eq("backslash", page(ConsoleFindingQuery{After: -1, Before: -1, Text: `\ here`}), 7)
	eq("no wildcard", page(ConsoleFindingQuery{After: -1, Before: -1, Text: "%"}), 7)
	if pg, _ := st.ConsoleFindings(ctx, sc.ID, ConsoleFindingQuery{After: 2, Before: -1, Limit: 1, Text: "title", CountUpTo: 10}); pg.Total != 10 || !pg.Capped {
		t.Errorf("text count %d (capped %v), want 10 and capped", pg.Total, pg.Capped)
	}
	if pg, _ := st.ConsoleFindings(ctx, sc.ID, ConsoleFindingQuery{After: -1, Before: -1, Limit: 1, Severities: []string{"high"}, CountUpTo: 10}); pg.Total != 20 || pg.Capped {
		t.Errorf("facet count %d (capped %v), want exactly 20", pg.Total, pg.Capped)
	}
}

func TestConsoleCompareOccurrenceAndOverview(t *testing.T) {
	st, clock := uiTestStore(t)
	ctx := context.Background()
	f := func(i int) finding.Finding { return uiFinding(i, "T"+strconv.Itoa(i)) }
	a := uiTestScan(t, st, "/repo", []finding.Finding{f(0), f(1), f(2)})
	clock.t = clock.t.Add(time.Hour)
	other := uiTestScan(t, st, "/elsewhere", []finding.Finding{f(9)})
	clock.t = clock.t.Add(time.Hour)
	b := uiTestScan(t, st, "/repo", []finding.Finding{f(1), f(2), f(3), f(4)})

	counts, err := st.CompareCounts(ctx, a.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if counts[ConsoleCompareNew] != 2 || counts[ConsoleCompareFixed] != 1 || counts[ConsoleCompareUnchanged] != 2 {
		t.Fatalf("compare counts %v", counts)
	}
	newRows, _ := st.CompareFindings(ctx, a.ID, b.ID, ConsoleCompareNew, -1, 1)
	more, _ := st.CompareFindings(ctx, a.ID, b.ID, ConsoleCompareNew, newRows[0].Ord, 10)
	if len(newRows) != 1 || newRows[0].Title != "T3" || len(more) != 1 || more[0].Title != "T4" {
		t.Fatalf("new pages: %v then %v", newRows, more)
	}
	if fixed, _ := st.CompareFindings(ctx, a.ID, b.ID, ConsoleCompareFixed, -1, 10); len(fixed) != 1 || fixed[0].Title != "T0" {
		t.Fatalf("fixed %v", fixed)
	}
	if _, err := st.CompareFindings(ctx, a.ID, b.ID, "bogus", -1, 10); err == nil {
		t.Fatal("an unknown compare kind is accepted")
	}

	prev, err := st.PreviousCompletedScan(ctx, b.ID)
	if err != nil || prev.ID != a.ID {
		t.Fatalf("previous of b: %v %v (other target %s must not count)", prev.ID, err, other.ID)
	}
	if _, err := st.PreviousCompletedScan(ctx, a.ID); err != ErrNotFound {
		t.Fatalf("previous of the first scan: %v", err)
	}

	fw, sc, err := st.FindingOccurrence(ctx, f(1).Fingerprint, "")
	if err != nil || sc.ID != b.ID || fw.Title != "T1" {
		t.Fatalf("newest occurrence: %v %v %v", sc.ID, fw.Title, err)
	}
	if _, sc, _ := st.FindingOccurrence(ctx, f(1).Fingerprint, a.ID); sc.ID != a.ID {
		t.Fatalf("occurrence in a: %v", sc.ID)
	}
	if _, _, err := st.FindingOccurrence(ctx, f(0).Fingerprint, b.ID); err != ErrNotFound {
		t.Fatalf("occurrence in a scan without it: %v", err)
	}
	scans, _ := st.ScansWithFingerprint(ctx, f(2).Fingerprint, 10)
	if len(scans) != 2 || scans[0].ID != b.ID || scans[1].ID != a.ID {
		t.Fatalf("scans with the fingerprint: %v", scans)
	}

	if n, _ := st.CountScans(ctx, ScanFilter{TargetPath: "/repo", Statuses: []string{StatusCompleted}}); n != 2 {
		t.Fatalf("CountScans %d", n)
	}
	if targets, _ := st.ScanTargets(ctx, 10); fmt.Sprint(targets) != "[/repo /elsewhere]" {
		t.Fatalf("targets %v", targets)
	}

	if _, err := st.SetTriage(ctx, TriageState{Fingerprint: f(3).Fingerprint, Status: "false_positive"}); err != nil {
		t.Fatal(err)
	}
	classes, err := st.CurrentFindingClasses(ctx, []string{"false_positive", "accepted_risk", "wont_fix"})
	if err != nil {
		t.Fatal(err)
	}
	// Latest of /repo is b (T1 high, T2 low, T3 high hidden, T4 high), of
	// /elsewhere the scan with T9 (high); a's T0 is no longer open.
	if got := fmt.Sprint(classes); got != "[{high hidden 1} {high live 3} {low live 1}]" {
		t.Fatalf("classes %s", got)
	}

	days, err := st.ConsoleActivity(ctx, clock.t.Add(-48*time.Hour), clock.t.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].ScansStarted != 3 || days[0].Findings != 8 || days[0].RiskScore == nil || *days[0].RiskScore != 4 {
		t.Fatalf("activity %+v", days)
	}
}

// TestConsoleFindingsAgreeWithAFilterInGo checks every page and count of
// random queries against filtering the findings in Go, on a scan stored
// in canonical order (a few ranges per severity and scanner) and on one
// stored unordered (more ranges than a page walks one by one).
func TestConsoleFindingsAgreeWithAFilterInGo(t *testing.T) {
	for _, canonical := range []bool{true, false} {
		t.Run(fmt.Sprintf("canonical=%v", canonical), func(t *testing.T) {
			st, _ := uiTestStore(t)
			ctx := context.Background()
			rnd := rand.New(rand.NewPCG(7, uint64(sqlbase.BoolInt(canonical))))
			sevs := []finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low}
			scanners := []string{"bandit", "gosec", "secrets"}
			var fs []finding.Finding
			for i := 0; i < 400; i++ {
				f := finding.Finding{Scanner: scanners[rnd.IntN(3)], ScanType: []string{"code", "iac"}[rnd.IntN(2)], Severity: sevs[rnd.IntN(4)],
					Title: fmt.Sprintf("Issue %d in Loader", i), FilePath: fmt.Sprintf("pkg%d/file%03d.go", i%7, i), Line: i + 1,
					RuleID: "R" + strconv.Itoa(rnd.IntN(9)), Fingerprint: fmt.Sprintf("%064x", i+1),
					ComplianceTags: []string{"OWASP-A0" + strconv.Itoa(rnd.IntN(3)+1)}, Metadata: map[string]any{"suppressed_by": nil}}
				if rnd.IntN(8) == 0 {
					f.Metadata["suppressed_by"] = "scand:ignore"
				}
				fs = append(fs, f)
			}
			if canonical {
				finding.Sort(fs)
			}
			sc := uiTestScan(t, st, "/t", fs)
			verdict := map[string]string{}
			for i := 0; i < len(fs); i += 1 + rnd.IntN(6) {
				status := []string{"triaged", "false_positive", "fixed", "new"}[rnd.IntN(4)]
				if _, err := st.SetTriage(ctx, TriageState{Fingerprint: fs[i].Fingerprint, Status: status}); err != nil {
					t.Fatal(err)
				}
				verdict[fs[i].Fingerprint] = status
			}
			pick := func(all []string) []string {
				var out []string
				for _, v := range all {
					if rnd.IntN(3) == 0 {
						out = append(out, v)
					}
				}
				return out
			}
			yes, no := true, false
			for round := 0; round < 61; round++ {
				q := ConsoleFindingQuery{Severities: pick([]string{"critical", "high", "medium", "low"}), Scanners: pick(scanners),
					ScanTypes: pick([]string{"code", "iac"}), Triage: pick([]string{"new", "triaged", "false_positive", "fixed"}),
					Compliance: pick([]string{"OWASP-A01", "OWASP-A02", "OWASP-A03"}), Text: []string{"", "", "loader", "PKG3/", "issue 1"}[rnd.IntN(5)],
					Limit: 1 + rnd.IntN(40), CountUpTo: 1000}
				q.Suppressed = []*bool{nil, &yes, &no}[rnd.IntN(3)]
				if round == 0 {
					q = ConsoleFindingQuery{Limit: 50, CountUpTo: 1000} // no filter at all
				}
				in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
				var want []int
				for ord, f := range fs {
					v := verdict[f.Fingerprint]
					if v == "" {
						v = "new"
					}
					supp := f.Metadata["suppressed_by"] != nil
					text := strings.ToLower(q.Text)
					if in(q.Severities, string(f.Severity)) && in(q.Scanners, f.Scanner) && in(q.ScanTypes, f.ScanType) && in(q.Triage, v) &&
						in(q.Compliance, f.ComplianceTags[0]) && (q.Suppressed == nil || *q.Suppressed == supp) &&
						(text == "" || strings.Contains(strings.ToLower(f.Title), text) || strings.Contains(strings.ToLower(f.FilePath), text) || strings.Contains(strings.ToLower(f.RuleID), text)) {
						want = append(want, ord)
					}
				}
				var forward, backward []int
				q.After, q.Before = -1, -1
				for pages := 0; ; pages++ {
					pg, err := st.ConsoleFindings(ctx, sc.ID, q)
					if err != nil {
						t.Fatal(err)
					}
					if pg.Total != len(want) || pg.Capped {
						t.Fatalf("%+v: total %d (capped %v), want %d", q, pg.Total, pg.Capped, len(want))
					}
					for _, r := range pg.Rows {
						if fs[r.Ord].Fingerprint != r.Fingerprint {
							t.Fatalf("row at %d is %s", r.Ord, r.Fingerprint)
						}
					}
					forward = append(forward, ords(pg.Rows)...)
					if len(pg.Rows) < q.Limit || pages > len(fs) {
						break
					}
					q.After = pg.Rows[len(pg.Rows)-1].Ord
				}
				q.After, q.Before = -1, len(fs)
				for pages := 0; ; pages++ {
					pg, err := st.ConsoleFindings(ctx, sc.ID, q)
					if err != nil {
						t.Fatal(err)
					}
					backward = append(ords(pg.Rows), backward...)
					if len(pg.Rows) < q.Limit || pages > len(fs) {
						break
					}
					q.Before = pg.Rows[0].Ord
				}
				if fmt.Sprint(forward) != fmt.Sprint(want) || fmt.Sprint(backward) != fmt.Sprint(want) {
					t.Fatalf("%+v:\nforward  %v\nbackward %v\nwant     %v", q, forward, backward, want)
				}
			}
		})
	}
}
