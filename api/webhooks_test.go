package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"scand/api/hardening"
	"scand/api/webhookapi"
	"scand/auth"
	"scand/hook"
	"scand/store"
)

// webhookTestEnv is a real store, a started dispatcher and keys of each
// scope, behind the real handler.
type webhookTestEnv struct {
	st      *store.Store
	hooks   *hook.Dispatcher
	handler http.Handler
	keys    map[string]string // scope name -> plaintext key
}

func newWebhookTestEnv(t *testing.T) *webhookTestEnv {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "api.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	env := &webhookTestEnv{st: st, keys: map[string]string{}}
	for _, scope := range []string{"read", "write", "admin"} {
		id, plain := auth.NewKey()
		if _, err := st.CreateAPIKey(ctx, store.APIKey{ID: id, Name: scope, Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(plain), Scopes: []string{scope}}); err != nil {
			t.Fatal(err)
		}
		env.keys[scope] = plain
	}
	env.hooks = hook.New(hook.Config{Store: st, AllowPrivate: true})
	env.hooks.BackoffBase, env.hooks.BackoffCap = 5*time.Millisecond, 20*time.Millisecond
	if err := env.hooks.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.hooks.Stop)
	env.handler = New(Deps{Store: st, Auth: &auth.Authenticator{Store: st}, Hooks: env.hooks,
		Hardening: hardening.Policy{AllowedHosts: []string{"example.com"}}}).Handler()
	return env
}

func (e *webhookTestEnv) do(t *testing.T, scope, method, path string, body any) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if scope != "" {
		req.Header.Set("X-API-Key", e.keys[scope])
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

func decodeJSON[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("response %d %q: %v", rec.Code, rec.Body.String(), err)
	}
	return v
}

func (e *webhookTestEnv) create(t *testing.T, url string, filter ...string) webhookapi.WebhookCreated {
	t.Helper()
	rec := e.do(t, "admin", "POST", "/api/v1/webhooks", map[string]any{"name": "ci", "url": url, "event_filter": filter})
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	return decodeJSON[webhookapi.WebhookCreated](t, rec)
}

func TestWebhookRoutesNeedAdminScope(t *testing.T) {
	env := newWebhookTestEnv(t)
	wh := env.create(t, "http://127.0.0.1:9/hook", "scan.complete")
	routes := []struct{ method, path, body string }{
		{"POST", "/webhooks", `{"name":"x","url":"https://r.example/","event_filter":["scan.complete"]}`},
		{"GET", "/webhooks", ""},
		{"GET", "/webhooks/" + wh.ID, ""},
		{"PATCH", "/webhooks/" + wh.ID, `{"name":"y"}`},
		{"DELETE", "/webhooks/" + wh.ID, ""},
		{"GET", "/webhooks/" + wh.ID + "/deliveries", ""},
		{"POST", "/webhooks/" + wh.ID + "/test", ""},
	}
	for _, prefix := range []string{"/api/v1", "/api"} {
		for _, scope := range []string{"read", "write"} {
			for _, r := range routes {
				var body any
				if r.body != "" {
					body = r.body
				}
				if rec := env.do(t, scope, r.method, prefix+r.path, body); rec.Code != http.StatusForbidden {
					t.Errorf("%s key: %s %s%s = %d, want 403", scope, r.method, prefix, r.path, rec.Code)
				}
			}
		}
	}
	if rec := env.do(t, "admin", "GET", "/api/v1/webhooks", nil); rec.Code != http.StatusOK {
		t.Errorf("admin list = %d", rec.Code)
	}
	// Nothing the refused calls tried took effect.
	if got := decodeJSON[webhookapi.WebhookView](t, env.do(t, "admin", "GET", "/api/v1/webhooks/"+wh.ID, nil)); got.Name != "ci" {
		t.Errorf("a forbidden PATCH changed the name to %q", got.Name)
	}
}

