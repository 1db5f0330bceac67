// Package scanpages is the console's scan and review pages: the overview, scans
// and their findings, verdicts and comments, bulk verdicts, rule groups,
// compare, the target picker and the audit log.
package scanpages

import (
	"net/url"

	"scand/api/ui"
)

// pages are this package's handlers; they reach the console's data,
// actions and rendering through the embedded *ui.Console.
type pages struct{ *ui.Console }

// Pages returns this package's console routes.
func Pages(console *ui.Console) []ui.Route {
	c := pages{console}
	return []ui.Route{
		{Pattern: "GET /ui/{$}", API: "GET /dashboard/stats", Handle: c.overview},
		{Pattern: "GET /ui/scans", API: "GET /scans", Handle: c.scanList},
		{Pattern: "POST /ui/scans", API: "POST /scans", Handle: c.startScan},
		{Pattern: "GET /ui/scans/{id}", API: "GET /scans/{id}/findings", Handle: c.scanDetail},
		{Pattern: "POST /ui/scans/{id}/cancel", API: "POST /scans/{id}/cancel", Handle: c.cancelScan},
		{Pattern: "POST /ui/scans/{id}/delete", API: "DELETE /scans/{id}", Handle: c.deleteScan},
		{Pattern: "POST /ui/scans/{id}/triage", API: "POST /findings/triage", Handle: c.bulkTriage},
		{Pattern: "GET /ui/audit", API: "GET /audit", Handle: c.auditLog},
		{Pattern: "GET /ui/scans/{id}/rules", API: "GET /scans/{id}/rules", Handle: c.ruleGroups},
		{Pattern: "GET /ui/scans/{id}/sbom", API: "GET /scans/{id}/sbom", Handle: c.export("GET /scans/{id}/sbom")},
		{Pattern: "GET /ui/scans/{id}/report", API: "GET /scans/{id}/report", Handle: c.export("GET /scans/{id}/report")},
		{Pattern: "GET /ui/scans/{id}/vex", API: "GET /scans/{id}/vex", Handle: c.export("GET /scans/{id}/vex")},
		{Pattern: "GET /ui/targets/{id}/vex", API: "GET /targets/{id}/vex", Handle: c.exportBack("GET /targets/{id}/vex", func(id string) string { return "/ui/targets/" + url.PathEscape(id) })},
		{Pattern: "GET /ui/browse", API: "GET /dashboard/browse", Handle: c.browse},
		{Pattern: "GET /ui/findings/{fp}", API: "GET /findings/{fingerprint}/history", Handle: c.findingDetail},
		{Pattern: "POST /ui/findings/{fp}/triage", API: "PATCH /findings/{fingerprint}/state", Handle: c.setTriage},
		{Pattern: "POST /ui/findings/{fp}/comments", API: "POST /findings/{fingerprint}/comments", Handle: c.addComment},
		{Pattern: "POST /ui/findings/{fp}/comments/{cid}/delete", API: "DELETE /findings/{fingerprint}/comments/{comment_id}", Handle: c.deleteComment},
		{Pattern: "GET /ui/compare", API: "GET /scans/compare", Handle: c.compare},
	}
}
