package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/api/portfolio"
	"scand/api/review"
	"scand/api/scheduleapi"
	"scand/api/ui"
	"scand/api/ui/adminpages"
	"scand/api/ui/portfoliopages"
	"scand/api/ui/scanpages"
	"scand/api/webhookapi"
	"scand/auth"
	"scand/finding/report"
	"scand/hook"
	"scand/scan"
	"scand/scan/reportdata"
	"scand/store"
	"scand/store/audit"
)

// The web console (package ui) is mounted on the same mux as the API but
// outside the route table: its pages are not API routes, so they are not
// in /openapi.json. It acts through consoleActions, which calls the very
// functions the API handlers call.

// consolePrefix is where the console lives.
const consolePrefix = "/ui"

// newConsole builds the console. Without an authenticator or a secret to
// sign sessions with (test servers built for other purposes) it answers
// 503; main.go always provides both.
func (s *Server) newConsole() http.Handler {
	if s.Auth == nil || len(s.EventSecret) == 0 {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "The web console is not configured in this server.", http.StatusServiceUnavailable)
		})
	}
	c, err := ui.New(ui.Config{
		Data:             ui.NewStoreData(s.Store),
		Actions:          &consoleActions{s: s},
		Auth:             s.Auth,
		Secret:           s.EventSecret,
		Now:              s.Now,
		Log:              s.Log.With("logger", "scand.ui"),
		RequestID:        requestID,
		ScanTypes:        scan.ScanTypes,
		DefaultScanTypes: defaultScanTypes,
		WebhookEvents:    hook.Events,
		Throttle:         s.Throttle,
		ClientAddr:       s.Hardening.ClientAddr,
		HiddenTriage:     hiddenTriageStatuses(),
		Version:          Version,
		SLA:              s.SLA,
		SLANow:           s.slaNow,
		Pages:            []ui.PageSet{scanpages.Pages, portfoliopages.Pages, adminpages.Pages},
	})
	if err != nil {
		// The console's routes name API routes; a mismatch is a defect of
		// the build that every test catches, not a runtime condition.
		panic(err)
	}
	return c
}

func hiddenTriageStatuses() []string {
	var out []string
	for _, st := range store.TriageStatuses {
		if report.HiddenVerdict(st) {
			out = append(out, st)
		}
	}
	return out
}

// isConsolePath reports whether the console serves a path.
func isConsolePath(p string) bool {
	return p == consolePrefix || strings.HasPrefix(p, consolePrefix+"/")
}

// consoleActions is the API side of ui.Actions.
type consoleActions struct{ s *Server }

func (a *consoleActions) ScopeOf(route string) (auth.Scope, bool) {
	method, path, ok := strings.Cut(route, " ")
	if !ok {
		return "", false
	}
	for _, rt := range a.s.routes {
		if !rt.Public && rt.Method == method && rt.Path == path {
			return rt.Scope, true
		}
	}
	return "", false
}

func (a *consoleActions) StartScan(ctx context.Context, p auth.Principal, remoteAddr string, in ui.ScanRequest) (store.Scan, error) {
	if d, limited := a.s.takeToken(p, remoteAddr); limited && !d.Allowed {
		retry := max(int(d.RetryAfter/time.Second), 1)
		return store.Scan{}, httpio.Status(http.StatusTooManyRequests, "Rate limit exceeded: "+strconv.Itoa(d.Limit)+" scans per minute; try again in "+strconv.Itoa(retry)+" s")
	}
	types := append([]string{}, in.ScanTypes...)
	req := StartScanRequest{ScanTypes: &types}
	switch in.Kind {
	case ui.KindImage:
		req.TargetImage = &TargetImageRequest{Path: in.Target}
	case ui.KindRepository:
		history, submodules := in.RepoHistory, in.RepoSubmodules
		req.TargetRepo = &TargetRepoRequest{URL: in.Target, History: &history, Submodules: &submodules}
		if in.RepoRef != "" {
			ref := in.RepoRef
			req.TargetRepo.Ref = &ref
		}
	default:
		req.TargetPath = in.Target
	}
	if in.TargetURL != "" {
		req.TargetURL = &in.TargetURL
	}
	if in.TargetHost != "" {
		req.TargetHost = &in.TargetHost
	}
	return a.s.startScan(ctx, p, req)
}

func (a *consoleActions) CancelScan(ctx context.Context, p auth.Principal, id string) (store.Scan, error) {
	return a.s.cancelScan(ctx, p, id)
}

func (a *consoleActions) DeleteScan(ctx context.Context, p auth.Principal, id string) error {
	return a.s.deleteScan(ctx, p, id)
}

