package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"scand/store"
)

// ErrUnauthorized means the presented credential is missing (when one is
// required), malformed, unknown or revoked.
var ErrUnauthorized = errors.New("unauthorized")

// Authenticator resolves the credentials of a request into a Principal.
// Its settings are fixed at startup: SPEC.md says a changed SVC_API_KEY
// only takes effect after a restart.
type Authenticator struct {
	Store        *store.Store
	EnvKey       string
	AuthRequired bool
}

// KeyFromRequest returns the key presented in X-API-Key or in
// "Authorization: Bearer", and whether one was presented at all.
func KeyFromRequest(r *http.Request) (string, bool) {
	if k := r.Header.Get("X-API-Key"); k != "" {
		return k, true
	}
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(rest), true
		}
		// An Authorization header in another scheme is still an explicit,
		// unusable credential: reject it rather than fall into dev mode.
		return h, true
	}
	return "", false
}

// Authenticate applies SPEC.md's rules: an explicit key must match the env
// key or an unrevoked DB key (401 otherwise, even in dev mode); no key is
// a 401 when auth is required, and a dev principal while nothing is
// configured.
func (a *Authenticator) Authenticate(ctx context.Context, key string, presented bool) (Principal, error) {
	if presented {
		return a.authenticateKey(ctx, key)
	}
	dev, err := a.DevMode(ctx)
	if err != nil {
		return Principal{}, err
	}
	if !dev {
		return Principal{}, ErrUnauthorized
	}
	return Principal{ID: DevKeyID, Scopes: AllScopes, Source: SourceDev}, nil
}

func (a *Authenticator) authenticateKey(ctx context.Context, key string) (Principal, error) {
	if a.EnvKey != "" && subtle.ConstantTimeCompare([]byte(key), []byte(a.EnvKey)) == 1 {
		return Principal{ID: SourceEnv, Scopes: AllScopes, Source: SourceEnv}, nil
	}
	id, ok := ParseKey(key)
	if !ok {
		return Principal{}, ErrUnauthorized
	}
	row, err := a.Store.APIKeyByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, ErrUnauthorized
	}
	if err != nil {
		return Principal{}, err
	}
	if row.RevokedAt != nil || !VerifyKey(row.Hash, key) {
		return Principal{}, ErrUnauthorized
	}
	if err := a.Store.TouchAPIKey(ctx, id); err != nil {
		return Principal{}, err
	}
	return principalOf(row), nil
}

// PrincipalByKeyID re-reads the principal behind an event token's key id
// at connect time, so a key revoked after minting is refused.
func (a *Authenticator) PrincipalByKeyID(ctx context.Context, keyID string) (Principal, error) {
	switch keyID {
	case SourceEnv:
		if a.EnvKey == "" {
			return Principal{}, ErrUnauthorized
		}
		return Principal{ID: SourceEnv, Scopes: AllScopes, Source: SourceEnv}, nil
	case DevKeyID:
		dev, err := a.DevMode(ctx)
		if err != nil {
			return Principal{}, err
		}
		if !dev {
			return Principal{}, ErrUnauthorized
		}
		return Principal{ID: DevKeyID, Scopes: AllScopes, Source: SourceDev}, nil
	}
	row, err := a.Store.APIKeyByID(ctx, keyID)
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, ErrUnauthorized
	}
	if err != nil {
		return Principal{}, err
	}
	if row.RevokedAt != nil {
		return Principal{}, ErrUnauthorized
	}
	return principalOf(row), nil
}

// DevMode reports whether nothing is configured: no env key, no active DB
// key, and auth not required.
func (a *Authenticator) DevMode(ctx context.Context) (bool, error) {
	if a.AuthRequired || a.EnvKey != "" {
		return false, nil
	}
	has, err := a.Store.HasActiveAPIKeys(ctx)
	return !has, err
}

func principalOf(k store.APIKey) Principal {
	p := Principal{ID: k.ID, Source: SourceDB, Name: k.Name}
	for _, s := range k.Scopes {
		p.Scopes = append(p.Scopes, Scope(s))
	}
	return p
}
