package api

import (
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

var (
	apiKeyFormat  = regexp.MustCompile(`^ssk_([A-Za-z0-9_-]{10})_[A-Za-z0-9_-]{32}$`)
	apiHashFormat = regexp.MustCompile(`^[0-9a-f]{32,}\$[0-9a-f]{64}$`)
)

type keyCreatedBody struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	Key        string     `json:"key"`
}

func jsonFieldNames(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s", raw)
	}
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

var apiKeyViewFields = []string{"created_at", "id", "last_used_at", "name", "prefix", "revoked_at", "scopes"}

func TestCreateKeyResponse(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	rec := e.do("POST", "/api/v1/keys", `{"name":"ci runner"}`)
	e.expectStatus(rec, 201)
	if got := jsonFieldNames(t, rec.Body.Bytes()); !slices.Equal(got, []string{"created_at", "id", "key", "last_used_at", "name", "prefix", "revoked_at", "scopes"}) {
		t.Fatalf("ApiKeyCreated fields = %v", got)
	}
	var k keyCreatedBody
	e.decode(rec, &k)
	m := apiKeyFormat.FindStringSubmatch(k.Key)
	if m == nil {
		t.Fatalf("key %q is not ssk_<10>_<32> base64url", k.Key)
	}
	if k.ID != m[1] || k.Prefix != "ssk_"+k.ID || !strings.HasPrefix(k.Key, k.Prefix) {
		t.Fatalf("id %q, prefix %q, key %q disagree", k.ID, k.Prefix, k.Key)
	}
	if k.Name != "ci runner" || !slices.Equal(k.Scopes, []string{"read", "write"}) {
		t.Fatalf("name %q scopes %v, want default scopes [read write]", k.Name, k.Scopes)
	}
	if !k.CreatedAt.Equal(e.clock.Now()) || k.LastUsedAt != nil || k.RevokedAt != nil {
		t.Fatalf("created_at %v last_used_at %v revoked_at %v", k.CreatedAt, k.LastUsedAt, k.RevokedAt)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store on the one response with a secret", cc)
	}
	// The key works at once, with exactly its scopes.
	e.expectStatus(e.do("GET", "/api/v1/keys/me", "", "X-API-Key", k.Key), 200)
	e.expectStatus(e.do("GET", "/api/v1/keys", "", "X-API-Key", k.Key), 403)
}

// TestPlaintextKeyOnlyInCreationResponse: after creation no response, log
// line or stored column carries the secret.
func TestPlaintextKeyOnlyInCreationResponse(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	var admin keyCreatedBody
	rec := e.do("POST", "/api/v1/keys", `{"name":"admin","scopes":["admin","read"]}`)
	e.expectStatus(rec, 201)
	e.decode(rec, &admin)
	var other keyCreatedBody
	rec = e.do("POST", "/api/v1/keys", `{"name":"other"}`, "X-API-Key", admin.Key)
	e.expectStatus(rec, 201)
	e.decode(rec, &other)

	secrets := []string{admin.Key, other.Key, admin.Key[len(admin.Key)-32:], other.Key[len(other.Key)-32:]}
	for _, target := range []string{"/api/v1/keys", "/api/v1/keys/me", "/api/keys", "/api/keys/me"} {
		rec := e.do("GET", target, "", "X-API-Key", admin.Key)
		e.expectStatus(rec, 200)
		for _, s := range secrets {
			if strings.Contains(rec.Body.String(), s) {
				t.Fatalf("GET %s leaks a key secret: %s", target, rec.Body.String())
			}
		}
		if strings.Contains(rec.Body.String(), `"key"`) || strings.Contains(rec.Body.String(), `"hash"`) {
			t.Fatalf("GET %s has a key or hash field: %s", target, rec.Body.String())
		}
	}
	var list []map[string]any
	e.decode(e.do("GET", "/api/v1/keys", "", "X-API-Key", admin.Key), &list)
	if len(list) != 2 {
		t.Fatalf("list has %d keys, want 2", len(list))
	}
	for _, item := range list {
		raw, _ := json.Marshal(item)
		if got := jsonFieldNames(t, raw); !slices.Equal(got, apiKeyViewFields) {
			t.Fatalf("ApiKeyView fields = %v, want %v", got, apiKeyViewFields)
		}
	}
	for _, id := range []string{admin.ID, other.ID} {
		row, err := e.store.APIKeyByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !apiHashFormat.MatchString(row.Hash) {
			t.Fatalf("stored hash %q is not <salt-hex>$<sha256-hex>", row.Hash)
		}
		for _, s := range secrets {
			if strings.Contains(row.Hash, s) || strings.Contains(row.Name, s) || strings.Contains(row.Prefix, s) {
				t.Fatalf("stored row %s carries a secret", id)
			}
		}
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "api key issued") {
		t.Fatal("issuing a key was not logged")
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Fatal("a key secret reached the log")
		}
	}
}

