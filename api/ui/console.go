// Package ui is scand's web console: server-rendered pages under /ui/ for
// the people who triage findings. It is html/template and embed only, with
// one small same-origin script for live progress and local times; every
// page works without it. The console enforces the API's security model on
// the server: an API key signs in once, the session cookie is HMAC-signed,
// HttpOnly and SameSite=Strict and is bound to the key (revoking the key
// ends the session), every form is a POST with a per-session CSRF token,
// and every page and form demands the scope of the API route that does
// the same thing. The console never changes data itself: it calls Actions,
// which the api package implements with its own handlers' code.
package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"scand/auth"
	"scand/finding"
	"scand/store"
)

// Config wires the console.
type Config struct {
	Data    Data
	Actions Actions
	Auth    *auth.Authenticator
	// Secret is the key material session cookies and CSRF tokens are
	// derived from (SVC_EVENT_TOKEN_SECRET, or the per-process random
	// secret in dev mode).
	Secret []byte
	Now    func() time.Time
	Log    *slog.Logger
	// RequestID returns the request id the API's middleware assigned, so
	// an error page can name it.
	RequestID func(context.Context) string
	// ScanTypes lists the scan types in registry order; DefaultScanTypes
	// are pre-selected in the start form.
	ScanTypes        []string
	DefaultScanTypes []string
	// WebhookEvents are the events a subscription may filter on.
	WebhookEvents []string
	// Throttle backs off client addresses whose sign-ins fail (the API's
	// own, so guesses on either count together); nil disables it.
	Throttle *auth.FailureThrottle
	// ClientAddr is the address a request counts against (the API's
	// hardening policy: the peer, or a trusted proxy's X-Forwarded-For).
	ClientAddr func(*http.Request) string
	// HiddenTriage is the dashboard's default-hidden set of verdicts.
	HiddenTriage []string
	Version      string
	// SLA and SLANow judge fix deadlines (SVC_SLA_DAYS, on the
	// SVC_FAKE_NOW clock when set); nil SLANow is Now.
	SLA    finding.SLAPolicy
	SLANow func() time.Time
}

// Console serves every /ui/ route.
type Console struct {
	cfg      Config
	sess     *sessions
	mux      *http.ServeMux
	tmpl     *templates
	static   *staticFiles
	scopes   map[string]auth.Scope
	scanners probeCache[[]ScannerState]
	advisory probeCache[[]AdvisoryDB]
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, rq *request) error

// route is one console route. API names the API route (method and path
// under /api/v1) that does the same thing; the console requires its scope.
// Public routes (sign-in, static files) have no API route.
type route struct {
	Pattern string
	API     string
	Public  bool
	Handle  handlerFunc
}

// request is what a handler knows about its caller.
type request struct {
	p    auth.Principal
	sess session
	// dev is true while scand runs in dev mode (no sign-in).
	dev bool
	c   *Console
}

// Can reports whether the caller may do what the API route does; pages
// use it to leave out controls the caller may not use.
func (rq *request) Can(apiRoute string) bool {
	s, ok := rq.c.scopes[apiRoute]
	return ok && rq.p.Has(s)
}

