package api

import (
	"context"
	"errors"
	"net/http"
	"scand/api/review"
	"scand/store/audit"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/auth"
	"scand/store"
)

// APIKeyView is a key as clients may see it: never the secret or hash.
type APIKeyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// APIKeyCreated is returned once, at creation: the only time the
// plaintext key leaves the server.
type APIKeyCreated struct {
	APIKeyView
	Key string `json:"key"`
}

// CreateKeyRequest is the body of POST /keys.
type CreateKeyRequest struct {
	Name   string    `json:"name"`
	Scopes *[]string `json:"scopes,omitempty"`
}

// defaultKeyScopes never include admin (SPEC.md).
var defaultKeyScopes = []string{"read", "write"}

func (s *Server) keyRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/keys", Scope: auth.ScopeAdmin, Tag: "keys", Summary: "Issue an API key (the plaintext key is returned only here)", Request: CreateKeyRequest{}, Response: APIKeyCreated{}, Status: http.StatusCreated, Errors: []int{422}, Handler: s.handleCreateKey},
		{Method: "GET", Path: "/keys", Scope: auth.ScopeAdmin, Tag: "keys", Summary: "List API keys (no secrets)", Response: []APIKeyView{}, Handler: s.handleListKeys},
		{Method: "GET", Path: "/keys/me", Scope: auth.ScopeAny, Tag: "keys", Summary: "The DB-issued key making this request", Response: APIKeyView{}, Errors: []int{404}, Handler: s.handleKeyMe},
		{Method: "DELETE", Path: "/keys/{id}", Scope: auth.ScopeAdmin, Tag: "keys", Summary: "Revoke an API key (idempotent)", Status: http.StatusNoContent, Params: []Param{{Name: "id", In: "path", Type: "string", Required: true}}, Errors: []int{404, 409}, Handler: s.handleRevokeKey},
	}
}

func keyView(k store.APIKey) APIKeyView {
	return APIKeyView{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: k.Scopes, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
}

func (s *Server) handleCreateKey(w http.ResponseWriter, r *http.Request) error {
	var req CreateKeyRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	k, plaintext, err := s.createKey(r.Context(), PrincipalFrom(r.Context()), req)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpio.WriteJSON(w, http.StatusCreated, APIKeyCreated{APIKeyView: keyView(k), Key: plaintext})
	return nil
}

// createKey validates a key request and issues the key; the plaintext it
// returns is never stored. API and console share it.
func (s *Server) createKey(ctx context.Context, p auth.Principal, req CreateKeyRequest) (store.APIKey, string, error) {
	var v httpio.Validation
	name := strings.TrimSpace(req.Name)
	if name == "" || len(name) > 200 {
		v.Add("string_length", "name must be 1 to 200 characters", req.Name, "body", "name")
	}
	scopes := defaultKeyScopes
	if req.Scopes != nil {
		scopes = nil
		seen := map[string]bool{}
		for i, sc := range *req.Scopes {
			if !auth.ValidScope(sc) {
				v.Add("enum", "Input should be 'read', 'write' or 'admin'", sc, "body", "scopes", i)
				continue
			}
			if !seen[sc] {
				seen[sc] = true
				scopes = append(scopes, sc)
			}
		}
		if len(*req.Scopes) == 0 {
			v.Add("too_short", "scopes must not be empty", *req.Scopes, "body", "scopes")
		}
	}
	if err := v.Err(); err != nil {
		return store.APIKey{}, "", err
	}
	id, plaintext := auth.NewKey()
	k, err := s.Store.CreateAPIKey(ctx, store.APIKey{ID: id, Name: name, Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(plaintext), Scopes: scopes})
	if err != nil {
		return store.APIKey{}, "", err
	}
	s.log.InfoContext(ctx, "api key issued", "key_id", k.ID, "scopes", scopes, "by", p.ID)
	s.audit(ctx, p, "key.issue", "key", k.ID, review.Diff(nil, keyView(k)))
	return k, plaintext, nil
}

func (s *Server) handleListKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.Store.APIKeys(r.Context())
	if err != nil {
		return err
	}
	out := make([]APIKeyView, 0, len(keys))
	for _, k := range keys {
		out = append(out, keyView(k))
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleKeyMe(w http.ResponseWriter, r *http.Request) error {
	p := PrincipalFrom(r.Context())
	if p.Source != auth.SourceDB {
		return httpio.NotFound("The caller is not a DB-issued API key (source: " + p.Source + ")")
	}
	k, err := s.Store.APIKeyByID(r.Context(), p.ID)
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("API key not found")
	}
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, keyView(k))
	return nil
}

// lockoutDetail is SPEC.md's exact text.
const lockoutDetail = "Cannot revoke last admin key without an env-var fallback"

func (s *Server) handleRevokeKey(w http.ResponseWriter, r *http.Request) error {
	if err := s.revokeKey(r.Context(), PrincipalFrom(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// revokeKey revokes a key under lockout protection (API and console).
func (s *Server) revokeKey(ctx context.Context, p auth.Principal, id string) error {
	guard := s.Auth.AuthRequired && s.Auth.EnvKey == ""
	err := s.Store.RevokeAPIKey(ctx, id, guard)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return httpio.NotFound("API key not found")
	case errors.Is(err, store.ErrConflict):
		return httpio.Conflict(lockoutDetail)
	case err != nil:
		return err
	}
	s.log.InfoContext(ctx, "api key revoked", "key_id", id, "by", p.ID)
	s.audit(ctx, p, "key.revoke", "key", id, audit.Changes{"revoked": {Before: false, After: true}})
	return nil
}
