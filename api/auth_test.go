package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"scand/auth"
)

const apiTestEnvKey = "env-key-0123456789-abcdefghijklmnop"

// TestAuthorizationMatrix drives SPEC.md Authentication 1-5 through the
// real middleware, on both prefixes: every credential kind against a route
// of every scope.
func TestAuthorizationMatrix(t *testing.T) {
	type cred struct {
		name    string
		headers func(keys map[string]string) []string
	}
	xKey := func(name string) func(map[string]string) []string {
		return func(k map[string]string) []string { return []string{"X-API-Key", k[name]} }
	}
	bearer := func(name string) func(map[string]string) []string {
		return func(k map[string]string) []string { return []string{"Authorization", "Bearer " + k[name]} }
	}
	creds := []cred{
		{"none", func(map[string]string) []string { return nil }},
		{"env", xKey("env")},
		{"env bearer", bearer("env")},
		{"read", xKey("read")},
		{"read bearer", bearer("read")},
		{"write", xKey("write")},
		{"read+write", xKey("read+write")},
		{"admin", bearer("admin")},
		{"revoked", xKey("revoked")},
		{"unknown", xKey("unknown")},
		{"malformed", xKey("malformed")},
	}
	routes := []struct{ method, path string }{
		{"GET", "/probe/read"}, {"POST", "/probe/write"}, {"GET", "/probe/admin"}, {"GET", "/probe/any"},
	}
	type setup struct {
		name string
		opts apiEnvOptions
		keys bool
	}
	setups := []setup{
		{"dev", apiEnvOptions{}, false},
		{"auth required + env", apiEnvOptions{EnvKey: apiTestEnvKey, AuthRequired: true}, true},
		{"db keys only", apiEnvOptions{}, true},
	}
	// Expected status per (setup, credential, route) as rows of four
	// (read, write, admin, any). Scopes are levels: write includes read,
	// admin includes both.
	want := map[string]map[string][4]int{
		"dev": {
			"none": {200, 200, 200, 200}, "env": {401, 401, 401, 401}, "env bearer": {401, 401, 401, 401},
			"read": {401, 401, 401, 401}, "read bearer": {401, 401, 401, 401}, "write": {401, 401, 401, 401},
			"read+write": {401, 401, 401, 401}, "admin": {401, 401, 401, 401},
			"revoked": {401, 401, 401, 401}, "unknown": {401, 401, 401, 401}, "malformed": {401, 401, 401, 401},
		},
		"auth required + env": {
			"none": {401, 401, 401, 401}, "env": {200, 200, 200, 200}, "env bearer": {200, 200, 200, 200},
			"read": {200, 403, 403, 200}, "read bearer": {200, 403, 403, 200}, "write": {200, 200, 403, 200},
			"read+write": {200, 200, 403, 200}, "admin": {200, 200, 200, 200},
			"revoked": {401, 401, 401, 401}, "unknown": {401, 401, 401, 401}, "malformed": {401, 401, 401, 401},
		},
		"db keys only": {
			"none": {401, 401, 401, 401}, "env": {401, 401, 401, 401}, "env bearer": {401, 401, 401, 401},
			"read": {200, 403, 403, 200}, "read bearer": {200, 403, 403, 200}, "write": {200, 200, 403, 200},
			"read+write": {200, 200, 403, 200}, "admin": {200, 200, 200, 200},
			"revoked": {401, 401, 401, 401}, "unknown": {401, 401, 401, 401}, "malformed": {401, 401, 401, 401},
		},
	}
	for _, su := range setups {
		su.opts.TestRoutes = probeRoutes()
		e := newAPIEnv(t, su.opts)
		_, unknown := auth.NewKey()
		keys := map[string]string{"env": apiTestEnvKey, "unknown": unknown, "malformed": "ssk_short"}
		revokedID, revoked := e.issueKey("read", "write", "admin")
		keys["revoked"] = revoked
		if err := e.store.RevokeAPIKey(t.Context(), revokedID, false); err != nil {
			t.Fatal(err)
		}
		if su.keys {
			for _, scopes := range [][]string{{"read"}, {"write"}, {"read", "write"}, {"admin"}} {
				_, keys[strings.Join(scopes, "+")] = e.issueKey(scopes...)
			}
		} else {
			// Well-formed keys the database has never seen.
			for _, n := range []string{"read", "write", "read+write", "admin"} {
				_, keys[n] = auth.NewKey()
			}
		}
		for _, c := range creds {
			for i, rt := range routes {
				for _, prefix := range []string{"/api/v1", "/api"} {
					expect := want[su.name][c.name][i]
					name := su.name + "/" + c.name + "/" + rt.method + " " + prefix + rt.path
					t.Run(name, func(t *testing.T) {
						e := e.with(t)
						rec := e.do(rt.method, prefix+rt.path, "", c.headers(keys)...)
						e.expectStatus(rec, expect)
						if expect != 200 {
							if d := e.detail(rec); d == "" {
								t.Fatal("empty detail")
							}
						}
						if expect == 401 && rec.Header().Get("WWW-Authenticate") == "" {
							t.Error("401 without WWW-Authenticate")
						}
					})
				}
			}
		}
	}
}