func (a *consoleActions) SetTriage(ctx context.Context, p auth.Principal, fingerprint, status, note, expiresAt string) (store.TriageState, error) {
	return a.s.setTriage(ctx, p, fingerprint, TriageRequest{Status: status, Note: &note, ExpiresAt: &expiresAt})
}

func (a *consoleActions) BulkTriage(ctx context.Context, p auth.Principal, in review.BulkTriageRequest) (review.BulkTriageResult, error) {
	return a.s.review.BulkTriage(ctx, p, in)
}

func (a *consoleActions) AuditLog(ctx context.Context, q audit.Query) (audit.Page, error) {
	return a.s.Store.AuditRecords(ctx, q)
}

func (a *consoleActions) AddComment(ctx context.Context, p auth.Principal, fingerprint, text string) (store.Comment, error) {
	return a.s.addComment(ctx, p, fingerprint, CommentRequest{Text: text})
}

func (a *consoleActions) DeleteComment(ctx context.Context, p auth.Principal, fingerprint, id string) error {
	return a.s.deleteComment(ctx, p, fingerprint, id)
}

func (a *consoleActions) CreateKey(ctx context.Context, p auth.Principal, name string, scopes []string) (store.APIKey, string, error) {
	sc := append([]string{}, scopes...)
	return a.s.createKey(ctx, p, CreateKeyRequest{Name: name, Scopes: &sc})
}

func (a *consoleActions) RevokeKey(ctx context.Context, p auth.Principal, id string) error {
	return a.s.revokeKey(ctx, p, id)
}

func (a *consoleActions) CreateWebhook(ctx context.Context, p auth.Principal, in ui.WebhookInput) (store.Webhook, string, error) {
	enabled := in.Enabled
	return a.s.webhooks.Create(ctx, p, webhookapi.CreateWebhookRequest{Name: in.Name, URL: in.URL, EventFilter: append([]string{}, in.EventFilter...), Enabled: &enabled}, httpio.Validation{})
}

func (a *consoleActions) UpdateWebhook(ctx context.Context, p auth.Principal, id string, in ui.WebhookEdit) (store.Webhook, error) {
	return a.s.webhooks.Update(ctx, p, id, webhookapi.UpdateWebhookRequest{Name: in.Name, URL: in.URL, EventFilter: in.EventFilter, Enabled: in.Enabled}, httpio.Validation{})
}

func (a *consoleActions) DeleteWebhook(ctx context.Context, p auth.Principal, id string) error {
	return a.s.webhooks.Delete(ctx, p, id)
}

func (a *consoleActions) TestWebhook(ctx context.Context, p auth.Principal, id string) (string, error) {
	d, err := a.s.webhooks.Test(ctx, p, id)
	return d.ID, err
}

