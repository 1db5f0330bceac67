package api

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/api/pdf"
	"scand/finding"
	"scand/scan/proc"
	"scand/store"
)

func TestReportStatusCodes(t *testing.T) {
	fx := loadReportFixture(t)
	env := newReportTestEnv(t, func(d *Deps) { d.Scanners = fx.registry() })
	env.seedFixture(t, fx)
	day := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
	for _, status := range []string{store.StatusPending, store.StatusRunning, store.StatusFailed, store.StatusCancelled} {
		env.seedScan(t, "scan-"+status, "/srv/x", status, day, day.Add(time.Minute), 0)
	}
	noRenderer := newReportTestEnv(t, func(d *Deps) { d.PDFRenderer = "scand-test-no-such-renderer" })
	noRenderer.seedFixture(t, fx)
	noRunner := newReportTestEnv(t, func(d *Deps) { d.Runner = nil })
	noRunner.seedFixture(t, fx)

	id := fx.Scan.ID
	cases := []struct {
		name        string
		env         *reportTestEnv
		target      string
		status      int
		contentType string
		detail      string // substring of the error detail
		loc         string // 422 location
	}{
		{"html by default", env, "/api/v1/scans/" + id + "/report", 200, "text/html; charset=utf-8", "", ""},
		{"html explicit", env, "/api/v1/scans/" + id + "/report?format=html", 200, "text/html; charset=utf-8", "", ""},
		{"legacy prefix", env, "/api/scans/" + id + "/report", 200, "text/html; charset=utf-8", "", ""},
		{"sarif", env, "/api/v1/scans/" + id + "/report?format=sarif", 200, "application/sarif+json", "", ""},
		{"unknown format", env, "/api/v1/scans/" + id + "/report?format=docx", 422, "", "", "query.format"},
		{"format checked before the scan", env, "/api/v1/scans/nope/report?format=xml", 422, "", "", "query.format"},
		{"unknown scan", env, "/api/v1/scans/nope/report", 404, "", "Scan not found", ""},
		{"unknown scan sarif", env, "/api/v1/scans/nope/report?format=sarif", 404, "", "Scan not found", ""},
		{"pending scan", env, "/api/v1/scans/scan-pending/report", 409, "", "Scan is pending", ""},
		{"running scan", env, "/api/v1/scans/scan-running/report?format=sarif", 409, "", "Scan is running", ""},
		{"failed scan", env, "/api/v1/scans/scan-failed/report", 409, "", "Scan is failed", ""},
		{"cancelled scan pdf", env, "/api/v1/scans/scan-cancelled/report?format=pdf", 409, "", "Scan is cancelled", ""},
		{"pdf renderer configured but absent", noRenderer, "/api/v1/scans/" + id + "/report?format=pdf", 501, "", "SVC_PDF_RENDERER=scand-test-no-such-renderer was not found", ""},
		{"pdf without a runner", noRunner, "/api/v1/scans/" + id + "/report?format=pdf", 501, "", "apt-get install chromium", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := tc.env.do(t, "GET", tc.target)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body.String())
			}
			if tc.contentType != "" && rec.Header().Get("Content-Type") != tc.contentType {
				t.Errorf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), tc.contentType)
			}
			if tc.status == 200 && rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", rec.Header().Get("Cache-Control"))
			}
			if tc.detail != "" {
				if d := reportDetail(t, rec); !strings.Contains(d, tc.detail) {
					t.Errorf("detail %q does not contain %q", d, tc.detail)
				}
			}
			if tc.loc != "" {
				if loc := reportValidationLoc(t, rec); loc != tc.loc {
					t.Errorf("loc %q, want %q", loc, tc.loc)
				}
			}
		})
	}
}

func TestReportHTMLGolden(t *testing.T) {
	fx := loadReportFixture(t)
	env := newReportTestEnv(t, func(d *Deps) { d.Scanners = fx.registry() })
	env.seedFixture(t, fx)
	rec := env.do(t, "GET", "/api/v1/scans/"+fx.Scan.ID+"/report")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") {
		t.Errorf("CSP %q does not forbid every origin", csp)
	}
	reportGolden(t, "../testdata/report/report.golden.html", rec.Body.Bytes())

	// The same scan rendered at another wall-clock time but the same
	// pinned output clock is byte-identical.
	again := newReportTestEnv(t, func(d *Deps) {
		d.Scanners = fx.registry()
		d.Now = func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }
	})
	again.seedFixture(t, fx)
	if rec2 := again.do(t, "GET", "/api/v1/scans/"+fx.Scan.ID+"/report"); !bytes.Equal(rec.Body.Bytes(), rec2.Body.Bytes()) {
		t.Error("two renders with the same SVC_FAKE_NOW differ")
	}
}

