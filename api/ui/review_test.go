package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"scand/finding"
	"scand/store"
	"scand/store/audit"
)

// TestBulkVerdictThroughTheConsole selects every finding matching a
// search, confirms on a page that names the count, and checks the verdicts,
// their history, the audit record and the stale-count refusal.
func TestBulkVerdictThroughTheConsole(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	var fs []finding.Finding
	for i := 0; i < 30; i++ {
		fs = append(fs, mkFinding(fmt.Sprintf("pw%d", i), finding.High, "secrets", "generic-password", fmt.Sprintf("test/a%02d.test.ts", i), 3))
	}
	for i := 0; i < 5; i++ {
		fs = append(fs, mkFinding(fmt.Sprintf("sql%d", i), finding.Medium, "secrets", "sqli", fmt.Sprintf("src/b%d.ts", i), 3))
	}
	sc := e.seedScan("/src/app", fs)
	keyID, key := e.issueKey("reviewer-ann", "read", "write")
	c := e.client(t)
	c.login(key)
	page := c.get("/ui/scans/" + sc.ID + "?q=generic-password")
	expect(t, page, 200, "scan page")
	if !strings.Contains(page.body, `name="fp"`) || !strings.Contains(page.body, "Select all 30 matching") {
		t.Fatal("the findings table has no row checkboxes or no select-all control")
	}
	form := url.Values{"mode": {"all"}, "q": {"generic-password"}, "status": {"false_positive"}, "note": {"test fixtures"}}
	confirm := c.post("/ui/scans/"+sc.ID+"/triage", form)
	expect(t, confirm, 200, "confirmation")
	if !strings.Contains(confirm.body, "30 findings") {
		t.Fatalf("the confirmation does not name the count:\n%s", confirm.body)
	}
	if st, _ := e.st.TriageStateOf(context.Background(), fs[0].Fingerprint); st != nil {
		t.Fatal("a verdict was set before the confirmation")
	}
	// A finding of the selection gets another verdict meanwhile: the set
	// no longer has 30 members, and the confirmation is refused.
	if _, err := e.st.SetTriage(context.Background(), store.TriageState{Fingerprint: fs[29].Fingerprint, Status: "fixed"}); err != nil {
		t.Fatal(err)
	}
	form.Set("confirm", "1")
	form.Set("expected", "31")
	stale := c.post("/ui/scans/"+sc.ID+"/triage", form)
	if stale.status != http.StatusConflict || !strings.Contains(stale.body, "30 findings match now, not 31") {
		t.Fatalf("stale confirmation: %d\n%s", stale.status, stale.body)
	}
	form.Set("expected", "30")
	done := c.post("/ui/scans/"+sc.ID+"/triage", form)
	expect(t, done, http.StatusSeeOther, "confirmed bulk verdict")
	result := c.get(done.loc)
	if !strings.Contains(result.body, "Verdict set on 30 findings.") {
		t.Fatalf("the result is not shown after %s", done.loc)
	}
	for _, f := range fs[:30] {
		st, _ := e.st.TriageStateOf(context.Background(), f.Fingerprint)
		if st == nil || st.Status != "false_positive" || st.UpdatedBy != "reviewer-ann ("+keyID+")" {
			t.Fatalf("verdict of %s: %+v", f.FilePath, st)
		}
	}
	for _, f := range fs[30:] {
		if st, _ := e.st.TriageStateOf(context.Background(), f.Fingerprint); st != nil {
			t.Fatalf("%s is outside the filter but got %+v", f.FilePath, st)
		}
	}
	recs, err := e.st.AuditRecords(context.Background(), audit.Query{Action: "finding.triage_bulk"})
	if err != nil || len(recs.Records) != 1 || recs.Records[0].Actor.Name != "reviewer-ann" || fmt.Sprint(recs.Records[0].Changes["count"].After) != "30" {
		t.Fatalf("audit: %+v %v", recs.Records, err)
	}
	// The selected-rows mode sets exactly the ticked rows.
	sel := url.Values{"mode": {"selected"}, "fp": {fs[30].Fingerprint, fs[31].Fingerprint}, "status": {"accepted_risk"}, "expires_at": {"2099-01-01"}}
	confirm = c.post("/ui/scans/"+sc.ID+"/triage", sel)
	if !strings.Contains(confirm.body, "2 findings") {
		t.Fatalf("selected confirmation:\n%s", confirm.body)
	}
	sel.Set("confirm", "1")
	sel.Set("expected", "2")
	expect(t, c.post("/ui/scans/"+sc.ID+"/triage", sel), http.StatusSeeOther, "selected rows")
	if st, _ := e.st.TriageStateOf(context.Background(), fs[31].Fingerprint); st == nil || st.ExpiresAt == nil || st.ExpiresAt.Year() != 2099 {
		t.Fatalf("selected verdict: %+v", st)
	}
}

