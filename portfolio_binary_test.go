package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeOSVScanner is an osv-scanner that reports GHSA-35jh-r3h4-6jhm
// (alias CVE-2021-23337, fixed in 4.17.21) for a lodash below 4.17.21 in
// the lockfile it is given, as the real tool's JSON does.
const fakeOSVScanner = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "osv-scanner version: 2.5.0"; exit 0; fi
lock=""
while [ $# -gt 0 ]; do if [ "$1" = "-L" ]; then lock="$2"; shift; fi; shift; done
ver=$(sed -n 's/.*"node_modules\/lodash": *{ *"version": *"\([^"]*\)".*/\1/p' "$lock" | head -1)
if [ "$ver" = "4.17.21" ] || [ -z "$ver" ]; then echo '{"results":[]}'; exit 0; fi
cat <<EOF
{"results":[{"source":{"path":"$lock","type":"lockfile"},"packages":[{"package":{"name":"lodash","version":"$ver","ecosystem":"npm"},
"vulnerabilities":[{"id":"GHSA-35jh-r3h4-6jhm","aliases":["CVE-2021-23337"],"summary":"Command Injection in lodash",
"affected":[{"package":{"ecosystem":"npm","name":"lodash"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"4.17.21"}]}]}],
"database_specific":{"severity":"HIGH","cwe_ids":["CWE-77"]}}],
"groups":[{"ids":["GHSA-35jh-r3h4-6jhm"],"aliases":["CVE-2021-23337","GHSA-35jh-r3h4-6jhm"],"max_severity":"7.2"}]}]}]}
EOF
exit 1
`

func lodashLock(version string) string {
	return `{"name":"app","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{` +
		`"":{"name":"app","version":"1.0.0","dependencies":{"lodash":"` + version + `"}},` +
		`"node_modules/lodash": {"version": "` + version + `","license":"MIT"}}}` + "\n"
}

