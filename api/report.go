package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"scand/auth"
	"scand/finding"
	"scand/finding/report"
	"scand/scan"
	"scand/store"
)

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
	h.Set("Content-Security-Policy", report.CSP)
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

// streamSARIF writes a completed scan as SARIF 2.1.0 (finding/report),
// its results read from the store while they are written.
func (s *Server) streamSARIF(ctx context.Context, w http.ResponseWriter, sc store.Scan) error {
	data, err := s.Store.ScanDataSources(ctx, sc.ID)
	if err != nil {
		return err
	}
	tools, err := scan.SARIFTools(ctx, s.Store, sc, s.Scanners, data, func(name string) iter.Seq2[report.Row, error] {
		return scan.ReportRows(s.Store.FindingRows(ctx, sc, store.FindingQuery{Scanners: []string{name}}), nil)
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="scand-`+sc.ID+`.sarif"`)
	sw := startStream(w, "application/sarif+json")
	if err := report.WriteSARIF(sw, scan.ReportScan(sc, data, Version), tools); err != nil {
		return sw.fail(err)
	}
	return sw.finish()
}

// writeStoredReport writes the HTML report of a stored, completed scan:
// the header from its facet counts, each group streamed from the store.
func (s *Server) writeStoredReport(ctx context.Context, w io.Writer, sc store.Scan) error {
	facets, err := s.Store.ScanFacets(ctx, sc)
	if err != nil {
		return err
	}
	data, err := s.Store.ScanDataSources(ctx, sc.ID)
	if err != nil {
		return err
	}
	blocks, err := s.Store.ScanBlocks(ctx, sc)
	if err != nil {
		return err
	}
	t := report.NewTally()
	// Unknown severities are ordered by where they first appear.
	for _, b := range blocks {
		t.Severity(finding.Severity(b.Severity))
	}
	for _, f := range facets {
		t.Add(finding.Severity(f.Severity), f.Suppressed, report.HiddenVerdict(f.Triage), f.Tags, f.N)
	}
	return report.WriteHTML(w, scan.ReportScan(sc, data, Version), t, s.outputNow(), func(sev finding.Severity) iter.Seq2[report.Row, error] {
		return scan.ReportRows(s.Store.FindingRows(ctx, sc, store.FindingQuery{Severities: []string{string(sev)}}), nil)
	})
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