// New builds the console. It fails when a route names an API route the
// API does not have, so a renamed API route cannot leave a page unguarded.
func New(cfg Config) (*Console, error) {
	if cfg.Data == nil || cfg.Actions == nil || cfg.Auth == nil || len(cfg.Secret) == 0 {
		return nil, errors.New("ui: Data, Actions, Auth and Secret are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.RequestID == nil {
		cfg.RequestID = func(context.Context) string { return "" }
	}
	tmpl, err := loadTemplates()
	if err != nil {
		return nil, err
	}
	static, err := loadStatic()
	if err != nil {
		return nil, err
	}
	if cfg.ClientAddr == nil {
		cfg.ClientAddr = peerAddr
	}
	c := &Console{cfg: cfg, sess: newSessions(cfg.Secret), mux: http.NewServeMux(), tmpl: tmpl, static: static, scopes: map[string]auth.Scope{}}
	for _, rt := range c.routes() {
		if !rt.Public {
			scope, ok := cfg.Actions.ScopeOf(rt.API)
			if !ok {
				return nil, fmt.Errorf("ui: route %q names API route %q, which does not exist", rt.Pattern, rt.API)
			}
			c.scopes[rt.API] = scope
		}
		c.mux.Handle(rt.Pattern, c.guard(rt))
	}
	// Controls on pages name API routes too; they must exist as well.
	for _, api := range controlRoutes {
		scope, ok := cfg.Actions.ScopeOf(api)
		if !ok {
			return nil, fmt.Errorf("ui: a page control names API route %q, which does not exist", api)
		}
		c.scopes[api] = scope
	}
	c.mux.Handle("/ui/", c.guard(route{Public: true, Handle: func(w http.ResponseWriter, r *http.Request, rq *request) error {
		return notFound("There is no page at this address.")
	}}))
	return c, nil
}

// controlRoutes are API routes pages check with Can without a console
// route of their own.
var controlRoutes = []string{"GET /keys", "GET /webhooks", "GET /schedules", "POST /scans", "PATCH /findings/{fingerprint}/state"}

func (c *Console) routes() []route {
	return []route{
		{Pattern: "GET /ui/{$}", API: "GET /dashboard/stats", Handle: c.overview},
		{Pattern: "GET /ui/scans", API: "GET /scans", Handle: c.scanList},
		{Pattern: "GET /ui/targets", API: "GET /targets", Handle: c.targetList},
		{Pattern: "GET /ui/findings", API: "GET /findings", Handle: c.portfolioFindings},
		{Pattern: "GET /ui/components", API: "GET /components", Handle: c.components},
		{Pattern: "GET /ui/vulnerabilities/{id}", API: "GET /vulnerabilities/{id}", Handle: c.vulnerability},
		{Pattern: "POST /ui/scans", API: "POST /scans", Handle: c.startScan},
		{Pattern: "GET /ui/scans/{id}", API: "GET /scans/{id}/findings", Handle: c.scanDetail},
		{Pattern: "POST /ui/scans/{id}/cancel", API: "POST /scans/{id}/cancel", Handle: c.cancelScan},
		{Pattern: "POST /ui/scans/{id}/delete", API: "DELETE /scans/{id}", Handle: c.deleteScan},
		{Pattern: "POST /ui/scans/{id}/triage", API: "POST /findings/triage", Handle: c.bulkTriage},
		{Pattern: "GET /ui/audit", API: "GET /audit", Handle: c.auditLog},
		{Pattern: "GET /ui/scans/{id}/rules", API: "GET /scans/{id}/rules", Handle: c.ruleGroups},
		{Pattern: "GET /ui/scans/{id}/sbom", API: "GET /scans/{id}/sbom", Handle: c.export("GET /scans/{id}/sbom")},
		{Pattern: "GET /ui/scans/{id}/report", API: "GET /scans/{id}/report", Handle: c.export("GET /scans/{id}/report")},
		{Pattern: "GET /ui/scans/{id}/vex", API: "GET /scans/{id}/vex", Handle: c.export("GET /scans/{id}/vex")},
		{Pattern: "GET /ui/targets/{id}/vex", API: "GET /targets/{id}/vex", Handle: c.export("GET /targets/{id}/vex")},
		{Pattern: "GET /ui/browse", API: "GET /dashboard/browse", Handle: c.browse},
		{Pattern: "GET /ui/findings/{fp}", API: "GET /findings/{fingerprint}/history", Handle: c.findingDetail},
		{Pattern: "POST /ui/findings/{fp}/triage", API: "PATCH /findings/{fingerprint}/state", Handle: c.setTriage},
		{Pattern: "POST /ui/findings/{fp}/comments", API: "POST /findings/{fingerprint}/comments", Handle: c.addComment},
		{Pattern: "POST /ui/findings/{fp}/comments/{cid}/delete", API: "DELETE /findings/{fingerprint}/comments/{comment_id}", Handle: c.deleteComment},
		{Pattern: "GET /ui/compare", API: "GET /scans/compare", Handle: c.compare},
		{Pattern: "GET /ui/notifications", API: "GET /notifications", Handle: c.notifications},
		{Pattern: "POST /ui/notifications/{id}/read", API: "PATCH /notifications/{id}/read", Handle: c.markRead},
		{Pattern: "POST /ui/notifications/read-all", API: "PATCH /notifications/read-all", Handle: c.markAllRead},
		{Pattern: "GET /ui/keys", API: "GET /keys", Handle: c.keys},
		{Pattern: "POST /ui/keys", API: "POST /keys", Handle: c.createKey},
		{Pattern: "POST /ui/keys/{id}/revoke", API: "DELETE /keys/{id}", Handle: c.revokeKey},
		{Pattern: "GET /ui/webhooks", API: "GET /webhooks", Handle: c.webhooks},
		{Pattern: "POST /ui/webhooks", API: "POST /webhooks", Handle: c.createWebhook},
		{Pattern: "GET /ui/webhooks/{id}", API: "GET /webhooks/{id}/deliveries", Handle: c.webhookDetail},
		{Pattern: "POST /ui/webhooks/{id}", API: "PATCH /webhooks/{id}", Handle: c.editWebhook},
		{Pattern: "POST /ui/webhooks/{id}/enabled", API: "PATCH /webhooks/{id}", Handle: c.toggleWebhook},
		{Pattern: "POST /ui/webhooks/{id}/test", API: "POST /webhooks/{id}/test", Handle: c.testWebhook},
		{Pattern: "POST /ui/webhooks/{id}/delete", API: "DELETE /webhooks/{id}", Handle: c.deleteWebhook},
		{Pattern: "GET /ui/schedules", API: "GET /schedules", Handle: c.schedules},
		{Pattern: "POST /ui/schedules", API: "POST /schedules", Handle: c.createSchedule},
		{Pattern: "GET /ui/schedules/{id}", API: "GET /schedules/{id}/runs", Handle: c.scheduleDetail},
		{Pattern: "POST /ui/schedules/{id}", API: "PATCH /schedules/{id}", Handle: c.editSchedule},
		{Pattern: "POST /ui/schedules/{id}/enabled", API: "PATCH /schedules/{id}", Handle: c.toggleSchedule},
		{Pattern: "POST /ui/schedules/{id}/delete", API: "DELETE /schedules/{id}", Handle: c.deleteSchedule},
		{Pattern: "GET /ui/login", Public: true, Handle: c.loginPage},
		{Pattern: "POST /ui/login", Public: true, Handle: c.login},
		{Pattern: "POST /ui/logout", Public: true, Handle: c.logout},
		{Pattern: "GET /ui/static/{name}", Public: true, Handle: c.serveStatic},
	}
}

// Security headers of every console response. The policy allows nothing
// but same-origin files: no inline script or style, no eval, no frames,
// no <base>, forms only to scand itself.
const (
	contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
	maxFormBytes = 256 << 10
)

// ServeHTTP serves /ui and everything under it.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: under no-referrer a browser sends
	// "Origin: null" on the console's own form posts, and a null Origin
	// (a sandboxed frame, a redirect chain) must be refusable.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	// Pages show who is signed in and hold a CSRF token: no cache may keep
	// them. Static files, named by their content, override this.
	h.Set("Cache-Control", "no-store")
	if r.URL.Path == "/ui" {
		http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
		return
	}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			c.cfg.Log.ErrorContext(r.Context(), "console handler panic", "request_id", c.cfg.RequestID(r.Context()), "path", r.URL.Path, "panic", v)
			c.renderError(w, r, nil, &pageError{status: http.StatusInternalServerError})
		}
	}()
	c.mux.ServeHTTP(w, r)
}

