package api

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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
	h := w.Header()
	// Reports list weaknesses of the target: no shared cache keeps them.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	switch format {
	case "sarif":
		return s.streamSARIF(ctx, w, sc)
	case "pdf":
		select {
		case pdfSlot <- struct{}{}:
			defer func() { <-pdfSlot }()
		case <-ctx.Done():
			return ctx.Err()
		}
		pdf, err := s.renderReportPDF(ctx, func(out io.Writer) error { return s.writeStoredReport(ctx, out, sc) })
		if err != nil {
			return err
		}
		h.Set("Content-Type", "application/pdf")
		h.Set("Content-Disposition", `attachment; filename="scand-report-`+sc.ID+`.pdf"`)
		return servePDF(w, pdf)
	}
	h.Set("Content-Security-Policy", reportCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Disposition", `inline; filename="scand-report-`+sc.ID+`.html"`)
	sw := startStream(w, "text/html; charset=utf-8")
	if err := s.writeStoredReport(ctx, sw, sc); err != nil {
		return sw.fail(err)
	}
	return sw.finish()
}

// servePDF sends a rendered PDF file and removes it.
func servePDF(w http.ResponseWriter, pdf *os.File) error {
	defer os.RemoveAll(filepath.Dir(pdf.Name()))
	defer pdf.Close()
	info, err := pdf.Stat()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, pdf); err != nil {
		return errStreamAborted{err}
	}
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
	HasGroups   bool
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

// reportGroup opens one severity's section.
type reportGroup struct {
	Severity string
	Label    string
	Color    string
	Count    int
}

