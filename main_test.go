package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"scand/api"
	"scand/auth"
	"scand/store"

	_ "modernc.org/sqlite"
)

// lockedBuffer is an io.Writer that run() logs into while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logRecords parses JSON log lines; a non-JSON line fails the test, since
// journald consumers rely on every line being one JSON object.
func logRecords(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// listenAddr waits for the "scand listening" line and returns its addr.
func listenAddr(t *testing.T, logs func() string, exited <-chan struct{}) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(logs(), "\n") {
			if !strings.Contains(line, `"scand listening"`) {
				continue
			}
			var m struct {
				Addr string `json:"addr"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.Addr == "" {
				t.Fatalf("listening line without addr: %q", line)
			}
			return m.Addr
		}
		select {
		case <-exited:
			t.Fatalf("scand exited before listening:\n%s", logs())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no \"scand listening\" line within 30 s:\n%s", logs())
	return ""
}

func waitReady(t *testing.T, addr string) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := client.Get("http://" + addr + "/ready")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				var ready api.Ready
				if err := json.Unmarshal(body, &ready); err != nil || ready.Checks.Database != "ok" {
					t.Fatalf("/ready body %s", body)
				}
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("/ready did not answer 200 on %s within 15 s", addr)
}

// TestRunServesUntilCancelled runs the daemon in-process on a free port,
// then stops it through its context as main's signal handler would.
func TestRunServesUntilCancelled(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": filepath.Join(dir, "scand.db")}
	var stdout, stderr lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		done <- run(ctx, nil, envMap(env), &stdout, &stderr)
		close(exited)
	}()
	addr := listenAddr(t, stderr.String, exited)
	if host, _, _ := net.SplitHostPort(addr); host != "127.0.0.1" || strings.HasSuffix(addr, ":0") {
		t.Fatalf("listening on %q, want a real port on 127.0.0.1", addr)
	}
	waitReady(t, addr)
	req, _ := http.NewRequest("GET", "http://"+addr+"/health", nil)
	req.Header.Set("X-Request-ID", "main-test-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Request-ID") != "main-test-1" {
		t.Fatalf("X-Request-ID %q", resp.Header.Get("X-Request-ID"))
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after cancel, want nil", err)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("run did not return within 25 s of cancel")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("still accepting connections after run returned")
	}

	records := logRecords(t, stderr.String())
	var access map[string]any
	var sawBanner, sawStopped bool
	for _, r := range records {
		ts, _ := r["timestamp"].(string)
		if _, err := time.Parse("2006-01-02T15:04:05.000000Z", ts); err != nil {
			t.Errorf("line without a UTC microsecond timestamp: %v", r)
		}
		if r["logger"] == "scand.access" && r["request_id"] == "main-test-1" {
			access = r
		}
		if r["level"] == "WARN" && strings.Contains(fmt.Sprint(r["msg"]), "DEV MODE") {
			sawBanner = true
		}
		if r["msg"] == "stopped" {
			sawStopped = true
		}
		// Every other line keeps its level and message.
		if r["logger"] != "scand.access" && (r["level"] == nil || r["msg"] == nil) {
			t.Errorf("line without level or msg: %v", r)
		}
	}
	if !sawBanner {
		t.Error("no dev-mode warning banner with nothing configured")
	}
	if !sawStopped {
		t.Error("no \"stopped\" line")
	}
	if access == nil {
		t.Fatalf("no access line for the /health request:\n%s", stderr.String())
	}
	var keys []string
	for k := range access {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Exactly SPEC.md's seven fields.
	want := []string{"latency_ms", "logger", "method", "path", "request_id", "status", "timestamp"}
	if !slices.Equal(keys, want) {
		t.Fatalf("access line fields %v, want %v", keys, want)
	}
	if access["method"] != "GET" || access["path"] != "/health" || access["status"] != float64(200) {
		t.Fatalf("access line %v", access)
	}
	if stdout.String() != "" {
		t.Fatalf("the daemon wrote to stdout: %q", stdout.String())
	}
}

func TestRunNoBannerWhenConfigured(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": filepath.Join(dir, "scand.db"), "SVC_API_KEY": "configured-key"}
	var stderr lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		done <- run(ctx, nil, envMap(env), io.Discard, &stderr)
		close(exited)
	}()
	addr := listenAddr(t, stderr.String, exited)
	waitReady(t, addr)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "DEV MODE") {
		t.Fatal("dev-mode banner with SVC_API_KEY set")
	}
	if strings.Contains(stderr.String(), "configured-key") {
		t.Fatal("the API key reached the log")
	}
}

func TestRunVersion(t *testing.T) {
	var stdout strings.Builder
	if err := run(context.Background(), []string{"version"}, envMap(nil), &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("scand %s (%s %s/%s)\n", api.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if stdout.String() != want {
		t.Fatalf("version output %q, want %q", stdout.String(), want)
	}
}

// The binary tests below exec the real program, so exit codes, signals and
// the systemd notification are what systemd itself would see.

var scandBinary struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if scandBinary.path != "" {
		os.RemoveAll(filepath.Dir(scandBinary.path))
	}
	os.Exit(code)
}

func buildScand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	scandBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "scand-test-bin-")
		if err != nil {
			scandBinary.err = err
			return
		}
		scandBinary.path = filepath.Join(dir, "scand")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "go", "build", "-o", scandBinary.path, ".").CombinedOutput()
		if err != nil {
			scandBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if scandBinary.err != nil {
		t.Fatal(scandBinary.err)
	}
	return scandBinary.path
}

type scandProcess struct {
	cmd    *exec.Cmd
	stdout *lockedBuffer
	stderr *lockedBuffer
	exited chan struct{}
}

// startScand execs the binary with exactly env (nothing inherited, so a
// stray SVC_ variable of the CI machine cannot change the outcome).
func startScand(t *testing.T, env map[string]string, args ...string) *scandProcess {
	t.Helper()
	return startScandIn(t, "", env, args...)
}

// startScandIn is startScand with dir as the working directory.
func startScandIn(t *testing.T, dir string, env map[string]string, args ...string) *scandProcess {
	t.Helper()
	p := &scandProcess{cmd: exec.Command(buildScand(t), args...), stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	// Its own process group: a killed daemon leaves its children (a
	// scanner's --version probe, a scan) running, and one writing into a
	// t.TempDir fails the test's cleanup with "directory not empty".
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
		p.killChildren()
	})
	return p
}

// killChildren kills what the daemon left running. SIGKILL ends them at
// once; the wait, at most a second, is for their exit to be reaped (a
// zombie writes nothing, so a slow reaper costs only that second).
func (p *scandProcess) killChildren() {
	pgid := p.cmd.Process.Pid
	if syscall.Kill(-pgid, syscall.SIGKILL) == syscall.ESRCH {
		return
	}
	for i := 0; i < 20 && syscall.Kill(-pgid, 0) != syscall.ESRCH; i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

// wait returns the exit code, killing the process after timeout.
func (p *scandProcess) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.cmd.Process.Kill()
		<-p.exited
		t.Fatalf("scand still running after %v:\n%s", timeout, p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

func baseEnv(t *testing.T) map[string]string {
	return map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": filepath.Join(t.TempDir(), "scand.db")}
}

func TestBinaryRefusesBadConfiguration(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string // in stderr
	}{
		{"auth required, no credential", map[string]string{"SVC_AUTH_REQUIRED": "1", "SVC_EVENT_TOKEN_SECRET": "s"}, "no credential"},
		{"auth required, nothing at all", map[string]string{"SVC_AUTH_REQUIRED": "1"}, "SVC_AUTH_REQUIRED=1"},
		{"auth required, key but no event secret", map[string]string{"SVC_AUTH_REQUIRED": "1", "SVC_API_KEY": "k"}, "SVC_EVENT_TOKEN_SECRET"},
		{"bad rate limit", map[string]string{"SVC_RATE_LIMIT_PER_MIN": "sixty"}, "SVC_RATE_LIMIT_PER_MIN"},
		{"zero rate limit", map[string]string{"SVC_RATE_LIMIT_PER_MIN": "0"}, "SVC_RATE_LIMIT_PER_MIN"},
		{"bad log level", map[string]string{"SVC_LOG_LEVEL": "chatty"}, "SVC_LOG_LEVEL"},
		{"bad log format", map[string]string{"SVC_LOG_FORMAT": "xml"}, "SVC_LOG_FORMAT"},
		{"bad address", map[string]string{"SVC_ADDR": "localhost"}, "SVC_ADDR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := baseEnv(t)
			for k, v := range c.env {
				env[k] = v
			}
			p := startScand(t, env)
			if code := p.wait(t, 30*time.Second); code != 2 {
				t.Fatalf("exit code %d, want 2; stderr:\n%s", code, p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), c.want) {
				t.Fatalf("stderr does not mention %q:\n%s", c.want, p.stderr.String())
			}
			if strings.Contains(p.stderr.String(), "scand listening") {
				t.Fatal("listened before refusing")
			}
		})
	}
	// serve is the daemon (like bare scand); an unknown command or an
	// argument after serve's flags is a usage error.
	for _, args := range [][]string{{"frobnicate"}, {"serve", "extra"}} {
		t.Run("unknown argument "+strings.Join(args, " "), func(t *testing.T) {
			p := startScand(t, baseEnv(t), args...)
			if code := p.wait(t, 30*time.Second); code != 2 {
				t.Fatalf("exit code %d, want 2", code)
			}
		})
	}
}

func TestBinaryAuthRequiredStartsWithACredential(t *testing.T) {
	t.Run("env key", func(t *testing.T) {
		env := baseEnv(t)
		env["SVC_AUTH_REQUIRED"], env["SVC_API_KEY"], env["SVC_EVENT_TOKEN_SECRET"] = "1", "k", "s"
		p := startScand(t, env)
		waitReady(t, listenAddr(t, p.stderr.String, p.exited))
		p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.wait(t, 30*time.Second); code != 0 {
			t.Fatalf("exit code %d", code)
		}
	})
	t.Run("DB key only", func(t *testing.T) {
		env := baseEnv(t)
		st, err := store.Open(context.Background(), env["SVC_DB"], nil)
		if err != nil {
			t.Fatal(err)
		}
		id, key := auth.NewKey()
		if _, err := st.CreateAPIKey(context.Background(), store.APIKey{ID: id, Name: "admin", Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(key), Scopes: []string{"admin"}}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		env["SVC_AUTH_REQUIRED"], env["SVC_EVENT_TOKEN_SECRET"] = "1", "s"
		p := startScand(t, env)
		addr := listenAddr(t, p.stderr.String, p.exited)
		waitReady(t, addr)
		// Without a key: 401, not dev mode.
		resp, err := http.Get("http://" + addr + "/api/v1/keys")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("GET /api/v1/keys without a key: %d, want 401", resp.StatusCode)
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.wait(t, 30*time.Second); code != 0 {
			t.Fatalf("exit code %d", code)
		}
	})
}

func TestBinaryBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	env := baseEnv(t)
	env["SVC_ADDR"] = ln.Addr().String()
	p := startScand(t, env)
	if code := p.wait(t, 30*time.Second); code == 0 {
		t.Fatal("exit code 0 on a busy port")
	}
	if s := p.stderr.String(); !strings.Contains(s, "cannot listen") || !strings.Contains(s, "address already in use") || !strings.Contains(s, ln.Addr().String()) {
		t.Fatalf("stderr does not explain the busy port:\n%s", s)
	}
}

func TestBinaryStopsCleanlyOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startScand(t, baseEnv(t))
			addr := listenAddr(t, p.stderr.String, p.exited)
			waitReady(t, addr)
			p.cmd.Process.Signal(sig)
			if code := p.wait(t, 30*time.Second); code != 0 {
				t.Fatalf("exit code %d after %v, want 0:\n%s", code, sig, p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), `"msg":"stopped"`) {
				t.Fatalf("no clean-stop line:\n%s", p.stderr.String())
			}
		})
	}
}

func TestBinaryVersion(t *testing.T) {
	p := startScand(t, nil, "version")
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	out := p.stdout.String()
	if !strings.HasPrefix(out, "scand 0.11.0 ") || !strings.Contains(out, runtime.Version()) {
		t.Fatalf("scand version printed %q, want 0.11.0 and %s", out, runtime.Version())
	}
}

// TestBinaryNotifiesSystemd plays systemd's side of Type=notify: a
// unixgram socket in NOTIFY_SOCKET must receive READY=1 once serving and
// STOPPING=1 on SIGTERM.
func TestBinaryNotifiesSystemd(t *testing.T) {
	for _, abstract := range []bool{false, true} {
		name := "path socket"
		if abstract {
			name = "abstract socket"
		}
		t.Run(name, func(t *testing.T) {
			sockName := filepath.Join(t.TempDir(), "notify.sock")
			envValue := sockName
			if abstract {
				sockName = fmt.Sprintf("\x00scand-test-%d-%d", os.Getpid(), time.Now().UnixNano())
				envValue = "@" + sockName[1:]
			}
			conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sockName, Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			env := baseEnv(t)
			env["NOTIFY_SOCKET"] = envValue
			p := startScand(t, env)
			read := func() string {
				t.Helper()
				buf := make([]byte, 512)
				conn.SetReadDeadline(time.Now().Add(30 * time.Second))
				n, err := conn.Read(buf)
				if err != nil {
					t.Fatalf("no notification: %v\n%s", err, p.stderr.String())
				}
				return string(buf[:n])
			}
			if msg := read(); msg != "READY=1" {
				t.Fatalf("first notification %q, want READY=1", msg)
			}
			// READY means serving: /ready answers at once.
			addr := listenAddr(t, p.stderr.String, p.exited)
			resp, err := http.Get("http://" + addr + "/ready")
			if err != nil {
				t.Fatalf("READY=1 sent but /ready fails: %v", err)
			}
			resp.Body.Close()
			p.cmd.Process.Signal(syscall.SIGTERM)
			if msg := read(); msg != "STOPPING=1" {
				t.Fatalf("second notification %q, want STOPPING=1", msg)
			}
			if code := p.wait(t, 30*time.Second); code != 0 {
				t.Fatalf("exit code %d", code)
			}
		})
	}
}

// TestBinaryRefusesIncompatibleDatabase: a database from a newer binary,
// or with an edited applied migration, stops startup with exit code 2 so
// systemd does not restart into the same failure.
func TestBinaryRefusesIncompatibleDatabase(t *testing.T) {
	cases := []struct{ name, tamper, want string }{
		{"newer schema", "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, '9999_future.sql', 'x', '2030-01-01T00:00:00.000000Z')", "newer than this binary"},
		{"edited migration", "UPDATE schema_migrations SET checksum = 'deadbeef' WHERE version = 1", "was edited"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := baseEnv(t)
			st, err := store.Open(context.Background(), env["SVC_DB"], nil)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			if err := tamperDB(env["SVC_DB"], c.tamper); err != nil {
				t.Fatal(err)
			}
			// auto_vacuum off makes an accepted open rewrite the file: a
			// refusal must come before that.
			if err := tamperDB(env["SVC_DB"], "PRAGMA auto_vacuum = NONE; VACUUM"); err != nil {
				t.Fatal(err)
			}
			before := sha256File(t, env["SVC_DB"])
			p := startScand(t, env)
			if code := p.wait(t, 30*time.Second); code != 2 {
				t.Fatalf("exit code %d, want 2:\n%s", code, p.stderr.String())
			}
			if s := p.stderr.String(); !strings.Contains(s, c.want) || !strings.Contains(s, "CRITICAL") {
				t.Fatalf("stderr lacks a CRITICAL %q line:\n%s", c.want, s)
			}
			if c.name == "newer schema" && !strings.Contains(p.stderr.String(), fmt.Sprintf("knows up to %d", store.SchemaVersion())) {
				t.Fatalf("stderr does not name the binary's schema version %d:\n%s", store.SchemaVersion(), p.stderr.String())
			}
			if after := sha256File(t, env["SVC_DB"]); after != before {
				t.Fatalf("the refused database changed: sha256 %s before, %s after", before, after)
			}
		})
	}
}

// sha256File is the hex sha256 of a file's bytes.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// tamperDB edits a database behind the store's back, with the same
// driver the store uses.
func tamperDB(path, stmt string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(stmt)
	if err != nil {
		return errors.Join(errors.New("tamper"), err)
	}
	return nil
}
