//go:build ignore

// portfolio-driver measures the portfolio routes of issue 25 for
// bench/portfolio.sh. It writes a database at the schema before migration
// 0016 directly in SQL (TARGETS targets x SCANS scans x FINDINGS findings,
// each target's latest scan with COMPONENTS components; writing a million
// findings through the scanners would take the machine an hour), starts the
// built daemon on it (migration 0016 runs at startup: the time to /ready is
// the migration's bar), then times each route (median of 15 after a warm-up
// request) and reads the daemon's peak RSS (VmHWM) over the whole run.
package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite"
)

var (
	bin        = flag.String("bin", "./scand", "scand binary")
	repo       = flag.String("repo", ".", "repository root (for store/migrations)")
	work       = flag.String("work", "", "working directory")
	nTargets   = flag.Int("targets", 1000, "targets")
	nScans     = flag.Int("scans", 10, "completed scans per target")
	nFindings  = flag.Int("findings", 100, "findings per scan")
	components = flag.Int("components", 200, "components in each target's latest SBOM")
	cache      = flag.String("cache", "", "keep the written pre-0016 database here and reuse it on later runs (writing it takes minutes)")
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "portfolio-driver:", err)
	os.Exit(1)
}

func must(_ sql.Result, err error) {
	if err != nil {
		fail(err)
	}
}

