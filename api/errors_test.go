package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"scand/api/httpio"
	"scand/auth"
)

// errorProbeBody has one field of each kind a decode can get wrong.
type errorProbeBody struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Tags  []string `json:"tags"`
	Inner struct {
		Flag bool `json:"flag"`
	} `json:"inner"`
}

func errorProbeRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/probe/decode", Scope: auth.ScopeWrite, Tag: "probe", Summary: "decode probe", Request: errorProbeBody{},
			Handler: func(w http.ResponseWriter, r *http.Request) error {
				var b errorProbeBody
				if err := httpio.DecodeBody(r, &b); err != nil {
					return err
				}
				httpio.WriteJSON(w, http.StatusOK, b)
				return nil
			}},
		{Method: "GET", Path: "/probe/panic", Scope: auth.ScopeRead, Tag: "probe", Summary: "panics",
			Handler: func(w http.ResponseWriter, r *http.Request) error {
				panic("database password is hunter2")
			}},
		{Method: "GET", Path: "/probe/fail", Scope: auth.ScopeRead, Tag: "probe", Summary: "fails",
			Handler: func(w http.ResponseWriter, r *http.Request) error {
				return errors.New("sql: no such table secret_stuff")
			}},
		{Method: "GET", Path: "/probe/query", Scope: auth.ScopeRead, Tag: "probe", Summary: "query probe",
			Handler: func(w http.ResponseWriter, r *http.Request) error {
				limit, err := httpio.QueryInt(r, "limit", 50, 1, 200)
				if err != nil {
					return err
				}
				unread, err := httpio.QueryBool(r, "unread_only")
				if err != nil {
					return err
				}
				httpio.WriteJSON(w, http.StatusOK, map[string]any{"limit": limit, "unread_only": unread})
				return nil
			}},
	}
}

func TestBodyValidationIs422NeverA500(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: errorProbeRoutes()})
	cases := []struct {
		name, body string
		loc        []any
		typ        string
	}{
		{"empty body", "", []any{"body"}, "missing"},
		{"whitespace body", "  \n ", []any{"body"}, "missing"},
		{"array", `[{"name":"x"}]`, []any{"body"}, "model_attributes_type"},
		{"null", `null`, []any{"body"}, "model_attributes_type"},
		{"number", `42`, []any{"body"}, "model_attributes_type"},
		{"string", `"name"`, []any{"body"}, "model_attributes_type"},
		{"not JSON", `name=x`, []any{"body"}, "model_attributes_type"},
		{"truncated", `{"name":`, []any{"body"}, "json_invalid"},
		{"bad token inside", `{"name": x}`, []any{"body"}, "json_invalid"},
		{"second object", `{"name":"a"} {"name":"b"}`, []any{"body"}, "json_invalid"},
		{"trailing garbage", `{"name":"a"}garbage`, []any{"body"}, "json_invalid"},
		{"trailing bracket", `{"name":"a"}]`, []any{"body"}, "json_invalid"},
		{"string for int", `{"count":"3"}`, []any{"body", "count"}, "int_type"},
		{"float for int", `{"count":1.5}`, []any{"body", "count"}, "int_type"},
		{"huge int", `{"count":1e400}`, []any{"body", "count"}, "int_type"},
		{"number for string", `{"name":5}`, []any{"body", "name"}, "string_type"},
		{"object for list", `{"tags":{"a":1}}`, []any{"body", "tags"}, "list_type"},
		{"string for bool in nested object", `{"inner":{"flag":"yes"}}`, []any{"body", "inner", "flag"}, "bool_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.with(t)
			rec := e.do("POST", "/api/v1/probe/decode", c.body, "Content-Type", "application/json")
			e.expectStatus(rec, 422)
			errs := e.validationErrors(rec)
			if len(errs) != 1 || !slices.Equal(errs[0].Loc, c.loc) || errs[0].Type != c.typ {
				t.Fatalf("got %+v, want one error of type %q at %v", errs, c.typ, c.loc)
			}
		})
	}
	// Sanity: a good body passes, so the 422s above are about the body.
	rec := e.do("POST", "/api/v1/probe/decode", `{"name":"a","count":2,"tags":["x"],"inner":{"flag":true},"unknown":1}`)
	e.expectStatus(rec, 200)
}

