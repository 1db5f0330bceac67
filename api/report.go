package api

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"scand/auth"
	"scand/finding"
	"scand/scan"
	"scand/store"
)

// The report is one embedded template with inline CSS and inline SVG: no
// script, no font, no image, no link to anything, so it renders the same on
// an air-gapped machine, in a mail attachment and in headless Chromium.
//
//go:embed assets/report.html
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"deref": func(f *float64) float64 { return *f },
}).Parse(reportTemplateText))

// reportCSP tells a browser the page loads nothing, which also makes any
// future slip (an external font, a tracking pixel) fail loudly in testing.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// reportPDFTimeout bounds one Chromium run; a report that takes longer to
// print is a renderer problem, not a big report.
const reportPDFTimeout = 60 * time.Second

// reportPDFPrograms are tried in order when SVC_PDF_RENDERER is not set.
var reportPDFPrograms = []string{"chromium", "chromium-browser", "google-chrome"}

// reportFormats are the values of ?format=.
var reportFormats = []string{"html", "pdf", "sarif"}

func (s *Server) reportRoutes() []Route {
	// One PDF render at a time: each one is a whole Chromium, and two
	// concurrent ones on a small host starve the scanners.
	pdfSlot := make(chan struct{}, 1)
	return []Route{{
		Method: "GET", Path: "/scans/{id}/report", Scope: auth.ScopeRead, Tag: "scans",
		Summary: "Report of a completed scan: self-contained HTML (default), PDF printed by headless Chromium, or SARIF 2.1.0",
		Params: []Param{
			{Name: "id", In: "path", Type: "string", Required: true, Description: "Scan id"},
			{Name: "format", In: "query", Type: "string", Enum: reportFormats, Default: "html",
				Description: "html: printable page without external references; pdf: needs Chromium (apt-get install chromium, or SVC_PDF_RENDERER); sarif: one run per scanner"},
		},
		ContentTypes: []string{"text/html", "application/pdf", "application/sarif+json"},
		Errors:       []int{404, 409, 422, 501},
		Handler: func(w http.ResponseWriter, r *http.Request) error {
			return s.handleReport(w, r, pdfSlot)
		},
	}}
}

func (s *Server) outputNow() time.Time {
	if s.OutputNow != nil {
		return s.OutputNow()
	}
	return s.Now()
}

func (s *Server) handleReport(w http.ResponseWriter, r *http.Request, pdfSlot chan struct{}) error {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "html"
	}
	switch format {
	case "html", "pdf", "sarif":
	default:
		return invalid("enum", "Input should be 'html', 'pdf' or 'sarif'", format, "query", "format")
	}
	ctx := r.Context()
	sc, err := s.Store.ScanByID(ctx, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return errNotFound("Scan not found")
	}
	if err != nil {
		return err
	}
	if sc.Status != store.StatusCompleted {
		return errConflict("Scan is " + sc.Status + ": a report needs a completed scan")
	}
	findings, err := s.Store.FindingsByScan(ctx, sc.ID, store.FindingFilter{})
	if err != nil {
		return err
	}
	data, err := s.Store.ScanDataSources(ctx, sc.ID)
	if err != nil {
		return err
	}

	h := w.Header()
	// Reports list weaknesses of the target: no shared cache keeps them.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	switch format {
	case "sarif":
		body, err := s.buildSARIF(ctx, sc, findings)
		if err != nil {
			return err
		}
		h.Set("Content-Type", "application/sarif+json")
		h.Set("Content-Disposition", `attachment; filename="scand-`+sc.ID+`.sarif"`)
		w.Write(body)
		return nil
	case "pdf":
		page, err := renderReportHTML(sc, findings, s.outputNow(), data...)
		if err != nil {
			return err
		}
		select {
		case pdfSlot <- struct{}{}:
			defer func() { <-pdfSlot }()
		case <-ctx.Done():
			return ctx.Err()
		}
		pdf, err := s.renderReportPDF(ctx, page)
		if err != nil {
			return err
		}
		h.Set("Content-Type", "application/pdf")
		h.Set("Content-Disposition", `attachment; filename="scand-report-`+sc.ID+`.pdf"`)
		h.Set("Content-Length", strconv.Itoa(len(pdf)))
		w.Write(pdf)
		return nil
	}
	page, err := renderReportHTML(sc, findings, s.outputNow(), data...)
	if err != nil {
		return err
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", reportCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Disposition", `inline; filename="scand-report-`+sc.ID+`.html"`)
	w.Write(page)
	return nil
}