func TestAuditPageNeedsAdminAndRefusesBadCursors(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	_, writer := e.issueKey("w", "read", "write")
	_, admin := e.issueKey("boss", "admin")
	c := e.client(t)
	c.login(writer)
	if p := c.get("/ui/audit"); p.status != http.StatusForbidden {
		t.Fatalf("writer sees the audit log: %d", p.status)
	}
	a := e.client(t)
	a.login(admin)
	a.get("/ui/keys")
	expect(t, a.post("/ui/keys", url.Values{"name": {"<b>ci</b>"}, "scopes": {"read"}}), http.StatusCreated, "issue key")
	p := a.get("/ui/audit")
	expect(t, p, 200, "audit page")
	checkPageSafe(t, "audit page", p.body)
	if !strings.Contains(p.body, "key.issue") || !strings.Contains(p.body, "boss") || strings.Contains(p.body, "<b>ci</b>") {
		t.Fatalf("audit page:\n%s", p.body)
	}
	bad := a.get("/ui/audit?after=nonsense")
	if bad.status != http.StatusUnprocessableEntity || !strings.Contains(bad.body, "not one the audit log handed out") {
		t.Fatalf("bad cursor: %d", bad.status)
	}
}

// TestFindingPagesJumpAndRefuseBadLinks jumps to a page number and to the
// last page, and refuses cursors and pages the console never hands out
// instead of showing page 1.
func TestFindingPagesJumpAndRefuseBadLinks(t *testing.T) {
	e := newEnv(t, envOptions{})
	var fs []finding.Finding
	for i := 0; i < 120; i++ {
		fs = append(fs, mkFinding(fmt.Sprintf("n%03d", i), finding.High, "secrets", "r", fmt.Sprintf("f%03d.go", i), 1))
	}
	sc := e.seedScan("/src/p", fs)
	c := e.client(t)
	base := "/ui/scans/" + sc.ID
	p3 := c.get(base + "?limit=25&page=3")
	expect(t, p3, 200, "page 3")
	if !strings.Contains(p3.body, "Title n050<") || !strings.Contains(p3.body, "Title n074<") || strings.Contains(p3.body, "Title n049<") || strings.Contains(p3.body, "Title n075<") {
		t.Fatal("page 3 does not hold findings 50 to 74")
	}
	if !strings.Contains(p3.body, "Page 3 of 5") {
		t.Fatal("page 3 does not say where it is")
	}
	last := c.get(base + "?limit=25&page=last")
	expect(t, last, 200, "last page")
	if !strings.Contains(last.body, "Title n119<") || !strings.Contains(last.body, "Title n100<") || strings.Contains(last.body, "Title n099<") {
		t.Fatal("the last page does not hold findings 100 to 119")
	}
	for _, bad := range []string{"?after=abc", "?before=-3", "?page=0", "?page=x", "?limit=25&page=99"} {
		p := c.get(base + bad)
		if p.status != http.StatusUnprocessableEntity || strings.Contains(p.body, "Title n000<") {
			t.Fatalf("%s: %d, or page 1 shown", bad, p.status)
		}
	}
	if p := c.get("/ui/scans?page=nope"); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("scan list with a bad page: %d", p.status)
	}
}

// TestRuleGroupsCountAndLinkToTheRows groups a scan by rule, most
// findings first, and follows one group's link to exactly its rows.
func TestRuleGroupsCountAndLinkToTheRows(t *testing.T) {
	e := newEnv(t, envOptions{})
	var fs []finding.Finding
	for i := 0; i < 7; i++ {
		fs = append(fs, mkFinding(fmt.Sprintf("pw%d", i), finding.Medium, "secrets", "generic-password", fmt.Sprintf("t%d.ts", i), 1))
	}
	for i := 0; i < 3; i++ {
		fs = append(fs, mkFinding(fmt.Sprintf("aws%d", i), finding.Critical, "secrets", "aws-access-key-id", fmt.Sprintf("a%d.ts", i), 1))
	}
	sc := e.seedScan("/src/g", fs)
	c := e.client(t)
	p := c.get("/ui/scans/" + sc.ID + "/rules")
	expect(t, p, 200, "rules page")
	checkPageSafe(t, "rules page", p.body)
	pw, aws := strings.Index(p.body, "generic-password"), strings.Index(p.body, "aws-access-key-id")
	if pw < 0 || aws < 0 || pw > aws {
		t.Fatal("the 7-finding rule is not listed before the 3-finding one")
	}
	code, body := e.apiDo("GET", "/api/v1/scans/"+sc.ID+"/rules", "", "")
	var groups []store.RuleGroup
	decodeJSON(t, body, &groups)
	if code != 200 || len(groups) != 2 || groups[0].Count != 7 || groups[1].Count != 3 || groups[1].Worst != finding.Critical {
		t.Fatalf("API rule groups: %d %+v", code, groups)
	}
	rows := c.get("/ui/scans/" + sc.ID + "?" + url.Values{"scanner": {"secrets"}, "q": {"aws-access-key-id"}}.Encode())
	if n := strings.Count(rows.body, `name="fp"`); n != 3 {
		t.Fatalf("the group's link shows %d rows, want 3", n)
	}
}

