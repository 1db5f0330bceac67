package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/finding/excerpt"
	"scand/store/excerpts"
)

// TestExcerptsSharedAndReleased: a window shown by two findings in two
// scans is stored once; it goes when the last finding showing it goes,
// and purging a scan takes its excerpt rows.
func TestExcerptsSharedAndReleased(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir()+"/x.db", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	count := func(q string) int {
		var n int
		if err := s.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	fp1, fp2 := "0123456789abcdef"+"0000000000000000000000000000000000000000000000000000000000000000"[:48], "fedcba9876543210"+"1111111111111111111111111111111111111111111111111111111111111111"[:48]
	win := &excerpt.Excerpt{StartLine: 4, Line: 7, Lines: []string{"a", "b", "c", "d", "e", "f", "g"}}
	other := &excerpt.Excerpt{StartLine: 1, Line: 1, Lines: []string{"z"}}
	for seq := int64(1); seq <= 2; seq++ {
		sp, err := s.SpoolExcerpts(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		if err := sp.Add(ctx, []excerpts.Item{{Fingerprint: fp1, Excerpt: win}, {Fingerprint: fp2, Excerpt: other}, {Fingerprint: fp1, Excerpt: other}}); err != nil {
			t.Fatal(err)
		}
		if err := sp.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		sp.Close()
	}
	if n := count("SELECT count(*) FROM excerpt_bodies"); n != 2 {
		t.Fatalf("%d bodies, want 2 (each window once)", n)
	}
	if n := count("SELECT count(*) FROM finding_excerpts"); n != 4 {
		t.Fatalf("%d rows, want 4 (the first excerpt of a finding wins)", n)
	}
	got, err := s.Excerpt(ctx, 2, fp1, 7)
	if err != nil || got == nil || got.StartLine != 4 || got.Line != 7 || len(got.Lines) != 7 || got.Lines[6] != "g" {
		t.Fatalf("%+v %v", got, err)
	}
	if got, err := s.Excerpt(ctx, 3, fp1, 7); got != nil || err != nil {
		t.Fatalf("another scan: %+v %v", got, err)
	}
	if _, err := s.w.ExecContext(ctx, "DELETE FROM finding_excerpts WHERE scan_seq = 1"); err != nil {
		t.Fatal(err)
	}
	if n := count("SELECT count(*) FROM excerpt_bodies"); n != 2 {
		t.Fatalf("%d bodies after one scan went, want 2", n)
	}
	if _, err := s.w.ExecContext(ctx, "DELETE FROM finding_excerpts WHERE scan_seq = 2 AND fp = (SELECT fp FROM finding_excerpts WHERE scan_seq = 2 ORDER BY fp DESC LIMIT 1)"); err != nil {
		t.Fatal(err)
	}
	if n := count("SELECT count(*) FROM excerpt_bodies"); n != 1 {
		t.Fatalf("%d bodies after the last finding of one window went, want 1", n)
	}
}

// TestExcerptSpoolStoresEveryExcerpt: excerpts spooled from several
// goroutines in any order are all stored by Commit and none before (a
// finding's first excerpt wins), and Close removes
// the scratch file.
func TestExcerptSpoolStoresEveryExcerpt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir+"/x.db", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sp, err := s.SpoolExcerpts(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 1500
	fp := func(w, i int) string {
		return fmt.Sprintf("%016x", uint64(i*workers+w)*0x9E3779B97F4A7C15) + strings.Repeat("0", 48)
	}
	win := func(w, i int) *excerpt.Excerpt {
		// Seven lines that deflate, so that reading them back inflates.
		lines := []string{fmt.Sprintf("line %d of worker %d", i, w)}
		for len(lines) < 7 {
			lines = append(lines, strings.Repeat("token = request(ctx, value) ", 3))
		}
		return &excerpt.Excerpt{StartLine: 1, Line: 1, Lines: lines}
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i += 250 {
				var items []excerpts.Item
				for j := i; j < min(i+250, each); j++ {
					items = append(items, excerpts.Item{Fingerprint: fp(w, j), Excerpt: win(w, j)})
				}
				if err := sp.Add(ctx, items); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := sp.Add(ctx, []excerpts.Item{{Fingerprint: fp(0, 0), Excerpt: win(9, 9)}}); err != nil {
		t.Fatal(err)
	}
	var before int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM finding_excerpts").Scan(&before)
	if before != 0 {
		t.Fatalf("%d rows before Commit", before)
	}
	if err := sp.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	sp.Close()
	var n int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM finding_excerpts WHERE scan_seq = 7").Scan(&n)
	if n != workers*each {
		t.Fatalf("%d rows, want %d", n, workers*each)
	}
	var deflated int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM excerpt_bodies WHERE substr(body, 1, 1) = x'01'").Scan(&deflated)
	if deflated != workers*each {
		t.Fatalf("%d deflated bodies, want %d", deflated, workers*each)
	}
	// Every one read back, through the reused inflaters.
	for w := 0; w < workers; w++ {
		for i := 0; i < each; i++ {
			want := win(w, i).Lines[0]
			if w == 0 && i == 0 {
				want = "line 0 of worker 0" // the first spooled, not win(9, 9)
			}
			got, err := s.Excerpt(ctx, 7, fp(w, i), 1)
			if err != nil || got == nil || len(got.Lines) != 7 || got.Lines[0] != want {
				t.Fatalf("worker %d item %d: %+v %v", w, i, got, err)
			}
		}
	}
	left, _ := filepath.Glob(dir + "/.x.db.ingest-*")
	if len(left) != 0 {
		t.Errorf("scratch files left: %v", left)
	}
}

// TestExcerptSpoolSharesRepeatedWindows: one window shown by many
// findings (copies of a file, findings side by side) is stored once and
// read back for each of them, also when other windows come in between.
func TestExcerptSpoolSharesRepeatedWindows(t *testing.T) {
	ctx := context.Background()
	s, sp := excerptSpool(t, 3)
	shared := &excerpt.Excerpt{StartLine: 2, Line: 5, Lines: strings.Split(strings.Repeat("api_key = \"ghp_…****\"\n", 7), "\n")[:7]}
	fp := spreadFingerprint
	var items []excerpts.Item
	for i := 0; i < 3000; i++ {
		e := shared
		if i%100 == 0 {
			e = &excerpt.Excerpt{StartLine: 1, Line: 1, Lines: []string{fmt.Sprintf("other window %d", i)}}
		}
		items = append(items, excerpts.Item{Fingerprint: fp(i), Excerpt: e})
	}
	if err := sp.Add(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := sp.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var bodies, rows int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM excerpt_bodies").Scan(&bodies)
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM finding_excerpts WHERE scan_seq = 3").Scan(&rows)
	if bodies != 31 || rows != 3000 {
		t.Fatalf("%d bodies and %d rows, want 31 and 3000", bodies, rows)
	}
	for _, i := range []int{1, 99, 100, 2999} {
		got, err := s.Excerpt(ctx, 3, fp(i), 5)
		if err != nil || got == nil {
			t.Fatalf("finding %d: %v", i, err)
		}
		if i%100 == 0 {
			if got.Lines[0] != fmt.Sprintf("other window %d", i) {
				t.Errorf("finding %d: %q", i, got.Lines)
			}
		} else if got.StartLine != 2 || len(got.Lines) != 7 || got.Lines[6] != shared.Lines[6] {
			t.Errorf("finding %d: %+v", i, got)
		}
	}
}

// TestExcerptLookupDecodesSharedBodiesOnce: a report's lookup gives every
// finding its own window, batch after batch, and a window many findings
// show is decoded once and handed to all of them.
func TestExcerptLookupDecodesSharedBodiesOnce(t *testing.T) {
	ctx := context.Background()
	s, sp := excerptSpool(t, 4)
	shared := &excerpt.Excerpt{StartLine: 2, Line: 5, Lines: []string{"a", "b", "token = \"…****\"", "d"}}
	fp := spreadFingerprint
	var items []excerpts.Item
	for i := 0; i < 2000; i++ {
		e := shared
		if i%10 == 0 {
			e = &excerpt.Excerpt{StartLine: i + 1, Line: i + 1, Lines: []string{fmt.Sprintf("own window %d", i)}}
		}
		items = append(items, excerpts.Item{Fingerprint: fp(i), Excerpt: e})
	}
	if err := sp.Add(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := sp.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	look := s.ExcerptLookup(4)
	var sharedSeen *excerpt.Excerpt
	for start := 0; start < 2000; start += 300 {
		var fps []string
		for i := start; i < min(start+300, 2000); i++ {
			fps = append(fps, fp(i))
		}
		fps = append(fps, strings.Repeat("e", 64)) // no excerpt
		got := look.GetMany(ctx, fps)
		if len(got) != len(fps)-1 {
			t.Fatalf("batch at %d: %d excerpts for %d findings", start, len(got), len(fps)-1)
		}
		for i := start; i < min(start+300, 2000); i++ {
			e := got[fp(i)]
			if i%10 == 0 {
				if e == nil || e.StartLine != i+1 || e.Lines[0] != fmt.Sprintf("own window %d", i) {
					t.Fatalf("finding %d: %+v", i, e)
				}
				continue
			}
			if e == nil || e.StartLine != 2 || len(e.Lines) != 4 || e.Lines[2] != shared.Lines[2] {
				t.Fatalf("finding %d: %+v", i, e)
			}
			if sharedSeen == nil {
				sharedSeen = e
			} else if e != sharedSeen {
				t.Fatalf("finding %d: the shared window was decoded again", i)
			}
		}
	}
}

// excerptSpool opens a store in a temporary directory and an excerpt
// spool of scan seq in it, both closed when the test ends.
func excerptSpool(t *testing.T, seq int64) (*Store, *excerpts.Spool) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir()+"/x.db", time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sp, err := s.SpoolExcerpts(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	return s, sp
}

// spreadFingerprint is the i-th of distinct fingerprints whose first 8
// bytes (an excerpt row's key) are spread over the key space.
func spreadFingerprint(i int) string {
	return fmt.Sprintf("%016x", uint64(i+1)*0x9E3779B97F4A7C15) + strings.Repeat("0", 48)
}
