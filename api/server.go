// Package api is scand's HTTP surface: one route table that mounts every
// route under /api/v1 and the legacy /api, enforces the scope each route
// declares, and generates the OpenAPI document; plus handlers, middleware,
// errors, the docs UI, reports and dashboard data.
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"scand/api/hardening"
	"scand/api/httpio"
	"scand/api/monitor"
	"scand/api/openapi"
	"scand/api/portfolio"
	"scand/api/reevalapi"
	"scand/api/review"
	"scand/api/scheduleapi"
	"scand/api/vexapi"
	"scand/api/webhookapi"
	"scand/auth"
	"scand/finding"
	"scand/hook"
	"scand/scan"
	"scand/scan/netguard"
	"scand/scan/proc"
	"scand/scan/reevaluate"
	"scand/scan/request"
	"scand/scan/schedule"
	"scand/sse"
	"scand/store"
	"scand/store/targets"
)

// Version is the release of the API this binary serves.
const Version = "0.11.0"

// Deps is everything the handlers need, wired by main.go.
type Deps struct {
	Store   *store.Store
	Auth    *auth.Authenticator
	Limiter *auth.RateLimiter
	// Throttle backs off addresses that fail to authenticate, on the API
	// and the console alike; nil disables it (tests of other things).
	Throttle *auth.FailureThrottle
	// Hardening is the browser, Host and HSTS policy (api/hardening).
	Hardening   hardening.Policy
	Bus         *sse.Bus
	Log         *slog.Logger
	Now         func() time.Time
	EventSecret []byte
	Hooks       *hook.Dispatcher
	// Ready reports whether the scanner registry is loaded.
	Ready func() bool
	// Scans runs and cancels scans.
	Scans *scan.Orchestrator
	// MaxHosts bounds a network target's CIDR size (SVC_NMAP_MAX_HOSTS).
	MaxHosts int
	// Targets refuses DAST and network targets (metadata services,
	// SVC_TARGET_ALLOW) before a scan or schedule is stored.
	Targets netguard.Targets
	// KeepAlive is the SSE keepalive interval (15 s when zero).
	KeepAlive time.Duration
	// Test adds routes only tests mount (for example a rate-limited probe).
	TestRoutes []Route

	// Scanners is the scanner registry in registry (run) order.
	Scanners []scan.Scanner
	// InstallRecipe returns the fixed package-manager command that installs
	// a scanner on this system; ok is false when none applies.
	InstallRecipe func(scanner string) (program string, args []string, ok bool)
	// Runner runs the PDF renderer and install recipes; nil disables both.
	Runner *proc.Runner
	// OutputNow stamps time-derived output fields (a report's "generated
	// at"); SVC_FAKE_NOW pins it. nil means Now.
	OutputNow func() time.Time
	// ScanRoots confines scan targets and /dashboard/browse
	// (SVC_SCAN_ROOTS); empty = anywhere.
	ScanRoots []string
	// Git checks repository targets (scantargets.go).
	Git GitPolicy
	// PDFRenderer is the Chromium binary for PDF reports (SVC_PDF_RENDERER);
	// empty means look for chromium, chromium-browser, google-chrome on PATH.
	PDFRenderer string
	// Schedules creates, edits and deletes schedules on the scheduler's
	// clock and wakes it. nil gets one that is never started (tests).
	Schedules *schedule.Scheduler
	// VulnDB is the offline advisory data scand imports and reports on.
	VulnDB VulnDBConfig
	// SLA is the fix-deadline policy (SVC_SLA_DAYS); deadlines are judged
	// on the output clock, so SVC_FAKE_NOW moves them in tests.
	SLA finding.SLAPolicy
	// Monitor serves /metrics and /admin/backup and counts requests; nil
	// mounts neither and counts nothing.
	Monitor *monitor.Monitor
	// LockCheck reports whether the daemon still holds the database's lock
	// file (store.DBLock.Check); nil skips the check.
	LockCheck func() error
	// InstanceName is the author of the VEX documents scand writes
	// (SVC_INSTANCE_NAME).
	InstanceName string
	// Reevaluate re-evaluates stored SBOMs against new advisory data
	// (issue 27), on demand and after an import; nil answers 503.
	Reevaluate *reevaluate.Engine
}

