package reportdata

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/finding/excerpt"
	"scand/store"
	"scand/store/excerpts"
	"scand/store/targets"
)

// TestAgedRowsKeepEveryRowIntact: the rows AgedRows holds across a
// batch (copies of rows whose buffers the store reuses) come out as the
// store gave them, descriptions stored apart included, each with its
// target's sighting.
func TestAgedRowsKeepEveryRowIntact(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var fs []finding.Finding
	n := 2*ageBatch + 37
	for i := 0; i < n; i++ {
		desc := fmt.Sprintf("short %d", i)
		if i%3 == 0 {
			// Long and shared: stored once in finding_texts, apart from the body.
			desc = strings.Repeat(fmt.Sprintf("shared text %d ", i%7), 8)
		}
		fs = append(fs, finding.Finding{Scanner: "secrets", ScanType: "code", Severity: finding.Severities[i%5], Title: fmt.Sprintf("t%d", i),
			Description: desc, RuleID: "r", FilePath: fmt.Sprintf("f%04d.txt", i), Line: 1})
	}
	sc := completeScan(t, st, fs)
	var want [][]byte
	for row, err := range st.FindingRows(ctx, sc, store.FindingQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := row.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, b)
	}
	if len(want) != n {
		t.Fatalf("%d rows stored, want %d", len(want), n)
	}
	i := 0
	for aged, err := range AgedRows(ctx, st, sc, nil, st.FindingRows(ctx, sc, store.FindingQuery{})) {
		if err != nil {
			t.Fatal(err)
		}
		got, err := aged.Row.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[i]) {
			t.Fatalf("row %d:\ngot  %s\nwant %s", i, got, want[i])
		}
		var f finding.Finding
		if err := json.Unmarshal(want[i], &f); err != nil {
			t.Fatal(err)
		}
		token, _ := json.Marshal(f.Description)
		if raw, ok := aged.Row.Raw(nil); !ok || !bytes.Equal(raw.Description, token) {
			t.Fatalf("row %d: raw description %s, want %s", i, raw.Description, token)
		}
		if aged.Seen == nil || !aged.Seen.First.Equal(*sc.CompletedAt) || !aged.Seen.Last.Equal(*sc.CompletedAt) {
			t.Fatalf("row %d: seen %+v, want the scan's completion %v", i, aged.Seen, sc.CompletedAt)
		}
		i++
	}
	if i != n {
		t.Fatalf("AgedRows gave %d rows of %d", i, n)
	}
}

// TestAgedRowsLongReadTakesOrderedAges: a read of a whole scan switches
// from batch lookups to an ordered pass over its ages (a scratch file
// beside the database while it lasts), and every row's sighting and
// excerpt, looked up beside the rows, are the ones the lookups give:
// first seen by an older scan or by this one, with an excerpt or
// without; a filtered read over part of the scan keeps the lookups.
func TestAgedRowsLongReadTakesOrderedAges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openTestStore(t, dir)
	n := 2*ageStreamAfter + 4*ageBatch + 123
	mk := func(i int) finding.Finding {
		return finding.Finding{Scanner: "secrets", ScanType: "code", Severity: finding.Severities[i%5], Title: fmt.Sprintf("t%d", i),
			Description: "d", RuleID: "r", FilePath: fmt.Sprintf("f%05d.txt", i), Line: 1}
	}
	var older, all []finding.Finding
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			older = append(older, mk(i))
		}
		all = append(all, mk(i))
	}
	first := completeScan(t, st, older)
	time.Sleep(5 * time.Millisecond) // distinct completion times
	sc := completeScan(t, st, all)
	// Excerpts for all findings but every seventh.
	spool, err := st.SpoolExcerpts(ctx, sc.Seq)
	if err != nil {
		t.Fatal(err)
	}
	var items []excerpts.Item
	i := 0
	for row, err := range st.FindingRows(ctx, sc, store.FindingQuery{}) {
		if err != nil {
			t.Fatal(err)
		}
		if i++; i%7 != 0 {
			items = append(items, excerpts.Item{Fingerprint: row.Fingerprint, Excerpt: &excerpt.Excerpt{StartLine: 1, Line: 1, Lines: []string{fmt.Sprintf("line of %d", i)}}})
		}
	}
	if err := spool.Add(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := spool.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	spool.Close()
	look := st.Excerpts.ExcerptLookup(sc.Seq)

	scratchFiles := func() int {
		m, _ := filepath.Glob(filepath.Join(dir, ".scand.db.ingest-*.tmp"))
		return len(m)
	}
	for _, q := range []store.FindingQuery{{}, {Severities: []string{"high"}}} {
		rows, fromFirst, withExcerpt, scratchOpen := 0, 0, 0, 0
		batchFps := []string{}
		var seen []*time.Time
		var gotKept []*excerpt.Excerpt
		check := func() {
			ages, err := st.AgesOfScan(ctx, sc.ID, batchFps)
			if err != nil {
				t.Fatal(err)
			}
			kept := look.GetMany(ctx, batchFps)
			for i, fp := range batchFps {
				if !reflect.DeepEqual(gotKept[i], kept[fp]) {
					t.Fatalf("row of %s: excerpt %+v, the lookup has %+v", fp, gotKept[i], kept[fp])
				}
				if gotKept[i] != nil {
					withExcerpt++
				}
				a, ok := ages[fp]
				if !ok || seen[i] == nil || !a.FirstSeen.Equal(*seen[i]) {
					t.Fatalf("row of %s: first seen %v, finding_age has %v (%v)", fp, seen[i], a.FirstSeen, ok)
				}
				if a.FirstSeen.Equal(*first.CompletedAt) {
					fromFirst++
				}
			}
			batchFps, seen, gotKept = batchFps[:0], seen[:0], gotKept[:0]
		}
		for aged, err := range AgedRows(ctx, st, sc, look, st.FindingRows(ctx, sc, q)) {
			if err != nil {
				t.Fatal(err)
			}
			rows++
			if rows > ageStreamAfter+ageBatch {
				scratchOpen = max(scratchOpen, scratchFiles())
			}
			var f *time.Time
			if aged.Seen != nil {
				f = &aged.Seen.First
			}
			batchFps, seen, gotKept = append(batchFps, aged.Row.Fingerprint), append(seen, f), append(gotKept, aged.Excerpt)
			if len(batchFps) == 400 {
				check()
			}
		}
		check()
		whole := len(q.Severities) == 0
		if whole && (rows != n || fromFirst != len(older) || withExcerpt != len(items)) {
			t.Fatalf("whole read: %d rows, %d first seen by the older scan, %d with an excerpt; want %d, %d and %d",
				rows, fromFirst, withExcerpt, n, len(older), len(items))
		}
		if want := map[bool]int{true: 1, false: 0}[whole]; scratchOpen != want {
			t.Errorf("query %+v: %d ordered passes open, want %d", q, scratchOpen, want)
		}
		if scratchFiles() != 0 {
			t.Fatalf("a scratch file is left after the read")
		}
	}
}

