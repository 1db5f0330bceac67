package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/auth"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/dast"
	"scand/scan/secrets"
	"scand/sse"
	"scand/store"
)

// confineToken is a GitHub token the secrets scanner reports; it lives
// outside every scan root, where no scan may read it.
const confineToken = "ghp_x423jAXT3vi7dHRCWVGNqkevtn0RKqoKaCmn"

// newConfinedHarness is a scan harness with SVC_SCAN_ROOTS set whose
// orchestrator is not started, so a test can change the tree between the
// moment a scan is accepted and the moment it runs.
func newConfinedHarness(t *testing.T, roots []string) *scanHarness {
	t.Helper()
	return newUnstartedHarness(t, scan.OrchestratorOptions{Scanners: []scan.Scanner{secrets.New(scan.Config{})}, MaxConcurrent: 1,
		CaptureComponents: components.CaptureJSON, ScanRoots: roots})
}

// newUnstartedHarness serves the API over a real store and an orchestrator
// built from o (its Store and Bus filled in) that the test starts itself.
func newUnstartedHarness(t *testing.T, o scan.OrchestratorOptions) *scanHarness {
	t.Helper()
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "scand.db")
	st, err := store.Open(ctx, dbPath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	bus := sse.NewBus(nil)
	o.Store, o.Bus = st, bus
	orch := scan.NewOrchestrator(o)
	d := Deps{Store: st, Auth: &auth.Authenticator{Store: st}, Limiter: auth.NewRateLimiter(60, 10, false), Bus: bus,
		EventSecret: []byte("test-secret"), Scans: orch, KeepAlive: 200 * time.Millisecond, ScanRoots: o.ScanRoots}
	h := &scanHarness{t: t, srv: httptest.NewServer(New(d).Handler()), store: st, orch: orch, bus: bus, dbPath: dbPath}
	t.Cleanup(h.close)
	return h
}

// confineLayout builds <base>/root/inside/proj (a harmless tree),
// <base>/outside/proj/token.sh (the secret) and <base>/root/link -> inside,
// so <root>/link/proj is the target a client names.
func confineLayout(t *testing.T) (base, root string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "root")
	for _, dir := range []string{filepath.Join(root, "inside", "proj"), filepath.Join(base, "outside", "proj")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "inside", "proj", "README"), []byte("nothing secret here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "outside", "proj", "token.sh"), []byte("export GH_TOKEN="+confineToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inside", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	return base, root
}

func (h *scanHarness) waitTerminal(id string) ScanView {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		_, out, _ := h.do("GET", "/api/v1/scans/"+id, nil)
		var v ScanView
		json.Unmarshal(out, &v)
		if store.TerminalStatus(v.Status) {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("scan %s did not end within 60 s", id)
	return ScanView{}
}

func (h *scanHarness) assertNoToken(id string) {
	h.t.Helper()
	_, out, _ := h.do("GET", "/api/v1/scans/"+id+"/findings", nil)
	if strings.Contains(string(out), "ghp_") || strings.Contains(string(out), "token.sh") {
		h.t.Fatalf("a file outside every scan root was read and reported: %s", out)
	}
}

// TestConfinementSurvivesRepointedSymlink is issue 12's attack: a target
// accepted while a symlink in its path pointed inside a root, re-pointed
// outside before the scan runs. The scan must read what was accepted.
func TestConfinementSurvivesRepointedSymlink(t *testing.T) {
	base, root := confineLayout(t)
	h := newConfinedHarness(t, []string{root})
	v := h.startScan(map[string]any{"target_path": filepath.Join(root, "link", "proj"), "scan_types": []string{"code"}})
	if want := filepath.Join(root, "inside", "proj"); v.TargetPath != want {
		t.Errorf("stored target_path %q, want the resolved real path %q", v.TargetPath, want)
	}
	link := filepath.Join(root, "link")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside"), link); err != nil {
		t.Fatal(err)
	}
	if err := h.orch.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	end := h.waitTerminal(v.ID)
	h.assertNoToken(v.ID)
	if end.Status != "completed" {
		t.Errorf("scan of the accepted directory ended %s (%v), want completed", end.Status, end.Error)
	}
}

// TestConfinementRecheckedAtScanStart replaces the accepted real directory
// itself with a symlink out of the roots: the scan must fail, saying why,
// and read nothing.
func TestConfinementRecheckedAtScanStart(t *testing.T) {
	base, root := confineLayout(t)
	h := newConfinedHarness(t, []string{root})
	v := h.startScan(map[string]any{"target_path": filepath.Join(root, "link", "proj"), "scan_types": []string{"code"}})
	accepted := filepath.Join(root, "inside", "proj")
	if err := os.Rename(accepted, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside", "proj"), accepted); err != nil {
		t.Fatal(err)
	}
	if err := h.orch.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	end := h.waitTerminal(v.ID)
	h.assertNoToken(v.ID)
	if end.Status != "failed" || end.Error == nil || !strings.Contains(*end.Error, "outside the allowed scan roots") {
		t.Fatalf("scan ended %s (%v), want failed saying the target left the scan roots", end.Status, end.Error)
	}
}

// TestOnlyTreeScansWalkTheTree: a dast-only scan names a target_path but
// must not walk it (component capture walked /tmp for a minute before);
// it runs even when the path is gone. A code scan of the same tree still
// captures its components.
func TestOnlyTreeScansWalkTheTree(t *testing.T) {
	var mu sync.Mutex
	var walked []string
	capture := func(ctx context.Context, root string) ([]byte, error) {
		mu.Lock()
		walked = append(walked, root)
		mu.Unlock()
		return components.CaptureJSON(ctx, root)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok"))
	}))
	defer web.Close()
	h := newUnstartedHarness(t, scan.OrchestratorOptions{Scanners: []scan.Scanner{dast.New(scan.Config{}), secrets.New(scan.Config{})},
		MaxConcurrent: 1, CaptureComponents: capture})
	lock, err := os.ReadFile(filepath.Join("..", "testdata", "components", "npm-v3", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	tree := writeTree(t, map[string]string{"package-lock.json": string(lock)})
	gone := writeTree(t, map[string]string{"package-lock.json": string(lock)})
	dastOnly := h.startScan(map[string]any{"target_path": tree, "scan_types": []string{"dast"}, "target_url": web.URL})
	dastGone := h.startScan(map[string]any{"target_path": gone, "scan_types": []string{"dast"}, "target_url": web.URL})
	code := h.startScan(map[string]any{"target_path": tree, "scan_types": []string{"code"}})
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	if err := h.orch.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{dastOnly.ID, dastGone.ID, code.ID} {
		if v := h.waitTerminal(id); v.Status != "completed" {
			t.Errorf("scan %s ended %s (%v), want completed", id, v.Status, v.Error)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(walked) != 1 || walked[0] != tree {
		t.Fatalf("component capture walked %q, want only the code scan's tree", walked)
	}
	for id, want := range map[string]bool{dastOnly.ID: false, code.ID: true} {
		comps, err := h.store.ScanComponents(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(comps), `"name"`); got != want {
			t.Errorf("scan %s stored components %s, want components=%v", id, comps, want)
		}
	}
}