// TestBinaryPortfolio drives the built daemon over three directory
// targets scanned twice each: ages survive, overdue findings appear when
// SVC_FAKE_NOW passes their deadline and are announced once to a loopback
// webhook, and the component and vulnerability inventories agree.
func TestBinaryPortfolio(t *testing.T) {
	root := t.TempDir()
	tools := t.TempDir()
	osv := filepath.Join(tools, "osv-scanner")
	if err := os.WriteFile(osv, []byte(fakeOSVScanner), 0o755); err != nil {
		t.Fatal(err)
	}
	osvDB := filepath.Join(tools, "osvdb")
	if err := os.MkdirAll(filepath.Join(osvDB, "osv-scalibr", "npm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(osvDB, "osv-scalibr", "npm", "all.zip"), []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	lodash := map[string]string{"a": "4.17.20", "b": "4.17.21", "c": "4.17.15"}
	write := func(dir, name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		write(d, "config.py", "aws_key = \""+awsKey+"\"\n")
		write(d, "deploy.sh", "TOKEN="+githubPAT+"\n")
		write(d, "package-lock.json", lodashLock(lodash[d]))
	}

	var mu sync.Mutex
	var deliveries []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		mu.Lock()
		deliveries = append(deliveries, string(raw))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	received := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), deliveries...)
	}

	db := filepath.Join(t.TempDir(), "scand.db")
	env := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": db, "SVC_SCAN_ROOTS": root, "SVC_SECRETS_HISTORY": "0", "HOME": t.TempDir(),
		"SVC_OSV_SCANNER_PATH": osv, "SVC_OSV_DB": osvDB, "SVC_WEBHOOK_ALLOW_PRIVATE": "1"}
	d := startScheduleDaemon(t, env)
	var hook struct {
		ID string `json:"id"`
	}
	if code := d.call(t, "POST", "/api/v1/webhooks", fmt.Sprintf(`{"name":"sla","url":%q,"event_filter":["finding.sla_breached"]}`, recv.URL), &hook); code != 201 {
		t.Fatalf("create webhook: %d", code)
	}
	latestScan := map[string]string{}
	scanAll := func() map[string]time.Time {
		t.Helper()
		done := map[string]time.Time{}
		for _, dir := range []string{"a", "b", "c"} {
			var sc struct {
				ID string `json:"id"`
			}
			body := fmt.Sprintf(`{"target_path":%q,"scan_types":["code","dependency"]}`, filepath.Join(root, dir))
			if code := d.call(t, "POST", "/api/v1/scans", body, &sc); code != 200 {
				t.Fatalf("start scan of %s: %d", dir, code)
			}
			deadline := time.Now().Add(90 * time.Second)
			for {
				var got struct {
					Status      string     `json:"status"`
					CompletedAt *time.Time `json:"completed_at"`
				}
				d.call(t, "GET", "/api/v1/scans/"+sc.ID, "", &got)
				if got.Status == "completed" {
					done[dir], latestScan[dir] = *got.CompletedAt, sc.ID
					break
				}
				if got.Status == "failed" || time.Now().After(deadline) {
					t.Fatalf("scan of %s: %s\n%s", dir, got.Status, d.p.stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		return done
	}
	first := scanAll()
	// Between the scans each target's GitHub token is removed (fixed) and
	// a Stripe key appears (new).
	for _, dir := range []string{"a", "b", "c"} {
		write(dir, "deploy.sh", "echo deploy\n")
		write(dir, "billing.py", "STRIPE = \""+stripeKey+"\"\n")
	}
	second := scanAll()

	type item struct {
		Fingerprint string     `json:"fingerprint"`
		RuleID      string     `json:"rule_id"`
		Severity    string     `json:"severity"`
		TargetName  string     `json:"target_name"`
		FirstSeen   time.Time  `json:"first_seen"`
		LastSeen    time.Time  `json:"last_seen"`
		DueAt       *time.Time `json:"due_at"`
		Overdue     bool       `json:"overdue"`
	}
	var page struct {
		Items []item `json:"items"`
		Total int    `json:"total"`
	}
	if code := d.call(t, "GET", "/api/v1/findings?scanner=secrets&limit=100", "", &page); code != 200 {
		t.Fatalf("findings: %d", code)
	}
	if page.Total != 6 || len(page.Items) != 6 {
		t.Fatalf("secrets across targets: %d %+v", page.Total, page.Items)
	}
	for _, f := range page.Items {
		dir := filepath.Base(f.TargetName)
		switch f.RuleID {
		case "aws-access-key-id":
			if !f.FirstSeen.Equal(first[dir]) || !f.LastSeen.Equal(second[dir]) {
				t.Errorf("surviving AWS key on %s: first %v last %v, want %v %v", dir, f.FirstSeen, f.LastSeen, first[dir], second[dir])
			}
		case "github-pat":
			t.Errorf("fixed token still listed: %+v", f)
		default:
			if !f.FirstSeen.Equal(second[dir]) {
				t.Errorf("new finding %s on %s first seen %v, want %v", f.RuleID, dir, f.FirstSeen, second[dir])
			}
		}
		if f.Overdue || f.DueAt == nil {
			t.Errorf("fresh finding overdue or without deadline: %+v", f)
		}
	}

	checkReportAges(t, d, latestScan["a"], first["a"], second["a"])

	// Inventory: lodash below 4.17.21 is in a and c; the advisory, by its
	// GHSA id or its CVE alias, affects the same two.
	var comps struct {
		Items []struct {
			Version string `json:"version"`
			Targets []struct {
				Name string `json:"name"`
			} `json:"targets"`
		} `json:"items"`
	}
	if code := d.call(t, "GET", "/api/v1/components?purl=pkg:npm/lodash&version=%3C4.17.21", "", &comps); code != 200 {
		t.Fatalf("components: %d", code)
	}
	var compTargets []string
	for _, c := range comps.Items {
		for _, tg := range c.Targets {
			compTargets = append(compTargets, filepath.Base(tg.Name))
		}
	}
	sort.Strings(compTargets)
	if strings.Join(compTargets, ",") != "a,c" {
		t.Fatalf("lodash <4.17.21 held by %v, want a,c (%+v)", compTargets, comps)
	}
	for _, id := range []string{"GHSA-35jh-r3h4-6jhm", "CVE-2021-23337", "cve-2021-23337"} {
		var v struct {
			Targets []struct {
				Name string `json:"name"`
			} `json:"targets"`
			Packages []struct {
				Version       string   `json:"version"`
				FixedVersions []string `json:"fixed_versions"`
			} `json:"packages"`
		}
		if code := d.call(t, "GET", "/api/v1/vulnerabilities/"+id, "", &v); code != 200 {
			t.Fatalf("vulnerability %s: %d", id, code)
		}
		var names []string
		for _, tg := range v.Targets {
			names = append(names, filepath.Base(tg.Name))
		}
		sort.Strings(names)
		if strings.Join(names, ",") != strings.Join(compTargets, ",") || len(v.Packages) != 2 || v.Packages[0].FixedVersions[0] != "4.17.21" {
			t.Errorf("%s affects %v (%+v), want the component query's %v", id, names, v, compTargets)
		}
	}
	if code := d.call(t, "GET", "/api/v1/vulnerabilities/CVE-1999-0001", "", nil); code != 404 {
		t.Errorf("unknown vulnerability: %d", code)
	}
	if len(received()) != 0 {
		t.Fatalf("SLA deliveries before any deadline: %v", received())
	}
	d.stop(t)

	// Eight days on, the critical secrets (7 days) are overdue, the high
	// lodash finding (30 days) is not.
	env["SVC_FAKE_NOW"] = second["a"].Add(8 * 24 * time.Hour).Format(time.RFC3339)
	d = startScheduleDaemon(t, env)
	if code := d.call(t, "GET", "/api/v1/findings?overdue=true&limit=100", "", &page); code != 200 {
		t.Fatalf("overdue findings: %d", code)
	}
	if page.Total != 6 {
		t.Errorf("overdue across targets: %d %+v", page.Total, page.Items)
	}
	for _, f := range page.Items {
		if f.Severity != "critical" || !f.Overdue {
			t.Errorf("overdue list holds %+v", f)
		}
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("after 30 s: %s; deliveries %v\n%s", what, received(), d.p.stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("three finding.sla_breached deliveries", func() bool { return len(received()) >= 3 })
	time.Sleep(500 * time.Millisecond)
	got := received()
	if len(got) != 3 {
		t.Fatalf("%d deliveries, want one per target: %v", len(got), got)
	}
	for _, body := range got {
		if !strings.Contains(body, `"event":"finding.sla_breached"`) || !strings.Contains(body, `"count":2`) || !strings.Contains(body, "aws-access-key-id") && !strings.Contains(body, "AWS") {
			t.Errorf("delivery %s", body)
		}
	}
	var unread struct {
		Count int `json:"count"`
	}
	d.call(t, "GET", "/api/v1/notifications/unread-count", "", &unread)
	if unread.Count < 3 {
		t.Errorf("%d unread notifications, want the three breaches at least", unread.Count)
	}
	d.stop(t)
	// A restart checks again: nothing newly overdue, nothing sent.
	d = startScheduleDaemon(t, env)
	time.Sleep(time.Second)
	if n := len(received()); n != 3 {
		t.Errorf("%d deliveries after a restart, want still 3", n)
	}
	d.stop(t)
}

// checkReportAges: the SARIF (valid against the schema) and HTML reports
// of a second scan say the surviving AWS key was first seen by the first
// scan and last by this one, as the per-scan list and one finding do.
func checkReportAges(t *testing.T, d *scheduleDaemon, scanID string, first, second time.Time) {
	t.Helper()
	get := func(path string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", d.base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, raw)
		}
		return string(raw)
	}
	sarif := get("/api/v1/scans/" + scanID + "/report?format=sarif")
	validateSARIF(t, sarif)
	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID     string         `json:"ruleId"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &doc); err != nil {
		t.Fatal(err)
	}
	aws := 0
	for _, run := range doc.Runs {
		for _, r := range run.Results {
			if r.Properties["firstSeen"] == nil || r.Properties["lastSeen"] != second.UTC().Format(time.RFC3339) {
				t.Errorf("SARIF result %s: firstSeen %v lastSeen %v, want lastSeen %s", r.RuleID, r.Properties["firstSeen"], r.Properties["lastSeen"], second.UTC().Format(time.RFC3339))
			}
			if r.RuleID == "aws-access-key-id" {
				aws++
				if r.Properties["firstSeen"] != first.UTC().Format(time.RFC3339) {
					t.Errorf("SARIF: surviving AWS key first seen %v, want %s", r.Properties["firstSeen"], first.UTC().Format(time.RFC3339))
				}
			}
		}
	}
	if aws != 1 {
		t.Errorf("SARIF: %d AWS key results, want 1", aws)
	}
	const layout = "2006-01-02 15:04:05 UTC"
	html := get("/api/v1/scans/" + scanID + "/report?format=html")
	if want := "<dt>Seen</dt><dd>first " + first.UTC().Format(layout) + ", last " + second.UTC().Format(layout) + "</dd>"; !strings.Contains(html, want) {
		t.Errorf("HTML report lacks %q", want)
	}
	var rows []struct {
		RuleID    string    `json:"rule_id"`
		FirstSeen time.Time `json:"first_seen"`
		DueAt     time.Time `json:"due_at"`
	}
	if err := json.Unmarshal([]byte(get("/api/v1/scans/"+scanID+"/findings?sort=first_seen&scanner=secrets")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].RuleID != "aws-access-key-id" || !rows[0].FirstSeen.Equal(first) || !rows[0].DueAt.Equal(first.Add(7*24*time.Hour)) {
		t.Errorf("scan findings by first_seen: %+v, want the AWS key first (first seen %v, due 7 days later)", rows, first)
	}
}
