package registry

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"scand/scan"
	"scand/scan/components"
	"scand/scan/image"
	"scand/scan/repo"
	"scand/scan/workdir"
)

// TargetOptions configure image and repository targets.
type TargetOptions struct {
	// Work is the private directory unpacked images and clones live in.
	Work *workdir.Dir
	// MaxBytes, MaxFiles and Timeout bound one preparation
	// (SVC_TARGET_MAX_BYTES, SVC_TARGET_MAX_FILES, SVC_TARGET_TIMEOUT).
	MaxBytes int64
	MaxFiles int
	Timeout  time.Duration
	// ScanRoots confines image archives (SVC_SCAN_ROOTS).
	ScanRoots []string
	// GitAllow, RefuseAddress, CredentialsFile and CAFile: see repo.Options.
	GitAllow        []string
	RefuseAddress   func(netip.Addr) string
	CredentialsFile string
	CAFile          string
	// Scanners are the registry's scanners (image.Options.Scanners).
	Scanners []scan.Scanner
}

// Targets returns the preparer of image and repository targets. The
// orchestrator runs it before the scanners of such a scan; a command-line
// scan uses the same one: Prepare gives the directory to scan, Close
// removes it.
func Targets(cfg scan.Config, o TargetOptions) Preparers {
	limits := image.DefaultLimits()
	if o.MaxBytes > 0 {
		limits.MaxBytes = o.MaxBytes
		limits.MaxFileBytes = min(limits.MaxFileBytes, o.MaxBytes)
	}
	if o.MaxFiles > 0 {
		limits.MaxFiles = o.MaxFiles
	}
	if o.Timeout > 0 {
		limits.Timeout = o.Timeout
	}
	return Preparers{
		Image: image.New(image.Options{Config: cfg, Work: o.Work, Limits: limits, Roots: o.ScanRoots,
			Scanners: o.Scanners, CaptureReads: components.CaptureReads}),
		Repo: repo.New(repo.Options{Config: cfg, Work: o.Work, Allow: o.GitAllow, RefuseAddress: o.RefuseAddress,
			CredentialsFile: o.CredentialsFile, CAFile: o.CAFile,
			Limits: repo.Limits{MaxBytes: limits.MaxBytes, MaxFiles: limits.MaxFiles, Timeout: limits.Timeout}}),
	}
}

// Preparers dispatches a TargetSpec to the preparer of its kind; a nil
// field refuses that kind.
type Preparers struct {
	Image scan.TargetPreparer
	Repo  scan.TargetPreparer
}

// Prepare implements scan.TargetPreparer.
func (p Preparers) Prepare(ctx context.Context, spec scan.TargetSpec, scanTypes []string) (*scan.Prepared, error) {
	switch {
	case spec.Image != nil && spec.Repo == nil:
		if p.Image == nil {
			return nil, fmt.Errorf("image target: %w", scan.ErrTargetKindUnavailable)
		}
		return p.Image.Prepare(ctx, spec, scanTypes)
	case spec.Repo != nil && spec.Image == nil:
		if p.Repo == nil {
			return nil, fmt.Errorf("repository target: %w", scan.ErrTargetKindUnavailable)
		}
		return p.Repo.Prepare(ctx, spec, scanTypes)
	}
	return nil, errors.New("a target needs exactly one of image and repo")
}