func TestPrincipalSourcesAndScopes(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{EnvKey: apiTestEnvKey, TestRoutes: probeRoutes()})
	readID, readKey := e.issueKey("read")
	var body struct {
		ID     string   `json:"id"`
		Source string   `json:"source"`
		Scopes []string `json:"scopes"`
	}
	rec := e.do("GET", "/api/v1/probe/any", "", "X-API-Key", apiTestEnvKey)
	e.expectStatus(rec, 200)
	e.decode(rec, &body)
	if body.Source != "env" || body.ID != "env" || strings.Join(body.Scopes, ",") != "read,write,admin" {
		t.Fatalf("env principal = %+v, want source env with all scopes", body)
	}
	rec = e.do("GET", "/api/v1/probe/any", "", "Authorization", "Bearer "+readKey)
	e.expectStatus(rec, 200)
	e.decode(rec, &body)
	if body.Source != "db" || body.ID != readID || strings.Join(body.Scopes, ",") != "read" {
		t.Fatalf("db principal = %+v, want source db id %s scopes [read]", body, readID)
	}

	dev := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	rec = dev.do("GET", "/api/v1/probe/admin", "")
	dev.expectStatus(rec, 200)
	dev.decode(rec, &body)
	if body.Source != "dev" || strings.Join(body.Scopes, ",") != "read,write,admin" {
		t.Fatalf("dev principal = %+v, want source dev with all scopes", body)
	}
}

// TestDevModeEndsWithFirstKey: issuing a key ends dev mode for callers
// without one, and revoking every key brings it back (SPEC.md 3).
func TestDevModeEndsWithFirstKey(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	e.expectStatus(e.do("GET", "/api/v1/probe/read", ""), 200)
	id, key := e.issueKey("read")
	e.expectStatus(e.do("GET", "/api/v1/probe/read", ""), 401)
	e.expectStatus(e.do("GET", "/api/v1/probe/read", "", "X-API-Key", key), 200)
	if err := e.store.RevokeAPIKey(t.Context(), id, false); err != nil {
		t.Fatal(err)
	}
	e.expectStatus(e.do("GET", "/api/v1/probe/read", "", "X-API-Key", key), 401)
	e.expectStatus(e.do("GET", "/api/v1/probe/read", ""), 200)
}

func TestRevokedKeyFailsOnTheVeryNextRequest(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	_, admin := e.issueKey("admin")
	victimID, victim := e.issueKey("read")
	e.expectStatus(e.do("GET", "/api/v1/probe/read", "", "X-API-Key", victim), 200)
	e.expectStatus(e.do("DELETE", "/api/v1/keys/"+victimID, "", "X-API-Key", admin), 204)
	rec := e.do("GET", "/api/v1/probe/read", "", "X-API-Key", victim)
	e.expectStatus(rec, 401)
	if d := e.detail(rec); strings.Contains(d, victim) {
		t.Fatalf("401 detail echoes the key: %q", d)
	}
}

func TestLastUsedAtUpdatedOnSuccess(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	id, key := e.issueKey("read")
	e.clock.Advance(90 * time.Second)
	e.expectStatus(e.do("GET", "/api/v1/probe/read", "", "X-API-Key", key), 200)
	k, err := e.store.APIKeyByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if k.LastUsedAt == nil || !k.LastUsedAt.Equal(e.clock.Now()) {
		t.Fatalf("last_used_at = %v, want %v", k.LastUsedAt, e.clock.Now())
	}
	// A 403 is still a successful authentication.
	e.clock.Advance(time.Minute)
	e.expectStatus(e.do("GET", "/api/v1/probe/admin", "", "X-API-Key", key), 403)
	k, _ = e.store.APIKeyByID(t.Context(), id)
	if !k.LastUsedAt.Equal(e.clock.Now()) {
		t.Fatalf("last_used_at = %v after an authenticated 403, want %v", k.LastUsedAt, e.clock.Now())
	}
}

