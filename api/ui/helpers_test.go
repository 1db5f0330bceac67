package ui_test

// Fixtures for the console's tests: the real API server (which mounts the
// console) over a real SQLite store in a temp dir, a real orchestrator
// with the built-in scanners, a real webhook dispatcher, and a browser-like
// client with a cookie jar that does not follow redirects.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/api"
	"scand/auth"
	"scand/finding"
	"scand/hook"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/proc"
	"scand/scan/registry"
	"scand/sse"
	"scand/store"
)

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type envOptions struct {
	EnvKey       string
	AuthRequired bool
	ScanRoots    []string
	// Clock pins the server's clock; nil is the real clock (scans and
	// webhooks need real time to run).
	Clock *testClock
	// RatePerMin and RateBurst set the start-scan bucket (default 600, 100).
	RatePerMin, RateBurst int
	// VulnDBEnv are the advisory-data variables (SVC_OSV_DB, ...) the
	// daemon sees; VulnDBMaxAge is SVC_VULNDB_MAX_AGE_DAYS.
	VulnDBEnv    map[string]string
	VulnDBMaxAge time.Duration
}

type env struct {
	t     testing.TB
	st    *store.Store
	h     http.Handler
	srv   *httptest.Server
	authn *auth.Authenticator
	logs  *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	now := time.Now
	if o.Clock != nil {
		now = o.Clock.Now
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ui.db"), now)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	bus := sse.NewBus(nil)
	scanCfg := scan.Config{Runner: proc.NewRunner(60 * time.Second), Getenv: func(string) string { return "" }, Now: time.Now}
	scanners := registry.All(scanCfg)
	orch := scan.NewOrchestrator(scan.OrchestratorOptions{Store: st, Bus: bus, Scanners: scanners, MaxConcurrent: 2, CaptureComponents: components.CaptureJSON,
		Redact: registry.Redactor(scanCfg)})
	hooks := hook.New(hook.Config{Store: st, Now: time.Now, AllowPrivate: true})
	bus.AddSink("webhooks", hooks.Sink)
	authn := &auth.Authenticator{Store: st, EnvKey: o.EnvKey, AuthRequired: o.AuthRequired}
	if o.RatePerMin == 0 {
		o.RatePerMin, o.RateBurst = 600, 100
	}
	srv := api.New(api.Deps{Store: st, Auth: authn, Limiter: auth.NewRateLimiter(o.RatePerMin, o.RateBurst, true), Throttle: auth.NewFailureThrottle(), Bus: bus, Log: log, Now: now,
		EventSecret: []byte("ui-test-secret"), Hooks: hooks, Ready: func() bool { return true }, Scans: orch, Scanners: scanners,
		ScanRoots: o.ScanRoots, MaxHosts: 256, Runner: proc.NewRunner(60 * time.Second), KeepAlive: 200 * time.Millisecond,
		VulnDB: api.VulnDBConfig{MaxAge: o.VulnDBMaxAge, Getenv: func(k string) string { return o.VulnDBEnv[k] }}})
	h := srv.Handler()
	ts := httptest.NewServer(h)
	if err := hooks.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := orch.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.CloseStreams()
		ts.Close()
		orch.Stop(10 * time.Second)
		hooks.Stop()
		st.Close()
	})
	return &env{t: t, st: st, h: h, srv: ts, authn: authn, logs: logs}
}

// issueKey stores a DB key as POST /keys does.
func (e *env) issueKey(name string, scopes ...string) (id, plaintext string) {
	e.t.Helper()
	id, plaintext = auth.NewKey()
	if _, err := e.st.CreateAPIKey(context.Background(), store.APIKey{ID: id, Name: name, Prefix: auth.DisplayPrefix(id), Hash: auth.HashKey(plaintext), Scopes: scopes}); err != nil {
		e.t.Fatal(err)
	}
	return id, plaintext
}

// apiDo calls the JSON API with a key.
func (e *env) apiDo(method, path, key, body string) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// fp makes a fingerprint-shaped value from a label.
func fp(label string) string {
	sum := sha256.Sum256([]byte(label))
	return hex.EncodeToString(sum[:])
}

