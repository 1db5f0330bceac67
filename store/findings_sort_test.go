package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"scand/finding"
	"scand/store/findings"
)

// TestConsoleFindingsSorted: every order is total and stable, pages
// resume after the last key forward and backward (from the last page),
// a page number is the same rows as the keyset walk, and the filters and
// the count do not depend on the order.
func TestConsoleFindingsSorted(t *testing.T) {
	st, clock := uiTestStore(t)
	ctx := context.Background()
	mk := func(n int) []finding.Finding {
		var fs []finding.Finding
		for i := 0; i < n; i++ {
			f := uiFinding(i, "Title "+strconv.Itoa(i))
			// Files repeat, so the line and then the position break ties.
			f.FilePath = fmt.Sprintf("dir/f%d.go", (i*7)%5)
			f.Line = (i * 13) % 4
			if i%6 == 0 {
				f.Metadata["suppressed_by"] = "scand:ignore"
			}
			fs = append(fs, f)
		}
		return fs
	}
	uiTestScan(t, st, "/sorted", mk(20))
	clock.t = clock.t.Add(48 * time.Hour)
	sc := uiTestScan(t, st, "/sorted", mk(45))
	if _, err := st.SetTriage(ctx, TriageState{Fingerprint: fmt.Sprintf("%064x", 3), Status: "fixed"}); err != nil {
		t.Fatal(err)
	}
	all, err := st.ConsoleFindings(ctx, sc.ID, ConsoleFindingQuery{After: -1, Before: -1, Limit: 1000})
	if err != nil || len(all.Rows) != 45 {
		t.Fatalf("%d rows, %v", len(all.Rows), err)
	}
	firstSeen := func(f OrderedFinding) string {
		n, _ := strconv.ParseInt(f.Fingerprint, 16, 64)
		if n <= 20 {
			return "old"
		}
		return "new"
	}
	less := map[string]func(a, b OrderedFinding) int{
		findings.SortFile: func(a, b OrderedFinding) int {
			return cmp.Or(cmp.Compare(a.FilePath, b.FilePath), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Ord, b.Ord))
		},
		findings.SortScanner: func(a, b OrderedFinding) int {
			return cmp.Or(cmp.Compare(a.Scanner, b.Scanner), cmp.Compare(a.Ord, b.Ord))
		},
		findings.SortRule: func(a, b OrderedFinding) int {
			return cmp.Or(cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.Ord, b.Ord))
		},
		findings.SortFirstSeen: func(a, b OrderedFinding) int {
			// "new" > "old" is the wrong way round: old first.
			return cmp.Or(-cmp.Compare(firstSeen(a), firstSeen(b)), cmp.Compare(a.Ord, b.Ord))
		},
	}
	yes := true
	filters := []ConsoleFindingQuery{{}, {Severities: []string{"high"}}, {Suppressed: &yes}, {Triage: []string{"new"}, Scanners: []string{"gosec"}}, {Text: "Title 1"}}
	for sort, order := range less {
		for _, fq := range filters {
			name := fmt.Sprintf("%s %+v", sort, fq)
			// The expected order: the canonical rows that match, sorted.
			cq := fq
			cq.After, cq.Before, cq.Limit, cq.CountUpTo = -1, -1, 1000, 1000
			match, err := st.ConsoleFindings(ctx, sc.ID, cq)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(match.Rows)
			slices.SortFunc(want, order)
			q := fq
			q.Sort, q.Limit, q.CountUpTo = sort, 4, 1000
			var got []int
			var after *findings.SortKey
			for pages := 0; ; pages++ {
				q.AfterKey = after
				pg, err := st.ConsoleFindings(ctx, sc.ID, q)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if pg.Total != len(want) {
					t.Fatalf("%s: total %d, want %d", name, pg.Total, len(want))
				}
				// A jump to this page number gives the same rows.
				jq := q
				jq.AfterKey, jq.Skip = nil, pages*4
				jump, err := st.ConsoleFindings(ctx, sc.ID, jq)
				if err != nil || fmt.Sprint(ords(jump.Rows)) != fmt.Sprint(ords(pg.Rows)) {
					t.Fatalf("%s: page %d by number %v, by cursor %v (%v)", name, pages+1, ords(jump.Rows), ords(pg.Rows), err)
				}
				got = append(got, ords(pg.Rows)...)
				if len(pg.Rows) < 4 {
					break
				}
				after = &pg.Rows[len(pg.Rows)-1].Key
			}
			if fmt.Sprint(got) != fmt.Sprint(ords(want)) {
				t.Fatalf("%s forward: %v, want %v", name, got, ords(want))
			}
			// Backward from the last page.
			var back []int
			q.AfterKey, q.Last = nil, true
			for {
				pg, err := st.ConsoleFindings(ctx, sc.ID, q)
				if err != nil {
					t.Fatal(err)
				}
				back = append(ords(pg.Rows), back...)
				if len(pg.Rows) < 4 {
					break
				}
				q.Last, q.BeforeKey = false, &pg.Rows[0].Key
			}
			q.BeforeKey = nil
			if fmt.Sprint(back) != fmt.Sprint(ords(want)) {
				t.Fatalf("%s backward: %v, want %v", name, back, ords(want))
			}
		}
	}
}
