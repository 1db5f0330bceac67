//go:build ignore

// scale-driver measures scand at N findings through its real HTTP API, for
// bench/scale.sh: it starts a fresh daemon on a fresh database, ingests a
// tree in which the secrets scanner finds N secrets (bench/scale-tree.go),
// then times every operation of issue 13's table and reads the daemon's
// peak RSS around each one (VmHWM from /proc/PID/status, reset between
// operations through /proc/PID/clear_refs), and prints one table.
//
//   - ingest A: POST /scans → completed, alone.
//   - ingest B of the same tree while 32 readers page scan A and a writer
//     posts a comment every 50 ms: errors and the writer's latencies.
//   - findings pages (first, 90 %, last) with and without filters, each
//     reached by cursor (the cursor comes from an offset request that is
//     not timed); median of 5.
//   - the NDJSON export of every finding ("reading the rows"), compare A/B,
//     SARIF, HTML report, coverage, dashboard stats and trends.
//   - DELETE of scan B while the comment writer keeps writing: time until
//     the database file is back within 10 % of its size before B was
//     ingested, and the writer's latencies meanwhile; then DELETE of A
//     and the file size once it stops shrinking.
//   - -small K: K scans of a one-secret tree, then dashboard stats/trends.
//
// Usage: go run ./bench/scale-driver.go -bin ./scand -tree DIR -n N [-small 10000]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	bin   = flag.String("bin", "./scand", "scand binary")
	tree  = flag.String("tree", "", "tree to scan")
	n     = flag.Int("n", 0, "findings the tree yields (for the table)")
	small = flag.Int("small", 0, "also measure the dashboard with this many small scans")
	work  = flag.String("work", "", "working directory (default: a temp dir)")
)

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

// running is the daemon started last: fail stops it, so that a failed
// run leaves no daemon behind to load the machine.
var running *daemon

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scale-driver:", err)
	if running != nil && running.cmd.Process != nil {
		running.cmd.Process.Kill()
	}
	os.Exit(1)
}

func start(dir string, extra ...string) *daemon {
	port := freePort()
	d := &daemon{base: "http://127.0.0.1:" + strconv.Itoa(port), db: filepath.Join(dir, "scand.db"),
		cl: &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	d.cmd = exec.Command(*bin)
	d.cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + dir, "SVC_DB=" + d.db, "SVC_ADDR=127.0.0.1:" + strconv.Itoa(port),
		"SVC_RATE_LIMIT_ENABLED=false", "SVC_SECRETS_HISTORY=0", "SVC_LOG_LEVEL=warn"}, extra...)
	logf, err := os.Create(filepath.Join(dir, "daemon.log"))
	if err != nil {
		fail(err)
	}
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	if err := d.cmd.Start(); err != nil {
		fail(err)
	}
	running = d
	for i := 0; i < 200; i++ {
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
	case <-time.After(20 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
}

// status reads one field (kB) of /proc/PID/status.
func (d *daemon) status(field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			v, _ := strconv.Atoi(strings.Fields(line)[1])
			return v
		}
	}
	return -1
}

// resetPeak makes VmHWM start again from the current RSS.
func (d *daemon) resetPeak() {
	os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", d.cmd.Process.Pid), []byte("5"), 0)
}

func (d *daemon) peakMB() float64 { return float64(d.status("VmHWM")) / 1024 }

func (d *daemon) do(method, path string, body any) (int, http.Header, []byte, error) {
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
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

// drain reads a response to the end without keeping it: the bytes count.
func (d *daemon) drain(path string) (int, int64, error) {
	resp, err := d.cl.Get(d.base + path)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, bufio.NewReaderSize(resp.Body, 1<<20))
	return resp.StatusCode, n, err
}

func (d *daemon) scan(target string) (string, time.Duration) {
	t0 := time.Now()
	code, _, out, err := d.do("POST", "/api/v1/scans", map[string]any{"target_path": target, "scan_types": []string{"code"}})
	if err != nil || code != 200 {
		fail(fmt.Errorf("start scan: %d %s %v", code, out, err))
	}
	var sc struct{ ID string }
	json.Unmarshal(out, &sc)
	for {
		time.Sleep(50 * time.Millisecond)
		_, _, out, err := d.do("GET", "/api/v1/scans/"+sc.ID, nil)
		if err != nil {
			fail(err)
		}
		var st struct{ Status string }
		json.Unmarshal(out, &st)
		switch st.Status {
		case "completed":
			return sc.ID, time.Since(t0)
		case "failed", "cancelled":
			fail(fmt.Errorf("scan %s: %s", sc.ID, out))
		}
	}
}

type row struct {
	op    string
	dur   time.Duration
	peak  float64
	notes string
}

var rows []row

