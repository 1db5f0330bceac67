package sse

import (
	"strconv"
	"strings"

	"scand/finding"
)

// Payloads of each event kind. They are structs, not maps, so the JSON
// key order a webhook receiver sees is fixed by the field order here.

// SeverityCounts counts findings per severity, always with all five keys.
type SeverityCounts struct {
	Critical int `json:"critical"`
	High     int `json:"high"`
	Medium   int `json:"medium"`
	Low      int `json:"low"`
	Info     int `json:"info"`
}

// Add counts n findings of a severity; other values are not counted.
func (c *SeverityCounts) Add(sev string, n int) {
	switch sev {
	case "critical":
		c.Critical += n
	case "high":
		c.High += n
	case "medium":
		c.Medium += n
	case "low":
		c.Low += n
	case "info":
		c.Info += n
	}
}

// Highest returns the most severe level with a non-zero count, or "" when
// every count is zero.
func (c SeverityCounts) Highest() string {
	switch {
	case c.Critical > 0:
		return "critical"
	case c.High > 0:
		return "high"
	case c.Medium > 0:
		return "medium"
	case c.Low > 0:
		return "low"
	case c.Info > 0:
		return "info"
	}
	return ""
}

// Breakdown renders the non-zero counts, most severe first, for people:
// "2 critical, 5 low"; "" when every count is zero.
func (c SeverityCounts) Breakdown() string {
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{c.Critical, "critical"}, {c.High, "high"}, {c.Medium, "medium"}, {c.Low, "low"}, {c.Info, "info"}} {
		if p.n > 0 {
			parts = append(parts, strconv.Itoa(p.n)+" "+p.name)
		}
	}
	return strings.Join(parts, ", ")
}

type ScanStartData struct {
	ScanID     string   `json:"scan_id"`
	ScanTypes  []string `json:"scan_types"`
	TargetPath string   `json:"target_path"`
}

type ScannerStartData struct {
	ScanID string `json:"scan_id"`
	Name   string `json:"name"`
}

type ScannerCompleteData struct {
	ScanID        string  `json:"scan_id"`
	Name          string  `json:"name"`
	DurationS     float64 `json:"duration_s"`
	FindingsCount int     `json:"findings_count"`
}

type ScannerSkippedData struct {
	ScanID      string `json:"scan_id"`
	Name        string `json:"name"`
	Reason      string `json:"reason"`
	InstallHint string `json:"install_hint"`
}

type ScannerFailedData struct {
	ScanID string `json:"scan_id"`
	Name   string `json:"name"`
	// Error is truncated to 200 characters (SPEC.md Limits).
	Error string `json:"error"`
}

type ScanCompleteData struct {
	ScanID         string         `json:"scan_id"`
	TargetPath     string         `json:"target_path"`
	FindingsCount  int            `json:"findings_count"`
	RiskScore      int            `json:"risk_score"`
	SeverityCounts SeverityCounts `json:"severity_counts"`
	DurationS      float64        `json:"duration_s"`
	// Partial, PartialReasons and Coverage say what the scan examined
	// (issue 23, additive): a completed scan may still be partial.
	Partial        bool                  `json:"partial"`
	PartialReasons []string              `json:"partial_reasons"`
	Coverage       *finding.ScanCoverage `json:"coverage"`
}

type ScanFailedData struct {
	ScanID     string `json:"scan_id"`
	TargetPath string `json:"target_path"`
	Error      string `json:"error"`
}

type ScanCancelledData struct {
	ScanID     string `json:"scan_id"`
	TargetPath string `json:"target_path"`
}

// WebhookTestData is the synthetic payload of POST /webhooks/{id}/test.
type WebhookTestData struct {
	WebhookID string `json:"webhook_id"`
	Message   string `json:"message"`
}
