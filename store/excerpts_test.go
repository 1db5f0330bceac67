package store

import (
	"context"
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
		if err := s.PutExcerpts(ctx, seq, []excerpts.Item{{Fingerprint: fp1, Excerpt: win}, {Fingerprint: fp2, Excerpt: other}, {Fingerprint: fp1, Excerpt: other}}); err != nil {
			t.Fatal(err)
		}
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
