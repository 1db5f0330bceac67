// Package imagetest builds container images without a registry or a
// container engine, for tests: layers from tar entries, wrapped as a
// `docker save` archive, an OCI layout directory or an OCI archive, and a
// real minimal Debian root file system made by mmdebstrap (cached per day).
// Only tests import it.
package imagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Entry is one tar entry of a layer. Type defaults to a regular file
// (Body its content); Size, when set, is the size the header claims
// regardless of Body (a hostile claim: no data follows it).
type Entry struct {
	Name string
	Body string
	Type byte
	Link string
	Mode int64
	Size int64
	Uid  int
}

// Layer builds an uncompressed layer tar from entries.
func Layer(t testing.TB, entries ...Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Link, Mode: e.Mode, Uid: e.Uid,
			ModTime: time.Unix(1700000000, 0), Format: tar.FormatPAX}
		if hdr.Typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Mode == 0 {
			hdr.Mode = 0o644
			if hdr.Typeflag == tar.TypeDir {
				hdr.Mode = 0o755
			}
		}
		if hdr.Typeflag == tar.TypeReg {
			hdr.Size = int64(len(e.Body))
		}
		if e.Size > 0 {
			// A claim with no data behind it: write the header alone and
			// end the archive there, as a hostile layer would.
			hdr.Size = e.Size
			if err := tw.WriteHeader(hdr); err != nil {
				t.Fatal(err)
			}
			buf.Write(make([]byte, 1024))
			return buf.Bytes()
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := io.WriteString(tw, e.Body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Image is an image to write: layers bottom first (uncompressed tars), the
// configuration's "config" object, history commands (one per layer when
// given), and tags.
type Image struct {
	Layers  [][]byte
	Config  map[string]any
	History []string
	Tags    []string
	// Gzip compresses the layers of an OCI layout or archive.
	Gzip bool
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func hexOf(d string) string { return strings.TrimPrefix(d, "sha256:") }

// ConfigJSON is the image configuration, and its diff ids.
func (img Image) ConfigJSON(t testing.TB) []byte {
	t.Helper()
	var diffIDs []string
	for _, l := range img.Layers {
		diffIDs = append(diffIDs, digest(l))
	}
	var hist []map[string]any
	for _, h := range img.History {
		hist = append(hist, map[string]any{"created": "2024-01-01T00:00:00Z", "created_by": h})
	}
	cfg := img.Config
	if cfg == nil {
		cfg = map[string]any{}
	}
	b, err := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux", "created": "2024-01-01T00:00:00Z",
		"config": cfg, "rootfs": map[string]any{"type": "layers", "diff_ids": diffIDs}, "history": hist,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DiffIDs are the layers' diff ids, bottom first.
func (img Image) DiffIDs() []string {
	var out []string
	for _, l := range img.Layers {
		out = append(out, digest(l))
	}
	return out
}

// WriteDockerArchive writes img as a legacy `docker save` archive:
// manifest.json, <config hex>.json and <id>/layer.tar per layer.
func WriteDockerArchive(t testing.TB, path string, img Image) {
	t.Helper()
	cfg := img.ConfigJSON(t)
	cfgName := hexOf(digest(cfg)) + ".json"
	files := map[string][]byte{cfgName: cfg}
	var layerNames []string
	for i, l := range img.Layers {
		id := hexOf(digest([]byte(fmt.Sprintf("v1-%d-%s", i, digest(l)))))
		name := id + "/layer.tar"
		files[name] = l
		files[id+"/VERSION"] = []byte("1.0")
		layerNames = append(layerNames, name)
	}
	man, _ := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": img.Tags, "Layers": layerNames}})
	files["manifest.json"] = man
	writeTar(t, path, files)
}

// WriteOCILayout writes img as an OCI image layout directory.
func WriteOCILayout(t testing.TB, dir string, img Image) {
	t.Helper()
	for name, b := range img.ociFiles(t) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// WriteOCIArchive writes img as an OCI layout in a tar archive.
func WriteOCIArchive(t testing.TB, path string, img Image) {
	t.Helper()
	writeTar(t, path, img.ociFiles(t))
}

func (img Image) ociFiles(t testing.TB) map[string][]byte {
	cfg := img.ConfigJSON(t)
	files := map[string][]byte{"oci-layout": []byte(`{"imageLayoutVersion":"1.0.0"}`)}
	blob := func(b []byte) string {
		d := digest(b)
		files["blobs/sha256/"+hexOf(d)] = b
		return d
	}
	var layers []map[string]any
	for _, l := range img.Layers {
		body, media := l, "application/vnd.oci.image.layer.v1.tar"
		if img.Gzip {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(l)
			zw.Close()
			body, media = z.Bytes(), media+"+gzip"
		}
		layers = append(layers, map[string]any{"mediaType": media, "digest": blob(body), "size": len(body)})
	}
	cfgDigest := blob(cfg)
	man, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cfgDigest, "size": len(cfg)},
		"layers": layers})
	manDigest := blob(man)
	desc := map[string]any{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manDigest, "size": len(man)}
	if len(img.Tags) > 0 {
		desc["annotations"] = map[string]string{"io.containerd.image.name": img.Tags[0], "org.opencontainers.image.ref.name": img.Tags[0]}
	}
	idx, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
		"manifests": []any{desc}})
	files["index.json"] = idx
	return files
}

