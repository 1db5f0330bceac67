package image

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// image is what the archive says about the one image in it.
type image struct {
	format         string // docker-archive, oci-layout, oci-archive
	configDigest   string // sha256:<hex>
	manifestDigest string // "" for a legacy docker archive
	tags           []string
	config         imageConfig
	layers         []layerRef
}

// layerRef is one layer: the file holding its blob, the blob's digest when
// the archive names it (OCI blobs, new docker archives), and its diff id
// (digest of the uncompressed tar, from the configuration).
type layerRef struct {
	name       string
	blobDigest string
	diffID     string
}

// imageConfig is the part of the image configuration scand reads.
type imageConfig struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Variant      string `json:"variant"`
	Config       struct {
		User         string              `json:"User"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
		Env          []string            `json:"Env"`
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
	} `json:"config"`
	RootFS struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
	History []struct {
		CreatedBy  string `json:"created_by"`
		EmptyLayer bool   `json:"empty_layer"`
	} `json:"history"`
}

// maxLayers bounds an image's layers (Docker stops at 127).
const maxLayers = 512

var sha256Re = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// readImage finds the one image in src, reads and verifies its
// configuration, and lists its layers. A docker archive (manifest.json) is
// read as such even when it also carries an OCI layout, because only
// manifest.json has the repository tags.
func readImage(src source, kind string) (*image, error) {
	var img *image
	var err error
	switch {
	case src.has("manifest.json"):
		img, err = readDockerArchive(src)
	case src.has("index.json"):
		img, err = readOCILayout(src)
		if img != nil {
			img.format = "oci-archive"
			if kind == "directory" {
				img.format = "oci-layout"
			}
		}
	default:
		return nil, errors.New("not an image: neither manifest.json (docker save) nor index.json (OCI layout) found")
	}
	if err != nil {
		return nil, err
	}
	if len(img.layers) > maxLayers {
		return nil, fmt.Errorf("image has %d layers, more than %d", len(img.layers), maxLayers)
	}
	ids := img.config.RootFS.DiffIDs
	if len(ids) != len(img.layers) {
		return nil, fmt.Errorf("image configuration lists %d layers (rootfs.diff_ids) but the manifest %d", len(ids), len(img.layers))
	}
	for i := range img.layers {
		if !sha256Re.MatchString(ids[i]) {
			return nil, fmt.Errorf("layer %d: diff id %q is not a sha256 digest", i, ids[i])
		}
		img.layers[i].diffID = ids[i]
	}
	return img, nil
}

type dockerManifestEntry struct {
	Config   string   `json:"Config"`
	RepoTags []string `json:"RepoTags"`
	Layers   []string `json:"Layers"`
}

func readDockerArchive(src source) (*image, error) {
	raw, err := readAllCapped(src, "manifest.json", maxJSONBytes)
	if err != nil {
		return nil, err
	}
	var entries []dockerManifestEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	switch len(entries) {
	case 0:
		return nil, errors.New("manifest.json lists no image")
	case 1:
	default:
		var names []string
		for _, e := range entries {
			names = append(names, strings.Join(e.RepoTags, ","))
		}
		return nil, fmt.Errorf("archive holds %d images (%s); save and scan one at a time", len(entries), strings.Join(names, "; "))
	}
	e := entries[0]
	// The configuration's file name carries its digest: <hex>.json in the
	// legacy layout, blobs/sha256/<hex> in the OCI one.
	digest := digestInName(e.Config)
	if digest == "" {
		return nil, fmt.Errorf("manifest.json: configuration %q is not named by its digest, so it cannot be verified", e.Config)
	}
	img := &image{format: "docker-archive", configDigest: digest, tags: e.RepoTags}
	if err := loadConfig(src, e.Config, digest, img); err != nil {
		return nil, err
	}
	for _, l := range e.Layers {
		img.layers = append(img.layers, layerRef{name: l, blobDigest: blobDigestOfPath(l)})
	}
	return img, nil
}

// digestInName finds the sha256 digest a docker archive file is named by.
func digestInName(name string) string {
	if d := blobDigestOfPath(name); d != "" {
		return d
	}
	base := strings.TrimSuffix(path.Base(name), ".json")
	if d := "sha256:" + base; sha256Re.MatchString(d) {
		return d
	}
	return ""
}

// blobDigestOfPath is the digest of an OCI blob path, blobs/sha256/<hex>.
func blobDigestOfPath(name string) string {
	dir, hexPart := path.Split(path.Clean(name))
	if path.Clean(dir) != "blobs/sha256" {
		return ""
	}
	if d := "sha256:" + hexPart; sha256Re.MatchString(d) {
		return d
	}
	return ""
}

func blobPath(digest string) (string, error) {
	if !sha256Re.MatchString(digest) {
		return "", fmt.Errorf("unsupported or malformed digest %q (only sha256 is read)", digest)
	}
	return "blobs/sha256/" + strings.TrimPrefix(digest, "sha256:"), nil
}

// readVerified reads a small blob and checks its digest.
func readVerified(src source, name, digest string) ([]byte, error) {
	raw, err := readAllCapped(src, name, maxJSONBytes)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != digest {
		return nil, fmt.Errorf("%s: content digest %s does not match %s; the archive is corrupt or was tampered with", name, got, digest)
	}
	return raw, nil
}

func loadConfig(src source, name, digest string, img *image) error {
	raw, err := readVerified(src, name, digest)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &img.config); err != nil {
		return fmt.Errorf("image configuration: %w", err)
	}
	if img.config.RootFS.Type != "" && img.config.RootFS.Type != "layers" {
		return fmt.Errorf("image configuration: rootfs type %q is not supported", img.config.RootFS.Type)
	}
	return nil
}

type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Variant      string `json:"variant"`
	} `json:"platform"`
}

type ociIndex struct {
	MediaType string          `json:"mediaType"`
	Manifests []ociDescriptor `json:"manifests"`
}

type ociManifest struct {
	MediaType string          `json:"mediaType"`
	Config    ociDescriptor   `json:"config"`
	Layers    []ociDescriptor `json:"layers"`
}

const (
	mediaOCIIndex       = "application/vnd.oci.image.index.v1+json"
	mediaDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
	mediaOCIManifest    = "application/vnd.oci.image.manifest.v1+json"
	mediaDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
)

// maxIndexDepth bounds nested indexes (an index of indexes).
const maxIndexDepth = 4

func readOCILayout(src source) (*image, error) {
	raw, err := readAllCapped(src, "index.json", maxJSONBytes)
	if err != nil {
		return nil, err
	}
	var idx ociIndex
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	var tags []string
	desc, err := pickManifest(idx.Manifests, true)
	if err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	tags = refNames(desc)
	for depth := 0; ; depth++ {
		if depth > maxIndexDepth {
			return nil, errors.New("image index nests too deep")
		}
		name, err := blobPath(desc.Digest)
		if err != nil {
			return nil, err
		}
		body, err := readVerified(src, name, desc.Digest)
		if err != nil {
			return nil, err
		}
		var probe struct {
			MediaType string          `json:"mediaType"`
			Manifests json.RawMessage `json:"manifests"`
		}
		if err := json.Unmarshal(body, &probe); err != nil {
			return nil, fmt.Errorf("manifest %s: %w", desc.Digest, err)
		}
		isIndex := desc.MediaType == mediaOCIIndex || desc.MediaType == mediaDockerList ||
			probe.MediaType == mediaOCIIndex || probe.MediaType == mediaDockerList || probe.Manifests != nil
		if isIndex {
			var inner ociIndex
			if err := json.Unmarshal(body, &inner); err != nil {
				return nil, fmt.Errorf("index %s: %w", desc.Digest, err)
			}
			next, err := pickManifest(inner.Manifests, false)
			if err != nil {
				return nil, fmt.Errorf("index %s: %w", desc.Digest, err)
			}
			desc = next
			continue
		}
		var m ociManifest
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("manifest %s: %w", desc.Digest, err)
		}
		img := &image{configDigest: m.Config.Digest, manifestDigest: desc.Digest, tags: tags}
		cfgName, err := blobPath(m.Config.Digest)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: config: %w", desc.Digest, err)
		}
		if err := loadConfig(src, cfgName, m.Config.Digest, img); err != nil {
			return nil, err
		}
		for _, l := range m.Layers {
			name, err := blobPath(l.Digest)
			if err != nil {
				return nil, fmt.Errorf("manifest %s: layer: %w", desc.Digest, err)
			}
			if !src.has(name) {
				return nil, fmt.Errorf("layer %s is not in the image (a foreign or non-distributable layer?)", l.Digest)
			}
			img.layers = append(img.layers, layerRef{name: name, blobDigest: l.Digest})
		}
		return img, nil
	}
}

// pickManifest chooses the image among an index's manifests: the only
// one, else the one for this machine's linux platform. Attestations and
// other artifacts (platform unknown/unknown) are never images. At the top
// level of a layout, several images are refused rather than guessed.
func pickManifest(ms []ociDescriptor, top bool) (ociDescriptor, error) {
	var cands []ociDescriptor
	for _, m := range ms {
		if m.Platform != nil && m.Platform.OS == "unknown" {
			continue
		}
		if m.Annotations["vnd.docker.reference.type"] != "" {
			continue
		}
		cands = append(cands, m)
	}
	switch {
	case len(cands) == 0:
		return ociDescriptor{}, errors.New("lists no image manifest")
	case len(cands) == 1:
		return cands[0], nil
	}
	if !top {
		for _, arch := range []string{runtime.GOARCH, "amd64"} {
			if i := slices.IndexFunc(cands, func(m ociDescriptor) bool {
				return m.Platform != nil && m.Platform.OS == "linux" && m.Platform.Architecture == arch
			}); i >= 0 {
				return cands[i], nil
			}
		}
		return cands[0], nil
	}
	var names []string
	for _, c := range cands {
		n := strings.Join(refNames(c), ",")
		if n == "" {
			n = c.Digest
		}
		names = append(names, n)
	}
	return ociDescriptor{}, fmt.Errorf("holds %d images (%s); scan a layout or archive with one", len(cands), strings.Join(names, "; "))
}

// refNames are the tags an index gives a manifest: containerd's full
// image name when present, else the OCI ref name.
func refNames(d ociDescriptor) []string {
	if n := d.Annotations["io.containerd.image.name"]; n != "" {
		return []string{n}
	}
	if n := d.Annotations["org.opencontainers.image.ref.name"]; n != "" {
		return []string{n}
	}
	return nil
}