func record(op string, d time.Duration, peak float64, notes string) {
	rows = append(rows, row{op, d, peak, notes})
	fmt.Fprintf(os.Stderr, "  %-46s %10s %7.0f MB  %s\n", op, fmtDur(d), peak, notes)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// timed measures fn with the daemon's peak RSS reset first.
func timed(d *daemon, op string, notes string, fn func()) time.Duration {
	d.resetPeak()
	t0 := time.Now()
	fn()
	el := time.Since(t0)
	record(op, el, d.peakMB(), notes)
	return el
}

// commentWriter posts a comment every 50 ms until stop closes.
func commentWriter(d *daemon, fp string, stop chan struct{}) (func() ([]time.Duration, int), *sync.WaitGroup) {
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			t0 := time.Now()
			code, _, _, err := d.do("POST", "/api/v1/findings/"+fp+"/comments", map[string]any{"text": "bench"})
			el := time.Since(t0)
			mu.Lock()
			lat = append(lat, el)
			if err != nil || code >= 300 {
				errs++
			}
			mu.Unlock()
		}
	}()
	return func() ([]time.Duration, int) { mu.Lock(); defer mu.Unlock(); return lat, errs }, &wg
}

func main() {
	flag.Parse()
	if *tree == "" {
		fail(fmt.Errorf("-tree is required"))
	}
	dir := *work
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "scand-scale-"); err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
	}
	d := start(dir)
	defer d.stop()
	fmt.Fprintf(os.Stderr, "== N=%d tree=%s daemon pid %d\n", *n, *tree, d.cmd.Process.Pid)
	idle := float64(d.status("VmRSS")) / 1024
	size0 := settledSize(d.db)

	var a string
	var ingestA time.Duration
	d.resetPeak()
	a, ingestA = d.scan(*tree)
	record("ingest A (POST -> completed)", ingestA, d.peakMB(), fmt.Sprintf("%.0f findings/s, idle RSS before %.0f MB", float64(*n)/ingestA.Seconds(), idle))
	_, _, out, _ := d.do("GET", "/api/v1/scans/"+a+"/summary", nil)
	var sum struct {
		Total      int
		Suppressed int
	}
	json.Unmarshal(out, &sum)
	fmt.Fprintf(os.Stderr, "  summary: %s\n", out)
	_, hdr, first, _ := d.do("GET", "/api/v1/scans/"+a+"/findings?limit=3", nil)
	var fs []struct{ Fingerprint string }
	json.Unmarshal(first, &fs)
	if len(fs) == 0 {
		fail(fmt.Errorf("scan A has no findings: %s", first))
	}
	total, _ := strconv.Atoi(hdr.Get("X-Total-Count"))
	// A few verdicts, so the triage filter has something to find.
	_, _, some, _ := d.do("GET", "/api/v1/scans/"+a+"/findings?offset="+strconv.Itoa(total/3)+"&limit=20", nil)
	var fv []struct{ Fingerprint string }
	json.Unmarshal(some, &fv)
	for _, f := range fv {
		d.do("PATCH", "/api/v1/findings/"+f.Fingerprint+"/state", map[string]any{"status": "false_positive", "note": "bench"})
	}

	// Ingest B under load: 32 readers on A, one comment writer.
	sizeBeforeB := settledSize(d.db)
	stop := make(chan struct{})
	var readErrs, reads atomic.Int64
	var rwg sync.WaitGroup
	for i := 0; i < 32; i++ {
		rwg.Add(1)
		go func(i int) {
			defer rwg.Done()
			rng := rand.New(rand.NewSource(int64(i)))
			paths := []string{"/api/v1/scans/" + a + "/findings", "/api/v1/scans/" + a + "/summary", "/api/v1/dashboard/stats",
				"/api/v1/scans?limit=20", "/api/v1/scans/" + a + "/findings?severity=high&offset=" + strconv.Itoa(total/2)}
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, _, err := d.drain(paths[rng.Intn(len(paths))])
				reads.Add(1)
				if err != nil || code != 200 {
					readErrs.Add(1)
				}
			}
		}(i)
	}
	latencies, wwg := commentWriter(d, fs[0].Fingerprint, stop)
	d.resetPeak()
	b, ingestB := d.scan(*tree)
	close(stop)
	rwg.Wait()
	wwg.Wait()
	lat, werrs := latencies()
	record("ingest B with 32 readers + comment writer", ingestB, d.peakMB(),
		fmt.Sprintf("%d reads, %d read errors; %d comments, %d errors, writer p50 %s p99 %s max %s", reads.Load(), readErrs.Load(),
			len(lat), werrs, fmtDur(pct(lat, .5)), fmtDur(pct(lat, .99)), fmtDur(pct(lat, 1))))

	// Pages, reached by cursor.
	pageAt := func(filter string, pos string) (string, bool) {
		sel := "/api/v1/scans/" + a + "/findings?" + filter
		_, h, _, _ := d.do("GET", sel+"&limit=1", nil)
		tot, _ := strconv.Atoi(h.Get("X-Total-Count"))
		if tot == 0 {
			return "", false
		}
		const page = 500
		off := 0
		switch pos {
		case "90%":
			off = tot * 9 / 10
		case "last":
			off = max(0, tot-page)
		}
		if off == 0 {
			return sel, true
		}
		// The cursor after row off-1: ask for one row there, take its next cursor.
		_, h, _, _ = d.do("GET", sel+"&limit=1&offset="+strconv.Itoa(off-1), nil)
		c := h.Get("X-Next-Cursor")
		if c == "" {
			return "", false
		}
		return sel + "&cursor=" + url.QueryEscape(c), true
	}
	for _, filter := range []string{"", "severity=high", "compliance=PCI-DSS-8.6.2", "scanner=secrets&severity=critical", "suppressed=true", "triage=false_positive"} {
		for _, pos := range []string{"first", "90%", "last"} {
			p, ok := pageAt(filter, pos)
			if !ok {
				continue
			}
			var ds []time.Duration
			var bytesN int64
			d.resetPeak()
			for i := 0; i < 5; i++ {
				t0 := time.Now()
				code, nb, err := d.drain(p)
				ds = append(ds, time.Since(t0))
				if err != nil || code != 200 {
					fail(fmt.Errorf("page %s: %d %v", p, code, err))
				}
				bytesN = nb
			}
			name := "page " + pos
			if filter != "" {
				name += " [" + filter + "]"
			}
			record(name, median(ds), d.peakMB(), fmt.Sprintf("%d KB", bytesN>>10))
		}
	}

	var readRows time.Duration
	for _, op := range []struct{ name, path string }{
		{"read every row (format=ndjson)", "/api/v1/scans/" + a + "/findings?format=ndjson"},
		{"compare A/B", "/api/v1/scans/compare?scan_a=" + a + "&scan_b=" + b},
		{"SARIF", "/api/v1/scans/" + a + "/report?format=sarif"},
		{"HTML report", "/api/v1/scans/" + a + "/report"},
		{"compliance coverage", "/api/v1/compliance/coverage?scan_id=" + a},
	} {
		var nb int64
		el := timed(d, op.name, "", func() {
			code, got, err := d.drain(op.path)
			if err != nil || code != 200 {
				fail(fmt.Errorf("%s: %d %v", op.path, code, err))
			}
			nb = got
		})
		rows[len(rows)-1].notes = fmt.Sprintf("%d MB", nb>>20)
		switch op.name {
		case "read every row (format=ndjson)":
			readRows = el
		case "SARIF", "HTML report":
			rows[len(rows)-1].notes += fmt.Sprintf(", %.2f x reading the rows", el.Seconds()/readRows.Seconds())
		}
	}

	for _, p := range []string{"/api/v1/dashboard/stats", "/api/v1/dashboard/trends"} {
		dashboard(d, p, strings.TrimPrefix(p, "/api/v1/"))
	}

	// DELETE B while a writer writes; wait for the file to shrink back to
	// its size before B was ingested.
	stop = make(chan struct{})
	latencies, wwg = commentWriter(d, fs[0].Fingerprint, stop)
	stBefore, _ := os.Stat(d.db)
	d.resetPeak()
	t0 := time.Now()
	if code, _, out, _ := d.do("DELETE", "/api/v1/scans/"+b, nil); code != 204 {
		fail(fmt.Errorf("delete: %d %s", code, out))
	}
	answered := time.Since(t0)
	size := waitShrink(d.db, int64(float64(sizeBeforeB)*1.1), 3*time.Minute)
	gone := time.Since(t0)
	close(stop)
	wwg.Wait()
	lat, werrs = latencies()
	record("DELETE B until the file is back within 10 %", gone, d.peakMB(),
		fmt.Sprintf("answered in %s; file %d MB -> %d MB (before B: %d MB); writer p99 %s max %s, %d errors",
			fmtDur(answered), stBefore.Size()>>20, size>>20, sizeBeforeB>>20, fmtDur(pct(lat, .99)), fmtDur(pct(lat, 1)), werrs))
	t0 = time.Now()
	if code, _, out, _ := d.do("DELETE", "/api/v1/scans/"+a, nil); code != 204 {
		fail(fmt.Errorf("delete: %d %s", code, out))
	}
	// Verdicts, comments, the audit log and each fingerprint's first and
	// last sighting on the target stay by design (docs/portfolio.md), so
	// the file is not back to its first size: this waits until it stops
	// shrinking and says what is left.
	size = waitShrink(d.db, 0, 3*time.Minute)
	record("DELETE A until the file stops shrinking", time.Since(t0), d.peakMB(),
		fmt.Sprintf("file %d KB, %d KB before any scan (verdicts, comments, audit log and the ages of %d fingerprints stay)", size>>10, size0>>10, *n))
	fmt.Fprintf(os.Stderr, "  idle RSS at the end: %.0f MB\n", float64(d.status("VmRSS"))/1024)

	if *small > 0 {
		smallDashboard(dir, *small)
	}
	fmt.Println("| operation | time | peak RSS | notes |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %.0f MB | %s |\n", r.op, fmtDur(r.dur), r.peak, r.notes)
	}
}

