package api

import (
	"errors"
	"net/http"
	"scand/store/audit"
	"strconv"
	"time"

	"scand/api/httpio"
	"scand/auth"
	"scand/finding"
	"scand/scan/components"
	"scand/scan/importscan"
	"scand/store"
)

// importMaxBody caps POST /scans/import (README documents it): about half
// a million findings of a typical size.
const importMaxBody = 256 << 20

// importReadTimeout replaces the server's read timeout for an import body.
const importReadTimeout = 10 * time.Minute

// ImportScanRequest is the body of POST /scans/import. target, commit and
// scan_types must come before findings: the findings are stored while the
// body is read, never held.
type ImportScanRequest struct {
	Target          string                   `json:"target" doc:"label the scan is filed under (target_path), e.g. the repository URL; 1-1000 bytes, no control characters"`
	Commit          *string                  `json:"commit,omitempty" doc:"git commit id (hexadecimal) the findings were computed at"`
	ScanTypes       []string                 `json:"scan_types" doc:"non-empty; every finding's scan_type must be one of them"`
	ScannersRun     []string                 `json:"scanners_run,omitempty"`
	ScannersSkipped []store.SkippedScanner   `json:"scanners_skipped,omitempty"`
	Coverage        *finding.ScanCoverage    `json:"coverage,omitempty" doc:"what the scan examined (scand scan sends it); its scanner entries are kept and the type statuses and partial reasons recomputed from them"`
	Findings        []store.FindingWithState `json:"findings" doc:"in the API's finding shape; id, scan_id, compliance_tags and state are the daemon's to set and are ignored"`
	Components      []components.Component   `json:"components,omitempty" doc:"the components captured with the scan (scand scan sends them), before or after findings: the scan's SBOM, inventory rows and version warning come from them; at most 100,000, each checked"`
}

// ImportScanResult is the answer to an import.
type ImportScanResult struct {
	Scan     ScanView            `json:"scan"`
	Verdicts []store.TriageState `json:"verdicts" doc:"the triage verdict (other than new) on each imported finding that has one"`
}

func (s *Server) importRoutes() []Route {
	return []Route{{Method: "POST", Path: "/scans/import", Scope: auth.ScopeWrite, RateLimited: true, Tag: "scans",
		Summary: "Store a scan computed elsewhere (scand scan --server) as a completed scan; answers the verdicts on its findings",
		Request: ImportScanRequest{}, Response: ImportScanResult{}, Status: http.StatusCreated, MaxBody: importMaxBody,
		Errors: []int{413, 422}, Handler: s.handleImportScan}}
}

func (s *Server) handleImportScan(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(importReadTimeout))
	sc, err := importscan.Importer{Store: s.Store, Scans: s.Scans}.Read(ctx, r.Body, PrincipalFrom(ctx).ID)
	var tooBig *http.MaxBytesError
	var probs *importscan.ProblemsError
	switch {
	case errors.As(err, &tooBig):
		return httpio.Status(http.StatusRequestEntityTooLarge, "Request body too large (limit "+strconv.Itoa(importMaxBody)+" bytes)")
	case errors.Is(err, importscan.ErrValueTooLarge):
		return httpio.Status(http.StatusRequestEntityTooLarge, "Request body refused: "+err.Error())
	case errors.As(err, &probs):
		return problemsError("body", probs.Problems)
	case err != nil:
		return err
	}
	s.audit(ctx, PrincipalFrom(ctx), "scan.import", "scan", sc.ID, audit.Changes{"status": {After: sc.Status}, "target_path": {After: sc.TargetPath},
		"findings_count": {After: sc.FindingsCount}})
	verdicts, err := importscan.Verdicts(ctx, s.Store, sc)
	if err != nil {
		return err
	}
	view, err := s.scanViewOf(ctx, sc)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusCreated, ImportScanResult{Scan: view, Verdicts: verdicts})
	return nil
}
