// Package dast is the built-in `builtin_dast` scanner (scan type dast): a
// passive, low-volume check of one URL (security headers, cookies, CORS,
// disclosure, directory listings, TLS version and certificate). Its rule
// table is the comment below.
package dast

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/request"
	"scand/scan/rules"
)

// The builtin_dast scanner (scan type dast) is a passive, low-volume check
// of one URL: response headers, cookies, CORS, information disclosure and
// the TLS endpoint. It sends a handful of requests, never a payload:
//
//  1. GET <url>, following redirects only within the same host (same
//     hostname and port, or the http:80 -> https:443 upgrade), at most 5;
//  2. GET and OPTIONS (a CORS preflight) of the URL request 1 ended on,
//     with Origin: https://scand-dast-origin.invalid;
//  3. GET <scheme>://<host>/scand-dast-probe-0d9f3c-not-found, to see the
//     error page;
//  4. GET of the parent directory of <url>'s path (when there is one);
//  5. for https: one TLS handshake to read the certificate and one limited
//     to TLS 1.0-1.1 to see whether legacy protocols are accepted.
//
// Every request has a 10 s timeout, the whole scan 60 s; bodies are read up
// to 1 MiB; the User-Agent is scand-dast/0.11. Certificate problems are
// reported as findings, so the HTTP requests themselves do not verify the
// certificate.
//
// file_path is the URL the evidence came from: the target URL as given for
// everything derived from requests 1, 2 and 5 (even when a same-host
// redirect moved the final response elsewhere; metadata.final_url says
// where), the probe URL for findings of requests 3 and 4. line is always 0. There is one
// finding per (rule, URL): several cookies lacking the same attribute are
// one finding listing their names.
//
// Rules (rule_id, metadata.rule_name, severity, CWE):
//
//	DAST001 missing-csp                    medium CWE-693   HTML response without Content-Security-Policy (header or meta)
//	DAST002 weak-csp                       low    CWE-693   script-src/default-src allows 'unsafe-inline' (without nonce/hash), 'unsafe-eval', *, http:, https: or data:
//	DAST003 missing-hsts                   medium CWE-319   https response without Strict-Transport-Security
//	DAST004 short-hsts                     low    CWE-319   HSTS max-age below 180 days (15552000 s)
//	DAST005 missing-nosniff                low    CWE-693   X-Content-Type-Options is not nosniff
//	DAST006 missing-frame-protection       medium CWE-1021  HTML response without X-Frame-Options DENY/SAMEORIGIN or CSP frame-ancestors
//	DAST007 missing-referrer-policy        low    CWE-200   HTML response without Referrer-Policy, or unsafe-url
//	DAST008 missing-permissions-policy     info   CWE-693   HTML response without Permissions-Policy
//	DAST009 cookie-without-secure          medium CWE-614   cookie set over https without Secure
//	DAST010 cookie-without-httponly        low    CWE-1004  cookie without HttpOnly
//	DAST011 cookie-without-samesite        low    CWE-1275  cookie without a SameSite attribute
//	DAST012 version-disclosure             low    CWE-200   Server / X-Powered-By / X-AspNet-Version / X-AspNetMvc-Version with a version number
//	DAST013 technology-disclosure          info   CWE-200   the same headers naming a product without a version
//	DAST014 cors-wildcard-credentials      high   CWE-942   Access-Control-Allow-Origin: * with Access-Control-Allow-Credentials: true
//	DAST015 cors-reflected-credentials     high   CWE-942   an arbitrary Origin reflected with credentials allowed
//	DAST016 cors-reflected-origin          low    CWE-942   an arbitrary Origin reflected, without credentials
//	DAST017 directory-listing              medium CWE-548   autoindex page (Apache, nginx, IIS, Tomcat, Python http.server, Go FileServer) in a 200 response
//	DAST018 error-disclosure               medium CWE-209   stack trace or debug page in an error (>= 400) response
//	DAST019 legacy-tls                     medium CWE-327   server accepts TLS 1.0 or 1.1
//	DAST020 certificate-expired            high   CWE-295   leaf certificate past NotAfter
//	DAST021 certificate-not-yet-valid      high   CWE-295   leaf certificate before NotBefore
//	DAST022 certificate-hostname-mismatch  high   CWE-295   certificate does not cover the host name
//	DAST023 certificate-untrusted          medium CWE-295   chain does not verify to a trusted root (self-signed or unknown CA)
//
// Document rules (DAST001, 002, 006, 007, 008) apply to HTML responses
// only: they protect pages rendered by a browser, and flagging them on JSON
// APIs is noise. DAST018 looks only at error responses so that a page
// quoting a stack trace in an article is not reported.

