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
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeImportBody(ctx, pw, r.eng.st, r.scan, label, commit)) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, pr)
	if err != nil {
		pr.Close()
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "scand/"+version())
	if r.key != "" {
		req.Header.Set("X-API-Key", r.key)
	}
	client := &http.Client{Timeout: serverResponseTimeout, Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: serverDialTimeout}).DialContext,
		TLSHandshakeTimeout:   serverDialTimeout,
		ResponseHeaderTimeout: serverResponseTimeout,
	}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the scand daemon at %s: %v", base.Redacted(), errors.Unwrap(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("scand daemon at %s: reading the answer: %v", base.Redacted(), err)
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("scand daemon at %s refused the import: %s %s", base.Redacted(), resp.Status, report.Printable(string(bytes.TrimSpace(body)), 500))
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
// finding in the API shape, as the daemon reads them.
func writeImportBody(ctx context.Context, w io.Writer, st *store.Store, sc store.Scan, label, commit string) error {
	head := map[string]any{"target": label, "scan_types": sc.ScanTypes}
	if commit != "" {
		head["commit"] = commit
	}
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	tail, err := json.Marshal(map[string]any{"scanners_run": sc.ScannersRun, "scanners_skipped": sc.ScannersSkipped, "coverage": sc.Coverage})
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