func TestQueryValidation(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: errorProbeRoutes()})
	cases := []struct {
		query string
		want  int
		loc   []any
		typ   string
	}{
		{"", 200, nil, ""},
		{"?limit=200&unread_only=true", 200, nil, ""},
		{"?limit=abc", 422, []any{"query", "limit"}, "int_parsing"},
		{"?limit=0", 422, []any{"query", "limit"}, "greater_than_equal"},
		{"?limit=201", 422, []any{"query", "limit"}, "less_than_equal"},
		{"?unread_only=maybe", 422, []any{"query", "unread_only"}, "bool_parsing"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			e := e.with(t)
			rec := e.do("GET", "/api/v1/probe/query"+c.query, "")
			e.expectStatus(rec, c.want)
			if c.want != 422 {
				return
			}
			errs := e.validationErrors(rec)
			if len(errs) != 1 || !slices.Equal(errs[0].Loc, c.loc) || errs[0].Type != c.typ {
				t.Fatalf("got %+v, want %q at %v", errs, c.typ, c.loc)
			}
		})
	}
}

func TestBodyOverOneMiBIs413(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{EnvKey: apiTestEnvKey})
	const limit = 1 << 20
	head, tail := `{"name":"big"`, `}`
	fits := head + strings.Repeat(" ", limit-len(head)-len(tail)) + tail
	e.expectStatus(e.do("POST", "/api/v1/keys", fits, "X-API-Key", apiTestEnvKey), 201)
	over := head + strings.Repeat(" ", limit-len(head)-len(tail)+1) + tail
	rec := e.do("POST", "/api/v1/keys", over, "X-API-Key", apiTestEnvKey)
	e.expectStatus(rec, 413)
	if d := e.detail(rec); !strings.Contains(d, "too large") {
		t.Fatalf("413 detail %q", d)
	}
	rec = e.do("POST", "/api/v1/keys", `{"name":"`+strings.Repeat("x", 3*limit)+`"}`, "X-API-Key", apiTestEnvKey)
	e.expectStatus(rec, 413)
}

func TestUnknownRoutesAndMethodsAnswerJSON(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	cases := []struct {
		method, path string
		want         int
		allow        []string
	}{
		{"GET", "/nope", 404, nil},
		{"GET", "/api/v1/nope", 404, nil},
		{"GET", "/api/nope", 404, nil},
		{"GET", "/api/v1/keys/me/extra", 404, nil},
		{"GET", "/api/v2/keys", 404, nil},
		// Public routes have no /api prefix.
		{"GET", "/api/v1/health", 404, nil},
		{"GET", "/api/health", 404, nil},
		{"PUT", "/api/v1/keys", 405, []string{"GET", "POST"}},
		{"PATCH", "/api/keys", 405, []string{"GET", "POST"}},
		{"POST", "/api/v1/keys/me", 405, []string{"GET"}},
		{"POST", "/health", 405, []string{"GET"}},
		{"DELETE", "/openapi.json", 405, []string{"GET"}},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			e := e.with(t)
			rec := e.do(c.method, c.path, "")
			e.expectStatus(rec, c.want)
			if d := e.detail(rec); d == "" {
				t.Fatal("empty detail")
			}
			for _, m := range c.allow {
				if !strings.Contains(rec.Header().Get("Allow"), m) {
					t.Fatalf("Allow %q lacks %s", rec.Header().Get("Allow"), m)
				}
			}
			if rec.Header().Get("X-Request-ID") == "" {
				t.Fatal("no X-Request-ID")
			}
		})
	}
}

func TestTrailingSlashReachesTheRoute(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	for _, p := range []string{"/api/v1/keys/", "/api/keys/", "/health/"} {
		e.expectStatus(e.do("GET", p, ""), 200)
	}
}