type reportFinding struct {
	Color        string
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

// reportTally is what the report's header says about the findings. The
// stored-scan report takes it from the scan's facet counts, so the page
// is written while the findings are read, never held.
type reportTally struct {
	total, suppressed, hidden int
	bySeverity                map[finding.Severity]int
	// extra lists severities outside the five, in order of appearance.
	extra []finding.Severity
	tags  map[string]int
	// data is the offline advisory data the scan used.
	data []store.ScanDataSource
}

func newReportTally() *reportTally {
	return &reportTally{bySeverity: map[finding.Severity]int{}, tags: map[string]int{}}
}

func (t *reportTally) add(sev finding.Severity, suppressed, hidden bool, tags []string, n int) {
	t.total += n
	if suppressed {
		t.suppressed += n
	}
	if hidden {
		t.hidden += n
	}
	if !sev.Valid() && !slices.Contains(t.extra, sev) {
		t.extra = append(t.extra, sev)
	}
	t.bySeverity[sev] += n
	for _, tag := range tags {
		t.tags[tag] += n
	}
}

// severities lists the report's groups in order: the five, then others.
func (t *reportTally) severities() []finding.Severity {
	return append(slices.Clone(finding.Severities), t.extra...)
}

// reportHeader fills everything of the view that is not a finding.
func reportHeader(sc store.Scan, t *reportTally, generatedAt time.Time) reportView {
	v := reportView{
		DataSources:  t.data,
		DataWarnings: dataWarnings(t.data),
		Title:        "Security scan report: " + sc.TargetPath,
		ScanID:       sc.ID,
		Target:       sc.TargetPath,
		ScanTypes:    strings.Join(sc.ScanTypes, ", "),
		Started:      sc.StartedAt.UTC().Format(reportTimeLayout),
		Completed:    "not completed",
		Duration:     "unknown",
		RiskScore:    sc.RiskScore,
		Total:        t.total,
		Suppressed:   t.suppressed,
		Hidden:       t.hidden,
		HasGroups:    t.total > 0,
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
	for _, sev := range t.severities() {
		label, color := reportSeverityLabels[sev], reportSeverityColors[sev]
		if label == "" {
			// A severity outside the five still gets shown, after the rest,
			// rather than dropped from a security report.
			label, color = string(sev), reportSeverityColors[finding.Info]
		}
		v.Counts = append(v.Counts, reportCount{Severity: string(sev), Label: label, Color: color, Count: t.bySeverity[sev]})
	}
	v.Chart = reportBuildChart(v.Counts)
	for tag, n := range t.tags {
		v.Compliance = append(v.Compliance, reportTagCount{Tag: tag, Count: n})
	}
	sort.Slice(v.Compliance, func(i, j int) bool { return v.Compliance[i].Tag < v.Compliance[j].Tag })
	return v
}

// reportEntry is one finding to write: a stored row (written from its
// tokens when it can be) or a finding held in memory.
type reportEntry struct {
	row *store.FindingRow
	fw  store.FindingWithState
}

// writeReport writes the report page: the header, then for each severity
// group in order the findings that group yields (in canonical order).
func writeReport(w io.Writer, sc store.Scan, t *reportTally, generatedAt time.Time,
	group func(sev finding.Severity) iter.Seq2[reportEntry, error]) error {
	v := reportHeader(sc, t, generatedAt)
	if err := reportTemplate.ExecuteTemplate(w, "head", v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	n := 0
	var buf []byte
	var tags [][]byte
	for _, c := range v.Counts {
		if c.Count == 0 {
			continue
		}
		if err := reportTemplate.ExecuteTemplate(w, "group-start", reportGroup{Severity: c.Severity, Label: c.Label, Color: c.Color, Count: c.Count}); err != nil {
			return fmt.Errorf("render report: %w", err)
		}
		for e, err := range group(finding.Severity(c.Severity)) {
			if err != nil {
				return err
			}
			n++
			ok := false
			if e.row != nil {
				var raw finding.RawFinding
				if raw, ok = e.row.Raw(tags); ok {
					tags = raw.Tags
					buf, ok = appendReportFindingRaw(buf[:0], &raw, e.row.State, n, c.Color)
				}
				if !ok {
					if e.fw, err = e.row.DecodeMeta(exportMetadata...); err != nil {
						return err
					}
				}
			}
			if !ok {
				rf := reportFindingView(sc, e.fw, n, c.Color)
				buf = appendReportFinding(buf[:0], &rf)
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		if err := reportTemplate.ExecuteTemplate(w, "group-end", nil); err != nil {
			return fmt.Errorf("render report: %w", err)
		}
	}
	if err := reportTemplate.ExecuteTemplate(w, "foot", v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}

func reportFindingView(sc store.Scan, f store.FindingWithState, n int, color string) reportFinding {
	rf := reportFinding{
		Color: color, N: n, Title: f.Title, Description: f.Description, Scanner: f.Scanner, ScanType: f.ScanType,
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
	return rf
}

// writeStoredReport writes the report of a stored, completed scan: the
// header from its facet counts, each group streamed from the store.
func (s *Server) writeStoredReport(ctx context.Context, w io.Writer, sc store.Scan) error {
	facets, err := s.Store.ScanFacets(ctx, sc)
	if err != nil {
		return err
	}
	t := newReportTally()
	if t.data, err = s.Store.ScanDataSources(ctx, sc.ID); err != nil {
		return err
	}
	blocks, err := s.Store.ScanBlocks(ctx, sc)
	if err != nil {
		return err
	}
	// Unknown severities are ordered by where they first appear.
	for _, b := range blocks {
		if sev := finding.Severity(b.Severity); !sev.Valid() && !slices.Contains(t.extra, sev) {
			t.extra = append(t.extra, sev)
		}
	}
	for _, f := range facets {
		t.add(finding.Severity(f.Severity), f.Suppressed, reportHiddenTriage[f.Triage], f.Tags, f.N)
	}
	return writeReport(w, sc, t, s.outputNow(), func(sev finding.Severity) iter.Seq2[reportEntry, error] {
		return func(yield func(reportEntry, error) bool) {
			for row, err := range s.Store.FindingRows(ctx, sc, store.FindingQuery{Severities: []string{string(sev)}}) {
				if !yield(reportEntry{row: &row}, err) || err != nil {
					return
				}
			}
		}
	})
}

// exportMetadata are the metadata keys the reports read.
var exportMetadata = []string{"suppressed_by", "url"}

// renderReportHTML renders the report of findings held in memory; the
// page is the one writeStoredReport streams. Everything in it comes from
// the scan, the findings and generatedAt, so with SVC_FAKE_NOW pinning
// generatedAt two renders are byte-identical.
func renderReportHTML(sc store.Scan, findings []store.FindingWithState, generatedAt time.Time, data ...store.ScanDataSource) ([]byte, error) {
	t := newReportTally()
	t.data = data
	for _, f := range findings {
		t.add(f.Severity, reportSuppressedBy(f.Metadata) != "", f.State != nil && reportHiddenTriage[f.State.Status], f.ComplianceTags, 1)
	}
	var buf bytes.Buffer
	err := writeReport(&buf, sc, t, generatedAt, func(sev finding.Severity) iter.Seq2[reportEntry, error] {
		return func(yield func(reportEntry, error) bool) {
			for _, f := range findings {
				if f.Severity == sev && !yield(reportEntry{fw: f}, nil) {
					return
				}
			}
		}
	})
	return buf.Bytes(), err
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
func (s *Server) renderReportPDF(ctx context.Context, page func(io.Writer) error) (pdf *os.File, err error) {
	if s.Runner == nil {
		return nil, s.reportPDFUnavailable()
	}
	dir, err := os.MkdirTemp("", "scand-report-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	pagePath := filepath.Join(dir, "report.html")
	if err := writeFileStream(pagePath, page); err != nil {
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
		f, openErr := os.Open(outPath)
		magic := make([]byte, 5)
		if openErr == nil {
			_, openErr = io.ReadFull(f, magic)
		}
		if openErr != nil || string(magic) != "%PDF-" {
			if f != nil {
				f.Close()
			}
			return nil, fmt.Errorf("pdf renderer %s exited %d without writing a PDF (stderr tail: %s)", prog, res.ExitCode, reportOutputTail(res.Stderr, 500))
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	return nil, s.reportPDFUnavailable()
}

// writeFileStream writes a private file through a buffer.
func writeFileStream(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, streamBufferSize)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
