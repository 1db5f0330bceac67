package api

import (
	"encoding/json"
	"net/http"

	"scand/api/openapi"
)

// openAPI builds the OpenAPI 3.1 document from the route table and the Go
// types the routes declare (api/openapi).
func (s *Server) openAPI() map[string]any {
	return openapi.Document(s.routes, openapi.Info{Title: "scand", Version: Version, License: License, Prefix: prefixV1,
		Description:     "Self-hosted security-scan orchestration daemon. Every /api/v1 route is also mounted under the deprecated /api prefix (sunset 2026-12-31), which answers with Deprecation, Sunset and Link headers.",
		TagDescriptions: tagDescriptions})
}

// OpenAPIJSON returns the serialized document, built once per server.
func (s *Server) OpenAPIJSON() ([]byte, error) {
	s.openapiOnce.Do(func() {
		s.openapiBody, s.openapiErr = json.MarshalIndent(s.openAPI(), "", "  ")
	})
	return s.openapiBody, s.openapiErr
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) error {
	body, err := s.OpenAPIJSON()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
	return nil
}

// License names scand's licence in the OpenAPI document's info.license.
// The repository carries no LICENSE file yet, so the legal default (all
// rights reserved) is what the document can truthfully say; change this
// together with adding a LICENSE file (then add its SPDX "identifier").
const License = "Proprietary (all rights reserved)"

// tagDescriptions explains each operation tag in the document's top-level
// tags list; a test fails when a route uses a tag missing here.
var tagDescriptions = map[string]string{
	"admin":         "Operating the daemon: an online, verified backup of its database.",
	"audit":         "The append-only audit log: every state change with its actor (key id and name), the fields before and after, request id and client address.",
	"meta":          "Service information, liveness, readiness and this documentation.",
	"keys":          "Issued API keys: create, list, inspect and revoke.",
	"scans":         "Start, list, inspect, cancel and delete scans; their summaries, findings and reports.",
	"portfolio":     "Targets as records, findings across every target's latest scan with age and fix deadlines (SVC_SLA_DAYS), component inventory and affected targets per vulnerability.",
	"vex":           "VEX: the OpenVEX or CycloneDX VEX document of a scan's or target's verdicts, and imports of vendor VEX whose not_affected statements become false_positive verdicts now and at later scans (docs/vex.md).",
	"events":        "Live scan progress as Server-Sent Events, and the short-lived tokens browsers use for it.",
	"findings":      "Findings across scans, compared by fingerprint.",
	"triage":        "Triage verdicts, their history and comments, keyed on a finding's fingerprint.",
	"compliance":    "Compliance frameworks and the coverage of a scan's findings.",
	"sbom":          "Software bills of materials (CycloneDX, SPDX) of a scan's dependencies.",
	"dashboard":     "Scanner availability, statistics, trends, target browsing and scanner installation.",
	"webhooks":      "Signed webhook subscriptions and their deliveries.",
	"notifications": "In-app notifications raised by scan events.",
	"schedules":     "Recurring scans on a cron expression, with their run history.",
	"vulndb":        "Offline advisory databases of the dependency scanners: their age, and importing new archives.",
	"reevaluations": "Re-evaluating the stored SBOMs of targets against newly imported advisory data, with the tools that read an SBOM offline; runs after an import and on demand.",
}
