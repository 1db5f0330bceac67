package api

import (
	"scand/api/portfolio"
	"scand/store"
)

// ScanFinding is a row of GET /scans/{id}/findings: the finding, its
// triage state, and its age and deadline on the scan's target.
type ScanFinding struct {
	store.FindingWithState
	portfolio.ScanAge
}
