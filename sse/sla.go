package sse

import "time"

// FindingSLABreached is published when open findings of a target pass
// their fix deadline (SVC_SLA_DAYS, issue 25): one event per target per
// check, each finding in exactly one event ever. Like scan.new_findings it
// belongs to no scan's stream; webhooks and notifications receive it.
const FindingSLABreached = "finding.sla_breached"

// FindingSLABreachedData is the payload of finding.sla_breached.
type FindingSLABreachedData struct {
	TargetID   int64  `json:"target_id"`
	TargetName string `json:"target_name"`
	TargetKind string `json:"target_kind"`
	// ScanID is the target's latest completed scan, where the findings are.
	ScanID     string         `json:"scan_id"`
	Count      int            `json:"count"`
	BySeverity SeverityCounts `json:"by_severity"`
	// Findings lists the newly overdue findings (at most 100 per event;
	// count has them all).
	Findings []SLABreach `json:"findings"`
}

// SLABreach is one newly overdue finding.
type SLABreach struct {
	Fingerprint string    `json:"fingerprint"`
	Severity    string    `json:"severity"`
	Title       string    `json:"title"`
	FirstSeen   time.Time `json:"first_seen"`
	DueAt       time.Time `json:"due_at"`
}