// guard resolves the caller, checks CSRF on POSTs and the route's scope,
// then runs the handler and renders its error.
func (c *Console) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := &request{c: c}
		if rt.Public {
			// An expired session still proves the form came from this
			// browser; signing out of it must work.
			if ss, err := c.sess.fromRequest(r, c.cfg.Now()); err == nil || errors.Is(err, errSessionExpired) {
				rq.sess = ss
			}
		} else if !c.signIn(w, r, rq) {
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if err := r.ParseForm(); err != nil {
				c.renderError(w, r, rq, &pageError{status: http.StatusBadRequest, msgs: []string{"The form could not be read (it may be too large)."}})
				return
			}
			if !c.csrfOK(r, rq) {
				c.renderError(w, r, rq, &pageError{status: http.StatusForbidden, title: "Form expired or forged",
					msgs: []string{"The form did not carry this session's security token. Reload the page and submit it again."}})
				return
			}
		}
		if !rt.Public {
			if !rq.p.Has(c.scopes[rt.API]) {
				c.renderError(w, r, rq, &pageError{status: http.StatusForbidden,
					msgs: []string{"Your API key lacks the " + string(c.scopes[rt.API]) + " scope this needs."}})
				return
			}
		}
		if err := rt.Handle(w, r, rq); err != nil {
			c.renderError(w, r, rq, err)
		}
	})
}

