package api

// Shared fixtures for the api package's tests: a real store in a temp
// dir, a settable clock, captured JSON logs, and request helpers that go
// through the full middleware chain (Server.Handler), never a handler alone.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/api/httpio"
	"scand/api/monitor"
	"scand/auth"
	"scand/metrics"
	"scand/sse"
	"scand/store"
)

// apiClock is the injected clock of a test server.
type apiClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *apiClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *apiClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *apiClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// apiLogBuffer collects log output written concurrently by handlers.
type apiLogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *apiLogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *apiLogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Records returns every JSON log line written so far.
func (b *apiLogBuffer) Records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// apiEnvOptions configures newAPIEnv; the zero value is dev mode.
type apiEnvOptions struct {
	EnvKey       string
	AuthRequired bool
	// Limiter defaults to the SPEC.md limits (60/min, burst 10, enabled).
	Limiter    *auth.RateLimiter
	TestRoutes []Route
	// Metrics is SVC_METRICS (default key); MetricsKey SVC_METRICS_KEY.
	Metrics    string
	MetricsKey string
}

// apiEnv is one server over a fresh database.
type apiEnv struct {
	t       *testing.T
	srv     *Server
	h       http.Handler
	store   *store.Store
	clock   *apiClock
	logs    *apiLogBuffer
	secret  []byte
	monitor *monitor.Monitor
}

var apiEnvStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newAPIEnv(t *testing.T, opts apiEnvOptions) *apiEnv {
	t.Helper()
	clock := &apiClock{t: apiEnvStart}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "api.db"), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	limiter := opts.Limiter
	if limiter == nil {
		limiter = auth.NewRateLimiter(60, 10, true)
	}
	logs := &apiLogBuffer{}
	e := &apiEnv{t: t, store: st, clock: clock, logs: logs, secret: []byte("api-test-event-secret")}
	authn := &auth.Authenticator{Store: st, EnvKey: opts.EnvKey, AuthRequired: opts.AuthRequired}
	if opts.Metrics == "" {
		opts.Metrics = monitor.ModeKey
	}
	e.monitor = monitor.New(monitor.Config{Registry: metrics.New(), Store: st, Auth: authn, Now: clock.Now, Version: Version,
		Mode: opts.Metrics, ScrapeKey: opts.MetricsKey, BackupDir: filepath.Join(t.TempDir(), "backups")})
	e.srv = New(Deps{
		Store:       st,
		Auth:        authn,
		Monitor:     e.monitor,
		Limiter:     limiter,
		Bus:         sse.NewBus(nil),
		Log:         slog.New(slog.NewJSONHandler(logs, nil)),
		Now:         clock.Now,
		EventSecret: e.secret,
		Ready:       func() bool { return true },
		TestRoutes:  opts.TestRoutes,
	})
	e.h = e.srv.Handler()
	return e
}

// with returns a view of e whose helpers report to t (a subtest).
func (e *apiEnv) with(t *testing.T) *apiEnv {
	c := *e
	c.t = t
	return &c
}

// do sends one request through the full handler. headers are name, value
// pairs; the pseudo-header "RemoteAddr" sets the client address instead.
func (e *apiEnv) do(method, target, body string, headers ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, target, nil)
	} else {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "RemoteAddr") {
			r.RemoteAddr = headers[i+1]
			continue
		}
		r.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, r)
	return rec
}

// issueKey stores a DB key directly (as POST /keys would) and returns its
// id and plaintext.
func (e *apiEnv) issueKey(scopes ...string) (id, plaintext string) {
	e.t.Helper()
	id, plaintext = auth.NewKey()
	_, err := e.store.CreateAPIKey(context.Background(), store.APIKey{ID: id, Name: "test " + id, Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(plaintext), Scopes: scopes})
	if err != nil {
		e.t.Fatal(err)
	}
	return id, plaintext
}

