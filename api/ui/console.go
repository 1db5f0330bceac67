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
//
// This package is the console's core: sessions, CSRF, the guard that
// checks scopes, rendering, the templates and static files, and the helpers
// pages share. The pages themselves live in page packages (scanpages,
// portfoliopages, adminpages) that import this one and hand their routes
// to New through Config.Pages, so imports point one way only.
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
	// Pages are the console's page packages; each adds its routes.
	Pages []PageSet
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

type Handler func(w http.ResponseWriter, r *http.Request, rq *Request) error

// route is one console route. API names the API route (method and path
// under /api/v1) that does the same thing; the console requires its scope.
// Public routes (sign-in, static files) have no API route.
type Route struct {
	Pattern string
	API     string
	Public  bool
	Handle  Handler
}

// request is what a handler knows about its caller.
type Request struct {
	P    auth.Principal
	sess session
	// Dev is true while scand runs in dev mode (no sign-in).
	Dev bool
	c   *Console
}

// Can reports whether the caller may do what the API route does; pages
// use it to leave out controls the caller may not use.
func (rq *Request) Can(apiRoute string) bool {
	s, ok := rq.c.scopes[apiRoute]
	return ok && rq.P.Has(s)
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
	all := c.routes()
	for _, pages := range cfg.Pages {
		all = append(all, pages(c)...)
	}
	for _, rt := range all {
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
	c.mux.Handle("/ui/", c.guard(Route{Public: true, Handle: func(w http.ResponseWriter, r *http.Request, rq *Request) error {
		return NotFound("There is no page at this address.")
	}}))
	return c, nil
}

// controlRoutes are API routes pages check with Can without a console
// route of their own.
var controlRoutes = []string{"GET /keys", "GET /webhooks", "GET /schedules", "POST /scans", "PATCH /findings/{fingerprint}/state"}

// routes are the console's own: signing in and out, and its static files.
func (c *Console) routes() []Route {
	return []Route{
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
	ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
	maxFormBytes = 256 << 10
)

// ServeHTTP serves /ui and everything under it.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
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
			c.renderError(w, r, nil, &PageError{Status: http.StatusInternalServerError})
		}
	}()
	c.mux.ServeHTTP(w, r)
}

