package api

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/auth"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/proc"
	"scand/scan/registry"
	"scand/scan/secrets"
	"scand/scan/workdir"
	"scand/sse"
	"scand/store"
)

// newTargetsHarness serves the API over an orchestrator that prepares
// image and repository targets for real (with the secrets scanner only).
func newTargetsHarness(t *testing.T, roots []string) *scanHarness {
	t.Helper()
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "scand.db")
	st, err := store.Open(ctx, dbPath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	refuse := func(a netip.Addr) string {
		if a.Unmap().IsLinkLocalUnicast() {
			return "link-local address"
		}
		return ""
	}
	cfg := scan.Config{Runner: proc.NewRunner(time.Minute)}
	bus := sse.NewBus(nil)
	orch := scan.NewOrchestrator(scan.OrchestratorOptions{Store: st, Bus: bus, Scanners: []scan.Scanner{secrets.New(cfg)}, MaxConcurrent: 1,
		CaptureComponents: components.CaptureJSON,
		Targets: registry.Targets(cfg, registry.TargetOptions{Work: work, ScanRoots: roots, RefuseAddress: refuse,
			Timeout: 30 * time.Second})})
	d := Deps{Store: st, Auth: &auth.Authenticator{Store: st}, Limiter: auth.NewRateLimiter(60, 10, false), Bus: bus,
		EventSecret: []byte("test-secret"), Scans: orch, ScanRoots: roots, Git: GitPolicy{Allow: []string{"127.0.0.1", ".corp.example"}, RefuseAddress: refuse}}
	srv := httptest.NewServer(New(d).Handler())
	if err := orch.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h := &scanHarness{t: t, srv: srv, store: st, orch: orch, bus: bus, dbPath: dbPath}
	t.Cleanup(func() { h.close(); work.Close() })
	return h
}

// dockerArchive writes a one-layer `docker save` archive by hand.
func dockerArchive(t *testing.T, path string, files map[string]string) (diffID string) {
	t.Helper()
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	sum := sha256.Sum256(layer.Bytes())
	diffID = "sha256:" + hex.EncodeToString(sum[:])
	cfg, _ := json.Marshal(map[string]any{"architecture": "arm64", "variant": "v8", "os": "linux", "config": map[string]any{"User": "app"},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID}}})
	cs := sha256.Sum256(cfg)
	cfgName := hex.EncodeToString(cs[:]) + ".json"
	man, _ := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": []string{"shop/web:3"}, "Layers": []string{"l1/layer.tar"}}})
	var out bytes.Buffer
	aw := tar.NewWriter(&out)
	for _, f := range []struct {
		name string
		body []byte
	}{{"manifest.json", man}, {cfgName, cfg}, {"l1/layer.tar", layer.Bytes()}} {
		aw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body))})
		aw.Write(f.body)
	}
	aw.Close()
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return diffID
}

func TestStartImageScan(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "web.tar")
	diffID := dockerArchive(t, archive, map[string]string{"srv/app/settings.env": "GITHUB_TOKEN=ghp_R8kQ2vX9mT4wL7nB3pZ6yC1dF5hJ0sG2aE4u\n"})
	h := newTargetsHarness(t, []string{dir})
	v := h.startScan(map[string]any{"target_image": map[string]any{"path": archive}, "scan_types": []string{"code"}})
	if v.TargetPath != archive || v.TargetImage == nil || v.TargetImage.Path != archive || v.TargetImage.Digest != nil || v.TargetRepo != nil {
		t.Fatalf("new scan = %+v", v)
	}
	done := h.waitStatus(v.ID, "completed")
	img := done.TargetImage
	if img == nil || img.Digest == nil || !strings.HasPrefix(*img.Digest, "sha256:") || *img.OS != "linux" || *img.Architecture != "arm64/v8" ||
		*img.Format != "docker-archive" || len(img.Layers) != 1 || img.Layers[0] != diffID || len(img.Tags) != 1 || img.Tags[0] != "shop/web:3" {
		b, _ := json.Marshal(img)
		t.Fatalf("target_image = %s", b)
	}
	_, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/findings", nil)
	if !strings.Contains(string(out), `"file_path":"`+diffID+`:/srv/app/settings.env"`) {
		t.Errorf("findings do not point at the layer: %s", out)
	}
	_, list, _ := h.do("GET", "/api/v1/scans", nil)
	if !strings.Contains(string(list), `"target_image":{"path":"`+archive) || !strings.Contains(string(list), `"target_repo":null`) {
		t.Errorf("list lacks the target: %s", list)
	}
}