// builtinDASTUserAgent identifies scand's requests in the target's logs.
const builtinDASTUserAgent = "scand-dast/0.11"

const (
	builtinDASTOrigin        = "https://scand-dast-origin.invalid"
	builtinDASTNotFoundPath  = "/scand-dast-probe-0d9f3c-not-found"
	builtinDASTMaxRedirects  = 5
	builtinDASTHSTSMinMaxAge = 15552000
)

// builtinDASTRules is the rule table; read-only.
var builtinDASTRules = rules.Table{Scanner: "builtin_dast", ScanType: scan.TypeDAST, Rules: []rules.Rule{
	rules.New("DAST001", "missing-csp", finding.Medium, "CWE-693", "Content-Security-Policy header missing",
		"Send a Content-Security-Policy that restricts script sources, e.g. `default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'`, so an injected script cannot run."),
	rules.New("DAST002", "weak-csp", finding.Low, "CWE-693", "Content-Security-Policy allows unsafe script sources",
		"Remove 'unsafe-inline', 'unsafe-eval' and wildcard or scheme-only sources from script-src/default-src; use nonces or hashes (with 'strict-dynamic') for inline scripts."),
	rules.New("DAST003", "missing-hsts", finding.Medium, "CWE-319", "Strict-Transport-Security header missing",
		"Send `Strict-Transport-Security: max-age=31536000; includeSubDomains` on HTTPS responses so browsers never fall back to plain HTTP, where traffic can be intercepted."),
	rules.New("DAST004", "short-hsts", finding.Low, "CWE-319", "Strict-Transport-Security max-age too short",
		"Use a max-age of at least 15552000 (180 days), ideally 31536000, so the protection survives between visits."),
	rules.New("DAST005", "missing-nosniff", finding.Low, "CWE-693", "X-Content-Type-Options: nosniff missing",
		"Send `X-Content-Type-Options: nosniff` so browsers do not reinterpret uploaded or user-controlled content as script or HTML."),
	rules.New("DAST006", "missing-frame-protection", finding.Medium, "CWE-1021", "Page can be framed by any site (clickjacking)",
		"Send `Content-Security-Policy: frame-ancestors 'none'` (or 'self') and, for older browsers, `X-Frame-Options: DENY` (or SAMEORIGIN)."),
	rules.New("DAST007", "missing-referrer-policy", finding.Low, "CWE-200", "Referrer-Policy missing or unsafe",
		"Send `Referrer-Policy: strict-origin-when-cross-origin` (or no-referrer) so URLs with tokens or personal data are not leaked to other sites."),
	rules.New("DAST008", "missing-permissions-policy", finding.Info, "CWE-693", "Permissions-Policy header missing",
		"Send a Permissions-Policy that disables features the site does not use, e.g. `Permissions-Policy: camera=(), microphone=(), geolocation=()`."),
	rules.New("DAST009", "cookie-without-secure", finding.Medium, "CWE-614", "Cookie without the Secure attribute",
		"Set the Secure attribute on every cookie of an HTTPS site so it is never sent over plain HTTP."),
	rules.New("DAST010", "cookie-without-httponly", finding.Low, "CWE-1004", "Cookie without the HttpOnly attribute",
		"Set HttpOnly on cookies that scripts do not need to read (session cookies above all) so an XSS cannot steal them."),
	rules.New("DAST011", "cookie-without-samesite", finding.Low, "CWE-1275", "Cookie without the SameSite attribute",
		"Set `SameSite=Lax` (or Strict) explicitly so the cookie is not sent on cross-site requests, which limits CSRF."),
	rules.New("DAST012", "version-disclosure", finding.Low, "CWE-200", "Server software version disclosed",
		"Remove version numbers from Server and X-Powered-By style headers (e.g. nginx `server_tokens off`, Apache `ServerTokens Prod`, PHP `expose_php = Off`, ASP.NET `enableVersionHeader=false`); they tell an attacker which exploits to try."),
	rules.New("DAST013", "technology-disclosure", finding.Info, "CWE-200", "Server technology disclosed",
		"Consider removing Server and X-Powered-By style headers; they advertise the technology stack."),
	rules.New("DAST014", "cors-wildcard-credentials", finding.High, "CWE-942", "CORS allows any origin with credentials",
		"Never combine `Access-Control-Allow-Origin: *` with `Access-Control-Allow-Credentials: true`; allow a fixed list of trusted origins instead."),
	rules.New("DAST015", "cors-reflected-credentials", finding.High, "CWE-942", "CORS reflects any origin with credentials",
		"Any website can read authenticated responses of this site on behalf of its users. Check the Origin against an allow-list instead of echoing it."),
	rules.New("DAST016", "cors-reflected-origin", finding.Low, "CWE-942", "CORS reflects any origin",
		"Check the Origin against an allow-list instead of echoing it; reflected origins expose content that relies on network position (intranet, IP allow-lists)."),
	rules.New("DAST017", "directory-listing", finding.Medium, "CWE-548", "Directory listing enabled",
		"Disable automatic directory indexes (nginx `autoindex off`, Apache `Options -Indexes`, IIS directoryBrowse enabled=false) so file names and unlinked files are not exposed."),
	rules.New("DAST018", "error-disclosure", finding.Medium, "CWE-209", "Stack trace or debug page in error response",
		"Disable debug mode in production (Django DEBUG=False, Flask/Werkzeug debugger off, ASP.NET customErrors On, PHP display_errors=Off, NODE_ENV=production) and return a generic error page; log details server-side."),
	rules.New("DAST019", "legacy-tls", finding.Medium, "CWE-327", "Server accepts TLS 1.0 or 1.1",
		"Disable TLS 1.0 and 1.1 (deprecated by RFC 8996) and offer TLS 1.2 and 1.3 only."),
	rules.New("DAST020", "certificate-expired", finding.High, "CWE-295", "TLS certificate expired",
		"Renew the certificate and automate renewal (e.g. ACME); browsers reject it and users learn to click through warnings."),
	rules.New("DAST021", "certificate-not-yet-valid", finding.High, "CWE-295", "TLS certificate not yet valid",
		"Check the server clock and the certificate's NotBefore date; install a currently valid certificate."),
	rules.New("DAST022", "certificate-hostname-mismatch", finding.High, "CWE-295", "TLS certificate does not match the host name",
		"Serve a certificate whose subjectAltName covers this host name."),
	rules.New("DAST023", "certificate-untrusted", finding.Medium, "CWE-295", "TLS certificate not trusted",
		"Use a certificate issued by a CA that clients trust (a public CA, or an internal CA distributed to every client) and serve the full intermediate chain."),
}}

