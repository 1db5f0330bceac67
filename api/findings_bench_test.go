package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
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

// BenchmarkGetFindings10k measures GET /scans/{id}/findings of a scan with
// 10,000 findings over HTTP and reports the median.
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
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		resp, err := http.Get(h.srv.URL + "/api/v1/scans/" + id + "/findings")
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		lat = append(lat, time.Since(start))
		if resp.StatusCode != 200 || n < 1000000 {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
}
