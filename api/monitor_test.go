package api

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"scand/api/monitor"
	"scand/auth"
)

// metricLine returns the sample line of series in a scrape, or "".
func metricLine(body, series string) string {
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, series+" ") {
			return line
		}
	}
	return ""
}

// TestRequestMetricsUseRoutePatterns: requests count under the route's
// pattern (the legacy prefix under /api/v1), never the raw path, and
// hostile methods and paths fold into bounded series.
func TestRequestMetricsUseRoutePatterns(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{Metrics: monitor.ModePublic})
	e.do("GET", "/api/v1/scans/0193a0c4-0000-7000-8000-000000000001", "")
	e.do("GET", "/api/scans/0193a0c4-0000-7000-8000-000000000002", "")
	e.do("GET", "/api/v1/scans", "")
	e.do("BREW", "/api/v1/no/such/thing-"+strings.Repeat("x", 50), "")
	e.do("GET", "/no-such-page-1", "")
	e.do("GET", "/no-such-page-2", "")
	rec := e.do("GET", "/metrics", "")
	e.expectStatus(rec, 200)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("Content-Type %q", ct)
	}
	body := rec.Body.String()
	for series, want := range map[string]string{
		`scand_http_requests_total{route="/api/v1/scans/{id}",method="GET",code="4xx"}`:      "2",
		`scand_http_requests_total{route="/api/v1/scans",method="GET",code="2xx"}`:           "1",
		`scand_http_requests_total{route="unmatched",method="other",code="4xx"}`:             "1",
		`scand_http_requests_total{route="unmatched",method="GET",code="4xx"}`:               "2",
		`scand_http_request_duration_seconds_count{route="/api/v1/scans/{id}",method="GET"}`: "2",
	} {
		if got := metricLine(body, series); got != series+" "+want {
			t.Errorf("%s: got %q, want %s", series, got, want)
		}
	}
	if strings.Contains(body, "0193a0c4") || strings.Contains(body, "no-such-page") || strings.Contains(body, "BREW") {
		t.Fatalf("a raw path or method reached the metrics:\n%s", body)
	}
}

// TestMetricsAccessModes: key mode takes an API key with read scope or
// the dedicated scrape key and counts what it refuses; off mounts nothing.
func TestMetricsAccessModes(t *testing.T) {
	const scrapeKey = "scrape-key-0123456789abcdef"
	e := newAPIEnv(t, apiEnvOptions{EnvKey: "env-admin-key-0123456789", AuthRequired: true, MetricsKey: scrapeKey})
	_, reader := e.issueKey(string(auth.ScopeRead))
	for _, c := range []struct {
		name, key string
		want      int
	}{
		{"no key", "", http.StatusUnauthorized},
		{"wrong key", "not-a-key-at-all-0123456789", http.StatusUnauthorized},
		{"read key", reader, http.StatusOK},
		{"scrape key", scrapeKey, http.StatusOK},
	} {
		var headers []string
		if c.key != "" {
			headers = []string{"Authorization", "Bearer " + c.key}
		}
		rec := e.do("GET", "/metrics", "", headers...)
		if rec.Code != c.want {
			t.Errorf("%s: %d, want %d (%s)", c.name, rec.Code, c.want, rec.Body.String())
		}
	}
	// The scrape key opens /metrics only.
	if rec := e.do("GET", "/api/v1/scans", "", "Authorization", "Bearer "+scrapeKey); rec.Code != http.StatusUnauthorized {
		t.Errorf("the scrape key on the API: %d, want 401", rec.Code)
	}
	body := e.do("GET", "/metrics", "", "Authorization", "Bearer "+scrapeKey).Body.String()
	for series, want := range map[string]string{
		`scand_auth_failures_total{reason="missing_key"}`: "1",
		`scand_auth_failures_total{reason="invalid_key"}`: "2",
	} {
		if got := metricLine(body, series); got != series+" "+want {
			t.Errorf("%s: got %q, want %s", series, got, want)
		}
	}

	off := newAPIEnv(t, apiEnvOptions{Metrics: monitor.ModeOff})
	if rec := off.do("GET", "/metrics", ""); rec.Code != http.StatusNotFound {
		t.Errorf("SVC_METRICS=off: /metrics answered %d, want 404", rec.Code)
	}
}

// TestAdminBackupRoute writes a verified backup into the backup
// directory, refuses to overwrite one and refuses names that are paths.
func TestAdminBackupRoute(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	_, admin := e.issueKey(string(auth.ScopeAdmin))
	_, reader := e.issueKey(string(auth.ScopeRead))
	bearer := []string{"Authorization", "Bearer " + admin}
	e.expectStatus(e.do("POST", "/api/v1/admin/backup", `{}`, "Authorization", "Bearer "+reader), http.StatusForbidden)
	rec := e.do("POST", "/api/v1/admin/backup", `{"name":"nightly.db"}`, bearer...)
	e.expectStatus(rec, http.StatusCreated)
	var view monitor.BackupView
	e.decode(rec, &view)
	if view.Integrity != "ok" || view.SchemaVersion == 0 || view.Rows("api_keys") != 2 || !strings.HasSuffix(view.Path, "/backups/nightly.db") {
		t.Fatalf("backup %+v: want integrity ok, a schema version, 2 keys, backups/nightly.db", view)
	}
	e.expectStatus(e.do("POST", "/api/v1/admin/backup", `{"name":"nightly.db"}`, bearer...), http.StatusConflict)
	for _, name := range []string{"../escape.db", "/etc/x.db", ".hidden", "a/b.db", strings.Repeat("x", 101)} {
		e.expectStatus(e.do("POST", "/api/v1/admin/backup", `{"name":"`+name+`"}`, bearer...), http.StatusUnprocessableEntity)
	}
	rec = e.do("POST", "/api/v1/admin/backup", "", bearer...)
	e.expectStatus(rec, http.StatusCreated)
}

// TestReadyReportsALostLock: /ready is 503 lock_lost while the lock check
// fails, 200 again as soon as it passes, and /metrics says why.
func TestReadyReportsALostLock(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{Metrics: monitor.ModePublic})
	var lost error = errors.New("lock file replaced")
	e.srv.LockCheck = func() error { return lost }
	rec := e.do("GET", "/ready", "")
	e.expectStatus(rec, http.StatusServiceUnavailable)
	var body Ready
	e.decode(rec, &body)
	if body.Checks.Database != "lock_lost" || !strings.Contains(body.Detail, "lock file") {
		t.Fatalf("/ready with a lost lock: %+v", body)
	}
	m := e.do("GET", "/metrics", "").Body.String()
	if metricLine(m, `scand_database_failure{reason="lock_lost"}`) != `scand_database_failure{reason="lock_lost"} 1` || metricLine(m, "scand_ready") != "scand_ready 0" {
		t.Fatalf("metrics with a lost lock:\n%s", m)
	}
	lost = nil
	e.expectStatus(e.do("GET", "/ready", ""), http.StatusOK)
}