// optional is a form field as an optional request field: empty is absent.
func optional(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

func (a *consoleActions) CreateSchedule(ctx context.Context, p auth.Principal, in ui.ScheduleInput) (store.Schedule, error) {
	enabled, keep := in.Enabled, in.KeepLast
	return a.s.schedules.Create(ctx, p, scheduleapi.CreateScheduleRequest{Name: in.Name, TargetPath: in.TargetPath, ScanTypes: append([]string{}, in.ScanTypes...),
		TargetURL: optional(in.TargetURL), TargetHost: optional(in.TargetHost), Cron: in.Cron, Timezone: optional(in.Timezone),
		AlertMinSeverity: optional(in.AlertMinSeverity), KeepLast: &keep, Enabled: &enabled})
}

func (a *consoleActions) UpdateSchedule(ctx context.Context, p auth.Principal, id string, in ui.ScheduleEdit) (store.Schedule, error) {
	return a.s.schedules.Update(ctx, p, id, scheduleapi.UpdateScheduleRequest{Name: in.Name, TargetPath: in.TargetPath, ScanTypes: in.ScanTypes,
		TargetURL: in.TargetURL, TargetHost: in.TargetHost, Cron: in.Cron, Timezone: in.Timezone, Enabled: in.Enabled,
		AlertMinSeverity: in.AlertMinSeverity, KeepLast: in.KeepLast})
}

func (a *consoleActions) UpdateTarget(ctx context.Context, p auth.Principal, id int64, name *string, labels map[string]string) error {
	_, err := a.s.portfolio().UpdateTarget(ctx, p, id, portfolio.TargetPatch{Name: name, Labels: &labels})
	return err
}

func (a *consoleActions) DeleteSchedule(ctx context.Context, p auth.Principal, id string) error {
	return a.s.schedules.Delete(ctx, p, id)
}

// ScanDetails renders the scan as GET /scans/{id} and its summary do and
// keeps what the console shows beyond the stored scan.
func (a *consoleActions) ScanDetails(ctx context.Context, sc store.Scan) (ui.ScanDetails, error) {
	var out ui.ScanDetails
	v, err := a.s.scanViewOf(ctx, sc)
	if err != nil {
		return out, err
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if img := v.TargetImage; img != nil {
		out.Image = &ui.ImageTarget{Path: img.Path, Digest: str(img.Digest), ManifestDigest: str(img.ManifestDigest), Tags: img.Tags,
			OS: str(img.OS), Architecture: str(img.Architecture), Format: str(img.Format), Layers: len(img.Layers)}
	}
	if repo := v.TargetRepo; repo != nil {
		out.Repo = &ui.RepoTarget{URL: repo.URL, Ref: str(repo.Ref), History: repo.History, Submodules: repo.Submodules, Commit: str(repo.Commit)}
	}
	if out.VulnDB, err = a.s.Store.ScanDataSources(ctx, sc.ID); err != nil {
		return out, err
	}
	coverage, err := reportdata.ScanCoverage(ctx, a.s.Store, sc)
	if err != nil {
		return out, err
	}
	out.Warnings = append(report.DataWarnings(out.VulnDB), coverage...)
	return out, nil
}

func (a *consoleActions) AdvisoryData(ctx context.Context) []ui.AdvisoryDB {
	maxDays := int(a.s.VulnDB.maxAge() / (24 * time.Hour))
	inv := a.s.vulndbInventory(ctx)
	out := make([]ui.AdvisoryDB, 0, len(inv))
	for _, i := range inv {
		out = append(out, ui.AdvisoryDB{Name: i.Name, Tool: i.Tool, Source: i.Source, BuiltAt: i.BuiltAt, AgeDays: i.AgeDays, Stale: i.Stale, MaxAgeDays: maxDays})
	}
	return out
}

func (a *consoleActions) MarkNotificationRead(ctx context.Context, id string) error {
	_, err := a.s.markNotificationRead(ctx, id)
	return err
}

func (a *consoleActions) MarkAllNotificationsRead(ctx context.Context) (int, error) {
	return a.s.Store.MarkAllNotificationsRead(ctx, a.s.Now())
}

func (a *consoleActions) Browse(ctx context.Context, p auth.Principal, path string) (ui.Listing, error) {
	l, err := a.s.browse(p, path)
	if err != nil {
		return ui.Listing{}, err
	}
	out := ui.Listing{Path: l.Path, Roots: l.Roots, Truncated: l.Truncated}
	if l.Parent != nil {
		out.Parent = *l.Parent
	}
	for _, e := range l.Entries {
		out.Entries = append(out.Entries, ui.ListingEntry{Name: e.Name, Path: e.Path, Dir: e.Type == "dir", Symlink: e.Symlink})
	}
	return out, nil
}

func (a *consoleActions) Scanners(ctx context.Context) []ui.ScannerState {
	st := a.s.scannerStatus(ctx)
	out := make([]ui.ScannerState, 0, len(st.Scanners))
	for _, sc := range st.Scanners {
		s := ui.ScannerState{Name: sc.Name, ScanType: sc.ScanType, Available: sc.Available, Hint: sc.InstallHint}
		if sc.Version != nil {
			s.Version = *sc.Version
		}
		out = append(out, s)
	}
	return out
}

func (a *consoleActions) EventStream(ctx context.Context, p auth.Principal, scanID string) (string, error) {
	tok, err := a.s.mintEventToken(ctx, p, scanID)
	if err != nil {
		return "", err
	}
	return prefixV1 + "/scans/" + url.PathEscape(scanID) + "/events?" + url.Values{"event_token": {tok.Token}}.Encode(), nil
}

// Export runs a GET route's handler for p as if p had called it with a
// key; only routes whose scope p holds run.
func (a *consoleActions) Export(w http.ResponseWriter, r *http.Request, p auth.Principal, route string) error {
	method, path, _ := strings.Cut(route, " ")
	for _, rt := range a.s.routes {
		if rt.Public || rt.Method != method || rt.Path != path || method != http.MethodGet {
			continue
		}
		if !p.Has(rt.Scope) {
			return httpio.Status(http.StatusForbidden, "API key lacks the required scope: "+string(rt.Scope))
		}
		r = r.WithContext(context.WithValue(r.Context(), ctxPrincipal, p))
		return rt.Handler(w, r)
	}
	return fmt.Errorf("console export: no GET route %q", route)
}
