package api

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"scand/auth"
)

const limitedV1 = "/api/v1/probe/limited"

type rateLimitBody struct {
	Detail      string `json:"detail"`
	RetryAfter  int    `json:"retry_after"`
	LimitPerMin int    `json:"limit_per_min"`
}

func headerInt(t *testing.T, rec *httptest.ResponseRecorder, name string) int64 {
	t.Helper()
	v := rec.Header().Get(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s = %q, want an integer", name, v)
	}
	return n
}

// TestRateLimitBurstHeadersAnd429 checks SPEC.md Limits and Errors 3 on a
// rate-limited test route: 10 in a burst with X-RateLimit-* headers, then
// 429 with Retry-After and the documented body.
func TestRateLimitBurstHeadersAnd429(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
	_, key := e.issueKey("write")
	now := e.clock.Now()
	for i := 1; i <= 10; i++ {
		rec := e.do("POST", limitedV1, "", "X-API-Key", key)
		e.expectStatus(rec, 200)
		if got := headerInt(t, rec, "X-RateLimit-Limit"); got != 60 {
			t.Fatalf("X-RateLimit-Limit = %d, want 60", got)
		}
		if got := headerInt(t, rec, "X-RateLimit-Remaining"); got != int64(10-i) {
			t.Fatalf("request %d: X-RateLimit-Remaining = %d, want %d", i, got, 10-i)
		}
		// Full again after i tokens at one a second.
		if got, want := headerInt(t, rec, "X-RateLimit-Reset"), now.Unix()+int64(i); got != want {
			t.Fatalf("request %d: X-RateLimit-Reset = %d, want %d", i, got, want)
		}
		if rec.Header().Get("Retry-After") != "" {
			t.Fatal("Retry-After on a success")
		}
	}
	rec := e.do("POST", limitedV1, "", "X-API-Key", key)
	e.expectStatus(rec, 429)
	var body rateLimitBody
	e.decode(rec, &body)
	if body != (rateLimitBody{Detail: "Rate limit exceeded", RetryAfter: 1, LimitPerMin: 60}) {
		t.Fatalf("429 body %+v", body)
	}
	if got := headerInt(t, rec, "Retry-After"); got != 1 {
		t.Fatalf("Retry-After = %d, want 1", got)
	}
	if headerInt(t, rec, "X-RateLimit-Remaining") != 0 || headerInt(t, rec, "X-RateLimit-Limit") != 60 {
		t.Fatal("429 without X-RateLimit headers")
	}
	// The legacy prefix shares the bucket: it is the same route.
	e.expectStatus(e.do("POST", "/api/probe/limited", "", "X-API-Key", key), 429)
	// One second later one token is back.
	e.clock.Advance(time.Second)
	e.expectStatus(e.do("POST", limitedV1, "", "X-API-Key", key), 200)
	e.expectStatus(e.do("POST", limitedV1, "", "X-API-Key", key), 429)
	// Unlimited routes carry no rate-limit headers.
	rec = e.do("POST", "/api/v1/probe/write", "", "X-API-Key", key)
	e.expectStatus(rec, 200)
	if rec.Header().Get("X-RateLimit-Limit") != "" {
		t.Fatal("rate-limit headers on a route that is not rate-limited")
	}
}

