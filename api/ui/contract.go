package ui

import (
	"context"
	"net/http"

	"scand/auth"
	"scand/store"
)

// Actions is everything the console asks the API to do. The api package
// implements it with the same functions its own handlers call, so target
// validation and confinement, triage rules, key issuing and lockout
// protection, webhook validation and SSRF checks, and test deliveries
// exist once. An error that implements HTTPStatus() int (and optionally
// Problems() []string) is shown to the user with that status; any other
// error is an internal error.
type Actions interface {
	// ScopeOf returns the scope the API route "METHOD /path" (relative to
	// /api/v1) requires; the console demands the same scope for the page
	// or form that does what that route does.
	ScopeOf(route string) (auth.Scope, bool)

	// StartScan draws from the caller's start-scan rate-limit bucket, then
	// validates, confines, stores and queues the scan. remoteAddr keys the
	// bucket in dev mode.
	StartScan(ctx context.Context, p auth.Principal, remoteAddr string, in ScanRequest) (store.Scan, error)
	CancelScan(ctx context.Context, id string) (store.Scan, error)
	DeleteScan(ctx context.Context, id string) error

	SetTriage(ctx context.Context, p auth.Principal, fingerprint, status, note string) (store.TriageState, error)
	AddComment(ctx context.Context, p auth.Principal, fingerprint, text string) (store.Comment, error)
	DeleteComment(ctx context.Context, fingerprint, id string) error

	// CreateKey returns the stored key and its plaintext, shown once.
	CreateKey(ctx context.Context, p auth.Principal, name string, scopes []string) (store.APIKey, string, error)
	RevokeKey(ctx context.Context, p auth.Principal, id string) error

	// CreateWebhook returns the subscription and its secret, shown once.
	CreateWebhook(ctx context.Context, p auth.Principal, in WebhookInput) (store.Webhook, string, error)
	UpdateWebhook(ctx context.Context, p auth.Principal, id string, in WebhookEdit) (store.Webhook, error)
	DeleteWebhook(ctx context.Context, p auth.Principal, id string) error
	// TestWebhook queues a webhook.test delivery and returns its id.
	TestWebhook(ctx context.Context, id string) (string, error)

	MarkNotificationRead(ctx context.Context, id string) error
	MarkAllNotificationsRead(ctx context.Context) (int, error)

	// Browse lists a directory for the scan-target picker, confined to the
	// scan roots exactly as the API's browse route is.
	Browse(ctx context.Context, path string) (Listing, error)
	// Scanners probes every scanner, in registry order (the console keeps
	// the answer for a while).
	Scanners(ctx context.Context) []ScannerState
	// EventStream returns the URL of the API's event stream of a scan with
	// an event token minted for p, for the live-progress script.
	EventStream(ctx context.Context, p auth.Principal, scanID string) (string, error)
	// Export serves a GET API route (SBOM, report) for p: the console
	// proxies downloads, so API routes never accept the session cookie.
	// It writes nothing and returns the error when the route fails.
	Export(w http.ResponseWriter, r *http.Request, p auth.Principal, route string) error
}

// ScanRequest is the console's start-scan form.
type ScanRequest struct {
	TargetPath string
	ScanTypes  []string
	TargetURL  string
	TargetHost string
}

// WebhookInput is the console's create-webhook form.
type WebhookInput struct {
	Name        string
	URL         string
	EventFilter []string
	Enabled     bool
}

// WebhookEdit names the fields an edit changes; nil leaves one alone.
type WebhookEdit struct {
	Name        *string
	URL         *string
	EventFilter *[]string
	Enabled     *bool
}

// Listing is one directory of the target picker.
type Listing struct {
	Path      string
	Parent    string // "" at / and at a scan root
	Roots     []string
	Entries   []ListingEntry
	Truncated bool
}

// ListingEntry is one entry of a Listing.
type ListingEntry struct {
	Name    string
	Path    string
	Dir     bool
	Symlink bool
}

// ScannerState is one scanner as the overview shows it.
type ScannerState struct {
	Name      string
	ScanType  string
	Available bool
	Version   string
	Hint      string
}

// TrendDay is one UTC day of the overview's trend.
type TrendDay struct {
	Date         string
	ScansStarted int
	RiskScore    *int
	Findings     int
}

// statusError is an Actions error the user should see with its status.
type statusError interface {
	error
	HTTPStatus() int
}

// problemsError lists the individual problems of a rejected form.
type problemsError interface {
	Problems() []string
}