// Server holds the dependencies and the route table.
type Server struct {
	Deps
	routes []Route
	mux    *http.ServeMux
	log    *slog.Logger
	access *slog.Logger

	// streams ends every SSE stream when the daemon shuts down, since
	// http.Server.Shutdown only waits for handlers and never cancels them.
	streams      context.Context
	closeStreams context.CancelFunc

	// console is the web console under /ui/.
	console http.Handler
	// review is the audit log, bulk verdicts and their routes.
	review *review.Service
	// webhooks and schedules serve their routes and the console's edits.
	webhooks  *webhookapi.Handlers
	schedules *scheduleapi.Handlers
	// bodyLimits holds the mux patterns of routes whose body cap is not
	// httpio.MaxBodyBytes (an archive upload).
	bodyLimits map[string]int64
	// uploadTypes holds the mux patterns of routes whose body is a raw
	// upload, with its declared media type.
	uploadTypes map[string]string

	openapiOnce sync.Once
	openapiBody []byte
	openapiErr  error
}

// The route table's types live in api/openapi, which documents them.
type (
	Route  = openapi.Route
	Param  = openapi.Param
	Header = openapi.Header
)

// New builds the server and its mux.
func New(d Deps) *Server {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Schedules == nil {
		d.Schedules = schedule.New(schedule.Options{Store: d.Store, Policy: request.TargetPolicy{Roots: d.ScanRoots, MaxHosts: d.MaxHosts, Targets: d.Targets}, Now: d.Now})
	}
	s := &Server{Deps: d, log: d.Log.With("logger", "scand.api"), access: d.Log.With("logger", "scand.access")}
	s.streams, s.closeStreams = context.WithCancel(context.Background())
	s.review = review.New(review.Deps{Store: d.Store, Log: s.log, Now: d.Now, SLA: d.SLA, SLANow: s.slaNow, Principal: PrincipalFrom, FindingsQuery: func(r *http.Request) (targets.FindingsQuery, error) {
		return s.portfolio().FindingsQuery(r) // at request time: portfolio() reads s.review
	}})
	s.webhooks = &webhookapi.Handlers{Store: d.Store, Hooks: d.Hooks, Log: s.log, Audit: s.review.Recorder, Principal: PrincipalFrom}
	s.schedules = &scheduleapi.Handlers{Store: d.Store, Schedules: d.Schedules, Log: s.log, Audit: s.review.Recorder, Principal: PrincipalFrom}
	s.routes = s.routeTable()
	s.mux = http.NewServeMux()
	s.bodyLimits = map[string]int64{}
	s.uploadTypes = map[string]string{}
	for _, rt := range s.routes {
		s.mount(rt)
		if rt.RawRequest != "" {
			s.uploadTypes[rt.Pattern(prefixV1)], s.uploadTypes[rt.Pattern(prefixLegacy)] = rt.RawRequest, rt.RawRequest
		}
		if limit := rt.MaxBody; limit != 0 {
			if limit < 0 {
				limit = max(d.VulnDB.MaxUpload, httpio.MaxBodyBytes)
			}
			s.bodyLimits[rt.Pattern(prefixV1)], s.bodyLimits[rt.Pattern(prefixLegacy)] = limit, limit
		}
	}
	s.console = s.newConsole()
	s.registerReadinessMetrics()
	return s
}

