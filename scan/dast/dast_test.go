package dast

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
)

// builtinDASTTestNow is inside the validity of httptest's certificate.
var builtinDASTTestNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// builtinDASTSecure writes the headers of a well-configured HTML page.
func builtinDASTSecure(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'self'; object-src 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=()")
	if r.TLS != nil {
		h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
	}
	h.Add("Set-Cookie", "sid=opaque; Path=/; Secure; HttpOnly; SameSite=Lax")
}

// builtinDASTPage serves a secure page at every path, with mutate applied
// to the headers of "/" only; other paths answer a plain 404.
func builtinDASTPage(mutate func(h http.Header, r *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		builtinDASTSecure(w, r)
		if r.URL.Path != "/" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if mutate != nil {
			mutate(w.Header(), r)
		}
		_, _ = w.Write([]byte("<!doctype html><html><head><title>ok</title></head><body>hello</body></html>"))
	}
}

// builtinDASTFixture describes one server and how the scanner sees it.
type builtinDASTFixture struct {
	handler    http.HandlerFunc
	tls        bool
	legacyTLS  bool      // serve only TLS 1.0-1.1
	now        time.Time // zero: builtinDASTTestNow
	host       string    // replaces 127.0.0.1 in the target URL
	untrusted  bool      // scanner trusts no root
	targetPath string
}

// builtinDASTServe starts the fixture and returns its base URL and a
// scanner configured for it. Every request must carry scand's User-Agent.
func builtinDASTServe(t *testing.T, fx builtinDASTFixture) (string, *builtinDASTScanner) {
	t.Helper()
	h := func(w http.ResponseWriter, r *http.Request) {
		if ua := r.UserAgent(); ua != builtinDASTUserAgent {
			t.Errorf("User-Agent = %q", ua)
		}
		fx.handler(w, r)
	}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(h))
	// The legacy-TLS probe fails on purpose against modern servers; keep
	// the server's handshake complaints out of the test output.
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	if fx.tls {
		if fx.legacyTLS {
			ts.TLS = &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}
		}
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	now := fx.now
	if now.IsZero() {
		now = builtinDASTTestNow
	}
	s := New(scan.Config{Now: func() time.Time { return now }}).(*builtinDASTScanner)
	s.roots = x509.NewCertPool()
	if fx.tls && !fx.untrusted {
		s.roots.AddCert(ts.Certificate())
	}
	base := ts.URL
	if fx.host != "" {
		base = strings.Replace(base, "127.0.0.1", fx.host, 1)
	}
	return base, s
}

func builtinDASTScan(t *testing.T, s *builtinDASTScanner, target string) []finding.Finding {
	t.Helper()
	got, err := s.Scan(context.Background(), scan.Target{URL: target})
	if err != nil {
		t.Fatalf("scan %s: %v", target, err)
	}
	return got
}

