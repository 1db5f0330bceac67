package store

import (
	"scand/store/findings"
	"scand/store/reevals"
	"scand/store/scans"
	"scand/store/webhooks"
)

// The row types of the table groups that live in subpackages of store/,
// under the names callers use.

// Scans (store/scans).
type (
	Scan           = scans.Scan
	SkippedScanner = scans.SkippedScanner
	ScanFilter     = scans.ScanFilter
	ConsoleDay     = scans.ConsoleDay
)

// Scan statuses.
const (
	StatusPending   = scans.StatusPending
	StatusRunning   = scans.StatusRunning
	StatusCompleted = scans.StatusCompleted
	StatusFailed    = scans.StatusFailed
	StatusCancelled = scans.StatusCancelled
)

// Scan sources: run by this daemon, or computed elsewhere and imported.
const (
	SourceScan   = scans.SourceScan
	SourceImport = scans.SourceImport
	// SourceReevaluation: stored components matched again (issue 27).
	SourceReevaluation = scans.SourceReevaluation
)

// TerminalStatus reports whether a scan in status s can no longer change.
func TerminalStatus(s string) bool { return scans.TerminalStatus(s) }

// Findings as stored, and what reads them (store/findings).
type (
	TriageState         = findings.TriageState
	FindingWithState    = findings.FindingWithState
	FindingQuery        = findings.FindingQuery
	FindingRow          = findings.FindingRow
	Facet               = findings.Facet
	Block               = findings.Block
	CompareSet          = findings.CompareSet
	CompareRow          = findings.CompareRow
	RuleSummary         = findings.RuleSummary
	RuleGroup           = findings.RuleGroup
	ConsoleFindingQuery = findings.ConsoleFindingQuery
	ConsoleFindingPage  = findings.ConsoleFindingPage
	OrderedFinding      = findings.OrderedFinding
	SeverityClassCount  = findings.SeverityClassCount
	// FindingFilter is the former name of FindingQuery.
	FindingFilter = findings.FindingQuery
)

// The three lists of a comparison.
const (
	CompareNew       = findings.CompareNew
	CompareFixed     = findings.CompareFixed
	CompareUnchanged = findings.CompareUnchanged
)

// Console compare kinds: findings only in the newer scan, only in the
// older one, and in both (the newer scan's copy).
const (
	ConsoleCompareNew         = findings.ConsoleCompareNew
	ConsoleCompareFixed       = findings.ConsoleCompareFixed
	ConsoleCompareUnchanged   = findings.ConsoleCompareUnchanged
	ConsoleCompareNotCompared = findings.ConsoleCompareNotCompared
)

// Overview classes of a current finding.
const (
	FindingLive       = findings.FindingLive
	FindingSuppressed = findings.FindingSuppressed
	FindingHidden     = findings.FindingHidden
)

// Webhook subscriptions and their delivery queue (store/webhooks).
type (
	Webhook         = webhooks.Webhook
	WebhookPatch    = webhooks.WebhookPatch
	Delivery        = webhooks.Delivery
	DeliveryOutcome = webhooks.DeliveryOutcome
	DeliveryClaim   = webhooks.DeliveryClaim
	ClaimRequest    = webhooks.ClaimRequest
	DeliveryQueue   = webhooks.DeliveryQueue
)

// Webhook delivery statuses (SPEC.md "Webhook delivery status").
const (
	DeliveryPending    = webhooks.DeliveryPending
	DeliveryDelivering = webhooks.DeliveryDelivering
	DeliverySucceeded  = webhooks.DeliverySucceeded
	DeliveryFailed     = webhooks.DeliveryFailed
)

// Re-evaluations of stored SBOMs (store/reevals, issue 27).
type (
	Reevaluation        = reevals.Reevaluation
	ReevaluationTarget  = reevals.Target
	AdvisoryMatch       = reevals.Match
	UnknownTargetsError = reevals.UnknownTargetsError
)

// Re-evaluation statuses and triggers.
const (
	ReevalTriggerImport = reevals.TriggerImport
	ReevalTriggerManual = reevals.TriggerManual
)
