package ui_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

// byID returns the start tag with the given id and the decoded text inside
// that element; ok is false when the page has no such element.
func byID(t *testing.T, body, id string) (tag htmlToken, text string, ok bool) {
	t.Helper()
	toks, err := tokenizeHTML(body)
	if err != nil {
		t.Fatal(err)
	}
	for i, tk := range toks {
		if v, _ := tk.attr("id"); tk.kind != "start" || v != id {
			continue
		}
		depth := 0
		var b strings.Builder
		for _, in := range toks[i+1:] {
			switch {
			case in.kind == "start" && in.name == tk.name:
				depth++
			case in.kind == "end" && in.name == tk.name:
				if depth == 0 {
					return tk, b.String(), true
				}
				depth--
			case in.kind == "text":
				b.WriteString(in.text)
			}
		}
		return tk, b.String(), true
	}
	return htmlToken{}, "", false
}

// apiProblem posts a body to the API and returns the message of the 422
// problem about field.
func apiProblem(t *testing.T, e *env, key, path, body, field string) string {
	t.Helper()
	status, resp := e.apiDo("POST", path, key, body)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("API %s: %d %s, want 422", path, status, resp)
	}
	var v struct {
		Detail []struct {
			Loc []any  `json:"loc"`
			Msg string `json:"msg"`
		} `json:"detail"`
	}
	if err := json.Unmarshal([]byte(resp), &v); err != nil {
		t.Fatal(err)
	}
	for _, d := range v.Detail {
		if len(d.Loc) > 1 && d.Loc[1] == field {
			return d.Msg
		}
	}
	t.Fatalf("API %s: no problem about %s in %s", path, field, resp)
	return ""
}