// guard resolves the caller, checks CSRF on POSTs and the route's scope,
// then runs the handler and renders its error.
func (c *Console) guard(rt Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := &Request{c: c}
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
				c.renderError(w, r, rq, &PageError{Status: http.StatusBadRequest, Msgs: []string{"The form could not be read (it may be too large)."}})
				return
			}
			if !c.csrfOK(r, rq) {
				c.renderError(w, r, rq, &PageError{Status: http.StatusForbidden, Title: "Form expired or forged",
					Msgs: []string{"The form did not carry this session's security token. Reload the page and submit it again."}})
				return
			}
		}
		if !rt.Public {
			if !rq.P.Has(c.scopes[rt.API]) {
				c.renderError(w, r, rq, &PageError{Status: http.StatusForbidden,
					Msgs: []string{"Your API key lacks the " + string(c.scopes[rt.API]) + " scope this needs."}})
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
func (c *Console) signIn(w http.ResponseWriter, r *http.Request, rq *Request) bool {
	ctx := r.Context()
	now := c.cfg.Now()
	ss, err := c.sess.fromRequest(r, now)
	if err == nil && ss.KeyID != "" {
		p, err := c.cfg.Auth.PrincipalByKeyID(ctx, ss.KeyID)
		if err == nil {
			rq.P, rq.sess, rq.Dev = p, ss, p.Source == auth.SourceDev
			return true
		}
		if !errors.Is(err, auth.ErrUnauthorized) {
			c.renderError(w, r, rq, err)
			return false
		}
		if ss.KeyID != auth.DevKeyID {
			clearCookie(w, r)
			c.renderError(w, r, rq, &PageError{Status: http.StatusUnauthorized, Title: "Session ended", SignIn: true,
				Msgs: []string{"The API key this session was opened with has been revoked. Sign in again with a valid key."}})
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
		rq.P = auth.Principal{ID: auth.DevKeyID, Scopes: auth.AllScopes, Source: auth.SourceDev}
		rq.Dev = true
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
		c.renderError(w, r, rq, &PageError{Status: http.StatusUnauthorized, Title: "Session ended", SignIn: true, Msgs: []string{msg}})
		return false
	}
	if r.Method == http.MethodGet {
		http.Redirect(w, r, "/ui/login?"+url.Values{"next": {r.URL.RequestURI()}}.Encode(), http.StatusSeeOther)
		return false
	}
	c.renderError(w, r, rq, &PageError{Status: http.StatusUnauthorized, Title: "Sign-in needed", SignIn: true,
		Msgs: []string{"Sign in with an API key to do this."}})
	return false
}

// csrfOK checks a POST: a cross-site request is refused whatever it
// carries, and the csrf_token field must be this session's token.
func (c *Console) csrfOK(r *http.Request, rq *Request) bool {
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

// PageError is an error with what the error page should say.
type PageError struct {
	Status int
	Title  string
	Msgs   []string
	// Back is where the page offers to go back to.
	Back string
	// SignIn offers the sign-in page.
	SignIn bool
}

func (e *PageError) Error() string { return strings.Join(e.Msgs, "; ") }

func NotFound(msg string) error {
	return &PageError{Status: http.StatusNotFound, Msgs: []string{msg}}
}

// withBack gives an error page a way back to the page a form was on.
func WithBack(err error, back string) error {
	if err == nil {
		return nil
	}
	var pe *PageError
	if errors.As(err, &pe) {
		cp := *pe
		cp.Back = back
		return &cp
	}
	var se statusError
	if errors.As(err, &se) {
		msgs := []string{se.Error()}
		var pr problemsError
		if errors.As(err, &pr) && len(pr.Problems()) > 0 {
			msgs = pr.Problems()
		}
		return &PageError{Status: se.HTTPStatus(), Msgs: msgs, Back: back}
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
func (c *Console) renderError(w http.ResponseWriter, r *http.Request, rq *Request, err error) {
	var pe *PageError
	var se statusError
	switch {
	case errors.As(err, &pe):
	case errors.As(err, &se):
		pe = WithBack(err, "").(*PageError)
	case errors.Is(err, store.ErrNotFound):
		pe = &PageError{Status: http.StatusNotFound, Msgs: []string{"It may have been deleted."}}
	case errors.Is(err, ErrBadCursor):
		pe = &PageError{Status: http.StatusUnprocessableEntity, Msgs: []string{"This page link is not valid (it may have been cut short, or come from another sort order). Go back to the first page of the list."}}
	default:
		c.cfg.Log.ErrorContext(r.Context(), "console error", "request_id", c.cfg.RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err.Error())
		pe = &PageError{Status: http.StatusInternalServerError}
	}
	if pe.Status == 0 {
		pe.Status = http.StatusInternalServerError
	}
	title := pe.Title
	if title == "" {
		title = statusTitles[pe.Status]
		if title == "" {
			title = http.StatusText(pe.Status)
		}
	}
	msgs := pe.Msgs
	if pe.Status == http.StatusInternalServerError && len(msgs) == 0 {
		msgs = []string{"scand could not complete this request. The service log has the details under the request id below."}
	}
	if rq == nil {
		rq = &Request{c: c}
	}
	next := "/ui/"
	if r.Method == http.MethodGet {
		next = r.URL.RequestURI()
	}
	c.Render(w, r, rq, pe.Status, "error", title, "", errorView{Status: pe.Status, Messages: msgs, Back: pe.Back, SignIn: pe.SignIn,
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
func (c *Console) Render(w http.ResponseWriter, r *http.Request, rq *Request, status int, page, title, nav string, data any) {
	v := &view{Title: title, Nav: nav, Page: data, rq: rq, Version: c.cfg.Version, Static: c.static.urls,
		names: &keyNames{ctx: r.Context(), data: c.cfg.Data}}
	if rq.P.ID != "" {
		v.User = principalWho(rq.P)
		v.Dev = rq.Dev
		v.SignedIn = true
		for _, s := range rq.P.Scopes {
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
	if rv, ok := data.(interface{ Refresh() bool }); ok {
		v.Refresh = rv.Refresh()
	}
	var buf bytes.Buffer
	if err := c.tmpl.execute(&buf, page, v); err != nil {
		c.cfg.Log.ErrorContext(r.Context(), "console template failed", "request_id", c.cfg.RequestID(r.Context()), "page", page, "error", err.Error())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("scand could not render this page; the service log has the details.\n"))
		return
	}
	body := defuseBidi(resolveShortIDs(buf.Bytes()))
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
	User     Who
	Scopes   []string
	Dev      bool
	SignedIn bool
	CSRF     string
	Unread   int
	Refresh  bool
	Version  string
	Static   map[string]string
	Page     any
	rq       *Request
	names    *keyNames
}

// Who names the actor a verdict, comment, scan or schedule stored.
func (v *view) Who(stored string) Who { return v.names.who(stored) }

// Can reports whether the caller holds the scope of an API route.
func (v *view) Can(apiRoute string) bool { return v.rq != nil && v.rq.Can(apiRoute) }

// redirect sends the browser on after a successful POST (post/redirect/
// get), so a reload never repeats the action.
func Redirect(w http.ResponseWriter, r *http.Request, to string) error {
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
