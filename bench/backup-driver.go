//go:build ignore

// backup-driver measures issue 29's bars at scale through the real binary:
// it starts a daemon on a fresh database, ingests a tree in which the
// secrets scanner finds N secrets (bench/scale-tree.go, as bench/scale.sh
// does), adds T small scans of T distinct directories (T targets), then
//
//   - times GET /metrics (median, p95 and max of 50 scrapes);
//   - times `scand backup` beside the running daemon and reads the
//     backup process's peak RSS (getrusage ru_maxrss);
//   - times POST /api/v1/admin/backup and reads the daemon's peak RSS
//     during it (VmHWM, reset through /proc/PID/clear_refs first);
//   - times `scand restore` of that backup into a new file.
//
// Usage: go run ./bench/backup-driver.go -bin ./scand -tree DIR -n N [-targets 1000] [-work DIR]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	bin     = flag.String("bin", "./scand", "scand binary")
	tree    = flag.String("tree", "", "tree to scan")
	n       = flag.Int("n", 0, "findings the tree yields (for the table)")
	targets = flag.Int("targets", 1000, "small scans of distinct directories (targets)")
	work    = flag.String("work", "", "working directory (default: a temp dir)")
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "backup-driver:", err)
	os.Exit(1)
}

type daemon struct {
	cmd  *exec.Cmd
	base string
	db   string
	cl   *http.Client
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func start(dir string) *daemon {
	port := freePort()
	d := &daemon{base: "http://127.0.0.1:" + strconv.Itoa(port), db: filepath.Join(dir, "scand.db"), cl: &http.Client{Timeout: 30 * time.Minute}}
	d.cmd = exec.Command(*bin)
	// Only the built-in scanners (PATH without the wrapped tools): a tool
	// started for each of the small scans would measure the tool.
	d.cmd.Env = []string{"PATH=/nonexistent", "HOME=" + dir, "SVC_DB=" + d.db, "SVC_ADDR=127.0.0.1:" + strconv.Itoa(port),
		"SVC_RATE_LIMIT_ENABLED=false", "SVC_SECRETS_HISTORY=0", "SVC_LOG_LEVEL=warn", "SVC_METRICS=public",
		"SVC_MAX_CONCURRENT_SCANS=8", "SVC_BACKUP_DIR=" + filepath.Join(dir, "backups")}
	logf, err := os.Create(filepath.Join(dir, "daemon.log"))
	if err != nil {
		fail(err)
	}
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	if err := d.cmd.Start(); err != nil {
		fail(err)
	}
	for i := 0; i < 400; i++ {
		if resp, err := http.Get(d.base + "/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return d
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	fail(fmt.Errorf("daemon did not become ready; see %s", logf.Name()))
	return nil
}

func (d *daemon) stop() {
	d.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
}

func (d *daemon) do(method, path string, body any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, d.base+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := d.cl.Do(req)
	if err != nil {
		fail(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (d *daemon) startScan(target string) string {
	code, out := d.do("POST", "/api/v1/scans", map[string]any{"target_path": target, "scan_types": []string{"code"}})
	if code != 200 {
		fail(fmt.Errorf("start scan: %d %s", code, out))
	}
	var sc struct{ ID string }
	json.Unmarshal(out, &sc)
	return sc.ID
}

func (d *daemon) wait(id string) {
	for {
		_, out := d.do("GET", "/api/v1/scans/"+id, nil)
		var st struct{ Status string }
		json.Unmarshal(out, &st)
		switch st.Status {
		case "completed":
			return
		case "failed", "cancelled":
			fail(fmt.Errorf("scan %s: %s", id, out))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// procStatus reads one field (kB) of /proc/PID/status.
func procStatus(pid int, field string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			v, _ := strconv.Atoi(strings.Fields(line)[1])
			return v
		}
	}
	return -1
}

// runTimed runs the binary and returns its wall time and peak RSS (MB).
func runTimed(args ...string) (time.Duration, float64, string) {
	cmd := exec.Command(*bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		fail(fmt.Errorf("scand %v: %v\n%s", args, err, out.String()))
	}
	took := time.Since(t0)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return took, float64(ru.Maxrss) / 1024, out.String()
}

func main() {
	flag.Parse()
	dir := *work
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "scand-backup-bench"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	}
	d := start(dir)
	defer d.stop()
	t0 := time.Now()
	d.wait(d.startScan(*tree))
	fmt.Printf("ingest of %d findings: %s\n", *n, time.Since(t0).Round(time.Second))

	t0 = time.Now()
	secret := "token_1 = \"ghp_Zq8mN3vR7tY2wX5kP9sL4jH6gF1dC0bVaQeU\"\n"
	var ids []string
	for i := 0; i < *targets; i++ {
		t := filepath.Join(dir, "targets", fmt.Sprintf("t%04d", i))
		os.MkdirAll(t, 0o755)
		os.WriteFile(filepath.Join(t, "a.conf"), []byte(secret), 0o644)
		ids = append(ids, d.startScan(t))
	}
	for _, id := range ids {
		d.wait(id)
	}
	fmt.Printf("%d small scans of %d distinct targets: %s\n", *targets, *targets, time.Since(t0).Round(time.Second))

	// /metrics: one warm-up, then 50 timed scrapes.
	d.do("GET", "/metrics", nil)
	var lat []time.Duration
	var body []byte
	for i := 0; i < 50; i++ {
		t := time.Now()
		code, b := d.do("GET", "/metrics", nil)
		lat = append(lat, time.Since(t))
		if code != 200 {
			fail(fmt.Errorf("/metrics: %d", code))
		}
		body = b
	}
	slices.Sort(lat)
	fmt.Printf("GET /metrics (%d bytes): median %s, p95 %s, max %s\n", len(body),
		lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*95/100].Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "scand_scans{") || strings.HasPrefix(line, "scand_database_size_bytes") {
			fmt.Println("  " + line)
		}
	}

	cliBackup := filepath.Join(dir, "cli-backup.db")
	took, peak, out := runTimed("backup", "-db", d.db, cliBackup)
	fmt.Printf("scand backup beside the running daemon: %s, peak RSS %.0f MB\n  %s\n", took.Round(100*time.Millisecond), peak,
		strings.SplitN(out, "\n", 2)[0])

	pid := d.cmd.Process.Pid
	os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
	rssBefore := float64(procStatus(pid, "VmRSS")) / 1024
	t0 = time.Now()
	code, resp := d.do("POST", "/api/v1/admin/backup", map[string]any{"name": "api-backup.db"})
	if code != 201 {
		fail(fmt.Errorf("POST /admin/backup: %d %s", code, resp))
	}
	fmt.Printf("POST /admin/backup: %s, daemon RSS %.0f MB before, peak %.0f MB during\n", time.Since(t0).Round(100*time.Millisecond),
		rssBefore, float64(procStatus(pid, "VmHWM"))/1024)

	restored := filepath.Join(dir, "restored.db")
	took, peak, _ = runTimed("restore", "-db", restored, cliBackup)
	fmt.Printf("scand restore into a new file: %s, peak RSS %.0f MB\n", took.Round(100*time.Millisecond), peak)
}
