//go:build ignore

// reevaluate-driver measures a re-evaluation of TARGETS targets (issue 27)
// for bench/reevaluate.sh. It lets the built daemon create its database,
// writes TARGETS completed scans into it directly in SQL, each with a
// generated SBOM of COMPONENTS npm components in one package-lock.json
// (every tenth target holds lodash 4.17.15 and minimist 1.2.0, which the
// fixture advisory data matches), starts the daemon again with the real
// osv-scanner and trivy and their offline data, starts one re-evaluation
// of every target through POST /api/v1/reevaluations and waits for it.
// It prints the wall time, the targets per status, the new matches and
// the daemon's peak RSS (VmHWM).
package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite"
)

var (
	bin        = flag.String("bin", "./scand", "scand binary")
	work       = flag.String("work", "", "working directory")
	nTargets   = flag.Int("targets", 1000, "targets")
	components = flag.Int("components", 100, "components in each target's SBOM")
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "reevaluate-driver:", err)
	os.Exit(1)
}

type daemon struct {
	cmd  *exec.Cmd
	base string
	log  *bytes.Buffer
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func start(db string) *daemon {
	port := freePort()
	cmd := exec.Command(*bin)
	cmd.Env = append(os.Environ(), "SVC_DB="+db, fmt.Sprintf("SVC_ADDR=127.0.0.1:%d", port), "SVC_VULNDB_DIR="+filepath.Join(*work, "vulndb"),
		"SVC_REEVALUATE_POLL=0", "HOME="+*work)
	log := &bytes.Buffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	d := &daemon{cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", port), log: log}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(d.base + "/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return d
			}
		}
		if time.Now().After(deadline) {
			fail(fmt.Errorf("daemon not ready:\n%s", log.String()))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *daemon) stop() {
	d.cmd.Process.Signal(syscall.SIGTERM)
	d.cmd.Wait()
}

// peakRSS is the daemon's VmHWM in MiB.
func (d *daemon) peakRSS() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "VmHWM:"), "kB")), &kb)
			return kb / 1024
		}
	}
	return -1
}

func (d *daemon) call(method, path, body string, out any) int {
	req, _ := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fail(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			fail(fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw))
		}
	}
	return resp.StatusCode
}

// writeScans adds the completed scans with their SBOMs.
func writeScans(path string) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		fail(err)
	}
	at := time.Now().UTC().Add(-24 * time.Hour)
	for i := 0; i < *nTargets; i++ {
		var comps []map[string]any
		add := func(name, version string) {
			comps = append(comps, map[string]any{"name": name, "version": version, "ecosystem": "npm", "purl": "pkg:npm/" + name + "@" + version,
				"scope": "transitive", "dev": false, "source": "package-lock.json", "line": len(comps) + 1, "licenses": []string{"MIT"}})
		}
		if i%10 == 0 {
			add("lodash", "4.17.15")
			add("minimist", "1.2.0")
		}
		for len(comps) < *components {
			add(fmt.Sprintf("bench-pkg-%d", len(comps)), fmt.Sprintf("1.%d.%d", i%7, len(comps)%13))
		}
		b, _ := json.Marshal(comps)
		ts := at.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000000Z")
		if _, err := tx.Exec(`INSERT INTO scans (id, target_path, scan_types, status, started_at, completed_at, components, aged, coverage)
			VALUES (?, ?, '["dependency"]', 'completed', ?, ?, ?, 1, '')`,
			fmt.Sprintf("00000000-0000-7000-8000-%012d", i), fmt.Sprintf("/srv/bench/app-%04d", i), ts, ts, string(b)); err != nil {
			fail(err)
		}
	}
	if err := tx.Commit(); err != nil {
		fail(err)
	}
}

func main() {
	flag.Parse()
	if *work == "" {
		fail(fmt.Errorf("-work is required"))
	}
	db := filepath.Join(*work, "scand.db")
	d := start(db)
	d.stop()
	t0 := time.Now()
	writeScans(db)
	fmt.Printf("wrote %d completed scans with %d components each in %s\n", *nTargets, *components, time.Since(t0).Round(time.Millisecond))

	d = start(db)
	defer d.stop()
	var run struct {
		ID              string         `json:"id"`
		Status          string         `json:"status"`
		TargetsTotal    int            `json:"targets_total"`
		TargetsByStatus map[string]int `json:"targets_by_status"`
		NewMatches      int            `json:"new_matches"`
	}
	start := time.Now()
	if code := d.call("POST", "/api/v1/reevaluations", "", &run); code != 202 {
		fail(fmt.Errorf("POST /reevaluations: %d", code))
	}
	last := time.Now()
	for run.Status == "pending" || run.Status == "running" {
		time.Sleep(time.Second)
		run.TargetsByStatus = nil // json.Unmarshal would merge into the old map
		d.call("GET", "/api/v1/reevaluations/"+run.ID, "", &run)
		if time.Since(last) > time.Minute {
			last = time.Now()
			fmt.Printf("  %s: %v, peak RSS so far %.0f MiB\n", time.Since(start).Round(time.Second), run.TargetsByStatus, d.peakRSS())
		}
	}
	wall := time.Since(start)
	fmt.Printf("re-evaluated %d targets (%v) in %s (%.2f s per target); new matches %d; status %s\n",
		run.TargetsTotal, run.TargetsByStatus, wall.Round(time.Millisecond), wall.Seconds()/float64(max(run.TargetsTotal, 1)), run.NewMatches, run.Status)
	rss := d.peakRSS()
	fmt.Printf("daemon peak RSS (VmHWM): %.1f MiB (bar: <= 300 MB)\n", rss)
	if run.Status != "completed" || run.TargetsByStatus["completed"] != *nTargets || rss > 300 {
		fmt.Fprintln(os.Stderr, d.log.String())
		os.Exit(1)
	}
}
