package store

import "scand/store/webhooks"

// The row types of the table groups that live in subpackages of store/,
// under the names callers use.

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