// routeTable is the single list of every route scand serves.
func (s *Server) routeTable() []Route {
	var rs []Route
	rs = append(rs, s.publicRoutes()...)
	rs = append(rs, s.keyRoutes()...)
	rs = append(rs, s.scanRoutes()...)
	rs = append(rs, s.importRoutes()...)
	rs = append(rs, s.triageRoutes()...)
	rs = append(rs, s.complianceRoutes()...)
	rs = append(rs, s.sbomRoutes()...)
	rs = append(rs, s.reportRoutes()...)
	rs = append(rs, s.dashboardRoutes()...)
	rs = append(rs, s.webhooks.Routes()...)
	rs = append(rs, s.schedules.Routes()...)
	rs = append(rs, s.notificationRoutes()...)
	rs = append(rs, s.vulndbRoutes()...)
	rs = append(rs, (&reevalapi.Handlers{Store: s.Store, Engine: s.Reevaluate, Log: s.log, Audit: s.review.Recorder, Principal: PrincipalFrom}).Routes()...)
	rs = append(rs, s.portfolio().Routes()...)
	if s.Monitor != nil {
		rs = append(rs, s.Monitor.Routes()...)
	}
	rs = append(rs, s.review.Routes()...)
	rs = append(rs, vexapi.Handlers{Store: s.Store, Author: s.InstanceName, ToolVersion: Version, Now: s.slaNow, Principal: PrincipalFrom}.Routes()...)
	rs = append(rs, s.TestRoutes...)
	return rs
}

// slaNow is the clock fix deadlines are judged on: SVC_FAKE_NOW when set.
func (s *Server) slaNow() time.Time {
	if s.OutputNow != nil {
		return s.OutputNow()
	}
	return s.Now()
}

// CloseStreams ends every open event stream; main.go calls it on shutdown.
func (s *Server) CloseStreams() { s.closeStreams() }

// Routes returns a copy of the route table.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// Prefixes every API route is mounted under; the first is current.
const (
	prefixV1     = "/api/v1"
	prefixLegacy = "/api"
)

func (s *Server) mount(rt Route) {
	h := s.guard(rt)
	if rt.Public {
		s.mux.Handle(rt.Pattern(""), h)
		return
	}
	s.mux.Handle(rt.Pattern(prefixV1), h)
	s.mux.Handle(rt.Pattern(prefixLegacy), legacy(h))
}

// Handler returns the root handler with every middleware applied.
func (s *Server) Handler() http.Handler {
	return s.withRequestID(s.withAccessLog(s.withRecover(s.withHostCheck(http.HandlerFunc(s.route)))))
}

// withHostCheck sends HSTS over https and, while scand runs in dev mode,
// refuses a Host that is not loopback or configured: a page that rebinds
// its own name to 127.0.0.1 must not read or drive an unprotected scand.
func (s *Server) withHostCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Hardening.SetHSTS(w, r)
		if s.Auth != nil && !s.Hardening.HostAllowed(r) {
			dev, err := s.Auth.DevMode(r.Context())
			if err == nil && dev {
				s.log.WarnContext(r.Context(), "dev mode: foreign Host refused", "request_id", requestID(r.Context()), "host", r.Host)
				err = hardening.RefuseHost(r)
			}
			if err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// route dispatches through the mux but renders its 404 and 405 as JSON,
// and treats "/x/" like "/x" so collection routes answer either way.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if isConsolePath(r.URL.Path) {
		// The console renders its own HTML pages, errors included, and
		// caps its own form bodies.
		s.console.ServeHTTP(w, r)
		return
	}
	if p := r.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimRight(p, "/")
		if r.URL.Path == "" {
			r.URL.Path = "/"
		}
	}
	h, pattern := s.mux.Handler(r)
	limit := int64(httpio.MaxBodyBytes)
	if l, ok := s.bodyLimits[pattern]; ok {
		limit = l
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if pattern != "" && r.ContentLength > limit {
		// Declared too large: refused before a byte of it is read.
		s.writeError(w, r, httpio.Status(http.StatusRequestEntityTooLarge, "Request body too large (limit "+itoa64(limit)+" bytes)"))
		return
	}
	if pattern != "" {
		if err := hardening.CheckUnsafe(r, s.uploadTypes[pattern]); err != nil {
			s.log.InfoContext(r.Context(), "browser request refused", "request_id", requestID(r.Context()), "status", err.Status,
				"origin", r.Header.Get("Origin"), "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"), "content_type", r.Header.Get("Content-Type"))
			s.writeError(w, r, err)
			return
		}
		// Dispatch through the mux itself: Handler only finds the route,
		// ServeHTTP also sets the {id} path values handlers read.
		s.mux.ServeHTTP(w, r)
		return
	}
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		httpio.WriteJSON(w, http.StatusMethodNotAllowed, ErrorBody{Detail: "Method Not Allowed"})
		return
	}
	httpio.WriteJSON(w, http.StatusNotFound, ErrorBody{Detail: "Not Found"})
}

