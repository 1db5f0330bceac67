package auth

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"scand/store"
)

// authClock is a settable clock for the store, so last_used_at is exact.
type authClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *authClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *authClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func openAuthStore(t *testing.T, clock *authClock) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "auth.db"), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// issue stores a DB key the way POST /keys does and returns its plaintext.
func issue(t *testing.T, st *store.Store, scopes ...string) (id, plaintext string) {
	t.Helper()
	id, plaintext = NewKey()
	if _, err := st.CreateAPIKey(context.Background(), store.APIKey{ID: id, Name: "k-" + id, Prefix: DisplayPrefix(id), Hash: HashKey(plaintext), Scopes: scopes}); err != nil {
		t.Fatal(err)
	}
	return id, plaintext
}

func revoke(t *testing.T, st *store.Store, id string) {
	t.Helper()
	if err := st.RevokeAPIKey(context.Background(), id, false); err != nil {
		t.Fatal(err)
	}
}

func TestKeyFromRequest(t *testing.T) {
	cases := []struct {
		name      string
		headers   map[string]string
		key       string
		presented bool
	}{
		{"none", nil, "", false},
		{"X-API-Key", map[string]string{"X-API-Key": "ssk_a"}, "ssk_a", true},
		{"Bearer", map[string]string{"Authorization": "Bearer ssk_b"}, "ssk_b", true},
		{"bearer in lower case", map[string]string{"Authorization": "bearer ssk_b"}, "ssk_b", true},
		{"Bearer with extra spaces", map[string]string{"Authorization": "Bearer   ssk_b  "}, "ssk_b", true},
		{"X-API-Key wins over Bearer", map[string]string{"X-API-Key": "ssk_a", "Authorization": "Bearer ssk_b"}, "ssk_a", true},
		// Another scheme is an explicit, unusable credential: it must not
		// be read as "no key" and fall through to dev mode.
		{"Basic", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, "Basic dXNlcjpwYXNz", true},
		{"scheme only", map[string]string{"Authorization": "Bearer"}, "Bearer", true},
		{"empty Bearer", map[string]string{"Authorization": "Bearer "}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/v1/keys", nil)
			for k, v := range c.headers {
				r.Header.Set(k, v)
			}
			key, presented := KeyFromRequest(r)
			if key != c.key || presented != c.presented {
				t.Fatalf("KeyFromRequest = %q, %v; want %q, %v", key, presented, c.key, c.presented)
			}
		})
	}
}