// TestBuiltinDASTRules runs each rule against a server that should trigger
// it (exact URL, severity, CWE, one finding) and against servers that must
// not.
func TestBuiltinDASTRules(t *testing.T) {
	secure := builtinDASTFixture{handler: builtinDASTPage(nil)}
	secureTLS := builtinDASTFixture{handler: builtinDASTPage(nil), tls: true}
	listingDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(listingDir, "backup.sql"), []byte("--"), 0o644); err != nil {
		t.Fatal(err)
	}
	indexDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(indexDir, "index.html"), []byte("<html>home</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	origin := func(h http.Header, r *http.Request, acao string, creds bool) {
		if r.Header.Get("Origin") == "" {
			return
		}
		if acao == "reflect" {
			acao = r.Header.Get("Origin")
		}
		h.Set("Access-Control-Allow-Origin", acao)
		if creds {
			h.Set("Access-Control-Allow-Credentials", "true")
		}
	}
	cors := func(acao string, creds bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			builtinDASTSecure(w, r)
			origin(w.Header(), r, acao, creds)
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			_, _ = w.Write([]byte("<html>api</html>"))
		}
	}
	errorPage := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			builtinDASTSecure(w, r)
			if r.URL.Path == builtinDASTNotFoundPath {
				w.WriteHeader(status)
			}
			_, _ = w.Write([]byte(body))
		}
	}
	withTLS := func(fx builtinDASTFixture) builtinDASTFixture { fx.tls = true; return fx }

	cases := []struct {
		rule     string
		sev      finding.Severity
		cwe      finding.CWE
		bad      builtinDASTFixture
		wantPath string // appended to the base URL; the finding's file_path
		good     []builtinDASTFixture
	}{
		{"DAST001", finding.Medium, "CWE-693", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Del("Content-Security-Policy")
			h.Set("Content-Security-Policy-Report-Only", "default-src 'self'")
		})}, "/", []builtinDASTFixture{secure, {handler: func(w http.ResponseWriter, r *http.Request) {
			builtinDASTSecure(w, r)
			w.Header().Del("Content-Security-Policy")
			_, _ = w.Write([]byte(`<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'self'"></head></html>`))
		}}, {handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			_, _ = w.Write([]byte(`{"ok":true}`))
		}}}},
		{"DAST002", finding.Low, "CWE-693", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval' https:; frame-ancestors 'none'")
		})}, "/", []builtinDASTFixture{secure, {handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("Content-Security-Policy", "script-src 'nonce-r4nd0m' 'unsafe-inline' 'strict-dynamic' https:; object-src 'none'")
		})}}},
		{"DAST003", finding.Medium, "CWE-319", builtinDASTFixture{tls: true, handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Del("Strict-Transport-Security")
		})}, "/", []builtinDASTFixture{secureTLS, secure}},
		{"DAST004", finding.Low, "CWE-319", builtinDASTFixture{tls: true, handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("Strict-Transport-Security", "max-age=300")
		})}, "/", []builtinDASTFixture{secureTLS}},
		{"DAST005", finding.Low, "CWE-693", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Del("X-Content-Type-Options")
		})}, "/", []builtinDASTFixture{secure}},
		{"DAST006", finding.Medium, "CWE-1021", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("Content-Security-Policy", "default-src 'self'")
			h.Set("X-Frame-Options", "ALLOW-FROM https://example.com")
		})}, "/", []builtinDASTFixture{secure, {handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Del("X-Frame-Options") // CSP frame-ancestors alone suffices
		})}}},
		{"DAST007", finding.Low, "CWE-200", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Del("Referrer-Policy")
		})}, "/", []builtinDASTFixture{secure}},
		{"DAST008", finding.Info, "CWE-693", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Del("Permissions-Policy")
		})}, "/", []builtinDASTFixture{secure}},
		{"DAST009", finding.Medium, "CWE-614", builtinDASTFixture{tls: true, handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Add("Set-Cookie", "session=abc; Path=/; HttpOnly; SameSite=Lax")
		})}, "/", []builtinDASTFixture{secureTLS, {handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Add("Set-Cookie", "session=abc; Path=/; HttpOnly; SameSite=Lax") // plain http: Secure cannot apply
		})}}},
		{"DAST010", finding.Low, "CWE-1004", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Add("Set-Cookie", "prefs=dark; Path=/; SameSite=Strict")
			h.Add("Set-Cookie", "session=abc; Path=/; SameSite=Strict")
		})}, "/", []builtinDASTFixture{secure, {handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Add("Set-Cookie", "old=; Path=/; Max-Age=0") // a deletion
		})}}},
		{"DAST011", finding.Low, "CWE-1275", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Add("Set-Cookie", "session=abc; Path=/; HttpOnly")
		})}, "/", []builtinDASTFixture{secure, {handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Add("Set-Cookie", "session=abc; Path=/; HttpOnly; SameSite=Strict")
		})}}},
		{"DAST012", finding.Low, "CWE-200", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("Server", "nginx/1.25.3")
			h.Set("X-Powered-By", "PHP/8.2.1")
		})}, "/", []builtinDASTFixture{secure, {handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("Server", "nginx")
		})}}},
		{"DAST013", finding.Info, "CWE-200", builtinDASTFixture{handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("X-Powered-By", "Express")
		})}, "/", []builtinDASTFixture{secure, {handler: builtinDASTPage(func(h http.Header, _ *http.Request) {
			h.Set("Server", "Apache/2.4.58 (Debian)")
		})}}},
		{"DAST014", finding.High, "CWE-942", builtinDASTFixture{handler: cors("*", true)}, "/",
			[]builtinDASTFixture{secure, {handler: cors("*", false)}}},
		{"DAST015", finding.High, "CWE-942", builtinDASTFixture{handler: cors("reflect", true)}, "/",
			[]builtinDASTFixture{secure, {handler: cors("https://app.example.com", true)}}},
		{"DAST016", finding.Low, "CWE-942", builtinDASTFixture{handler: cors("reflect", false)}, "/",
			[]builtinDASTFixture{secure, {handler: cors("https://app.example.com", false)}}},
		{"DAST017", finding.Medium, "CWE-548", builtinDASTFixture{handler: http.FileServer(http.Dir(listingDir)).ServeHTTP}, "/",
			[]builtinDASTFixture{secure, {handler: http.FileServer(http.Dir(indexDir)).ServeHTTP}}},
		{"DAST018", finding.Medium, "CWE-209", builtinDASTFixture{handler: errorPage(500,
			"Traceback (most recent call last):\n  File \"/app/views.py\", line 12, in index\nZeroDivisionError: division by zero\n")},
			builtinDASTNotFoundPath, []builtinDASTFixture{secure, {handler: errorPage(200,
				"<html><body><p>Python prints <code>Traceback (most recent call last):</code> when ...</p></body></html>")}}},
		{"DAST019", finding.Medium, "CWE-327", builtinDASTFixture{tls: true, legacyTLS: true, handler: builtinDASTPage(nil)}, "/",
			[]builtinDASTFixture{secureTLS}},
		{"DAST020", finding.High, "CWE-295", withTLS(builtinDASTFixture{handler: builtinDASTPage(nil), now: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}), "/",
			[]builtinDASTFixture{secureTLS}},
		{"DAST021", finding.High, "CWE-295", withTLS(builtinDASTFixture{handler: builtinDASTPage(nil), now: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)}), "/",
			[]builtinDASTFixture{secureTLS}},
		{"DAST022", finding.High, "CWE-295", withTLS(builtinDASTFixture{handler: builtinDASTPage(nil), host: "localhost"}), "/",
			[]builtinDASTFixture{secureTLS}},
		{"DAST023", finding.Medium, "CWE-295", withTLS(builtinDASTFixture{handler: builtinDASTPage(nil), untrusted: true}), "/",
			[]builtinDASTFixture{secureTLS}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.rule] = true
		t.Run(c.rule, func(t *testing.T) {
			base, s := builtinDASTServe(t, c.bad)
			target := base + "/" + strings.TrimPrefix(c.bad.targetPath, "/")
			var hits []finding.Finding
			for _, f := range builtinDASTScan(t, s, target) {
				if f.RuleID == c.rule {
					hits = append(hits, f)
				}
			}
			if len(hits) != 1 {
				t.Fatalf("want exactly one %s, got %d: %+v", c.rule, len(hits), hits)
			}
			f := hits[0]
			wantPath := base + c.wantPath
			if f.FilePath != wantPath || f.Line != 0 || f.Severity != c.sev || f.CWE != c.cwe {
				t.Errorf("got %s:%d %s/%s, want %s:0 %s/%s", f.FilePath, f.Line, f.Severity, f.CWE, wantPath, c.sev, c.cwe)
			}
			if f.Scanner != "builtin_dast" || f.ScanType != scan.TypeDAST || f.Title == "" || f.Description == "" || f.Snippet == "" || f.Metadata["rule_name"] == nil {
				t.Errorf("incomplete finding %+v", f)
			}
			for i, good := range c.good {
				base, s := builtinDASTServe(t, good)
				for _, f := range builtinDASTScan(t, s, base+"/") {
					if f.RuleID == c.rule {
						t.Errorf("good fixture %d: unexpected %s: %s", i, f.RuleID, f.Description)
					}
				}
			}
		})
	}
	for _, r := range builtinDASTRules.Rules {
		if !covered[r.ID] {
			t.Errorf("rule %s has no case", r.ID)
		}
	}
}

