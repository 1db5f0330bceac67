package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"scand/api"
	"scand/finding/report"
	"scand/scan/components"
	"scand/scan/importscan"
	"scand/store"
)

// `scand scan --server URL` sends the locally computed result to a daemon
// (POST /api/v1/scans/import) and takes back the verdicts reviewers
// recorded there: a finding triaged false_positive, accepted_risk or
// wont_fix on the daemon then does not gate the CI run. The key comes from
// SCAND_API_KEY only (a flag would show in ps and CI logs) and is never
// printed.

// Client timeouts: reaching the daemon is quick or it is down; an import
// of a large scan may take a while to store.
const (
	serverDialTimeout     = 10 * time.Second
	serverResponseTimeout = 10 * time.Minute
)

type serverRequest struct {
	url, key, label string
	// root is the scanned tree, for the default label and commit; "" for
	// an image or repository target.
	root   string
	commit string
	eng    *engine
	scan   store.Scan
}

// serverURL reads -server: an http(s) URL with a host and without
// credentials (the key goes in SCAND_API_KEY).
func serverURL(raw string) (*url.URL, error) {
	base, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("-server %q is not an http(s) URL: give the scheme, e.g. https://scand.example.com", raw)
	}
	if base.User != nil {
		return nil, errors.New("-server must not carry credentials; set SCAND_API_KEY")
	}
	return base, nil
}

// isLoopbackHost reports whether host names this machine.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sendToServer imports the scan and applies the daemon's verdicts to the
// local store, so every format shows them and the gate honours them.
func sendToServer(ctx context.Context, r serverRequest) error {
	base, err := serverURL(r.url)
	if err != nil {
		return err
	}
	endpoint := base.JoinPath("/api/v1/scans/import").String()
	label, commit := r.label, r.commit
	g := gitRunner{runner: r.eng.scanCfg.Runner}
	if r.root != "" {
		if commit == "" {
			commit, _ = g.out(ctx, r.root, "rev-parse", "--verify", "--quiet", "HEAD")
		}
		if label == "" {
			if origin, err := g.out(ctx, r.root, "remote", "get-url", "origin"); err == nil && origin != "" {
				label = safeRemote(origin)
			}
		}
	}
	if label == "" {
		label = r.scan.TargetPath
	}
	comps, err := importComponents(ctx, r.eng.st, r.scan, r.eng.stderr)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: serverResponseTimeout, Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: serverDialTimeout}).DialContext,
		TLSHandshakeTimeout:   serverDialTimeout,
		ResponseHeaderTimeout: serverResponseTimeout,
	}}
	post := func(comps []byte) (int, string, []byte, error) {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeImportBody(ctx, pw, r.eng.st, r.scan, label, commit, comps)) }()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, pr)
		if err != nil {
			pr.Close()
			return 0, "", nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "scand/"+version())
		if r.key != "" {
			req.Header.Set("X-API-Key", r.key)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", nil, fmt.Errorf("cannot reach the scand daemon at %s: %v", base.Redacted(), errors.Unwrap(err))
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return 0, "", nil, fmt.Errorf("scand daemon at %s: reading the answer: %v", base.Redacted(), err)
		}
		return resp.StatusCode, resp.Status, body, nil
	}
	code, status, body, err := post(comps)
	if err == nil && code == http.StatusUnprocessableEntity && comps != nil && olderDaemonRefusedComponents(body) {
		// A daemon of an earlier release takes no components: the scan is
		// still worth recording, without its SBOM.
		fmt.Fprintf(r.eng.stderr, "scand: the daemon at %s takes no components (an earlier release): sent the scan without them, so its SBOM there is empty\n", base.Redacted())
		code, status, body, err = post(nil)
	}
	if err != nil {
		return err
	}
	if code != http.StatusCreated {
		return fmt.Errorf("scand daemon at %s refused the import: %s %s", base.Redacted(), status, report.Printable(string(bytes.TrimSpace(body)), 500))
	}
	var res api.ImportScanResult
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("scand daemon at %s: unexpected answer: %v", base.Redacted(), err)
	}
	for _, v := range res.Verdicts {
		if _, err := r.eng.st.SetTriage(ctx, store.TriageState{Fingerprint: v.Fingerprint, Status: v.Status, Note: v.Note, UpdatedBy: v.UpdatedBy,
			ExpiresAt: v.ExpiresAt, Justification: v.Justification}); err != nil {
			return fmt.Errorf("apply the daemon's verdicts: %v", err)
		}
	}
	fmt.Fprintf(r.eng.stderr, "scand: imported as scan %s on %s (%d verdicts)\n", res.Scan.ID, base.Redacted(), len(res.Verdicts))
	return nil
}

// safeRemote drops user information from a remote URL: a token in
// https://user:token@host/repo must not become a label.
func safeRemote(remote string) string {
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		u.User = nil
		return u.String()
	}
	// scp-like git@host:org/repo keeps its user, which is no secret.
	return remote
}

// writeImportBody streams the import: the scan's fields first, then each
// finding in the API shape, as the daemon reads them, then the scanners
// and the components captured with the scan.
func writeImportBody(ctx context.Context, w io.Writer, st *store.Store, sc store.Scan, label, commit string, comps []byte) error {
	head := map[string]any{"target": label, "scan_types": sc.ScanTypes}
	if commit != "" {
		head["commit"] = commit
	}
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	rest := map[string]any{"scanners_run": sc.ScannersRun, "scanners_skipped": sc.ScannersSkipped, "coverage": sc.Coverage}
	if comps != nil {
		rest["components"] = json.RawMessage(comps)
	}
	tail, err := json.Marshal(rest)
	if err != nil {
		return err
	}
	buf := append(b[:len(b)-1], `,"findings":[`...)
	n := 0
	for row, err := range st.FindingRows(ctx, sc, store.FindingQuery{}) {
		if err != nil {
			return err
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		if buf, err = row.AppendJSON(buf); err != nil {
			return err
		}
		n++
		if len(buf) > 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "],"...)
	buf = append(buf, tail[1:]...)
	_, err = w.Write(buf)
	return err
}

// importComponents is the scan's captured components as an import sends
// them (nil when none were captured), fitted to what the daemon accepts;
// what had to be left out is said on stderr.
func importComponents(ctx context.Context, st *store.Store, sc store.Scan, stderr io.Writer) ([]byte, error) {
	raw, err := st.ScanComponents(ctx, sc.ID)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	comps, err := components.DecodeCapture(raw)
	if err != nil {
		return nil, fmt.Errorf("components of the scan: %v", err)
	}
	comps, dropped := importscan.FitComponents(comps)
	if dropped > 0 {
		fmt.Fprintf(stderr, "scand: %d components left out of the import (a name, package URL or path the daemon would refuse, or past its limits)\n", dropped)
	}
	return json.Marshal(comps)
}

// olderDaemonRefusedComponents says whether a 422 answer refuses the
// components member as unknown, which is what a daemon released before
// imports carried components answers.
func olderDaemonRefusedComponents(body []byte) bool {
	var v api.ValidationBody
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	for _, d := range v.Detail {
		if d.Type == "extra_forbidden" && len(d.Loc) == 2 && d.Loc[0] == "body" && d.Loc[1] == "components" {
			return true
		}
	}
	return false
}