// signIn finds the caller of a protected route from the session cookie.
// It writes the response itself (redirect to sign-in, or an error page)
// and returns false when the request cannot go on.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request, rq *request) bool {
	ctx := r.Context()
	now := c.cfg.Now()
	ss, err := c.sess.fromRequest(r, now)
	if err == nil && ss.KeyID != "" {
		p, err := c.cfg.Auth.PrincipalByKeyID(ctx, ss.KeyID)
		if err == nil {
			rq.p, rq.sess, rq.dev = p, ss, p.Source == auth.SourceDev
			return true
		}
		if !errors.Is(err, auth.ErrUnauthorized) {
			c.renderError(w, r, rq, err)
			return false
		}
		if ss.KeyID != auth.DevKeyID {
			clearCookie(w, r)
			c.renderError(w, r, rq, &pageError{status: http.StatusUnauthorized, title: "Session ended", signIn: true,
				msgs: []string{"The API key this session was opened with has been revoked. Sign in again with a valid key."}})
			return false
		}
		// A dev-mode session outlived dev mode: sign in like anyone else.
	}
	dev, derr := c.cfg.Auth.DevMode(ctx)
	if derr != nil {
		c.renderError(w, r, rq, derr)
		return false
	}
	if dev {
		// Dev mode has no sign-in, but forms still need a session to bind
		// their CSRF token to.
		rq.sess = session{KeyID: auth.DevKeyID, Nonce: newNonce(), Expires: now.Add(sessionTTL)}
		rq.p = auth.Principal{ID: auth.DevKeyID, Scopes: auth.AllScopes, Source: auth.SourceDev}
		rq.dev = true
		c.sess.setCookie(w, r, rq.sess, now)
		return true
	}
	if errors.Is(err, errSessionExpired) || errors.Is(err, errSessionEnded) || (err == nil && ss.KeyID == auth.DevKeyID) {
		clearCookie(w, r)
		msg := "Your session has expired (sessions last 12 hours). Sign in again."
		switch {
		case errors.Is(err, errSessionEnded):
			msg = "This session was signed out. Sign in again."
		case err == nil:
			msg = "scand has left dev mode: API keys now protect it. Sign in with a key."
		}
		c.renderError(w, r, rq, &pageError{status: http.StatusUnauthorized, title: "Session ended", signIn: true, msgs: []string{msg}})
		return false
	}
	if r.Method == http.MethodGet {
		http.Redirect(w, r, "/ui/login?"+url.Values{"next": {r.URL.RequestURI()}}.Encode(), http.StatusSeeOther)
		return false
	}
	c.renderError(w, r, rq, &pageError{status: http.StatusUnauthorized, title: "Sign-in needed", signIn: true,
		msgs: []string{"Sign in with an API key to do this."}})
	return false
}

// csrfOK checks a POST: a cross-site request is refused whatever it
// carries, and the csrf_token field must be this session's token.
func (c *Console) csrfOK(r *http.Request, rq *request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	// An Origin must be this server; "null" (a sandboxed frame, a page
	// behind redirects) never is. The console's own pages send their real
	// origin (Referrer-Policy: same-origin).
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if o == "null" || err != nil || u.Host != r.Host {
			return false
		}
	}
	if rq.sess.Nonce == "" {
		return false
	}
	return c.sess.csrfValid(rq.sess, r.PostForm.Get("csrf_token"))
}

// pageError is an error with what the error page should say.
type pageError struct {
	status int
	title  string
	msgs   []string
	// back is where the page offers to go back to.
	back string
	// signIn offers the sign-in page.
	signIn bool
}

func (e *pageError) Error() string { return strings.Join(e.msgs, "; ") }

func notFound(msg string) error {
	return &pageError{status: http.StatusNotFound, msgs: []string{msg}}
}

// withBack gives an error page a way back to the page a form was on.
func withBack(err error, back string) error {
	if err == nil {
		return nil
	}
	var pe *pageError
	if errors.As(err, &pe) {
		cp := *pe
		cp.back = back
		return &cp
	}
	var se statusError
	if errors.As(err, &se) {
		msgs := []string{se.Error()}
		var pr problemsError
		if errors.As(err, &pr) && len(pr.Problems()) > 0 {
			msgs = pr.Problems()
		}
		return &pageError{status: se.HTTPStatus(), msgs: msgs, back: back}
	}
	return err
}