// TestBuiltinDASTSecureSiteIsClean is the false-positive guard: a
// well-configured TLS site yields nothing at all.
func TestBuiltinDASTSecureSiteIsClean(t *testing.T) {
	base, s := builtinDASTServe(t, builtinDASTFixture{handler: builtinDASTPage(nil), tls: true})
	for _, f := range builtinDASTScan(t, s, base+"/") {
		t.Errorf("unexpected %s: %s", f.RuleID, f.Description)
	}
}

func TestBuiltinDASTRedirects(t *testing.T) {
	t.Run("other host not followed", func(t *testing.T) {
		var otherHits atomic.Int32
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			otherHits.Add(1)
		}))
		defer other.Close()
		base, s := builtinDASTServe(t, builtinDASTFixture{handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
		}})
		got := builtinDASTScan(t, s, base+"/")
		if n := otherHits.Load(); n != 0 {
			t.Errorf("the other host received %d requests", n)
		}
		for _, f := range got {
			if f.FilePath != base+"/" && !strings.HasPrefix(f.FilePath, base+"/") {
				t.Errorf("finding outside the target: %s %s", f.RuleID, f.FilePath)
			}
		}
	})
	t.Run("same host followed", func(t *testing.T) {
		base, s := builtinDASTServe(t, builtinDASTFixture{handler: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/" {
				http.Redirect(w, r, "/login", http.StatusFound)
				return
			}
			builtinDASTSecure(w, r)
			w.Header().Add("Set-Cookie", "csrf=1; Path=/; SameSite=Strict")
			_, _ = w.Write([]byte("<html>login</html>"))
		}})
		var found *finding.Finding
		for _, f := range builtinDASTScan(t, s, base+"/") {
			if f.RuleID == "DAST010" {
				found = &f
			}
		}
		if found == nil {
			t.Fatal("cookie set after a same-host redirect was not seen")
		}
		if found.FilePath != base+"/" || found.Metadata["url"] != base+"/" {
			t.Errorf("file_path = %s, want the target URL", found.FilePath)
		}
	})
	t.Run("redirect loop bounded", func(t *testing.T) {
		var loops atomic.Int32
		base, s := builtinDASTServe(t, builtinDASTFixture{handler: func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.Header.Get("Origin") == "" && strings.HasPrefix(r.URL.Path, "/loop") {
				loops.Add(1)
			}
			http.Redirect(w, r, "/loop", http.StatusFound)
		}})
		builtinDASTScan(t, s, base+"/loop")
		if n := loops.Load(); n != builtinDASTMaxRedirects+1 {
			t.Errorf("loop requests = %d, want %d", n, builtinDASTMaxRedirects+1)
		}
	})
	if builtinDASTSameHost(builtinDASTMustURL(t, "http://a.example:80/"), builtinDASTMustURL(t, "https://a.example/")) != true ||
		builtinDASTSameHost(builtinDASTMustURL(t, "https://a.example/"), builtinDASTMustURL(t, "https://b.example/")) ||
		builtinDASTSameHost(builtinDASTMustURL(t, "http://127.0.0.1:1000/"), builtinDASTMustURL(t, "http://127.0.0.1:2000/")) ||
		builtinDASTSameHost(builtinDASTMustURL(t, "http://a.example/"), builtinDASTMustURL(t, "javascript:alert(1)")) {
		t.Error("builtinDASTSameHost")
	}
}