// seedScan stores a completed scan with the given findings, as the
// orchestrator would (canonical order is the slice order).
func (e *env) seedScan(target string, fs []finding.Finding) store.Scan {
	e.t.Helper()
	ctx := context.Background()
	sc, err := e.st.CreateScan(ctx, store.Scan{ID: store.NewID(), TargetPath: target, ScanTypes: []string{"code", "iac"}, StartedAt: time.Now().UTC().Truncate(time.Microsecond)})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.MarkScanRunning(ctx, sc.ID); err != nil {
		e.t.Fatal(err)
	}
	counts := map[string]int{}
	var scanners []string
	for i := range fs {
		if fs[i].ID == "" {
			fs[i].ID = store.NewID()
		}
		counts[string(fs[i].Severity)]++
		if !contains(scanners, fs[i].Scanner) {
			scanners = append(scanners, fs[i].Scanner)
		}
	}
	if err := e.st.CompleteScan(ctx, sc.ID, store.ScanResult{Findings: fs, ScannersRun: scanners, RiskScore: finding.RiskScore(fs), SeverityCounts: counts}); err != nil {
		e.t.Fatal(err)
	}
	sc, err = e.st.ScanByID(ctx, sc.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return sc
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// mkFinding builds a finding with a deterministic fingerprint.
func mkFinding(label string, sev finding.Severity, scanner, rule, file string, line int) finding.Finding {
	return finding.Finding{Scanner: scanner, ScanType: "code", Severity: sev, Title: "Title " + label, Description: "Description of " + label + ". Fix it.",
		FilePath: file, Line: line, RuleID: rule, CWE: "CWE-798", Fingerprint: fp(label), ComplianceTags: []string{"OWASP-A07"},
		Metadata: map[string]any{"suppressed_by": nil}}
}

// client is a browser: a cookie jar, no redirect following.
type client struct {
	t    testing.TB
	e    *env
	http *http.Client
	// last is the body of the last page, for its CSRF token.
	last string
}

func (e *env) client(t testing.TB) *client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, e: e, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	status int
	header http.Header
	body   string
	loc    string
}

func (c *client) do(req *http.Request) page {
	c.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	p := page{status: resp.StatusCode, header: resp.Header, body: string(b), loc: resp.Header.Get("Location")}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		c.last = p.body
	}
	return p
}

func (c *client) get(path string, headers ...string) page {
	c.t.Helper()
	req, err := http.NewRequest("GET", c.e.srv.URL+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.do(req)
}

// post submits a form as a browser would, with the CSRF token of the last
// page unless the form sets csrf_token itself.
func (c *client) post(path string, form url.Values, headers ...string) page {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf_token"]; !ok {
		form.Set("csrf_token", csrfOf(c.last))
	}
	req, err := http.NewRequest("POST", c.e.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.e.srv.URL)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]*)"`)

func csrfOf(body string) string {
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return m[1]
}

// login signs the client in with key through the sign-in form.
func (c *client) login(key string) {
	c.t.Helper()
	if p := c.get("/ui/login"); p.status != 200 {
		c.t.Fatalf("GET /ui/login: %d %s", p.status, p.body)
	}
	p := c.post("/ui/login", url.Values{"key": {key}, "next": {"/ui/"}})
	if p.status != http.StatusSeeOther || p.loc != "/ui/" {
		c.t.Fatalf("sign-in: %d %q %s", p.status, p.loc, p.body)
	}
	if p := c.get("/ui/"); p.status != 200 {
		c.t.Fatalf("overview after sign-in: %d", p.status)
	}
}

func (c *client) cookie() *http.Cookie {
	u, _ := url.Parse(c.e.srv.URL + "/ui/")
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == "scand_session" {
			return ck
		}
	}
	return nil
}

func expect(t testing.TB, p page, status int, what string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("%s: status %d, want %d; location %q; body:\n%s", what, p.status, status, p.loc, p.body)
	}
}