type builtinDASTScanner struct {
	scan.Builtin
	cfg            scan.Config
	requestTimeout time.Duration
	overallTimeout time.Duration
	maxBody        int64
	// roots verifies certificates; nil means the system pool. Tests trust
	// their httptest certificate through it.
	roots *x509.CertPool
}

// New returns the built-in passive web scanner.
func New(cfg scan.Config) scan.Scanner {
	return &builtinDASTScanner{Builtin: scan.NewBuiltin("builtin_dast", scan.TypeDAST), cfg: cfg, requestTimeout: 10 * time.Second, overallTimeout: 60 * time.Second, maxBody: 1 << 20}
}

// builtinDASTResponse is what one request returned.
type builtinDASTResponse struct {
	url    *url.URL
	status int
	header http.Header
	body   []byte
}

// builtinDASTResult collects the findings of one scan.
type builtinDASTResult struct {
	out  []finding.Finding
	seen map[string]bool // rule|url already reported
}

func (r *builtinDASTResult) add(id, at string, detail, snippet string, meta map[string]any) {
	if r.seen[id+"|"+at] {
		return
	}
	r.seen[id+"|"+at] = true
	if meta == nil {
		meta = map[string]any{}
	}
	meta["url"] = at
	r.out = append(r.out, builtinDASTRules.Finding(id, at, 0, detail, snippet, meta))
}