// TestAgedRowsStopsCleanly: a reader that stops mid-scan (a client gone)
// ends the lookups in flight and removes the ordered pass's scratch file.
func TestAgedRowsStopsCleanly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openTestStore(t, dir)
	var fs []finding.Finding
	for i := 0; i < 3*ageStreamAfter; i++ {
		fs = append(fs, finding.Finding{Scanner: "secrets", ScanType: "code", Severity: finding.High, Title: "t", RuleID: "r",
			FilePath: fmt.Sprintf("f%05d.txt", i), Line: 1})
	}
	sc := completeScan(t, st, fs)
	for _, stopAt := range []int{1, ageBatch, ageStreamAfter + 2*ageBatch + 7} {
		n := 0
		for aged, err := range AgedRows(ctx, st, sc, st.Excerpts.ExcerptLookup(sc.Seq), st.FindingRows(ctx, sc, store.FindingQuery{})) {
			if err != nil {
				t.Fatal(err)
			}
			if aged.Seen == nil {
				t.Fatalf("row %d has no sighting", n)
			}
			if n++; n == stopAt {
				break
			}
		}
		if n != stopAt {
			t.Fatalf("read %d rows, want %d", n, stopAt)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".scand.db.ingest-*.tmp")); len(m) != 0 {
			t.Fatalf("stopped at %d: scratch files left: %v", stopAt, m)
		}
	}
}

// completeScan stores fs as one completed scan of the target "/t".
func completeScan(t *testing.T, st *store.Store, fs []finding.Finding) store.Scan {
	t.Helper()
	ctx := context.Background()
	id := store.NewID()
	if _, err := st.CreateScan(ctx, store.Scan{ID: id, TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := st.CompleteScan(ctx, id, store.ScanResult{Findings: finding.Prepare(id, fs, nil, store.NewID)}); err != nil {
		t.Fatal(err)
	}
	sc, err := st.ScanByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// openTestStore opens a store in dir, closed when the test ends.
func openTestStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSeenOfCountsTheScanBeforeItsSightingsAreFolded: between a scan's
// completion and the fold of its sightings into finding_age, a finding
// seen by an earlier scan reads as last seen by this one, as it will
// after the fold; a row that already holds the scan is left as it is.
func TestSeenOfCountsTheScanBeforeItsSightingsAreFolded(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	t1, t2 := t0.Add(24*time.Hour), t0.Add(48*time.Hour)
	done := store.Scan{Status: store.StatusCompleted, CompletedAt: &t1}
	for _, tc := range []struct {
		name        string
		sc          store.Scan
		age         targets.Age
		ok          bool
		first, last time.Time
		none        bool
	}{
		{"earlier row, not folded yet", done, targets.Age{FirstSeen: t0, LastSeen: t0}, true, t0, t1, false},
		{"row already folded", done, targets.Age{FirstSeen: t0, LastSeen: t2}, true, t0, t2, false},
		{"no row yet", done, targets.Age{}, false, t1, t1, false},
		{"running scan, earlier row", store.Scan{Status: store.StatusRunning}, targets.Age{FirstSeen: t0, LastSeen: t0}, true, t0, t0, false},
		{"running scan, no row", store.Scan{Status: store.StatusRunning}, targets.Age{}, false, time.Time{}, time.Time{}, true},
	} {
		got := SeenOf(tc.sc, tc.age, tc.ok)
		if tc.none {
			if got != nil {
				t.Errorf("%s: %+v, want none", tc.name, got)
			}
			continue
		}
		if got == nil || !got.First.Equal(tc.first) || !got.Last.Equal(tc.last) {
			t.Errorf("%s: %+v, want first %v last %v", tc.name, got, tc.first, tc.last)
		}
	}
}