// waitScan waits for a scan to reach a terminal status.
func (e *env) waitScan(id string, timeout time.Duration) store.Scan {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		sc, err := e.st.ScanByID(context.Background(), id)
		if err != nil {
			e.t.Fatal(err)
		}
		if store.TerminalStatus(sc.Status) {
			return sc
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("scan %s still %s after %v", id, sc.Status, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ---- a small HTML tokenizer, so tests judge pages by their structure ----

type htmlAttr struct{ name, value string }

type htmlToken struct {
	kind  string // "start", "end", "text", "comment", "doctype"
	name  string // lower-case tag name
	attrs []htmlAttr
	text  string // decoded text, or raw text of script/style/textarea/title
}

func (tk htmlToken) attr(name string) (string, bool) {
	for _, a := range tk.attrs {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

// rawTextElements hold text up to their end tag, as browsers parse them.
var rawTextElements = map[string]bool{"script": true, "style": true, "textarea": true, "title": true}

// tokenizeHTML splits a document into tags and text the way a browser
// would for well-formed input; it reports what it cannot parse.
func tokenizeHTML(doc string) ([]htmlToken, error) {
	var out []htmlToken
	i := 0
	for i < len(doc) {
		if doc[i] != '<' {
			j := strings.IndexByte(doc[i:], '<')
			if j < 0 {
				j = len(doc) - i
			}
			out = append(out, htmlToken{kind: "text", text: decodeEntities(doc[i : i+j])})
			i += j
			continue
		}
		switch {
		case strings.HasPrefix(doc[i:], "<!--"):
			j := strings.Index(doc[i+4:], "-->")
			if j < 0 {
				return out, fmt.Errorf("unterminated comment at %d", i)
			}
			out = append(out, htmlToken{kind: "comment", text: doc[i+4 : i+4+j]})
			i += 4 + j + 3
			continue
		case strings.HasPrefix(strings.ToLower(doc[i:]), "<!doctype"):
			j := strings.IndexByte(doc[i:], '>')
			if j < 0 {
				return out, fmt.Errorf("unterminated doctype")
			}
			out = append(out, htmlToken{kind: "doctype"})
			i += j + 1
			continue
		}
		tok, n, err := parseTag(doc[i:])
		if err != nil {
			return out, fmt.Errorf("at byte %d (%q): %v", i, snippet(doc, i), err)
		}
		out = append(out, tok)
		i += n
		if tok.kind == "start" && rawTextElements[tok.name] {
			end := strings.Index(strings.ToLower(doc[i:]), "</"+tok.name)
			if end < 0 {
				return out, fmt.Errorf("<%s> at %d is never closed", tok.name, i)
			}
			raw := doc[i : i+end]
			if tok.name == "textarea" || tok.name == "title" {
				raw = decodeEntities(raw)
			}
			out = append(out, htmlToken{kind: "text", name: tok.name, text: raw})
			i += end
		}
	}
	return out, nil
}

func snippet(doc string, i int) string {
	return doc[max(0, i-40):min(len(doc), i+60)]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func parseTag(s string) (htmlToken, int, error) {
	i := 1
	tok := htmlToken{kind: "start"}
	if i < len(s) && s[i] == '/' {
		tok.kind = "end"
		i++
	}
	start := i
	for i < len(s) && !isSpace(s[i]) && s[i] != '>' && s[i] != '/' {
		i++
	}
	tok.name = strings.ToLower(s[start:i])
	if tok.name == "" {
		return tok, 0, fmt.Errorf("a '<' that starts no tag")
	}
	for i < len(s) {
		for i < len(s) && (isSpace(s[i]) || s[i] == '/') {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] == '>' {
			return tok, i + 1, nil
		}
		ns := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/' {
			if s[i] == '"' || s[i] == '\'' || s[i] == '<' {
				return tok, 0, fmt.Errorf("character %q in an attribute name", s[i])
			}
			i++
		}
		a := htmlAttr{name: strings.ToLower(s[ns:i])}
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i < len(s) && (s[i] == '"' || s[i] == '\'') {
				q := s[i]
				j := strings.IndexByte(s[i+1:], q)
				if j < 0 {
					return tok, 0, fmt.Errorf("unterminated attribute value")
				}
				a.value = decodeEntities(s[i+1 : i+1+j])
				i += j + 2
			} else {
				vs := i
				for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
					if strings.IndexByte("\"'<=`", s[i]) >= 0 {
						return tok, 0, fmt.Errorf("character %q in an unquoted attribute value", s[i])
					}
					i++
				}
				a.value = decodeEntities(s[vs:i])
			}
		}
		tok.attrs = append(tok.attrs, a)
	}
	return tok, 0, fmt.Errorf("unterminated tag")
}

var entity = regexp.MustCompile(`&(#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);`)

func decodeEntities(s string) string {
	return entity.ReplaceAllStringFunc(s, func(m string) string {
		name := m[1 : len(m)-1]
		switch name {
		case "amp":
			return "&"
		case "lt":
			return "<"
		case "gt":
			return ">"
		case "quot":
			return `"`
		case "apos":
			return "'"
		case "nbsp":
			return "\u00a0"
		}
		var r int
		var err error
		if strings.HasPrefix(name, "#x") || strings.HasPrefix(name, "#X") {
			_, err = fmt.Sscanf(name[2:], "%x", &r)
		} else if strings.HasPrefix(name, "#") {
			_, err = fmt.Sscanf(name[1:], "%d", &r)
		} else {
			return m
		}
		if err != nil {
			return m
		}
		return string(rune(r))
	})
}

// urlAttributes are attributes a browser follows or loads.
var urlAttributes = map[string]bool{"href": true, "src": true, "action": true, "formaction": true, "xlink:href": true, "poster": true, "data": true, "background": true, "cite": true}

// checkPageSafe fails when a page has anything that would run script or
// load from elsewhere: event-handler or style attributes, inline or
// foreign script, URLs with a script scheme or another host, frames,
// objects, <base>, or elements that only injected markup would add.
func checkPageSafe(t testing.TB, where, body string) []htmlToken {
	t.Helper()
	toks, err := tokenizeHTML(body)
	if err != nil {
		t.Fatalf("%s: page does not parse: %v", where, err)
	}
	allowed := map[string]bool{}
	for _, n := range strings.Fields(`html head meta title link script body a header nav ul ol li div form input button span strong main footer p h1 h2 h3 section
		table thead tbody tfoot tr th td code label select option textarea fieldset legend dl dt dd br time details summary figure figcaption svg line text rect polyline circle desc progress article noscript datalist`) {
		allowed[n] = true
	}
	for _, tk := range toks {
		if tk.kind != "start" {
			continue
		}
		if !allowed[tk.name] {
			t.Errorf("%s: unexpected <%s> element (injected markup?)", where, tk.name)
		}
		for _, a := range tk.attrs {
			if strings.HasPrefix(a.name, "on") || a.name == "style" || a.name == "srcdoc" {
				t.Errorf("%s: <%s> has a %s attribute", where, tk.name, a.name)
			}
			if urlAttributes[a.name] {
				v := strings.ToLower(strings.Map(func(r rune) rune {
					if r <= ' ' {
						return -1
					}
					return r
				}, a.value))
				if !(strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//")) && !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "?") {
					t.Errorf("%s: <%s %s=%q> does not stay on scand", where, tk.name, a.name, a.value)
				}
			}
		}
		switch tk.name {
		case "script":
			src, _ := tk.attr("src")
			if !strings.HasPrefix(src, "/ui/static/") {
				t.Errorf("%s: a script that is not the console's own file: src=%q", where, src)
			}
		case "link":
			if href, _ := tk.attr("href"); !strings.HasPrefix(href, "/ui/static/") {
				t.Errorf("%s: <link href=%q>", where, href)
			}
		case "meta":
			if he, ok := tk.attr("http-equiv"); ok && !strings.EqualFold(he, "refresh") {
				t.Errorf("%s: <meta http-equiv=%q>", where, he)
			}
		}
	}
	for i, tk := range toks {
		if tk.kind == "text" && tk.name == "script" && strings.TrimSpace(tk.text) != "" {
			t.Errorf("%s: inline script content %q", where, tk.text)
		}
		_ = i
	}
	return toks
}

// visibleText is the decoded text and attribute values of a page.
func visibleText(toks []htmlToken) string {
	var b strings.Builder
	for _, tk := range toks {
		b.WriteString(tk.text)
		b.WriteByte('\n')
		for _, a := range tk.attrs {
			b.WriteString(a.value)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

func decodeJSON(t testing.TB, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
}
