// Package image prepares container-image targets: it reads a `docker save`
// archive, an OCI image layout directory or an OCI archive, verifies it,
// unpacks its layers into a private temporary root (unpack.go says how a
// hostile archive is contained), and hands the orchestrator that root
// with two scanners of the image's own: image-config (the configuration's
// user, ports, ENV and history) and layer-secrets (secrets in files a
// later layer deleted or replaced). Findings about image content point at
// "<layer diff id>:/<path>", the layer that wrote the file, so they keep
// their fingerprints wherever and however often the image is unpacked.
package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"scand/scan"
	"scand/scan/secrets"
	"scand/scan/workdir"
)

// Limits bound one image's preparation.
type Limits struct {
	// MaxBytes caps the bytes unpacked (SVC_TARGET_MAX_BYTES); twice it
	// caps the bytes decompressed.
	MaxBytes int64
	// MaxFiles caps the layer entries (SVC_TARGET_MAX_FILES).
	MaxFiles int
	// MaxFileBytes caps one file.
	MaxFileBytes int64
	// MaxPath caps an entry's path and a link's target, in bytes.
	MaxPath int
	// Timeout bounds the preparation (SVC_TARGET_TIMEOUT).
	Timeout time.Duration
}

// DefaultLimits are the limits when nothing is configured.
func DefaultLimits() Limits {
	return Limits{MaxBytes: 8 << 30, MaxFiles: 1_000_000, MaxFileBytes: 2 << 30, MaxPath: 4096, Timeout: 10 * time.Minute}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	if l.MaxFileBytes <= 0 || l.MaxFileBytes > l.MaxBytes {
		l.MaxFileBytes = min(d.MaxFileBytes, l.MaxBytes)
	}
	if l.MaxPath <= 0 {
		l.MaxPath = d.MaxPath
	}
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	return l
}

// Options configure the image preparer.
type Options struct {
	Config scan.Config
	Work   *workdir.Dir
	Limits Limits
	// Roots is SVC_SCAN_ROOTS, checked again when the scan starts: the
	// archive may have been replaced by a link since the scan was accepted.
	Roots []string
	// Scanners are the registry's. Those that can (scan.EarlyStarter:
	// trivy image) start on the archive while the layers unpack, and what
	// those of a scan's types read decides which files are written out
	// (reading.go); nil writes out every file.
	Scanners []scan.Scanner
	// CaptureReads tells the files the SBOM capture reads.
	CaptureReads func(rel string) bool
}

// Preparer unpacks image targets; it implements scan.TargetPreparer.
type Preparer struct {
	o       Options
	secrets *secrets.Content
}

// New returns the image preparer.
func New(o Options) *Preparer {
	o.Limits = o.Limits.withDefaults()
	return &Preparer{o: o, secrets: secrets.NewContent(o.Config)}
}

// Prepare unpacks spec.Image into a fresh directory of the work directory.
func (p *Preparer) Prepare(ctx context.Context, spec scan.TargetSpec, scanTypes []string) (prep *scan.Prepared, err error) {
	if spec.Image == nil {
		return nil, errors.New("not an image target")
	}
	if p.o.Work == nil {
		return nil, errors.New("image targets need a work directory")
	}
	archive := spec.Image.Path
	real, err := filepath.EvalSymlinks(archive)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", archive, err)
	}
	if !scan.UnderRoots(real, p.o.Roots) {
		return nil, fmt.Errorf("image %s now resolves to %s, outside the allowed scan roots (SVC_SCAN_ROOTS)", archive, real)
	}
	target, err := p.o.Work.NewTarget("image-")
	if err != nil {
		return nil, err
	}
	defer target.Discard()
	scanCtx := ctx // the early runs outlive the preparation
	ctx, cancel := context.WithTimeout(ctx, p.o.Limits.Timeout)
	defer cancel()
	keepRemoved := slices.Contains(scanTypes, scan.TypeCode)
	res, err := p.unpack(ctx, scanCtx, real, target, keepRemoved, slices.Contains(scanTypes, scan.TypeDependency), p.readingFor(scanTypes, keepRemoved))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("image %s: unpacking took longer than %s (SVC_TARGET_TIMEOUT)", archive, p.o.Limits.Timeout)
		}
		return nil, fmt.Errorf("image %s: %w", archive, err)
	}
	target.Keep()
	return res, nil
}

