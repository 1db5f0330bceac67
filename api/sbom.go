package api

import (
	"net/http"
	"time"

	"scand/api/httpio"
	"scand/auth"
	"scand/scan/components"
	"scand/scan/sbom"
	"scand/store"
)

func (s *Server) sbomRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/scans/{id}/sbom", Scope: auth.ScopeRead, Tag: "sbom",
			Summary:      "SBOM of the components captured when the scan ran (CycloneDX 1.5 or SPDX 2.3 JSON)",
			Params:       append([]Param{{Name: "format", In: "query", Type: "string", Enum: []string{"cyclonedx", "spdx"}, Default: "cyclonedx"}}, idParam...),
			ContentTypes: []string{"application/vnd.cyclonedx+json", "application/spdx+json"}, Errors: []int{404, 409, 422}, Handler: s.handleSBOM},
	}
}

func (s *Server) handleSBOM(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "cyclonedx"
	}
	if format != "cyclonedx" && format != "spdx" {
		return httpio.Invalid("enum", "format must be cyclonedx or spdx", format, "query", "format")
	}
	sc, err := s.loadScan(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if sc.Status != store.StatusCompleted {
		return httpio.Conflict("Scan is " + sc.Status + "; the SBOM is available once it has completed")
	}
	raw, err := s.Store.ScanComponents(r.Context(), sc.ID)
	if err != nil {
		return err
	}
	comps, err := components.DecodeCapture(raw)
	if err != nil {
		return err
	}
	meta := sbom.Meta{ScanID: sc.ID, TargetPath: sc.TargetPath, Timestamp: sbomTime(sc, s.OutputNow), ToolVersion: Version}
	var body []byte
	ctype := "application/vnd.cyclonedx+json; version=1.5"
	if format == "spdx" {
		body, err = sbom.SPDXJSON(meta, comps)
		ctype = "application/spdx+json"
	} else {
		body, err = sbom.CycloneDXJSON(meta, comps)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="scand-`+sc.ID+`-`+format+`.json"`)
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return nil
}

// sbomTime is the scan's completion time, so one scan's SBOM is the same
// bytes every time it is fetched; a pinned output clock (SVC_FAKE_NOW)
// overrides it.
func sbomTime(sc store.Scan, pinned func() time.Time) time.Time {
	if pinned != nil {
		return pinned().UTC()
	}
	if sc.CompletedAt != nil {
		return *sc.CompletedAt
	}
	return sc.StartedAt
}
