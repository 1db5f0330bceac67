package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startScandOnTmpfs runs the binary with its database on a small tmpfs of
// its own: unshare(1) gives it a private user and mount namespace (no
// root needed where unprivileged user namespaces are allowed, as on
// Debian), mounts the tmpfs there and execs scand in the same process. The
// test reaches that file system through /proc/<pid>/root.
func startScandOnTmpfs(t *testing.T, sizeMiB int) (p *scandProcess, fsDir string) {
	t.Helper()
	bin := buildScand(t)
	unshare, err := exec.LookPath("unshare")
	if err == nil {
		err = exec.Command(unshare, "--user", "--map-root-user", "--mount", "true").Run()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no private mount namespace for a tmpfs (unshare from util-linux, user namespaces): %v", err)
		}
		t.Skipf("cannot create a private mount namespace for a tmpfs: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "fs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	script := `mount -t tmpfs -o size="$1" scand-test "$2" && exec "$3"`
	cmd := exec.Command(unshare, "--user", "--map-root-user", "--mount", "--propagation", "private",
		"sh", "-c", script, "sh", strconv.Itoa(sizeMiB)+"m", dir, bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SVC_ADDR=127.0.0.1:0", "SVC_DB=" + filepath.Join(dir, "scand.db")}
	p = &scandProcess{cmd: cmd, stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			<-p.exited
		}
	})
	// unshare and sh exec, so the pid is scand's and its root shows the tmpfs.
	return p, filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "root", dir)
}

// fillFileSystem writes filler until the file system refuses another byte.
func fillFileSystem(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 16, 1 << 12, 1 << 9, 1} {
		chunk := make([]byte, size)
		for {
			if _, err := f.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("filling %s: %v, want ENOSPC", path, err)
				}
				break
			}
		}
	}
}

type httpResult struct {
	status int
	body   map[string]any // nil when the body is not a JSON object
	ctype  string
}

func call(t *testing.T, method, url, body string) httpResult {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	res := httpResult{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type")}
	var decoded any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &decoded); err != nil {
			t.Fatalf("%s %s: %d with a non-JSON body %q", method, url, resp.StatusCode, raw)
		}
	}
	res.body, _ = decoded.(map[string]any)
	return res
}

// TestBinaryDiskFull fills the file system under a running daemon's
// database for real: writes answer 507 with a clear detail (not a generic
// 500), reads keep working, /ready turns 503 and names the cause, and
// once space is freed /ready and writes recover without a restart.
func TestBinaryDiskFull(t *testing.T) {
	p, fsDir := startScandOnTmpfs(t, 8)
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	base := "http://" + addr + "/api/v1"
	target := t.TempDir()

	hook := call(t, "POST", base+"/webhooks", `{"name":"h","url":"http://127.0.0.1:9/hook","event_filter":["scan.complete"]}`)
	if hook.status != 201 {
		t.Fatalf("creating a webhook before the disk fills: %d %v", hook.status, hook.body)
	}
	hookID, _ := hook.body["id"].(string)

	fillFileSystem(t, filepath.Join(fsDir, "filler"))

	writes := []struct{ method, path, body string }{
		{"POST", "/keys", `{"name":"after-full","scopes":["read"]}`},
		{"POST", "/scans", `{"target_path":"` + target + `","scan_types":["iac"]}`},
		{"POST", "/webhooks", `{"name":"h2","url":"http://127.0.0.1:9/hook2","event_filter":["scan.complete"]}`},
		{"POST", "/webhooks/" + hookID + "/test", ""},
	}
	for _, w := range writes {
		res := call(t, w.method, base+w.path, w.body)
		detail, _ := res.body["detail"].(string)
		if res.status != http.StatusInsufficientStorage || !strings.Contains(detail, "disk") || !strings.Contains(detail, "full") {
			t.Errorf("%s %s on a full disk: %d %v, want 507 with a detail about the full disk", w.method, w.path, res.status, res.body)
		}
		if res.ctype != "application/json" {
			t.Errorf("%s %s: Content-Type %q", w.method, w.path, res.ctype)
		}
	}
	if res := call(t, "GET", base+"/webhooks", ""); res.status != 200 {
		t.Errorf("reads must keep working on a full disk: GET /webhooks %d %v", res.status, res.body)
	}
	ready := call(t, "GET", "http://"+addr+"/ready", "")
	checks, _ := ready.body["checks"].(map[string]any)
	detail, _ := ready.body["detail"].(string)
	if ready.status != 503 || checks["database"] != "disk_full" || !strings.Contains(detail, "full") {
		t.Fatalf("/ready on a full disk: %d %v, want 503 with checks.database disk_full and a detail", ready.status, ready.body)
	}
	if !strings.Contains(p.stderr.String(), `"msg":"database disk full"`) {
		t.Errorf("no log line explaining the 507s:\n%s", p.stderr.String())
	}

	if err := os.Remove(filepath.Join(fsDir, "filler")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		ready = call(t, "GET", "http://"+addr+"/ready", "")
		if ready.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/ready still %d %v 15 s after space was freed", ready.status, ready.body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if res := call(t, "POST", base+"/keys", `{"name":"after-recovery","scopes":["read"]}`); res.status != 201 {
		t.Fatalf("write after space was freed: %d %v", res.status, res.body)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit code %d after SIGTERM:\n%s", code, p.stderr.String())
	}
}