// writeDB writes the pre-0016 database.
func writeDB(path string) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	must(db.Exec("PRAGMA auto_vacuum = INCREMENTAL"))
	must(db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`))
	files, _ := filepath.Glob(filepath.Join(*repo, "store", "migrations", "*.sql"))
	sort.Strings(files)
	for _, f := range files {
		name := filepath.Base(f)
		v, _ := strconv.Atoi(name[:4])
		if v >= 16 {
			continue
		}
		body, err := os.ReadFile(f)
		if err != nil {
			fail(err)
		}
		must(db.Exec(string(body)))
		sum := sha256.Sum256(body)
		must(db.Exec("INSERT INTO schema_migrations VALUES (?, ?, ?, '2026-01-01T00:00:00.000000Z')", v, name, hex.EncodeToString(sum[:])))
	}
	tx, err := db.Begin()
	if err != nil {
		fail(err)
	}
	T, S, F := *nTargets, *nScans, *nFindings
	// Scan j (0-based) of target t is seq j*T+t+1, completed 16 h after
	// scan j-1 of the same target.
	must(tx.Exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
		INSERT INTO scans (seq, id, target_path, scan_types, status, started_at, completed_at, findings_count, risk_score, severity_counts, live_counts)
		SELECT i + 1, printf('00000000-0000-7000-8000-%012d', i + 1), '/srv/repos/app-' || (i % ?), '["code","dependency"]', 'completed',
			strftime('%Y-%m-%dT%H:%M:%S.000000Z', '2026-03-01', '+' || ((i / ?) * 16) || ' hours', '+' || (i % ?) || ' seconds'),
			strftime('%Y-%m-%dT%H:%M:%S.000000Z', '2026-03-01', '+' || ((i / ?) * 16) || ' hours', '+' || (i % ? + 60) || ' seconds'),
			?, 0, '{}', '{}' FROM n`, T*S, T, T, T, T, T, F))
	// Finding ord o of a scan: 0-4 critical, 5-9 high dependency (lodash
	// GHSA-35jh-r3h4-6jhm on two thirds of the targets), 10-19 high,
	// 20-49 medium, 50-79 low, the rest info. Each scan replaces two
	// fingerprints of the one before (first_seen differ).
	must(tx.Exec(`WITH RECURSIVE o(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM o WHERE i + 1 < ?),
		rows AS (SELECT s.seq, s.id AS scan_id, (s.seq - 1) % ? AS t, (s.seq - 1) / ? AS j, o.i AS ord,
			CASE WHEN o.i < 5 THEN 'critical' WHEN o.i < 20 THEN 'high' WHEN o.i < 50 THEN 'medium' WHEN o.i < 80 THEN 'low' ELSE 'info' END AS sev,
			CASE WHEN o.i BETWEEN 5 AND 9 THEN 'osv-scanner' ELSE 'secrets' END AS scanner
			FROM scans s, o)
		INSERT INTO findings (k, severity, scanner, scan_type, fingerprint, suppressed, tagset, text_id, body)
		SELECT (seq << 32) | ord, sev, scanner, CASE scanner WHEN 'osv-scanner' THEN 'dependency' ELSE 'code' END,
			printf('fp-%d-%d', t, CASE WHEN ord < 2 THEN ord + 1000 * j ELSE ord END), 0, 0, NULL,
			json_object('id', printf('%s-%d', scan_id, ord), 'scan_id', scan_id, 'scanner', scanner,
				'scan_type', CASE scanner WHEN 'osv-scanner' THEN 'dependency' ELSE 'code' END, 'severity', sev,
				'title', CASE scanner WHEN 'osv-scanner' THEN 'GHSA-35jh-r3h4-6jhm: Command Injection in lodash' ELSE 'Secret ' || ord END,
				'description', 'generated', 'file_path', CASE scanner WHEN 'osv-scanner' THEN 'package-lock.json' ELSE printf('src/f%d.go', ord % 37) END,
				'line', ord + 1, 'rule_id', CASE scanner WHEN 'osv-scanner' THEN CASE WHEN t % 3 = 2 THEN 'GHSA-other-' || ord ELSE 'GHSA-35jh-r3h4-6jhm' END ELSE 'rule-' || (ord % 7) END,
				'fingerprint', printf('fp-%d-%d', t, CASE WHEN ord < 2 THEN ord + 1000 * j ELSE ord END), 'compliance_tags', json('[]'),
				'metadata', CASE scanner WHEN 'osv-scanner' THEN json_object('package', 'lodash', 'version', CASE t % 3 WHEN 0 THEN '4.17.15' ELSE '4.17.20' END,
					'ecosystem', 'npm', 'fixed_version', '4.17.21', 'aliases', json_array('CVE-2021-23337')) ELSE json_object('suppressed_by', NULL) END)
		FROM rows`, F, T, T))
	must(tx.Exec(`INSERT INTO finding_fps (scan_seq, fingerprint, ord, tagset, suppressed)
		SELECT k >> 32, fingerprint, k & 4294967295, 0, 0 FROM findings`))
	must(tx.Exec(`INSERT INTO finding_counts (scan_seq, severity, scanner, scan_type, suppressed, triage, tagset, n)
		SELECT k >> 32, severity, scanner, scan_type, 0, 'new', 0, count(*) FROM findings GROUP BY 1, 2, 3, 4`))
	must(tx.Exec(`INSERT INTO finding_blocks (scan_seq, first_ord, last_ord, severity, scanner)
		SELECT k >> 32, min(k & 4294967295), max(k & 4294967295), severity, scanner FROM findings GROUP BY 1, 4, 5`))
	must(tx.Exec(`UPDATE scans SET severity_counts = (SELECT json_group_object(severity, n) FROM (SELECT severity, sum(n) AS n FROM finding_counts
		WHERE scan_seq = scans.seq GROUP BY severity)), live_counts = (SELECT json_group_object(severity, n) FROM (SELECT severity, sum(n) AS n
		FROM finding_counts WHERE scan_seq = scans.seq GROUP BY severity))`))
	// The latest scan of each target captured its components: lodash at a
	// version per target, and COMPONENTS-1 others.
	must(tx.Exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < ?)
		UPDATE scans SET components = (SELECT json_group_array(json(v)) FROM (
			SELECT json_object('name', 'lodash', 'version', CASE ((scans.seq - 1) % ?) % 3 WHEN 0 THEN '4.17.15' WHEN 1 THEN '4.17.20' ELSE '4.17.21' END,
				'ecosystem', 'npm', 'purl', 'pkg:npm/lodash@' || CASE ((scans.seq - 1) % ?) % 3 WHEN 0 THEN '4.17.15' WHEN 1 THEN '4.17.20' ELSE '4.17.21' END) AS v
			UNION ALL SELECT json_object('name', 'pkg-' || i, 'version', '1.' || ((scans.seq + i) % 10) || '.0', 'ecosystem', 'npm',
				'purl', 'pkg:npm/pkg-' || i || '@1.' || ((scans.seq + i) % 10) || '.0') FROM c))
		WHERE seq > ?`, *components, T, T, T*(S-1)))
	if err := tx.Commit(); err != nil {
		fail(err)
	}
	must(db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"))
}

type daemon struct {
	cmd  *exec.Cmd
	base string
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func start(dir, db string) (*daemon, time.Duration) {
	port := freePort()
	d := &daemon{base: "http://127.0.0.1:" + strconv.Itoa(port)}
	d.cmd = exec.Command(*bin)
	d.cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "SVC_DB=" + db, "SVC_ADDR=127.0.0.1:" + strconv.Itoa(port), "SVC_LOG_LEVEL=warn",
		"SVC_FAKE_NOW=2026-03-10T00:00:00Z"}
	logf, _ := os.Create(filepath.Join(dir, "daemon.log"))
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	t0 := time.Now()
	if err := d.cmd.Start(); err != nil {
		fail(err)
	}
	for time.Since(t0) < 10*time.Minute {
		if resp, err := http.Get(d.base + "/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return d, time.Since(t0)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	fail(fmt.Errorf("daemon not ready; see %s", logf.Name()))
	return nil, 0
}

func (d *daemon) peakMB() float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			v, _ := strconv.Atoi(strings.Fields(line)[1])
			return float64(v) / 1024
		}
	}
	return -1
}

func (d *daemon) get(path string) (int, []byte) {
	resp, err := http.Get(d.base + path)
	if err != nil {
		fail(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// cpu is the daemon's user plus system CPU time so far.
func (d *daemon) cpu() time.Duration {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", d.cmd.Process.Pid))
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(fields) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(fields[11], 10, 64)
	k, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond // USER_HZ 100
}

// timed returns the median of 15 requests after one warm-up, and the
// daemon's mean CPU time per request: on a shared, loaded machine the
// wall time mostly measures waiting for a core, the CPU time does not.
func (d *daemon) timed(path string) (time.Duration, time.Duration, []byte) {
	code, body := d.get(path)
	if code != 200 {
		fail(fmt.Errorf("GET %s: %d %s", path, code, body))
	}
	var ds []time.Duration
	c0 := d.cpu()
	for i := 0; i < 15; i++ {
		t0 := time.Now()
		d.get(path)
		ds = append(ds, time.Since(t0))
	}
	cpu := (d.cpu() - c0) / 15
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[7], cpu, body
}

func main() {
	flag.Parse()
	dir := *work
	if dir == "" {
		dir, _ = os.MkdirTemp("", "scand-portfolio-")
		defer os.RemoveAll(dir)
	}
	db := filepath.Join(dir, "scand.db")
	t0 := time.Now()
	if *cache != "" {
		if _, err := os.Stat(*cache); err != nil {
			writeDB(*cache)
		}
		copyFile(*cache, db)
	} else {
		writeDB(db)
	}
	fi, _ := os.Stat(db)
	fmt.Printf("database: %d targets x %d scans x %d findings = %d findings, %d components; written in %s, %d MB\n",
		*nTargets, *nScans, *nFindings, *nTargets**nScans**nFindings, *nTargets**components, time.Since(t0).Round(time.Second), fi.Size()>>20)
	d, ready := start(dir, db)
	defer func() {
		d.cmd.Process.Signal(os.Interrupt)
		d.cmd.Wait()
	}()
	fmt.Printf("%-70s %10s %10s\n", "operation", "median", "cpu/req")
	fmt.Printf("%-70s %10s %10s\n", "start with migrations 0016 and later until /ready (bar 60 s)", ready.Round(time.Millisecond), d.cpu().Round(time.Millisecond))
	// The start leaves work behind (recovery, maintenance): the routes are
	// timed once the daemon has been idle for a second (at most a minute).
	for i := 0; i < 60; i++ {
		c0 := d.cpu()
		time.Sleep(time.Second)
		if d.cpu()-c0 < 20*time.Millisecond {
			break
		}
	}
	// A deep targets page: the cursor of the 900th target.
	deep := "/api/v1/targets?limit=50&cursor=" + url.QueryEscape(cursorOf("targets", int64(*nTargets)*9/10))
	_, page := d.get("/api/v1/findings?limit=50&severity=high")
	var fl struct {
		NextCursor *string `json:"next_cursor"`
	}
	json.Unmarshal(page, &fl)
	routes := []struct{ name, path string }{
		{"targets, first page (bar 20 ms)", "/api/v1/targets?limit=50"},
		{"targets, deep page (bar 20 ms)", deep},
		{"targets, label filter", "/api/v1/targets?limit=50&text=app-99"},
		{"findings across targets, default sort, no filter (bar 50 ms)", "/api/v1/findings?limit=50"},
		{"findings, severity=high, sort severity (bar 50 ms)", "/api/v1/findings?limit=50&severity=high"},
		{"findings, severity=high, 2nd page by cursor", "/api/v1/findings?limit=50&severity=high&cursor=" + url.QueryEscape(deref(fl.NextCursor))},
		{"findings, severity=high, total=false", "/api/v1/findings?limit=50&severity=high&total=false"},
		{"findings, sort=target, scanner=osv-scanner", "/api/v1/findings?limit=50&sort=target&scanner=osv-scanner"},
		{"findings, sort=first_seen, severity=critical", "/api/v1/findings?limit=50&sort=first_seen&severity=critical"},
		{"findings, sort=file, target=7", "/api/v1/findings?limit=50&sort=file&target=7"},
		{"findings, overdue=true", "/api/v1/findings?limit=50&overdue=true"},
		{"findings, advisory=CVE-2021-23337", "/api/v1/findings?limit=50&advisory=CVE-2021-23337"},
		{"findings, purl=pkg:npm/lodash@4.17.15", "/api/v1/findings?limit=50&purl=pkg:npm/lodash@4.17.15"},
		{"components?purl=pkg:npm/lodash&version=<4.17.21 (bar 50 ms)", "/api/v1/components?purl=pkg:npm/lodash&version=%3C4.17.21"},
		{"components?name=pkg-7", "/api/v1/components?name=pkg-7"},
		{"vulnerabilities/GHSA-35jh-r3h4-6jhm (bar 50 ms)", "/api/v1/vulnerabilities/GHSA-35jh-r3h4-6jhm"},
		{"vulnerabilities/CVE-2021-23337 (alias)", "/api/v1/vulnerabilities/CVE-2021-23337"},
		{"dashboard/stats (bar 50 ms)", "/api/v1/dashboard/stats"},
	}
	for _, r := range routes {
		dur, cpu, _ := d.timed(r.path)
		fmt.Printf("%-70s %10s %10s\n", r.name, dur.Round(100*time.Microsecond), cpu.Round(100*time.Microsecond))
	}
	fmt.Printf("%-70s %8.0f MB\n", "daemon peak RSS, whole run (bar 300 MB)", d.peakMB())
}

func copyFile(from, to string) {
	in, err := os.Open(from)
	if err != nil {
		fail(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		fail(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		fail(err)
	}
	if err := out.Close(); err != nil {
		fail(err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cursorOf makes the targets list's cursor after target id.
func cursorOf(kind string, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":0:" + strconv.FormatInt(id, 10)))
}