// reportSeverityLabels are the group headings, most severe first.
var reportSeverityLabels = map[finding.Severity]string{
	finding.Critical: "Critical", finding.High: "High", finding.Medium: "Medium", finding.Low: "Low", finding.Info: "Info",
}

// reportSeverityColors are the chart and badge colours; each keeps 4.5:1
// contrast with white text.
var reportSeverityColors = map[finding.Severity]string{
	finding.Critical: "#991b1b", finding.High: "#c2410c", finding.Medium: "#a16207", finding.Low: "#1d4ed8", finding.Info: "#4b5563",
}

// reportTriageLabels are how the triage statuses read in the report.
var reportTriageLabels = map[string]string{
	"new": "New", "triaged": "Triaged", "false_positive": "False positive",
	"accepted_risk": "Accepted risk", "fixed": "Fixed", "wont_fix": "Won't fix",
}

// reportHiddenTriage is the dashboard's default-hidden set (SPEC.md):
// the report still lists those findings, marked, and counts them apart.
var reportHiddenTriage = map[string]bool{"false_positive": true, "accepted_risk": true, "wont_fix": true}

type reportView struct {
	Title       string
	ScanID      string
	Target      string
	TargetURL   string
	TargetHost  string
	ScanTypes   string
	Started     string
	Completed   string
	Duration    string
	RiskScore   int
	Total       int
	Suppressed  int
	Hidden      int
	Chart       reportChart
	Counts      []reportCount
	Groups      []reportGroup
	ScannersRun string
	Skipped     []store.SkippedScanner
	// DataSources is the offline advisory data the scan used, and
	// DataWarnings the stale ones' warnings.
	DataSources  []store.ScanDataSource
	DataWarnings []string
	Compliance   []reportTagCount
	GeneratedAt  string
	Version      string
}

type reportCount struct {
	Severity string
	Label    string
	Color    string
	Count    int
}

type reportChart struct {
	Width, Height int
	Bars          []reportBar
}

type reportBar struct {
	Label                      string
	Color                      string
	Count                      int
	Y, TextY, BarX, BarW, NumX int
}

type reportGroup struct {
	Severity string
	Label    string
	Color    string
	Findings []reportFinding
}

type reportFinding struct {
	N            int
	Title        string
	Description  string
	Scanner      string
	ScanType     string
	RuleID       string
	CWE          string
	Location     string
	Fingerprint  string
	Tags         []string
	Triage       string
	TriageNote   string
	TriageBy     string
	TriageAt     string
	Hidden       bool
	SuppressedBy string
}

type reportTagCount struct {
	Tag   string
	Count int
}

const reportTimeLayout = "2006-01-02 15:04:05 UTC"

