package api

import (
	"encoding/json"
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
	// Counts come from the scan's stored facets; only the fingerprint
	// lists are read, one control at a time, streamed in order.
	facets, err := s.Store.ScanFacets(r.Context(), sc)
	if err != nil {
		return err
	}
	out := ComplianceCoverage{ScanID: sc.ID, Frameworks: []finding.FrameworkCoverage{}}
	counts := map[string]int{}
	for _, f := range facets {
		// A false positive is not a weakness; an accepted risk still is.
		if f.Triage == "false_positive" {
			out.ExcludedFalsePositives += f.N
			continue
		}
		if f.Suppressed {
			continue
		}
		for _, tag := range f.Tags {
			counts[tag] += f.N
		}
	}
	head, err := json.Marshal(out)
	if err != nil {
		return err
	}
	sw := startStream(w, "application/json")
	sw.Write(head[:len(head)-len("[]}")])
	sw.WriteByte('[')
	for i, fc := range finding.CoverageCounts(counts) {
		if i > 0 {
			sw.WriteByte(',')
		}
		controls := fc.Controls
		fc.Controls = []finding.ControlCoverage{}
		b, err := json.Marshal(fc)
		if err != nil {
			return sw.fail(err)
		}
		sw.Write(b[:len(b)-len("[]}")])
		sw.WriteByte('[')
		for j, cc := range controls {
			if j > 0 {
				sw.WriteByte(',')
			}
			b, err := json.Marshal(cc)
			if err != nil {
				return sw.fail(err)
			}
			if cc.Status != finding.ControlViolated {
				sw.Write(b)
				continue
			}
			sw.Write(b[:len(b)-len("[]}")])
			sw.WriteByte('[')
			n := 0
			for fp, err := range s.Store.ControlFingerprints(r.Context(), sc, cc.ID) {
				if err != nil {
					return sw.fail(err)
				}
				if n > 0 {
					sw.WriteByte(',')
				}
				n++
				q, _ := json.Marshal(fp)
				sw.Write(q)
			}
			sw.WriteString("]}")
		}
		sw.WriteString("]}")
	}
	sw.WriteString("]}\n")
	return sw.finish()
}

func (s *Server) handleFrameworks(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, finding.Frameworks())
	return nil
}
