package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

const wantCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// checkHeaders asserts the security headers every console response has.
func checkHeaders(t testing.TB, where string, p page, static bool) {
	t.Helper()
	h := p.header
	if got := h.Get("Content-Security-Policy"); got != wantCSP {
		t.Errorf("%s: Content-Security-Policy %q", where, got)
	}
	csp := h.Get("Content-Security-Policy")
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:", "data:"} {
		if strings.Contains(csp, bad) {
			t.Errorf("%s: CSP allows %s", where, bad)
		}
	}
	if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("%s: CSP %q lacks default-src 'self' or frame-ancestors 'none'", where, csp)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q", where, got)
	}
	// same-origin on pages (their forms must carry a real Origin),
	// no-referrer on exports; both send nothing to another site.
	if got := h.Get("Referrer-Policy"); got != "same-origin" && got != "no-referrer" {
		t.Errorf("%s: Referrer-Policy %q", where, got)
	}
	if got := h.Get("X-Frame-Options"); got != "DENY" {
		t.Errorf("%s: X-Frame-Options %q", where, got)
	}
	if !static && h.Get("Cache-Control") != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", where, h.Get("Cache-Control"))
	}
}

// fixture is a database with something on every page.
type fixture struct {
	scanA, scanB store.Scan
	fp           string
	webhookID    string
	scheduleID   string
}