// unpack reads the image at archive and unpacks it into target.
func (p *Preparer) unpack(ctx, scanCtx context.Context, archive string, target *workdir.Target, keepRemoved, forTrivy bool, read *reading) (_ *scan.Prepared, err error) {
	dir := target.Path
	src, kind, err := openSource(ctx, archive, dir, p.o.Limits)
	if err != nil {
		return nil, err
	}
	defer src.close()
	img, err := readImage(src, kind)
	if err != nil {
		return nil, err
	}
	// Trivy reads a docker archive or a layout as it is: it starts now and
	// runs beside the unpacking. An OCI archive needs its layout written
	// out first (below), so its Trivy run waits for its turn.
	var early map[string]scan.Scanner
	stopEarly := func() {}
	if forTrivy && img.format != "oci-archive" {
		early, stopEarly = startEarly(scanCtx, p.o.Scanners, archive)
	}
	defer func() {
		if err != nil {
			stopEarly()
		}
	}()
	work, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer work.Close()
	u, err := p.applyLayers(ctx, src, img, work, dir, keepRemoved, read)
	if err != nil {
		return nil, err
	}
	defer u.close()
	layers := make([]string, len(img.layers))
	for i, l := range img.layers {
		layers[i] = l.diffID
	}
	info := &scan.ImageInfo{Digest: img.configDigest, ManifestDigest: img.manifestDigest, Tags: img.tags,
		OS: img.config.OS, Architecture: img.config.Architecture, Format: img.format, Layers: layers, SkippedEntries: u.skipped}
	if info.Tags == nil {
		info.Tags = []string{}
	}
	if img.config.Variant != "" {
		info.Architecture += "/" + img.config.Variant
	}
	// Trivy reads docker archives and layout directories, not OCI
	// archives: it gets the archive's layout written out beside the root.
	input := archive
	if ts, ok := src.(*tarSource); ok && img.format == "oci-archive" && forTrivy {
		if input, err = ts.writeLayout(ctx, filepath.Join(dir, "layout"), p.o.Limits.MaxBytes); err != nil {
			return nil, err
		}
	}
	root := filepath.Join(dir, "rootfs")
	owner := u.owner
	mapPath := func(rel string) string {
		if l, ok := owner[rel]; ok {
			return layers[l] + ":/" + rel
		}
		return rel
	}
	unmapPath := func(fp string) (string, bool) {
		digest, rel, ok := strings.Cut(fp, ":/")
		if !ok {
			return fp, true // not an image path: scanners may report others
		}
		if l, found := owner[rel]; found && layers[l] == digest {
			return rel, true
		}
		return "", false
	}
	return &scan.Prepared{
		Root:     root,
		Image:    input,
		Resolved: scan.Resolved{Image: info},
		Scanners: []scan.Scanner{
			newConfigScanner(img, root, mapPath, p.secrets),
			newLayerSecrets(root, u.removed, layers, p.secrets),
		},
		MapPath:   mapPath,
		UnmapPath: unmapPath,
		Early:     early,
		Cleanup: func() {
			stopEarly()
			target.Remove()
		},
	}, nil
}

// startEarly starts the scanners that can begin on the archive itself;
// stop ends whatever of them still runs (a scan that ends before their
// turn, or that does not select them).
func startEarly(ctx context.Context, scanners []scan.Scanner, archive string) (early map[string]scan.Scanner, stop func()) {
	ctx, stop = context.WithCancel(ctx)
	for _, s := range scanners {
		es, ok := s.(scan.EarlyStarter)
		if !ok {
			continue
		}
		if r := es.StartEarly(ctx, archive); r != nil {
			if early == nil {
				early = map[string]scan.Scanner{}
			}
			early[s.Name()] = r
		}
	}
	return early, stop
}

// applyLayers unpacks every layer, writing out what read names; when a
// scanner turns out to need the whole tree it starts again and writes out
// every file.
func (p *Preparer) applyLayers(ctx context.Context, src source, img *image, work *os.Root, dir string, keepRemoved bool, read *reading) (*unpacker, error) {
	for {
		u, err := newUnpacker(work, dir, p.o.Limits, keepRemoved, read)
		if err != nil {
			return nil, err
		}
		for i, l := range img.layers {
			if err = p.applyLayer(ctx, src, u, i, l); err != nil {
				break
			}
		}
		if err == nil && read != nil && u.linksIntoVirtual() {
			err = errWhole
		}
		if err == nil {
			return u, nil
		}
		u.close()
		if !errors.Is(err, errWhole) || read == nil {
			return nil, err
		}
		read = nil
		if err := errors.Join(work.RemoveAll("rootfs"), work.RemoveAll("removed")); err != nil {
			return nil, err
		}
	}
}

func (p *Preparer) applyLayer(ctx context.Context, src source, u *unpacker, i int, l layerRef) error {
	rc, _, err := src.open(l.name)
	if err != nil {
		return fmt.Errorf("layer %d: %w", i+1, err)
	}
	defer rc.Close()
	return u.apply(ctx, rc, i, l)
}