// Scan checks t.URL.
func (s *builtinDASTScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	target, err := request.ValidateTargetURL(t.URL)
	if err != nil {
		return nil, fmt.Errorf("builtin_dast: target URL %q: %w", t.URL, err)
	}
	// Refused up front with a clear error; every connection below is
	// checked again when it is dialled (redirects, DNS rebinding).
	if _, err := s.cfg.Targets.Resolve(ctx, target.Hostname()); err != nil {
		return nil, fmt.Errorf("builtin_dast: %w", err)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, s.overallTimeout)
	defer cancel()
	client := s.client()
	defer client.CloseIdleConnections()
	res := &builtinDASTResult{seen: map[string]bool{}}
	at := t.URL

	chain, err := s.follow(ctx, client, target, nil)
	if err != nil {
		return nil, fmt.Errorf("builtin_dast: GET %s: %w", t.URL, err)
	}
	final := chain[len(chain)-1]
	s.checkHeaders(res, at, final)
	s.checkCookies(res, at, chain)
	s.checkBody(res, at, final)

	// CORS: the preflight and a simple GET, both from a foreign origin.
	origin := http.Header{"Origin": {builtinDASTOrigin}}
	if resp, err := s.do(ctx, client, http.MethodOptions, final.url, http.Header{
		"Origin": {builtinDASTOrigin}, "Access-Control-Request-Method": {"GET"},
	}); err == nil {
		s.checkCORS(res, at, http.MethodOptions, resp)
	} else if ctx.Err() == nil {
		s.cfg.Log().Info("builtin_dast: OPTIONS probe failed", "url", final.url.String(), "error", err)
	}
	if resp, err := s.do(ctx, client, http.MethodGet, final.url, origin); err == nil {
		s.checkCORS(res, at, http.MethodGet, resp)
	}

	// Error page and parent directory.
	probes := []*url.URL{final.url.ResolveReference(&url.URL{Path: builtinDASTNotFoundPath})}
	if dir := builtinDASTParentDir(final.url.Path); dir != "" {
		probes = append(probes, final.url.ResolveReference(&url.URL{Path: dir}))
	}
	for _, p := range probes {
		if ctx.Err() != nil {
			break
		}
		resp, err := s.do(ctx, client, http.MethodGet, p, nil)
		if err != nil {
			s.cfg.Log().Info("builtin_dast: probe failed", "url", p.String(), "error", err)
			continue
		}
		s.checkBody(res, p.String(), resp)
	}

	// TLS: the endpoint of the first https URL reached.
	for _, r := range chain {
		if r.url.Scheme == "https" {
			s.checkTLS(ctx, res, at, r.url)
			break
		}
	}
	// The caller's cancellation fails the scan; running into the overall
	// bound returns what was found, which the log line explains.
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		s.cfg.Log().Warn("builtin_dast: overall time limit reached, results are partial", "url", t.URL, "limit", s.overallTimeout)
	}
	if res.out == nil {
		res.out = []finding.Finding{}
	}
	return res.out, nil
}

// client builds the HTTP client. It does not verify certificates (checkTLS
// reports certificate problems as findings, and the headers of a site with
// a bad certificate still deserve an audit), accepts TLS 1.0 for the same
// reason, never follows redirects on its own, keeps no cookies and ignores
// proxy environment variables (a proxy would make the connection the
// target policy must check). Every connection goes through the target
// policy's dialer: the address checked is the address dialled.
func (s *builtinDASTScanner) client() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           s.dial,
			TLSClientConfig:       &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS10}, // #nosec G402 -- audit client; certificate checked in checkTLS
			TLSHandshakeTimeout:   s.requestTimeout,
			ResponseHeaderTimeout: s.requestTimeout,
			MaxIdleConnsPerHost:   2,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       s.requestTimeout,
	}
}

// dial connects to a target address through the target policy.
func (s *builtinDASTScanner) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return s.cfg.Targets.DialContext(&net.Dialer{Timeout: s.requestTimeout})(ctx, network, addr)
}