// ManifestDigest is the digest WriteOCILayout gives the image manifest.
func (img Image) ManifestDigest(t testing.TB) string {
	files := img.ociFiles(t)
	var idx struct {
		Manifests []struct{ Digest string } `json:"manifests"`
	}
	if err := json.Unmarshal(files["index.json"], &idx); err != nil {
		t.Fatal(err)
	}
	return idx.Manifests[0].Digest
}

func writeTar(t testing.TB, path string, files map[string][]byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b := files[n]
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(b)), ModTime: time.Unix(1700000000, 0)}); err != nil {
			t.Fatal(err)
		}
		tw.Write(b)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// DebianPackages are the packages of the test root file system, on top of
// what dpkg and its maintainer scripts need.
var DebianPackages = []string{"dpkg", "libc-bin", "base-files", "base-passwd", "dash", "coreutils", "debianutils",
	"diffutils", "sed", "grep", "findutils", "bash", "perl-base", "openssl", "zlib1g"}

// DebianRootfs returns a tar of a minimal Debian bookworm root made by
// mmdebstrap. It is built once per day and cached under $SCAND_TOOLS (or
// the temp directory); concurrent test binaries share one build. Without
// mmdebstrap the test is skipped, or fails when CI=true.
func DebianRootfs(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("mmdebstrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("mmdebstrap is not installed (apt-get install mmdebstrap); CI must run the image tests")
		}
		t.Skip("mmdebstrap not installed")
	}
	base := os.Getenv("SCAND_TOOLS")
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "imagetest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "debian-bookworm-"+time.Now().UTC().Format("20060102")+".tar")
	lock, err := os.OpenFile(out+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(out); err == nil {
		return out
	}
	tmp := strings.TrimSuffix(out, ".tar") + ".partial.tar" // mmdebstrap picks the format by extension
	args := []string{"--variant=custom", "--include=" + strings.Join(DebianPackages, ","), "--quiet",
		"--dpkgopt=path-exclude=/usr/share/locale/*", "--dpkgopt=path-exclude=/usr/share/man/*",
		"--dpkgopt=path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*", "bookworm", tmp}
	if m := os.Getenv("SCAND_DEBIAN_MIRROR"); m != "" {
		args = append(args, m)
	}
	start := time.Now()
	cmd := exec.Command("mmdebstrap", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		t.Fatalf("mmdebstrap: %v\n%s", err, stderr.String())
	}
	t.Logf("mmdebstrap built the Debian root in %s", time.Since(start).Round(time.Millisecond))
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	return out
}