// renderReportHTML renders the report of a completed scan. Everything in it
// comes from the stored scan plus generatedAt, so with SVC_FAKE_NOW pinning
// generatedAt two renders of one scan are byte-identical.
func renderReportHTML(sc store.Scan, findings []store.FindingWithState, generatedAt time.Time, data ...store.ScanDataSource) ([]byte, error) {
	v := reportView{
		DataSources:  data,
		DataWarnings: dataWarnings(data),
		Title:        "Security scan report: " + sc.TargetPath,
		ScanID:       sc.ID,
		Target:       sc.TargetPath,
		ScanTypes:    strings.Join(sc.ScanTypes, ", "),
		Started:      sc.StartedAt.UTC().Format(reportTimeLayout),
		Completed:    "not completed",
		Duration:     "unknown",
		RiskScore:    sc.RiskScore,
		Total:        len(findings),
		ScannersRun:  strings.Join(sc.ScannersRun, ", "),
		Skipped:      sc.ScannersSkipped,
		GeneratedAt:  generatedAt.UTC().Format(reportTimeLayout),
		Version:      Version,
	}
	if sc.TargetURL != nil {
		v.TargetURL = *sc.TargetURL
	}
	if sc.TargetHost != nil {
		v.TargetHost = *sc.TargetHost
	}
	if sc.CompletedAt != nil {
		v.Completed = sc.CompletedAt.UTC().Format(reportTimeLayout)
		v.Duration = reportDuration(sc.CompletedAt.Sub(sc.StartedAt))
	}

	groups := map[finding.Severity]*reportGroup{}
	var order []finding.Severity
	for _, sev := range finding.Severities {
		groups[sev] = &reportGroup{Severity: string(sev), Label: reportSeverityLabels[sev], Color: reportSeverityColors[sev]}
		order = append(order, sev)
	}
	tags := map[string]int{}
	for i, f := range findings {
		g := groups[f.Severity]
		if g == nil {
			// A severity outside the five still gets shown, after the rest,
			// rather than dropped from a security report.
			g = &reportGroup{Severity: string(f.Severity), Label: string(f.Severity), Color: reportSeverityColors[finding.Info]}
			groups[f.Severity] = g
			order = append(order, f.Severity)
		}
		rf := reportFinding{
			N: i + 1, Title: f.Title, Description: f.Description, Scanner: f.Scanner, ScanType: f.ScanType,
			RuleID: f.RuleID, CWE: string(f.CWE), Location: reportLocation(sc, f.Finding), Fingerprint: f.Fingerprint,
			Tags: f.ComplianceTags, Triage: reportTriageLabels["new"], SuppressedBy: reportSuppressedBy(f.Metadata),
		}
		if f.State != nil {
			rf.Triage = reportTriageLabels[f.State.Status]
			if rf.Triage == "" {
				rf.Triage = f.State.Status
			}
			rf.TriageNote, rf.TriageBy = f.State.Note, f.State.UpdatedBy
			rf.TriageAt = f.State.UpdatedAt.UTC().Format(reportTimeLayout)
			rf.Hidden = reportHiddenTriage[f.State.Status]
		}
		if rf.Hidden {
			v.Hidden++
		}
		if rf.SuppressedBy != "" {
			v.Suppressed++
		}
		for _, t := range f.ComplianceTags {
			tags[t]++
		}
		g.Findings = append(g.Findings, rf)
	}
	for _, sev := range order {
		g := groups[sev]
		v.Counts = append(v.Counts, reportCount{Severity: g.Severity, Label: g.Label, Color: g.Color, Count: len(g.Findings)})
		if len(g.Findings) > 0 {
			v.Groups = append(v.Groups, *g)
		}
	}
	v.Chart = reportBuildChart(v.Counts)
	for t, n := range tags {
		v.Compliance = append(v.Compliance, reportTagCount{Tag: t, Count: n})
	}
	sort.Slice(v.Compliance, func(i, j int) bool { return v.Compliance[i].Tag < v.Compliance[j].Tag })

	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, v); err != nil {
		return nil, fmt.Errorf("render report: %w", err)
	}
	return buf.Bytes(), nil
}

// reportBuildChart lays out one horizontal bar per severity in SVG user
// units; the longest bar spans the plot width and the others scale to it.
func reportBuildChart(counts []reportCount) reportChart {
	const labelW, plotW, numW, rowH, barH = 64, 200, 40, 26, 18
	ch := reportChart{Width: labelW + plotW + numW, Height: rowH*len(counts) + 4}
	max := 0
	for _, c := range counts {
		if c.Count > max {
			max = c.Count
		}
	}
	for i, c := range counts {
		w := 0
		if max > 0 {
			w = (c.Count*plotW + max/2) / max
		}
		if c.Count > 0 && w < 2 {
			w = 2 // a non-zero count never disappears
		}
		y := i*rowH + 4
		ch.Bars = append(ch.Bars, reportBar{Label: c.Label, Color: c.Color, Count: c.Count,
			Y: y, TextY: y + barH - 5, BarX: labelW, BarW: w, NumX: labelW + w + 6})
	}
	return ch
}

func reportDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "unknown"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

func reportLocation(sc store.Scan, f finding.Finding) string {
	switch {
	case f.FilePath != "" && f.Line > 0:
		return f.FilePath + ":" + strconv.Itoa(f.Line)
	case f.FilePath != "":
		return f.FilePath
	case f.ScanType == scan.TypeDAST && sc.TargetURL != nil:
		return *sc.TargetURL
	case f.ScanType == scan.TypeNetwork && sc.TargetHost != nil:
		return *sc.TargetHost
	}
	return sc.TargetPath
}

// reportSuppressedBy renders metadata.suppressed_by: empty when absent or
// null, the string itself, or compact JSON for a structured value.
func reportSuppressedBy(meta map[string]any) string {
	v, ok := meta["suppressed_by"]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// reportPDFUnavailable is the 501 when no renderer can be started.
func (s *Server) reportPDFUnavailable() error {
	if s.PDFRenderer != "" {
		return errStatus(http.StatusNotImplemented, "PDF rendering is not available: SVC_PDF_RENDERER="+s.PDFRenderer+
			" was not found; point it at a Chromium or Chrome binary, or unset it and install Chromium (apt-get install chromium)")
	}
	return errStatus(http.StatusNotImplemented, "PDF rendering needs a headless Chromium, which is not installed: "+
		"apt-get install chromium (or set SVC_PDF_RENDERER to a Chromium or Chrome binary); format=html is a printable alternative")
}

// renderReportPDF prints page with headless Chromium through the runner.
// The page is written to a private temp dir that also holds Chromium's
// profile and home, so nothing of the service user's profile is read or
// written. Chromium runs with every background-networking feature off and
// a resolver that maps every host to "not found": the page needs no
// network, and a renderer that cannot reach one cannot leak to one.
func (s *Server) renderReportPDF(ctx context.Context, page []byte) ([]byte, error) {
	if s.Runner == nil {
		return nil, s.reportPDFUnavailable()
	}
	dir, err := os.MkdirTemp("", "scand-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	pagePath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(pagePath, page, 0o600); err != nil {
		return nil, err
	}
	outPath := filepath.Join(dir, "r.pdf")
	args := reportPDFArgs(dir, pagePath, outPath)
	programs := reportPDFPrograms
	if s.PDFRenderer != "" {
		programs = []string{s.PDFRenderer}
	}
	for _, prog := range programs {
		res, err := s.Runner.Run(ctx, scan.Cmd{
			Program: prog, Args: args, Dir: dir, Timeout: reportPDFTimeout,
			Env: []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_CACHE_HOME=" + dir},
		})
		if errors.Is(err, scan.ErrNotInstalled) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("pdf renderer %s: %w (stderr tail: %s)", prog, err, reportOutputTail(res.Stderr, 500))
		}
		pdf, readErr := os.ReadFile(outPath)
		if readErr != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			return nil, fmt.Errorf("pdf renderer %s exited %d without writing a PDF (stderr tail: %s)", prog, res.ExitCode, reportOutputTail(res.Stderr, 500))
		}
		return pdf, nil
	}
	return nil, s.reportPDFUnavailable()
}

// reportPDFArgs are Chromium's flags for one offline print. Both header
// and footer flags are given: --no-pdf-header-footer is the current name,
// --print-to-pdf-no-header the one older Chromium releases understand; each
// ignores the other.
func reportPDFArgs(dir, pagePath, outPath string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-breakpad", "--disable-dev-shm-usage",
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir=" + filepath.Join(dir, "profile"),
		"--no-pdf-header-footer", "--print-to-pdf-no-header",
		"--print-to-pdf=" + outPath,
		(&url.URL{Scheme: "file", Path: pagePath}).String(),
	}
}

// reportOutputTail returns at most n bytes from the end of a process's
// output, starting on a character boundary, with invalid bytes replaced so
// the result is valid UTF-8 and still within n.
func reportOutputTail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
		}
	}
	return strings.ToValidUTF8(string(b), "?")
}
