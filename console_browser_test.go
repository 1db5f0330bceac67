package main

// The web console in a real browser: Debian's chromium driven through the
// DevTools protocol over --remote-debugging-pipe (standard library only),
// against the real scand binary running real scans. Every request the
// pages make is recorded and must go to the daemon; every CSP violation,
// script exception or DevTools security issue fails the test. Screenshots
// of the main pages are written to $SCAND_UI_SCREENSHOTS (default: a
// temp dir named in the log).

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func findChromiumBinary() string {
	if p := os.Getenv("SCAND_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// cdpMessage is one DevTools protocol message in either direction.
type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// browser is one headless chromium and the page it drives.
type browser struct {
	t        *testing.T
	cmd      *exec.Cmd
	profile  string // chromium's user-data-dir, removed on close
	toChrome *os.File
	session  string
	origin   string // scheme://host:port of the daemon

	mu       sync.Mutex
	nextID   int
	pending  map[int]chan cdpMessage
	loads    int
	loadCond *sync.Cond
	requests []string
	problems []string
	stderr   *lockedBuffer
	closed   chan struct{}
}

func startBrowser(t *testing.T, chromium, origin string, extraArgs ...string) *browser {
	t.Helper()
	// fd 3: chromium reads commands; fd 4: chromium writes answers.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The profile lives outside t.TempDir: chromium's helper processes
	// (crashpad, zygote) can still write there for a moment after the main
	// process exits, and TempDir's cleanup fails the test on "directory
	// not empty".
	profile, err := os.MkdirTemp("", "scand-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--disable-extensions", "--disable-default-apps", "--mute-audio",
		"--user-data-dir=" + profile, "--remote-debugging-pipe", "--window-size=1280,900"}, extraArgs...)
	cmd := exec.Command(chromium, append(args, "about:blank")...)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	cmd.Env = append(os.Environ(), "HOME="+profile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b := &browser{t: t, cmd: cmd, profile: profile, toChrome: cmdW, origin: origin, pending: map[int]chan cdpMessage{}, stderr: &lockedBuffer{}, closed: make(chan struct{})}
	b.loadCond = sync.NewCond(&b.mu)
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	go b.read(outR)
	t.Cleanup(b.close)
	return b
}

func (b *browser) close() {
	b.toChrome.Close()
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	// The helpers share the main process's group; none may outlive it.
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	for i := 0; i < 50; i++ {
		if os.RemoveAll(b.profile) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// read dispatches answers to their callers and records events.
func (b *browser) read(r io.Reader) {
	defer close(b.closed)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.loadCond.Broadcast()
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		b.event(m)
	}
}

func (b *browser) event(m cdpMessage) {
	switch m.Method {
	case "Page.loadEventFired":
		b.mu.Lock()
		b.loads++
		b.loadCond.Broadcast()
		b.mu.Unlock()
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		json.Unmarshal(m.Params, &p)
		b.mu.Lock()
		b.requests = append(b.requests, p.Request.URL)
		b.mu.Unlock()
	case "Page.javascriptDialogOpening":
		// The console asks before destructive actions; say yes.
		go b.callSession("Page.handleJavaScriptDialog", map[string]any{"accept": true})
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Source, Level, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Entry.Source == "security" || strings.Contains(p.Entry.Text, "Content Security Policy") || strings.Contains(p.Entry.Text, "Content-Security-Policy") {
			b.problem("console %s/%s: %s (%s)", p.Entry.Source, p.Entry.Level, p.Entry.Text, p.Entry.URL)
		}
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string            `json:"type"`
			Args []json.RawMessage `json:"args"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Type == "error" {
			b.problem("console.error: %s", p.Args)
		}
	case "Runtime.exceptionThrown":
		b.problem("script exception: %s", m.Params)
	case "Audits.issueAdded":
		var p struct {
			Issue struct {
				Code    string          `json:"code"`
				Details json.RawMessage `json:"details"`
			} `json:"issue"`
		}
		json.Unmarshal(m.Params, &p)
		if strings.Contains(p.Issue.Code, "ContentSecurityPolicy") || strings.Contains(p.Issue.Code, "MixedContent") || strings.Contains(p.Issue.Code, "Cookie") {
			b.problem("DevTools issue %s: %s", p.Issue.Code, p.Issue.Details)
		}
	}
}

func (b *browser) problem(format string, args ...any) {
	b.mu.Lock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
	b.mu.Unlock()
}

func (b *browser) send(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	msg, _ := json.Marshal(cdpMessage{ID: id, Method: method, Params: p, SessionID: session})
	if _, err := b.toChrome.Write(append(msg, 0)); err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, errors.New("chromium closed the pipe")
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 60 s", method)
	}
}

func (b *browser) callSession(method string, params any) (json.RawMessage, error) {
	return b.send(b.session, method, params)
}

func (b *browser) must(method string, params any) json.RawMessage {
	b.t.Helper()
	res, err := b.callSession(method, params)
	if err != nil {
		b.t.Fatalf("%v\nchromium stderr:\n%s", err, b.stderr.String())
	}
	return res
}

// open creates the page and turns on everything the test watches.
func (b *browser) open() {
	b.t.Helper()
	res, err := b.send("", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		b.t.Fatalf("%v\nchromium stderr:\n%s", err, b.stderr.String())
	}
	var target struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(res, &target)
	res, err = b.send("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true})
	if err != nil {
		b.t.Fatal(err)
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(res, &att)
	b.session = att.SessionID
	for _, domain := range []string{"Page.enable", "Network.enable", "Runtime.enable", "Log.enable", "Audits.enable"} {
		b.must(domain, map[string]any{})
	}
	b.must("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false})
	// Injected by DevTools, so the page's CSP does not apply to it: it
	// records every violation the page reports.
	b.must("Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `window.__csp = [];
		document.addEventListener('securitypolicyviolation', function (e) { window.__csp.push(e.violatedDirective + ' ' + e.blockedURI); });`})
}

func (b *browser) loadCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.loads
}

// waitLoad waits for a page load after the count before, then collects
// the CSP violations the new page reported.
func (b *browser) waitLoad(before int, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() { b.mu.Lock(); b.loadCond.Broadcast(); b.mu.Unlock() })
	defer timer.Stop()
	b.mu.Lock()
	for b.loads <= before {
		if time.Now().After(deadline) {
			b.mu.Unlock()
			b.t.Fatalf("no page load within %v", timeout)
		}
		select {
		case <-b.closed:
			b.mu.Unlock()
			b.t.Fatalf("chromium went away:\n%s", b.stderr.String())
		default:
		}
		b.loadCond.Wait()
	}
	b.mu.Unlock()
	b.checkViolationsNow()
}

func (b *browser) navigate(path string) {
	b.t.Helper()
	before := b.loadCount()
	b.must("Page.navigate", map[string]any{"url": b.origin + path})
	b.waitLoad(before, 30*time.Second)
}

// act runs script that submits a form or follows a link and waits for
// the page it leads to.
func (b *browser) act(script string) {
	b.t.Helper()
	before := b.loadCount()
	b.eval(script)
	b.waitLoad(before, 30*time.Second)
}

func (b *browser) eval(expr string) json.RawMessage {
	b.t.Helper()
	res := b.must("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var out struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	json.Unmarshal(res, &out)
	if out.ExceptionDetails != nil {
		b.t.Fatalf("evaluating %q: %s", expr, out.ExceptionDetails)
	}
	return out.Result.Value
}

func (b *browser) evalInto(expr string, v any) {
	b.t.Helper()
	raw := b.eval(expr)
	if len(raw) == 0 {
		return
	}
	if err := json.Unmarshal(raw, v); err != nil {
		b.t.Fatalf("evaluating %q: %v (%s)", expr, err, raw)
	}
}

func (b *browser) text(expr string) string {
	b.t.Helper()
	var s string
	b.evalInto(expr, &s)
	return s
}

func (b *browser) path() string {
	return b.text(`location.pathname + location.search`)
}

func (b *browser) screenshot(dir, name string) {
	b.t.Helper()
	var size struct {
		W, H float64
	}
	b.evalInto(`({W: document.documentElement.scrollWidth, H: document.documentElement.scrollHeight})`, &size)
	h := min(size.H, 5000)
	res := b.must("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": max(size.W, 1280), "height": max(h, 200), "scale": 1}})
	var shot struct {
		Data string `json:"data"`
	}
	json.Unmarshal(res, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		b.t.Fatalf("screenshot %s is not a PNG", name)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// slowSite is a DAST target that answers slowly, so a scan runs long
// enough to be watched live.
func slowSite(t *testing.T, delay time.Duration) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Header().Set("Server", "Apache/2.4.1")
		w.Write([]byte("<html><body>staging</body></html>"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func TestConsoleInHeadlessChromium(t *testing.T) {
	chromium := findChromiumBinary()
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium not installed; apt-get install chromium to run this test")
	}
	shots := os.Getenv("SCAND_UI_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", shots)

	root := t.TempDir()
	repo := filepath.Join(root, "shop")
	writeFile := func(rel, content string) {
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("Dockerfile", "FROM python:latest\nRUN curl -sSL http://get.example/install.sh | sh\nCOPY . /app\n")
	writeFile("app/settings.py", "DEBUG = True\nGITHUB_TOKEN = \"ghp_"+"R8x2Lq9Zt4Vw7Yp3Kd6Mn1Bc5Hf0Js8Ga2Ue"+"\"\n")

	const envKey = "browser-test-env-key-0123456789abcdef"
	env := baseEnv(t)
	env["SVC_AUTH_REQUIRED"] = "1"
	env["SVC_API_KEY"] = envKey
	env["SVC_EVENT_TOKEN_SECRET"] = "browser-test-event-secret"
	env["SVC_SCAN_ROOTS"] = root
	env["HOME"] = t.TempDir()
	p := startScand(t, env)
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	origin := "http://" + addr

	// An admin key, issued through the API with the environment key.
	req, _ := http.NewRequest("POST", origin+"/api/v1/keys", strings.NewReader(`{"name":"browser admin","scopes":["read","write","admin"]}`))
	req.Header.Set("X-API-Key", envKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != 201 || created.Key == "" {
		t.Fatalf("issue key: %d", resp.StatusCode)
	}

	b := startBrowser(t, chromium, origin)
	b.open()

	// Sign in: the console sends an anonymous visitor to the sign-in page.
	b.navigate("/ui/")
	if got := b.path(); !strings.HasPrefix(got, "/ui/login?next=") {
		t.Fatalf("anonymous visit landed on %s", got)
	}
	if typ := b.text(`document.getElementById('key').type`); typ != "password" {
		t.Fatalf("key field type %q", typ)
	}
	b.screenshot(shots, "01-sign-in")
	b.act(fmt.Sprintf(`document.getElementById('key').value = %q; document.querySelector('form[action="/ui/login"]').requestSubmit();`, created.Key))
	if got := b.path(); got != "/ui/" {
		t.Fatalf("after sign-in: %s\n%s", got, b.text(`document.body.innerText`))
	}
	if h1 := b.text(`document.querySelector('h1').textContent`); h1 != "Overview" {
		t.Fatalf("overview heading %q", h1)
	}
	// The script localized the times under the CSP (it would not run if
	// the policy blocked it). The overview has none yet; the scan page will.

	// Start a scan from the form; the DAST part makes it slow enough to
	// watch live.
	site := slowSite(t, 700*time.Millisecond)
	b.navigate("/ui/scans")
	b.act(fmt.Sprintf(`document.getElementById('target_path').value = %q;
		for (const cb of document.querySelectorAll('input[name=scan_types]')) { cb.checked = ['code','iac','dast'].includes(cb.value); }
		document.getElementById('target_url').value = %q;
		document.querySelector('form[method=post][action="/ui/scans"]').requestSubmit();`, repo, site))
	scanPath := b.path()
	if !strings.HasPrefix(scanPath, "/ui/scans/") {
		t.Fatalf("after starting the scan: %s", scanPath)
	}
	var live bool
	b.evalInto(`!!document.getElementById('progress')`, &live)
	if !live {
		t.Fatal("the running scan's page shows no live progress section")
	}
	b.screenshot(shots, "02-scan-running")
	// Watch: the script appends events and reloads the page itself when
	// the scan ends; nothing here navigates.
	maxEvents := 0
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var st struct {
			Status string
			Events int
		}
		b.evalInto(`({Status: (document.querySelector('h1 .status') || {}).textContent || '', Events: document.querySelectorAll('[data-progress-log] li').length})`, &st)
		maxEvents = max(maxEvents, st.Events)
		if st.Status == "completed" {
			break
		}
		if st.Status == "failed" || st.Status == "cancelled" {
			t.Fatalf("scan %s", st.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan not completed in the page after 3 minutes (status %q)", st.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if maxEvents == 0 {
		t.Fatal("the live progress log never showed an event")
	}
	b.checkViolationsNow()
	var localized bool
	b.evalInto(`Array.from(document.querySelectorAll('time')).some(function (t) { return !/UTC$/.test(t.textContent) && t.title.endsWith('UTC'); })`, &localized)
	if !localized {
		t.Fatal("times were not localized: the console script did not run")
	}
	b.screenshot(shots, "03-scan-completed")

	// Filter the findings.
	b.act(`document.querySelector('input[name=severity][value=high]').checked = true;
		document.querySelector('form[aria-label="Filter findings"]').requestSubmit();`)
	if !strings.Contains(b.path(), "severity=high") {
		t.Fatalf("filter not applied: %s", b.path())
	}
	var sevs []string
	b.evalInto(`Array.from(document.querySelectorAll('table.findings tbody .sev')).map(function (e) { return e.textContent; })`, &sevs)
	if len(sevs) == 0 {
		t.Fatal("no high findings after filtering")
	}
	for _, s := range sevs {
		if s != "High" {
			t.Fatalf("filtered table shows %q", s)
		}
	}
	b.screenshot(shots, "04-findings-filtered")

	// Set a verdict and add a comment.
	b.act(`document.querySelector('table.findings tbody a').click();`)
	if !strings.HasPrefix(b.path(), "/ui/findings/") {
		t.Fatalf("finding link led to %s", b.path())
	}
	b.act(`document.getElementById('status').value = 'accepted_risk';
		document.getElementById('note').value = 'Compensating control: WAF rule 42';
		document.querySelector('form[action$="/triage"]').requestSubmit();`)
	if body := b.text(`document.getElementById('triage').textContent`); !strings.Contains(body, "Accepted risk") || !strings.Contains(body, "WAF rule 42") {
		t.Fatalf("verdict not shown: %s", body)
	}
	b.act(`document.getElementById('text').value = 'Reproduced on staging';
		document.querySelector('form[action$="/comments"]').requestSubmit();`)
	if body := b.text(`document.getElementById('comments').textContent`); !strings.Contains(body, "Reproduced on staging") {
		t.Fatalf("comment not shown: %s", body)
	}
	b.screenshot(shots, "05-finding")

	// A second scan of the changed tree, then compare the two.
	writeFile("Dockerfile", "FROM python:3.12-slim\nCOPY . /app\nUSER 10001\n")
	writeFile("worker/Dockerfile", "FROM node:latest\nADD http://get.example/agent.tgz /opt/\n")
	b.navigate("/ui/scans")
	b.act(fmt.Sprintf(`document.getElementById('target_path').value = %q;
		for (const cb of document.querySelectorAll('input[name=scan_types]')) { cb.checked = ['code','iac','dast'].includes(cb.value); }
		document.getElementById('target_url').value = %q;
		document.querySelector('form[method=post][action="/ui/scans"]').requestSubmit();`, repo, site))
	deadline = time.Now().Add(3 * time.Minute)
	for b.text(`(document.querySelector('h1 .status') || {}).textContent || ''`) != "completed" {
		if time.Now().After(deadline) {
			t.Fatal("second scan did not complete in the page")
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.act(`Array.from(document.querySelectorAll('a')).find(function (a) { return a.textContent.indexOf('Compare with the previous scan') >= 0; }).click();`)
	if !strings.HasPrefix(b.path(), "/ui/compare?") {
		t.Fatalf("compare link led to %s", b.path())
	}
	var counts map[string]string
	b.evalInto(`Object.fromEntries(Array.from(document.querySelectorAll('.tabs a')).map(function (a) { return [a.firstChild.textContent.trim(), a.querySelector('.count').textContent]; }))`, &counts)
	if counts["new"] == "0" || counts["fixed"] == "0" || counts["unchanged"] == "" {
		t.Fatalf("compare counts %v: the changed tree should have new and fixed findings", counts)
	}
	b.screenshot(shots, "06-compare")

	for _, pg := range []struct{ path, name string }{
		{"/ui/", "07-overview"}, {"/ui/scans", "08-scans"}, {"/ui/notifications", "09-notifications"},
		{"/ui/webhooks", "10-webhooks"}, {"/ui/keys", "11-keys"}, {"/ui/schedules", "17-schedules-empty"},
	} {
		b.navigate(pg.path)
		if code := b.text(`document.querySelector('h1') ? 'ok' : 'none'`); code != "ok" {
			t.Fatalf("%s rendered no heading", pg.path)
		}
		b.screenshot(shots, pg.name)
	}
	// Schedule a scan of the tree, see its next run, delete the schedule.
	b.navigate("/ui/schedules")
	b.act(fmt.Sprintf(`document.getElementById('sc-name').value = 'nightly shop';
		document.getElementById('sc-target').value = %q;
		for (const cb of document.querySelectorAll('#new input[name=scan_types]')) { cb.checked = ['code','iac'].includes(cb.value); }
		document.getElementById('sc-cron').value = '15 2 * * *';
		document.getElementById('sc-zone').value = 'Europe/Berlin';
		document.querySelector('form[action="/ui/schedules"]').requestSubmit();`, repo))
	schedulePath := b.path()
	scheduleID := strings.TrimSuffix(strings.TrimPrefix(schedulePath, "/ui/schedules/"), "?done=schedule-created")
	if !strings.HasPrefix(schedulePath, "/ui/schedules/") || scheduleID == "" || strings.Contains(scheduleID, "/") {
		t.Fatalf("after creating the schedule: %s\n%s", schedulePath, b.text(`document.body.innerText`))
	}
	var next struct{ ISO, Title, Text string }
	b.evalInto(`(function () { var t = document.querySelector('.next-run time'); return t ? {ISO: t.getAttribute('datetime'), Title: t.title, Text: t.textContent} : {}; })()`, &next)
	req, _ = http.NewRequest("GET", origin+"/api/v1/schedules/"+scheduleID, nil)
	req.Header.Set("X-API-Key", created.Key)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var apiSchedule struct {
		NextRunAt time.Time `json:"next_run_at"`
	}
	json.NewDecoder(resp.Body).Decode(&apiSchedule)
	resp.Body.Close()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if at := apiSchedule.NextRunAt.In(berlin); at.Hour() != 2 || at.Minute() != 15 {
		t.Fatalf("the API says the next run is %s, not 02:15 in Berlin", apiSchedule.NextRunAt)
	}
	// The page shows the API's next run, localized by the script, with the
	// UTC value in the tooltip.
	if next.ISO != apiSchedule.NextRunAt.UTC().Format(time.RFC3339) || !strings.HasSuffix(next.Title, "UTC") || next.Text == "" || strings.HasSuffix(next.Text, "UTC") {
		t.Fatalf("next run on the page %+v; the API says %s", next, apiSchedule.NextRunAt)
	}
	b.screenshot(shots, "15-schedule")
	b.navigate("/ui/schedules")
	if n := b.text(`String(document.querySelectorAll('table.schedules tbody .next-run time').length)`); n != "1" {
		t.Fatalf("the schedules list shows %s next-run times, want 1", n)
	}
	b.screenshot(shots, "16-schedules")
	b.navigate("/ui/schedules/" + scheduleID)
	b.act(`document.querySelector('form[action$="/delete"]').requestSubmit();`)
	if got := b.path(); got != "/ui/schedules?done=schedule-deleted" {
		t.Fatalf("after deleting the schedule: %s", got)
	}
	if body := b.text(`document.querySelector('table.schedules tbody').textContent`); !strings.Contains(body, "No schedules yet.") {
		t.Fatalf("the deleted schedule is still listed: %s", body)
	}
	req, _ = http.NewRequest("GET", origin+"/api/v1/schedules/"+scheduleID, nil)
	req.Header.Set("X-API-Key", created.Key)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the API still has the deleted schedule: %d", resp.StatusCode)
	}

	b.must("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}})
	b.navigate(scanPath)
	b.screenshot(shots, "12-scan-dark")
	b.navigate("/ui/")
	b.screenshot(shots, "13-overview-dark")
	b.must("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": "light"}}})

	// Keyboard: Tab reaches the skip link first, and focus is visible.
	b.must("Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9})
	b.must("Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9})
	var focus struct {
		Class, Outline string
	}
	b.evalInto(`({Class: document.activeElement.className, Outline: getComputedStyle(document.activeElement).outlineStyle})`, &focus)
	if focus.Class != "skip" || focus.Outline == "none" {
		t.Fatalf("first Tab focuses %+v; want the skip link with a visible outline", focus)
	}

	// Revoke this session's own key and see the session end.
	b.navigate("/ui/keys")
	b.act(`Array.from(document.querySelectorAll('tbody tr')).find(function (tr) { return tr.textContent.indexOf('this session') >= 0; }).querySelector('form').requestSubmit();`)
	if h1 := b.text(`document.querySelector('h1').textContent`); h1 != "Session ended" {
		t.Fatalf("after revoking the session's key the page says %q", h1)
	}
	b.screenshot(shots, "14-session-ended")
	b.navigate("/ui/scans")
	if got := b.path(); !strings.HasPrefix(got, "/ui/login") {
		t.Fatalf("after the session ended, /ui/scans led to %s", got)
	}

	// Every request went to the daemon, and nothing was refused by the CSP.
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.requests) < 20 {
		t.Fatalf("only %d requests recorded: the network log is not working", len(b.requests))
	}
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if r == "about:blank" {
			continue
		}
		if err != nil || u.Scheme+"://"+u.Host != origin {
			t.Errorf("a page requested %q, which is not the daemon (%s)", r, origin)
		}
	}
	for _, pb := range b.problems {
		t.Errorf("browser reported: %s", pb)
	}
}

// checkViolationsNow reads the page's CSP violations outside waitLoad.
func (b *browser) checkViolationsNow() {
	var v []string
	b.evalInto(`window.__csp || []`, &v)
	for _, x := range v {
		b.problem("securitypolicyviolation: %s", x)
	}
}