func TestPublicRoutesNeedNoKey(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{EnvKey: apiTestEnvKey, AuthRequired: true})
	for _, path := range []string{"/", "/health", "/ready", "/openapi.json", "/docs", "/redoc"} {
		rec := e.do("GET", path, "")
		e.expectStatus(rec, 200)
		// Even a bad key does not break a public route.
		rec = e.do("GET", path, "", "X-API-Key", "garbage")
		e.expectStatus(rec, 200)
	}
}

// TestEventTokenRoute covers SPEC.md Authentication 7 on the wire: the
// token is accepted only on an event-token route, for its scan, within 5
// minutes, while its minting key is live.
func TestEventTokenRoute(t *testing.T) {
	const scan = "3b0c4a9e-0d7e-4f39-9a53-8f1f64a2d6f0"
	e := newAPIEnv(t, apiEnvOptions{AuthRequired: true, EnvKey: apiTestEnvKey, TestRoutes: probeRoutes()})
	readID, _ := e.issueKey("read")
	writeOnlyID, _ := e.issueKey("write")
	revokedID, _ := e.issueKey("read")
	now := e.clock.Now()
	good, _ := auth.MintEventToken(e.secret, scan, readID, now)
	revokedTok, _ := auth.MintEventToken(e.secret, scan, revokedID, now)
	devTok, _ := auth.MintEventToken(e.secret, scan, auth.DevKeyID, now)
	envTok, _ := auth.MintEventToken(e.secret, scan, auth.SourceEnv, now)
	otherSecret, _ := auth.MintEventToken([]byte("not-the-secret"), scan, readID, now)
	writeOnly, _ := auth.MintEventToken(e.secret, scan, writeOnlyID, now)
	if err := e.store.RevokeAPIKey(t.Context(), revokedID, false); err != nil {
		t.Fatal(err)
	}
	events := "/api/v1/probe/scans/" + scan + "/events?event_token="
	cases := []struct {
		name   string
		target string
		later  time.Duration
		want   int
	}{
		{"valid", events + good, 0, 200},
		{"valid on the legacy prefix", "/api/probe/scans/" + scan + "/events?event_token=" + good, 0, 200},
		{"valid near expiry", events + good, 5*time.Minute - time.Second, 200},
		{"expired", events + good, 5 * time.Minute, 401},
		{"other scan", "/api/v1/probe/scans/other-scan/events?event_token=" + good, 0, 401},
		{"revoked minting key", events + revokedTok, 0, 401},
		{"dev token once credentials exist", events + devTok, 0, 401},
		{"env token with env key", events + envTok, 0, 200},
		{"other secret", events + otherSecret, 0, 401},
		{"garbage", events + "v1.a.b.c.d", 0, 401},
		// The token carries its key's scopes, not more.
		// The token carries its key's scopes: write includes read.
		{"write key (includes read)", events + writeOnly, 0, 200},
		// On any other route the token is ignored: no key means 401.
		{"ignored elsewhere", "/api/v1/probe/read?event_token=" + good, 0, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.with(t)
			e.clock.Set(now.Add(c.later))
			rec := e.do("GET", c.target, "")
			e.expectStatus(rec, c.want)
		})
	}
}

func TestDevEventTokenValidOnlyInDevMode(t *testing.T) {
	const scan = "scan-dev"
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	tok, _ := auth.MintEventToken(e.secret, scan, auth.DevKeyID, e.clock.Now())
	target := "/api/v1/probe/scans/" + scan + "/events?event_token=" + tok
	e.expectStatus(e.do("GET", target, ""), 200)
	e.issueKey("admin")
	e.expectStatus(e.do("GET", target, ""), 401)
}

// TestEventTokenAlongsideKeys: on the event route a presented token is
// judged on its own (an invalid token is a 401 even beside a valid key);
// on every other route the token is ignored and the key decides.
func TestEventTokenAlongsideKeys(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	_, key := e.issueKey("read")
	e.expectStatus(e.do("GET", "/api/v1/probe/read?event_token=garbage", "", "X-API-Key", key), http.StatusOK)
	e.expectStatus(e.do("GET", "/api/v1/probe/scans/s/events?event_token=garbage", "", "X-API-Key", key), http.StatusUnauthorized)
	e.expectStatus(e.do("GET", "/api/v1/probe/scans/s/events", "", "X-API-Key", key), http.StatusOK)
}
