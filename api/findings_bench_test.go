package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

// syntheticFindings builds n findings spread over scanners, files and
// lines, about 10% of them duplicates across scanners.
func syntheticFindings(n int) []finding.Finding {
	scanners := []string{"secrets", "bandit", "gosec", "semgrep"}
	sevs := finding.Severities
	out := make([]finding.Finding, 0, n)
	for i := 0; i < n; i++ {
		line := i/len(scanners) + 1
		if i%10 == 9 {
			line = (i - 1) / len(scanners) // same place as a sibling: a cross-scanner duplicate
		}
		out = append(out, finding.Finding{
			Scanner: scanners[i%len(scanners)], ScanType: "code", Severity: sevs[i%len(sevs)],
			Title: fmt.Sprintf("rule %d hit", i%37), Description: "synthetic finding for benchmarks",
			FilePath: fmt.Sprintf("pkg%d/file%d.go", i%50, i%400), Line: line,
			RuleID: fmt.Sprintf("R%03d", i%37), CWE: finding.CWE(fmt.Sprintf("CWE-%d", 20+i%7)),
			Snippet: fmt.Sprintf("x := call(%d) // line", i),
		})
	}
	return out
}

// BenchmarkFindingsPipeline100k: fingerprint + dedup + ordering + the
// one-transaction insert of a 100k-finding scan.
func BenchmarkFindingsPipeline100k(b *testing.B) {
	raw := syntheticFindings(100000)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := store.Open(context.Background(), b.TempDir()+"/bench.db", time.Now)
		if err != nil {
			b.Fatal(err)
		}
		id := store.NewID()
		st.CreateScan(context.Background(), store.Scan{ID: id, TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()})
		st.MarkScanRunning(context.Background(), id)
		in := append([]finding.Finding(nil), raw...)
		b.StartTimer()
		prepared := finding.Prepare(id, in, nil, store.NewID)
		if err := st.CompleteScan(context.Background(), id, store.ScanResult{Findings: prepared, RiskScore: finding.RiskScore(prepared)}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(len(prepared)), "findings-stored")
		st.Close()
	}
}

// BenchmarkGetFindings10k reads every finding of a 10,000-finding scan
// over HTTP, page by page as a client does (X-Next-Cursor), and reports
// the median of a whole read and of one page. It fails unless every row
// arrives exactly once.
func BenchmarkGetFindings10k(b *testing.B) {
	h := newBenchHarness(b)
	ctx := context.Background()
	id := store.NewID()
	h.store.CreateScan(ctx, store.Scan{ID: id, TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()})
	h.store.MarkScanRunning(ctx, id)
	fs := finding.Prepare(id, syntheticFindings(11200), nil, store.NewID)
	fs = fs[:10000]
	if err := h.store.CompleteScan(ctx, id, store.ScanResult{Findings: fs}); err != nil {
		b.Fatal(err)
	}
	var whole, pages []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		seen := map[string]bool{}
		for cursor := ""; ; {
			pageStart := time.Now()
			resp, err := http.Get(h.srv.URL + "/api/v1/scans/" + id + "/findings?cursor=" + url.QueryEscape(cursor))
			if err != nil {
				b.Fatal(err)
			}
			var page []struct {
				ID string `json:"id"`
			}
			err = json.NewDecoder(resp.Body).Decode(&page)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || len(page) == 0 {
				b.Fatalf("status %d, %d rows, %v", resp.StatusCode, len(page), err)
			}
			pages = append(pages, time.Since(pageStart))
			for _, f := range page {
				if seen[f.ID] {
					b.Fatalf("finding %s twice", f.ID)
				}
				seen[f.ID] = true
			}
			if cursor = resp.Header.Get("X-Next-Cursor"); cursor == "" {
				break
			}
		}
		whole = append(whole, time.Since(start))
		if len(seen) != len(fs) {
			b.Fatalf("read %d findings, want %d", len(seen), len(fs))
		}
	}
	b.StopTimer()
	medianMS := func(ds []time.Duration) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	b.ReportMetric(medianMS(whole), "median-ms")
	b.ReportMetric(medianMS(pages), "page-median-ms")
}