func seedFixture(t *testing.T, e *env) fixture {
	t.Helper()
	ctx := context.Background()
	a := e.seedScan("/srv/app", []finding.Finding{
		mkFinding("one", finding.Critical, "secrets", "aws-access-key", "config/aws.py", 3),
		mkFinding("two", finding.High, "dockerfile", "DF008", "Dockerfile", 2),
		mkFinding("gone", finding.Low, "dockerfile", "DF001", "Dockerfile", 1),
	})
	b := e.seedScan("/srv/app", []finding.Finding{
		mkFinding("one", finding.Critical, "secrets", "aws-access-key", "config/aws.py", 3),
		mkFinding("two", finding.High, "dockerfile", "DF008", "Dockerfile", 2),
		mkFinding("new", finding.Medium, "secrets", "generic-api-key", "src/main.go", 10),
	})
	if _, err := e.st.SetTriage(ctx, store.TriageState{Fingerprint: fp("two"), Status: "false_positive", Note: "test fixture", UpdatedBy: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.AddComment(ctx, store.Comment{Fingerprint: fp("one"), Text: "seen on staging", Author: "bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.CreateNotification(ctx, store.Notification{Severity: "critical", Title: "Scan completed", Body: "3 findings", ScanID: b.ID}); err != nil {
		t.Fatal(err)
	}
	wh, err := e.st.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), Name: "ci", URL: "https://receiver.example/hook", Secret: strings.Repeat("s", 32), EventFilter: []string{"scan.complete"}, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(time.Hour).UTC().Truncate(time.Minute)
	sc, err := e.st.CreateSchedule(ctx, store.Schedule{ID: store.NewID(), Name: "nightly", TargetPath: os.TempDir(), ScanTypes: []string{"code"},
		Cron: "0 3 * * *", Timezone: "UTC", Enabled: true, NextRunAt: &next})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{scanA: a, scanB: b, fp: fp("one"), webhookID: wh.ID, scheduleID: sc.ID}
}

func fixturePages(f fixture) []string {
	return []string{
		"/ui/", "/ui/scans", "/ui/scans?status=completed&target=%2Fsrv%2Fapp",
		"/ui/scans/" + f.scanB.ID, "/ui/scans/" + f.scanB.ID + "?severity=critical&severity=high&triage=new&q=aws&suppressed=exclude&limit=25",
		"/ui/findings/" + f.fp, "/ui/findings/" + f.fp + "?scan=" + f.scanA.ID,
		"/ui/compare", "/ui/compare?b=" + f.scanB.ID, "/ui/compare?a=" + f.scanA.ID + "&b=" + f.scanB.ID + "&show=fixed",
		"/ui/browse?path=" + url.QueryEscape(os.TempDir()), "/ui/notifications", "/ui/notifications?unread=1",
		"/ui/keys", "/ui/webhooks", "/ui/webhooks/" + f.webhookID, "/ui/schedules", "/ui/schedules/" + f.scheduleID,
		"/ui/browse?for=image&path=" + url.QueryEscape(os.TempDir()), "/ui/browse?for=schedule&id=" + f.scheduleID + "&path=" + url.QueryEscape(os.TempDir()),
	}
}

var adminPages = regexp.MustCompile(`^/ui/(keys|webhooks|schedules)`)

var postForm = regexp.MustCompile(`<form method="post" action="([^"]*)"`)

// TestEveryPageRendersForEachCaller renders every page for a dev-mode
// caller, a read-only key and an admin key: admin pages are refused to the
// read-only key, which also sees no form that changes anything.
func TestEveryPageRendersForEachCaller(t *testing.T) {
	for _, caller := range []string{"dev", "read", "admin"} {
		t.Run(caller, func(t *testing.T) {
			e := newEnv(t, envOptions{AuthRequired: caller != "dev"})
			f := seedFixture(t, e)
			c := e.client(t)
			switch caller {
			case "read":
				_, key := e.issueKey("reader", "read")
				c.login(key)
			case "admin":
				_, key := e.issueKey("admin", "read", "write", "admin")
				c.login(key)
			}
			for _, path := range fixturePages(f) {
				p := c.get(path)
				checkHeaders(t, path, p, false)
				// Without scan roots the picker lists the whole host: an
				// admin's view too.
				if caller == "read" && (adminPages.MatchString(path) || strings.HasPrefix(path, "/ui/browse")) {
					expect(t, p, http.StatusForbidden, caller+" "+path)
					if !strings.Contains(p.body, "admin scope") {
						t.Errorf("%s: 403 page does not say why:\n%s", path, p.body)
					}
					continue
				}
				expect(t, p, http.StatusOK, caller+" "+path)
				toks := checkPageSafe(t, path, p.body)
				if !strings.Contains(p.body, "<h1>") {
					t.Errorf("%s: no heading", path)
				}
				checkLabels(t, path, toks)
				forms := postForm.FindAllStringSubmatch(p.body, -1)
				for _, m := range forms {
					if caller == "read" && m[1] != "/ui/logout" {
						t.Errorf("read-only key sees a write control on %s: form to %s", path, m[1])
					}
				}
				if caller == "admin" {
					if path == "/ui/scans" && !strings.Contains(p.body, `action="/ui/scans"`) {
						t.Errorf("admin sees no start-scan form")
					}
					if strings.HasPrefix(path, "/ui/findings/") && !strings.Contains(p.body, "/triage") {
						t.Errorf("admin sees no triage form on %s", path)
					}
				}
			}
			// The sign-in page: a signed-in caller is sent on, dev mode says
			// no sign-in is needed.
			p := c.get("/ui/login")
			if caller == "dev" {
				expect(t, p, http.StatusOK, "/ui/login")
				checkPageSafe(t, "/ui/login", p.body)
			} else {
				expect(t, p, http.StatusSeeOther, "/ui/login when signed in")
			}
		})
	}
}

// checkLabels: every form control people operate has a label.
func checkLabels(t *testing.T, where string, toks []htmlToken) {
	t.Helper()
	labelled := map[string]bool{}
	for _, tk := range toks {
		if tk.kind == "start" && tk.name == "label" {
			if f, ok := tk.attr("for"); ok {
				labelled[f] = true
			}
		}
	}
	depth := 0 // inside a <label>, controls are labelled by it
	for _, tk := range toks {
		if tk.name == "label" {
			if tk.kind == "start" {
				depth++
			} else if tk.kind == "end" {
				depth--
			}
			continue
		}
		if tk.kind != "start" || (tk.name != "input" && tk.name != "select" && tk.name != "textarea") {
			continue
		}
		if typ, _ := tk.attr("type"); typ == "hidden" {
			continue
		}
		id, _ := tk.attr("id")
		if depth == 0 && !labelled[id] {
			name, _ := tk.attr("name")
			t.Errorf("%s: <%s name=%q id=%q> has no label", where, tk.name, name, id)
		}
	}
}

func TestSignInAndOut(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true, EnvKey: "env-key-0123456789-abcdefghij"})
	keyID, key := e.issueKey("alice", "read", "write")
	c := e.client(t)

	p := c.get("/ui/scans?status=running")
	expect(t, p, http.StatusSeeOther, "anonymous GET")
	if p.loc != "/ui/login?next=%2Fui%2Fscans%3Fstatus%3Drunning" {
		t.Fatalf("redirect to %q", p.loc)
	}
	p = c.get("/ui/login?next=%2Fui%2Fscans%3Fstatus%3Drunning")
	expect(t, p, http.StatusOK, "sign-in page")
	checkHeaders(t, "sign-in", p, false)
	if !strings.Contains(p.body, `type="password"`) {
		t.Fatal("the key field is not a password input")
	}
	anon := c.cookie()
	if anon == nil {
		t.Fatal("the sign-in page sets no session cookie for its CSRF token")
	}

	p = c.post("/ui/login", url.Values{"key": {key}, "csrf_token": {""}})
	expect(t, p, http.StatusForbidden, "sign-in without CSRF token")
	p = c.post("/ui/login", url.Values{"key": {"ssk_wrongwrong_" + strings.Repeat("x", 32)}, "next": {"/ui/scans"}, "csrf_token": {csrfOf(c.get("/ui/login").body)}})
	expect(t, p, http.StatusUnauthorized, "sign-in with a wrong key")
	if !strings.Contains(p.body, "not valid") {
		t.Fatalf("no error message:\n%s", p.body)
	}
	if strings.Contains(p.body, "ssk_wrongwrong") {
		t.Fatal("the refused key is echoed back")
	}

	resp := c.post("/ui/login", url.Values{"key": {key}, "next": {"/ui/scans?status=running"}})
	expect(t, resp, http.StatusSeeOther, "sign-in")
	if resp.loc != "/ui/scans?status=running" {
		t.Fatalf("after sign-in to %q", resp.loc)
	}
	setCookie := resp.header.Get("Set-Cookie")
	for _, want := range []string{"scand_session=", "Path=/ui", "HttpOnly", "SameSite=Strict", "Max-Age=43200"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %q", setCookie, want)
		}
	}
	if strings.Contains(setCookie, "Secure") {
		t.Errorf("plain-HTTP cookie marked Secure: %q", setCookie)
	}
	if strings.Contains(setCookie, key) || strings.Contains(setCookie, key[len(key)-32:]) {
		t.Fatal("the session cookie carries the key")
	}
	if c.cookie().Value == anon.Value {
		t.Fatal("signing in kept the anonymous session's nonce")
	}
	p = c.get("/ui/scans?status=running")
	expect(t, p, http.StatusOK, "page after sign-in")
	// By the key's name, with its id in the tooltip (issue 25).
	if got := whoSpans(t, p.body, keyID); len(got) != 1 || got[0] != "alice" {
		t.Fatalf("the page names the signed-in key %q, want alice", got)
	}
	if strings.Contains(e.logs.String(), key) {
		t.Fatal("the key appears in a log line")
	}

	// Open redirects are refused: next must stay on the console.
	for _, next := range []string{"https://evil.example/", "//evil.example/ui/", "/ui/\\evil", "/api/v1/keys", "/ui/../api/v1/keys"} {
		c2 := e.client(t)
		c2.get("/ui/login")
		p := c2.post("/ui/login", url.Values{"key": {key}, "next": {next}})
		if p.loc != "/ui/" {
			t.Errorf("next=%q redirected to %q", next, p.loc)
		}
	}

	stolen := c.cookie().Value
	p = c.post("/ui/logout", nil)
	expect(t, p, http.StatusSeeOther, "sign-out")
	if p.loc != "/ui/login?done=out" {
		t.Fatalf("sign-out to %q", p.loc)
	}
	if !strings.Contains(p.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("sign-out does not clear the cookie: %q", p.header.Get("Set-Cookie"))
	}
	p = c.get("/ui/")
	expect(t, p, http.StatusSeeOther, "after sign-out")

	// A copy of the cookie taken before sign-out is dead too.
	replay := e.client(t)
	u, _ := url.Parse(e.srv.URL + "/ui/")
	replay.http.Jar.SetCookies(u, []*http.Cookie{{Name: "scand_session", Value: stolen, Path: "/ui"}})
	p = replay.get("/ui/")
	expect(t, p, http.StatusUnauthorized, "signed-out cookie replayed")
	if !strings.Contains(p.body, "Session ended") || !strings.Contains(p.body, "signed out") || !strings.Contains(p.body, "/ui/login") {
		t.Fatalf("no clear message:\n%s", p.body)
	}

	// The environment key signs in too, with every scope.
	ce := e.client(t)
	ce.login("env-key-0123456789-abcdefghij")
	expect(t, ce.get("/ui/keys"), http.StatusOK, "env key on the keys page")
}

func TestSessionCookieSecureBehindTLS(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	_, key := e.issueKey("k", "read")
	c := e.client(t)
	c.get("/ui/login", "X-Forwarded-Proto", "https")
	p := c.post("/ui/login", url.Values{"key": {key}, "csrf_token": {csrfOf(c.last)}}, "X-Forwarded-Proto", "https")
	expect(t, p, http.StatusSeeOther, "sign-in behind a TLS proxy")
	if sc := p.header.Get("Set-Cookie"); !strings.Contains(sc, "; Secure") {
		t.Fatalf("cookie over TLS not Secure: %q", sc)
	}
}

