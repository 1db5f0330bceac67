// Package auth decides who a caller is and what they may do: API keys
// (format, hash, verification), principals and scopes, event tokens for
// the SSE route, and the start-scan rate limiter.
package auth

import "slices"

// Scope is one of the three SPEC.md scopes.
type Scope string

const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
	ScopeAdmin Scope = "admin"
	// ScopeAny is declared by routes open to every authenticated caller
	// whatever its scopes (GET /keys/me: "any DB-issued key").
	ScopeAny Scope = "any"
)

// AllScopes lists the scopes in privilege order.
var AllScopes = []Scope{ScopeRead, ScopeWrite, ScopeAdmin}

// ValidScope reports whether s names a scope.
func ValidScope(s string) bool {
	return slices.Contains(AllScopes, Scope(s))
}

// Principal sources.
const (
	SourceEnv = "env"
	SourceDB  = "db"
	SourceDev = "dev"
)

// DevKeyID is the key id dev-mode principals and their event tokens carry.
const DevKeyID = "dev"

// Principal is the identity of a caller.
type Principal struct {
	ID     string
	Scopes []Scope
	Source string
}

// Has reports whether p holds scope s. Scopes do not imply each other:
// SPEC.md lists them cumulatively, so issued keys carry each one they get,
// while env and dev principals carry all three.
func (p Principal) Has(s Scope) bool {
	return s == ScopeAny || slices.Contains(p.Scopes, s)
}
