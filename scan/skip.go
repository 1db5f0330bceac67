package scan

import (
	"context"
	"errors"
	"strings"
)

// Reasons a scanners_skipped entry gives.
const (
	// SkipNotInstalled: the tool itself is missing.
	SkipNotInstalled = "not installed"
	// SkipDatabaseNotConfigured: the tool is installed but the offline
	// data it reads is not there; the hint names the variable to set.
	SkipDatabaseNotConfigured = "database not configured"
)

// ErrDatabaseNotConfigured is returned (wrapped, with the hint) by a
// scanner whose offline database went missing after the availability
// probe; the orchestrator records a skip, not a crash.
var ErrDatabaseNotConfigured = errors.New(SkipDatabaseNotConfigured)

// SkipReasoner is implemented by scanners that can be unavailable for
// another reason than a missing tool. The orchestrator asks it when
// Available says no; scanners without it are "not installed".
type SkipReasoner interface {
	SkipReason(ctx context.Context) string
}

// SkipReasonOf is why s cannot run here, for a scanner whose Available
// said no.
func SkipReasonOf(ctx context.Context, s Scanner) string {
	if r, ok := s.(SkipReasoner); ok {
		if reason := r.SkipReason(ctx); reason != "" {
			return reason
		}
	}
	return SkipNotInstalled
}

// SkippedPart is a part of the target a scanner could not scan while it
// scanned the rest (osv-scanner without the PyPI database still checks the
// npm lockfiles).
type SkippedPart struct {
	Part   string // what was left out, e.g. an ecosystem: "PyPI"
	Reason string // SkipDatabaseNotConfigured, ...
	Hint   string // what to install or configure, and which files it concerns
	// Count is how many files the part holds (0: not counted), Paths the
	// first of them (finding.CoverageMaxPaths): a scan's coverage says how
	// much was left out and where.
	Count int
	Paths []string
}

// PartialSkip is the error a scanner returns beside its findings when it
// scanned only part of the target: the findings stand, and each part is
// recorded as skipped (scanners_skipped: "<scanner> (<part>)").
type PartialSkip struct {
	Parts []SkippedPart
	// NothingScanned: every part the scanner could read was left out
	// (osv-scanner with no advisory data for any ecosystem in the tree),
	// so it examined nothing.
	NothingScanned bool
}

// Supplementary is implemented by a scanner that cannot by itself find
// what its scan type is about (licenses reads manifests but finds no
// vulnerable dependency): a type where only such scanners ran examined
// nothing, and an explicit request for it fails closed.
type Supplementary interface {
	Supplementary() bool
}

func (p *PartialSkip) Error() string {
	var b strings.Builder
	for i, s := range p.Parts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s.Part + ": " + s.Reason)
	}
	return "partly skipped: " + b.String()
}
