package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"time"

	"scand/api/httpio"
	"scand/api/pdf"
	"scand/auth"
	"scand/finding"
	"scand/finding/report"
	"scand/scan/reportdata"
	"scand/store"
)

// reportFormats are the values of ?format=.
var reportFormats = []string{"html", "pdf", "sarif"}

// pdfMaxFindings is the largest scan a PDF is printed for. Chromium lays
// out the whole page before it prints, so its time and memory grow with
// the report (100k findings ran past its 60 s bound); HTML and SARIF are
// streamed and have no such limit.
const pdfMaxFindings = 2000

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
				Description: "html: printable page without external references, streamed; pdf: needs Chromium (apt-get install chromium, or SVC_PDF_RENDERER), at most 2000 findings (422 beyond, at once); sarif: one run per scanner, streamed"},
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
		return httpio.Invalid("enum", "Input should be 'html', 'pdf' or 'sarif'", format, "query", "format")
	}
	ctx := r.Context()
	sc, err := s.Store.ScanByID(ctx, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Scan not found")
	}
	if err != nil {
		return err
	}
	if sc.Status != store.StatusCompleted {
		return httpio.Conflict("Scan is " + sc.Status + ": a report needs a completed scan")
	}
	h := w.Header()
	// Reports list weaknesses of the target: no shared cache keeps them.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	switch format {
	case "sarif":
		return s.streamSARIF(ctx, w, sc)
	case "pdf":
		if err := s.checkPDFSize(ctx, sc); err != nil {
			return err
		}
		select {
		case pdfSlot <- struct{}{}:
			defer func() { <-pdfSlot }()
		case <-ctx.Done():
			return ctx.Err()
		}
		doc, err := pdf.Render(ctx, s.Runner, s.PDFRenderer, func(out io.Writer) error { return s.writeStoredReport(ctx, out, sc) })
		var missing *pdf.UnavailableError
		if errors.As(err, &missing) {
			return httpio.Status(http.StatusNotImplemented, missing.Error())
		}
		if err != nil {
			return err
		}
		h.Set("Content-Type", "application/pdf")
		h.Set("Content-Disposition", `attachment; filename="scand-report-`+sc.ID+`.pdf"`)
		if err := pdf.Serve(w, doc); err != nil {
			return httpio.StreamAborted{Cause: err}
		}
		return nil
	}
	h.Set("Content-Security-Policy", report.CSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Disposition", `inline; filename="scand-report-`+sc.ID+`.html"`)
	sw := httpio.StartStream(w, "text/html; charset=utf-8")
	if err := s.writeStoredReport(ctx, sw, sc); err != nil {
		return sw.Fail(err)
	}
	return sw.Finish()
}

// checkPDFSize refuses at once a PDF of a scan too large to print, naming
// the formats that work; the count comes from the facets kept at ingest.
func (s *Server) checkPDFSize(ctx context.Context, sc store.Scan) error {
	facets, err := s.Store.ScanFacets(ctx, sc)
	if err != nil {
		return err
	}
	n := 0
	for _, f := range facets {
		n += f.N
	}
	if n <= pdfMaxFindings {
		return nil
	}
	return httpio.Invalid("value_error", fmt.Sprintf("This scan has %d findings; a PDF is printed for at most %d. "+
		"Use format=html (streamed; print it from a browser) or format=sarif, or GET /api/v1/scans/%s/findings?format=ndjson", n, pdfMaxFindings, sc.ID),
		"pdf", "query", "format")
}

// streamSARIF writes a completed scan as SARIF 2.1.0 (finding/report),
// its results read from the store while they are written.
func (s *Server) streamSARIF(ctx context.Context, w http.ResponseWriter, sc store.Scan) error {
	data, err := s.Store.ScanDataSources(ctx, sc.ID)
	if err != nil {
		return err
	}
	coverage, err := reportdata.ScanCoverage(ctx, s.Store, sc)
	if err != nil {
		return err
	}
	look := s.Store.ExcerptLookup(sc.Seq)
	tools, err := reportdata.SARIFTools(ctx, s.Store, sc, s.Scanners, data, func(name string) iter.Seq2[report.Row, error] {
		return reportdata.AgedReportRows(ctx, s.Store, sc, look, s.Store.FindingRows(ctx, sc, store.FindingQuery{Scanners: []string{name}}), nil)
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Disposition", `attachment; filename="scand-`+sc.ID+`.sarif"`)
	sw := httpio.StartStream(w, "application/sarif+json")
	if err := report.WriteSARIF(sw, reportdata.ReportScan(sc, data, coverage, Version), tools); err != nil {
		return sw.Fail(err)
	}
	return sw.Finish()
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
	coverage, err := reportdata.ScanCoverage(ctx, s.Store, sc)
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
	return report.WriteHTML(w, reportdata.ReportScan(sc, data, coverage, Version), t, s.outputNow(), func(sev finding.Severity) iter.Seq2[report.Row, error] {
		return reportdata.AgedReportRows(ctx, s.Store, sc, nil, s.Store.FindingRows(ctx, sc, store.FindingQuery{Severities: []string{string(sev)}}), nil)
	})
}
