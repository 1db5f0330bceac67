package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// requireTool finds a tool the test cannot run without: under CI=true its
// absence fails the test (CI installs it), elsewhere it skips.
func requireTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is not installed (Debian package %s)", name, pkg)
		}
		t.Skipf("%s not installed (Debian package %s)", name, pkg)
	}
	return p
}

// freeLoopbackPort is a port nothing listens on right now.
func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// keyCall sends a request with a Bearer key and decodes a JSON answer.
func keyCall(t *testing.T, method, url, key, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %q: %v", method, url, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

// promQuery asks a Prometheus server for the value of an instant query;
// ok is false while the query has no result.
func promQuery(t *testing.T, base, query string) (value string, ok bool) {
	t.Helper()
	var res struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value []any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	// Prometheus takes a few seconds to listen: an error is "not yet".
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != 200 || res.Status != "success" {
		return "", false
	}
	if len(res.Data.Result) != 1 || len(res.Data.Result[0].Value) != 2 {
		return "", false
	}
	v, _ := res.Data.Result[0].Value[1].(string)
	return v, true
}

// TestBinaryMetricsUnderLoad scrapes /metrics while a scan runs (its gosec
// held by a marker file), two more wait in the queue and a webhook
// delivery is failing and pending: promtool accepts the scrape; a real
// Prometheus on loopback scrapes the daemon and PromQL sees the two queued
// scans, then, once gosec is let go and fails in all three scans, three
// failed scanner runs and an empty queue.
func TestBinaryMetricsUnderLoad(t *testing.T) {
	promtool := requireTool(t, "promtool", "prometheus")
	prometheus := requireTool(t, "prometheus", "prometheus")
	work := t.TempDir()
	marker := filepath.Join(work, "hold-gosec")
	fake := filepath.Join(work, "gosec")
	script := "#!/bin/sh\nif [ \"$1\" = -version ]; then echo 'Version: 9.9.9'; exit 0; fi\n" +
		"while [ -e '" + marker + "' ]; do sleep 0.1; done\necho 'fatal error: boom' >&2\nexit 7\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(work, "tree")
	writeFiles(t, tree, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
	var hits atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer receiver.Close()

	const adminKey = "admin-key-for-the-metrics-test-0123456789"
	const scrapeKey = "scrape-key-for-the-metrics-test-0123"
	env := baseEnv(t)
	env["SVC_API_KEY"] = adminKey
	env["SVC_METRICS_KEY"] = scrapeKey
	env["SVC_GOSEC_PATH"] = fake
	env["SVC_MAX_CONCURRENT_SCANS"] = "1"
	env["SVC_RATE_LIMIT_ENABLED"] = "false"
	p := startScand(t, env)
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	base := "http://" + addr + "/api/v1"

	var hook struct{ ID string }
	if code := keyCall(t, "POST", base+"/webhooks", adminKey, `{"name":"down","url":"`+receiver.URL+`/hook","event_filter":["scan.complete","webhook.test"]}`, &hook); code != 201 {
		t.Fatalf("create webhook: %d", code)
	}
	if code := keyCall(t, "POST", base+"/webhooks/"+hook.ID+"/test", adminKey, "", nil); code != 202 {
		t.Fatalf("test delivery: %d", code)
	}
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		var sc struct{ ID string }
		if code := keyCall(t, "POST", base+"/scans", adminKey, `{"target_path":"`+tree+`","scan_types":["code"]}`, &sc); code != 200 && code != 201 && code != 202 {
			t.Fatalf("start scan: %d", code)
		}
		ids = append(ids, sc.ID)
	}
	waitFor := func(what string, within time.Duration, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(within)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v\n%s", what, within, p.stderr.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	status := func(id string) string {
		var sc struct{ Status string }
		keyCall(t, "GET", base+"/scans/"+id, adminKey, "", &sc)
		return sc.Status
	}
	waitFor("first scan running", 30*time.Second, func() bool { return status(ids[0]) == "running" })
	waitFor("a failed webhook attempt", 30*time.Second, func() bool { return hits.Load() > 0 })

	scrape := func() string {
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer "+scrapeKey)
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("/metrics with the scrape key: %d %s", resp.StatusCode, body)
		}
		return string(body)
	}
	body := scrape()
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\nscrape:\n%s", err, out, body)
	}
	for series, want := range map[string]string{
		"scand_scan_queue_depth":                      "2",
		"scand_scans_running":                         "1",
		`scand_scans{status="pending",source="scan"}`: "2",
		`scand_scans{status="running",source="scan"}`: "1",
		"scand_webhook_deliveries_pending":            "1",
	} {
		if got := metricLineValue(body, series); got != want {
			t.Errorf("%s = %q during the scan, want %s", series, got, want)
		}
	}
	if v := metricLineValue(body, `scand_webhook_deliveries_total{outcome="retry"}`); v == "" || v == "0" {
		t.Errorf("no failed webhook attempt counted:\n%s", body)
	}
	if v, err := strconv.ParseFloat(metricLineValue(body, "scand_scan_queue_oldest_age_seconds"), 64); err != nil || v <= 0 {
		t.Errorf("scand_scan_queue_oldest_age_seconds = %v (%v), want > 0", v, err)
	}

	// A real Prometheus scrapes the daemon once a second.
	promPort := freeLoopbackPort(t)
	cfgFile := filepath.Join(work, "prometheus.yml")
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: scand
    scrape_interval: 1s
    scrape_timeout: 900ms
    authorization:
      credentials: %s
    static_configs:
      - targets: ['%s']
`, scrapeKey, addr)
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	promLog := &lockedBuffer{}
	prom := exec.Command(prometheus, "--config.file="+cfgFile, "--storage.tsdb.path="+filepath.Join(work, "tsdb"),
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(promPort), "--log.level=warn")
	prom.Stdout, prom.Stderr = promLog, promLog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		prom.Process.Kill()
		prom.Wait()
	}()
	promBase := "http://127.0.0.1:" + strconv.Itoa(promPort)
	waitPromQL := func(query, want string) {
		t.Helper()
		var got string
		deadline := time.Now().Add(60 * time.Second)
		for {
			v, ok := promQuery(t, promBase, query)
			if ok && v == want {
				return
			}
			got = v
			if time.Now().After(deadline) {
				t.Fatalf("PromQL %s = %q, want %s\nprometheus log:\n%s", query, got, want, promLog.String())
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	waitPromQL(`scand_scan_queue_depth{job="scand"}`, "2")
	waitPromQL(`up{job="scand"}`, "1")

	// Let gosec go: it fails in each of the three scans.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		waitFor("scan "+id+" finished", 60*time.Second, func() bool { s := status(id); return s == "completed" || s == "failed" })
	}
	waitPromQL(`sum(scand_scanner_runs_total{job="scand",scanner="gosec",outcome="failed"})`, "3")
	waitPromQL(`scand_scan_queue_depth{job="scand"}`, "0")
	body = scrape()
	if got := metricLineValue(body, `scand_scanner_run_duration_seconds_count{scanner="gosec"}`); got != "3" {
		t.Errorf("gosec run durations observed: %q, want 3", got)
	}
	check = exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics after the scans: %v\n%s", err, out)
	}
}

// metricLineValue is the value of series in a scrape, or "".
func metricLineValue(body, series string) string {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}
