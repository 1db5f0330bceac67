package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestBulkVerdictInHeadlessChromium is the reviewer's flow in a real
// browser: filter a scan to its 70 generic-password findings, "Select all
// 70 matching", set false positive in one confirmation that names the
// count, and see the result; every finding then has the verdict and one
// history entry, and the audit log names the key.
func TestBulkVerdictInHeadlessChromium(t *testing.T) {
	chromium := findChromiumBinary()
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium not installed; apt-get install chromium to run this test")
	}
	root := t.TempDir()
	for i := 0; i < 70; i++ {
		writeFiles(t, root, map[string]string{fmt.Sprintf("test/api/case%02d.test.ts", i): fmt.Sprintf("const password = \"Qz7mR2vK9pL4xW%02dTb8\";\n", i)})
	}
	writeFiles(t, root, map[string]string{"src/app.ts": "export const x = 1;\n"})
	env := baseEnv(t)
	env["SVC_AUTH_REQUIRED"], env["SVC_API_KEY"], env["SVC_EVENT_TOKEN_SECRET"] = "1", "browser-bulk-env-key-0123456789", "event-secret"
	env["HOME"] = t.TempDir()
	admin := env["SVC_API_KEY"]
	p := startScand(t, env)
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	origin := "http://" + addr

	var key struct{ ID, Key string }
	if code := reviewCall(t, admin, "POST", origin+"/api/v1/keys", map[string]any{"name": "browser-reviewer", "scopes": []string{"read", "write"}}, &key); code != 201 {
		t.Fatalf("issue key: %d", code)
	}
	var sc struct{ ID, Status string }
	reviewCall(t, key.Key, "POST", origin+"/api/v1/scans", map[string]any{"target_path": root, "scan_types": []string{"code"}}, &sc)
	for deadline := time.Now().Add(3 * time.Minute); sc.Status != "completed" && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		reviewCall(t, key.Key, "GET", origin+"/api/v1/scans/"+sc.ID, nil, &sc)
	}
	if sc.Status != "completed" {
		t.Fatalf("scan %s", sc.Status)
	}

	b := startBrowser(t, chromium, origin)
	b.open()
	b.navigate("/ui/")
	b.act(fmt.Sprintf(`document.getElementById('key').value = %q; document.querySelector('form[action="/ui/login"]').requestSubmit();`, key.Key))
	b.navigate("/ui/scans/" + sc.ID + "?q=generic-password")
	var boxes int
	b.evalInto(`document.querySelectorAll('input[name=fp]').length`, &boxes)
	if boxes == 0 {
		t.Fatal("the findings table has no row checkboxes")
	}
	all := b.text(`document.querySelector('button[name=mode][value=all]').textContent`)
	if !strings.Contains(all, "70 matching") {
		t.Fatalf("select-all control says %q", all)
	}
	b.act(`document.getElementById('bulk-status').value = 'false_positive';
		document.getElementById('bulk-note').value = 'test fixtures';
		document.querySelector('button[name=mode][value=all]').click();`)
	if body := b.text(`document.body.innerText`); !strings.Contains(body, "70 findings") || !strings.Contains(body, "False positive") {
		t.Fatalf("the confirmation does not name the count and verdict:\n%s", body)
	}
	b.act(`document.querySelector('input[name=confirm]').form.requestSubmit();`)
	if body := b.text(`document.body.innerText`); !strings.Contains(body, "Verdict set on 70 findings.") {
		t.Fatalf("no result after the confirmation:\n%s", body)
	}

	var rows []struct {
		Fingerprint string `json:"fingerprint"`
		RuleID      string `json:"rule_id"`
		State       *struct {
			Status string `json:"status"`
		} `json:"state"`
	}
	reviewCall(t, key.Key, "GET", origin+"/api/v1/scans/"+sc.ID+"/findings?limit=500", nil, &rows)
	set := 0
	for _, r := range rows {
		if r.RuleID != "generic-password" {
			continue
		}
		var hist []struct{}
		reviewCall(t, key.Key, "GET", origin+"/api/v1/findings/"+r.Fingerprint+"/history", nil, &hist)
		if r.State == nil || r.State.Status != "false_positive" || len(hist) != 1 {
			t.Fatalf("finding %s: %+v, %d history entries", r.Fingerprint, r.State, len(hist))
		}
		set++
	}
	if set != 70 {
		t.Fatalf("%d findings show the verdict, want 70", set)
	}
	var audit struct {
		Records []struct {
			Actor     struct{ ID, Name string }
			RequestID string `json:"request_id"`
		} `json:"records"`
	}
	reviewCall(t, admin, "GET", origin+"/api/v1/audit?action=finding.triage_bulk", nil, &audit)
	if len(audit.Records) != 1 || audit.Records[0].Actor.Name != "browser-reviewer" || audit.Records[0].Actor.ID != key.ID || audit.Records[0].RequestID == "" {
		t.Fatalf("audit: %+v", audit.Records)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, pb := range b.problems {
		t.Errorf("browser reported: %s", pb)
	}
}
