package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"scand/finding"
)

// BenchmarkBulkVerdict10k checks and sets one verdict on 10,000 findings
// (a scan of 10,000 among three) while readers page findings and a writer
// sets single verdicts, and reports the bulk time (and the same bulk
// alone beforehand) and any busy error.
// bench/triage.sh runs it.
func BenchmarkBulkVerdict10k(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir()+"/bulk.db", time.Now)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var scans []Scan
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("b%d", i)
		scans = append(scans, ingestAllB(b, s, id, syntheticScan(id, 10000)))
	}
	var fps []string
	for row, err := range s.FindingRows(context.Background(), scans[2], FindingQuery{}) {
		if err != nil {
			b.Fatal(err)
		}
		fps = append(fps, row.Fingerprint)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The same bulk alone first: the machine's share without the load.
		start := time.Now()
		if _, _, err := s.SetVerdicts(context.Background(), fps, TriageState{Status: "triaged", UpdatedBy: "bench"}, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "alone-ms")
		ctx, cancel := context.WithCancel(context.Background())
		var busy, reads, writes atomic.Int64
		var wg sync.WaitGroup
		note := func(err error) {
			if err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked")) {
				busy.Add(1)
			}
		}
		for r := 0; r < 4; r++ {
			wg.Add(1)
			go func(r int) {
				defer wg.Done()
				for ctx.Err() == nil {
					n := 0
					for _, err := range s.FindingRows(ctx, scans[r%3], FindingQuery{Limit: 200, From: (r * 997) % 9000}) {
						if err != nil && !errors.Is(err, context.Canceled) {
							note(err)
						}
						n++
					}
					reads.Add(1)
				}
			}(r)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ctx.Err() == nil; j++ {
				_, err := s.SetTriage(ctx, TriageState{Fingerprint: fps[j%len(fps)], Status: "triaged"})
				if err != nil && !errors.Is(err, context.Canceled) {
					note(err)
				}
				writes.Add(1)
			}
		}()
		time.Sleep(50 * time.Millisecond)
		status := []string{"false_positive", "accepted_risk"}[i%2]
		start = time.Now()
		// As the API does: check every fingerprint is known, then set.
		if unknown, err := s.UnknownFingerprints(context.Background(), fps); err != nil || len(unknown) > 0 {
			b.Fatal(err, len(unknown))
		}
		if _, _, err := s.SetVerdicts(context.Background(), fps, TriageState{Status: status, UpdatedBy: "bench"}, nil); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		cancel()
		wg.Wait()
		b.ReportMetric(float64(took.Milliseconds()), "bulk-ms")
		b.ReportMetric(float64(busy.Load()), "busy-errors")
		b.ReportMetric(float64(reads.Load()), "reader-pages")
		b.ReportMetric(float64(writes.Load()), "single-verdicts")
		if busy.Load() > 0 {
			b.Fatalf("%d SQLITE_BUSY errors", busy.Load())
		}
	}
}

// ingestAllB is ingestAll for a benchmark.
func ingestAllB(b *testing.B, s *Store, id string, fs []finding.Finding) Scan {
	b.Helper()
	ctx := context.Background()
	if _, err := s.CreateScan(ctx, Scan{ID: id, TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	if err := s.MarkScanRunning(ctx, id); err != nil {
		b.Fatal(err)
	}
	in, err := s.BeginIngest(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	for _, f := range fs {
		if err := in.Add(f); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := in.Finish(ctx, IngestMeta{}); err != nil {
		b.Fatal(err)
	}
	sc, err := s.ScanByID(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	return sc
}