// TestAuthenticateRules walks SPEC.md Authentication 1-4 for every
// credential source and configuration.
func TestAuthenticateRules(t *testing.T) {
	const envKey = "env-key-with-enough-entropy-0123456789"
	type setup struct {
		envKey       string
		authRequired bool
		activeKeys   bool // issue read/write and admin DB keys
	}
	setups := map[string]setup{
		"dev":                {},
		"dev, auth required": {authRequired: true},
		"env key":            {envKey: envKey},
		"db keys":            {activeKeys: true},
		"db keys, required":  {activeKeys: true, authRequired: true},
		"env and db":         {envKey: envKey, activeKeys: true},
	}
	// want: "" = 401; otherwise the principal source.
	cases := []struct {
		cred string // which credential to present
		want map[string]string
	}{
		{"none", map[string]string{"dev": SourceDev, "dev, auth required": "", "env key": "", "db keys": "", "db keys, required": "", "env and db": ""}},
		{"env", map[string]string{"dev": "", "dev, auth required": "", "env key": SourceEnv, "db keys": "", "db keys, required": "", "env and db": SourceEnv}},
		{"env as bearer", map[string]string{"dev": "", "dev, auth required": "", "env key": SourceEnv, "db keys": "", "db keys, required": "", "env and db": SourceEnv}},
		{"env prefix", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": "", "db keys, required": "", "env and db": ""}},
		{"db", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": SourceDB, "db keys, required": SourceDB, "env and db": SourceDB}},
		{"db as bearer", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": SourceDB, "db keys, required": SourceDB, "env and db": SourceDB}},
		{"revoked", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": "", "db keys, required": "", "env and db": ""}},
		{"right id, wrong secret", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": "", "db keys, required": "", "env and db": ""}},
		{"unknown ssk", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": "", "db keys, required": "", "env and db": ""}},
		{"malformed", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": "", "db keys, required": "", "env and db": ""}},
		{"basic auth", map[string]string{"dev": "", "dev, auth required": "", "env key": "", "db keys": "", "db keys, required": "", "env and db": ""}},
	}
	for setupName, su := range setups {
		clock := &authClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		st := openAuthStore(t, clock)
		// Every setup has a revoked key, so "no DB keys remain" is tested
		// with a revoked row present, as SPEC.md's rule 4 demands.
		revokedID, revokedKey := issue(t, st, "read", "write", "admin")
		revoke(t, st, revokedID)
		var rwKey string
		_, probeKey := NewKey()
		wrongSecret := revokedKey[:len(revokedKey)-32] + probeKey[len(probeKey)-32:]
		if su.activeKeys {
			var rwID string
			rwID, rwKey = issue(t, st, "read", "write")
			issue(t, st, "admin")
			wrongSecret = "ssk_" + rwID + "_" + probeKey[len(probeKey)-32:]
		} else {
			_, rwKey = NewKey() // well-formed but never stored
		}
		a := &Authenticator{Store: st, EnvKey: su.envKey, AuthRequired: su.authRequired}
		headers := map[string]map[string]string{
			"none":                   {},
			"env":                    {"X-API-Key": envKey},
			"env as bearer":          {"Authorization": "Bearer " + envKey},
			"env prefix":             {"X-API-Key": envKey[:len(envKey)-1]},
			"db":                     {"X-API-Key": rwKey},
			"db as bearer":           {"Authorization": "Bearer " + rwKey},
			"revoked":                {"X-API-Key": revokedKey},
			"right id, wrong secret": {"X-API-Key": wrongSecret},
			"unknown ssk":            {"X-API-Key": probeKey},
			"malformed":              {"X-API-Key": "not-a-key"},
			"basic auth":             {"Authorization": "Basic dXNlcjpwYXNz"},
		}
		for _, c := range cases {
			want, ok := c.want[setupName]
			if !ok {
				t.Fatalf("case %q has no expectation for setup %q", c.cred, setupName)
			}
			t.Run(setupName+"/"+c.cred, func(t *testing.T) {
				r := httptest.NewRequest("GET", "/api/v1/scans", nil)
				for k, v := range headers[c.cred] {
					r.Header.Set(k, v)
				}
				key, presented := KeyFromRequest(r)
				p, err := a.Authenticate(context.Background(), key, presented)
				if want == "" {
					if err != ErrUnauthorized {
						t.Fatalf("Authenticate = %+v, %v; want ErrUnauthorized", p, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Authenticate: %v; want source %q", err, want)
				}
				if p.Source != want {
					t.Fatalf("source = %q, want %q", p.Source, want)
				}
				wantScopes := AllScopes
				if want == SourceDB {
					wantScopes = []Scope{ScopeRead, ScopeWrite}
				}
				if !slices.Equal(p.Scopes, wantScopes) {
					t.Fatalf("scopes = %v, want %v", p.Scopes, wantScopes)
				}
			})
		}
	}
}

func TestDBKeyCarriesItsOwnScopes(t *testing.T) {
	clock := &authClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st := openAuthStore(t, clock)
	a := &Authenticator{Store: st}
	for _, scopes := range [][]string{{"read"}, {"write"}, {"admin"}, {"read", "admin"}, {"read", "write", "admin"}} {
		id, key := issue(t, st, scopes...)
		p, err := a.Authenticate(context.Background(), key, true)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range p.Scopes {
			got = append(got, string(s))
		}
		if p.ID != id || p.Source != SourceDB || !slices.Equal(got, scopes) {
			t.Errorf("principal = %+v, want id %s source db scopes %v", p, id, scopes)
		}
	}
}

func TestRevokedKeyFailsOnNextRequest(t *testing.T) {
	clock := &authClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st := openAuthStore(t, clock)
	a := &Authenticator{Store: st}
	id, key := issue(t, st, "read")
	issue(t, st, "admin") // another active key keeps dev mode off
	ctx := context.Background()
	if _, err := a.Authenticate(ctx, key, true); err != nil {
		t.Fatalf("before revocation: %v", err)
	}
	revoke(t, st, id)
	if _, err := a.Authenticate(ctx, key, true); err != ErrUnauthorized {
		t.Fatalf("first request after revocation: %v, want ErrUnauthorized", err)
	}
}

func TestSuccessfulAuthenticationUpdatesLastUsed(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &authClock{t: t0}
	st := openAuthStore(t, clock)
	a := &Authenticator{Store: st}
	ctx := context.Background()
	id, key := issue(t, st, "read")
	if row, _ := st.APIKeyByID(ctx, id); row.LastUsedAt != nil {
		t.Fatalf("fresh key has last_used_at %v", row.LastUsedAt)
	}
	for _, at := range []time.Time{t0.Add(time.Minute), t0.Add(time.Hour)} {
		clock.Set(at)
		if _, err := a.Authenticate(ctx, key, true); err != nil {
			t.Fatal(err)
		}
		row, err := st.APIKeyByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if row.LastUsedAt == nil || !row.LastUsedAt.Equal(at) {
			t.Fatalf("last_used_at = %v, want %v", row.LastUsedAt, at)
		}
	}
	// A failed attempt with the right id must not count as a use.
	clock.Set(t0.Add(2 * time.Hour))
	_, probe := NewKey()
	if _, err := a.Authenticate(ctx, "ssk_"+id+"_"+probe[len(probe)-32:], true); err != ErrUnauthorized {
		t.Fatalf("wrong secret: %v", err)
	}
	if row, _ := st.APIKeyByID(ctx, id); !row.LastUsedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("failed attempt moved last_used_at to %v", row.LastUsedAt)
	}
}

func TestDevMode(t *testing.T) {
	ctx := context.Background()
	clock := &authClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st := openAuthStore(t, clock)
	check := func(a *Authenticator, want bool) {
		t.Helper()
		got, err := a.DevMode(ctx)
		if err != nil || got != want {
			t.Fatalf("DevMode = %v, %v; want %v", got, err, want)
		}
	}
	check(&Authenticator{Store: st}, true)
	check(&Authenticator{Store: st, AuthRequired: true}, false)
	check(&Authenticator{Store: st, EnvKey: "x"}, false)
	id, _ := issue(t, st, "read")
	check(&Authenticator{Store: st}, false)
	revoke(t, st, id)
	check(&Authenticator{Store: st}, true)
}

func TestPrincipalByKeyID(t *testing.T) {
	ctx := context.Background()
	clock := &authClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st := openAuthStore(t, clock)
	devAuth := &Authenticator{Store: st}
	// Dev mode: the dev sentinel is valid, env is not (no env key).
	if p, err := devAuth.PrincipalByKeyID(ctx, DevKeyID); err != nil || p.Source != SourceDev {
		t.Fatalf("dev sentinel in dev mode: %+v, %v", p, err)
	}
	if _, err := devAuth.PrincipalByKeyID(ctx, SourceEnv); err != ErrUnauthorized {
		t.Fatalf("env sentinel without SVC_API_KEY: %v", err)
	}

	activeID, _ := issue(t, st, "read")
	revokedID, _ := issue(t, st, "read", "write")
	revoke(t, st, revokedID)
	cases := []struct {
		name  string
		a     *Authenticator
		keyID string
		want  string // source, or "" for ErrUnauthorized
	}{
		// Once a credential exists, dev-minted tokens are dead.
		{"dev sentinel after a key was issued", &Authenticator{Store: st}, DevKeyID, ""},
		{"dev sentinel with env key", &Authenticator{Store: st, EnvKey: "e"}, DevKeyID, ""},
		{"dev sentinel with auth required", &Authenticator{Store: st, AuthRequired: true}, DevKeyID, ""},
		{"env sentinel with env key", &Authenticator{Store: st, EnvKey: "e"}, SourceEnv, SourceEnv},
		{"env sentinel without env key", &Authenticator{Store: st}, SourceEnv, ""},
		{"active db key", &Authenticator{Store: st}, activeID, SourceDB},
		{"revoked db key", &Authenticator{Store: st}, revokedID, ""},
		{"unknown key id", &Authenticator{Store: st}, "ZZZZZZZZZZ", ""},
		{"empty key id", &Authenticator{Store: st}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.a.PrincipalByKeyID(ctx, c.keyID)
			if c.want == "" {
				if err != ErrUnauthorized {
					t.Fatalf("PrincipalByKeyID(%q) = %+v, %v; want ErrUnauthorized", c.keyID, p, err)
				}
				return
			}
			if err != nil || p.Source != c.want {
				t.Fatalf("PrincipalByKeyID(%q) = %+v, %v; want source %q", c.keyID, p, err, c.want)
			}
		})
	}
}

// TestEventTokenOfRevokedKeyIsRefused is the connect-time flow of SPEC.md
// Authentication 7: signature and lifetime still valid, key revoked.
func TestEventTokenOfRevokedKeyIsRefused(t *testing.T) {
	ctx := context.Background()
	clock := &authClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st := openAuthStore(t, clock)
	a := &Authenticator{Store: st}
	secret := []byte("event-secret")
	id, _ := issue(t, st, "read")
	issue(t, st, "admin")
	tok, _ := MintEventToken(secret, "scan-1", id, clock.Now())
	connect := func() error {
		keyID, err := VerifyEventToken(secret, tok, "scan-1", clock.Now().Add(time.Minute))
		if err != nil {
			return err
		}
		_, err = a.PrincipalByKeyID(ctx, keyID)
		return err
	}
	if err := connect(); err != nil {
		t.Fatalf("before revocation: %v", err)
	}
	revoke(t, st, id)
	if err := connect(); err != ErrUnauthorized {
		t.Fatalf("after revocation: %v, want ErrUnauthorized", err)
	}
}
