package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

// whoSpans returns the visible text of every element whose title is
// "key id <id>".
func whoSpans(t *testing.T, body, keyID string) []string {
	t.Helper()
	toks, err := tokenizeHTML(body)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, tk := range toks {
		if title, _ := tk.attr("title"); tk.kind == "start" && title == "key id "+keyID && i+1 < len(toks) && toks[i+1].kind == "text" {
			out = append(out, toks[i+1].text)
		}
	}
	return out
}

// textOutsideTitles is a page's text and attribute values except title
// attributes: what a person reads without hovering.
func textOutsideTitles(t *testing.T, body string) string {
	toks, err := tokenizeHTML(body)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tk := range toks {
		b.WriteString(tk.text + "\n")
		for _, a := range tk.attrs {
			if a.name != "title" && a.name != "href" && a.name != "value" && a.name != "action" {
				b.WriteString(a.value + "\n")
			}
		}
	}
	return b.String()
}

// TestConsoleNamesKeysByName: wherever the console says who did something
// (verdicts, acceptances, their history, comments, the scan's starter,
// the schedule's creator, the audit log, the signed-in key) it shows the
// key's name with the id in a tooltip, never the bare id; dev mode and
// scand's own changes read as they are, and a client's free-text name
// stays text even when it looks like "name (id)".
func TestConsoleNamesKeysByName(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	ctx := context.Background()
	keyID, key := e.issueKey("alice", "read", "write", "admin")
	sc, err := e.st.CreateScan(ctx, store.Scan{ID: store.NewID(), TargetPath: "/srv/who", ScanTypes: []string{"code"}, StartedAt: time.Now().UTC().Truncate(time.Microsecond), CreatedBy: keyID})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.MarkScanRunning(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	f := mkFinding("who", finding.High, "secrets", "generic-api-key", "a.go", 1)
	if err := e.st.CompleteScan(ctx, sc.ID, store.ScanResult{Findings: []finding.Finding{f}, ScannersRun: []string{"secrets"}, SeverityCounts: map[string]int{"high": 1}}); err != nil {
		t.Fatal(err)
	}
	// An older verdict signed with the bare key id, one by scand itself,
	// and a comment whose author a client typed to look like a key.
	for _, st := range []store.TriageState{{Note: "signed with the id", UpdatedBy: keyID}, {Note: "signed by scand", UpdatedBy: "system"}} {
		st.Fingerprint, st.Status = f.Fingerprint, "triaged"
		if _, err := e.st.SetTriage(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.st.AddComment(ctx, store.Comment{Fingerprint: f.Fingerprint, Text: "typed", Author: "mallory (not-a-key)"}); err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(time.Hour).UTC().Truncate(time.Minute)
	sched, err := e.st.CreateSchedule(ctx, store.Schedule{ID: store.NewID(), Name: "nightly", TargetPath: t.TempDir(), ScanTypes: []string{"code"},
		Cron: "0 3 * * *", Timezone: "UTC", Enabled: true, NextRunAt: &next, CreatedBy: keyID})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client(t)
	c.login(key)
	expiry := time.Now().AddDate(0, 1, 0).UTC().Format("2006-01-02")
	expect(t, c.post("/ui/findings/"+f.Fingerprint+"/triage", url.Values{"status": {"accepted_risk"}, "note": {"accepted"}, "expires_at": {expiry}}), http.StatusSeeOther, "accept")
	expect(t, c.post("/ui/findings/"+f.Fingerprint+"/comments", url.Values{"text": {"looked at it"}}), http.StatusSeeOther, "comment")

	page := c.get("/ui/findings/" + f.Fingerprint)
	expect(t, page, http.StatusOK, "finding page")
	// Current verdict, three history entries by alice (two signed
	// "alice (id)", one with the bare id), the comment, the header.
	if got := whoSpans(t, page.body, keyID); len(got) != 5 || strings.Join(got, ",") != "alice,alice,alice,alice,alice" {
		t.Fatalf("alice is named %d times (%q), want 5 (header, current verdict, 2 history entries, comment)", len(got), got)
	}
	text := textOutsideTitles(t, page.body)
	if strings.Contains(text, keyID) {
		i := strings.Index(text, keyID)
		t.Fatalf("the finding page shows the bare key id %s outside a tooltip: %q", keyID, text[max(0, i-300):i+50])
	}
	if !strings.Contains(text, "mallory (not-a-key)") || !strings.Contains(text, "\nsystem\n") {
		t.Fatal("free text and scand's own changes are not shown as they are")
	}

	for _, path := range []string{"/ui/scans/" + sc.ID, "/ui/schedules/" + sched.ID, "/ui/audit"} {
		page := c.get(path)
		expect(t, page, http.StatusOK, path)
		if got := whoSpans(t, page.body, keyID); len(got) < 2 || got[1] != "alice" {
			t.Fatalf("%s names alice %q, want the header and at least one actor", path, got)
		}
		// The audit log names keys as objects too (key.create), so only
		// its actor column is checked above.
		if strings.Contains(textOutsideTitles(t, page.body), keyID) && path != "/ui/audit" {
			t.Fatalf("%s shows the bare key id outside a tooltip", path)
		}
	}
}

// TestScanListsShowUniqueShortIDs: scan ids are time-ordered, so scans
// started together share their first 8 characters; a list shows enough of
// each to tell them apart.
func TestScanListsShowUniqueShortIDs(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	// Ids as NewID makes them within a few milliseconds: they share 34
	// characters, so 35 tell them apart.
	var ids []string
	for i := 0; i < 5; i++ {
		id := "0190a1b2-c3d4-7abc-8def-0000000000" + string(rune('a'+i)) + "0"
		if _, err := e.st.CreateScan(ctx, store.Scan{ID: id, TargetPath: "/srv/same", ScanTypes: []string{"code"}, StartedAt: time.Now().UTC().Truncate(time.Microsecond)}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	c := e.client(t)
	for _, path := range []string{"/ui/scans", "/ui/"} {
		page := c.get(path)
		expect(t, page, http.StatusOK, path)
		toks, err := tokenizeHTML(page.body)
		if err != nil {
			t.Fatal(err)
		}
		shown := map[string]string{}
		for i, tk := range toks {
			href, _ := tk.attr("href")
			if tk.kind != "start" || tk.name != "a" || !strings.HasPrefix(href, "/ui/scans/") || i+2 >= len(toks) || toks[i+1].name != "code" {
				continue
			}
			id, text := strings.TrimPrefix(href, "/ui/scans/"), toks[i+2].text
			if !strings.HasPrefix(id, text) || len(text) != 35 {
				t.Fatalf("%s: scan %s shown as %q", path, id, text)
			}
			if other, dup := shown[text]; dup && other != id {
				t.Fatalf("%s: scans %s and %s both shown as %q", path, id, other, text)
			}
			shown[text] = id
		}
		if len(shown) != len(ids) {
			t.Fatalf("%s lists %d scans by short id, want %d", path, len(shown), len(ids))
		}
	}
}
