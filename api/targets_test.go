package api

import (
	"encoding/json"
	"strings"
	"testing"

	"scand/scan/netguard"
)

// TestScanTargetsRefuseMetadata: POST /scans answers 422, naming the
// field, for a DAST or network target that is a metadata service in any
// spelling the API can see without resolving; loopback stays allowed
// unless SVC_TARGET_ALLOW leaves it out.
func TestScanTargetsRefuseMetadata(t *testing.T) {
	h := newScanHarness(t, lifecycleRegistry(), nil)
	dir := writeTree(t, map[string]string{"a.txt": "ok\n"})
	post := func(h *scanHarness, body map[string]any) (int, string) {
		body["target_path"] = dir
		code, out, _ := h.do("POST", "/api/v1/scans", body)
		return code, string(out)
	}
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/iam/", "http://[::ffff:169.254.169.254]/", "http://[64:ff9b::a9fe:a9fe]/",
		"http://0xa9fea9fe/", "http://2852039166/", "http://0251.0376.0251.0376/", "http://metadata.google.internal/",
		"http://100.100.100.200/latest/", "http://[fd00:ec2::254]/", "http://[fe80::1%25eth0]/",
	} {
		code, out := post(h, map[string]any{"scan_types": []string{"dast"}, "target_url": u})
		if code != 422 || !strings.Contains(out, `"target_url"`) || !strings.Contains(out, "never reach it") {
			t.Errorf("target_url %s: %d %s, want 422 on target_url", u, code, out)
		}
	}
	for _, host := range []string{"169.254.169.254", "0xa9fea9fe", "::ffff:a9fe:a9fe", "metadata.google.internal", "169.254.169.0/28", "100.100.100.200", "fd00:ec2::254"} {
		code, out := post(h, map[string]any{"scan_types": []string{"network"}, "target_host": host})
		if code != 422 || !strings.Contains(out, `"target_host"`) || !strings.Contains(out, "never reach it") {
			t.Errorf("target_host %s: %d %s, want 422 on target_host", host, code, out)
		}
	}
	for _, body := range []map[string]any{
		{"scan_types": []string{"dast"}, "target_url": "http://127.0.0.1:8080/"},
		{"scan_types": []string{"dast"}, "target_url": "http://intranet.example/"},
		{"scan_types": []string{"network"}, "target_host": "10.0.0.0/28"},
		{"scan_types": []string{"network"}, "target_host": "localhost"},
	} {
		if code, out := post(h, body); code != 200 {
			t.Errorf("%v: %d %s, want 200", body, code, out)
		}
	}

	allow, err := netguard.ParseAllow("10.0.0.0/8,app.corp.example")
	if err != nil {
		t.Fatal(err)
	}
	confined := newScanHarness(t, lifecycleRegistry(), func(d *Deps) { d.Targets = netguard.Targets{Allow: allow} })
	for body, want := range map[string]int{
		`{"scan_types":["dast"],"target_url":"http://127.0.0.1:8080/"}`:   422,
		`{"scan_types":["dast"],"target_url":"http://10.1.2.3/"}`:         200,
		`{"scan_types":["dast"],"target_url":"http://app.corp.example/"}`: 200,
		`{"scan_types":["network"],"target_host":"192.168.0.0/28"}`:       422,
		`{"scan_types":["network"],"target_host":"10.0.0.0/28"}`:          200,
	} {
		var m map[string]any
		json.Unmarshal([]byte(body), &m)
		code, out := post(confined, m)
		if code != want || code == 422 && !strings.Contains(out, "SVC_TARGET_ALLOW") {
			t.Errorf("with SVC_TARGET_ALLOW, %s: %d %s, want %d", body, code, out, want)
		}
	}

	// Schedules are checked by the same policy.
	code, out, _ := h.do("POST", "/api/v1/schedules", map[string]any{"name": "meta", "cron": "0 * * * *", "target_path": dir,
		"scan_types": []string{"dast"}, "target_url": "http://169.254.169.254/"})
	if code != 422 || !strings.Contains(string(out), "never reach it") {
		t.Errorf("schedule with a metadata target: %d %s, want 422", code, out)
	}
}