// TestRateLimitBucketOwners: one bucket per DB key, one shared bucket for
// the env key, one per client IP in dev mode.
func TestRateLimitBucketOwners(t *testing.T) {
	exhaust := func(e *apiEnv, headers ...string) {
		e.t.Helper()
		for i := 0; i < 10; i++ {
			e.expectStatus(e.do("POST", limitedV1, "", headers...), 200)
		}
		e.expectStatus(e.do("POST", limitedV1, "", headers...), 429)
	}
	t.Run("db keys", func(t *testing.T) {
		e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
		_, a := e.issueKey("write")
		_, b := e.issueKey("write")
		exhaust(e, "X-API-Key", a)
		// Same key through Bearer: same bucket.
		e.expectStatus(e.do("POST", limitedV1, "", "Authorization", "Bearer "+a), 429)
		e.expectStatus(e.do("POST", limitedV1, "", "X-API-Key", b), 200)
		// A key's bucket does not depend on the client address.
		e.expectStatus(e.do("POST", limitedV1, "", "X-API-Key", a, "RemoteAddr", "198.51.100.7:4000"), 429)
	})
	t.Run("env key shares one bucket", func(t *testing.T) {
		e := newAPIEnv(t, apiEnvOptions{EnvKey: apiTestEnvKey, TestRoutes: probeRoutes()})
		exhaust(e, "X-API-Key", apiTestEnvKey, "RemoteAddr", "192.0.2.1:1000")
		e.expectStatus(e.do("POST", limitedV1, "", "Authorization", "Bearer "+apiTestEnvKey, "RemoteAddr", "192.0.2.2:1000"), 429)
	})
	t.Run("dev mode by client IP", func(t *testing.T) {
		e := newAPIEnv(t, apiEnvOptions{TestRoutes: probeRoutes()})
		exhaust(e, "RemoteAddr", "192.0.2.1:1000")
		// Another port of the same host is the same client.
		e.expectStatus(e.do("POST", limitedV1, "", "RemoteAddr", "192.0.2.1:2000"), 429)
		e.expectStatus(e.do("POST", limitedV1, "", "RemoteAddr", "192.0.2.2:1000"), 200)
		e.expectStatus(e.do("POST", limitedV1, "", "RemoteAddr", "[2001:db8::1]:1000"), 200)
	})
}

// TestRateLimitRunsAfterAuthentication: a bad key is a 401 and takes no
// token, and neither does a 403.
func TestRateLimitRunsAfterAuthentication(t *testing.T) {
	limiter := auth.NewRateLimiter(60, 10, true)
	e := newAPIEnv(t, apiEnvOptions{Limiter: limiter, TestRoutes: probeRoutes()})
	_, key := e.issueKey("write")
	_, readOnly := e.issueKey("read")
	_, unknown := auth.NewKey()
	for i := 0; i < 50; i++ {
		rec := e.do("POST", limitedV1, "", "X-API-Key", unknown)
		e.expectStatus(rec, 401)
		if rec.Header().Get("X-RateLimit-Limit") != "" {
			t.Fatal("a 401 carries rate-limit headers")
		}
		e.expectStatus(e.do("POST", limitedV1, "", "X-API-Key", readOnly), 403)
		e.expectStatus(e.do("POST", limitedV1, ""), 401)
	}
	if n := limiter.Len(); n != 0 {
		t.Fatalf("%d buckets after only rejected requests, want 0", n)
	}
	exhaustible := 0
	for e.do("POST", limitedV1, "", "X-API-Key", key).Code == 200 {
		exhaustible++
	}
	if exhaustible != 10 {
		t.Fatalf("the valid key got %d requests, want the full burst of 10", exhaustible)
	}
}

func TestRateLimitDisabled(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{Limiter: auth.NewRateLimiter(60, 10, false), TestRoutes: probeRoutes()})
	_, key := e.issueKey("write")
	for i := 0; i < 100; i++ {
		rec := e.do("POST", limitedV1, "", "X-API-Key", key)
		e.expectStatus(rec, 200)
		if rec.Header().Get("X-RateLimit-Limit") != "" {
			t.Fatal("disabled limiter still sends X-RateLimit headers")
		}
	}
}

func TestRateLimitCustomRate(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{Limiter: auth.NewRateLimiter(6, 2, true), TestRoutes: probeRoutes()})
	_, key := e.issueKey("write")
	e.expectStatus(e.do("POST", limitedV1, "", "X-API-Key", key), 200)
	e.expectStatus(e.do("POST", limitedV1, "", "X-API-Key", key), 200)
	rec := e.do("POST", limitedV1, "", "X-API-Key", key)
	e.expectStatus(rec, 429)
	var body rateLimitBody
	e.decode(rec, &body)
	if body.LimitPerMin != 6 || body.RetryAfter != 10 || headerInt(t, rec, "Retry-After") != 10 {
		t.Fatalf("429 body %+v, Retry-After %s; want limit 6 and 10 s", body, rec.Header().Get("Retry-After"))
	}
}