// do sends one request and reads at most maxBody bytes of the answer.
func (s *builtinDASTScanner) do(ctx context.Context, client *http.Client, method string, u *url.URL, hdr http.Header) (*builtinDASTResponse, error) {
	rctx, cancel := context.WithTimeout(ctx, s.requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", builtinDASTUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.maxBody))
	if err != nil && len(body) == 0 {
		return nil, err
	}
	return &builtinDASTResponse{url: u, status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// follow GETs u and follows redirects within the same host, at most
// builtinDASTMaxRedirects times. It returns every response of the chain.
func (s *builtinDASTScanner) follow(ctx context.Context, client *http.Client, u *url.URL, hdr http.Header) ([]*builtinDASTResponse, error) {
	var chain []*builtinDASTResponse
	cur := u
	for hop := 0; ; hop++ {
		r, err := s.do(ctx, client, http.MethodGet, cur, hdr)
		if err != nil {
			if len(chain) > 0 {
				return chain, nil
			}
			return nil, err
		}
		chain = append(chain, r)
		if r.status < 300 || r.status > 399 || hop >= builtinDASTMaxRedirects {
			return chain, nil
		}
		loc := r.header.Get("Location")
		if loc == "" {
			return chain, nil
		}
		next, err := cur.Parse(loc)
		if err != nil || !builtinDASTSameHost(cur, next) {
			s.cfg.Log().Info("builtin_dast: redirect not followed", "from", cur.String(), "to", loc)
			return chain, nil
		}
		cur = next
	}
}

// builtinDASTSameHost reports whether a redirect from a to b stays on the
// target: the same host name and port, or the plain-to-TLS upgrade of the
// same host name on the default ports.
func builtinDASTSameHost(a, b *url.URL) bool {
	if (b.Scheme != "http" && b.Scheme != "https") || !strings.EqualFold(a.Hostname(), b.Hostname()) {
		return false
	}
	pa, pb := builtinDASTPort(a), builtinDASTPort(b)
	return pa == pb || (a.Scheme == "http" && b.Scheme == "https" && pa == "80" && pb == "443")
}

func builtinDASTPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// builtinDASTParentDir returns the directory above the URL's path ("/a/b"
// -> "/a/", "/a/b/" -> "/a/"), or "" at the root.
func builtinDASTParentDir(p string) string {
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return ""
	}
	dir := path.Dir(p)
	if dir == "/" || dir == "." {
		return "/"
	}
	return dir + "/"
}

// builtinDASTIsHTML reports whether a browser would render the response as
// a document.
func builtinDASTIsHTML(r *builtinDASTResponse) bool {
	ct := strings.ToLower(r.header.Get("Content-Type"))
	if ct != "" {
		return strings.Contains(ct, "text/html") || strings.Contains(ct, "application/xhtml")
	}
	head := bytes.ToLower(r.body[:min(len(r.body), 1024)])
	return bytes.Contains(head, []byte("<html")) || bytes.Contains(head, []byte("<!doctype html"))
}

var (
	builtinDASTMetaCSPRe   = regexp.MustCompile(`(?i)<meta[^>]+http-equiv\s*=\s*["']?content-security-policy["']?[^>]*content\s*=\s*["']([^"']*)`)
	builtinDASTVersionRe   = regexp.MustCompile(`\d+\.\d+|/\s*v?\d+`)
	builtinDASTMaxAgeRe    = regexp.MustCompile(`(?i)max-age\s*=\s*"?(\d+)`)
	builtinDASTCSPNonceRe  = regexp.MustCompile(`'(?:nonce-|sha256-|sha384-|sha512-)`)
	builtinDASTDisclosures = []string{"Server", "X-Powered-By", "X-AspNet-Version", "X-AspNetMvc-Version"}
)

// builtinDASTCSPDirectives parses a policy into directive -> sources.
func builtinDASTCSPDirectives(policy string) map[string][]string {
	out := map[string][]string{}
	for _, part := range strings.Split(policy, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		name := strings.ToLower(f[0])
		if _, dup := out[name]; !dup { // the first occurrence wins
			out[name] = f[1:]
		}
	}
	return out
}

func (s *builtinDASTScanner) checkHeaders(res *builtinDASTResult, at string, r *builtinDASTResponse) {
	h := r.header
	meta := func(extra ...any) map[string]any {
		m := map[string]any{"final_url": r.url.String(), "status": r.status}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i].(string)] = extra[i+1]
		}
		return m
	}
	html := builtinDASTIsHTML(r)
	csp := strings.Join(h.Values("Content-Security-Policy"), "; ")
	if csp == "" && html {
		if m := builtinDASTMetaCSPRe.FindSubmatch(r.body); m != nil {
			csp = string(m[1])
		}
	}
	directives := builtinDASTCSPDirectives(csp)
	if html {
		if csp == "" {
			detail := "The page sends no Content-Security-Policy."
			if h.Get("Content-Security-Policy-Report-Only") != "" {
				detail = "The page sends only Content-Security-Policy-Report-Only, which enforces nothing."
			}
			res.add("DAST001", at, detail, "Content-Security-Policy missing", meta())
		} else if issues := builtinDASTWeakCSP(directives); len(issues) > 0 {
			res.add("DAST002", at, fmt.Sprintf("The policy allows %s.", strings.Join(issues, ", ")), "Content-Security-Policy "+strings.Join(issues, " "),
				meta("issues", issues, "policy", csp))
		}
		_, frameAncestors := directives["frame-ancestors"]
		if xfo := strings.ToUpper(strings.TrimSpace(h.Get("X-Frame-Options"))); !frameAncestors && xfo != "DENY" && xfo != "SAMEORIGIN" {
			detail := "Neither X-Frame-Options nor CSP frame-ancestors is set."
			if xfo != "" {
				detail = fmt.Sprintf("X-Frame-Options is %q, which browsers ignore, and CSP frame-ancestors is not set.", xfo)
			}
			res.add("DAST006", at, detail, "frame protection missing", meta())
		}
		if rp := strings.ToLower(strings.TrimSpace(h.Get("Referrer-Policy"))); rp == "" {
			res.add("DAST007", at, "Referrer-Policy is not set.", "Referrer-Policy missing", meta())
		} else if strings.Contains(rp, "unsafe-url") {
			res.add("DAST007", at, "Referrer-Policy is unsafe-url, which sends full URLs to every site.", "Referrer-Policy unsafe-url", meta())
		}
		if h.Get("Permissions-Policy") == "" {
			res.add("DAST008", at, "", "Permissions-Policy missing", meta())
		}
	}
	if r.url.Scheme == "https" {
		if sts := h.Get("Strict-Transport-Security"); sts == "" {
			res.add("DAST003", at, "", "Strict-Transport-Security missing", meta())
		} else {
			m := builtinDASTMaxAgeRe.FindStringSubmatch(sts)
			age := -1
			if m != nil {
				age, _ = strconv.Atoi(m[1])
			}
			if age < builtinDASTHSTSMinMaxAge {
				res.add("DAST004", at, fmt.Sprintf("Strict-Transport-Security is %q.", sts), "Strict-Transport-Security max-age short", meta("max_age", age))
			}
		}
	}
	if !strings.EqualFold(strings.TrimSpace(h.Get("X-Content-Type-Options")), "nosniff") {
		res.add("DAST005", at, "", "X-Content-Type-Options missing", meta())
	}
	var versioned, named []string
	evidence := map[string]string{}
	for _, name := range builtinDASTDisclosures {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			continue
		}
		evidence[name] = v
		if builtinDASTVersionRe.MatchString(v) || strings.HasPrefix(name, "X-AspNet") {
			versioned = append(versioned, name)
		} else {
			named = append(named, name)
		}
	}
	describe := func(names []string) string {
		parts := make([]string, len(names))
		for i, n := range names {
			parts[i] = fmt.Sprintf("%s: %s", n, evidence[n])
		}
		return strings.Join(parts, "; ")
	}
	if len(versioned) > 0 {
		res.add("DAST012", at, "The response says "+describe(versioned)+".", strings.Join(versioned, ", ")+" version", meta("headers", builtinDASTPick(evidence, versioned)))
	}
	if len(named) > 0 {
		res.add("DAST013", at, "The response says "+describe(named)+".", strings.Join(named, ", "), meta("headers", builtinDASTPick(evidence, named)))
	}
}