// scrapeMetrics reads /metrics (dev mode: no key needed) and returns the
// value of each series asked for ("" when absent).
func scrapeMetrics(t *testing.T, addr string, series ...string) map[string]string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %d %s", resp.StatusCode, body)
	}
	out := map[string]string{}
	for _, s := range series {
		out[s] = ""
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, s+" "); ok {
				out[s] = v
			}
		}
	}
	return out
}

// TestBinaryReadyFollowsDiskSpace: with the database's file system filled
// and nothing written meanwhile, /ready turns 503 (disk_full) within 5 s
// and /metrics says why; once space is freed it is 200 again within 5 s.
func TestBinaryReadyFollowsDiskSpace(t *testing.T) {
	p, fsDir := startScandOnTmpfs(t, 8)
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	ready := `scand_ready`
	diskFull := `scand_database_failure{reason="disk_full"}`
	if m := scrapeMetrics(t, addr, ready, diskFull); m[ready] != "1" || m[diskFull] != "0" {
		t.Fatalf("healthy daemon: metrics %v", m)
	}
	// waitStatus polls /ready until it answers want, and returns how long
	// that took.
	waitStatus := func(want int, within time.Duration) (time.Duration, httpResult) {
		start := time.Now()
		for {
			res := call(t, "GET", "http://"+addr+"/ready", "")
			if res.status == want {
				return time.Since(start), res
			}
			if time.Since(start) > within {
				t.Fatalf("/ready still %d %v after %v, want %d", res.status, res.body, within, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	fillFileSystem(t, filepath.Join(fsDir, "filler"))
	took, res := waitStatus(503, 5*time.Second)
	checks, _ := res.body["checks"].(map[string]any)
	if checks["database"] != "disk_full" {
		t.Fatalf("/ready on a full disk: %v, want checks.database disk_full", res.body)
	}
	t.Logf("/ready 503 %v after the disk filled", took.Round(time.Millisecond))
	if m := scrapeMetrics(t, addr, ready, diskFull); m[ready] != "0" || m[diskFull] != "1" {
		t.Fatalf("full disk: metrics %v, want scand_ready 0 and disk_full 1", m)
	}
	if err := os.Remove(filepath.Join(fsDir, "filler")); err != nil {
		t.Fatal(err)
	}
	took, _ = waitStatus(200, 5*time.Second)
	t.Logf("/ready 200 %v after space was freed", took.Round(time.Millisecond))
	if m := scrapeMetrics(t, addr, ready, diskFull); m[ready] != "1" || m[diskFull] != "0" {
		t.Fatalf("after space was freed: metrics %v", m)
	}
	if res := call(t, "POST", "http://"+addr+"/api/v1/keys", `{"name":"after-recovery","scopes":["read"]}`); res.status != 201 {
		t.Fatalf("write after space was freed: %d %v", res.status, res.body)
	}
}
