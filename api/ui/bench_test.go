package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

// Benchmarks for the console's bars (figures go in the issue note, never
// in a timed test):
//
//	go test ./api/ui -run '^$' -bench 'ScanPage100k|Overview10kScans' -benchtime 50x
//
// Server time is measured on the handler itself (the API's full
// middleware chain, the console, a real SQLite file), without a network.

var benchSevs = []finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low, finding.Info}

func benchFinding(i int) finding.Finding {
	f := mkFinding("b"+strconv.Itoa(i), benchSevs[i*5/100000%5], []string{"secrets", "dockerfile", "bandit", "gosec"}[i%4],
		"rule-"+strconv.Itoa(i%97), fmt.Sprintf("src/pkg%03d/file%05d.go", i%500, i), i%400+1)
	f.Title = "Hard-coded credential in configuration loader number " + strconv.Itoa(i)
	f.Description = "A credential-like value is assigned in source. Move it to the environment or a secret manager and rotate it."
	if i%250 == 0 {
		f.Metadata["suppressed_by"] = "scand:ignore rule-" + strconv.Itoa(i%97)
	}
	return f
}

// serve runs one request through the handler and fails on a non-200.
func serve(b *testing.B, h http.Handler, path string) int {
	// A loopback host and peer: dev mode answers nothing else.
	req := httptest.NewRequest("GET", "http://127.0.0.1"+path, nil)
	req.RemoteAddr = "127.0.0.1:40000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.Len()
}

func BenchmarkScanPage100k(b *testing.B) {
	e := newEnv(b, envOptions{})
	fs := make([]finding.Finding, 100000)
	for i := range fs {
		fs[i] = benchFinding(i)
	}
	// The orchestrator stores findings in canonical order, so each
	// (severity, scanner) pair is one contiguous range, as in production.
	finding.Sort(fs)
	sc := e.seedScan("/srv/monorepo", fs)
	ctx := context.Background()
	for i := 0; i < 100000; i += 50 {
		if _, err := e.st.SetTriage(ctx, store.TriageState{Fingerprint: fs[i].Fingerprint, Status: "triaged", UpdatedBy: "b"}); err != nil {
			b.Fatal(err)
		}
	}
	base := "/ui/scans/" + sc.ID
	for _, c := range []struct{ name, query string }{
		{"first", ""},
		{"deep", "?after=99000"},
		{"deep-back", "?before=60000"},
		{"filter-severity", "?severity=high&scanner=gosec"},
		{"filter-severity-deep", "?severity=high&scanner=gosec&after=35000"},
		{"filter-severity-back", "?severity=low&scanner=bandit&before=70000"},
		{"filter-triage", "?triage=triaged"},
		{"filter-triage-deep", "?triage=triaged&after=90000"},
		{"filter-verdict-new", "?triage=new&severity=info"},
		{"filter-suppressed", "?suppressed=only"},
		{"filter-suppressed-deep", "?suppressed=only&after=80000"},
		{"filter-unsuppressed", "?suppressed=exclude&scan_type=code"},
		{"filter-compliance", "?compliance=OWASP-A07&severity=medium"},
		{"search", "?q=file04242"},
		{"search-none", "?q=no-such-text"},
		{"search-severity", "?q=pkg042&severity=low"},
		{"page-200", "?limit=200&after=50000"},
		// Other orders (issue 26) have no index: a page is a bounded sort
		// over the scan's selected rows.
		{"sort-file", "?sort=file"},
		{"sort-file-last", "?sort=file&page=last"},
		{"sort-rule-page-1000", "?sort=rule&page=1000"},
		{"sort-scanner-filter", "?sort=scanner&severity=high"},
		{"sort-age", "?sort=first_seen"},
	} {
		b.Run(c.name, func(b *testing.B) {
			size := serve(b, e.h, base+c.query)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				serve(b, e.h, base+c.query)
			}
			b.ReportMetric(float64(size)/1024, "KiB/page")
		})
	}
}

func BenchmarkOverview10kScans(b *testing.B) {
	e := newEnv(b, envOptions{})
	ctx := context.Background()
	start := time.Now().Add(-29 * 24 * time.Hour)
	for i := 0; i < 10000; i++ {
		sc, err := e.st.CreateScan(ctx, store.Scan{ID: store.NewID(), TargetPath: fmt.Sprintf("/srv/repo%03d", i%100), ScanTypes: []string{"code"},
			StartedAt: start.Add(time.Duration(i) * 4 * time.Minute).UTC()})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.st.MarkScanRunning(ctx, sc.ID); err != nil {
			b.Fatal(err)
		}
		fs := make([]finding.Finding, 10)
		for j := range fs {
			fs[j] = benchFinding(i*10 + j)
			fs[j].Fingerprint = fp(fmt.Sprintf("r%d-%d", i%100, j+i%3))
		}
		if err := e.st.CompleteScan(ctx, sc.ID, store.ScanResult{Findings: fs, ScannersRun: []string{"secrets"}, RiskScore: finding.RiskScore(fs),
			SeverityCounts: map[string]int{"high": 10}}); err != nil {
			b.Fatal(err)
		}
	}
	serve(b, e.h, "/ui/") // fills the scanner-availability cache
	for _, c := range []struct{ name, path string }{
		{"overview", "/ui/"},
		{"scans-first", "/ui/scans"},
		{"scans-page-150", "/ui/scans?page=150"},
		{"scans-one-target", "/ui/scans?target=%2Fsrv%2Frepo042&status=completed"},
	} {
		b.Run(c.name, func(b *testing.B) {
			size := serve(b, e.h, c.path)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				serve(b, e.h, c.path)
			}
			b.ReportMetric(float64(size)/1024, "KiB/page")
		})
	}
}
