package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"scand/store"
)

// TestBinaryUpgradesPreviousRelease starts this binary on a copy of a
// database the previous release wrote (testdata/upgrade/make-fixture.sh):
// it migrates the file and serves, through the API, every scan, verdict,
// comment, key, webhook and schedule the old release stored.
func TestBinaryUpgradesPreviousRelease(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "upgrade", "scand-0.11.0-805e91b.db"))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "scand.db")
	if err := os.WriteFile(db, src, 0o600); err != nil {
		t.Fatal(err)
	}
	// What the old release stored, read behind its back.
	old, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	strs := func(q string) [][]string {
		rows, err := old.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]string
		for rows.Next() {
			vals := make([]string, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, vals)
		}
		return out
	}
	scans := strs("SELECT id, status, findings_count FROM scans ORDER BY seq")
	verdicts := strs("SELECT fingerprint, status, note FROM triage_states ORDER BY fingerprint")
	comments := strs("SELECT fingerprint, text FROM finding_comments ORDER BY seq")
	keys := strs("SELECT name FROM api_keys ORDER BY name")
	hooks := strs("SELECT name FROM webhooks")
	schedules := strs("SELECT name FROM schedules")
	old.Close()
	if len(scans) == 0 || len(verdicts) == 0 || len(comments) == 0 || len(keys) == 0 || len(hooks) == 0 || len(schedules) == 0 {
		t.Fatal("the fixture lacks scans, verdicts, comments, keys, webhooks or schedules: it would prove nothing")
	}

	const admin = "upgrade-test-admin-key-0123456789"
	p := startScand(t, map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": db, "SVC_API_KEY": admin})
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	base := "http://" + addr + "/api/v1"
	for _, sc := range scans {
		var got struct {
			Status string `json:"status"`
		}
		var findings []struct{ Fingerprint string }
		code := keyCall(t, "GET", base+"/scans/"+sc[0], admin, "", &got)
		keyCall(t, "GET", base+"/scans/"+sc[0]+"/findings?limit=5000", admin, "", &findings)
		if code != 200 || got.Status != sc[1] || fmt.Sprint(len(findings)) != sc[2] {
			t.Errorf("scan %s after the upgrade: %d %+v with %d findings, want %s with %s findings", sc[0], code, got, len(findings), sc[1], sc[2])
		}
	}
	for _, v := range verdicts {
		var history []store.TriageState
		if code := keyCall(t, "GET", base+"/findings/"+v[0]+"/history", admin, "", &history); code != 200 || len(history) == 0 ||
			history[len(history)-1].Status != v[1] || history[len(history)-1].Note != v[2] {
			t.Errorf("verdict of %s after the upgrade: %d %+v, want %s %q", v[0], code, history, v[1], v[2])
		}
	}
	for _, c := range comments {
		var got []store.Comment
		keyCall(t, "GET", base+"/findings/"+c[0]+"/comments", admin, "", &got)
		found := false
		for _, g := range got {
			found = found || g.Text == c[1]
		}
		if !found {
			t.Errorf("comment %q on %s lost in the upgrade: %+v", c[1], c[0], got)
		}
	}
	names := func(path string) map[string]bool {
		var items []struct{ Name string }
		if code := keyCall(t, "GET", base+path, admin, "", &items); code != 200 {
			t.Fatalf("GET %s: %d", path, code)
		}
		out := map[string]bool{}
		for _, i := range items {
			out[i.Name] = true
		}
		return out
	}
	for path, want := range map[string][][]string{"/keys": keys, "/webhooks": hooks, "/schedules": schedules} {
		got := names(path)
		for _, w := range want {
			if !got[w[0]] {
				t.Errorf("GET %s after the upgrade lacks %q: %v", path, w[0], got)
			}
		}
	}
	m := scrapeMetricsKey(t, addr, admin, "scand_database_schema_version")
	if m != fmt.Sprint(store.SchemaVersion()) {
		t.Errorf("scand_database_schema_version %q after the upgrade, want %d", m, store.SchemaVersion())
	}
}

// scrapeMetricsKey reads one series' value from /metrics with a key.
func scrapeMetricsKey(t *testing.T, addr, key, series string) string {
	t.Helper()
	code, body := getRawKey(t, "http://"+addr+"/metrics", key)
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	return metricLineValue(string(body), series)
}