func TestStartTargetValidation(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "web.tar")
	dockerArchive(t, archive, map[string]string{"a": "b"})
	outside := filepath.Join(t.TempDir(), "other.tar")
	dockerArchive(t, outside, map[string]string{"a": "b"})
	h := newTargetsHarness(t, []string{dir})
	cases := []struct {
		name string
		body map[string]any
		code int
		want string
	}{
		{"no target", map[string]any{}, 422, `"loc":["body","target_path"]`},
		{"two targets", map[string]any{"target_path": dir, "target_image": map[string]any{"path": archive}}, 422, `"loc":["body","target_image"]`},
		{"three targets", map[string]any{"target_path": dir, "target_image": map[string]any{"path": archive}, "target_repo": map[string]any{"url": "https://127.0.0.1/x.git"}}, 422, "exactly one of target_path, target_image, target_repo"},
		{"relative image path", map[string]any{"target_image": map[string]any{"path": "web.tar"}}, 422, `"loc":["body","target_image","path"]`},
		{"missing image", map[string]any{"target_image": map[string]any{"path": filepath.Join(dir, "nope.tar")}}, 422, "existing image archive"},
		{"image outside the roots", map[string]any{"target_image": map[string]any{"path": outside}}, 403, "SVC_SCAN_ROOTS"},
		{"image path wrong type", map[string]any{"target_image": "web.tar"}, 422, `"loc":["body","target_image"]`},
		{"credentials in the URL", map[string]any{"target_repo": map[string]any{"url": "https://bot:hunter2@127.0.0.1/x.git"}}, 422, "must not contain credentials"},
		{"http URL", map[string]any{"target_repo": map[string]any{"url": "http://127.0.0.1/x.git"}}, 422, "scheme must be https, ssh or git"},
		{"scp-style", map[string]any{"target_repo": map[string]any{"url": "git@127.0.0.1:team/x.git"}}, 422, "ssh://user@host/path"},
		{"host not allowed", map[string]any{"target_repo": map[string]any{"url": "https://github.com/x/y.git"}}, 422, "SVC_GIT_ALLOW"},
		{"metadata address", map[string]any{"target_repo": map[string]any{"url": "https://169.254.169.254/x.git"}}, 422, "not in SVC_GIT_ALLOW"},
		{"bad ref", map[string]any{"target_repo": map[string]any{"url": "https://127.0.0.1/x.git", "ref": "--upload-pack=sh"}}, 422, `"loc":["body","target_repo","ref"]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := h.do("POST", "/api/v1/scans", tc.body)
			if code != tc.code || !strings.Contains(string(out), tc.want) {
				t.Errorf("%d %s; want %d with %s", code, out, tc.code, tc.want)
			}
			if strings.Contains(string(out), "hunter2") {
				t.Errorf("the password is echoed: %s", out)
			}
		})
	}
}

// A repository scan is stored with its URL and options; a server that
// cannot be reached fails the scan with git's reason.
func TestStartRepoScan(t *testing.T) {
	h := newTargetsHarness(t, nil)
	v := h.startScan(map[string]any{"target_repo": map[string]any{"url": "https://127.0.0.1:1/team/app.git", "ref": "release/2.1", "history": true}})
	r := v.TargetRepo
	if v.TargetPath != "https://127.0.0.1:1/team/app.git" || r == nil || r.URL != v.TargetPath || r.Ref == nil || *r.Ref != "release/2.1" ||
		!r.History || r.Submodules || r.Commit != nil || v.TargetImage != nil {
		b, _ := json.Marshal(v)
		t.Fatalf("new scan = %s", b)
	}
	done := h.waitStatus(v.ID, "failed")
	if done.Error == nil || !strings.Contains(*done.Error, "git fetch failed") {
		t.Errorf("error = %v", done.Error)
	}
}