func TestReportHTMLContent(t *testing.T) {
	fx := loadReportFixture(t)
	env := newReportTestEnv(t, nil)
	env.seedFixture(t, fx)
	body := env.do(t, "GET", "/api/v1/scans/"+fx.Scan.ID+"/report").Body.String()

	t.Run("no script and no external reference", func(t *testing.T) {
		lower := strings.ToLower(body)
		for _, banned := range []string{"<script", "@import", "javascript:", "<iframe", "<object", "<embed", "<base"} {
			if strings.Contains(lower, banned) {
				t.Errorf("report contains %q", banned)
			}
		}
		// Every attribute that can load something points inside the page.
		for _, m := range regexp.MustCompile(`(?i)\b(href|src|srcset|action|poster|xlink:href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(body, -1) {
			if v := m[2]; !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "data:") {
				t.Errorf("attribute %s=%q loads a resource", m[1], v)
			}
		}
		for _, m := range regexp.MustCompile(`(?i)url\(([^)]*)\)`).FindAllStringSubmatch(body, -1) {
			if !strings.HasPrefix(strings.Trim(m[1], `'" `), "data:") {
				t.Errorf("CSS url(%s) loads a resource", m[1])
			}
		}
		// Outside the (escaped) finding text, no URL of any host appears.
		rest := body
		for _, f := range fx.Findings {
			esc := template.HTMLEscapeString(f.Description)
			if strings.Contains(f.Description, "<") && !strings.Contains(body, esc) {
				t.Errorf("description of %s is not HTML-escaped in the report", f.ID)
			}
			rest = strings.ReplaceAll(rest, esc, "")
		}
		for _, scheme := range []string{"http://", "https://", "//evil"} {
			if i := strings.Index(rest, scheme); i >= 0 {
				t.Errorf("report references %q outside finding text: ...%s...", scheme, rest[max(0, i-60):min(len(rest), i+60)])
			}
		}
	})

	t.Run("content", func(t *testing.T) {
		for _, want := range []string{
			"<title>Security scan report: /srv/checkouts/payments-api</title>",
			`<td id="findings-total">7</td>`,
			`<td id="risk-score">68</td>`,
			"<tr><th>Duration</th><td>1m42s</td></tr>",
			// skipped scanners with their install hints
			"<td class=\"mono\">semgrep</td><td>not installed</td><td><code>pipx install semgrep (or set SVC_SEMGREP_PATH)</code></td>",
			// triage state and note
			"Accepted risk <span class=\"note\">by alice, 2026-03-03 10:00:00 UTC</span>",
			"Arguments are constants; tracked in SEC-214.",
			// suppressed_by shown
			"<dt>Suppressed by</dt><dd><span class=\"flag\">inline comment: scand:ignore generic-password</span></dd>",
			// compliance summary and tags
			"<span class=\"tag\">OWASP-A07 <b>2</b></span>",
			"<span class=\"tag\">PCI-DSS-6.5.1</span>",
			// counts beside the chart
			"<tr><th>Suppressed in source</th><td>1</td></tr>",
			"<tr><th>Hidden by triage</th><td>2 ",
			"Generated by scand " + Version + " at 2026-03-04 08:00:00 UTC",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("report lacks %q", want)
			}
		}
		// Groups in severity order, each starting a printed page.
		var last int
		for _, sev := range []string{"critical", "high", "medium", "low", "info"} {
			i := strings.Index(body, `<section class="group" id="severity-`+sev+`">`)
			if i < last {
				t.Errorf("severity group %s missing or out of order", sev)
			}
			last = i
		}
		if !strings.Contains(body, ".group { margin-top: 0; break-before: page;") {
			t.Error("print CSS does not break pages between severity groups")
		}
	})
}

// reportPDFPages counts page objects; Chromium writes them uncompressed,
// and the page tree's /Count must agree.
func reportPDFPages(t *testing.T, pdf []byte) int {
	t.Helper()
	pages := len(regexp.MustCompile(`/Type\s*/Page\b[^s]`).FindAll(pdf, -1))
	if m := regexp.MustCompile(`/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b`).FindSubmatch(pdf); m != nil {
		n := string(m[1]) + string(m[2])
		if c, _ := strconv.Atoi(n); c != pages {
			t.Errorf("page tree /Count %d but %d page objects", c, pages)
		}
	}
	return pages
}

func TestReportPDF(t *testing.T) {
	reportChromium(t)
	fx := loadReportFixture(t)
	env := newReportTestEnv(t, func(d *Deps) { d.Scanners = fx.registry() })
	env.seedFixture(t, fx)
	rec := env.do(t, "GET", "/api/v1/scans/"+fx.Scan.ID+"/report?format=pdf")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/pdf" {
		t.Errorf("Content-Type %q", ct)
	}
	pdf := rec.Body.Bytes()
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 40)])
	}
	// The summary page, then one page per non-empty severity group.
	if got, want := reportPDFPages(t, pdf), 1+5; got != want {
		t.Errorf("%d pages, want %d", got, want)
	}

	// Two renders at once share the one renderer slot; both succeed.
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = env.do(t, "GET", "/api/v1/scans/"+fx.Scan.ID+"/report?format=pdf").Code
		}()
	}
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("concurrent renders answered %v", codes)
	}
}

