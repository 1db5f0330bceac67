package main

// Issue 24's browser bar: a page served on another loopback port, in a
// real Chromium, cannot create a webhook, start a scan or read data from a
// dev-mode scand - not with fetch and text/plain (no preflight), not with
// a form post, not by rebinding a name of its own to 127.0.0.1 - while a
// JSON client still can.

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
)

// attackerPage tries everything a drive-by page can do against scand at
// origin; window.__done resolves to what each attempt saw.
const attackerPage = `<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="f1" method="post" enctype="text/plain" target="sink" action="SCAND/api/v1/scans">
<input name='{"target_path":"TARGET","scan_types":["code"],"x":"' value='"}'></form>
<form id="f2" method="post" target="sink" action="SCAND/api/v1/webhooks">
<input name="name" value="form"><input name="url" value="http://127.0.0.1:9/form"></form>
<script>
const scand = "SCAND";
const results = {};
async function attempt(name, fn) {
  try { results[name] = await fn(); } catch (e) { results[name] = "blocked: " + e.name; }
}
window.__done = (async () => {
  await attempt("webhook text/plain", () => fetch(scand + "/api/v1/webhooks", {method: "POST", mode: "no-cors",
    headers: {"Content-Type": "text/plain"}, body: '{"name":"x","url":"http://127.0.0.1:9009/x","event_filter":["scan.complete"]}'}).then(r => "sent (opaque)"));
  await attempt("scan text/plain", () => fetch(scand + "/api/v1/scans", {method: "POST", mode: "no-cors",
    headers: {"Content-Type": "text/plain"}, body: '{"target_path":"TARGET","scan_types":["code"]}'}).then(r => "sent (opaque)"));
  await attempt("scan json cors", () => fetch(scand + "/api/v1/scans", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: '{"target_path":"TARGET","scan_types":["code"]}'}).then(r => "status " + r.status));
  await attempt("read scans", () => fetch(scand + "/api/v1/scans").then(r => r.text()));
  await attempt("read webhooks", () => fetch(scand + "/api/v1/webhooks").then(r => r.text()));
  for (const id of ["f1", "f2"]) {
    await new Promise(done => {
      const sink = document.querySelector("iframe");
      sink.onload = done;
      setTimeout(done, 5000);
      document.getElementById(id).submit();
    });
    results["form " + id] = "submitted";
  }
  return results;
})();
</script></body></html>`

func TestBrowserPageCannotDriveDevModeScand(t *testing.T) {
	chromium := findChromiumBinary()
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium not installed; apt-get install chromium to run this test")
	}
	target := t.TempDir()
	os.WriteFile(target+"/app.py", []byte("TOKEN = 'ghp_R8x2Lq9Zt4Vw7Yp3Kd6Mn1Bc5Hf0Js8Ga2Ue'\n"), 0o644)
	env := baseEnv(t)
	env["HOME"] = t.TempDir()
	p := startScand(t, env) // dev mode: no key of any kind
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	scandOrigin := "http://" + addr
	_, scandPort, _ := net.SplitHostPort(addr)

	// The attacker's page, on another loopback port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.NewReplacer("SCAND", scandOrigin, "TARGET", target).Replace(attackerPage)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	b := startBrowser(t, chromium, "http://"+ln.Addr().String(), "--host-resolver-rules=MAP rebind.test 127.0.0.1")
	b.open()
	b.navigate("/")
	var results map[string]string
	b.evalInto(`window.__done`, &results)
	t.Logf("what the page saw: %v", results)
	for _, name := range []string{"scan json cors", "read scans", "read webhooks"} {
		if !strings.HasPrefix(results[name], "blocked") {
			t.Errorf("%s: the page got %q", name, results[name])
		}
	}
	if results["form f1"] != "submitted" || results["form f2"] != "submitted" {
		t.Fatalf("the page did not run to the end: %v", results)
	}

	// Rebinding: the page's own name now resolves to 127.0.0.1, so it
	// would read scand same-origin. Chromium is sent there directly.
	b.origin = "http://rebind.test:" + scandPort
	b.navigate("/api/v1/webhooks")
	if text := b.text(`document.body.innerText`); !strings.Contains(text, "is not allowed") || strings.Contains(text, "[") {
		t.Errorf("rebinding-style read of /api/v1/webhooks: %q", text)
	}

	// Nothing happened on scand.
	get := func(path string) string {
		resp, err := http.Get(scandOrigin + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(body))
	}
	if hooks := get("/api/v1/webhooks"); hooks != "[]" {
		t.Errorf("webhooks after the page: %s", hooks)
	}
	var scans []json.RawMessage
	raw := get("/api/v1/scans")
	if err := json.Unmarshal([]byte(raw), &scans); err != nil || len(scans) != 0 {
		t.Errorf("scans after the page: %s", raw)
	}
	for _, want := range []string{`"browser request refused"`, `"dev mode: foreign Host refused"`} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("the daemon's log lacks %s", want)
		}
	}

	// A JSON client (curl, the CLI) still works.
	req, _ := http.NewRequest("POST", scandOrigin+"/api/v1/webhooks", strings.NewReader(`{"name":"ci","url":"http://127.0.0.1:9/ci","event_filter":["scan.complete"]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("JSON client creating a webhook: %d", resp.StatusCode)
	}
	req, _ = http.NewRequest("POST", scandOrigin+"/api/v1/scans", strings.NewReader(`{"target_path":"`+target+`","scan_types":["code"]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("JSON client starting a scan: %d", resp.StatusCode)
	}
}
