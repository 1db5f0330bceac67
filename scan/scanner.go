// Package scan is the seam between the orchestrator and the scanners: the
// Scanner interface, Target, the six scan types and Config; the seam of
// image and repository targets (TargetPreparer and its specs); and the
// orchestrator that runs scans in the background (RunNow: the command
// line's synchronous path). It never names a concrete scanner or
// preparer: scan/registry holds the ordered list and main's wiring hands
// it over. Processes start through scan/proc; requests are checked by
// scan/request before a scan is stored.
package scan

import (
	"context"

	"scand/finding"
)

// The six scan types of SPEC.md.
const (
	TypeCode       = "code"
	TypeDependency = "dependency"
	TypeIaC        = "iac"
	TypeBaseline   = "baseline"
	TypeDAST       = "dast"
	TypeNetwork    = "network"
)

// ScanTypes lists the six scan types in SPEC.md table order.
var ScanTypes = []string{TypeCode, TypeDependency, TypeIaC, TypeBaseline, TypeDAST, TypeNetwork}

// Target is what one scan points at. Path is absolute and already validated
// by the API; URL is set for dast and Host for network.
type Target struct {
	ScanID string
	Path   string
	URL    string
	Host   string
	// Image is the image archive or OCI layout Path was unpacked from, for
	// tools that read images themselves; "" when the target is a tree.
	Image string
	// Ignore is the repository's [ignore] paths (.scand.toml); nil
	// excludes nothing. Built-ins skip what it matches (tree.Walk's Ignore:
	// pass t.Ignored), wrapped tools get its patterns as their exclude
	// flags where they have one, and the orchestrator drops every finding
	// under an ignored path whatever the scanner did.
	Ignore PathFilter
	// Worktree marks Path as a linked git worktree scand itself made of
	// the repository being scanned (scand diff): its .git file points into
	// that repository by scand's doing, so git may be run on it although
	// its git directory lies outside the tree.
	Worktree bool
	// SBOM, when not empty, makes the target stored components rather
	// than a tree (scan/reevaluate): Path is a directory holding these
	// CycloneDX files, and only a scanner that reads SBOMs (SBOMReader)
	// can scan it.
	SBOM []SBOMFile
}

// SBOMFile is one CycloneDX document of an SBOM target: the components a
// scan found in one manifest or lockfile.
type SBOMFile struct {
	// Path is the document, absolute.
	Path string
	// Source is the manifest or lockfile the components were read from,
	// relative to the scanned tree: findings are reported there, as a
	// scan of the tree would have.
	Source string
	// Ecosystem is the OSV ecosystem of the components (npm, Go, PyPI,
	// ...), "" when unknown.
	Ecosystem string
}

// SBOMReader is implemented by a scanner that can match an SBOM target's
// components against its advisory data (Target.SBOM).
type SBOMReader interface {
	ReadsSBOM() bool
}

// PathFilter is a set of excluded paths of a tree.
type PathFilter interface {
	// Ignored reports whether a slash-separated path relative to the
	// target is excluded (itself or a directory it lies in).
	Ignored(rel string, isDir bool) bool
	// Patterns are the gitignore-style patterns, as written.
	Patterns() []string
}

// Ignored applies t.Ignore; false for every path when there is none.
func (t Target) Ignored(rel string, isDir bool) bool {
	return t.Ignore != nil && t.Ignore.Ignored(rel, isDir)
}

// Selective is implemented by scanners that read only some files of a
// tree (a Python analyzer, a lockfile auditor). A command-line scan runs
// and probes such a scanner only when the tree holds a file it reads:
// probing a tool can cost a third of a second, and a tree without Python
// gains nothing from bandit.
type Selective interface {
	// Reads reports whether the scanner reads a file, by its
	// slash-separated path relative to the target.
	Reads(rel string) bool
}

// EarlyStarter is implemented by a scanner that can begin on an image
// archive while its layers are still being unpacked (trivy image reads
// the archive, not the root). StartEarly starts that work under ctx and
// returns the scanner to run in this one's place, which waits for it;
// nil when it cannot start early.
type EarlyStarter interface {
	StartEarly(ctx context.Context, archive string) Scanner
}

// ImageReader is implemented by a Selective scanner that, given a
// Target.Image, reads the image archive itself (trivy image) rather than
// files of the unpacked root: the root holding nothing it reads does not
// make it idle.
type ImageReader interface {
	ReadsImage() bool
}

// Scanner is the seam every built-in and wrapped scanner implements.
type Scanner interface {
	// Name is the stable identifier (a wrapped tool's lowercase name).
	Name() string
	// Type is one of the six scan types.
	Type() string
	// Available reports whether the scanner can run here, its version when
	// known, and otherwise an install hint that works offline.
	Available(ctx context.Context) (version string, hint string, ok bool)
	// Scan runs the scanner. File paths in the findings are relative to
	// t.Path and slash-separated. A scanner that finds nothing returns an
	// empty slice and a nil error.
	Scan(ctx context.Context, t Target) ([]finding.Finding, error)
}

// Builtin is the Name, Type and Available of a scanner that needs nothing
// installed, so it is always available: embed it and write Scan.
type Builtin struct{ name, scanType string }

// NewBuiltin names a built-in scanner and gives its scan type.
func NewBuiltin(name, scanType string) Builtin { return Builtin{name: name, scanType: scanType} }

func (b Builtin) Name() string { return b.name }
func (b Builtin) Type() string { return b.scanType }

// Available is always true; the version of a built-in is scand's own.
func (b Builtin) Available(context.Context) (string, string, bool) { return "builtin", "", true }

// StreamScanner is a Scanner that reports findings as it finds them, so a
// scan with a million findings is never held in memory by the scanner or
// the orchestrator. The orchestrator prefers ScanStream when a scanner
// implements it; Scan must still work and report the same findings.
type StreamScanner interface {
	Scanner
	// ScanStream calls emit once per finding, possibly from several
	// goroutines at once (emit is safe for that). When emit returns an
	// error the scanner stops and returns it. Findings emitted before a
	// scanner fails are discarded by the orchestrator, as Scan's would be.
	ScanStream(ctx context.Context, t Target, emit func(finding.Finding) error) error
}
