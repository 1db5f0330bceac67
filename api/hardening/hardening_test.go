package hardening

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestClientAddr(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.5:4000"
	r.Header.Add("X-Forwarded-For", "1.2.3.4, 5.6.7.8")
	r.Header.Add("X-Forwarded-For", "9.9.9.9")
	if got := (Policy{}).ClientAddr(r); got != "10.0.0.5" {
		t.Errorf("untrusted proxy: %q", got)
	}
	if got := (Policy{TrustProxy: true}).ClientAddr(r); got != "9.9.9.9" {
		t.Errorf("trusted proxy: %q, want the address the proxy appended", got)
	}
	r.Header.Set("X-Forwarded-For", "not-an-address")
	if got := (Policy{TrustProxy: true}).ClientAddr(r); got != "10.0.0.5" {
		t.Errorf("garbage X-Forwarded-For: %q", got)
	}
}

func TestHostAllowed(t *testing.T) {
	p := Policy{AllowedHosts: []string{"devbox.internal", ".corp.example"}}
	local := &net.TCPAddr{IP: net.ParseIP("192.168.1.20"), Port: 8000}
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:8000": true, "app.localhost:1": true, "localhost.": true,
		"127.0.0.1:8000": true, "127.1.2.3": true, "[::1]:8000": true, "[::ffff:127.0.0.1]:80": true,
		"192.168.1.20:8000": true, // the address the connection arrived on
		"192.168.1.21:8000": false, "10.0.0.1": false,
		"devbox.internal:8000": true, "a.corp.example": true, "corp.example": false,
		"evil.example": false, "localhost.evil.example": false, "127.0.0.1.nip.io": false, "": false,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
		if got := p.HostAllowed(r); got != want {
			t.Errorf("Host %q: %v, want %v", host, got, want)
		}
	}
}

func TestCheckUnsafe(t *testing.T) {
	req := func(method, ct string, body string, headers ...string) *http.Request {
		r := httptest.NewRequest(method, "http://scand.test:8000/api/v1/x", strings.NewReader(body))
		if ct != "" {
			r.Header.Set("Content-Type", ct)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			r.Header.Set(headers[i], headers[i+1])
		}
		return r
	}
	for _, c := range []struct {
		name   string
		r      *http.Request
		upload string
		want   int
	}{
		{"GET anything", req("GET", "text/plain", "", "Origin", "null", "Sec-Fetch-Site", "cross-site"), "", 0},
		{"JSON", req("POST", "application/json", "{}"), "", 0},
		{"JSON same origin", req("PATCH", "application/json", "{}", "Origin", "http://scand.test:8000", "Sec-Fetch-Site", "same-origin"), "", 0},
		{"no body", req("DELETE", "", ""), "", 0},
		{"user-initiated", req("POST", "application/json", "{}", "Sec-Fetch-Site", "none"), "", 0},
		{"text/plain", req("POST", "text/plain", "{}"), "", 415},
		{"form", req("POST", "application/x-www-form-urlencoded", "a=b"), "", 415},
		{"body without type", req("POST", "", "{}"), "", 415},
		{"bad type", req("POST", "application/json; =", "{}"), "", 415},
		{"other port", req("POST", "application/json", "{}", "Origin", "http://scand.test:9000"), "", 403},
		{"null origin", req("POST", "application/json", "{}", "Origin", "null"), "", 403},
		{"cross-site", req("PUT", "application/json", "{}", "Sec-Fetch-Site", "cross-site"), "", 403},
		{"same-site", req("POST", "application/json", "{}", "Sec-Fetch-Site", "same-site"), "", 403},
		{"upload zip", req("POST", "application/zip", "PK"), "application/octet-stream", 0},
		{"upload octet-stream", req("POST", "application/octet-stream", "x"), "application/octet-stream", 0},
		{"upload as form", req("POST", "application/x-www-form-urlencoded", "x"), "application/octet-stream", 415},
		{"upload as text", req("POST", "text/plain", "x"), "application/octet-stream", 415},
		{"JSON to an upload route", req("POST", "application/json", "x"), "application/octet-stream", 0},
	} {
		got := 0
		if err := CheckUnsafe(c.r, c.upload); err != nil {
			got = err.Status
		}
		if got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestSetHSTSAndThrottled(t *testing.T) {
	for _, c := range []struct {
		tls, trust bool
		proto      string
		want       bool
	}{{true, false, "", true}, {false, false, "https", false}, {false, true, "https", true}, {false, true, "http", false}} {
		r := httptest.NewRequest("GET", "/", nil)
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		r.Header.Set("X-Forwarded-Proto", c.proto)
		w := httptest.NewRecorder()
		Policy{TrustProxy: c.trust}.SetHSTS(w, r)
		if got := w.Header().Get("Strict-Transport-Security") == HSTS; got != c.want {
			t.Errorf("%+v: HSTS %v", c, got)
		}
	}
	e := Throttled(1500 * time.Millisecond)
	if e.Status != 429 || e.Header["Retry-After"] != "2" {
		t.Fatalf("Throttled: %+v", e)
	}
	if RetryAfterSeconds(0) != 1 || RetryAfterSeconds(time.Second) != 1 || RetryAfterSeconds(time.Second+1) != 2 {
		t.Fatal("RetryAfterSeconds rounds wrong")
	}
}
