// Package request checks what a scan may point at before it is stored:
// the body of POST /scans, a schedule each time it comes due, a command
// line's target. It holds the target policy (SVC_SCAN_ROOTS,
// SVC_NMAP_MAX_HOSTS, SVC_TARGET_ALLOW, SVC_GIT_ALLOW), the field problems
// the API renders as a 422, and the URL, host and repository checks the
// DAST, network and repository code shares. It imports the scan seam for
// the scan types and target specs, never the other way round.
package request

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"scand/scan"
	"scand/scan/netguard"
)

// Request is what a scan starts from: the body of POST /scans, or a
// schedule each time it comes due.
type Request struct {
	TargetPath string
	ScanTypes  []string
	TargetURL  *string
	TargetHost *string
	// ScanPath is set by Check: the path a scan of this request stores and
	// reads. With scan roots it is the resolved real path that was
	// confined, so re-pointing a symlink in TargetPath after the check
	// cannot move the scan; without roots it is TargetPath, cleaned, as
	// the client gave it.
	ScanPath string
	// TargetImage and TargetRepo replace TargetPath for an image or a
	// repository (targetkinds.go); Check sets Target from them.
	TargetImage *scan.ImageSpec
	TargetRepo  *scan.RepoSpec
	Target      *scan.TargetSpec
}

// TargetPolicy confines scan targets: SVC_SCAN_ROOTS and
// SVC_NMAP_MAX_HOSTS. The API applies it when a scan or a schedule is
// created and the scheduler again when each run starts, since the tree
// may have moved, vanished or become a symlink meanwhile.
type TargetPolicy struct {
	// Roots are the directories targets must resolve under; empty means
	// anywhere.
	Roots    []string
	MaxHosts int
	// Targets refuses DAST and network targets that may never be scanned
	// (metadata services, SVC_TARGET_ALLOW); the API checks what it can
	// without resolving names, the scanners check again when they connect.
	Targets netguard.Targets
	// GitAllow names the hosts repositories may be cloned from
	// (SVC_GIT_ALLOW); empty means any.
	GitAllow []string
	// RefuseAddress says why an address may never be a repository host
	// ("" when it may); main injects the webhook SSRF guard's
	// classification. Nil refuses nothing.
	RefuseAddress func(netip.Addr) string
}

// Problem is one thing wrong with a request field. Loc is relative to the
// request body, e.g. ("scan_types", 2).
type Problem struct {
	Loc   []any
	Type  string
	Msg   string
	Input any
}

// ErrOutsideRoots means a valid target resolves outside every scan root.
var ErrOutsideRoots = errors.New("target_path is outside the allowed scan roots (SVC_SCAN_ROOTS)")

// Check validates r. It returns r normalized (scan types deduplicated in
// their given order, the path cleaned, empty URL and host dropped), every
// field problem, and ErrOutsideRoots when the fields are valid but the
// resolved path lies outside the roots.
func (p TargetPolicy) Check(r Request) (Request, []Problem, error) {
	var probs []Problem
	add := func(typ, msg string, input any, loc ...any) {
		probs = append(probs, Problem{Loc: loc, Type: typ, Msg: msg, Input: input})
	}
	var types []string
	if len(r.ScanTypes) == 0 {
		add("too_short", "scan_types must not be empty", r.ScanTypes, "scan_types")
	}
	for i, t := range r.ScanTypes {
		if !slices.Contains(scan.ScanTypes, t) {
			add("enum", "Input should be one of "+strings.Join(scan.ScanTypes, ", "), t, "scan_types", i)
		} else if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	real := ""
	kindPath, kindSpec, kindReal := p.checkTargetKinds(r, add)
	switch {
	case kindSpec != nil:
		real = kindReal
	case r.TargetImage != nil || r.TargetRepo != nil:
		// checkTargetKinds said what is wrong.
	case r.TargetPath == "":
		add("missing", "Field required", nil, "target_path")
	case !filepath.IsAbs(r.TargetPath):
		add("value_error", "target_path must be an absolute path", r.TargetPath, "target_path")
	default:
		info, err := os.Stat(r.TargetPath)
		if err != nil || !info.IsDir() {
			add("value_error", "target_path must be an existing directory", r.TargetPath, "target_path")
		} else if real, err = filepath.EvalSymlinks(r.TargetPath); err != nil {
			add("value_error", "target_path cannot be resolved", r.TargetPath, "target_path")
		}
	}
	out := Request{TargetPath: filepath.Clean(r.TargetPath), ScanTypes: types}
	out.ScanPath = out.TargetPath
	if len(p.Roots) > 0 && real != "" {
		out.ScanPath = real
	}
	if kindSpec != nil {
		// An image is stored resolved, a repository by its URL: both as
		// checked, whatever the roots.
		out.TargetPath, out.Target, out.ScanPath = kindPath, kindSpec, kindPath
	}
	if r.TargetURL != nil && *r.TargetURL != "" {
		out.TargetURL = r.TargetURL
		if u, err := ValidateTargetURL(*r.TargetURL); err != nil {
			add("value_error", "target_url: "+err.Error(), *r.TargetURL, "target_url")
		} else if err := p.Targets.CheckStatic(u.Hostname()); err != nil {
			add("value_error", "target_url: "+err.Error(), *r.TargetURL, "target_url")
		}
	} else if slices.Contains(types, scan.TypeDAST) {
		add("missing", "target_url is required for dast scans", nil, "target_url")
	}
	if r.TargetHost != nil && *r.TargetHost != "" {
		out.TargetHost = r.TargetHost
		if err := ValidateTargetHost(*r.TargetHost, p.MaxHosts); err != nil {
			add("value_error", "target_host: "+err.Error(), *r.TargetHost, "target_host")
		} else if err := CheckTargetHost(p.Targets, *r.TargetHost); err != nil {
			add("value_error", "target_host: "+err.Error(), *r.TargetHost, "target_host")
		}
	} else if slices.Contains(types, scan.TypeNetwork) {
		add("missing", "target_host is required for network scans", nil, "target_host")
	}
	if len(probs) > 0 {
		return out, probs, nil
	}
	if (kindSpec == nil || kindSpec.Image != nil) && !scan.UnderRoots(real, p.Roots) {
		return out, nil, ErrOutsideRoots
	}
	return out, nil, nil
}