func TestExpiredSessionShowsAClearPage(t *testing.T) {
	clock := &testClock{t: time.Now()}
	e := newEnv(t, envOptions{AuthRequired: true, Clock: clock})
	_, key := e.issueKey("k", "read")
	c := e.client(t)
	c.login(key)
	clock.Advance(11*time.Hour + 59*time.Minute)
	expect(t, c.get("/ui/"), http.StatusOK, "just before 12 h")
	clock.Advance(2 * time.Minute)
	// Only scand's clock moved: the jar still sends the cookie, as a
	// browser whose clock disagrees with scand's would.
	p := c.get("/ui/scans")
	expect(t, p, http.StatusUnauthorized, "expired session")
	if !strings.Contains(p.body, "expired") || !strings.Contains(p.body, "/ui/login") {
		t.Fatalf("expired session page:\n%s", p.body)
	}
	checkHeaders(t, "expired", p, false)
	checkPageSafe(t, "expired", p.body)
}

func TestForgedCookieIsNoSession(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	_, key := e.issueKey("k", "read", "write", "admin")
	c := e.client(t)
	c.login(key)
	v := c.cookie().Value
	parts := strings.Split(v, ".")
	// Claim the env principal with the original signature.
	parts[1] = "ZW52"
	forged := e.client(t)
	u, _ := url.Parse(e.srv.URL + "/ui/")
	forged.http.Jar.SetCookies(u, []*http.Cookie{{Name: "scand_session", Value: strings.Join(parts, "."), Path: "/ui"}})
	p := forged.get("/ui/keys")
	expect(t, p, http.StatusSeeOther, "forged cookie")
	if !strings.HasPrefix(p.loc, "/ui/login") {
		t.Fatalf("forged cookie sent to %q", p.loc)
	}
}

// consolePosts lists every state-changing form of the console with a
// valid body, and how to tell it had no effect.
type consolePost struct {
	path, what string
	form       url.Values
}

func consolePosts(f fixture, keyID string) []consolePost {
	return []consolePost{
		{"/ui/scans", "start scan", url.Values{"target_path": {os.TempDir()}, "scan_types": {"code"}}},
		{"/ui/scans/" + f.scanA.ID + "/delete", "delete scan", nil},
		{"/ui/scans/" + f.scanA.ID + "/cancel", "cancel scan", nil},
		{"/ui/findings/" + f.fp + "/triage", "set verdict", url.Values{"status": {"fixed"}, "note": {"x"}}},
		{"/ui/findings/" + f.fp + "/comments", "add comment", url.Values{"text": {"forged"}}},
		{"/ui/keys", "issue key", url.Values{"name": {"forged"}, "scopes": {"admin"}}},
		{"/ui/keys/" + keyID + "/revoke", "revoke key", nil},
		{"/ui/webhooks", "create webhook", url.Values{"name": {"x"}, "url": {"https://r.example/"}, "event_filter": {"scan.complete"}, "enabled": {"1"}}},
		{"/ui/webhooks/" + f.webhookID, "edit webhook", url.Values{"name": {"renamed"}, "url": {"https://r.example/"}, "event_filter": {"scan.failed"}}},
		{"/ui/webhooks/" + f.webhookID + "/enabled", "disable webhook", url.Values{"enabled": {"0"}}},
		{"/ui/webhooks/" + f.webhookID + "/test", "test webhook", nil},
		{"/ui/webhooks/" + f.webhookID + "/delete", "delete webhook", nil},
		{"/ui/notifications/read-all", "mark all read", nil},
		{"/ui/schedules", "create schedule", url.Values{"name": {"forged"}, "target_path": {os.TempDir()}, "scan_types": {"code"}, "cron": {"@daily"}, "enabled": {"1"}}},
		{"/ui/schedules/" + f.scheduleID, "edit schedule", url.Values{"name": {"renamed"}, "target_path": {os.TempDir()}, "scan_types": {"code"}, "cron": {"@hourly"}}},
		{"/ui/schedules/" + f.scheduleID + "/enabled", "disable schedule", url.Values{"enabled": {"0"}}},
		{"/ui/schedules/" + f.scheduleID + "/delete", "delete schedule", nil},
	}
}

// snapshot is what the forms above could change.
func snapshot(t *testing.T, e *env) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	scans, _ := e.st.Scans(ctx, store.ScanFilter{})
	for _, s := range scans {
		fmt.Fprintf(&b, "scan %s %s\n", s.ID, s.Status)
	}
	st, _ := e.st.TriageStateOf(ctx, fp("one"))
	fmt.Fprintf(&b, "triage %v\n", st != nil)
	cs, _ := e.st.Comments(ctx, fp("one"))
	fmt.Fprintf(&b, "comments %d\n", len(cs))
	keys, _ := e.st.APIKeys(ctx)
	for _, k := range keys {
		fmt.Fprintf(&b, "key %s %v\n", k.ID, k.RevokedAt != nil)
	}
	whs, _ := e.st.Webhooks(ctx)
	for _, w := range whs {
		ds, _ := e.st.DeliveriesByWebhook(ctx, w.ID, 100)
		fmt.Fprintf(&b, "webhook %s %s %v %v %d\n", w.ID, w.Name, w.Enabled, w.EventFilter, len(ds))
	}
	n, _ := e.st.UnreadNotificationCount(ctx)
	fmt.Fprintf(&b, "unread %d\n", n)
	schedules, _ := e.st.Schedules(ctx)
	for _, sc := range schedules {
		fmt.Fprintf(&b, "schedule %s %s %s %v\n", sc.ID, sc.Name, sc.Cron, sc.Enabled)
	}
	return b.String()
}