// headerProbe captures what the mux's own 404/405 handler would send.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.status = code }

// Sunset of the legacy /api prefix (SPEC.md Versioning).
var (
	legacySunset      = time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
	legacyDeprecation = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
)

// legacy adds RFC 9745 Deprecation, RFC 8594 Sunset and a successor Link.
func legacy(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Deprecation", "@"+itoa64(legacyDeprecation.Unix()))
		w.Header().Set("Sunset", legacySunset.Format(http.TimeFormat))
		successor := prefixV1 + strings.TrimPrefix(r.URL.Path, prefixLegacy)
		w.Header().Set("Link", "<"+successor+`>; rel="successor-version"`)
		h.ServeHTTP(w, r)
	})
}

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxPrincipal
	ctxAccessNote
)

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// PrincipalFrom returns the authenticated caller of a request.
func PrincipalFrom(ctx context.Context) auth.Principal {
	p, _ := ctx.Value(ctxPrincipal).(auth.Principal)
	return p
}

// guard authenticates, checks the route's scope and rate limit, then runs
// the handler and renders its error.
func (s *Server) guard(rt Route) http.Handler {
	route := rt.Path
	if !rt.Public {
		route = prefixV1 + rt.Path
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		noteRoute(r.Context(), route)
		if !rt.Public {
			p, err := s.authenticate(r, rt)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			// Named even when the scope check below refuses it: a 403 is
			// worth tracing to its key.
			noteKeyID(r.Context(), p)
			if !p.Has(rt.Scope) {
				s.writeError(w, r, httpio.Status(http.StatusForbidden, "API key lacks the required scope: "+string(rt.Scope)))
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), ctxPrincipal, p))
			if rt.RateLimited && !s.rateLimit(w, r, p) {
				return
			}
		}
		if err := rt.Handler(w, r); err != nil {
			var aborted httpio.StreamAborted
			if errors.As(err, &aborted) {
				// Headers and part of the body are out: an error body would
				// read as the end of a valid one, so the connection is cut.
				if r.Context().Err() == nil { // not merely a client that went away
					s.log.ErrorContext(r.Context(), "streamed response failed", "request_id", requestID(r.Context()), "method", r.Method,
						"path", r.URL.Path, "error", aborted.Cause.Error())
				}
				panic(http.ErrAbortHandler)
			}
			s.writeError(w, r, err)
		}
	})
}

