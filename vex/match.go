package vex

import (
	"strings"

	"scand/finding"
)

// ProductKey is one product of a statement as findings are matched on
// it: the package key and the normalized version ("" = any version).
type ProductKey struct{ Key, Version string }

// ProductKeys are the purl products of st; products that are no package
// URL (a CPE, a URL) match nothing and are left out.
func ProductKeys(st Statement) []ProductKey {
	var out []ProductKey
	seen := map[ProductKey]bool{}
	for _, p := range st.Products {
		u, err := ParsePURL(p)
		if err != nil {
			continue
		}
		k := ProductKey{u.Key(), NormalizeVersion(u.Version)}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// MatchesProduct reports whether a finding with package key and version
// is the product k: the same package, and the same version when k names
// one.
func (k ProductKey) MatchesProduct(key, version string) bool {
	return k.Key == key && (k.Version == "" || k.Version == version)
}

// MatchesIDs reports whether any of a finding's advisory ids (rule id
// and aliases) is the statement's vulnerability or one of its aliases,
// without case.
func MatchesIDs(st Statement, ids []string) bool {
	for _, a := range st.IDs() {
		for _, b := range ids {
			if a != "" && strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) {
				return true
			}
		}
	}
	return false
}

// Index holds statements for matching findings, later statements
// winning over earlier ones about the same finding (a newer document
// revises an older one).
type Index struct {
	byKey map[string][]indexEntry
	n     int
}

type indexEntry struct {
	product ProductKey
	order   int
	st      *Statement
}

// NewIndex indexes stmts in order.
func NewIndex(stmts []Statement) *Index {
	x := &Index{byKey: map[string][]indexEntry{}}
	for i := range stmts {
		x.Add(&stmts[i])
	}
	return x
}

// Add indexes one more statement, later than those before it.
func (x *Index) Add(st *Statement) {
	x.n++
	for _, k := range ProductKeys(*st) {
		x.byKey[k.Key] = append(x.byKey[k.Key], indexEntry{k, x.n, st})
	}
}

// Len is the number of statements added.
func (x *Index) Len() int { return x.n }

// Match returns the latest statement about f (any status) and its
// position (1-based, in the order added); ok is false when none is.
func (x *Index) Match(f finding.Finding) (Statement, int, bool) {
	if x == nil || x.n == 0 {
		return Statement{}, 0, false
	}
	key, version, ok := FindingKey(f)
	if !ok {
		return Statement{}, 0, false
	}
	a, ok := finding.AdvisoryOf(f)
	if !ok {
		return Statement{}, 0, false
	}
	var best *indexEntry
	for i, e := range x.byKey[key] {
		if e.product.MatchesProduct(key, version) && MatchesIDs(*e.st, a.IDs) && (best == nil || e.order > best.order) {
			best = &x.byKey[key][i]
		}
	}
	if best == nil {
		return Statement{}, 0, false
	}
	return *best.st, best.order, true
}

// VerdictNote is the note a not_affected statement leaves on the verdict
// it sets: its impact statement, else its justification.
func VerdictNote(st Statement) string {
	parts := []string{}
	if st.Justification != "" {
		parts = append(parts, st.Justification)
	}
	if s := strings.TrimSpace(st.ImpactStatement); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, ": ")
}
