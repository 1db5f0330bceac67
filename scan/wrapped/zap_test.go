package wrapped

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
)

// zapFake is a loopback stand-in for ZAP's API serving the response bodies
// under testdata/wrappers/zap.
type zapFake struct {
	t        *testing.T
	key      string
	finishAt int // status polls before a scan reports 100; <0 = never
	mu       sync.Mutex
	calls    []string // API paths in call order
	queries  map[string]string
	polls    map[string]int
}

func newZapFake(t *testing.T, key string, finishAt int) (*zapFake, *httptest.Server) {
	f := &zapFake{t: t, key: key, finishAt: finishAt, queries: map[string]string{}, polls: map[string]int{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *zapFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/JSON/"), "/")
	f.mu.Lock()
	f.calls = append(f.calls, path)
	f.queries[path] = r.URL.RawQuery
	f.mu.Unlock()
	if r.URL.Query().Has("apikey") {
		f.t.Errorf("API key sent in the URL of %s", path)
	}
	w.Header().Set("Content-Type", "application/json")
	body := func(name string) {
		_, _ = w.Write(wrapTestRead(f.t, "zap/"+name))
	}
	if r.Header.Get("X-ZAP-API-Key") != f.key {
		w.WriteHeader(http.StatusBadRequest)
		body("bad-api-key.json")
		return
	}
	status := func(kind string) {
		f.mu.Lock()
		f.polls[kind]++
		n := f.polls[kind]
		f.mu.Unlock()
		if f.finishAt >= 0 && n > f.finishAt {
			body(kind + "-status-done.json")
		} else {
			body(kind + "-status-running.json")
		}
	}
	switch path {
	case "core/view/version":
		body("version.json")
	case "spider/action/scan":
		body("spider-scan.json")
	case "spider/view/status":
		// The spider always finishes; finishAt governs the active scan.
		f.mu.Lock()
		f.polls["spider"]++
		n := f.polls["spider"]
		f.mu.Unlock()
		if n > 1 {
			body("spider-status-done.json")
		} else {
			body("spider-status-running.json")
		}
	case "pscan/view/recordsToScan":
		body("pscan-records.json")
	case "ascan/action/scan":
		body("ascan-scan.json")
	case "ascan/view/status":
		status("ascan")
	case "core/view/alerts":
		if r.URL.Query().Get("start") == "0" {
			body("alerts.json")
		} else {
			body("alerts-empty.json")
		}
	case "spider/action/stop", "ascan/action/stop":
		body("stop.json")
	default:
		http.NotFound(w, r)
	}
}

func (f *zapFake) called(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == path {
			return true
		}
	}
	return false
}

func newZapTestScanner(env map[string]string, timeout time.Duration) *zapScanner {
	cfg := wrapTestConfig(env)
	cfg.Runner.Timeout = timeout
	s := ZAP(cfg).(*zapScanner)
	s.poll = 5 * time.Millisecond
	return s
}

func TestZAPScan(t *testing.T) {
	fake, srv := newZapFake(t, "k3y", 2)
	s := newZapTestScanner(map[string]string{"SVC_ZAP_URL": srv.URL, "SVC_ZAP_API_KEY": "k3y"}, time.Minute)
	target := "http://127.0.0.1:8080/"
	fs, err := s.Scan(context.Background(), scan.Target{URL: target})
	if err != nil {
		t.Fatal(err)
	}
	wrapTestCheckFindings(t, "zap", scan.TypeDAST, fs)
	want := []string{"spider/action/scan", "spider/view/status", "pscan/view/recordsToScan", "ascan/action/scan", "ascan/view/status", "core/view/alerts"}
	fake.mu.Lock()
	seq := strings.Join(fake.calls, " ")
	spiderQ, alertsQ := fake.queries["spider/action/scan"], fake.queries["core/view/alerts"]
	fake.mu.Unlock()
	last := -1
	for _, w := range want {
		i := strings.Index(seq, w)
		if i < last {
			t.Fatalf("API calls out of order: %s", seq)
		}
		last = i
	}
	if !strings.Contains(spiderQ, "url=http%3A%2F%2F127.0.0.1%3A8080%2F") || !strings.Contains(alertsQ, "baseurl=http%3A%2F%2F127.0.0.1%3A8080%2F") {
		t.Fatalf("spider query %q / alerts query %q do not name the target", spiderQ, alertsQ)
	}
	if len(fs) != 4 {
		t.Fatalf("%d findings, want 4 (the false positive dropped): %+v", len(fs), fs)
	}
	cases := []struct {
		rule, path string
		sev        finding.Severity
		cwe        finding.CWE
	}{
		{"40012", "/search", finding.High, "CWE-79"},
		{"10038", "/", finding.Medium, "CWE-693"},
		{"10021", "/", finding.Low, "CWE-693"},
		{"10024", "/reset", finding.Info, "CWE-200"},
	}
	for _, c := range cases {
		f := wrapTestFind(fs, c.rule, c.path)
		if f == nil || f.Severity != c.sev || f.CWE != c.cwe {
			t.Errorf("%s at %s = %+v, want %s %s", c.rule, c.path, f, c.sev, c.cwe)
		}
	}
	if xss := wrapTestFind(fs, "40012", "/search"); xss != nil && xss.Metadata["param"] != "q" {
		t.Errorf("XSS param = %v", xss.Metadata["param"])
	}
	leak := wrapTestFind(fs, "10024", "/reset")
	if leak == nil || leak.Metadata["evidence"] != "toke********" || strings.Contains(leak.Description+leak.Snippet, "3f9a7c21") {
		t.Errorf("leaked token is not masked: %+v", leak)
	}
}

func TestZAPAvailable(t *testing.T) {
	_, srv := newZapFake(t, "k3y", 0)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	cases := []struct {
		name    string
		env     map[string]string
		ok      bool
		version string
		hint    string
	}{
		{"up", map[string]string{"SVC_ZAP_URL": srv.URL, "SVC_ZAP_API_KEY": "k3y"}, true, "2.15.0", ""},
		{"wrong key", map[string]string{"SVC_ZAP_URL": srv.URL, "SVC_ZAP_API_KEY": "nope"}, false, "", "bad_api_key"},
		{"not configured", map[string]string{}, false, "", "SVC_ZAP_URL is not set"},
		{"not http", map[string]string{"SVC_ZAP_URL": "ftp://127.0.0.1:1"}, false, "", "must be http or https"},
		{"down", map[string]string{"SVC_ZAP_URL": closedURL}, false, "", "did not answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newZapTestScanner(c.env, time.Minute)
			v, hint, ok := s.Available(context.Background())
			if ok != c.ok || v != c.version || !strings.Contains(hint, c.hint) {
				t.Fatalf("Available = %q, %q, %v", v, hint, ok)
			}
			if strings.Contains(hint, "nope") || strings.Contains(hint, "k3y") {
				t.Fatalf("hint leaks the API key: %q", hint)
			}
		})
	}
}

