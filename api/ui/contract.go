package ui

import (
	"context"
	"net/http"
	"time"

	"scand/api/review"
	"scand/auth"
	"scand/store"
	"scand/store/audit"
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
	CancelScan(ctx context.Context, p auth.Principal, id string) (store.Scan, error)
	DeleteScan(ctx context.Context, p auth.Principal, id string) error

	// SetTriage sets one verdict; expiresAt is "" or an RFC 3339 time or
	// a YYYY-MM-DD date, allowed with accepted_risk and wont_fix.
	SetTriage(ctx context.Context, p auth.Principal, fingerprint, status, note, expiresAt string) (store.TriageState, error)
	// BulkTriage sets one verdict on listed findings or on every finding
	// matching a filter, as POST /findings/triage does (DryRun counts).
	BulkTriage(ctx context.Context, p auth.Principal, in review.BulkTriageRequest) (review.BulkTriageResult, error)
	AddComment(ctx context.Context, p auth.Principal, fingerprint, text string) (store.Comment, error)
	DeleteComment(ctx context.Context, p auth.Principal, fingerprint, id string) error
	// AuditLog reads the audit log as GET /audit does.
	AuditLog(ctx context.Context, q audit.Query) (audit.Page, error)

	// CreateKey returns the stored key and its plaintext, shown once.
	CreateKey(ctx context.Context, p auth.Principal, name string, scopes []string) (store.APIKey, string, error)
	RevokeKey(ctx context.Context, p auth.Principal, id string) error

	// CreateWebhook returns the subscription and its secret, shown once.
	CreateWebhook(ctx context.Context, p auth.Principal, in WebhookInput) (store.Webhook, string, error)
	UpdateWebhook(ctx context.Context, p auth.Principal, id string, in WebhookEdit) (store.Webhook, error)
	DeleteWebhook(ctx context.Context, p auth.Principal, id string) error
	// TestWebhook queues a webhook.test delivery and returns its id.
	TestWebhook(ctx context.Context, p auth.Principal, id string) (string, error)

	// CreateSchedule, UpdateSchedule and DeleteSchedule validate and store
	// as the API's schedule routes do (name, target, cron expression, time
	// zone, alert threshold, retention).
	CreateSchedule(ctx context.Context, p auth.Principal, in ScheduleInput) (store.Schedule, error)
	UpdateSchedule(ctx context.Context, p auth.Principal, id string, in ScheduleEdit) (store.Schedule, error)
	DeleteSchedule(ctx context.Context, p auth.Principal, id string) error

	// UpdateTarget replaces a target's labels and, when name is not nil,
	// sets its display name, validated as PATCH /targets/{id} does.
	UpdateTarget(ctx context.Context, p auth.Principal, id int64, name *string, labels map[string]string) error

	MarkNotificationRead(ctx context.Context, id string) error
	MarkAllNotificationsRead(ctx context.Context) (int, error)

	// Browse lists a directory for the scan-target picker, confined to the
	// scan roots exactly as the API's browse route is; without scan roots
	// only an admin caller p may browse.
	Browse(ctx context.Context, p auth.Principal, path string) (Listing, error)
	// Scanners probes every scanner, in registry order (the console keeps
	// the answer for a while).
	Scanners(ctx context.Context) []ScannerState
	// ScanDetails is what the API's scan and summary routes add to a
	// stored scan: its image or repository target and the offline
	// advisory data its scanners read, with the warnings about it.
	ScanDetails(ctx context.Context, sc store.Scan) (ScanDetails, error)
	// AdvisoryData lists the offline advisory databases as the vulndb
	// field of GET /dashboard/status does, aged now (the console keeps the
	// answer for a while: reading their dates opens archives).
	AdvisoryData(ctx context.Context) []AdvisoryDB
	// EventStream returns the URL of the API's event stream of a scan with
	// an event token minted for p, for the live-progress script.
	EventStream(ctx context.Context, p auth.Principal, scanID string) (string, error)
	// Export serves a GET API route (SBOM, report) for p: the console
	// proxies downloads, so API routes never accept the session cookie.
	// It writes nothing and returns the error when the route fails.
	Export(w http.ResponseWriter, r *http.Request, p auth.Principal, route string) error
}

// Target kinds of the start-scan form.
const (
	KindDirectory  = "directory"
	KindImage      = "image"
	KindRepository = "repository"
)

// ScanRequest is the console's start-scan form. Target is a directory, an
// image archive or layout path, or a repository URL, as Kind says.
type ScanRequest struct {
	Kind       string
	Target     string
	ScanTypes  []string
	TargetURL  string
	TargetHost string
	// Repository options: a branch, tag or commit ("" is the default
	// branch), the whole history, the submodules.
	RepoRef        string
	RepoHistory    bool
	RepoSubmodules bool
}

// ScheduleInput is the console's create-schedule form.
type ScheduleInput struct {
	Name       string
	TargetPath string
	ScanTypes  []string
	TargetURL  string
	TargetHost string
	Cron       string
	Timezone   string
	// AlertMinSeverity "" is the daemon's default (SVC_ALERT_MIN_SEVERITY).
	AlertMinSeverity string
	// KeepLast 0 is no per-schedule limit.
	KeepLast int
	Enabled  bool
}

// ScheduleEdit names the fields an edit changes; nil leaves one alone. An
// empty TargetURL or TargetHost removes it.
type ScheduleEdit struct {
	Name             *string
	TargetPath       *string
	ScanTypes        *[]string
	TargetURL        *string
	TargetHost       *string
	Cron             *string
	Timezone         *string
	AlertMinSeverity *string
	KeepLast         *int
	Enabled          *bool
}

// ScanDetails is a scan's target and advisory data as the API reports
// them (GET /scans/{id}, GET /scans/{id}/summary).
type ScanDetails struct {
	Image    *ImageTarget
	Repo     *RepoTarget
	VulnDB   []store.ScanDataSource
	Warnings []string
}

// ImageTarget is a scan's target_image; the fields past Path are empty
// until the scan unpacked the image.
type ImageTarget struct {
	Path           string
	Digest         string
	ManifestDigest string
	Tags           []string
	OS             string
	Architecture   string
	Format         string
	Layers         int
}

// RepoTarget is a scan's target_repo; Commit is empty until cloned.
type RepoTarget struct {
	URL        string
	Ref        string
	History    bool
	Submodules bool
	Commit     string
}

// AdvisoryDB is one offline advisory database and its age.
type AdvisoryDB struct {
	Name    string
	Tool    string
	Source  string
	BuiltAt *time.Time
	// AgeDays is nil when the build date cannot be told.
	AgeDays *float64
	// Stale is set past SVC_VULNDB_MAX_AGE_DAYS, MaxAgeDays.
	Stale      bool
	MaxAgeDays int
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

// fieldProblemsError maps the problems of a rejected form to the request
// fields they are about ("" for the form as a whole), so a form can show
// each message next to its field.
type fieldProblemsError interface {
	FieldProblems() map[string][]string
}