func TestCSRFRefusal(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	f := seedFixture(t, e)
	victimID, key := e.issueKey("admin", "read", "write", "admin")
	c := e.client(t)
	c.login(key)
	other := e.client(t)
	_, otherKey := e.issueKey("other", "read", "write", "admin")
	other.login(otherKey)
	otherToken := csrfOf(other.last)
	before := snapshot(t, e)
	for _, post := range consolePosts(f, victimID) {
		cases := []struct {
			name    string
			token   *string
			headers []string
		}{
			{"no token", nil, nil},
			{"wrong token", ptr("AAAA"), nil},
			{"another session's token", &otherToken, nil},
			{"cross-site origin", ptr(csrfOf(c.last)), []string{"Origin", "https://evil.example"}},
			{"cross-site fetch", ptr(csrfOf(c.last)), []string{"Sec-Fetch-Site", "cross-site"}},
			// A sandboxed frame or a redirect chain: the right token does
			// not make an opaque origin acceptable.
			{"Origin: null", ptr(csrfOf(c.last)), []string{"Origin", "null"}},
		}
		for _, cs := range cases {
			form := url.Values{}
			for k, v := range post.form {
				form[k] = v
			}
			if cs.token == nil {
				form["csrf_token"] = nil // present, so post adds none; encodes to nothing
			} else {
				form.Set("csrf_token", *cs.token)
			}
			p := c.post(post.path, form, cs.headers...)
			if p.status != http.StatusForbidden {
				t.Errorf("%s with %s: status %d, want 403", post.what, cs.name, p.status)
			}
			checkHeaders(t, post.what, p, false)
		}
	}
	if after := snapshot(t, e); after != before {
		t.Fatalf("a refused form changed data:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func ptr(s string) *string { return &s }

// TestScopeRefusalOfPosts: a read-only key sees no write controls, and the
// server refuses the POST anyway; a write key is refused admin forms.
func TestScopeRefusalOfPosts(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	f := seedFixture(t, e)
	adminID, _ := e.issueKey("admin", "admin")
	_, readKey := e.issueKey("reader", "read")
	_, writeKey := e.issueKey("writer", "read", "write")
	reader, writer := e.client(t), e.client(t)
	reader.login(readKey)
	writer.login(writeKey)
	before := snapshot(t, e)
	for _, post := range consolePosts(f, adminID) {
		reader.get("/ui/")
		p := reader.post(post.path, post.form)
		if p.status != http.StatusForbidden || !strings.Contains(p.body, "lacks the") {
			t.Errorf("read-only key, %s: status %d, want 403 with the missing scope named", post.what, p.status)
		}
		if adminPages.MatchString(post.path) {
			writer.get("/ui/")
			if p := writer.post(post.path, post.form); p.status != http.StatusForbidden {
				t.Errorf("write key, %s: status %d, want 403", post.what, p.status)
			}
		}
	}
	if after := snapshot(t, e); after != before {
		t.Fatalf("a refused form changed data:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The downloads need the read scope the API routes need, which a
	// reader has.
	p := reader.get("/ui/scans/" + f.scanB.ID + "/report?format=sarif")
	expect(t, p, http.StatusOK, "reader downloads SARIF")
}

func TestRevokedKeyEndsTheSession(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true, EnvKey: "env-key-0123456789-abcdefghij"})
	aliceID, aliceKey := e.issueKey("alice", "read", "write")
	c := e.client(t)
	c.login(aliceKey)
	expect(t, c.get("/ui/scans"), http.StatusOK, "before revocation")
	if status, body := e.apiDo("DELETE", "/api/v1/keys/"+aliceID, "env-key-0123456789-abcdefghij", ""); status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", status, body)
	}
	p := c.get("/ui/scans")
	expect(t, p, http.StatusUnauthorized, "first request after revocation")
	if !strings.Contains(p.body, "revoked") || !strings.Contains(p.body, "/ui/login") {
		t.Fatalf("session-ended page:\n%s", p.body)
	}
	if !strings.Contains(p.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatal("the dead session's cookie is not cleared")
	}
	// Signing in again with the revoked key fails.
	c2 := e.client(t)
	c2.get("/ui/login")
	expect(t, c2.post("/ui/login", url.Values{"key": {aliceKey}}), http.StatusUnauthorized, "sign-in with a revoked key")
}

// TestSecurityHeadersOnEveryResponse covers what the page test does not:
// redirects, errors, static files, downloads and form answers.
func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	e := newEnv(t, envOptions{})
	f := seedFixture(t, e)
	c := e.client(t)
	ov := c.get("/ui/")
	checkHeaders(t, "overview", ov, false)
	statics := regexp.MustCompile(`(?:href|src)="(/ui/static/[^"]+)"`).FindAllStringSubmatch(ov.body, -1)
	if len(statics) != 3 {
		t.Fatalf("want 3 static files (css, js, icon), found %v", statics)
	}
	for _, m := range statics {
		p := c.get(m[1])
		expect(t, p, http.StatusOK, m[1])
		checkHeaders(t, m[1], p, true)
		if !strings.Contains(p.header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: Cache-Control %q", m[1], p.header.Get("Cache-Control"))
		}
		ct := p.header.Get("Content-Type")
		if !(strings.HasPrefix(ct, "text/css") || strings.HasPrefix(ct, "text/javascript") || strings.HasPrefix(ct, "image/svg+xml")) {
			t.Errorf("%s: Content-Type %q", m[1], ct)
		}
		for _, ext := range []string{"http://", "https://", "//cdn", "@import", "url("} {
			if strings.Contains(p.body, ext) && !strings.HasSuffix(m[1], ".svg") {
				t.Errorf("%s references %q", m[1], ext)
			}
		}
	}
	for _, probe := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/ui", http.StatusMovedPermanently},
		{"GET", "/ui/no/such/page", http.StatusNotFound},
		{"GET", "/ui/static/nope.js", http.StatusNotFound},
		{"GET", "/ui/scans/nope", http.StatusNotFound},
		{"GET", "/ui/findings/zz", http.StatusNotFound},
		{"GET", "/ui/findings/" + fp("never"), http.StatusNotFound},
		{"GET", "/ui/webhooks/nope", http.StatusNotFound},
		{"PUT", "/ui/scans", http.StatusNotFound},
		{"GET", "/ui/scans/" + f.scanA.ID + "/report?format=html", http.StatusOK},
		{"GET", "/ui/scans/" + f.scanA.ID + "/report?format=nope", http.StatusUnprocessableEntity},
		{"GET", "/ui/scans/" + f.scanA.ID + "/sbom?format=spdx", http.StatusOK},
		{"GET", "/ui/browse?path=relative", http.StatusUnprocessableEntity},
	} {
		req, _ := http.NewRequest(probe.method, e.srv.URL+probe.path, nil)
		p := c.do(req)
		expect(t, p, probe.status, probe.method+" "+probe.path)
		checkHeaders(t, probe.path, p, false)
		if strings.HasPrefix(p.header.Get("Content-Type"), "text/html") && p.status != 200 {
			checkPageSafe(t, probe.path, p.body)
			if strings.Contains(p.body, "goroutine") || strings.Contains(p.body, ".go:") {
				t.Errorf("%s: error page shows internals", probe.path)
			}
		}
	}
	c.get("/ui/findings/" + f.fp)
	p := c.post("/ui/findings/"+f.fp+"/triage", url.Values{"status": {"bogus"}})
	expect(t, p, http.StatusUnprocessableEntity, "invalid verdict")
	checkHeaders(t, "invalid verdict", p, false)
	if !strings.Contains(p.body, "status must be one of new, triaged, false_positive, accepted_risk, fixed, wont_fix") {
		t.Fatalf("the API's validation message is not shown:\n%s", p.body)
	}
	report := c.get("/ui/scans/" + f.scanA.ID + "/report?format=html")
	if cd := report.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") {
		t.Fatalf("the HTML report is served inline under the console: %q", cd)
	}
}