// TestZAPStopsScansOnCancelAndTimeout: ZAP keeps attacking a target until
// told to stop, so a cancelled or timed-out scan stops both ZAP scans.
func TestZAPStopsScansOnCancelAndTimeout(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		fake, srv := newZapFake(t, "", -1)
		s := newZapTestScanner(map[string]string{"SVC_ZAP_URL": srv.URL}, time.Minute)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for !fake.called("ascan/view/status") {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		_, err := s.Scan(ctx, scan.Target{URL: "http://127.0.0.1:8080/"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if !fake.called("spider/action/stop") || !fake.called("ascan/action/stop") {
			t.Fatalf("scans not stopped; calls: %v", fake.calls)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		fake, srv := newZapFake(t, "", -1)
		s := newZapTestScanner(map[string]string{"SVC_ZAP_URL": srv.URL}, 200*time.Millisecond)
		_, err := s.Scan(context.Background(), scan.Target{URL: "http://127.0.0.1:8080/"})
		if !errors.Is(err, proc.ErrTimeout) {
			t.Fatalf("err = %v, want ErrTimeout", err)
		}
		if !fake.called("ascan/action/stop") {
			t.Fatalf("active scan not stopped; calls: %v", fake.calls)
		}
	})
}

func TestZAPRejectsBadTargets(t *testing.T) {
	_, srv := newZapFake(t, "", 0)
	s := newZapTestScanner(map[string]string{"SVC_ZAP_URL": srv.URL}, time.Minute)
	for _, u := range []string{"", "file:///etc/passwd", "javascript:alert(1)", "127.0.0.1:8080"} {
		if _, err := s.Scan(context.Background(), scan.Target{URL: u}); err == nil {
			t.Errorf("Scan accepted %q", u)
		}
	}
	s = newZapTestScanner(map[string]string{}, time.Minute)
	if _, err := s.Scan(context.Background(), scan.Target{URL: "http://127.0.0.1/"}); !errors.Is(err, proc.ErrNotInstalled) {
		t.Errorf("unconfigured ZAP: err = %v, want ErrNotInstalled", err)
	}
}

func TestZAPParseAlerts(t *testing.T) {
	if got, err := zapParseAlerts(wrapTestRead(t, "zap/alerts-empty.json")); err != nil || len(got) != 0 {
		t.Errorf("empty page = %v, %v", got, err)
	}
	full := wrapTestRead(t, "zap/alerts.json")
	for name, body := range map[string][]byte{
		"truncated": full[:len(full)/2],
		"error":     wrapTestRead(t, "zap/bad-api-key.json"),
		"empty":     nil,
	} {
		if _, err := zapParseAlerts(body); err == nil {
			t.Errorf("%s body parsed without error", name)
		}
	}
}

func TestZAPEvidence(t *testing.T) {
	long := strings.Repeat("e", 300)
	cases := []struct{ plugin, in, want string }{
		{"10024", "token=secret", "toke********"},
		{"10025", "ab", "ab********"},
		{"40012", "<script>alert(1);</script>", "<script>alert(1);</script>"},
		{"10027", long, long[:zapMaxEvidence] + "…"},
		{"10027", "  ", ""},
	}
	for _, c := range cases {
		if got := zapEvidence(c.plugin, c.in); got != c.want {
			t.Errorf("zapEvidence(%s, %q) = %q, want %q", c.plugin, c.in, got, c.want)
		}
	}
}

func FuzzZAPParse(f *testing.F) {
	f.Add(wrapTestRead(f, "zap/alerts.json"))
	f.Add(wrapTestRead(f, "zap/alerts-empty.json"))
	f.Add([]byte(`{"alerts":[{"pluginId":"10024","risk":"High","confidence":"Low","url":"rel?x=1","evidence":"token=abc","cweid":"-1","name":"n"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		alerts, err := zapParseAlerts(body)
		if err != nil {
			return
		}
		for _, x := range zapFindings(alerts) {
			if !x.Severity.Valid() || x.RuleID == "" || !strings.HasPrefix(x.FilePath, "/") {
				t.Fatalf("invalid finding %+v", x)
			}
		}
	})
}