func TestSchedulesThroughTheConsole(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	_, key := e.issueKey("admin", "read", "write", "admin")
	c := e.client(t)
	c.login(key)
	ctx := context.Background()
	tree := t.TempDir()

	if p := c.get("/ui/"); !strings.Contains(p.body, `href="/ui/schedules"`) {
		t.Error("an admin's navigation has no Schedules link")
	}

	// A bad cron expression is refused with the API's own message, shown
	// next to the field; the form keeps what was typed.
	apiMsg := apiProblem(t, e, key, "/api/v1/schedules", `{"name":"nightly","target_path":"`+tree+`","scan_types":["code"],"cron":"61 * * * *"}`, "cron")
	c.get("/ui/schedules")
	form := url.Values{"name": {"nightly"}, "target_path": {tree}, "scan_types": {"code", "iac"}, "cron": {"61 * * * *"},
		"timezone": {"Europe/Berlin"}, "alert_min_severity": {"high"}, "keep_last": {"5"}, "enabled": {"1"}}
	p := c.post("/ui/schedules", form)
	expect(t, p, http.StatusUnprocessableEntity, "bad cron")
	checkPageSafe(t, "bad cron", p.body)
	if _, text, ok := byID(t, p.body, "sc-cron-err"); !ok || text != apiMsg {
		t.Errorf("cron error beside the field: %q (found %v), want the API's %q", text, ok, apiMsg)
	}
	if tag, _, _ := byID(t, p.body, "sc-cron"); !strings.Contains(func() string { v, _ := tag.attr("aria-describedby"); return v }(), "sc-cron-err") {
		t.Errorf("the cron input does not point at its error: %+v", tag.attrs)
	} else if v, _ := tag.attr("aria-invalid"); v != "true" {
		t.Errorf("the cron input is not marked invalid: %+v", tag.attrs)
	}
	for id, want := range map[string]string{"sc-name": "nightly", "sc-zone": "Europe/Berlin", "sc-keep": "5", "sc-cron": "61 * * * *"} {
		if tag, _, _ := byID(t, p.body, id); func() string { v, _ := tag.attr("value"); return v }() != want {
			t.Errorf("%s lost what was typed: %+v", id, tag.attrs)
		}
	}
	if list, _ := e.st.Schedules(ctx); len(list) != 0 {
		t.Fatalf("a refused form stored %d schedules", len(list))
	}
	// A bad time zone and a bad keep_last are refused the same way.
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("cron", "0 3 * * mon-fri")
	bad.Set("timezone", "Mars/Olympus")
	zoneMsg := apiProblem(t, e, key, "/api/v1/schedules", `{"name":"n","target_path":"`+tree+`","scan_types":["code"],"cron":"@daily","timezone":"Mars/Olympus"}`, "timezone")
	p = c.post("/ui/schedules", bad)
	if _, text, _ := byID(t, p.body, "sc-zone-err"); p.status != http.StatusUnprocessableEntity || text != zoneMsg {
		t.Errorf("bad zone: %d %q, want 422 %q", p.status, text, zoneMsg)
	}

	// A good one: created, then the list shows its next run as a time
	// the script localizes, with UTC in the tooltip.
	form.Set("cron", "30 4 * * *")
	p = c.post("/ui/schedules", form)
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.loc, "/ui/schedules/") {
		t.Fatalf("create: %d %q %s", p.status, p.loc, p.body)
	}
	list, _ := e.st.Schedules(ctx)
	if len(list) != 1 {
		t.Fatalf("%d schedules stored", len(list))
	}
	sc := list[0]
	if sc.Name != "nightly" || sc.Timezone != "Europe/Berlin" || sc.AlertMinSeverity != "high" || sc.KeepLast != 5 || !sc.Enabled ||
		strings.Join(sc.ScanTypes, ",") != "code,iac" || sc.NextRunAt == nil || p.loc != "/ui/schedules/"+sc.ID+"?done=schedule-created" {
		t.Fatalf("stored %+v, redirected to %s", sc, p.loc)
	}
	var view struct {
		NextRunAt time.Time `json:"next_run_at"`
	}
	if status, body := e.apiDo("GET", "/api/v1/schedules/"+sc.ID, key, ""); status != 200 || json.Unmarshal([]byte(body), &view) != nil {
		t.Fatalf("API view: %d %s", status, body)
	}
	p = c.get("/ui/schedules")
	expect(t, p, http.StatusOK, "schedules")
	wantISO := view.NextRunAt.UTC().Format(time.RFC3339)
	if !strings.Contains(p.body, `<time datetime="`+wantISO+`" title="`+view.NextRunAt.UTC().Format("2006-01-02 15:04:05 UTC")+`">`) {
		t.Errorf("the list does not show the next run %s as a localizable time", wantISO)
	}
	if !strings.Contains(p.body, "not run yet") || !strings.Contains(p.body, ">enabled<") {
		t.Error("the list does not say the schedule is enabled and has not run")
	}

	// Its page: disable (no next run), enable, edit.
	c.get("/ui/schedules/" + sc.ID)
	p = c.post("/ui/schedules/"+sc.ID+"/enabled", url.Values{"enabled": {"0"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("disable: %d %s", p.status, p.body)
	}
	if got, _ := e.st.ScheduleByID(ctx, sc.ID); got.Enabled || got.NextRunAt != nil {
		t.Fatalf("after disabling: enabled %v, next %v", got.Enabled, got.NextRunAt)
	}
	p = c.get("/ui/schedules/" + sc.ID + "?done=schedule-disabled")
	if _, text, _ := byID(t, p.body, "edit-h"); text != "Edit" || !strings.Contains(p.body, "none while disabled") {
		t.Error("the disabled schedule's page does not say it has no next run")
	}
	p = c.post("/ui/schedules/"+sc.ID+"/enabled", url.Values{"enabled": {"1"}})
	if got, _ := e.st.ScheduleByID(ctx, sc.ID); p.status != http.StatusSeeOther || !got.Enabled || got.NextRunAt == nil {
		t.Fatalf("enable: %d, stored %+v", p.status, got)
	}
	// An edit that leaves the target alone does not check it again: the
	// tree may be gone and the schedule can still be renamed.
	if err := os.Remove(tree); err != nil {
		t.Fatal(err)
	}
	c.get("/ui/schedules/" + sc.ID)
	edit := url.Values{"name": {"weekday mornings"}, "target_path": {tree}, "scan_types": {"iac", "code"}, "cron": {"0 6 * * mon-fri"},
		"timezone": {"Europe/Berlin"}, "alert_min_severity": {""}, "keep_last": {"0"}, "enabled": {"1"}}
	p = c.post("/ui/schedules/"+sc.ID, edit)
	if p.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", p.status, p.body)
	}
	got, _ := e.st.ScheduleByID(ctx, sc.ID)
	if got.Name != "weekday mornings" || got.Cron != "0 6 * * mon-fri" || got.AlertMinSeverity != "" || got.KeepLast != 0 {
		t.Fatalf("after editing: %+v", got)
	}
	// A bad cron on the edit form: the API's message beside the field,
	// nothing saved.
	c.get("/ui/schedules/" + sc.ID)
	edit.Set("cron", "61 * * * *")
	p = c.post("/ui/schedules/"+sc.ID, edit)
	if _, text, _ := byID(t, p.body, "sc-cron-err"); p.status != http.StatusUnprocessableEntity || text != apiMsg {
		t.Errorf("bad cron on edit: %d %q", p.status, text)
	}
	if again, _ := e.st.ScheduleByID(ctx, sc.ID); again.Cron != "0 6 * * mon-fri" {
		t.Errorf("a refused edit changed the cron to %q", again.Cron)
	}

	// Run history links to the scans a run started, and says why one did
	// not start; the list shows the last outcome.
	started, err := e.st.RecordScheduleRun(ctx, store.ScheduleRunRecord{ScheduleID: sc.ID, Due: *got.NextRunAt, Next: got.NextRunAt,
		Run:  store.ScheduleRun{ScheduledFor: *got.NextRunAt, Outcome: store.RunStarted},
		Scan: &store.Scan{ID: store.NewID(), TargetPath: tree, ScanTypes: []string{"code"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.RecordScheduleRun(ctx, store.ScheduleRunRecord{ScheduleID: sc.ID, Due: *got.NextRunAt, Next: got.NextRunAt,
		Run: store.ScheduleRun{ScheduledFor: *got.NextRunAt, Outcome: store.RunFailed, Reason: "target_path must be an existing directory"}}); err != nil {
		t.Fatal(err)
	}
	p = c.get("/ui/schedules/" + sc.ID)
	if !strings.Contains(p.body, `href="/ui/scans/`+started.ScanID+`"`) || !strings.Contains(p.body, "target_path must be an existing directory") {
		t.Errorf("the run history lacks the started scan or the failure's reason")
	}
	p = c.get("/ui/schedules")
	if !strings.Contains(p.body, "outcome-failed") {
		t.Error("the list does not show the last run's outcome")
	}
	// The scan a schedule started names it.
	if p := c.get("/ui/scans/" + started.ScanID); !strings.Contains(p.body, `href="/ui/schedules/`+sc.ID+`"`) {
		t.Error("a scheduled scan's page does not link its schedule")
	}

	// Delete: gone, with its runs; the scan stays.
	c.get("/ui/schedules/" + sc.ID)
	p = c.post("/ui/schedules/"+sc.ID+"/delete", nil)
	if p.status != http.StatusSeeOther || p.loc != "/ui/schedules?done=schedule-deleted" {
		t.Fatalf("delete: %d %q", p.status, p.loc)
	}
	if _, err := e.st.ScheduleByID(ctx, sc.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after deleting: %v", err)
	}
	if _, err := e.st.ScanByID(ctx, started.ScanID); err != nil {
		t.Fatalf("deleting the schedule lost its scan: %v", err)
	}
	expect(t, c.get("/ui/schedules/"+sc.ID), http.StatusNotFound, "deleted schedule")
}

func TestReadAndWriteKeysSeeNoSchedules(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	f := seedFixture(t, e)
	for _, scopes := range [][]string{{"read"}, {"read", "write"}} {
		_, key := e.issueKey("k", scopes...)
		c := e.client(t)
		c.login(key)
		if p := c.get("/ui/"); strings.Contains(p.body, `href="/ui/schedules"`) {
			t.Errorf("%v: the navigation links the admin-only schedules page", scopes)
		}
		expect(t, c.get("/ui/schedules/"+f.scheduleID), http.StatusForbidden, "schedule page")
	}
}

func TestScanPageShowsTargetsAndAdvisoryData(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	c := e.client(t)
	complete := func(sc store.Scan, fs []finding.Finding) {
		t.Helper()
		if err := e.st.MarkScanRunning(ctx, sc.ID); err != nil {
			t.Fatal(err)
		}
		if err := e.st.CompleteScan(ctx, sc.ID, store.ScanResult{Findings: fs, SeverityCounts: map[string]int{}}); err != nil {
			t.Fatal(err)
		}
	}
	archive := filepath.Join(t.TempDir(), "web.tar")
	img, err := e.st.CreateScanWithTarget(ctx, store.Scan{ID: store.NewID(), TargetPath: archive, ScanTypes: []string{"code"}, StartedAt: time.Now().UTC()},
		`{"image":{"path":"`+archive+`"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetScanTargetResolved(ctx, img.ID, `{"image":{"digest":"sha256:`+strings.Repeat("ab", 32)+`","tags":["shop/web:3"],"os":"linux","architecture":"arm64/v8","format":"docker-archive","layers":["sha256:1"]}}`); err != nil {
		t.Fatal(err)
	}
	built := time.Now().Add(-90 * 24 * time.Hour).UTC().Truncate(time.Second)
	age := 90.0
	warning := "osv/Go data of osv-scanner is 90 days old (built " + built.Format("2006-01-02") + "; SVC_VULNDB_MAX_AGE_DAYS=30): advisories published since are not checked"
	if err := e.st.SetScanDataSources(ctx, img.ID, []store.ScanDataSource{{Name: "osv/Go", Tool: "osv-scanner", Path: "/x", Source: "imported",
		BuiltAt: &built, AgeDays: &age, Stale: true, Warning: warning}}); err != nil {
		t.Fatal(err)
	}
	live := mkFinding("live", finding.High, "secrets", "r1", "a.go", 1)
	hidden := mkFinding("ignored", finding.Critical, "secrets", "r2", "b.go", 2)
	hidden.Metadata["suppressed_by"] = "scand:ignore r2"
	complete(img, []finding.Finding{hidden, live})

	p := c.get("/ui/scans/" + img.ID)
	expect(t, p, http.StatusOK, "image scan")
	checkPageSafe(t, "image scan", p.body)
	for _, want := range []string{"sha256:" + strings.Repeat("ab", 32), "shop/web:3", "linux/arm64/v8", "docker-archive", archive,
		"1 suppressed", "Warning: the result may be incomplete", "osv/Go", ">Stale<"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the image scan's page lacks %q", want)
		}
	}
	if !strings.Contains(p.body, htmlText(warning)) {
		t.Errorf("the page does not show the summary's warning %q", warning)
	}
	// The summary's counts are the live ones, as the API's summary says.
	if _, text, _ := byID(t, p.body, "summary-h"); text != "Summary" {
		t.Fatal("no summary")
	}

	repo, err := e.st.CreateScanWithTarget(ctx, store.Scan{ID: store.NewID(), TargetPath: "https://git.corp.example/shop.git", ScanTypes: []string{"code"}, StartedAt: time.Now().UTC()},
		`{"repo":{"url":"https://git.corp.example/shop.git","ref":"release/2","history":true}}`)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetScanTargetResolved(ctx, repo.ID, `{"repo":{"commit":"`+strings.Repeat("c", 40)+`"}}`); err != nil {
		t.Fatal(err)
	}
	complete(repo, nil)
	p = c.get("/ui/scans/" + repo.ID)
	for _, want := range []string{"https://git.corp.example/shop.git", "release/2", "whole history", strings.Repeat("c", 40), "none suppressed"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the repository scan's page lacks %q", want)
		}
	}
	if strings.Contains(p.body, "Warning: the result may be incomplete") {
		t.Error("a scan without stale data shows a warning")
	}
}

// htmlText is text as html/template writes it into a page.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace(s)
}

func TestStartScanTargetKindsUseTheAPIsChecks(t *testing.T) {
	root := t.TempDir()
	e := newEnv(t, envOptions{ScanRoots: []string{root}})
	ctx := context.Background()
	c := e.client(t)
	archive := filepath.Join(root, "web.tar")
	if err := os.WriteFile(archive, []byte("not unpacked before the scan runs"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "other.tar")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		form   url.Values
		api    string
		status int
	}{
		{"image outside the roots", url.Values{"target_kind": {"image"}, "target_path": {outside}, "scan_types": {"code"}},
			`{"target_image":{"path":"` + outside + `"},"scan_types":["code"]}`, http.StatusForbidden},
		{"image that is not there", url.Values{"target_kind": {"image"}, "target_path": {filepath.Join(root, "nope.tar")}, "scan_types": {"code"}},
			`{"target_image":{"path":"` + filepath.Join(root, "nope.tar") + `"},"scan_types":["code"]}`, http.StatusUnprocessableEntity},
		{"repository over a scheme not allowed", url.Values{"target_kind": {"repository"}, "target_path": {"file:///etc/y.git"}, "scan_types": {"code"}},
			`{"target_repo":{"url":"file:///etc/y.git"},"scan_types":["code"]}`, http.StatusUnprocessableEntity},
		{"repository ref that is an option", url.Values{"target_kind": {"repository"}, "target_path": {"https://git.example/y.git"}, "repo_ref": {"--upload-pack=x"}, "scan_types": {"code"}},
			`{"target_repo":{"url":"https://git.example/y.git","ref":"--upload-pack=x"},"scan_types":["code"]}`, http.StatusUnprocessableEntity},
		{"repository URL with a password", url.Values{"target_kind": {"repository"}, "target_path": {"https://u:p@git.example/y.git"}, "scan_types": {"code"}},
			`{"target_repo":{"url":"https://u:p@git.example/y.git"},"scan_types":["code"]}`, http.StatusUnprocessableEntity},
	}
	for _, tc := range cases {
		status, body := e.apiDo("POST", "/api/v1/scans", "", tc.api)
		if status != tc.status {
			t.Fatalf("%s: API %d %s", tc.name, status, body)
		}
		var detail struct {
			Detail json.RawMessage `json:"detail"`
		}
		json.Unmarshal([]byte(body), &detail)
		var msgs []string
		var list []struct {
			Msg string `json:"msg"`
		}
		var one string
		if json.Unmarshal(detail.Detail, &list) == nil {
			for _, d := range list {
				msgs = append(msgs, d.Msg)
			}
		} else if json.Unmarshal(detail.Detail, &one) == nil {
			msgs = append(msgs, one)
		}
		c.get("/ui/scans")
		p := c.post("/ui/scans", tc.form)
		if p.status != tc.status {
			t.Errorf("%s: console %d, API %d", tc.name, p.status, tc.status)
		}
		for _, m := range msgs {
			if !strings.Contains(p.body, htmlText(m)) {
				t.Errorf("%s: the console does not show the API's %q", tc.name, m)
			}
		}
		if strings.Contains(p.body, "u:p@") {
			t.Errorf("%s: the page repeats the credentials", tc.name)
		}
	}
	// A good image path is stored as an image target, like the API's.
	c.get("/ui/scans")
	p := c.post("/ui/scans", url.Values{"target_kind": {"image"}, "target_path": {archive}, "scan_types": {"code"}})
	if p.status != http.StatusSeeOther || !strings.HasPrefix(p.loc, "/ui/scans/") {
		t.Fatalf("image scan: %d %s", p.status, p.body)
	}
	id := strings.TrimPrefix(p.loc, "/ui/scans/")
	spec, ok, err := e.st.ScanTargetSpec(ctx, id)
	if err != nil || !ok || !strings.Contains(spec, `"image"`) || !strings.Contains(spec, archive) {
		t.Fatalf("stored target %q %v %v", spec, ok, err)
	}
	// The picker offers image archives (files) when asked for one, and
	// sends the choice back with the kind.
	p = c.get("/ui/browse?for=image&path=" + url.QueryEscape(root))
	want := "/ui/scans?" + url.Values{"kind": {"image"}, "target_path": {archive}}.Encode() + "#start"
	if !strings.Contains(p.body, htmlText(want)) {
		t.Errorf("the image picker does not offer %s", want)
	}
	p = c.get("/ui/scans?" + url.Values{"kind": {"image"}, "target_path": {archive}}.Encode())
	if tag, _, _ := byID(t, p.body, "target_path"); func() string { v, _ := tag.attr("value"); return v }() != archive ||
		!strings.Contains(p.body, `<option value="image" selected>`) {
		t.Error("the start form is not filled in with the chosen image")
	}
}

func TestOverviewShowsAdvisoryDataAge(t *testing.T) {
	gov, trivy := t.TempDir(), t.TempDir()
	write := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(gov, "index", "db.json"), `{"modified":"`+time.Now().Add(-100*24*time.Hour).UTC().Format(time.RFC3339)+`"}`)
	write(filepath.Join(trivy, "db", "trivy.db"), "x")
	write(filepath.Join(trivy, "db", "metadata.json"), `{"UpdatedAt":"`+time.Now().Add(-36*time.Hour).UTC().Format(time.RFC3339)+`"}`)
	e := newEnv(t, envOptions{VulnDBEnv: map[string]string{"SVC_GOVULN_DB": gov, "SVC_TRIVY_CACHE": trivy}, VulnDBMaxAge: 30 * 24 * time.Hour})
	status, body := e.apiDo("GET", "/api/v1/dashboard/status", "", "")
	var st struct {
		VulnDB []struct {
			Name    string   `json:"name"`
			AgeDays *float64 `json:"age_days"`
			Stale   bool     `json:"stale"`
		} `json:"vulndb"`
	}
	if status != 200 || json.Unmarshal([]byte(body), &st) != nil || len(st.VulnDB) != 2 {
		t.Fatalf("dashboard status: %d %s", status, body)
	}
	p := e.client(t).get("/ui/")
	expect(t, p, http.StatusOK, "overview")
	_, text, ok := byID(t, p.body, "vulndb-h")
	if !ok || text != "Advisory databases" {
		t.Fatal("the overview has no advisory data section")
	}
	toks, _ := tokenizeHTML(p.body)
	rows := map[string]string{}
	var cur []string
	inRow := false
	for _, tk := range toks {
		switch {
		case tk.kind == "start" && tk.name == "tr":
			inRow, cur = true, nil
		case tk.kind == "end" && tk.name == "tr" && inRow:
			inRow = false
			if len(cur) > 0 {
				rows[strings.Fields(cur[0])[0]] = strings.Join(cur, "|")
			}
		case tk.kind == "text" && inRow && strings.TrimSpace(tk.text) != "":
			cur = append(cur, strings.TrimSpace(tk.text))
		}
	}
	for _, db := range st.VulnDB {
		row, ok := rows[db.Name]
		if !ok {
			t.Errorf("the overview does not list %s", db.Name)
			continue
		}
		// Stale is said in words, never by colour alone.
		if db.Stale != strings.Contains(row, "Stale: older than 30 days") {
			t.Errorf("%s: API stale %v, overview row %q", db.Name, db.Stale, row)
		}
	}
	if !strings.Contains(p.body, "1 stale:") {
		t.Error("the overview does not count the stale database")
	}
}