func TestInternalErrorsHideTheCause(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: errorProbeRoutes()})
	for _, c := range []struct{ path, secret string }{
		{"/api/v1/probe/panic", "hunter2"},
		{"/api/probe/panic", "hunter2"},
		{"/api/v1/probe/fail", "secret_stuff"},
	} {
		rec := e.do("GET", c.path, "", "X-Request-ID", "req-"+c.secret[:3])
		e.expectStatus(rec, 500)
		if d := e.detail(rec); d != "Internal server error" {
			t.Fatalf("%s: detail %q", c.path, d)
		}
		if strings.Contains(rec.Body.String(), c.secret) {
			t.Fatalf("%s: the cause reached the client", c.path)
		}
		var logged bool
		for _, r := range e.logs.Records(t) {
			if r["request_id"] == "req-"+c.secret[:3] && strings.Contains(toJSON(r), c.secret) {
				logged = true
			}
		}
		if !logged {
			t.Fatalf("%s: the cause is not in the log with the request id", c.path)
		}
	}
	// The server keeps serving after a panic.
	e.expectStatus(e.do("GET", "/health", ""), 200)
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestRequestID(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{EnvKey: apiTestEnvKey, AuthRequired: true})
	cases := []struct {
		name, sent string
		pinned     bool
	}{
		{"generated", "", false},
		{"pinned", "client-req-42", true},
		{"pinned UUID", "0b6f1c8e-1d3a-4c56-8e8f-1a2b3c4d5e6f", true},
		{"128 characters", strings.Repeat("a", 128), true},
		{"too long", strings.Repeat("a", 129), false},
		{"with a space", "a b", false},
		{"with a newline", "a\nfake-log-line", false},
		{"non-ASCII", "ä", false},
	}
	for _, c := range cases {
		for _, target := range []string{"/health", "/api/v1/keys", "/api/v1/nope"} {
			t.Run(c.name+" "+target, func(t *testing.T) {
				e := e.with(t)
				var headers []string
				if c.sent != "" {
					headers = []string{"X-Request-ID", c.sent}
				}
				rec := e.do("GET", target, "", headers...)
				got := rec.Header().Get("X-Request-ID")
				if c.pinned && got != c.sent {
					t.Fatalf("X-Request-ID = %q, want the pinned %q", got, c.sent)
				}
				if !c.pinned && !uuidV4.MatchString(got) {
					t.Fatalf("X-Request-ID = %q, want a generated UUID", got)
				}
				recs := e.logs.Records(t)
				last := recs[len(recs)-1]
				if last["request_id"] != got {
					t.Fatalf("access log request_id %v, response %q", last["request_id"], got)
				}
			})
		}
	}
	// Two requests without an id get different ids.
	a := e.do("GET", "/health", "").Header().Get("X-Request-ID")
	b := e.do("GET", "/health", "").Header().Get("X-Request-ID")
	if a == b {
		t.Fatalf("generated ids repeat: %q", a)
	}
}

