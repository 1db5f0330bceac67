package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"scand/auth"
)

// TestWrongKeysBackOffPerAddress: wrong keys from one address are answered
// 401 a handful of times, then 429 with Retry-After; the right key from
// another address is never delayed; the right key from the failing address
// works again as soon as the back-off it was told has passed; successes
// never count.
func TestWrongKeysBackOffPerAddress(t *testing.T) {
	throttle := auth.NewFailureThrottle()
	e := newAPIEnv(t, apiEnvOptions{EnvKey: "operator-chose-this", Throttle: throttle})
	const guesser, other = "198.51.100.7:40000", "203.0.113.9:40000"
	for i := 0; i < 50; i++ { // successes are free
		if rec := e.do("GET", "/api/v1/scans", "", "X-API-Key", "operator-chose-this", "RemoteAddr", guesser); rec.Code != 200 {
			t.Fatalf("right key %d: %d", i, rec.Code)
		}
	}
	codes := map[int]int{}
	for i := 0; i < 1000; i++ {
		rec := e.do("GET", "/api/v1/scans", "", "X-API-Key", "guess-"+strconv.Itoa(i), "RemoteAddr", guesser)
		codes[rec.Code]++
		if rec.Code == http.StatusTooManyRequests {
			if ra, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || ra < 1 {
				t.Fatalf("429 without a Retry-After: %q", rec.Header().Get("Retry-After"))
			}
		} else if rec.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d %s", i, rec.Code, rec.Body)
		}
		if i == 500 {
			start := time.Now()
			rec := e.do("GET", "/api/v1/scans", "", "X-API-Key", "operator-chose-this", "RemoteAddr", other)
			if rec.Code != 200 || time.Since(start) > 100*time.Millisecond {
				t.Fatalf("right key from another address: %d after %v", rec.Code, time.Since(start))
			}
		}
	}
	if codes[http.StatusUnauthorized] != auth.ThrottleFree+1 || codes[http.StatusTooManyRequests] != 1000-auth.ThrottleFree-1 {
		t.Fatalf("codes %v: want %d answered and the rest 429", codes, auth.ThrottleFree+1)
	}
	st := throttle.Stats()
	if st.Failures != auth.ThrottleFree+1 || st.Refusals != uint64(codes[http.StatusTooManyRequests]) || st.Tracked != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The right key from the guessing address: refused while the back-off
	// lasts, accepted once the Retry-After it names has passed.
	rec := e.do("GET", "/api/v1/scans", "", "X-API-Key", "operator-chose-this", "RemoteAddr", guesser)
	ra, _ := strconv.Atoi(rec.Header().Get("Retry-After"))
	if rec.Code != http.StatusTooManyRequests || ra != 1 {
		t.Fatalf("right key during the back-off: %d Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	e.clock.Advance(time.Duration(ra) * time.Second)
	if rec := e.do("GET", "/api/v1/scans", "", "Authorization", "Bearer operator-chose-this", "RemoteAddr", guesser); rec.Code != 200 {
		t.Fatalf("right key after Retry-After: %d %s", rec.Code, rec.Body)
	}
	// The next failure doubles the back-off.
	e.do("GET", "/api/v1/scans", "", "X-API-Key", "again", "RemoteAddr", guesser)
	if rec := e.do("GET", "/api/v1/scans", "", "X-API-Key", "again", "RemoteAddr", guesser); rec.Header().Get("Retry-After") != "2" {
		t.Fatalf("second back-off: %d Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if !strings.Contains(e.logs.String(), "address backed off") {
		t.Error("no log line for the back-off")
	}
	// A missing key is no guess, and a bad event token (HMAC-signed, so
	// not guessable; a page may reconnect with an expired one) is no guess.
	before := throttle.Stats().Failures
	for i := 0; i < 20; i++ {
		e.do("GET", "/api/v1/scans", "", "RemoteAddr", other)
		if rec := e.do("GET", "/api/v1/scans/x/events?event_token=expired", "", "RemoteAddr", other); rec.Code != 401 {
			t.Fatalf("bad event token %d: %d", i, rec.Code)
		}
	}
	if throttle.Stats().Failures != before {
		t.Fatal("requests without a key counted as failures")
	}
}

// TestThrottleMemoryIsBounded: a spray of addresses keeps at most
// ThrottleMaxAddrs records, and IPv6 clients count per /64.
func TestThrottleMemoryIsBounded(t *testing.T) {
	th := auth.NewFailureThrottle()
	now := time.Now()
	for i := 0; i < 3*auth.ThrottleMaxAddrs; i++ {
		th.Fail("10."+strconv.Itoa(i>>16&255)+"."+strconv.Itoa(i>>8&255)+"."+strconv.Itoa(i&255), now)
	}
	if n := th.Stats().Tracked; n != auth.ThrottleMaxAddrs {
		t.Fatalf("%d addresses tracked, want the cap %d", n, auth.ThrottleMaxAddrs)
	}
	th = auth.NewFailureThrottle()
	for i := 0; i < 20; i++ {
		th.Fail("2001:db8:1:2::"+strconv.FormatInt(int64(i+1), 16), now)
	}
	if th.Check("2001:db8:1:2:ffff::1", now) == 0 || th.Check("2001:db8:1:3::1", now) != 0 {
		t.Fatal("IPv6 failures are not counted per /64")
	}
}

// TestBrowserRequestsRefused: an unsafe API request that only a browser
// page sends (a body type a page may send without preflight, a foreign or
// null Origin, Sec-Fetch-Site of another site) is refused before it does
// anything; JSON clients and scand's own origin pass.
func TestBrowserRequestsRefused(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	hook := `{"name":"x","url":"http://127.0.0.1:9009/x","event_filter":["scan.complete"]}`
	send := func(ct string, headers ...string) int {
		req, _ := http.NewRequest("POST", "http://example.com/api/v1/webhooks", strings.NewReader(hook))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		req.RemoteAddr = "127.0.0.1:5000"
		rec := &recorder{header: http.Header{}}
		e.h.ServeHTTP(rec, req)
		return rec.status
	}
	for _, c := range []struct {
		name    string
		ct      string
		headers []string
		want    int
	}{
		{"text/plain (the issue's repro)", "text/plain", []string{"Origin", "http://evil.example"}, 403},
		{"text/plain without Origin", "text/plain;charset=UTF-8", nil, 415},
		{"form post", "application/x-www-form-urlencoded", nil, 415},
		{"multipart", "multipart/form-data; boundary=x", nil, 415},
		{"no type", "", nil, 415},
		{"JSON from a foreign origin", "application/json", []string{"Origin", "http://127.0.0.1:9999"}, 403},
		{"JSON from Origin null", "application/json", []string{"Origin", "null"}, 403},
		{"JSON cross-site", "application/json", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"JSON same-site (another port)", "application/json", []string{"Sec-Fetch-Site", "same-site"}, 403},
		{"JSON from scand's own origin", "application/json", []string{"Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"}, 201},
		{"JSON client", "application/json; charset=utf-8", nil, 201},
	} {
		if got := send(c.ct, c.headers...); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	var hooks []map[string]any
	e.decode(e.do("GET", "/api/v1/webhooks", ""), &hooks)
	if len(hooks) != 2 {
		t.Fatalf("%d webhooks stored, want the 2 JSON ones", len(hooks))
	}
	// A body-less POST from a non-browser client still works; safe methods
	// are never checked.
	if rec := e.do("PATCH", "/api/v1/notifications/read-all", ""); rec.Code != 200 {
		t.Fatalf("body-less POST: %d %s", rec.Code, rec.Body)
	}
	if rec := e.do("GET", "/api/v1/scans", "", "Origin", "null", "Sec-Fetch-Site", "cross-site"); rec.Code != 200 {
		t.Fatalf("GET with a foreign origin: %d", rec.Code)
	}
}

// recorder is a minimal ResponseWriter for requests built by hand.
type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return len(b), nil
}
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

// TestDevModeAnswersOnlyLocalHosts: DNS rebinding gives a page a foreign
// Host; a dev-mode scand refuses it, loopback names and addresses and the
// configured names pass, and once a key protects scand the check is off.
func TestDevModeAnswersOnlyLocalHosts(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	for _, c := range []struct {
		host string
		want int
	}{
		{"rebind.attacker.example:8000", 403},
		{"127.0.0.1.nip.io:8000", 403},
		{"10.1.2.3:8000", 403},
		{"localhost:8000", 200},
		{"app.localhost", 200},
		{"127.0.0.1:8000", 200},
		{"127.9.9.9", 200},
		{"[::1]:8000", 200},
		{"example.com", 200}, // listed (SVC_ALLOWED_HOSTS)
	} {
		r, _ := http.NewRequest("GET", "/api/v1/scans", nil)
		r.Host = c.host
		r.RemoteAddr = "127.0.0.1:5000"
		rec := &recorder{header: http.Header{}}
		e.h.ServeHTTP(rec, r)
		if rec.status != c.want {
			t.Errorf("Host %s: %d, want %d", c.host, rec.status, c.want)
		}
	}
	protected := newAPIEnv(t, apiEnvOptions{EnvKey: "k"})
	r, _ := http.NewRequest("GET", "/api/v1/scans", nil)
	r.Host = "rebind.attacker.example"
	r.Header.Set("X-API-Key", "k")
	rec := &recorder{header: http.Header{}}
	protected.h.ServeHTTP(rec, r)
	if rec.status != 200 {
		t.Fatalf("protected scand behind a named host: %d", rec.status)
	}
}

// TestHSTS: sent over TLS and, only with a trusted proxy, when the proxy
// says https.
func TestHSTS(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	if rec := e.do("GET", "/health", "", "X-Forwarded-Proto", "https"); rec.Header().Get("Strict-Transport-Security") != "" {
		t.Fatal("HSTS on the word of an untrusted proxy")
	}
	e.srv.Hardening.TrustProxy = true
	h := e.srv.Handler()
	for _, c := range []struct {
		proto, want string
	}{{"https", "max-age=31536000"}, {"http", ""}} {
		r, _ := http.NewRequest("GET", "/health", nil)
		r.Host = "example.com"
		r.Header.Set("X-Forwarded-Proto", c.proto)
		rec := &recorder{header: http.Header{}}
		h.ServeHTTP(rec, r)
		if got := rec.header.Get("Strict-Transport-Security"); got != c.want {
			t.Errorf("X-Forwarded-Proto %s: HSTS %q, want %q", c.proto, got, c.want)
		}
	}
}