// authenticate resolves the caller. A presented credential is checked
// only when the client's address is not in a failure back-off, and a
// wrong one extends it; a missing key is no guess and costs nothing.
func (s *Server) authenticate(r *http.Request, rt Route) (auth.Principal, error) {
	if rt.EventToken {
		// An event token is HMAC-signed: it cannot be guessed, so it is
		// not throttled (and a page reconnecting with an expired one must
		// not lock its own address out).
		if tok := r.URL.Query().Get("event_token"); tok != "" {
			return s.authenticateEventToken(r, tok)
		}
	}
	key, presented := auth.KeyFromRequest(r)
	if !presented {
		p, err := s.Auth.Authenticate(r.Context(), "", false)
		if err == auth.ErrUnauthorized {
			s.Monitor.AuthFailure("missing_key")
			err = &httpio.Error{Status: http.StatusUnauthorized, Detail: unauthorizedDetail(false), Header: map[string]string{"WWW-Authenticate": "Bearer"}}
		}
		return p, err
	}
	addr := s.Hardening.ClientAddr(r)
	if wait := s.Throttle.Check(addr, s.Now()); wait > 0 {
		s.Monitor.RateLimit("auth_failures")
		return auth.Principal{}, hardening.Throttled(wait)
	}
	p, err := s.Auth.Authenticate(r.Context(), key, true)
	if err == auth.ErrUnauthorized {
		s.Monitor.AuthFailure("invalid_key")
		if backoff := s.Throttle.Fail(addr, s.Now()); backoff > 0 {
			s.log.WarnContext(r.Context(), "authentication failures: address backed off", "request_id", requestID(r.Context()),
				"client", addr, "backoff_s", hardening.RetryAfterSeconds(backoff))
		}
		return p, &httpio.Error{Status: http.StatusUnauthorized, Detail: unauthorizedDetail(true), Header: map[string]string{"WWW-Authenticate": "Bearer"}}
	}
	return p, err
}

func unauthorizedDetail(presented bool) string {
	if presented {
		return "Invalid or revoked API key"
	}
	return "Missing API key"
}

func (s *Server) authenticateEventToken(r *http.Request, tok string) (auth.Principal, error) {
	bad := &httpio.Error{Status: http.StatusUnauthorized, Detail: "Invalid or expired event token"}
	keyID, err := auth.VerifyEventToken(s.EventSecret, tok, r.PathValue("id"), s.Now())
	if err != nil {
		s.Monitor.AuthFailure("invalid_event_token")
		return auth.Principal{}, bad
	}
	p, err := s.Auth.PrincipalByKeyID(r.Context(), keyID)
	if err == auth.ErrUnauthorized {
		s.Monitor.AuthFailure("invalid_event_token")
		return p, bad
	}
	return p, err
}

// rateLimit applies the caller's bucket; it writes the 429 itself.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, p auth.Principal) bool {
	d, limited := s.takeToken(p, r.RemoteAddr)
	if !limited {
		return true
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", itoa64(int64(d.Limit)))
	h.Set("X-RateLimit-Remaining", itoa64(int64(d.Remaining)))
	h.Set("X-RateLimit-Reset", itoa64(ceilUnix(d.Reset)))
	if d.Allowed {
		return true
	}
	s.Monitor.RateLimit("scan_start")
	retry := int(d.RetryAfter / time.Second)
	if retry < 1 {
		retry = 1
	}
	h.Set("Retry-After", itoa64(int64(retry)))
	httpio.WriteJSON(w, http.StatusTooManyRequests, RateLimitBody{Detail: "Rate limit exceeded", RetryAfter: retry, LimitPerMin: d.Limit})
	return false
}

// takeToken draws from the caller's start-scan bucket: the key's own, the
// shared environment key's, or the client address's in dev mode. limited
// is false when no limiter applies. The console's scan form draws from the
// same bucket as the API.
func (s *Server) takeToken(p auth.Principal, remoteAddr string) (d auth.RateDecision, limited bool) {
	if s.Limiter == nil || !s.Limiter.Enabled() {
		return d, false
	}
	owner := p.ID
	if p.Source == auth.SourceDev {
		owner = "ip:" + clientIP(remoteAddr)
	}
	return s.Limiter.Allow(owner, s.Now()), true
}

func ceilUnix(t time.Time) int64 {
	u := t.Unix()
	if t.Nanosecond() > 0 {
		u++
	}
	return u
}

func clientIP(remoteAddr string) string {
	host := remoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// portfolio is the targets and inventory API, which the console's target
// pages share; the bulk verdict reads its findings filter.
func (s *Server) portfolio() portfolio.Handlers {
	return portfolio.Handlers{Store: s.Store, Now: s.slaNow, SLA: s.SLA, Hidden: hiddenTriageStatuses(), Principal: PrincipalFrom, Audit: s.review.Recorder.Record}
}
