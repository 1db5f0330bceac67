package scan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"scand/finding"
	"scand/scan/vulndb"
)

// Targets that need preparing. A scan of a container image or of a git
// repository does not point at a directory: before the scanners run, a
// TargetPreparer turns it into one (unpacks the layers, clones the
// repository) in scand's private work directory, and removes it when the
// scan ends however it ends. The scanners then read the prepared root
// exactly as they read a tree. The orchestrator sees preparers only
// through this seam; main's wiring hands over the concrete ones
// (scan/image, scan/repo).

// ImageSpec is a scan's target_image: a `docker save` archive, an OCI
// image layout directory or an OCI archive (a tar of a layout).
type ImageSpec struct {
	// Path is absolute and resolved (no symbolic link in it) when stored.
	Path string `json:"path"`
}

// RepoSpec is a scan's target_repo.
type RepoSpec struct {
	// URL is https://, ssh:// or git://, never with a password in it.
	URL string `json:"url"`
	// Ref is a branch, tag or commit; "" is the remote's default branch.
	Ref string `json:"ref,omitempty"`
	// History clones the whole history (for the secrets history scan)
	// instead of the one commit scanned.
	History bool `json:"history,omitempty"`
	// Submodules also clones the submodules, under the same host policy.
	Submodules bool `json:"submodules,omitempty"`
}

// TargetSpec is what a scan asked to prepare: exactly one field is set.
type TargetSpec struct {
	Image *ImageSpec `json:"image,omitempty"`
	Repo  *RepoSpec  `json:"repo,omitempty"`
}

// Resolved is what preparing a target learned, recorded with the scan.
type Resolved struct {
	Image *ImageInfo `json:"image,omitempty"`
	Repo  *RepoInfo  `json:"repo,omitempty"`
}

// ImageInfo describes the image a scan unpacked.
type ImageInfo struct {
	// Digest is the image id: the sha256 digest of its configuration,
	// the same whichever format the image came in.
	Digest string `json:"digest"`
	// ManifestDigest is the digest of the OCI manifest; "" for a legacy
	// docker archive, which has none.
	ManifestDigest string   `json:"manifest_digest,omitempty"`
	Tags           []string `json:"tags"`
	OS             string   `json:"os"`
	Architecture   string   `json:"architecture"`
	// Format is docker-archive, oci-layout or oci-archive.
	Format string `json:"format"`
	// Layers lists the layers' diff ids (digests of the uncompressed
	// layer tars), bottom first: the prefix of image findings' file_path.
	Layers []string `json:"layers"`
	// SkippedEntries counts layer entries not unpacked (devices, fifos,
	// unknown types): they hold no content to scan.
	SkippedEntries int `json:"skipped_entries"`
}

// RepoInfo describes the clone a scan made.
type RepoInfo struct {
	// Commit is the full id of the commit that was checked out.
	Commit string `json:"commit"`
}

// Prepared is a target made into a directory for one scan.
type Prepared struct {
	// Root is the directory the scanners read.
	Root string
	// Image is the archive or layout for tools that read images (Target.Image).
	Image string
	// Resolved is recorded with the scan.
	Resolved Resolved
	// Scanners are extra scanners that only make sense for this target
	// (an image's configuration, content its later layers deleted). They
	// run after the registry's scanners of the same type; their findings'
	// paths are final.
	Scanners []Scanner
	// MapPath rewrites a path relative to Root into the path a finding
	// keeps (for an image, "<layer diff id>:/<path>", stable wherever the
	// image is unpacked); nil keeps paths as they are.
	MapPath func(rel string) string
	// UnmapPath is MapPath's inverse, for reading finding lines back from
	// Root; ok is false for a path that is not under Root.
	UnmapPath func(filePath string) (rel string, ok bool)
	// Early are scanners the preparer started before the root was ready
	// (EarlyStarter), each run in place of the registry scanner named so.
	Early map[string]Scanner
	// Cleanup removes everything the preparation made. It is called once.
	Cleanup func()
}

// TargetPreparer makes an image or repository target scannable. Prepare
// removes whatever it made before returning an error; on success the
// caller calls Close. scanTypes are the scan's types, so a preparer does
// only the work they need.
type TargetPreparer interface {
	Prepare(ctx context.Context, spec TargetSpec, scanTypes []string) (*Prepared, error)
}

// ErrTargetKindUnavailable means no preparer handles the target's kind.
var ErrTargetKindUnavailable = errors.New("this kind of target is not available")

