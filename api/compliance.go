package api

import (
	"net/http"

	"scand/auth"
	"scand/finding"
	"scand/store"
)

// ComplianceCoverage is the body of GET /compliance/coverage.
type ComplianceCoverage struct {
	ScanID string `json:"scan_id"`
	// ExcludedFalsePositives counts findings left out because their
	// triage verdict is false_positive; suppressed findings never count.
	ExcludedFalsePositives int                         `json:"excluded_false_positives"`
	Frameworks             []finding.FrameworkCoverage `json:"frameworks"`
}

func (s *Server) complianceRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/compliance/coverage", Scope: auth.ScopeRead, Tag: "compliance", Summary: "Per-framework control coverage of a scan's findings",
			Params:   []Param{{Name: "scan_id", In: "query", Type: "string", Description: "a scan id; default: the most recent completed scan"}},
			Response: ComplianceCoverage{}, Errors: []int{404, 409}, Handler: s.handleCoverage},
		{Method: "GET", Path: "/compliance/frameworks", Scope: auth.ScopeRead, Tag: "compliance", Summary: "The frameworks and controls scand maps findings to",
			Response: []finding.Framework{}, Handler: s.handleFrameworks},
	}
}

func (s *Server) handleCoverage(w http.ResponseWriter, r *http.Request) error {
	id := r.URL.Query().Get("scan_id")
	var sc store.Scan
	var err error
	if id == "" {
		latest, err := s.Store.Scans(r.Context(), store.ScanFilter{Statuses: []string{store.StatusCompleted}, Limit: 1})
		if err != nil {
			return err
		}
		if len(latest) == 0 {
			return errNotFound("No completed scan yet")
		}
		sc = latest[0]
	} else if sc, err = s.loadScan(r.Context(), id); err != nil {
		return err
	}
	if sc.Status != store.StatusCompleted {
		return errConflict("Scan is " + sc.Status + "; coverage needs a completed scan")
	}
	rows, err := s.Store.FindingsByScan(r.Context(), sc.ID, store.FindingFilter{})
	if err != nil {
		return err
	}
	out := ComplianceCoverage{ScanID: sc.ID}
	fs := make([]finding.Finding, 0, len(rows))
	for _, fw := range rows {
		// A false positive is not a weakness; an accepted risk still is.
		if fw.State != nil && fw.State.Status == "false_positive" {
			out.ExcludedFalsePositives++
			continue
		}
		fs = append(fs, fw.Finding)
	}
	out.Frameworks = finding.Coverage(fs)
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleFrameworks(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, finding.Frameworks())
	return nil
}