func TestCreateKeyScopes(t *testing.T) {
	cases := []struct {
		body string
		want []string
	}{
		{`{"name":"n"}`, []string{"read", "write"}},
		{`{"name":"n","scopes":null}`, []string{"read", "write"}},
		{`{"name":"n","scopes":["read"]}`, []string{"read"}},
		{`{"name":"n","scopes":["admin"]}`, []string{"admin"}},
		{`{"name":"n","scopes":["write","read","write"]}`, []string{"write", "read"}},
		{`{"name":"n","scopes":["read","write","admin"]}`, []string{"read", "write", "admin"}},
		{`{"name":"n","extra_field":1}`, []string{"read", "write"}},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			e := newAPIEnv(t, apiEnvOptions{})
			rec := e.do("POST", "/api/v1/keys", c.body)
			e.expectStatus(rec, 201)
			var k keyCreatedBody
			e.decode(rec, &k)
			if !slices.Equal(k.Scopes, c.want) {
				t.Fatalf("scopes %v, want %v", k.Scopes, c.want)
			}
			row, _ := e.store.APIKeyByID(t.Context(), k.ID)
			if !slices.Equal(row.Scopes, c.want) {
				t.Fatalf("stored scopes %v, want %v", row.Scopes, c.want)
			}
		})
	}
}

func TestCreateKeyValidation(t *testing.T) {
	cases := []struct {
		name, body string
		loc        []any
		typ        string
	}{
		{"invalid scope", `{"name":"n","scopes":["read","root"]}`, []any{"body", "scopes", json.Number("1")}, "enum"},
		{"scope wrong case", `{"name":"n","scopes":["Admin"]}`, []any{"body", "scopes", json.Number("0")}, "enum"},
		{"empty scopes", `{"name":"n","scopes":[]}`, []any{"body", "scopes"}, "too_short"},
		{"missing name", `{"scopes":["read"]}`, []any{"body", "name"}, "string_length"},
		{"blank name", `{"name":"   "}`, []any{"body", "name"}, "string_length"},
		{"long name", `{"name":"` + strings.Repeat("x", 201) + `"}`, []any{"body", "name"}, "string_length"},
		{"name not a string", `{"name":5}`, []any{"body", "name"}, "string_type"},
		{"scopes not an array", `{"name":"n","scopes":"admin"}`, []any{"body", "scopes"}, "list_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newAPIEnv(t, apiEnvOptions{})
			rec := e.do("POST", "/api/v1/keys", c.body)
			e.expectStatus(rec, 422)
			errs := e.validationErrors(rec)
			found := false
			for _, v := range errs {
				if slices.Equal(v.Loc, c.loc) {
					found = true
					if v.Type != c.typ {
						t.Errorf("type %q at %v, want %q", v.Type, v.Loc, c.typ)
					}
				}
			}
			if !found {
				t.Fatalf("no error at loc %v in %s", c.loc, rec.Body.String())
			}
			if keys, _ := e.store.APIKeys(t.Context()); len(keys) != 0 {
				t.Fatalf("a rejected request stored %d keys", len(keys))
			}
		})
	}
}

func TestKeyManagementNeedsAdmin(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	_, rw := e.issueKey("read", "write")
	victimID, _ := e.issueKey("read")
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/v1/keys", `{"name":"x","scopes":["admin"]}`},
		{"GET", "/api/v1/keys", ""},
		{"DELETE", "/api/v1/keys/" + victimID, ""},
	} {
		e.expectStatus(e.do(c.method, c.path, c.body, "X-API-Key", rw), 403)
		e.expectStatus(e.do(c.method, c.path, c.body), 401)
	}
	if k, _ := e.store.APIKeyByID(t.Context(), victimID); k.RevokedAt != nil {
		t.Fatal("a forbidden revoke took effect")
	}
}

func TestRevokeKey(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	_, admin := e.issueKey("admin")
	id, key := e.issueKey("read")
	rec := e.do("DELETE", "/api/v1/keys/"+id, "", "X-API-Key", admin)
	e.expectStatus(rec, 204)
	if rec.Body.Len() != 0 {
		t.Fatalf("204 with a body: %q", rec.Body.String())
	}
	revokedAt := e.clock.Now()
	e.clock.Advance(time.Hour)
	// A second revocation is a 204 with no change.
	e.expectStatus(e.do("DELETE", "/api/v1/keys/"+id, "", "X-API-Key", admin), 204)
	e.expectStatus(e.do("DELETE", "/api/keys/"+id, "", "X-API-Key", admin), 204)
	var list []keyCreatedBody
	e.decode(e.do("GET", "/api/v1/keys", "", "X-API-Key", admin), &list)
	var found bool
	for _, k := range list {
		if k.ID == id {
			found = true
			if k.RevokedAt == nil || !k.RevokedAt.Equal(revokedAt) {
				t.Fatalf("revoked_at = %v, want the first revocation %v", k.RevokedAt, revokedAt)
			}
		}
	}
	if !found {
		t.Fatal("revoked key is no longer listed: revoked keys are kept")
	}
	e.expectStatus(e.do("GET", "/api/v1/keys/me", "", "X-API-Key", key), 401)
	rec = e.do("DELETE", "/api/v1/keys/NoSuchKey0", "", "X-API-Key", admin)
	e.expectStatus(rec, 404)
	e.detail(rec)
}

