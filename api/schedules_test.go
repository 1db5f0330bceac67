package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scand/store"
)

// scheduleJSON is a schedule view as a client decodes it, with times kept
// as the strings on the wire.
type scheduleJSON struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	TargetPath       string   `json:"target_path"`
	ScanTypes        []string `json:"scan_types"`
	TargetURL        *string  `json:"target_url"`
	Cron             string   `json:"cron"`
	Timezone         string   `json:"timezone"`
	Enabled          bool     `json:"enabled"`
	AlertMinSeverity *string  `json:"alert_min_severity"`
	KeepLast         *int     `json:"keep_last"`
	NextRunAt        *string  `json:"next_run_at"`
	LastRunAt        *string  `json:"last_run_at"`
}

func TestScheduleLifecycleOverHTTP(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{}) // clock: 2026-01-02T03:04:05Z
	_, admin := e.issueKey("admin")
	_, write := e.issueKey("read", "write")
	dir := t.TempDir()
	body := fmt.Sprintf(`{"name":"nightly","target_path":%q,"scan_types":["code","dependency"],"cron":"0 2 * * *","timezone":"Europe/Berlin","keep_last":7}`, dir)

	// Admin scope only, on both prefixes.
	for _, prefix := range []string{"/api/v1", "/api"} {
		e.expectStatus(e.do("POST", prefix+"/schedules", body, "X-API-Key", write), http.StatusForbidden)
		e.expectStatus(e.do("GET", prefix+"/schedules", "", "X-API-Key", write), http.StatusForbidden)
	}

	rec := e.do("POST", "/api/v1/schedules", body, "X-API-Key", admin)
	e.expectStatus(rec, http.StatusCreated)
	var sc scheduleJSON
	e.decode(rec, &sc)
	if sc.Name != "nightly" || sc.TargetPath != dir || strings.Join(sc.ScanTypes, ",") != "code,dependency" || sc.Timezone != "Europe/Berlin" ||
		!sc.Enabled || sc.AlertMinSeverity != nil || sc.KeepLast == nil || *sc.KeepLast != 7 || sc.LastRunAt != nil || sc.TargetURL != nil {
		t.Fatalf("created = %s", rec.Body)
	}
	// 02:00 in Berlin is 01:00 UTC; it is 03:04 UTC on 2 January.
	if sc.NextRunAt == nil || *sc.NextRunAt != "2026-01-03T01:00:00Z" {
		t.Fatalf("next_run_at = %v, want 2026-01-03T01:00:00Z", sc.NextRunAt)
	}

	rec = e.do("GET", "/api/v1/schedules", "", "X-API-Key", admin)
	e.expectStatus(rec, http.StatusOK)
	var list []scheduleJSON
	e.decode(rec, &list)
	if len(list) != 1 || list[0].ID != sc.ID {
		t.Fatalf("list = %s", rec.Body)
	}
	e.expectStatus(e.do("GET", "/api/v1/schedules/"+sc.ID, "", "X-API-Key", admin), http.StatusOK)

	// A new expression recomputes next_run_at; severity and keep_last can
	// be reset with "" and 0.
	rec = e.do("PATCH", "/api/v1/schedules/"+sc.ID, `{"cron":"@hourly","alert_min_severity":"medium"}`, "X-API-Key", admin)
	e.expectStatus(rec, http.StatusOK)
	e.decode(rec, &sc)
	if sc.Cron != "@hourly" || *sc.NextRunAt != "2026-01-02T04:00:00Z" || sc.AlertMinSeverity == nil || *sc.AlertMinSeverity != "medium" || sc.Name != "nightly" {
		t.Fatalf("patched = %s", rec.Body)
	}
	rec = e.do("PATCH", "/api/v1/schedules/"+sc.ID, `{"alert_min_severity":"","keep_last":0,"enabled":false}`, "X-API-Key", admin)
	e.expectStatus(rec, http.StatusOK)
	e.decode(rec, &sc)
	if sc.AlertMinSeverity != nil || sc.KeepLast != nil || sc.Enabled || sc.NextRunAt != nil {
		t.Fatalf("reset and disabled = %s", rec.Body)
	}
	if !strings.Contains(rec.Body.String(), `"next_run_at":null`) {
		t.Fatalf("a disabled schedule must show next_run_at null: %s", rec.Body)
	}

	// Runs: a recorded run shows its scan and the scan's live status.
	st := e.store
	due := e.clock.Now()
	if _, err := st.UpdateSchedule(t.Context(), sc.ID, func(s *store.Schedule) error { s.Enabled, s.NextRunAt = true, &due; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordScheduleRun(t.Context(), store.ScheduleRunRecord{ScheduleID: sc.ID, Due: due, Next: &due,
		Run: store.ScheduleRun{ScheduledFor: due, Outcome: store.RunStarted}, Scan: &store.Scan{ID: "scan-1", TargetPath: dir, ScanTypes: []string{"code"}}}); err != nil {
		t.Fatal(err)
	}
	rec = e.do("GET", "/api/v1/schedules/"+sc.ID+"/runs", "", "X-API-Key", admin)
	e.expectStatus(rec, http.StatusOK)
	var runs []map[string]any
	e.decode(rec, &runs)
	if len(runs) != 1 || runs[0]["scan_id"] != "scan-1" || runs[0]["status"] != "pending" || runs[0]["outcome"] != "started" || runs[0]["scheduled_for"] != "2026-01-02T03:04:05Z" {
		t.Fatalf("runs = %s", rec.Body)
	}
	e.expectStatus(e.do("GET", "/api/v1/schedules/"+sc.ID+"/runs?limit=501", "", "X-API-Key", admin), http.StatusUnprocessableEntity)
	rec = e.do("GET", "/api/v1/scans/scan-1", "", "X-API-Key", admin)
	e.expectStatus(rec, http.StatusOK)
	if !strings.Contains(rec.Body.String(), `"schedule_id":"`+sc.ID+`"`) {
		t.Fatalf("scan view without schedule_id: %s", rec.Body)
	}

	// Delete keeps the scan.
	e.expectStatus(e.do("DELETE", "/api/v1/schedules/"+sc.ID, "", "X-API-Key", admin), http.StatusNoContent)
	for _, path := range []string{"/schedules/" + sc.ID, "/schedules/" + sc.ID + "/runs"} {
		rec = e.do("GET", "/api/v1"+path, "", "X-API-Key", admin)
		e.expectStatus(rec, http.StatusNotFound)
		if d := e.detail(rec); d != "Schedule not found" {
			t.Fatalf("404 detail %q", d)
		}
	}
	e.expectStatus(e.do("DELETE", "/api/v1/schedules/"+sc.ID, "", "X-API-Key", admin), http.StatusNotFound)
	e.expectStatus(e.do("PATCH", "/api/v1/schedules/"+sc.ID, `{"name":"x"}`, "X-API-Key", admin), http.StatusNotFound)
	e.expectStatus(e.do("GET", "/api/v1/scans/scan-1", "", "X-API-Key", admin), http.StatusOK)
}

func TestScheduleValidationIs422NamingTheField(t *testing.T) {
	e := newAPIEnv(t, apiEnvOptions{})
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("x"), 0o644)
	base := map[string]any{"name": "n", "target_path": dir, "scan_types": []string{"code"}, "cron": "@daily"}
	with := func(k string, v any) string {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := []struct {
		name, body, loc, msg string
	}{
		{"missing cron", with("cron", nil), `["body","cron"]`, "Field required"},
		{"missing name", with("name", nil), `["body","name"]`, "Field required"},
		{"missing scan types", with("scan_types", nil), `["body","scan_types"]`, "Field required"},
		{"bad minute", with("cron", "60 * * * *"), `["body","cron"]`, `minute field \"60\": 60 is out of range (accepts 0-59)`},
		{"four fields", with("cron", "* * * *"), `["body","cron"]`, "expected 5 fields"},
		{"unknown macro", with("cron", "@sometimes"), `["body","cron"]`, "unknown macro"},
		{"bad month name", with("cron", "0 0 1 JANUARY *"), `["body","cron"]`, "month field"},
		{"unknown zone", with("timezone", "Europe/Atlantis"), `["body","timezone"]`, `unknown time zone \"Europe/Atlantis\"`},
		{"bad severity", with("alert_min_severity", "urgent"), `["body","alert_min_severity"]`, "one of critical"},
		{"negative keep_last", with("keep_last", -3), `["body","keep_last"]`, "keep_last must be"},
		{"file target", with("target_path", file), `["body","target_path"]`, "existing directory"},
		{"unknown scan type", with("scan_types", []string{"code", "fuzz"}), `["body","scan_types",1]`, "one of code"},
		{"cron of the wrong type", with("cron", 5), `["body","cron"]`, "valid string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := e.with(t).do("POST", "/api/v1/schedules", c.body)
			if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"loc":`+c.loc) || !strings.Contains(rec.Body.String(), c.msg) {
				t.Fatalf("%d %s; want 422 with loc %s and %q", rec.Code, rec.Body, c.loc, c.msg)
			}
			e.with(t).validationErrors(rec)
		})
	}
	// A PATCH is validated the same way.
	rec := e.do("POST", "/api/v1/schedules", with("name", "ok"))
	e.expectStatus(rec, http.StatusCreated)
	var sc scheduleJSON
	e.decode(rec, &sc)
	rec = e.do("PATCH", "/api/v1/schedules/"+sc.ID, `{"cron":"0 25 * * *","timezone":"Nowhere/Else"}`)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `["body","cron"]`) || !strings.Contains(rec.Body.String(), `["body","timezone"]`) ||
		!strings.Contains(rec.Body.String(), "hour field") {
		t.Fatalf("bad patch: %d %s", rec.Code, rec.Body)
	}
}

func TestScheduleTargetOutsideScanRoots(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "repo")
	os.Mkdir(inside, 0o755)
	escape := filepath.Join(root, "escape")
	if err := os.Symlink(t.TempDir(), escape); err != nil {
		t.Fatal(err)
	}
	h := newScanHarness(t, lifecycleRegistry(), func(d *Deps) { d.ScanRoots = []string{root} })
	for _, c := range []struct {
		path string
		want int
	}{{inside, 201}, {escape, 403}} {
		code, out, _ := h.do("POST", "/api/v1/schedules", map[string]any{"name": "n", "target_path": c.path, "scan_types": []string{"code"}, "cron": "@daily"})
		if code != c.want {
			t.Errorf("target %s: %d %s, want %d", c.path, code, out, c.want)
		}
	}
}