// decode parses a JSON response body into v, failing on anything else.
func (e *apiEnv) decode(rec *httptest.ResponseRecorder, v any) {
	e.t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		e.t.Fatalf("Content-Type %q, want application/json; body %q", ct, rec.Body.String())
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		e.t.Fatalf("response is not JSON: %v; body %q", err, rec.Body.String())
	}
	if _, err := dec.Token(); err != io.EOF {
		e.t.Fatalf("trailing data after the JSON body %q", rec.Body.String())
	}
}

// detail returns the string "detail" of an error body, failing on any
// other shape.
func (e *apiEnv) detail(rec *httptest.ResponseRecorder) string {
	e.t.Helper()
	var body map[string]any
	e.decode(rec, &body)
	d, ok := body["detail"].(string)
	if !ok {
		e.t.Fatalf("detail is %T, want a string; body %q", body["detail"], rec.Body.String())
	}
	return d
}

// apiValidationItem is one entry of a 422 body as a client decodes it.
type apiValidationItem struct {
	Type  string `json:"type"`
	Loc   []any  `json:"loc"`
	Msg   string `json:"msg"`
	Input any    `json:"input"`
}

// validationErrors decodes a 422 body, checking that it is exactly
// {"detail": [{type, loc, msg, input}, ...]} with a non-empty list.
func (e *apiEnv) validationErrors(rec *httptest.ResponseRecorder) []apiValidationItem {
	e.t.Helper()
	var raw struct {
		Detail []map[string]json.RawMessage `json:"detail"`
	}
	e.decode(rec, &raw)
	if len(raw.Detail) == 0 {
		e.t.Fatalf("422 without a detail list: %s", rec.Body.String())
	}
	var out []apiValidationItem
	for _, item := range raw.Detail {
		if len(item) != 4 || item["type"] == nil || item["loc"] == nil || item["msg"] == nil || item["input"] == nil {
			e.t.Fatalf("422 item is not exactly {type, loc, msg, input}: %s", rec.Body.String())
		}
		var v apiValidationItem
		b, _ := json.Marshal(item)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			e.t.Fatalf("422 item: %v", err)
		}
		if v.Type == "" || v.Msg == "" || len(v.Loc) == 0 {
			e.t.Fatalf("422 item with an empty type, msg or loc: %s", rec.Body.String())
		}
		out = append(out, v)
	}
	return out
}

// expectStatus fails the test with the body when the status differs.
func (e *apiEnv) expectStatus(rec *httptest.ResponseRecorder, want int) {
	e.t.Helper()
	if rec.Code != want {
		e.t.Fatalf("status %d, want %d; body %s", rec.Code, want, rec.Body.String())
	}
}

// probeRoutes declares one test route per scope so authorization can be
// tested independently of the feature routes. Each echoes the principal.
func probeRoutes() []Route {
	echo := func(w http.ResponseWriter, r *http.Request) error {
		p := PrincipalFrom(r.Context())
		scopes := []string{}
		for _, s := range p.Scopes {
			scopes = append(scopes, string(s))
		}
		httpio.WriteJSON(w, http.StatusOK, map[string]any{"id": p.ID, "source": p.Source, "scopes": scopes})
		return nil
	}
	return []Route{
		{Method: "GET", Path: "/probe/read", Scope: auth.ScopeRead, Tag: "probe", Summary: "read probe", Handler: echo},
		{Method: "POST", Path: "/probe/write", Scope: auth.ScopeWrite, Tag: "probe", Summary: "write probe", Handler: echo},
		{Method: "GET", Path: "/probe/admin", Scope: auth.ScopeAdmin, Tag: "probe", Summary: "admin probe", Handler: echo},
		{Method: "GET", Path: "/probe/any", Scope: auth.ScopeAny, Tag: "probe", Summary: "any-key probe", Handler: echo},
		{Method: "GET", Path: "/probe/scans/{id}/events", Scope: auth.ScopeRead, EventToken: true, Tag: "probe", Summary: "event-token probe", Handler: echo},
		{Method: "POST", Path: "/probe/limited", Scope: auth.ScopeWrite, RateLimited: true, Tag: "probe", Summary: "rate-limited probe", Handler: echo},
	}
}