func TestRootLinksTheConsoleAndOpenAPIDoesNotListIt(t *testing.T) {
	e := newEnv(t, envOptions{})
	status, body := e.apiDo("GET", "/", "", "")
	if status != 200 || !strings.Contains(body, `"ui":"/ui/"`) {
		t.Fatalf("GET /: %d %s", status, body)
	}
	status, body = e.apiDo("GET", "/openapi.json", "", "")
	if status != 200 {
		t.Fatalf("openapi: %d", status)
	}
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	decodeJSON(t, body, &doc)
	for p := range doc.Paths {
		if strings.HasPrefix(p, "/ui") {
			t.Errorf("/openapi.json lists console path %s", p)
		}
	}
	// The API itself never accepts the console's cookie.
	c := e.client(t)
	c.get("/ui/")
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/scans", nil)
	for _, ck := range c.http.Jar.Cookies(req.URL) {
		t.Errorf("the session cookie is sent to the API: %v", ck)
	}
}

// TestStartScanUsesTheAPIsRules: the console's form goes through the
// API's validation and confinement, with the API's messages.
func TestStartScanUsesTheAPIsRules(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "repo")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inside, "Dockerfile"), []byte("FROM alpine:latest\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	link := filepath.Join(root, "escape")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{ScanRoots: []string{root}})
	c := e.client(t)
	c.get("/ui/scans")
	for _, cs := range []struct {
		name   string
		form   url.Values
		status int
		msg    string
	}{
		{"relative path", url.Values{"target_path": {"repo"}, "scan_types": {"iac"}}, 422, "target_path must be an absolute path"},
		{"missing directory", url.Values{"target_path": {filepath.Join(root, "nope")}, "scan_types": {"iac"}}, 422, "target_path must be an existing directory"},
		{"no scan type", url.Values{"target_path": {inside}}, 422, "scan_types must not be empty"},
		{"unknown scan type", url.Values{"target_path": {inside}, "scan_types": {"magic"}}, 422, "Input should be one of"},
		{"dast without URL", url.Values{"target_path": {inside}, "scan_types": {"dast"}}, 422, "target_url is required for dast scans"},
		{"javascript URL", url.Values{"target_path": {inside}, "scan_types": {"dast"}, "target_url": {"javascript:alert(1)"}}, 422, "target_url"},
		{"outside the roots", url.Values{"target_path": {outside}, "scan_types": {"iac"}}, 403, "outside the allowed scan roots"},
		{"symlink out of the roots", url.Values{"target_path": {link}, "scan_types": {"iac"}}, 403, "outside the allowed scan roots"},
	} {
		p := c.post("/ui/scans", cs.form)
		if p.status != cs.status || !strings.Contains(p.body, cs.msg) {
			t.Errorf("%s: status %d, want %d with %q:\n%s", cs.name, p.status, cs.status, cs.msg, p.body)
		}
		if !strings.Contains(p.body, "Go back") {
			t.Errorf("%s: the error page has no way back to the form", cs.name)
		}
		c.get("/ui/scans")
	}
	p := c.post("/ui/scans", url.Values{"target_path": {inside}, "scan_types": {"iac"}})
	expect(t, p, http.StatusSeeOther, "start a scan")
	id := strings.TrimPrefix(p.loc, "/ui/scans/")
	sc := e.waitScan(id, 60*time.Second)
	if sc.Status != store.StatusCompleted || sc.FindingsCount == 0 || sc.CreatedBy != "dev" {
		t.Fatalf("scan %+v", sc)
	}
	page := c.get(p.loc)
	expect(t, page, http.StatusOK, "scan page")
	if !strings.Contains(page.body, "DF001") {
		t.Fatalf("the finding is not listed:\n%s", page.body)
	}
	// The browse picker is confined like the API's.
	expect(t, c.get("/ui/browse?path="+url.QueryEscape(outside)), http.StatusForbidden, "browse outside the roots")
	expect(t, c.get("/ui/browse?path="+url.QueryEscape(link)), http.StatusForbidden, "browse through a symlink out")
	b := c.get("/ui/browse")
	expect(t, b, http.StatusOK, "browse the first root")
	if !strings.Contains(b.body, "repo/") {
		t.Fatalf("browse lists no repo/:\n%s", b.body)
	}
}

