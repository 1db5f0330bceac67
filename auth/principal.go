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
	// Name is a DB key's name, which audit records and verdict histories
	// show beside the id: people know keys by name.
	Name string
}

// Has reports whether p may use a route that requires s. Scopes are
// levels, as SPEC.md words them ("write adds ...", "admin adds ..."): write
// includes read and admin includes both, so an admin key is never locked
// out of reading what it manages.
func (p Principal) Has(s Scope) bool {
	if s == ScopeAny {
		return true
	}
	need := scopeLevel(s)
	for _, held := range p.Scopes {
		if need > 0 && scopeLevel(held) >= need {
			return true
		}
	}
	return false
}

func scopeLevel(s Scope) int {
	return slices.Index(AllScopes, s) + 1
}