func builtinDASTPick(m map[string]string, keys []string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

// builtinDASTWeakCSP lists what makes a policy's script sources unsafe.
func builtinDASTWeakCSP(d map[string][]string) []string {
	sources, ok := d["script-src"]
	if !ok {
		sources, ok = d["default-src"]
	}
	if !ok {
		return []string{"scripts from anywhere (no script-src or default-src)"}
	}
	joined := strings.ToLower(strings.Join(sources, " "))
	// CSP level 2+ browsers ignore 'unsafe-inline' when a nonce or hash is
	// present, and 'strict-dynamic' ignores host sources.
	hashed := builtinDASTCSPNonceRe.MatchString(joined)
	strict := strings.Contains(joined, "'strict-dynamic'")
	var issues []string
	for _, src := range sources {
		switch strings.ToLower(src) {
		case "'unsafe-inline'":
			if !hashed {
				issues = append(issues, "'unsafe-inline'")
			}
		case "'unsafe-eval'":
			issues = append(issues, "'unsafe-eval'")
		case "*", "http:", "https:", "data:":
			if !strict {
				issues = append(issues, src)
			}
		}
	}
	return issues
}

// checkCookies reports the cookies of every response of the chain that
// lack an attribute, one finding per attribute.
func (s *builtinDASTScanner) checkCookies(res *builtinDASTResult, at string, chain []*builtinDASTResponse) {
	now := s.cfg.Time()
	missing := map[string][]string{}
	for _, r := range chain {
		resp := &http.Response{Header: r.header}
		for _, c := range resp.Cookies() {
			// A cookie being deleted carries no value worth protecting.
			if c.MaxAge < 0 || (!c.Expires.IsZero() && c.Expires.Before(now)) {
				continue
			}
			if r.url.Scheme == "https" {
				if !c.Secure {
					missing["DAST009"] = builtinDASTAppendUnique(missing["DAST009"], c.Name)
				}
			}
			if !c.HttpOnly {
				missing["DAST010"] = builtinDASTAppendUnique(missing["DAST010"], c.Name)
			}
			if c.SameSite == 0 {
				missing["DAST011"] = builtinDASTAppendUnique(missing["DAST011"], c.Name)
			}
		}
	}
	for _, id := range []string{"DAST009", "DAST010", "DAST011"} {
		names := missing[id]
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		attr := map[string]string{"DAST009": "Secure", "DAST010": "HttpOnly", "DAST011": "SameSite"}[id]
		res.add(id, at, fmt.Sprintf("Cookies set without %s: %s.", attr, strings.Join(names, ", ")),
			"Set-Cookie "+strings.Join(names, ",")+" without "+attr, map[string]any{"cookies": names})
	}
}

func builtinDASTAppendUnique(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

func (s *builtinDASTScanner) checkCORS(res *builtinDASTResult, at, method string, r *builtinDASTResponse) {
	acao := strings.TrimSpace(r.header.Get("Access-Control-Allow-Origin"))
	creds := strings.EqualFold(strings.TrimSpace(r.header.Get("Access-Control-Allow-Credentials")), "true")
	meta := map[string]any{"method": method, "access_control_allow_origin": acao, "access_control_allow_credentials": creds, "origin_sent": builtinDASTOrigin}
	switch {
	case acao == "*" && creds:
		res.add("DAST014", at, "The response allows every origin and credentials.", "Access-Control-Allow-Origin * with credentials", meta)
	case acao == builtinDASTOrigin && creds:
		res.add("DAST015", at, fmt.Sprintf("A request from %s was answered with that origin and Access-Control-Allow-Credentials: true.", builtinDASTOrigin),
			"Access-Control-Allow-Origin reflected with credentials", meta)
	case acao == builtinDASTOrigin:
		res.add("DAST016", at, fmt.Sprintf("A request from %s was answered with that origin.", builtinDASTOrigin), "Access-Control-Allow-Origin reflected", meta)
	}
}

// builtinDASTListingRe recognises automatic directory indexes.
var builtinDASTListingRe = []*regexp.Regexp{
	regexp.MustCompile(`(?i)<title>\s*Index of /`),
	regexp.MustCompile(`(?i)<h1>\s*Index of /`),
	regexp.MustCompile(`(?i)<title>\s*Directory listing for \[?/`), // Python http.server, Tomcat
	regexp.MustCompile(`\[To Parent Directory\]`),
	// Go's http.FileServer: a bare <pre> of links.
	regexp.MustCompile(`(?i)^(?:<!doctype html>\s*<meta name="viewport"[^>]*>\s*)?<pre>\s*<a href="`),
}

// builtinDASTTraceRe recognises stack traces and framework debug pages.
var builtinDASTTraceRe = []struct {
	name string
	re   *regexp.Regexp
}{
	{"Python traceback", regexp.MustCompile(`Traceback \(most recent call last\):`)},
	{"Django debug page", regexp.MustCompile(`DEBUG = True</code> in your Django settings|Using the URLconf defined in`)},
	{"Werkzeug debugger", regexp.MustCompile(`Werkzeug Debugger|The debugger caught an exception in your WSGI application`)},
	{"Java stack trace", regexp.MustCompile(`(?m)^\s*(?:at )?[\w$]+(?:[./][\w$<>]+)+\((?:[\w$]+\.(?:java|kt|scala|groovy):\d+|Native Method|Unknown Source)\)`)},
	{"PHP error", regexp.MustCompile(`(?i)<b>(?:Fatal error|Parse error|Warning|Notice)</b>:.{0,300}? in <b>[^<]+</b> on line <b>\d+</b>|PHP (?:Fatal error|Parse error|Warning):.{0,300}? on line \d+|Stack trace:\s*#0 `)},
	{"ASP.NET error page", regexp.MustCompile(`Server Error in '[^']*' Application|An unhandled exception occurred (?:during the execution of the current web request|while processing the request)`)},
	{"Go panic", regexp.MustCompile(`goroutine \d+ \[running\]:`)},
	{"Node.js stack trace", regexp.MustCompile(`\bat (?:[^\n<>()]{0,200}\()?(?:(?:/|[A-Za-z]:\\|file:///)[^\s()<>:]+\.(?:js|mjs|cjs|ts|jsx|tsx)|node:[\w/.-]+):\d+:\d+`)},
	{"Rails exception page", regexp.MustCompile(`<title>Action Controller: Exception caught</title>`)},
}

func (s *builtinDASTScanner) checkBody(res *builtinDASTResult, at string, r *builtinDASTResponse) {
	meta := func() map[string]any {
		return map[string]any{"probe_url": r.url.String(), "status": r.status}
	}
	if r.status == http.StatusOK {
		for _, re := range builtinDASTListingRe {
			if re.Match(r.body) {
				res.add("DAST017", at, fmt.Sprintf("%s returns an automatic directory index.", r.url.String()), "directory listing", meta())
				break
			}
		}
	}
	if r.status >= 400 {
		var kinds []string
		for _, t := range builtinDASTTraceRe {
			if t.re.Match(r.body) {
				kinds = append(kinds, t.name)
			}
		}
		if len(kinds) > 0 {
			m := meta()
			m["detected"] = kinds
			res.add("DAST018", at, fmt.Sprintf("The %d response of %s contains a %s.", r.status, r.url.String(), strings.Join(kinds, " and a ")),
				"error disclosure "+strings.Join(kinds, ","), m)
		}
	}
}

// builtinDASTLegacySuites are offered in the legacy probe on top of Go's
// defaults, so a server that only has RSA key exchange or 3DES for TLS
// 1.0/1.1 is still detected.
var builtinDASTLegacySuites = []uint16{
	tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	tls.TLS_RSA_WITH_AES_128_CBC_SHA, tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
}

// checkTLS reads the certificate of u's endpoint and checks whether TLS
// 1.0/1.1 are accepted.
func (s *builtinDASTScanner) checkTLS(ctx context.Context, res *builtinDASTResult, at string, u *url.URL) {
	host := u.Hostname()
	addr := net.JoinHostPort(host, builtinDASTPort(u))
	serverName := host
	if net.ParseIP(host) != nil {
		serverName = "" // SNI carries names only
	}
	dial := func(cfg *tls.Config) (*tls.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, s.requestTimeout)
		defer cancel()
		raw, err := s.dial(dctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		c := tls.Client(raw, cfg)
		if err := c.HandshakeContext(dctx); err != nil {
			_ = raw.Close()
			return nil, err
		}
		return c, nil
	}

	conn, err := dial(&tls.Config{InsecureSkipVerify: true, ServerName: serverName, MinVersion: tls.VersionTLS10}) // #nosec G402 -- verified below
	if err != nil {
		s.cfg.Log().Info("builtin_dast: TLS handshake failed", "addr", addr, "error", err)
	} else {
		state := conn.ConnectionState()
		_ = conn.Close()
		s.checkCertificate(res, at, host, state.PeerCertificates)
	}

	legacy, err := dial(&tls.Config{
		InsecureSkipVerify: true, // #nosec G402 -- protocol probe only, nothing is sent
		ServerName:         serverName,
		MinVersion:         tls.VersionTLS10,
		MaxVersion:         tls.VersionTLS11,
		CipherSuites:       builtinDASTLegacySuites,
	})
	if err == nil {
		v := legacy.ConnectionState().Version
		_ = legacy.Close()
		name := tls.VersionName(v)
		res.add("DAST019", at, fmt.Sprintf("%s completed a %s handshake.", addr, name), "legacy TLS accepted", map[string]any{"version": name})
	}
}

func (s *builtinDASTScanner) checkCertificate(res *builtinDASTResult, at, host string, certs []*x509.Certificate) {
	if len(certs) == 0 {
		return
	}
	leaf := certs[0]
	now := s.cfg.Time()
	meta := func() map[string]any {
		return map[string]any{
			"subject": leaf.Subject.String(), "issuer": leaf.Issuer.String(),
			"not_before": leaf.NotBefore.UTC().Format(time.RFC3339), "not_after": leaf.NotAfter.UTC().Format(time.RFC3339),
			"dns_names": leaf.DNSNames,
		}
	}
	if now.After(leaf.NotAfter) {
		res.add("DAST020", at, fmt.Sprintf("The certificate expired on %s.", leaf.NotAfter.UTC().Format(time.RFC3339)), "certificate expired", meta())
	}
	if now.Before(leaf.NotBefore) {
		res.add("DAST021", at, fmt.Sprintf("The certificate is valid only from %s.", leaf.NotBefore.UTC().Format(time.RFC3339)), "certificate not yet valid", meta())
	}
	if err := leaf.VerifyHostname(host); err != nil {
		res.add("DAST022", at, fmt.Sprintf("The certificate does not cover %s (%v).", host, err), "certificate hostname mismatch", meta())
	}
	// Verify the chain at a moment inside the leaf's validity, so an
	// expired certificate is not also reported as untrusted.
	at2 := now
	if at2.After(leaf.NotAfter) {
		at2 = leaf.NotAfter.Add(-time.Second)
	}
	if at2.Before(leaf.NotBefore) {
		at2 = leaf.NotBefore.Add(time.Second)
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: s.roots, Intermediates: inter, CurrentTime: at2}); err != nil {
		reason := "it does not chain to a trusted root"
		var ua x509.UnknownAuthorityError
		if errors.As(err, &ua) && bytes.Equal(leaf.RawIssuer, leaf.RawSubject) && leaf.CheckSignatureFrom(leaf) == nil {
			reason = "it is self-signed"
		}
		m := meta()
		m["error"] = err.Error()
		res.add("DAST023", at, fmt.Sprintf("The certificate is not trusted: %s.", reason), "certificate untrusted", m)
	}
}