func TestFindingsPagingAndFilters(t *testing.T) {
	e := newEnv(t, envOptions{})
	var fs []finding.Finding
	sevs := []finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low, finding.Info}
	for i := 0; i < 230; i++ {
		f := mkFinding("f"+strconv.Itoa(i), sevs[i*5/230], []string{"secrets", "dockerfile"}[i%2], "rule-"+strconv.Itoa(i%7), fmt.Sprintf("src/file%03d.go", i), i+1)
		if i%10 == 0 {
			f.Metadata["suppressed_by"] = "scand:ignore rule"
		}
		fs = append(fs, f)
	}
	sc := e.seedScan("/srv/big", fs)
	ctx := context.Background()
	for i := 0; i < 230; i += 3 {
		if _, err := e.st.SetTriage(ctx, store.TriageState{Fingerprint: fp("f" + strconv.Itoa(i)), Status: "triaged", UpdatedBy: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	c := e.client(t)
	rowLink := regexp.MustCompile(`href="/ui/findings/([0-9a-f]{64})\?scan=`)
	next := regexp.MustCompile(`href="([^"]*)" rel="next"`)
	prev := regexp.MustCompile(`href="([^"]*)" rel="prev"`)
	collect := func(start string) ([]string, []string) {
		var order, pages []string
		u := start
		for i := 0; u != ""; i++ {
			if i > 50 {
				t.Fatal("paging does not end")
			}
			p := c.get(strings.ReplaceAll(u, "&amp;", "&"))
			expect(t, p, 200, u)
			pages = append(pages, u)
			for _, m := range rowLink.FindAllStringSubmatch(p.body, -1) {
				order = append(order, m[1])
			}
			u = ""
			if m := next.FindStringSubmatch(p.body); m != nil {
				u = m[1]
			}
		}
		return order, pages
	}
	order, pages := collect("/ui/scans/" + sc.ID + "?limit=25")
	if len(order) != 230 || len(pages) != 10 {
		t.Fatalf("paged through %d findings on %d pages, want 230 on 10", len(order), len(pages))
	}
	for i, got := range order {
		if got != fp("f"+strconv.Itoa(i)) {
			t.Fatalf("row %d is %s, want the canonical order", i, got)
		}
	}
	// Back from the last page arrives at the same rows as forward.
	last := c.get(strings.ReplaceAll(pages[len(pages)-1], "&amp;", "&"))
	m := prev.FindStringSubmatch(last.body)
	if m == nil {
		t.Fatal("the last page has no previous link")
	}
	back := c.get(strings.ReplaceAll(m[1], "&amp;", "&"))
	var got []string
	for _, mm := range rowLink.FindAllStringSubmatch(back.body, -1) {
		got = append(got, mm[1])
	}
	if len(got) != 25 || got[0] != order[200] || got[24] != order[224] {
		t.Fatalf("previous page holds %d rows starting %v", len(got), got[:min(1, len(got))])
	}

	count := regexp.MustCompile(`(\d+) findings? match the filters`)
	for _, cs := range []struct {
		query string
		want  int
	}{
		{"severity=critical", 46},
		{"severity=critical&severity=info", 92},
		{"scanner=dockerfile", 115},
		{"triage=triaged", 77},
		{"triage=new", 153},
		{"suppressed=only", 23},
		{"suppressed=exclude", 207},
		{"q=FILE007", 1},
		{"q=rule-3", 33},
		{"q=TITLE+F137", 1},
		{"severity=critical&scanner=secrets&suppressed=exclude", 18},
		{"compliance=OWASP-A07", 230},
		{"compliance=OWASP-A01", 0},
	} {
		p := c.get("/ui/scans/" + sc.ID + "?" + cs.query)
		m := count.FindStringSubmatch(p.body)
		if m == nil || m[1] != strconv.Itoa(cs.want) {
			t.Errorf("%s: count %v, want %d", cs.query, m, cs.want)
		}
		rows := len(rowLink.FindAllString(p.body, -1))
		if rows != min(cs.want, 50) {
			t.Errorf("%s: %d rows on the page, want %d", cs.query, rows, min(cs.want, 50))
		}
	}
	// Filtered paging keeps its filter on every link.
	filtered, _ := collect("/ui/scans/" + sc.ID + "?scanner=dockerfile&limit=25")
	if len(filtered) != 115 {
		t.Fatalf("filtered paging saw %d rows, want 115", len(filtered))
	}
}

func TestCompareMatchesTheAPI(t *testing.T) {
	e := newEnv(t, envOptions{})
	f := seedFixture(t, e)
	status, body := e.apiDo("GET", "/api/v1/scans/compare?scan_a="+f.scanA.ID+"&scan_b="+f.scanB.ID, "", "")
	if status != 200 {
		t.Fatalf("API compare: %d", status)
	}
	var api map[string]any
	decodeJSON(t, body, &api)
	c := e.client(t)
	// Without a, the previous scan of the same target is the baseline.
	p := c.get("/ui/compare?b=" + f.scanB.ID)
	expect(t, p, 200, "compare with previous")
	counts := regexp.MustCompile(`>(new|fixed|unchanged) <span class="count">(\d+)</span>`).FindAllStringSubmatch(p.body, -1)
	if len(counts) != 3 {
		t.Fatalf("compare counts: %v", counts)
	}
	for _, m := range counts {
		want := len(api[m[1]].([]any))
		if m[2] != strconv.Itoa(want) {
			t.Errorf("%s: console %s, API %d", m[1], m[2], want)
		}
	}
	fixed := c.get("/ui/compare?a=" + f.scanA.ID + "&b=" + f.scanB.ID + "&show=fixed")
	if !strings.Contains(fixed.body, "Title gone") || strings.Contains(fixed.body, "Title new") {
		t.Fatalf("fixed list:\n%s", fixed.body)
	}
}

func TestVerdictAndCommentsThroughTheConsole(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	f := seedFixture(t, e)
	keyID, key := e.issueKey("alice", "read", "write")
	c := e.client(t)
	c.login(key)
	page := c.get("/ui/findings/" + f.fp + "?scan=" + f.scanB.ID)
	expect(t, page, 200, "finding")
	p := c.post("/ui/findings/"+f.fp+"/triage", url.Values{"status": {"accepted_risk"}, "note": {"compensating control"}, "scan": {f.scanB.ID}})
	expect(t, p, http.StatusSeeOther, "set verdict")
	if !strings.Contains(p.loc, "scan="+f.scanB.ID) || !strings.Contains(p.loc, "done=triage") {
		t.Fatalf("after the verdict to %q", p.loc)
	}
	st, err := e.st.TriageStateOf(context.Background(), f.fp)
	if err != nil || st == nil || st.Status != "accepted_risk" || st.Note != "compensating control" || st.UpdatedBy != "alice ("+keyID+")" {
		t.Fatalf("stored verdict %+v, %v", st, err)
	}
	page = c.get(p.loc)
	if !strings.Contains(page.body, "Verdict saved.") || !strings.Contains(page.body, "Accepted risk") {
		t.Fatal("the page does not show the saved verdict")
	}
	// History via the API matches.
	_, hist := e.apiDo("GET", "/api/v1/findings/"+f.fp+"/history", key, "")
	if !strings.Contains(hist, "compensating control") {
		t.Fatalf("history: %s", hist)
	}
	p = c.post("/ui/findings/"+f.fp+"/comments", url.Values{"text": {"Reproduced on staging"}})
	expect(t, p, http.StatusSeeOther, "add comment")
	cs, _ := e.st.Comments(context.Background(), f.fp)
	if len(cs) != 2 || cs[1].Text != "Reproduced on staging" || cs[1].Author != "alice ("+keyID+")" {
		t.Fatalf("comments %+v", cs)
	}
	page = c.get("/ui/findings/" + f.fp)
	expect(t, c.post("/ui/findings/"+f.fp+"/comments", url.Values{"text": {"   "}}), http.StatusUnprocessableEntity, "empty comment")
	page = c.get("/ui/findings/" + f.fp)
	p = c.post("/ui/findings/"+f.fp+"/comments/"+cs[1].ID+"/delete", nil)
	expect(t, p, http.StatusSeeOther, "delete comment")
	if cs, _ := e.st.Comments(context.Background(), f.fp); len(cs) != 1 {
		t.Fatalf("after delete: %+v", cs)
	}
	expect(t, c.post("/ui/findings/"+fp("never")+"/triage", url.Values{"status": {"fixed"}}), http.StatusNotFound, "verdict on an unknown fingerprint")
}

func TestKeysPageShowsThePlaintextOnceAndKeepsLockout(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	adminID, key := e.issueKey("admin", "read", "write", "admin")
	c := e.client(t)
	c.login(key)
	c.get("/ui/keys")
	p := c.post("/ui/keys", url.Values{"name": {"ci"}, "scopes": {"read", "write"}})
	expect(t, p, http.StatusCreated, "issue key")
	m := regexp.MustCompile(`value="(ssk_[A-Za-z0-9_-]{10}_[A-Za-z0-9_-]{32})"`).FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("the new key is not shown:\n%s", p.body)
	}
	if status, _ := e.apiDo("GET", "/api/v1/scans", m[1], ""); status != 200 {
		t.Fatalf("the shown key does not work: %d", status)
	}
	if again := c.get("/ui/keys"); strings.Contains(again.body, m[1]) {
		t.Fatal("the plaintext is shown again")
	}
	expect(t, c.post("/ui/keys", url.Values{"name": {""}, "scopes": {"read"}}), http.StatusUnprocessableEntity, "nameless key")
	c.get("/ui/keys")
	p = c.post("/ui/keys/"+adminID+"/revoke", nil)
	expect(t, p, http.StatusConflict, "revoke the last admin key")
	if !strings.Contains(p.body, "Cannot revoke last admin key without an env-var fallback") {
		t.Fatalf("lockout message missing:\n%s", p.body)
	}
}

func TestWebhooksThroughTheConsole(t *testing.T) {
	got := make(chan http.Header, 4)
	receiver := newReceiver(t, got)
	e := newEnv(t, envOptions{})
	c := e.client(t)
	c.get("/ui/webhooks")
	expect(t, c.post("/ui/webhooks", url.Values{"name": {"x"}, "url": {"https://user:pw@r.example/"}, "event_filter": {"scan.complete"}}), http.StatusUnprocessableEntity, "URL with credentials")
	c.get("/ui/webhooks")
	expect(t, c.post("/ui/webhooks", url.Values{"name": {"x"}, "url": {"ftp://r.example/"}, "event_filter": {"scan.complete"}}), http.StatusUnprocessableEntity, "ftp URL")
	c.get("/ui/webhooks")
	p := c.post("/ui/webhooks", url.Values{"name": {"receiver"}, "url": {receiver}, "event_filter": {"scan.complete", "webhook.test"}, "enabled": {"1"}})
	expect(t, p, http.StatusCreated, "create webhook")
	secret := regexp.MustCompile(`id="new-secret" type="text" readonly value="([A-Za-z0-9_-]{32})"`).FindStringSubmatch(p.body)
	if secret == nil {
		t.Fatalf("secret not shown:\n%s", p.body)
	}
	whs, _ := e.st.Webhooks(context.Background())
	if len(whs) != 1 || whs[0].Secret != secret[1] {
		t.Fatalf("webhooks %+v", whs)
	}
	id := whs[0].ID
	detail := c.get("/ui/webhooks/" + id)
	if strings.Contains(detail.body, secret[1]) {
		t.Fatal("the secret is shown again")
	}
	expect(t, c.post("/ui/webhooks/"+id+"/test", nil), http.StatusSeeOther, "test delivery")
	select {
	case h := <-got:
		if h.Get("X-Svc-Event") != "webhook.test" || !strings.HasPrefix(h.Get("X-Svc-Signature"), "t=") {
			t.Fatalf("delivery headers %v", h)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the test delivery never arrived")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		log := c.get("/ui/webhooks/" + id)
		if strings.Contains(log.body, "delivery-succeeded") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery log never shows success:\n%s", log.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.get("/ui/webhooks/" + id)
	expect(t, c.post("/ui/webhooks/"+id+"/enabled", url.Values{"enabled": {"0"}}), http.StatusSeeOther, "disable")
	c.get("/ui/webhooks/" + id)
	expect(t, c.post("/ui/webhooks/"+id+"/test", nil), http.StatusConflict, "test a disabled webhook")
	c.get("/ui/webhooks/" + id)
	expect(t, c.post("/ui/webhooks/"+id, url.Values{"name": {"renamed"}, "url": {receiver}, "event_filter": {"scan.failed"}, "enabled": {"1"}}), http.StatusSeeOther, "edit")
	wh, _ := e.st.WebhookByID(context.Background(), id)
	if wh.Name != "renamed" || !wh.Enabled || len(wh.EventFilter) != 1 || wh.EventFilter[0] != "scan.failed" || wh.Secret != secret[1] {
		t.Fatalf("after edit %+v", wh)
	}
	c.get("/ui/webhooks/" + id)
	expect(t, c.post("/ui/webhooks/"+id+"/delete", nil), http.StatusSeeOther, "delete")
	if whs, _ := e.st.Webhooks(context.Background()); len(whs) != 0 {
		t.Fatal("not deleted")
	}
}

func newReceiver(t *testing.T, got chan<- http.Header) string {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Clone():
		default:
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/hook"
}

func TestNotificationsMarkRead(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	var ids []string
	for i := 0; i < 3; i++ {
		n, err := e.st.CreateNotification(ctx, store.Notification{Severity: "high", Title: "n" + strconv.Itoa(i), Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	c := e.client(t)
	p := c.get("/ui/notifications")
	if !strings.Contains(p.body, "3 unread") || !strings.Contains(p.body, `aria-label="3 unread"`) {
		t.Fatalf("unread count not shown:\n%s", p.body)
	}
	expect(t, c.post("/ui/notifications/"+ids[0]+"/read", nil), http.StatusSeeOther, "mark one read")
	if n, _ := e.st.UnreadNotificationCount(ctx); n != 2 {
		t.Fatalf("unread %d", n)
	}
	c.get("/ui/notifications")
	expect(t, c.post("/ui/notifications/nope/read", nil), http.StatusNotFound, "unknown notification")
	c.get("/ui/notifications")
	expect(t, c.post("/ui/notifications/read-all", nil), http.StatusSeeOther, "mark all read")
	if n, _ := e.st.UnreadNotificationCount(ctx); n != 0 {
		t.Fatalf("unread %d", n)
	}
}

// TestDevModeEndsWhenTheFirstKeyIsIssued: dev mode needs no sign-in; the
// first key issued from the console is shown once, and the next page asks
// for a sign-in.
func TestDevModeEndsWhenTheFirstKeyIsIssued(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.client(t)
	p := c.get("/ui/keys")
	expect(t, p, 200, "dev mode keys page")
	if !strings.Contains(p.body, "Dev mode") {
		t.Fatal("no dev-mode banner")
	}
	p = c.post("/ui/keys", url.Values{"name": {"first admin"}, "scopes": {"read", "write", "admin"}})
	expect(t, p, http.StatusCreated, "issue the first key")
	if !strings.Contains(p.body, "dev mode is over") {
		t.Fatal("the page does not say dev mode has ended")
	}
	key := regexp.MustCompile(`value="(ssk_[^"]+)"`).FindStringSubmatch(p.body)[1]
	p = c.get("/ui/")
	expect(t, p, http.StatusUnauthorized, "dev session after dev mode")
	if !strings.Contains(p.body, "left dev mode") {
		t.Fatalf("page:\n%s", p.body)
	}
	c2 := e.client(t)
	c2.login(key)
}

func TestConsoleStartScanIsRateLimitedLikeTheAPI(t *testing.T) {
	e := newEnv(t, envOptions{RatePerMin: 1, RateBurst: 5})
	dir := t.TempDir()
	c := e.client(t)
	limited := false
	for i := 0; i < 7 && !limited; i++ {
		c.get("/ui/scans")
		p := c.post("/ui/scans", url.Values{"target_path": {dir}, "scan_types": {"iac"}})
		switch p.status {
		case http.StatusSeeOther:
		case http.StatusTooManyRequests:
			limited = true
			if !strings.Contains(p.body, "Rate limit exceeded") {
				t.Fatalf("429 page:\n%s", p.body)
			}
		default:
			t.Fatalf("start %d: %d %s", i, p.status, p.body)
		}
	}
	if !limited {
		t.Fatal("7 starts in a row were never limited (burst is 5)")
	}
}

// TestOverviewTrendMatchesTheAPI: the overview's trend reads the scans
// table only; it must say what the API's /dashboard/trends says.
func TestOverviewTrendMatchesTheAPI(t *testing.T) {
	e := newEnv(t, envOptions{})
	seedFixture(t, e)
	e.seedScan("/srv/other", []finding.Finding{mkFinding("x1", finding.Low, "secrets", "r", "a", 1)})
	status, body := e.apiDo("GET", "/api/v1/dashboard/trends?days=30", "", "")
	if status != 200 {
		t.Fatalf("trends: %d %s", status, body)
	}
	var api struct {
		Data []struct {
			Date               string         `json:"date"`
			ScansStarted       int            `json:"scans_started"`
			RiskScore          *int           `json:"risk_score"`
			FindingsBySeverity map[string]int `json:"findings_by_severity"`
		} `json:"data"`
	}
	decodeJSON(t, body, &api)
	page := e.client(t).get("/ui/")
	rows := regexp.MustCompile(`<tr><td>(\d{4}-\d\d-\d\d)</td><td class="num">(\d+)</td><td class="num">([^<]*)</td><td class="num">(\d+)</td></tr>`).FindAllStringSubmatch(page.body, -1)
	if len(rows) != 30 || len(api.Data) != 30 {
		t.Fatalf("%d rows in the page's table, %d days from the API", len(rows), len(api.Data))
	}
	for i, d := range api.Data {
		total := 0
		for _, n := range d.FindingsBySeverity {
			total += n
		}
		risk := "—"
		if d.RiskScore != nil {
			risk = strconv.Itoa(*d.RiskScore)
		}
		want := []string{d.Date, strconv.Itoa(d.ScansStarted), risk, strconv.Itoa(total)}
		if got := rows[i][1:]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("day %d: page %v, API %v", i, got, want)
		}
	}
	if last := rows[29]; last[2] != "3" || last[4] != "7" {
		t.Errorf("today: %v, want 3 scans started and 7 findings", last)
	}
}

// TestSignInFailuresBackOff: failed sign-ins from one address are free a
// few times, then refused with Retry-After; the right key is refused
// during the back-off too (accepting it would tell a guesser it is
// right), but no longer than the Retry-After said, and a success never
// counts against the address.
func TestSignInFailuresBackOff(t *testing.T) {
	clock := &testClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	e := newEnv(t, envOptions{AuthRequired: true, EnvKey: "short", Clock: clock})
	c := e.client(t)
	c.get("/ui/login")
	for i := 0; i < 20; i++ {
		c.login("short")
		c.post("/ui/logout", nil)
		c.get("/ui/login")
	}
	refused, lastRetry := 0, ""
	for i := 0; i < 12; i++ {
		p := c.post("/ui/login", url.Values{"key": {"guess-" + strconv.Itoa(i)}})
		switch p.status {
		case http.StatusUnauthorized:
			if refused > 0 {
				t.Fatalf("attempt %d checked the key during a back-off", i)
			}
		case http.StatusTooManyRequests:
			refused++
			lastRetry = p.header.Get("Retry-After")
			if !strings.Contains(p.body, "Too many failed sign-in attempts") || lastRetry == "" {
				t.Fatalf("429 without Retry-After or message: %q\n%s", lastRetry, p.body)
			}
		default:
			t.Fatalf("attempt %d: %d", i, p.status)
		}
	}
	// 20 successes cost nothing: 5 free failures, the 6th starts a 1 s
	// back-off, the other 6 are refused.
	if refused != 6 || lastRetry != "1" {
		t.Fatalf("%d of 12 refused (Retry-After %q), want 6 with Retry-After 1", refused, lastRetry)
	}
	if p := c.post("/ui/login", url.Values{"key": {"short"}}); p.status != http.StatusTooManyRequests {
		t.Fatalf("right key during the back-off: %d", p.status)
	}
	clock.Advance(time.Second)
	c.login("short")
	if !strings.Contains(e.logs.String(), "console sign-in throttled") {
		t.Error("no log line for the throttled sign-ins")
	}
}

// The scan page's coverage names the version each tool reported when the
// scan ran it, escaped like every other tool-given text.
func TestScanPageCoverageShowsToolVersions(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	sc, err := e.st.CreateScan(ctx, store.Scan{ID: store.NewID(), TargetPath: "/srv/app", ScanTypes: []string{"code"}, StartedAt: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.MarkScanRunning(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	coverage := &finding.ScanCoverage{Scanners: []finding.ScannerCoverage{
		{Scanner: "bandit", ScanType: "code", Status: finding.CoverageRan, Version: "1.7.5<script>"},
		{Scanner: "gosec", ScanType: "code", Status: finding.CoverageNotInstalled, Reason: "not installed"},
	}}
	if err := e.st.CompleteScan(ctx, sc.ID, store.ScanResult{ScannersRun: []string{"bandit"}, Coverage: coverage}); err != nil {
		t.Fatal(err)
	}
	p := e.client(t).get("/ui/scans/" + sc.ID)
	expect(t, p, 200, "scan page")
	if !strings.Contains(p.body, "bandit 1.7.5&lt;script&gt; <span") {
		t.Errorf("no escaped version beside bandit in the coverage table:\n%s", p.body)
	}
	if strings.Contains(p.body, "1.7.5<script>") {
		t.Error("the tool's version reached the page unescaped")
	}
}