// TestBuiltinDASTParentDirectory: a listing one level above the target is
// reported at the directory's URL.
func TestBuiltinDASTParentDirectory(t *testing.T) {
	base, s := builtinDASTServe(t, builtinDASTFixture{handler: func(w http.ResponseWriter, r *http.Request) {
		builtinDASTSecure(w, r)
		switch r.URL.Path {
		case "/static/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write([]byte("console.log(1)"))
		case "/static/":
			_, _ = w.Write([]byte("<html><head><title>Index of /static/</title></head><body><h1>Index of /static/</h1></body></html>"))
		default:
			http.NotFound(w, r)
		}
	}})
	var paths []string
	for _, f := range builtinDASTScan(t, s, base+"/static/app.js") {
		if f.RuleID == "DAST017" {
			paths = append(paths, f.FilePath)
		}
	}
	if len(paths) != 1 || paths[0] != base+"/static/" {
		t.Errorf("listing findings at %v, want [%s/static/]", paths, base)
	}
	for in, want := range map[string]string{"": "", "/": "", "/a": "/", "/a/b": "/a/", "/a/b/": "/a/", "/a/b/c.js": "/a/b/"} {
		if got := builtinDASTParentDir(in); got != want {
			t.Errorf("parent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBuiltinDASTBodyCap(t *testing.T) {
	body := "<html><body>" + strings.Repeat("x", 2<<20) + "<title>Index of /</title></body></html>"
	base, s := builtinDASTServe(t, builtinDASTFixture{handler: func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}})
	count := func() int {
		n := 0
		for _, f := range builtinDASTScan(t, s, base+"/") {
			if f.RuleID == "DAST017" {
				n++
			}
		}
		return n
	}
	if n := count(); n != 0 {
		t.Errorf("evidence past the 1 MiB cap was read (%d findings)", n)
	}
	s.maxBody = 4 << 20
	if n := count(); n != 1 {
		t.Errorf("with a larger cap the listing must be found, got %d", n)
	}
}

func TestBuiltinDASTTimeoutAndErrors(t *testing.T) {
	base, s := builtinDASTServe(t, builtinDASTFixture{handler: func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}})
	s.requestTimeout = 100 * time.Millisecond
	start := time.Now()
	if _, err := s.Scan(context.Background(), scan.Target{URL: base + "/"}); err == nil {
		t.Error("hung server: want error")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("scan of a hung server took %s", d)
	}
	for _, bad := range []string{"", "ftp://example.com/", "example.com", "http://"} {
		if _, err := New(scan.Config{}).Scan(context.Background(), scan.Target{URL: bad}); err == nil {
			t.Errorf("target %q: want error", bad)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	base, s = builtinDASTServe(t, builtinDASTFixture{handler: builtinDASTPage(nil)})
	if _, err := s.Scan(ctx, scan.Target{URL: base + "/"}); err == nil {
		t.Error("cancelled: want error")
	}
	sc := New(scan.Config{})
	if sc.Name() != "builtin_dast" || sc.Type() != scan.TypeDAST {
		t.Errorf("name/type = %s/%s", sc.Name(), sc.Type())
	}
	if v, _, ok := sc.Available(context.Background()); !ok || v != "builtin" {
		t.Errorf("available = %s %v", v, ok)
	}
}

// TestBuiltinDASTBodyFixtures serves the sample pages of testdata/dast:
// every positive error page (as the 500 answer to the not-found probe) must
// be reported with the expected signature, every positive directory index
// (as a 200 page) must be reported, and no negative sample may be.
func TestBuiltinDASTBodyFixtures(t *testing.T) {
	errorPages := []struct {
		file, signature string
	}{
		{"python-traceback.txt", "Python traceback"},
		{"django-debug.html", "Django debug page"},
		{"werkzeug-debugger.html", "Werkzeug debugger"},
		{"java-tomcat.html", "Java stack trace"},
		{"java-spring.txt", "Java stack trace"},
		{"php-fatal.html", "PHP error"},
		{"aspnet-ysod.html", "ASP.NET error page"},
		{"aspnetcore-developer.html", "ASP.NET error page"},
		{"go-panic.txt", "Go panic"},
		{"node-express.html", "Node.js stack trace"},
		{"rails-exception.html", "Rails exception page"},
	}
	serve := func(t *testing.T, page string, status int, atProbe bool) []finding.Finding {
		t.Helper()
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		base, s := builtinDASTServe(t, builtinDASTFixture{handler: func(w http.ResponseWriter, r *http.Request) {
			builtinDASTSecure(w, r)
			if (r.URL.Path == builtinDASTNotFoundPath) == atProbe {
				w.WriteHeader(status)
				_, _ = w.Write(body)
				return
			}
			http.NotFound(w, r)
		}})
		return builtinDASTScan(t, s, base+"/")
	}
	covered := map[string]bool{}
	for _, c := range errorPages {
		covered[c.file] = true
		t.Run(c.file, func(t *testing.T) {
			var got []any
			for _, f := range serve(t, filepath.Join("../../testdata/dast/error-pages/positive", c.file), 500, true) {
				if f.RuleID == "DAST018" {
					got = append(got, f.Metadata["detected"])
					if !strings.HasSuffix(f.FilePath, builtinDASTNotFoundPath) || f.Severity != finding.Medium || f.CWE != "CWE-209" {
						t.Errorf("finding %s %s/%s", f.FilePath, f.Severity, f.CWE)
					}
				}
			}
			if len(got) != 1 || !reflect.DeepEqual(got[0], []string{c.signature}) {
				t.Errorf("detected %v, want [[%s]]", got, c.signature)
			}
		})
	}
	positives, _ := filepath.Glob("../../testdata/dast/error-pages/positive/*")
	for _, p := range positives {
		if !covered[filepath.Base(p)] {
			t.Errorf("fixture %s has no expectation", p)
		}
	}
	negatives, _ := filepath.Glob("../../testdata/dast/error-pages/negative/*")
	for _, p := range negatives {
		for _, f := range serve(t, p, 500, true) {
			if f.RuleID == "DAST018" {
				t.Errorf("%s: unexpected %v", filepath.Base(p), f.Metadata["detected"])
			}
		}
	}
	// A debug-looking page served with 200 is content, not an error.
	for _, f := range serve(t, "../../testdata/dast/error-pages/positive/python-traceback.txt", 200, true) {
		if f.RuleID == "DAST018" {
			t.Error("DAST018 on a 200 response")
		}
	}

	listings, _ := filepath.Glob("../../testdata/dast/listings/positive/*")
	if len(listings) < 5 {
		t.Fatalf("listing fixtures missing: %v", listings)
	}
	for _, p := range listings {
		n := 0
		for _, f := range serve(t, p, 200, false) {
			if f.RuleID == "DAST017" {
				n++
				if f.Severity != finding.Medium || f.CWE != "CWE-548" {
					t.Errorf("%s: %s/%s", p, f.Severity, f.CWE)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d directory-listing findings, want 1", filepath.Base(p), n)
		}
	}
	notListings, _ := filepath.Glob("../../testdata/dast/listings/negative/*")
	for _, p := range append(notListings, negatives...) {
		for _, f := range serve(t, p, 200, false) {
			if f.RuleID == "DAST017" {
				t.Errorf("%s: unexpected directory listing", filepath.Base(p))
			}
		}
	}
}

func builtinDASTMustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