// Close removes the prepared root; nil-safe and idempotent.
func (p *Prepared) Close() {
	if p == nil || p.Cleanup == nil {
		return
	}
	c := p.Cleanup
	p.Cleanup = nil
	c()
}

// scanners returns the registry with this target's path mapping applied
// to each scanner's findings, followed by the target's own scanners.
func (p *Prepared) scanners(registry []Scanner) []Scanner {
	if p == nil {
		return registry
	}
	out := make([]Scanner, 0, len(registry)+len(p.Scanners))
	for _, s := range registry {
		if e, ok := p.Early[s.Name()]; ok {
			s = e
		}
		if p.MapPath != nil {
			s = mappedScanner{Scanner: s, mapPath: p.MapPath}
		}
		out = append(out, s)
	}
	return append(out, p.Scanners...)
}

// lineSource reads finding lines back through UnmapPath.
func (p *Prepared) lineSource(base finding.LineSource) finding.LineSource {
	if p == nil || p.UnmapPath == nil {
		return base
	}
	return func(filePath string, line int) (string, string, bool) {
		rel, ok := p.UnmapPath(filePath)
		if !ok {
			return "", "", false
		}
		return base(rel, line)
	}
}

// mappedScanner rewrites the paths of a registry scanner's findings.
type mappedScanner struct {
	Scanner
	mapPath func(string) string
}

// Unwrap is the registry scanner, for the optional interfaces the
// selection looks at (Selective, ImageReader): a mapped scanner reads
// what its scanner reads.
func (m mappedScanner) Unwrap() Scanner { return m.Scanner }

// unwrapped is s without the path mapping a prepared target adds.
func unwrapped(s Scanner) Scanner {
	if u, ok := s.(interface{ Unwrap() Scanner }); ok {
		return u.Unwrap()
	}
	return s
}

func (m mappedScanner) Scan(ctx context.Context, t Target) ([]finding.Finding, error) {
	fs, err := m.Scanner.Scan(ctx, t)
	for i := range fs {
		m.mapFinding(&fs[i])
	}
	return fs, err
}

// ScanStream maps the paths of a streaming scanner's findings as they
// come; a slice-based scanner is run through Scan and its findings sent
// one by one (emitEach), so every mapped scanner streams.
func (m mappedScanner) ScanStream(ctx context.Context, t Target, emit func(finding.Finding) error) error {
	if ss, ok := m.Scanner.(StreamScanner); ok {
		return ss.ScanStream(ctx, t, func(f finding.Finding) error {
			m.mapFinding(&f)
			return emit(f)
		})
	}
	fs, err := m.Scan(ctx, t)
	return emitEach(fs, err, emit)
}

// SkipReason and DataSources forward the optional interfaces of the
// wrapped scanner, so a mapped scanner is skipped and records its data
// age exactly as it would on a tree.
func (m mappedScanner) SkipReason(ctx context.Context) string { return SkipReasonOf(ctx, m.Scanner) }

func (m mappedScanner) DataSources(ctx context.Context) []vulndb.Info {
	return dataSourcesOf(ctx, m.Scanner)
}

func (m mappedScanner) mapFinding(f *finding.Finding) {
	if p := f.FilePath; p != "" && !strings.Contains(p, "://") {
		f.FilePath = m.mapPath(strings.TrimPrefix(path.Clean("/"+p), "/"))
	}
}

// prepareTarget prepares an image or repository scan's target and points
// t at it. A tree target returns nil and changes nothing.
func (o *Orchestrator) prepareTarget(ctx context.Context, id string, scanTypes []string, t *Target) (*Prepared, error) {
	specJSON, ok, err := o.store.ScanTargetSpec(context.WithoutCancel(ctx), id)
	if err != nil {
		return nil, fmt.Errorf("load target: %w", err)
	}
	if !ok {
		return nil, nil
	}
	var spec TargetSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return nil, fmt.Errorf("load target: %w", err)
	}
	if o.targets == nil {
		return nil, fmt.Errorf("prepare target: %w", ErrTargetKindUnavailable)
	}
	p, err := o.targets.Prepare(ctx, spec, scanTypes)
	if err != nil {
		return nil, fmt.Errorf("prepare target: %w", err)
	}
	resolved, err := json.Marshal(p.Resolved)
	if err == nil {
		err = o.store.SetScanTargetResolved(context.WithoutCancel(ctx), id, string(resolved))
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("record target: %w", err)
	}
	t.Path, t.Image = p.Root, p.Image
	return p, nil
}