func TestWebhookCreateValidation(t *testing.T) {
	env := newWebhookTestEnv(t)
	long := strings.Repeat("n", 201)
	cases := []struct {
		name string
		body string
		loc  string
	}{
		{"missing name", `{"url":"https://r.example/","event_filter":["scan.complete"]}`, "body.name"},
		{"blank name", `{"name":"   ","url":"https://r.example/","event_filter":["scan.complete"]}`, "body.name"},
		{"name too long", `{"name":"` + long + `","url":"https://r.example/","event_filter":["scan.complete"]}`, "body.name"},
		{"missing url", `{"name":"x","event_filter":["scan.complete"]}`, "body.url"},
		{"relative url", `{"name":"x","url":"/hook","event_filter":["scan.complete"]}`, "body.url"},
		{"ftp url", `{"name":"x","url":"ftp://r.example/","event_filter":["scan.complete"]}`, "body.url"},
		{"credentials in url", `{"name":"x","url":"https://u:p@r.example/","event_filter":["scan.complete"]}`, "body.url"},
		{"metadata url", `{"name":"x","url":"http://169.254.169.254/latest","event_filter":["scan.complete"]}`, "body.url"},
		{"missing filter", `{"name":"x","url":"https://r.example/"}`, "body.event_filter"},
		{"null filter", `{"name":"x","url":"https://r.example/","event_filter":null}`, "body.event_filter"},
		{"empty filter", `{"name":"x","url":"https://r.example/","event_filter":[]}`, "body.event_filter"},
		{"ineligible event", `{"name":"x","url":"https://r.example/","event_filter":["scan.complete","scan.start"]}`, "body.event_filter.1"},
		{"filter not a list", `{"name":"x","url":"https://r.example/","event_filter":"scan.complete"}`, "body.event_filter"},
		{"enabled not a bool", `{"name":"x","url":"https://r.example/","event_filter":["scan.complete"],"enabled":"yes"}`, "body.enabled"},
		{"client-chosen secret", `{"name":"x","url":"https://r.example/","event_filter":["scan.complete"],"secret":"mine"}`, "body.secret"},
		{"not an object", `["x"]`, "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := env.do(t, "admin", "POST", "/api/v1/webhooks", tc.body)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("status %d %s, want 422", rec.Code, rec.Body)
			}
			body := decodeJSON[ValidationBody](t, rec)
			var locs []string
			for _, f := range body.Detail {
				var parts []string
				for _, p := range f.Loc {
					b, _ := json.Marshal(p)
					parts = append(parts, strings.Trim(string(b), `"`))
				}
				locs = append(locs, strings.Join(parts, "."))
			}
			found := false
			for _, l := range locs {
				found = found || l == tc.loc
			}
			if !found {
				t.Errorf("422 locations %v, want %s", locs, tc.loc)
			}
		})
	}
	if list := decodeJSON[[]webhookapi.WebhookView](t, env.do(t, "admin", "GET", "/api/v1/webhooks", nil)); len(list) != 0 {
		t.Errorf("invalid bodies created %d webhooks", len(list))
	}
}

