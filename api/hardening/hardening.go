// Package hardening is what keeps a web page in someone's browser, and a
// guesser of keys, away from scand: the browser checks on unsafe API
// methods (JSON-only bodies, no cross-site or null Origin, no cross-site
// Sec-Fetch-Site), the Host check that defeats DNS rebinding in dev mode,
// HSTS, the client address the failure throttle keys on, and the 429 it
// answers. It knows no route: the server asks it per request.
package hardening

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"scand/api/httpio"
)

// Policy is the operator's settings for these checks.
type Policy struct {
	// AllowedHosts are the Host names (besides loopback names and
	// addresses) a dev-mode scand answers (SVC_ALLOWED_HOSTS); an entry
	// ".example.com" allows its subdomains.
	AllowedHosts []string
	// TrustProxy says a reverse proxy in front of scand sets
	// X-Forwarded-Proto and X-Forwarded-For (SVC_TRUST_PROXY): HSTS is
	// then sent when it says https, and the throttle keys on the address
	// it appends.
	TrustProxy bool
}

// HSTS is the Strict-Transport-Security value sent over https: a year,
// without includeSubDomains (scand cannot speak for sibling hosts).
const HSTS = "max-age=31536000"

// SetHSTS adds Strict-Transport-Security when the request came over TLS,
// directly or (only when the proxy is trusted) as the proxy reports.
func (p Policy) SetHSTS(w http.ResponseWriter, r *http.Request) {
	if r.TLS != nil || (p.TrustProxy && strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https")) {
		w.Header().Set("Strict-Transport-Security", HSTS)
	}
}

// ClientAddr is the address the failure throttle counts against: the
// peer's IP, or with a trusted proxy the last address of X-Forwarded-For
// (the one the proxy itself appended; earlier ones are the client's word).
func (p Policy) ClientAddr(r *http.Request) string {
	if p.TrustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			last := xff[len(xff)-1]
			if i := strings.LastIndexByte(last, ','); i >= 0 {
				last = last[i+1:]
			}
			if a, err := netip.ParseAddr(strings.TrimSpace(last)); err == nil {
				return a.String()
			}
		}
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// HostAllowed reports whether a dev-mode scand may answer a request for
// this Host: a loopback name (localhost, *.localhost) or address, the
// address the connection arrived on, or a configured name. A rebinding
// attack needs a name the attacker controls, so every other name is
// refused while nothing protects scand.
func (p Policy) HostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Unmap().IsLoopback() {
			return true
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if ap, err := netip.ParseAddrPort(local.String()); err == nil && ap.Addr().Unmap() == a.Unmap() {
				return true
			}
		}
		return false
	}
	for _, allowed := range p.AllowedHosts {
		allowed = strings.ToLower(allowed)
		if host == allowed || (strings.HasPrefix(allowed, ".") && strings.HasSuffix(host, allowed)) {
			return true
		}
	}
	return false
}

// RefuseHost is the answer to a dev-mode request for a foreign Host.
func RefuseHost(r *http.Request) *httpio.Error {
	return httpio.Status(http.StatusForbidden, "Host "+strconv.Quote(r.Host)+" is not allowed: scand runs in dev mode (no API key "+
		"protects it) and answers only loopback names and addresses, or the names in SVC_ALLOWED_HOSTS")
}

// safeMethod reports whether a method cannot change anything.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// corsSafelisted are the body types a page may send to another origin
// without a preflight; every other type needs one, which scand never
// grants.
var corsSafelisted = []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data"}

// CheckUnsafe refuses what only a browser sends on an unsafe method: a
// request another site made (Sec-Fetch-Site cross-site or same-site, an
// Origin other than scand's own, Origin: null), and a body that is not
// JSON. uploadType is the route's declared raw body type ("" for a JSON
// route): such a route also takes any type a page cannot send without a
// preflight. A client that is not a browser sends neither header and a
// JSON (or upload) body, and passes.
func CheckUnsafe(r *http.Request, uploadType string) *httpio.Error {
	if safeMethod(r.Method) {
		return nil
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return httpio.Status(http.StatusForbidden, "Refused: this request was made by another site's page (Sec-Fetch-Site: "+site+")")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !SameOrigin(origin, r.Host) {
		return httpio.Status(http.StatusForbidden, "Refused: Origin "+strconv.Quote(origin)+" is not this server")
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		if r.ContentLength == 0 {
			return nil
		}
		return unsupported(uploadType)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return unsupported(uploadType)
	}
	if mt == "application/json" || (uploadType != "" && (mt == uploadType || !isSafelisted(mt))) {
		return nil
	}
	return unsupported(uploadType)
}

func isSafelisted(mt string) bool {
	for _, s := range corsSafelisted {
		if mt == s {
			return true
		}
	}
	return false
}

func unsupported(uploadType string) *httpio.Error {
	want := "Content-Type: application/json"
	if uploadType != "" {
		want += " or " + uploadType + " (or the archive's own type, such as application/zip)"
	}
	return httpio.Status(http.StatusUnsupportedMediaType, "Unsupported body type: send "+want)
}

// SameOrigin reports whether an Origin header names the host the request
// was sent to ("null" never does).
func SameOrigin(origin, host string) bool {
	if origin == "null" {
		return false
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

// Throttled is the 429 of an address in its failure back-off.
func Throttled(wait time.Duration) *httpio.Error {
	secs := RetryAfterSeconds(wait)
	return &httpio.Error{Status: http.StatusTooManyRequests,
		Detail: "Too many failed authentications from this address; retry in " + strconv.Itoa(secs) + " s",
		Header: map[string]string{"Retry-After": strconv.Itoa(secs)}}
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least one.
func RetryAfterSeconds(wait time.Duration) int {
	secs := int((wait + time.Second - 1) / time.Second)
	return max(secs, 1)
}
