package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLegacyPrefixHeaders: SPEC.md Versioning 1. Every /api/... response
// (errors included) says it is deprecated, when it ends and where to go;
// /api/v1 and the public routes say nothing of the kind.
func TestLegacyPrefixHeaders(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	_, key := e.issueKey("read", "write", "admin")
	id, _ := e.issueKey("read")
	cases := []struct {
		method, target string
		key            bool
		status         int
		successor      string // "" = no legacy headers expected
	}{
		{"GET", "/api/keys", true, 200, "/api/v1/keys"},
		{"GET", "/api/keys/me", true, 200, "/api/v1/keys/me"},
		{"GET", "/api/keys/", true, 200, "/api/v1/keys"},
		{"DELETE", "/api/keys/" + id, true, 204, "/api/v1/keys/" + id},
		{"POST", "/api/keys", true, 422, "/api/v1/keys"},
		{"GET", "/api/keys", false, 401, "/api/v1/keys"},
		{"GET", "/api/probe/scans/abc/events?event_token=x", false, 401, "/api/v1/probe/scans/abc/events"},
		{"GET", "/api/v1/keys", true, 200, ""},
		{"GET", "/api/v1/keys/me", true, 200, ""},
		{"GET", "/api/v1/keys", false, 401, ""},
		{"GET", "/", false, 200, ""},
		{"GET", "/health", false, 200, ""},
		{"GET", "/ready", false, 200, ""},
		{"GET", "/openapi.json", false, 200, ""},
		{"GET", "/docs", false, 200, ""},
		{"GET", "/redoc", false, 200, ""},
	}
	sunset, err := http.ParseTime("Thu, 31 Dec 2026 23:59:59 GMT")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.target, func(t *testing.T) {
			e := e.with(t)
			var headers []string
			if c.key {
				headers = []string{"X-API-Key", key}
			}
			rec := e.do(c.method, c.target, "", headers...)
			e.expectStatus(rec, c.status)
			h := rec.Header()
			if c.successor == "" {
				for _, name := range []string{"Deprecation", "Sunset", "Link"} {
					if v := h.Get(name); v != "" {
						t.Fatalf("%s: %q on a current route", name, v)
					}
				}
				return
			}
			if want := "</" + strings.TrimPrefix(c.successor, "/") + `>; rel="successor-version"`; h.Get("Link") != want {
				t.Fatalf("Link = %q, want %q", h.Get("Link"), want)
			}
			got, err := http.ParseTime(h.Get("Sunset"))
			if err != nil || !got.Equal(sunset) {
				t.Fatalf("Sunset = %q, want an HTTP date on 2026-12-31", h.Get("Sunset"))
			}
			// RFC 9745: "@" followed by a unix time, in the past of the sunset.
			dep := h.Get("Deprecation")
			secs, err := strconv.ParseInt(strings.TrimPrefix(dep, "@"), 10, 64)
			if !strings.HasPrefix(dep, "@") || err != nil || !time.Unix(secs, 0).Before(sunset) {
				t.Fatalf("Deprecation = %q, want @<unix time> before the sunset", dep)
			}
		})
	}
}

// TestLegacyServesTheSameAsV1: the legacy prefix is the same handler, not
// a copy that could drift.
func TestLegacyServesTheSameAsV1(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	_, key := e.issueKey("read")
	for _, p := range []string{"/keys/me", "/probe/read", "/probe/admin", "/probe/write"} {
		for _, m := range []string{"GET", "POST"} {
			v1 := e.do(m, "/api/v1"+p, "", "X-API-Key", key)
			legacy := e.do(m, "/api"+p, "", "X-API-Key", key)
			if v1.Code != legacy.Code || v1.Body.String() != legacy.Body.String() {
				t.Errorf("%s %s: v1 %d %s, legacy %d %s", m, p, v1.Code, v1.Body, legacy.Code, legacy.Body)
			}
		}
	}
}