// TestReportRendersOffline loads the report in headless Chromium from a
// loopback server, with every other host unresolvable, and checks that the
// page rendered and that the browser asked for nothing but the page, even
// though finding text holds markup pointing back at that very server.
func TestReportRendersOffline(t *testing.T) {
	chromium := reportChromium(t)
	env := newReportTestEnv(t, nil)
	var mu sync.Mutex
	var requests []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.RequestURI())
		mu.Unlock()
		env.handler.ServeHTTP(w, r)
	}))
	defer ts.Close()

	bait := `<img src="` + ts.URL + `/leak.png"><link rel="stylesheet" href="` + ts.URL + `/leak.css"><script src="` + ts.URL + `/leak.js"></script>` +
		`<iframe src="` + ts.URL + `/leak.html"></iframe><style>@import url(` + ts.URL + `/leak2.css);</style>`
	started := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
	env.seedScan(t, "offline", "/srv/offline", store.StatusCompleted, started, started.Add(time.Minute), 12,
		finding.Finding{ID: "o1", Scanner: "secrets", ScanType: "code", Severity: finding.High, Title: bait, Description: bait, RuleID: "r1", FilePath: "a.py", Line: 1, Fingerprint: "fp-o1"},
		finding.Finding{ID: "o2", Scanner: "secrets", ScanType: "code", Severity: finding.Low, Title: "second", RuleID: "r2", FilePath: "b.py", Line: 2, Fingerprint: "fp-o2"},
	)
	page := "/api/v1/scans/offline/report"
	dir := t.TempDir()
	res, err := proc.NewRunner(90*time.Second).Run(context.Background(), proc.Cmd{
		Program: chromium,
		Args: []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
			"--user-data-dir=" + dir, "--dump-dom", ts.URL + page},
		Env: []string{"HOME=" + dir},
	})
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, res.Stderr)
	}
	dom := string(res.Stdout)
	for _, want := range []string{"<title>Security scan report: /srv/offline</title>", `<td id="findings-total">2</td>`, `id="severity-high"`, `id="severity-low"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered DOM lacks %q\n%s", want, pdf.OutputTail(res.Stdout, 2000))
		}
	}
	if strings.Contains(strings.ToLower(dom), "<img") || strings.Contains(strings.ToLower(dom), "<iframe") {
		t.Error("finding markup became elements in the rendered page")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) != 1 || requests[0] != page {
		t.Errorf("the browser requested %q, want only %q", requests, page)
	}
}

// TestReportPDFOfALargeScanAnswersAtOnce: past pdfMaxFindings the PDF is
// refused before any renderer starts, naming the formats that work; the
// HTML of the same scan streams.
func TestReportPDFOfALargeScanAnswersAtOnce(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "renderer-ran")
	renderer := filepath.Join(t.TempDir(), "fake-chromium")
	if err := os.WriteFile(renderer, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := newReportTestEnv(t, func(d *Deps) { d.PDFRenderer = renderer })
	started := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	fs := make([]finding.Finding, pdfMaxFindings+1)
	for i := range fs {
		fs[i] = finding.Finding{Scanner: "secrets", ScanType: "code", Severity: finding.Low, Title: "t", RuleID: "r",
			FilePath: "f" + strconv.Itoa(i) + ".go", Line: 1, Fingerprint: fmt.Sprintf("%064x", i)}
	}
	e.seedScan(t, "big", "/big", store.StatusCompleted, started, started.Add(time.Minute), 10, fs...)
	start := time.Now()
	rec := e.do(t, "GET", "/api/v1/scans/big/report?format=pdf")
	if rec.Code != 422 || time.Since(start) > 2*time.Second {
		t.Fatalf("PDF of %d findings: %d after %v: %s", len(fs), rec.Code, time.Since(start), rec.Body)
	}
	for _, want := range []string{strconv.Itoa(pdfMaxFindings+1) + " findings", "at most " + strconv.Itoa(pdfMaxFindings), "format=html", "format=sarif"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("detail lacks %q: %s", want, rec.Body)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the renderer ran for a refused PDF")
	}
	if rec := e.do(t, "GET", "/api/v1/scans/big/report"); rec.Code != 200 || strings.Count(rec.Body.String(), "<article") < len(fs) {
		t.Fatalf("HTML of the same scan: %d, %d articles", rec.Code, strings.Count(rec.Body.String(), "<article"))
	}
}