func TestWebhookLifecycleThroughAPI(t *testing.T) {
	env := newWebhookTestEnv(t)
	var hits atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(receiver.Close)

	rec := env.do(t, "admin", "POST", "/api/v1/webhooks", map[string]any{"name": "  ops  ", "url": receiver.URL + "/in", "event_filter": []string{"scan.failed", "scan.complete", "scan.failed"}})
	if rec.Code != http.StatusCreated || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("create: %d, Cache-Control %q", rec.Code, rec.Header().Get("Cache-Control"))
	}
	created := decodeJSON[webhookapi.WebhookCreated](t, rec)
	if len(created.Secret) != 32 || created.Name != "ops" || !created.Enabled || strings.Join(created.EventFilter, ",") != "scan.failed,scan.complete" {
		t.Fatalf("created = %+v", created)
	}
	stored, _ := env.st.WebhookByID(context.Background(), created.ID)
	if stored.Secret != created.Secret {
		t.Fatal("returned secret is not the stored one")
	}
	// The secret never appears again.
	for _, path := range []string{"/api/v1/webhooks", "/api/v1/webhooks/" + created.ID} {
		if r := env.do(t, "admin", "GET", path, nil); r.Code != 200 || strings.Contains(r.Body.String(), created.Secret) || strings.Contains(r.Body.String(), `"secret"`) {
			t.Errorf("GET %s leaks the secret: %s", path, r.Body)
		}
	}

	// PATCH: every editable field; the secret is refused.
	patch := env.do(t, "admin", "PATCH", "/api/v1/webhooks/"+created.ID, map[string]any{"name": "ops2", "url": receiver.URL + "/in2", "event_filter": []string{"webhook.test"}, "enabled": false})
	got := decodeJSON[webhookapi.WebhookView](t, patch)
	if patch.Code != 200 || got.Name != "ops2" || got.URL != receiver.URL+"/in2" || got.Enabled || strings.Join(got.EventFilter, ",") != "webhook.test" {
		t.Fatalf("PATCH = %d %+v", patch.Code, got)
	}
	if r := env.do(t, "admin", "PATCH", "/api/v1/webhooks/"+created.ID, `{"secret":"new"}`); r.Code != http.StatusUnprocessableEntity {
		t.Errorf("PATCH secret = %d, want 422", r.Code)
	}
	if r := env.do(t, "admin", "PATCH", "/api/v1/webhooks/"+created.ID, `{"event_filter":[]}`); r.Code != http.StatusUnprocessableEntity {
		t.Errorf("PATCH empty filter = %d, want 422", r.Code)
	}
	if r := env.do(t, "admin", "PATCH", "/api/v1/webhooks/nope", `{"name":"x"}`); r.Code != http.StatusNotFound {
		t.Errorf("PATCH unknown = %d, want 404", r.Code)
	}
	if s, _ := env.st.WebhookByID(context.Background(), created.ID); s.Secret != created.Secret {
		t.Error("the secret changed")
	}

	// Test delivery: refused while disabled, queued once enabled.
	if r := env.do(t, "admin", "POST", "/api/v1/webhooks/"+created.ID+"/test", nil); r.Code != http.StatusConflict {
		t.Errorf("test on a disabled webhook = %d, want 409", r.Code)
	}
	env.do(t, "admin", "PATCH", "/api/v1/webhooks/"+created.ID, `{"enabled":true}`)
	tr := env.do(t, "admin", "POST", "/api/v1/webhooks/"+created.ID+"/test", nil)
	queued := decodeJSON[webhookapi.WebhookTestQueued](t, tr)
	if tr.Code != http.StatusAccepted || queued.DeliveryID == "" {
		t.Fatalf("test = %d %s", tr.Code, tr.Body)
	}
	var rows []map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows = decodeJSON[[]map[string]any](t, env.do(t, "admin", "GET", "/api/v1/webhooks/"+created.ID+"/deliveries", nil))
		if len(rows) == 1 && rows[0]["status"] == "succeeded" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("test delivery not delivered: %v", rows)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var keys []string
	for k := range rows[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "attempt,created_at,event,id,next_attempt_at,response_code,response_note,status,updated_at" {
		t.Errorf("delivery fields = %v", keys)
	}
	if rows[0]["id"] != queued.DeliveryID || rows[0]["event"] != "webhook.test" || rows[0]["response_code"] != float64(200) || rows[0]["attempt"] != float64(1) || rows[0]["next_attempt_at"] != nil {
		t.Errorf("delivery row = %v", rows[0])
	}
	if hits.Load() != 1 {
		t.Errorf("receiver hit %d times", hits.Load())
	}

	if r := env.do(t, "admin", "DELETE", "/api/v1/webhooks/"+created.ID, nil); r.Code != http.StatusNoContent {
		t.Fatalf("DELETE = %d", r.Code)
	}
	for _, p := range []string{"", "/deliveries"} {
		if r := env.do(t, "admin", "GET", "/api/v1/webhooks/"+created.ID+p, nil); r.Code != http.StatusNotFound {
			t.Errorf("GET after delete%s = %d, want 404", p, r.Code)
		}
	}
	if r := env.do(t, "admin", "POST", "/api/v1/webhooks/"+created.ID+"/test", nil); r.Code != http.StatusNotFound {
		t.Errorf("test after delete = %d, want 404", r.Code)
	}
	if r := env.do(t, "admin", "DELETE", "/api/v1/webhooks/"+created.ID, nil); r.Code != http.StatusNotFound {
		t.Errorf("second DELETE = %d, want 404", r.Code)
	}
	if ds, _ := env.st.DeliveriesByWebhook(context.Background(), created.ID, 100); len(ds) != 0 {
		t.Errorf("%d deliveries survive the webhook", len(ds))
	}
}

func TestWebhookDeliveriesListLast100NewestFirst(t *testing.T) {
	env := newWebhookTestEnv(t)
	// Port 9 is closed: deliveries stay queued behind the first.
	wh := env.create(t, "http://127.0.0.1:9/", "webhook.test")
	var last string
	for i := 0; i < 103; i++ {
		d, err := env.st.EnqueueDelivery(context.Background(), wh.ID, "webhook.test", []byte(`{}`), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		last = d.ID
	}
	rows := decodeJSON[[]webhookapi.WebhookDeliveryView](t, env.do(t, "admin", "GET", "/api/v1/webhooks/"+wh.ID+"/deliveries", nil))
	if len(rows) != 100 || rows[0].ID != last {
		t.Fatalf("%d rows, first %s; want 100, newest (%s) first", len(rows), rows[0].ID, last)
	}
	for i := 1; i < len(rows); i++ {
		if rows[i].CreatedAt.After(rows[i-1].CreatedAt) {
			t.Fatalf("row %d is newer than row %d", i, i-1)
		}
	}
}
