package wrapped

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/request"
)

// zapScanner drives a running ZAP daemon through its JSON API; ZAP is the
// one wrapped tool that is a service rather than a command.
//
// SVC_ZAP_URL is the daemon's API address (e.g. http://127.0.0.1:8090) and
// SVC_ZAP_API_KEY its api.key, sent in the X-ZAP-API-Key header so it never
// appears in a URL or a log line. Available = the daemon answers
// core/view/version. A scan:
//
//  1. spider/action/scan on target_url (recurse, subtree only), polled with
//     spider/view/status until 100;
//  2. pscan/view/recordsToScan polled until 0, so passive alerts are in;
//  3. ascan/action/scan on target_url, polled with ascan/view/status;
//  4. core/view/alerts for target_url, paged.
//
// The target's host is resolved and checked against the target policy
// (netguard.Targets: never a metadata service, SVC_TARGET_ALLOW) before
// ZAP gets the URL. The whole scan is bounded by cfg.Runner's timeout; on that timeout or a
// cancel, the spider and active scan are stopped (spider/action/stop,
// ascan/action/stop) so ZAP does not keep attacking the target.
//
// Severity: ZAP's risk (High, Medium, Low, Informational → info); alerts
// of confidence "False Positive" (a user's verdict inside ZAP) are dropped.
// CWE: cweid. rule_id: the scan rule's pluginId. file_path: the alert URL's
// path, so a staging and a production host give the same fingerprints.
type zapScanner struct {
	cfg    scan.Config
	avail  availCache
	client *http.Client
	// poll is the interval between status calls; tests shorten it.
	poll time.Duration
}

// zapPageSize is how many alerts one core/view/alerts call returns.
const zapPageSize = 500

// zapMaxBody caps one API response; a page of 500 alerts is far below it.
const zapMaxBody = 32 << 20

// ZAP returns the ZAP wrapper (scan type dast).
func ZAP(cfg scan.Config) scan.Scanner {
	return &zapScanner{
		cfg: cfg,
		// ZAP is itself a proxy: a proxy from the environment must never
		// sit between scand and its API.
		client: &http.Client{Transport: &http.Transport{Proxy: nil, ResponseHeaderTimeout: 60 * time.Second}},
		poll:   2 * time.Second,
	}
}

func (s *zapScanner) Name() string { return "zap" }
func (s *zapScanner) Type() string { return scan.TypeDAST }