// TestRevokeLockout: SPEC.md Errors 4. The last active admin DB key may
// not be revoked when auth is required and there is no env key to fall
// back on; in every other configuration it may.
func TestRevokeLockout(t *testing.T) {
	cases := []struct {
		name         string
		authRequired bool
		envKey       string
		otherAdmin   bool
		want         int
	}{
		{"required, no env key, last admin", true, "", false, 409},
		{"required, no env key, another admin", true, "", true, 204},
		{"required, env key set", true, apiTestEnvKey, false, 204},
		{"not required", false, "", false, 204},
		{"not required, env key set", false, apiTestEnvKey, false, 204},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newAPIEnv(t, apiEnvOptions{AuthRequired: c.authRequired, EnvKey: c.envKey})
			adminID, admin := e.issueKey("read", "admin")
			_, rw := e.issueKey("read", "write")
			if c.otherAdmin {
				e.issueKey("admin")
			}
			rec := e.do("DELETE", "/api/v1/keys/"+adminID, "", "X-API-Key", admin)
			e.expectStatus(rec, c.want)
			k, _ := e.store.APIKeyByID(t.Context(), adminID)
			if c.want == 409 {
				if d := e.detail(rec); d != "Cannot revoke last admin key without an env-var fallback" {
					t.Fatalf("detail %q", d)
				}
				if k.RevokedAt != nil {
					t.Fatal("409 but the key was revoked")
				}
				// Keys without admin can still be revoked under the guard.
				rwID := strings.TrimPrefix(rw[:len("ssk_")+10], "ssk_")
				e.expectStatus(e.do("DELETE", "/api/v1/keys/"+rwID, "", "X-API-Key", admin), 204)
				return
			}
			if k.RevokedAt == nil {
				t.Fatal("204 but the key is still active")
			}
		})
	}
}

func TestKeysMe(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{EnvKey: apiTestEnvKey})
	id, writeOnly := e.issueKey("write")
	e.clock.Advance(time.Minute)
	rec := e.do("GET", "/api/v1/keys/me", "", "Authorization", "Bearer "+writeOnly)
	e.expectStatus(rec, 200)
	if got := jsonFieldNames(t, rec.Body.Bytes()); !slices.Equal(got, apiKeyViewFields) {
		t.Fatalf("fields %v", got)
	}
	var me keyCreatedBody
	e.decode(rec, &me)
	if me.ID != id || !slices.Equal(me.Scopes, []string{"write"}) || me.Prefix != "ssk_"+id {
		t.Fatalf("me = %+v, want key %s", me, id)
	}
	// The view reflects the authentication that served it.
	if me.LastUsedAt == nil || !me.LastUsedAt.Equal(e.clock.Now()) {
		t.Fatalf("last_used_at = %v, want %v", me.LastUsedAt, e.clock.Now())
	}
	// The env key is not a DB-issued key.
	rec = e.do("GET", "/api/v1/keys/me", "", "X-API-Key", apiTestEnvKey)
	e.expectStatus(rec, 404)
	e.detail(rec)

	dev := newAPIEnv(t, apiEnvOptions{})
	rec = dev.do("GET", "/api/v1/keys/me", "")
	dev.expectStatus(rec, 404)
	dev.detail(rec)
}

// TestKeyLifecycleAsInREADME follows the README's curl walk-through: a
// dev-mode admin key, then list, me and revoke with it.
func TestKeyLifecycleAsInREADME(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	var admin keyCreatedBody
	rec := e.do("POST", "/api/v1/keys", `{"name":"admin","scopes":["read","write","admin"]}`)
	e.expectStatus(rec, 201)
	e.decode(rec, &admin)
	// Dev mode is over: no key, no entry.
	e.expectStatus(e.do("GET", "/api/v1/keys", ""), 401)
	e.clock.Advance(time.Second) // the list is oldest first
	var ci keyCreatedBody
	rec = e.do("POST", "/api/v1/keys", `{"name":"ci"}`, "X-API-Key", admin.Key)
	e.expectStatus(rec, 201)
	e.decode(rec, &ci)
	var list []keyCreatedBody
	e.decode(e.do("GET", "/api/v1/keys", "", "X-API-Key", admin.Key), &list)
	if len(list) != 2 || list[0].ID != admin.ID || list[1].ID != ci.ID {
		t.Fatalf("list = %+v", list)
	}
	e.expectStatus(e.do("GET", "/api/v1/keys/me", "", "Authorization", "Bearer "+ci.Key), 200)
	e.expectStatus(e.do("DELETE", "/api/v1/keys/"+ci.ID, "", "X-API-Key", admin.Key), 204)
	e.expectStatus(e.do("GET", "/api/v1/keys/me", "", "Authorization", "Bearer "+ci.Key), 401)
}