// TestAccessLogLine checks the one structured line per request that
// SPEC.md names. Here the logger is a plain slog JSON handler, so time,
// level and msg are slog's own; main_test checks the daemon's logger,
// which renames time to timestamp and drops level and msg on this line.
func TestAccessLogLine(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: append(probeRoutes(), errorProbeRoutes()...)})
	keyID, key := e.issueKey("read")
	cases := []struct {
		method, target string
		headers        []string
		status         int
		path           string
		keyID          string
	}{
		{"GET", "/health", nil, 200, "/health", ""},
		{"GET", "/api/v1/probe/read", []string{"X-API-Key", key}, 200, "/api/v1/probe/read", keyID},
		{"GET", "/api/v1/probe/admin", []string{"X-API-Key", key}, 403, "/api/v1/probe/admin", keyID},
		{"GET", "/api/v1/probe/read", nil, 401, "/api/v1/probe/read", ""},
		{"GET", "/nowhere", nil, 404, "/nowhere", ""},
		{"GET", "/api/v1/probe/panic", []string{"X-API-Key", key}, 500, "/api/v1/probe/panic", keyID},
		// The query string can carry an event token: never logged.
		{"GET", "/api/v1/probe/scans/s1/events?event_token=SECRETTOKEN", nil, 401, "/api/v1/probe/scans/s1/events", ""},
		{"DELETE", "/api/keys/x", nil, 401, "/api/keys/x", ""},
	}
	for _, c := range cases {
		want := []string{"latency_ms", "level", "logger", "method", "msg", "path", "request_id", "status", "time"}
		if c.keyID != "" {
			want = append(want, "key_id")
			sort.Strings(want)
		}
		t.Run(c.method+" "+c.target, func(t *testing.T) {
			e := e.with(t)
			before := len(e.logs.Records(t))
			rec := e.do(c.method, c.target, "", append(c.headers, "X-Request-ID", "log-test")...)
			e.expectStatus(rec, c.status)
			var access []map[string]any
			for _, r := range e.logs.Records(t)[before:] {
				if r["logger"] == "scand.access" {
					access = append(access, r)
				}
			}
			if len(access) != 1 {
				t.Fatalf("%d access lines, want exactly 1", len(access))
			}
			line := access[0]
			var keys []string
			for k := range line {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if !slices.Equal(keys, want) {
				t.Fatalf("access line fields %v, want %v", keys, want)
			}
			if line["request_id"] != "log-test" || line["method"] != c.method || line["path"] != c.path {
				t.Fatalf("access line %v", line)
			}
			if c.keyID != "" && line["key_id"] != c.keyID {
				t.Fatalf("key_id %v, want %q", line["key_id"], c.keyID)
			}
			if status, ok := line["status"].(float64); !ok || int(status) != c.status {
				t.Fatalf("status %v (%T), want the number %d", line["status"], line["status"], c.status)
			}
			if ms, ok := line["latency_ms"].(float64); !ok || ms < 0 {
				t.Fatalf("latency_ms %v (%T), want a non-negative number", line["latency_ms"], line["latency_ms"])
			}
		})
	}
	if strings.Contains(e.logs.String(), "SECRETTOKEN") {
		t.Fatal("an event token reached the log")
	}
	if strings.Contains(e.logs.String(), key) {
		t.Fatal("an API key reached the log")
	}
}

// TestAccessLogKeyID: the access line names the credential that
// authenticated the request by id: a DB key's id, "env" for SVC_API_KEY,
// nothing in dev mode or without a valid key.
func TestAccessLogKeyID(t *testing.T) {
	accessKeyID := func(t *testing.T, e *apiEnv, headers ...string) (any, bool) {
		t.Helper()
		before := len(e.logs.Records(t))
		e.expectStatus(e.do("GET", "/api/v1/probe/read", "", headers...), 200)
		for _, r := range e.logs.Records(t)[before:] {
			if r["logger"] == "scand.access" {
				v, ok := r["key_id"]
				return v, ok
			}
		}
		t.Fatal("no access line")
		return nil, false
	}
	dev := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	if v, ok := accessKeyID(t, dev); ok {
		t.Errorf("dev mode: key_id %v, want none", v)
	}
	env := newAPIEnv(t, apiEnvOptions{EnvKey: apiTestEnvKey, TestRoutes: probeRoutes()})
	if v, _ := accessKeyID(t, env, "X-API-Key", apiTestEnvKey); v != "env" {
		t.Errorf("environment key: key_id %v, want \"env\"", v)
	}
	id, key := env.issueKey("read")
	if v, _ := accessKeyID(t, env, "Authorization", "Bearer "+key); v != id {
		t.Errorf("DB key: key_id %v, want %q", v, id)
	}
	for _, secret := range []string{key, apiTestEnvKey} {
		if strings.Contains(env.logs.String(), secret) {
			t.Fatalf("a key (%.8s...) reached the log", secret)
		}
	}
}
