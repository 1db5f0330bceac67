package api

import (
	"context"
	"encoding/json"
	"net/netip"

	"scand/scan"
	"scand/store"
)

// GitPolicy is what repository targets are checked against when a scan is
// requested: SVC_GIT_ALLOW, and the SSRF guard's classification of
// addresses (injected by main).
type GitPolicy struct {
	Allow         []string
	RefuseAddress func(netip.Addr) string
}

// TargetImageRequest is target_image in POST /scans.
type TargetImageRequest struct {
	Path string `json:"path" doc:"absolute path of a docker save archive (.tar or .tar.gz), an OCI archive or an OCI image layout directory; confined by SVC_SCAN_ROOTS"`
}

// TargetRepoRequest is target_repo in POST /scans.
type TargetRepoRequest struct {
	URL        string  `json:"url" doc:"https://, ssh:// or git:// URL without credentials (they come from SVC_GIT_CREDENTIALS_FILE); the host must be allowed by SVC_GIT_ALLOW"`
	Ref        *string `json:"ref,omitempty" doc:"branch, tag or commit to scan; default: the remote's default branch"`
	History    *bool   `json:"history,omitempty" doc:"clone the whole history, so the secrets scanner also reads it; default false: one commit"`
	Submodules *bool   `json:"submodules,omitempty" doc:"also fetch the submodules (one level, each URL checked like this one); default false"`
}

// TargetImageView is a scan's target_image.
type TargetImageView struct {
	Path           string   `json:"path" doc:"the archive or layout, symbolic links resolved"`
	Digest         *string  `json:"digest" doc:"image id: sha256 digest of the image configuration, the same in every format; null until the scan unpacked the image"`
	ManifestDigest *string  `json:"manifest_digest" doc:"digest of the OCI manifest; null for a legacy docker archive"`
	Tags           []string `json:"tags" doc:"repository tags or OCI reference names the archive gives the image"`
	OS             *string  `json:"os"`
	Architecture   *string  `json:"architecture" doc:"with the variant when the image has one, e.g. arm64/v8"`
	Format         *string  `json:"format" doc:"docker-archive, oci-layout or oci-archive"`
	Layers         []string `json:"layers" doc:"diff ids of the layers, bottom first; image findings' file_path starts with one of them"`
	SkippedEntries *int     `json:"skipped_entries" doc:"layer entries not unpacked (devices, fifos): they hold nothing to scan"`
}

// TargetRepoView is a scan's target_repo.
type TargetRepoView struct {
	URL        string  `json:"url"`
	Ref        *string `json:"ref" doc:"the ref asked for; null for the default branch"`
	History    bool    `json:"history"`
	Submodules bool    `json:"submodules"`
	Commit     *string `json:"commit" doc:"the commit that was cloned and scanned; null until cloned"`
}

// requestTarget turns the request's target_image and target_repo into
// the scan package's request fields.
func requestTarget(req StartScanRequest) (*scan.ImageSpec, *scan.RepoSpec) {
	var img *scan.ImageSpec
	var repo *scan.RepoSpec
	if req.TargetImage != nil {
		img = &scan.ImageSpec{Path: req.TargetImage.Path}
	}
	if r := req.TargetRepo; r != nil {
		repo = &scan.RepoSpec{URL: r.URL}
		if r.Ref != nil {
			repo.Ref = *r.Ref
		}
		if r.History != nil {
			repo.History = *r.History
		}
		if r.Submodules != nil {
			repo.Submodules = *r.Submodules
		}
	}
	return img, repo
}

// createScan stores a scan, with its image or repository target if any.
func (s *Server) createScan(ctx context.Context, sc store.Scan, target *scan.TargetSpec) (store.Scan, error) {
	if target == nil {
		return s.Store.CreateScan(ctx, sc)
	}
	spec, err := json.Marshal(target)
	if err != nil {
		return sc, err
	}
	return s.Store.CreateScanWithTarget(ctx, sc, string(spec))
}

// scanViews renders scans with their image and repository targets.
func (s *Server) scanViews(ctx context.Context, scans []store.Scan) ([]ScanView, error) {
	ids := make([]string, len(scans))
	for i, sc := range scans {
		ids[i] = sc.ID
	}
	targets, err := s.Store.ScanTargetsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ScanView, len(scans))
	for i, sc := range scans {
		out[i] = scanView(sc)
		if t, ok := targets[sc.ID]; ok {
			out[i].TargetImage, out[i].TargetRepo = targetViews(t)
		}
	}
	return out, nil
}

// scanViewOf renders one scan.
func (s *Server) scanViewOf(ctx context.Context, sc store.Scan) (ScanView, error) {
	vs, err := s.scanViews(ctx, []store.Scan{sc})
	if err != nil {
		return ScanView{}, err
	}
	return vs[0], nil
}

func targetViews(t store.ScanTarget) (*TargetImageView, *TargetRepoView) {
	var spec scan.TargetSpec
	var res scan.Resolved
	if json.Unmarshal([]byte(t.Spec), &spec) != nil {
		return nil, nil
	}
	_ = json.Unmarshal([]byte(t.Resolved), &res)
	str := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	switch {
	case spec.Image != nil:
		v := &TargetImageView{Path: spec.Image.Path, Tags: []string{}, Layers: []string{}}
		if i := res.Image; i != nil {
			v.Digest, v.ManifestDigest, v.OS, v.Architecture, v.Format = str(i.Digest), str(i.ManifestDigest), str(i.OS), str(i.Architecture), str(i.Format)
			if i.Tags != nil {
				v.Tags = i.Tags
			}
			if i.Layers != nil {
				v.Layers = i.Layers
			}
			n := i.SkippedEntries
			v.SkippedEntries = &n
		}
		return v, nil
	case spec.Repo != nil:
		v := &TargetRepoView{URL: spec.Repo.URL, Ref: str(spec.Repo.Ref), History: spec.Repo.History, Submodules: spec.Repo.Submodules}
		if res.Repo != nil {
			v.Commit = str(res.Repo.Commit)
		}
		return nil, v
	}
	return nil, nil
}