func (s *zapScanner) base() (*url.URL, error) {
	raw := strings.TrimSpace(s.cfg.Env("SVC_ZAP_URL"))
	if raw == "" {
		return nil, errors.New("SVC_ZAP_URL is not set: start ZAP as a daemon (zap.sh -daemon -host 127.0.0.1 -port 8090 -config api.key=<key>) and set SVC_ZAP_URL=http://127.0.0.1:8090 and SVC_ZAP_API_KEY")
	}
	u, err := request.ValidateTargetURL(raw)
	if err != nil {
		return nil, fmt.Errorf("SVC_ZAP_URL: %w", err)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

func (s *zapScanner) Available(ctx context.Context) (string, string, bool) {
	return s.avail.get(ctx, s.cfg.Time(), func() (string, string, bool) {
		base, err := s.base()
		if err != nil {
			return "", err.Error(), false
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		var v struct {
			Version string `json:"version"`
		}
		if err := s.call(pctx, base, "core/view/version", nil, &v); err != nil {
			return "", fmt.Sprintf("ZAP at %s did not answer: %v", base.Redacted(), err), false
		}
		return v.Version, "", true
	})
}

// zapAPIError is ZAP's JSON error body, e.g. {"code":"bad_api_key",...}.
type zapAPIError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// call GETs {base}/JSON/{path}/ with the API key header and decodes the
// JSON answer into out.
func (s *zapScanner) call(ctx context.Context, base *url.URL, path string, q url.Values, out any) error {
	u := *base
	u.Path = base.Path + "/JSON/" + path + "/"
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	if key := s.cfg.Env("SVC_ZAP_API_KEY"); key != "" {
		req.Header.Set("X-ZAP-API-Key", key)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		// The URL holds no secret, but net/http's error repeats it: say
		// only what failed.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			return fmt.Errorf("%s: %w", path, uerr.Err)
		}
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, zapMaxBody+1))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(body) > zapMaxBody {
		return fmt.Errorf("%s: answer larger than %d bytes", path, zapMaxBody)
	}
	if resp.StatusCode != http.StatusOK {
		var apiErr zapAPIError
		if json.Unmarshal(body, &apiErr) == nil && apiErr.Code != "" {
			return fmt.Errorf("%s: ZAP said %s: %s", path, apiErr.Code, apiErr.Message)
		}
		return fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: answer is not the expected JSON: %w", path, err)
	}
	return nil
}

// callValue reads a one-field answer such as {"scan":"3"} or {"status":"100"}.
func (s *zapScanner) callValue(ctx context.Context, base *url.URL, path, field string, q url.Values) (string, error) {
	var m map[string]json.RawMessage
	if err := s.call(ctx, base, path, q, &m); err != nil {
		return "", err
	}
	raw, ok := m[field]
	if !ok {
		return "", fmt.Errorf("%s: answer has no %q", path, field)
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("%s: %q is neither a string nor a number", path, field)
}

func (s *zapScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	target, err := request.ValidateTargetURL(t.URL)
	if err != nil {
		return nil, err
	}
	// ZAP resolves and connects by itself: the target is checked when it
	// is handed over, not on every connection ZAP makes (README).
	if _, err := s.cfg.Targets.Resolve(ctx, target.Hostname()); err != nil {
		return nil, fmt.Errorf("zap: %w", err)
	}
	base, err := s.base()
	if err != nil {
		return nil, fmt.Errorf("zap: %s: %w", err.Error(), proc.ErrNotInstalled)
	}
	var timeout time.Duration
	if s.cfg.Runner != nil {
		timeout = s.cfg.Runner.Timeout
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	turl := target.String()
	var spiderID, ascanID string
	fail := func(step string, err error) ([]finding.Finding, error) {
		s.stop(ctx, base, spiderID, ascanID)
		if runCtx.Err() != nil {
			if ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("zap %s after %s: %w", step, timeout, proc.ErrTimeout)
			}
			return nil, fmt.Errorf("zap %s: %w", step, ctx.Err())
		}
		return nil, fmt.Errorf("zap %s: %w", step, err)
	}

	if err := s.scanAndWait(runCtx, base, "spider", url.Values{"url": {turl}, "recurse": {"true"}, "subtreeOnly": {"true"}}, &spiderID); err != nil {
		return fail("spider", err)
	}
	if err := s.waitFor(runCtx, base, "pscan/view/recordsToScan", "recordsToScan", nil, "0"); err != nil {
		return fail("passive scan", err)
	}
	if err := s.scanAndWait(runCtx, base, "ascan", url.Values{"url": {turl}, "recurse": {"true"}, "inScopeOnly": {"false"}}, &ascanID); err != nil {
		return fail("active scan", err)
	}
	var alerts []zapAlert
	for start := 0; ; start += zapPageSize {
		var page json.RawMessage
		q := url.Values{"baseurl": {turl}, "start": {strconv.Itoa(start)}, "count": {strconv.Itoa(zapPageSize)}}
		if err := s.call(runCtx, base, "core/view/alerts", q, &page); err != nil {
			return fail("alerts", err)
		}
		got, err := zapParseAlerts(page)
		if err != nil {
			return fail("alerts", err)
		}
		alerts = append(alerts, got...)
		if len(got) < zapPageSize || len(alerts) >= maxFindings {
			break
		}
	}
	return finish(s.cfg, "zap", zapFindings(alerts)), nil
}

// scanAndWait starts a spider or active scan ({component}/action/scan) and
// polls {component}/view/status until 100. The scan's id is stored first,
// so a failure while waiting can still stop it.
func (s *zapScanner) scanAndWait(ctx context.Context, base *url.URL, component string, q url.Values, id *string) error {
	v, err := s.callValue(ctx, base, component+"/action/scan", "scan", q)
	if err != nil {
		return err
	}
	*id = v
	return s.waitFor(ctx, base, component+"/view/status", "status", url.Values{"scanId": {v}}, "100")
}

// waitFor polls a status view until it reports want.
func (s *zapScanner) waitFor(ctx context.Context, base *url.URL, path, field string, q url.Values, want string) error {
	for {
		v, err := s.callValue(ctx, base, path, field, q)
		if err != nil {
			return err
		}
		if v == want {
			return nil
		}
		// A status above 100 or a negative record count would never
		// reach want; ZAP reports those only when it is broken.
		if n, err := strconv.Atoi(v); err == nil && (n > 100 || n < 0) {
			return fmt.Errorf("%s: unexpected %s %q", path, field, v)
		}
		t := time.NewTimer(s.poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// stop asks ZAP to stop the scans this run started. It runs after the
// scan's context ended, so it has its own short deadline.
func (s *zapScanner) stop(ctx context.Context, base *url.URL, spiderID, ascanID string) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var ok map[string]any
	if spiderID != "" {
		if err := s.call(sctx, base, "spider/action/stop", url.Values{"scanId": {spiderID}}, &ok); err != nil && s.cfg.Logger != nil {
			s.cfg.Logger.Warn("could not stop ZAP spider", "scan", spiderID, "err", err)
		}
	}
	if ascanID != "" {
		if err := s.call(sctx, base, "ascan/action/stop", url.Values{"scanId": {ascanID}}, &ok); err != nil && s.cfg.Logger != nil {
			s.cfg.Logger.Warn("could not stop ZAP active scan", "scan", ascanID, "err", err)
		}
	}
}

// zapAlert is one element of core/view/alerts (ZAP's CoreAPI alertToSet).
type zapAlert struct {
	ID          string `json:"id"`
	PluginID    string `json:"pluginId"`
	AlertRef    string `json:"alertRef"`
	Alert       string `json:"alert"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Risk        string `json:"risk"`
	Confidence  string `json:"confidence"`
	URL         string `json:"url"`
	Method      string `json:"method"`
	Other       string `json:"other"`
	Param       string `json:"param"`
	Attack      string `json:"attack"`
	Evidence    string `json:"evidence"`
	Reference   string `json:"reference"`
	CWEID       string `json:"cweid"`
	WASCID      string `json:"wascid"`
	Solution    string `json:"solution"`
	// Tags is a map of tag → link in ZAP ≥ 2.11, absent before.
	Tags map[string]string `json:"tags"`
}

// zapParseAlerts reads one core/view/alerts answer: {"alerts":[...]}.
func zapParseAlerts(body []byte) ([]zapAlert, error) {
	var page struct {
		Alerts *[]zapAlert `json:"alerts"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, fmt.Errorf("alerts answer is not valid JSON: %w", err)
	}
	if page.Alerts == nil {
		return nil, errors.New("alerts answer has no \"alerts\" list")
	}
	return *page.Alerts, nil
}

// zapSensitivePlugin reports the scan rules whose evidence is a credential
// or token someone leaked; it is masked so a finding never stores it whole.
func zapSensitivePlugin(plugin string) bool {
	switch plugin {
	case "10024", // Information Disclosure - Sensitive Information in URL
		"10025": // Information Disclosure - Sensitive Information in HTTP Referrer Header
		return true
	}
	return false
}

// zapMaxEvidence bounds the evidence kept from one alert.
const zapMaxEvidence = 120

// zapFindings turns ZAP alerts into findings.
func zapFindings(alerts []zapAlert) []finding.Finding {
	fs := make([]finding.Finding, 0, len(alerts))
	for _, a := range alerts {
		if strings.EqualFold(a.Confidence, "False Positive") || a.PluginID == "" {
			continue
		}
		name := a.Name
		if name == "" {
			name = a.Alert
		}
		path := "/"
		if u, err := url.Parse(a.URL); err == nil && u.EscapedPath() != "" {
			path = u.EscapedPath()
			if !strings.HasPrefix(path, "/") {
				path = "/" + path
			}
		}
		desc := strings.TrimSpace(a.Description)
		if sol := strings.TrimSpace(a.Solution); sol != "" {
			desc += "\n\nSolution: " + sol
		}
		meta := map[string]any{
			"url":        a.URL,
			"method":     a.Method,
			"param":      a.Param,
			"confidence": strings.ToLower(a.Confidence),
			"alert_ref":  a.AlertRef,
		}
		if ev := zapEvidence(a.PluginID, a.Evidence); ev != "" {
			meta["evidence"] = ev
		}
		if a.WASCID != "" && a.WASCID != "0" && a.WASCID != "-1" {
			meta["wascid"] = a.WASCID
		}
		if a.Reference != "" {
			meta["reference"] = a.Reference
		}
		if len(a.Tags) > 0 {
			meta["tags"] = a.Tags
		}
		fs = append(fs, finding.Finding{
			Scanner:     "zap",
			ScanType:    scan.TypeDAST,
			Severity:    severityOf(strings.TrimSpace(a.Risk), finding.Info),
			Title:       name,
			Description: desc,
			FilePath:    path,
			RuleID:      a.PluginID,
			CWE:         cweOf(a.CWEID),
			Snippet:     strings.TrimSpace(a.Method + " " + path + " " + a.Param),
			Metadata:    meta,
		})
	}
	return fs
}

func zapEvidence(plugin, ev string) string {
	ev = strings.TrimSpace(ev)
	if ev == "" {
		return ""
	}
	r := []rune(ev)
	if zapSensitivePlugin(plugin) {
		keep := 4
		if len(r) < keep {
			keep = len(r)
		}
		return string(r[:keep]) + strings.Repeat("*", 8)
	}
	if len(r) > zapMaxEvidence {
		return string(r[:zapMaxEvidence]) + "…"
	}
	return ev
}