var statusTitles = map[int]string{
	http.StatusBadRequest: "Bad request", http.StatusUnauthorized: "Sign-in needed", http.StatusForbidden: "Not allowed",
	http.StatusNotFound: "Not found", http.StatusConflict: "Not possible right now", http.StatusRequestEntityTooLarge: "Too large",
	http.StatusUnprocessableEntity: "Please check the form", http.StatusTooManyRequests: "Too many requests",
	http.StatusInternalServerError: "Something went wrong", http.StatusNotImplemented: "Not available here",
}

// renderError shows err as a page. Errors the user can act on carry their
// own status and text; anything else is logged and shown as a generic 500
// with the request id, never its internals.
func (c *Console) renderError(w http.ResponseWriter, r *http.Request, rq *request, err error) {
	var pe *pageError
	var se statusError
	switch {
	case errors.As(err, &pe):
	case errors.As(err, &se):
		pe = withBack(err, "").(*pageError)
	case errors.Is(err, store.ErrNotFound):
		pe = &pageError{status: http.StatusNotFound, msgs: []string{"It may have been deleted."}}
	default:
		c.cfg.Log.ErrorContext(r.Context(), "console error", "request_id", c.cfg.RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err.Error())
		pe = &pageError{status: http.StatusInternalServerError}
	}
	if pe.status == 0 {
		pe.status = http.StatusInternalServerError
	}
	title := pe.title
	if title == "" {
		title = statusTitles[pe.status]
		if title == "" {
			title = http.StatusText(pe.status)
		}
	}
	msgs := pe.msgs
	if pe.status == http.StatusInternalServerError && len(msgs) == 0 {
		msgs = []string{"scand could not complete this request. The service log has the details under the request id below."}
	}
	if rq == nil {
		rq = &request{c: c}
	}
	next := "/ui/"
	if r.Method == http.MethodGet {
		next = r.URL.RequestURI()
	}
	c.render(w, r, rq, pe.status, "error", title, "", errorView{Status: pe.status, Messages: msgs, Back: pe.back, SignIn: pe.signIn,
		RequestID: c.cfg.RequestID(r.Context()), Next: next})
}

type errorView struct {
	Status    int
	Messages  []string
	Back      string
	SignIn    bool
	RequestID string
	Next      string
}

// render executes a page into a buffer (so a template error never leaves
// half a page) and writes it.
func (c *Console) render(w http.ResponseWriter, r *http.Request, rq *request, status int, page, title, nav string, data any) {
	v := &view{Title: title, Nav: nav, Page: data, rq: rq, Version: c.cfg.Version, Static: c.static.urls}
	if rq.p.ID != "" {
		v.User = principalLabel(rq.p)
		v.Dev = rq.dev
		v.SignedIn = true
		for _, s := range rq.p.Scopes {
			v.Scopes = append(v.Scopes, string(s))
		}
		if rq.Can("GET /notifications") {
			if n, err := c.cfg.Data.UnreadNotifications(r.Context()); err == nil {
				v.Unread = n
			}
		}
	}
	if rq.sess.Nonce != "" {
		v.CSRF = c.sess.csrfToken(rq.sess)
	}
	if rv, ok := data.(interface{ refresh() bool }); ok {
		v.Refresh = rv.refresh()
	}
	var buf bytes.Buffer
	if err := c.tmpl.execute(&buf, page, v); err != nil {
		c.cfg.Log.ErrorContext(r.Context(), "console template failed", "request_id", c.cfg.RequestID(r.Context()), "page", page, "error", err.Error())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("scand could not render this page; the service log has the details.\n"))
		return
	}
	body := defuseBidi(buf.Bytes())
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// view is what every page template receives.
type view struct {
	Title    string
	Nav      string
	User     string
	Scopes   []string
	Dev      bool
	SignedIn bool
	CSRF     string
	Unread   int
	Refresh  bool
	Version  string
	Static   map[string]string
	Page     any
	rq       *request
}

// Can reports whether the caller holds the scope of an API route.
func (v *view) Can(apiRoute string) bool { return v.rq != nil && v.rq.Can(apiRoute) }

// redirect sends the browser on after a successful POST (post/redirect/
// get), so a reload never repeats the action.
func redirect(w http.ResponseWriter, r *http.Request, to string) error {
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// localTarget keeps a "next" parameter on the console: a path under /ui/,
// never another host (open redirects) and never a scheme.
func localTarget(next string) string {
	if !strings.HasPrefix(next, "/ui/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/ui/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Host != "" || u.Scheme != "" || !strings.HasPrefix(path.Clean(u.Path)+"/", "/ui/") {
		return "/ui/"
	}
	return next
}