// TestBulkVerdictAcrossTargetsThroughTheConsole: on the findings across
// targets, "select all" sets one verdict on every finding the page's
// filter selects in every target's latest scan, after a confirmation that
// names the count; findings outside the filter keep theirs.
func TestBulkVerdictAcrossTargetsThroughTheConsole(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	var high, low []finding.Finding
	for _, target := range []string{"/srv/web", "/srv/api"} {
		var fs []finding.Finding
		for i := 0; i < 35; i++ {
			fs = append(fs, mkFinding(fmt.Sprintf("%s-h%d", target, i), finding.High, "secrets", "generic-password", fmt.Sprintf("h%02d.go", i), 3))
		}
		for i := 0; i < 4; i++ {
			fs = append(fs, mkFinding(fmt.Sprintf("%s-l%d", target, i), finding.Low, "secrets", "weak-hash", fmt.Sprintf("l%d.go", i), 3))
		}
		e.seedScan(target, fs)
		high, low = append(high, fs[:35]...), append(low, fs[35:]...)
	}
	_, key := e.issueKey("reviewer-bo", "read", "write")
	c := e.client(t)
	c.login(key)
	page := c.get("/ui/findings?severity=high")
	expect(t, page, http.StatusOK, "findings across targets")
	if !strings.Contains(page.body, "Select all 70 matching") || !strings.Contains(page.body, `form="bulk-form"`) {
		t.Fatalf("the findings across targets have no select-all control or no row checkboxes:\n%s", page.body)
	}
	form := url.Values{"mode": {"all"}, "severity": {"high"}, "sort": {"severity"}, "status": {"false_positive"}, "note": {"fixtures"}}
	confirm := c.post("/ui/findings/triage", form)
	expect(t, confirm, http.StatusOK, "confirmation")
	if !strings.Contains(confirm.body, "70 findings") || !strings.Contains(confirm.body, `action="/ui/findings/triage"`) {
		t.Fatalf("the confirmation does not name the count or posts elsewhere:\n%s", confirm.body)
	}
	if st, _ := e.st.TriageStateOf(context.Background(), high[0].Fingerprint); st != nil {
		t.Fatal("a verdict was set before the confirmation")
	}
	form.Set("confirm", "1")
	form.Set("expected", "70")
	done := c.post("/ui/findings/triage", form)
	expect(t, done, http.StatusSeeOther, "confirmed bulk verdict")
	if !strings.HasPrefix(done.loc, "/ui/findings?") || !strings.Contains(done.loc, "severity=high") {
		t.Fatalf("the verdict leads to %q, not back to the filtered list", done.loc)
	}
	if result := c.get(done.loc); !strings.Contains(result.body, "Verdict set on 70 findings.") {
		t.Fatalf("the result is not shown after %s", done.loc)
	}
	for _, f := range high {
		if st, _ := e.st.TriageStateOf(context.Background(), f.Fingerprint); st == nil || st.Status != "false_positive" {
			t.Fatalf("verdict of %s: %+v", f.FilePath, st)
		}
	}
	for _, f := range low {
		if st, _ := e.st.TriageStateOf(context.Background(), f.Fingerprint); st != nil {
			t.Fatalf("%s is outside the filter but got %+v", f.FilePath, st)
		}
	}
	// Ticked rows: exactly those, across both targets.
	sel := url.Values{"mode": {"selected"}, "fp": {low[0].Fingerprint, low[7].Fingerprint}, "status": {"accepted_risk"}, "expires_at": {"2099-01-01"}}
	if confirm := c.post("/ui/findings/triage", sel); !strings.Contains(confirm.body, "2 findings") {
		t.Fatalf("selected confirmation:\n%s", confirm.body)
	}
	sel.Set("confirm", "1")
	sel.Set("expected", "2")
	expect(t, c.post("/ui/findings/triage", sel), http.StatusSeeOther, "selected rows")
	for i, f := range low {
		st, _ := e.st.TriageStateOf(context.Background(), f.Fingerprint)
		if ticked := i == 0 || i == 7; ticked != (st != nil && st.Status == "accepted_risk") {
			t.Fatalf("row %d (ticked %v): %+v", i, ticked, st)
		}
	}
	if p := c.post("/ui/findings/triage", url.Values{"mode": {"selected"}, "status": {"fixed"}}); p.status != http.StatusUnprocessableEntity {
		t.Fatalf("no row ticked: %d", p.status)
	}
}
