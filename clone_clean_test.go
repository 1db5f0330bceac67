package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBinaryLeavesCloneClean runs the daemon the way README's `go run .`
// does, with every default, inside a clone holding this repository's
// .gitignore, runs a scan, stops it, and wants `git status` to show
// nothing new: the database, its WAL files and its lock file must all be
// names .gitignore covers (or be gone).
func TestBinaryLeavesCloneClean(t *testing.T) {
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	clone := gitRepo(t, map[string]string{".gitignore": string(ignore), "main.go": "package main\n\nfunc main() {}\n"})
	p := startScandIn(t, clone, map[string]string{"SVC_ADDR": "127.0.0.1:0", "HOME": t.TempDir()})
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)

	body := `{"target_path":` + jsonString(clone) + `,"scan_types":["code"]}`
	resp, err := http.Post("http://"+addr+"/api/v1/scans", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var started struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&started)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 || started.ID == "" {
		t.Fatalf("POST /api/v1/scans: %d %+v", resp.StatusCode, started)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get("http://" + addr + "/api/v1/scans/" + started.ID)
		if err != nil {
			t.Fatal(err)
		}
		var scan struct{ Status string }
		json.NewDecoder(resp.Body).Decode(&scan)
		resp.Body.Close()
		if scan.Status == "completed" {
			break
		}
		if scan.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("scan %s: %q", started.ID, scan.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(clone, "scand.db.lock")); err != nil {
		t.Fatalf("the daemon holds no lock file in the clone (%v): the test no longer looks at the right place", err)
	}
	status := gitStatus(t, clone)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, p.stderr.String())
	}
	status += gitStatus(t, clone)
	if status != "" {
		t.Fatalf("the daemon left files git does not ignore in the clone:\n%s", status)
	}
}

func gitStatus(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all", "--ignored=no").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	return string(out)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
