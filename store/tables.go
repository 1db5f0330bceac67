package store

import (
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
)

// TerminalStatus reports whether a scan in status s can no longer change.
func TerminalStatus(s string) bool { return scans.TerminalStatus(s) }

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
