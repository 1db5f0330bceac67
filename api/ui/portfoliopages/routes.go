// Package portfoliopages is the console's portfolio pages: targets, the
// findings of their latest scans, components and vulnerabilities.
package portfoliopages

import "scand/api/ui"

// pages are this package's handlers; they reach the console's data,
// actions and rendering through the embedded *ui.Console.
type pages struct{ *ui.Console }

// Pages returns this package's console routes.
func Pages(console *ui.Console) []ui.Route {
	c := pages{console}
	return []ui.Route{
		{Pattern: "GET /ui/targets", API: "GET /targets", Handle: c.targetList},
		{Pattern: "GET /ui/targets/{id}", API: "GET /targets/{id}", Handle: c.targetDetail},
		{Pattern: "POST /ui/targets/{id}", API: "PATCH /targets/{id}", Handle: c.editTarget},
		{Pattern: "GET /ui/findings", API: "GET /findings", Handle: c.portfolioFindings},
		{Pattern: "POST /ui/findings/triage", API: "POST /findings/triage", Handle: c.portfolioTriage},
		{Pattern: "GET /ui/components", API: "GET /components", Handle: c.components},
		{Pattern: "GET /ui/vulnerabilities/{id}", API: "GET /vulnerabilities/{id}", Handle: c.vulnerability},
	}
}
