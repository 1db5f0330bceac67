package api

import (
	"iter"
	"net/http"

	"scand/api/httpio"
	"scand/auth"
	"scand/finding"
	"scand/finding/report"
	"scand/store"
)

// ComplianceCoverage is the body of GET /compliance/coverage (finding/report writes it).
type ComplianceCoverage = report.Coverage

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
			return httpio.NotFound("No completed scan yet")
		}
		sc = latest[0]
	} else if sc, err = s.loadScan(r.Context(), id); err != nil {
		return err
	}
	if sc.Status != store.StatusCompleted {
		return httpio.Conflict("Scan is " + sc.Status + "; coverage needs a completed scan")
	}
	// Counts come from the scan's stored facets; only the fingerprint
	// lists are read, one control at a time, streamed in order.
	facets, err := s.Store.ScanFacets(r.Context(), sc)
	if err != nil {
		return err
	}
	excluded := 0
	counts := map[string]int{}
	for _, f := range facets {
		// A false positive is not a weakness; an accepted risk still is.
		if f.Triage == "false_positive" {
			excluded += f.N
			continue
		}
		if f.Suppressed {
			continue
		}
		for _, tag := range f.Tags {
			counts[tag] += f.N
		}
	}
	sw := httpio.StartStream(w, "application/json")
	if err := report.WriteCoverage(sw, sc.ID, excluded, counts, func(control string) iter.Seq2[string, error] {
		return s.Store.ControlFingerprints(r.Context(), sc, control)
	}); err != nil {
		return sw.Fail(err)
	}
	return sw.Finish()
}

func (s *Server) handleFrameworks(w http.ResponseWriter, r *http.Request) error {
	httpio.WriteJSON(w, http.StatusOK, finding.Frameworks())
	return nil
}
