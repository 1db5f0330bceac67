package reportdata

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
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
	id := store.NewID()
	if _, err := st.CreateScan(ctx, store.Scan{ID: id, TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	st.MarkScanRunning(ctx, id)
	if err := st.CompleteScan(ctx, id, store.ScanResult{Findings: finding.Prepare(id, fs, nil, store.NewID)}); err != nil {
		t.Fatal(err)
	}
	sc, err := st.ScanByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
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
