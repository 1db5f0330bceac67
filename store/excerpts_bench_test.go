package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"scand/finding"
	"scand/finding/excerpt"
	"scand/store/excerpts"
)

// BenchmarkFindingWithExcerpt1M stores excerpts for SCAND_BENCH_FINDINGS
// findings (default 1,000,000, in scans of 10,000; each its own 7
// code-like lines, none shared: the worst case) and reports the database
// growth per finding the excerpts cost, the growth of a rescan of an
// unchanged tree (every window already stored), and the time the finding
// page's queries take (the finding in its newest scan, then its excerpt)
// at that size, median and worst of 200 fingerprints. Only the first
// scan's findings rows are ingested (the findings table's own scaling is
// bench/scale.sh's): the other scans' excerpts are written under their
// scan numbers with synthetic fingerprints. bench/excerpts.sh runs it.
func BenchmarkFindingWithExcerpt1M(b *testing.B) {
	total := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("SCAND_BENCH_FINDINGS")); err == nil && v > 0 {
		total = v
	}
	const perScan = 10000
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir()+"/excerpts.db", time.Now)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	size := func() int64 {
		var pages, pageSize int64
		s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages)
		s.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize)
		return pages * pageSize
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"user", "token", "request", "session", "config", "return", "if", "err", "nil", "value", "append", "query", "ctx", "for", "range"}
	line := func() string {
		n := 3 + rng.IntN(8)
		out := "\t"
		for i := 0; i < n; i++ {
			out += words[rng.IntN(len(words))]
			if i%3 == 1 {
				out += "(" + strconv.Itoa(rng.IntN(1000)) + ")"
			}
			out += " "
		}
		return out
	}
	var sample []string
	var grew int64
	var rescan int64
	var putTime time.Duration // writing the excerpts, what a scan pays
	first := syntheticScan("e0", perScan)
	firstScan := ingestAllB(b, s, "e0", first)
	for i := 0; i < total/perScan; i++ {
		fs, sc := first, firstScan
		if i > 0 {
			fs = make([]finding.Finding, perScan)
			for j := range fs {
				fs[j] = finding.Finding{Fingerprint: fmt.Sprintf("%016x%048x", rng.Uint64(), j), Line: 1 + rng.IntN(500)}
			}
			sc = Scan{Seq: firstScan.Seq + int64(i) + 10} // past the rescan below
		}
		before := size()
		items := make([]excerpts.Item, 0, len(fs))
		for _, f := range fs {
			e := &excerpt.Excerpt{StartLine: max(1, f.Line-3), Line: f.Line}
			for j := 0; j < 7; j++ {
				e.Lines = append(e.Lines, line())
			}
			items = append(items, excerpts.Item{Fingerprint: f.Fingerprint, Excerpt: e})
		}
		start := time.Now()
		spoolAllB(b, s, sc.Seq, items)
		putTime += time.Since(start)
		grew += size() - before
		if i == 0 {
			// The same tree scanned again: every window is stored already.
			again := ingestAllB(b, s, "e0-again", fs)
			before := size()
			spoolAllB(b, s, again.Seq, items)
			rescan = size() - before
		}
	}
	for j := 0; j < 200; j++ {
		sample = append(sample, first[rng.IntN(len(first))].Fingerprint)
	}
	b.ResetTimer()
	var took []time.Duration
	for _, fp := range sample {
		start := time.Now()
		f, sc, err := s.FindingOccurrence(ctx, fp, "")
		if err != nil {
			b.Fatal(err)
		}
		ex, err := s.Excerpt(ctx, sc.Seq, fp, f.Line)
		if err != nil || ex == nil {
			b.Fatal("no excerpt", err)
		}
		took = append(took, time.Since(start))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(grew)/float64(total), "excerpt-bytes/finding")
	b.ReportMetric(float64(rescan)/float64(perScan), "rescan-bytes/finding")
	b.ReportMetric(float64(size())/float64(total), "db-bytes/finding")
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "lookup-ms-median")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "lookup-ms-p95")
	b.ReportMetric(float64(putTime.Microseconds())/float64(total), "put-us/finding")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "lookup-ms-max")
}

// spoolAllB stores a scan's excerpts the way a scan does: 256 at a time
// into its spool, then written in key order.
func spoolAllB(b *testing.B, s *Store, seq int64, items []excerpts.Item) {
	b.Helper()
	ctx := context.Background()
	sp, err := s.SpoolExcerpts(ctx, seq)
	if err != nil {
		b.Fatal(err)
	}
	defer sp.Close()
	for j := 0; j < len(items); j += 256 {
		if err := sp.Add(ctx, items[j:min(j+256, len(items))]); err != nil {
			b.Fatal(err)
		}
	}
	if err := sp.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}