// settledSize is the database file's size once it has not changed for
// 3 s: the WAL checkpoints (every second) have caught up, and so has the
// work after a scan completes (its sightings and the target's latest
// findings, written in short transactions beside the API).
func settledSize(db string) int64 {
	deadline := time.Now().Add(3 * time.Minute)
	var last int64 = -1
	stable := time.Now()
	for {
		time.Sleep(500 * time.Millisecond)
		st, err := os.Stat(db)
		if err != nil {
			fail(err)
		}
		if st.Size() != last {
			last, stable = st.Size(), time.Now()
		}
		if time.Since(stable) >= 3*time.Second || time.Now().After(deadline) {
			return last
		}
	}
}

// waitShrink waits until the file is at most target bytes (target 0: until
// it has not shrunk for 3 s) and returns its size.
func waitShrink(db string, target int64, limit time.Duration) int64 {
	deadline := time.Now().Add(limit)
	var last int64 = -1
	lastChange := time.Now()
	for time.Now().Before(deadline) {
		st, err := os.Stat(db)
		if err != nil {
			fail(err)
		}
		size := st.Size()
		if target > 0 && size <= target {
			return size
		}
		if size != last {
			last, lastChange = size, time.Now()
		} else if target == 0 && time.Since(lastChange) > 3*time.Second {
			return size
		}
		time.Sleep(50 * time.Millisecond)
	}
	return last
}

