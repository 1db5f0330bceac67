package registry

import (
	"net/netip"
	"time"

	"scand/scan"
	"scand/scan/image"
	"scand/scan/repo"
)

// TargetOptions configure image and repository targets.
type TargetOptions struct {
	// Work is the private directory unpacked images and clones live in.
	Work *scan.WorkDir
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
}

// Targets returns the preparer of image and repository targets. The
// orchestrator runs it before the scanners of such a scan; a command-line
// scan uses the same one: Prepare gives the directory to scan, Close
// removes it.
func Targets(cfg scan.Config, o TargetOptions) scan.Preparers {
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
	return scan.Preparers{
		Image: image.New(image.Options{Config: cfg, Work: o.Work, Limits: limits, Roots: o.ScanRoots}),
		Repo: repo.New(repo.Options{Config: cfg, Work: o.Work, Allow: o.GitAllow, RefuseAddress: o.RefuseAddress,
			CredentialsFile: o.CredentialsFile, CAFile: o.CAFile,
			Limits: repo.Limits{MaxBytes: limits.MaxBytes, MaxFiles: limits.MaxFiles, Timeout: limits.Timeout}}),
	}
}
