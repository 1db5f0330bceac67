package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
	"scand/store/audit"
)

// seedReviewScan stores a completed scan: 70 generic-password findings in
// test files and 30 others.
func seedReviewScan(t *testing.T, st *store.Store, id string) []finding.Finding {
	return seedReviewScanAt(t, st, id, "/src/juice", "test/api", "src/lib")
}

// seedReviewScanAt is seedReviewScan of the target at root, its test
// files under dir, the others under src.
func seedReviewScanAt(t *testing.T, st *store.Store, id, root, dir, src string) []finding.Finding {
	t.Helper()
	ctx := context.Background()
	if _, err := st.CreateScan(ctx, store.Scan{ID: id, TargetPath: root, ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	var raw []finding.Finding
	for i := 0; i < 100; i++ {
		f := finding.Finding{Scanner: "secrets", ScanType: "code", Severity: finding.High, Title: "Hard-coded password",
			FilePath: fmt.Sprintf("%s/f%02d.test.ts", dir, i), Line: 10 + i, RuleID: "generic-password", Snippet: fmt.Sprintf("password = 'p%d'", i)}
		if i >= 70 {
			f.FilePath, f.RuleID, f.Severity, f.Title = fmt.Sprintf("%s/f%02d.ts", src, i), "sql-injection", finding.Medium, "SQL injection"
		}
		raw = append(raw, f)
	}
	fs := finding.Prepare(id, raw, nil, store.NewID)
	if err := st.CompleteScan(ctx, id, store.ScanResult{Findings: fs, ScannersRun: []string{"secrets"}}); err != nil {
		t.Fatal(err)
	}
	return fs
}

func auditRecords(t *testing.T, e *apiEnv, query string, headers ...string) []audit.Record {
	t.Helper()
	rec := e.do("GET", "/api/v1/audit"+query, "", headers...)
	e.expectStatus(rec, http.StatusOK)
	var page struct {
		Records    []audit.Record `json:"records"`
		NextCursor string         `json:"next_cursor"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	return page.Records
}

func TestBulkTriageByFilterWithExpectedCount(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	adminID, admin := e.issueKey("admin")
	writerID, writer := e.issueKey("read", "write")
	seedReviewScan(t, e.store, "s1")
	auth := []string{"X-API-Key", writer, "RemoteAddr", "192.0.2.7:5555", "X-Request-ID", "bulk-req-1"}

	// Dry run: the count the console's confirmation names.
	body := `{"filter":{"scan_id":"s1","q":"generic-password"},"status":"false_positive","note":"test fixtures","dry_run":true}`
	rec := e.do("POST", "/api/v1/findings/triage", body, auth...)
	e.expectStatus(rec, http.StatusOK)
	var res struct {
		MatchingCount int   `json:"matching_count"`
		Updated       int   `json:"updated"`
		AuditID       int64 `json:"audit_id"`
	}
	e.decode(rec, &res)
	if res.MatchingCount != 70 || res.Updated != 0 {
		t.Fatalf("dry run: %+v", res)
	}
	// A stale count is a 409 that says the count now, and changes nothing.
	stale := `{"filter":{"scan_id":"s1","q":"generic-password"},"status":"false_positive","expected_count":69}`
	rec = e.do("POST", "/api/v1/findings/triage", stale, auth...)
	e.expectStatus(rec, http.StatusConflict)
	var conflict map[string]any
	e.decode(rec, &conflict)
	if fmt.Sprint(conflict["matching_count"]) != "70" || !strings.Contains(fmt.Sprint(conflict["detail"]), "70") {
		t.Fatalf("409 body: %v", conflict)
	}
	body = `{"filter":{"scan_id":"s1","q":"generic-password"},"status":"false_positive","note":"test fixtures","expected_count":70}`
	rec = e.do("POST", "/api/v1/findings/triage", body, auth...)
	e.expectStatus(rec, http.StatusOK)
	e.decode(rec, &res)
	if res.MatchingCount != 70 || res.Updated != 70 || res.AuditID == 0 {
		t.Fatalf("bulk: %+v", res)
	}
	rec = e.do("GET", "/api/v1/scans/s1/findings?limit=500", "", auth...)
	var rows []store.FindingWithState
	e.decode(rec, &rows)
	fp, other := 0, 0
	for _, r := range rows {
		switch {
		case r.RuleID == "generic-password" && r.State != nil && r.State.Status == "false_positive":
			fp++
			if !strings.Contains(r.State.UpdatedBy, writerID) || !strings.HasPrefix(r.State.UpdatedBy, "test ") {
				t.Fatalf("updated_by %q does not name the key", r.State.UpdatedBy)
			}
			h, _ := e.store.TriageHistory(context.Background(), r.Fingerprint)
			if len(h) != 1 {
				t.Fatalf("history of %s: %d entries", r.Fingerprint, len(h))
			}
		case r.State != nil:
			other++
		}
	}
	if fp != 70 || other != 0 {
		t.Fatalf("verdicts: %d false positives, %d others", fp, other)
	}
	recs := auditRecords(t, e, "?action=finding.triage_bulk", "X-API-Key", admin)
	if len(recs) != 1 {
		t.Fatalf("audit records: %+v", recs)
	}
	r := recs[0]
	if r.Actor.ID != writerID || r.Actor.Name != "test "+writerID || r.RequestID != "bulk-req-1" || r.Client != "192.0.2.7" ||
		fmt.Sprint(r.Changes["count"].After) != "70" {
		t.Fatalf("audit record: %+v", r)
	}
	// The write key cannot read the audit log; the admin can filter it.
	e.expectStatus(e.do("GET", "/api/v1/audit", "", auth...), http.StatusForbidden)
	if got := auditRecords(t, e, "?actor="+adminID, "X-API-Key", admin); len(got) != 0 {
		t.Fatalf("admin made no change yet: %+v", got)
	}
}

// TestBulkTriageAcrossTargets sets one verdict on what GET /findings
// selects across two targets, read by that list's own parser.
func TestBulkTriageAcrossTargets(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	seedReviewScanAt(t, e.store, "s1", "/src/juice", "test/api", "src/lib")
	seedReviewScanAt(t, e.store, "s2", "/src/goat", "test/goat", "app/lib")
	var list struct {
		Items []struct {
			TargetID int64 `json:"target_id"`
		} `json:"items"`
		Total *int `json:"total"`
	}
	e.decode(e.do("GET", "/api/v1/findings?severity=medium&limit=500", ""), &list)
	if list.Total == nil || *list.Total != 200 {
		t.Fatalf("the list shows %v medium findings, want 200", list.Total)
	}
	juice := list.Items[0].TargetID
	type result struct {
		MatchingCount int `json:"matching_count"`
		Updated       int `json:"updated"`
	}
	var res result
	// One target by id: the list's target= filter.
	one := fmt.Sprintf(`{"filter":{"findings_query":"severity=medium&target=%d"},"status":"false_positive","expected_count":100}`, juice)
	rec := e.do("POST", "/api/v1/findings/triage", one)
	e.expectStatus(rec, http.StatusOK)
	e.decode(rec, &res)
	if res.MatchingCount != 100 || res.Updated != 100 {
		t.Fatalf("one target: %+v", res)
	}
	e.decode(e.do("GET", "/api/v1/findings?verdict=new&limit=500", ""), &list)
	if *list.Total != 100 || list.Items[0].TargetID == juice || list.Items[99].TargetID == juice {
		t.Fatalf("%d findings without a verdict, want the other target's 100", *list.Total)
	}
	// Across targets, paging ignored; the list's default leaves the false
	// positives out, so 100 match, not 200.
	rec = e.do("POST", "/api/v1/findings/triage", `{"filter":{"findings_query":"?severity=medium&limit=5&sort=file"},"status":"wont_fix","expected_count":100}`)
	e.expectStatus(rec, http.StatusOK)
	e.decode(rec, &res)
	if res.MatchingCount != 100 || res.Updated != 100 {
		t.Fatalf("across targets: %+v", res)
	}
	e.decode(e.do("GET", "/api/v1/findings?verdict=false_positive,wont_fix", ""), &list)
	if *list.Total != 200 {
		t.Fatalf("%d findings with the two verdicts, want 200", *list.Total)
	}
	recs := auditRecordsDev(t, e)
	if len(recs) != 2 || fmt.Sprint(recs[0].Changes["count"].After) != "100" || !strings.Contains(fmt.Sprint(recs[0].Changes["filter"].After), "severity=medium") {
		t.Fatalf("audit: %+v", recs)
	}
	for _, c := range []struct{ body, loc string }{
		{`{"filter":{"findings_query":"severity=urgent"},"status":"fixed"}`, `["body","filter","findings_query","severity"]`},
		{`{"filter":{"findings_query":"severity=high","scan_id":"s1"},"status":"fixed"}`, `["body","filter","findings_query"]`},
		{`{"filter":{"findings_query":"severity=high","scanner":["secrets"]},"status":"fixed"}`, `["body","filter","findings_query"]`},
		{`{"filter":{"findings_query":"a=%zz"},"status":"fixed"}`, `["body","filter","findings_query"]`},
	} {
		rec := e.do("POST", "/api/v1/findings/triage", c.body)
		if rec.Code != 422 || !strings.Contains(rec.Body.String(), c.loc) {
			t.Fatalf("%s: %d %s", c.body, rec.Code, rec.Body.String())
		}
	}
}

func TestBulkTriageRefusals(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	fs := seedReviewScan(t, e.store, "s1")
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"neither", `{"status":"fixed"}`, 422, "fingerprints or filter"},
		{"both", `{"fingerprints":["` + fs[0].Fingerprint + `"],"filter":{"scan_id":"s1"},"status":"fixed"}`, 422, "not both"},
		{"bad status", `{"fingerprints":["` + fs[0].Fingerprint + `"],"status":"gone"}`, 422, "status must be one of"},
		{"bad fingerprint", `{"fingerprints":["abc"],"status":"fixed"}`, 422, "64 lowercase hex"},
		{"unknown fingerprint", `{"fingerprints":["` + strings.Repeat("0", 64) + `"],"status":"fixed"}`, 404, "not found"},
		{"unknown scan", `{"filter":{"scan_id":"nope"},"status":"fixed"}`, 404, "Scan not found"},
		{"expiry on a false positive", `{"fingerprints":["` + fs[0].Fingerprint + `"],"status":"false_positive","expires_at":"2030-01-01"}`, 422, "only allowed"},
		{"expiry in the past", `{"fingerprints":["` + fs[0].Fingerprint + `"],"status":"accepted_risk","expires_at":"2020-01-01"}`, 422, "in the future"},
		{"expiry not a time", `{"fingerprints":["` + fs[0].Fingerprint + `"],"status":"accepted_risk","expires_at":"soon"}`, 422, "RFC 3339"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := e.with(t).do("POST", "/api/v1/findings/triage", c.body)
			if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.want) {
				t.Fatalf("%d %s", rec.Code, rec.Body.String())
			}
		})
	}
	many := make([]string, store.MaxBulkTriage+1)
	for i := range many {
		many[i] = fmt.Sprintf("%064x", i)
	}
	raw, _ := json.Marshal(map[string]any{"fingerprints": many, "status": "fixed"})
	rec := e.do("POST", "/api/v1/findings/triage", string(raw))
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), "at most 10000") {
		t.Fatalf("over the cap: %d %s", rec.Code, rec.Body.String())
	}
	if n := len(auditRecordsDev(t, e)); n != 0 {
		t.Fatalf("refused requests left %d audit records", n)
	}
}

func auditRecordsDev(t *testing.T, e *apiEnv) []audit.Record {
	return auditRecords(t, e, "")
}

func TestSingleVerdictWithExpiryIsAudited(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	fs := seedReviewScan(t, e.store, "s1")
	fp := fs[0].Fingerprint
	exp := e.clock.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	rec := e.do("PATCH", "/api/v1/findings/"+fp+"/state", `{"status":"accepted_risk","note":"vendor fix due","expires_at":"`+exp+`"}`)
	e.expectStatus(rec, http.StatusOK)
	var st store.TriageState
	e.decode(rec, &st)
	if st.ExpiresAt == nil || st.ExpiresAt.Format(time.RFC3339) != exp || st.UpdatedBy != "dev" {
		t.Fatalf("state: %+v", st)
	}
	recs := auditRecordsDev(t, e)
	if len(recs) != 1 || recs[0].Action != "finding.triage" || recs[0].Actor.Kind != audit.ActorDev || recs[0].Actor.Name != "dev mode" {
		t.Fatalf("audit: %+v", recs)
	}
	ch := recs[0].Changes
	if ch["status"].Before != "new" || ch["status"].After != "accepted_risk" || ch["expires_at"].After == nil {
		t.Fatalf("changes: %+v", ch)
	}
	var stats struct {
		Expiring *int `json:"expiring_acceptances"`
	}
	e.decode(e.do("GET", "/api/v1/dashboard/stats", ""), &stats)
	if stats.Expiring == nil || *stats.Expiring != 1 {
		t.Fatalf("dashboard expiring acceptances: %v", stats.Expiring)
	}
	e.clock.Advance(5 * 24 * time.Hour) // the acceptance ends in 3 days: past, it still counts until swept
	e.decode(e.do("GET", "/api/v1/dashboard/stats", ""), &stats)
	if *stats.Expiring != 1 {
		t.Fatalf("after: %d", *stats.Expiring)
	}
}

// TestAuditLogHasNoWritePath tries every method on the audit paths: only
// GET (and the router's HEAD) answer, and nothing changes the log.
func TestAuditLogHasNoWritePath(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	_, admin := e.issueKey("admin")
	e.do("POST", "/api/v1/keys", `{"name":"ci"}`, "X-API-Key", admin)
	before := auditRecords(t, e, "", "X-API-Key", admin)
	if len(before) != 1 {
		t.Fatalf("records before: %+v", before)
	}
	id := fmt.Sprint(before[0].Seq)
	for _, prefix := range []string{"/api/v1", "/api"} {
		for _, path := range []string{"/audit", "/audit/", "/audit/" + id, "/audit/" + id + "/changes"} {
			for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PROPFIND"} {
				rec := e.do(m, prefix+path, `{"action":"forged","seq":`+id+`}`, "X-API-Key", admin)
				if rec.Code < 400 {
					t.Fatalf("%s %s answered %d", m, prefix+path, rec.Code)
				}
			}
		}
	}
	for _, rt := range e.srv.Routes() {
		if strings.HasPrefix(rt.Path, "/audit") && rt.Method != "GET" {
			t.Fatalf("route %s %s writes to the audit log", rt.Method, rt.Path)
		}
	}
	after := auditRecords(t, e, "", "X-API-Key", admin)
	if len(after) != len(before) || after[0].Action != before[0].Action || after[0].At != before[0].At {
		t.Fatalf("the log changed: %+v", after)
	}
	rec := e.do("GET", "/api/v1/audit?cursor=zzz", "", "X-API-Key", admin)
	e.expectStatus(rec, http.StatusUnprocessableEntity)
}

// TestAuditRecordsEveryChangeWithoutSecrets makes a change of each kind
// and checks its record, and that no record nor log line holds a key, a
// key hash, a webhook secret or a webhook URL's path.
func TestAuditRecordsEveryChangeWithoutSecrets(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	e.store.SetAuditSink(func(r audit.Record) { e.srv.log.Info("audit", "record", r) })
	_, admin := e.issueKey("admin")
	h := []string{"X-API-Key", admin}
	seedReviewScan(t, e.store, "s1")
	rec := e.do("POST", "/api/v1/keys", `{"name":"ci"}`, h...)
	e.expectStatus(rec, http.StatusCreated)
	var key struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	e.decode(rec, &key)
	stored, _ := e.store.APIKeyByID(context.Background(), key.ID)
	e.expectStatus(e.do("DELETE", "/api/v1/keys/"+key.ID, "", h...), http.StatusNoContent)
	rec = e.do("POST", "/api/v1/webhooks", `{"name":"chat","url":"https://hooks.example.com/services/T0/B0/sekritpath","event_filter":["scan.complete"]}`, h...)
	e.expectStatus(rec, http.StatusCreated)
	var wh struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	e.decode(rec, &wh)
	e.expectStatus(e.do("PATCH", "/api/v1/webhooks/"+wh.ID, `{"name":"chat2","enabled":false}`, h...), http.StatusOK)
	e.expectStatus(e.do("DELETE", "/api/v1/webhooks/"+wh.ID, "", h...), http.StatusNoContent)
	fs := seedReviewScan(t, e.store, "s2")
	fp := fs[0].Fingerprint
	rec = e.do("POST", "/api/v1/findings/"+fp+"/comments", `{"text":"looks fine"}`, h...)
	e.expectStatus(rec, http.StatusCreated)
	var c store.Comment
	e.decode(rec, &c)
	e.expectStatus(e.do("DELETE", "/api/v1/findings/"+fp+"/comments/"+c.ID, "", h...), http.StatusNoContent)
	e.expectStatus(e.do("DELETE", "/api/v1/scans/s1", "", h...), http.StatusNoContent)

	recs := auditRecords(t, e, "", h...)
	var actions []string
	for i := len(recs) - 1; i >= 0; i-- {
		actions = append(actions, recs[i].Action)
	}
	want := "key.issue key.revoke webhook.create webhook.update webhook.delete finding.comment_add finding.comment_delete scan.delete"
	if got := strings.Join(actions, " "); got != want {
		t.Fatalf("actions:\n got %s\nwant %s", got, want)
	}
	for _, r := range recs {
		if r.Actor.Kind != audit.ActorKey || r.Actor.Name == "" {
			t.Fatalf("actor of %s: %+v", r.Action, r.Actor)
		}
		if r.Action == "webhook.update" && (r.Changes["name"].After != "chat2" || r.Changes["enabled"].After != false) {
			t.Fatalf("webhook update changes: %+v", r.Changes)
		}
	}
	raw, _ := json.Marshal(recs)
	all := string(raw) + e.logs.String()
	for name, secret := range map[string]string{"api key": key.Key, "key secret part": key.Key[len(key.Key)-32:], "key hash": stored.Hash,
		"webhook secret": wh.Secret, "webhook url path": "sekritpath"} {
		if secret == "" {
			t.Fatalf("%s is empty: the test proves nothing", name)
		}
		if strings.Contains(all, secret) {
			t.Errorf("the %s appears in an audit record or log line", name)
		}
	}
	if !strings.Contains(e.logs.String(), `"msg":"audit"`) {
		t.Fatal("no audit log line was written")
	}
}