// smallDashboard makes k scans of a one-secret tree on a second daemon and
// times the dashboard over them.
func smallDashboard(dir string, k int) {
	sdir := filepath.Join(dir, "small")
	os.MkdirAll(filepath.Join(sdir, "tree"), 0o755)
	os.WriteFile(filepath.Join(sdir, "tree", "a.conf"), []byte("token_1 = \"ghp_Zq8mN3vR7tY2wX5kP9sL4jH6gF1dC0bVaQeU\"\n"), 0o644)
	// Only the built-in scanners: a wrapped tool started 10k times (bandit
	// is a Python start-up each) would measure the tool, not scand.
	d := start(sdir, "SVC_MAX_CONCURRENT_SCANS=8", "PATH=/nonexistent")
	defer d.stop()
	fmt.Fprintf(os.Stderr, "== %d small scans\n", k)
	t0 := time.Now()
	var ids []string
	for i := 0; i < k; i++ {
		code, _, out, err := d.do("POST", "/api/v1/scans", map[string]any{"target_path": filepath.Join(sdir, "tree"), "scan_types": []string{"code"}})
		if err != nil || code != 200 {
			fail(fmt.Errorf("small scan %d: %d %s %v", i, code, out, err))
		}
		var sc struct{ ID string }
		json.Unmarshal(out, &sc)
		ids = append(ids, sc.ID)
	}
	for {
		_, _, out, _ := d.do("GET", "/api/v1/dashboard/stats", nil)
		var st struct {
			ScansByStatus struct{ Completed, Pending, Running int } `json:"scans_by_status"`
		}
		json.Unmarshal(out, &st)
		if st.ScansByStatus.Pending+st.ScansByStatus.Running == 0 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "  %d scans stored in %s\n", k, time.Since(t0).Round(time.Second))
	for _, p := range []string{"/api/v1/dashboard/stats", "/api/v1/dashboard/trends", "/api/v1/dashboard/trends?days=365"} {
		dashboard(d, p, fmt.Sprintf("%s with %d scans", strings.TrimPrefix(p, "/api/v1/"), k))
	}
}

// dashboard times a dashboard route: the median of 10 calls. The first
// call is reported apart: /dashboard/stats also asks every scanner whether
// it is installed, and a wrapped tool's answer is cached for a while, so
// the first call after that may start the tools' --version.
func dashboard(d *daemon, p, name string) {
	var ds []time.Duration
	d.resetPeak()
	for i := 0; i < 11; i++ {
		t0 := time.Now()
		if code, _, err := d.drain(p); err != nil || code != 200 {
			fail(fmt.Errorf("%s: %d %v", p, code, err))
		}
		ds = append(ds, time.Since(t0))
	}
	record(name, median(ds[1:]), d.peakMB(), "median of 10; first call "+fmtDur(ds[0]))
}
