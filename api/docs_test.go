package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// externalReference finds anything in a page that would make a browser
// contact another host: absolute or protocol-relative URLs in attributes,
// fetch/import calls and CSS.
var externalReference = regexp.MustCompile(`(?i)(https?:|["'(=]\s*//[a-z0-9])|@import|<script[^>]*\ssrc=|<link[^>]*\shref=`)

func TestDocsPagesAreSelfContained(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	for _, c := range []struct{ path, mode string }{{"/docs", "interactive"}, {"/redoc", "readonly"}} {
		t.Run(c.path, func(t *testing.T) {
			e := e.with(t)
			rec := e.do("GET", c.path, "")
			e.expectStatus(rec, 200)
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Fatalf("Content-Type %q", ct)
			}
			csp := rec.Header().Get("Content-Security-Policy")
			for _, directive := range []string{"default-src 'none'", "connect-src 'self'"} {
				if !strings.Contains(csp, directive) {
					t.Fatalf("CSP %q lacks %q", csp, directive)
				}
			}
			if strings.Contains(csp, "http") || strings.Contains(csp, "*") {
				t.Fatalf("CSP %q allows another origin", csp)
			}
			page := rec.Body.String()
			if m := externalReference.FindString(page); m != "" {
				i := strings.Index(page, m)
				t.Fatalf("page references something outside the service: %q in %q", m, page[max(0, i-60):min(len(page), i+60)])
			}
			if !strings.Contains(page, `data-mode="`+c.mode+`"`) || strings.Contains(page, "{{MODE}}") {
				t.Fatalf("page is not in %s mode", c.mode)
			}
			if !strings.Contains(page, `fetch("/openapi.json")`) {
				t.Fatal("page does not load the document from the service itself")
			}
		})
	}
	// The pattern does catch what it is for.
	for _, bad := range []string{`<script src="/x.js">`, `<img src="https://cdn.example/x.png">`, `fetch("//cdn.example/x")`, `@import url(x.css)`, `<link rel="stylesheet" href="/a.css">`} {
		if !externalReference.MatchString(bad) {
			t.Errorf("externalReference misses %q", bad)
		}
	}
}

// findChromium returns Debian's chromium, or "" when it is not installed.
func findChromium() string {
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

// TestDocsRenderInHeadlessChromium loads /docs and /redoc in a real
// browser: the rendered DOM lists the operations only if the page's script
// fetched /openapi.json from the service and rendered it.
func TestDocsRenderInHeadlessChromium(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium not installed; apt-get install chromium to run this test")
	}
	e := newAPIEnv(t, apiEnvOptions{})
	var mu sync.Mutex
	var requested []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requested = append(requested, r.URL.Path)
		mu.Unlock()
		e.h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	for _, c := range []struct {
		path        string
		interactive bool
	}{{"/docs", true}, {"/redoc", false}} {
		t.Run(c.path, func(t *testing.T) {
			mu.Lock()
			requested = nil
			mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, chromium,
				"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(),
				"--virtual-time-budget=5000", "--dump-dom", ts.URL+c.path)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.String())
			}
			// Only the rendered <main> counts: the script source in the
			// dump mentions the same words.
			dom := string(out)
			start, end := strings.Index(dom, `<main id="main">`), strings.Index(dom, "</main>")
			if start < 0 || end < start {
				t.Fatalf("no <main> in the rendered DOM:\n%s", dom)
			}
			main := dom[start:end]
			for _, want := range []string{
				`<span class="path">/api/v1/keys</span>`, `<span class="path">/api/v1/keys/{id}</span>`,
				`<span class="path">/api/v1/keys/me</span>`, `<span class="path">/openapi.json</span>`,
				"scope: admin", "<h2>keys</h2>",
			} {
				if !strings.Contains(main, want) {
					t.Fatalf("rendered page lacks %q:\n%s", want, main)
				}
			}
			if !strings.Contains(dom, `<span id="version">v`+Version+`</span>`) {
				t.Fatalf("the header does not show v%s", Version)
			}
			if strings.Contains(main, "Could not load") || strings.Contains(main, "Loading /openapi.json") {
				t.Fatalf("the page did not render the document:\n%s", main)
			}
			if got := strings.Contains(main, "<h3>Try it</h3>"); got != c.interactive {
				t.Fatalf("\"Try it\" forms present = %v, want %v", got, c.interactive)
			}
			mu.Lock()
			defer mu.Unlock()
			fetched := false
			for _, p := range requested {
				if p == "/openapi.json" {
					fetched = true
				}
			}
			if !fetched {
				t.Fatalf("the browser never fetched /openapi.json; requests: %v", requested)
			}
		})
	}
}
