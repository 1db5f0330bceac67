package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// scheduleDaemon is one run of the built binary for the schedule test.
type scheduleDaemon struct {
	p    *scandProcess
	base string
}

func startScheduleDaemon(t *testing.T, env map[string]string) *scheduleDaemon {
	t.Helper()
	p := startScand(t, env)
	addr := listenAddr(t, p.stderr.String, p.exited)
	waitReady(t, addr)
	return &scheduleDaemon{p: p, base: "http://" + addr}
}

func (d *scheduleDaemon) call(t *testing.T, method, path, body string, out any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, d.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

type scheduleRunJSON struct {
	ScheduledFor string  `json:"scheduled_for"`
	Outcome      string  `json:"outcome"`
	Reason       string  `json:"reason"`
	ScanID       *string `json:"scan_id"`
	Status       *string `json:"status"`
}

// waitRuns polls the runs route until there are n runs, the newest with a
// finished scan.
func (d *scheduleDaemon) waitRuns(t *testing.T, id string, n int) []scheduleRunJSON {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var runs []scheduleRunJSON
		if code := d.call(t, "GET", "/api/v1/schedules/"+id+"/runs", "", &runs); code != 200 {
			t.Fatalf("runs: %d", code)
		}
		if len(runs) > n {
			t.Fatalf("%d runs, want %d: %+v", len(runs), n, runs)
		}
		if len(runs) == n && runs[0].Status != nil && (*runs[0].Status == "completed" || *runs[0].Status == "failed") {
			return runs
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: %+v, want %d runs with the newest finished\n%s", runs, n, d.p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (d *scheduleDaemon) stop(t *testing.T) {
	t.Helper()
	if err := d.p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := d.p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit code %d on SIGTERM:\n%s", code, d.p.stderr.String())
	}
}

// TestBinaryRunsSchedules drives the built binary through a schedule with
// SVC_SCHEDULER_FAKE_START: the first run fires on time, a secret added
// while the daemon is down is found by the one catch-up run at the next
// start, and that produces exactly one scan.new_findings delivery to a
// loopback receiver and one notification.
func TestBinaryRunsSchedules(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "app.py"), []byte("print('hello')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	var secret string
	badSig := 0
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		ts, v1, _ := strings.Cut(strings.TrimPrefix(r.Header.Get("X-Svc-Signature"), "t="), ",v1=")
		mu.Lock()
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(raw)
		if !hmac.Equal([]byte(v1), []byte(hex.EncodeToString(mac.Sum(nil)))) {
			badSig++
		}
		got = append(got, string(raw))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	deliveries := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}

	env := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": filepath.Join(t.TempDir(), "scand.db"), "SVC_SCAN_ROOTS": root,
		"SVC_SECRETS_HISTORY": "0", "HOME": t.TempDir(),
		// 5 s before 02:00 in New York on 5 March 2026.
		"SVC_SCHEDULER_FAKE_START": "2026-03-05T01:59:55-05:00"}
	d := startScheduleDaemon(t, env)
	if !strings.Contains(d.p.stderr.String(), "SVC_SCHEDULER_FAKE_START is set") {
		t.Fatalf("no warning about the testing aid:\n%s", d.p.stderr.String())
	}
	var hook struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	if code := d.call(t, "POST", "/api/v1/webhooks", fmt.Sprintf(`{"name":"alerts","url":%q,"event_filter":["scan.new_findings"]}`, recv.URL), &hook); code != 201 {
		t.Fatalf("create webhook: %d", code)
	}
	mu.Lock()
	secret = hook.Secret
	mu.Unlock()
	var sc struct {
		ID        string `json:"id"`
		NextRunAt string `json:"next_run_at"`
	}
	body := fmt.Sprintf(`{"name":"nightly","target_path":%q,"scan_types":["code"],"cron":"0 2 * * *","timezone":"America/New_York"}`, repo)
	if code := d.call(t, "POST", "/api/v1/schedules", body, &sc); code != 201 {
		t.Fatalf("create schedule: %d", code)
	}
	if sc.NextRunAt != "2026-03-05T07:00:00Z" {
		t.Fatalf("next_run_at = %s, want 2026-03-05T07:00:00Z (02:00 EST)", sc.NextRunAt)
	}

	// Fires on time, a few real seconds later.
	runs := d.waitRuns(t, sc.ID, 1)
	if runs[0].Outcome != "started" || runs[0].ScheduledFor != "2026-03-05T07:00:00Z" || *runs[0].Status != "completed" {
		t.Fatalf("first run = %+v", runs[0])
	}
	var scan struct {
		ScheduleID *string `json:"schedule_id"`
	}
	if code := d.call(t, "GET", "/api/v1/scans/"+*runs[0].ScanID, "", &scan); code != 200 || scan.ScheduleID == nil || *scan.ScheduleID != sc.ID {
		t.Fatalf("scheduled scan: %d schedule_id %v", code, scan.ScheduleID)
	}
	d.stop(t)

	// Down for three nights; a secret lands meanwhile.
	if err := os.MkdirAll(filepath.Join(repo, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	key := "import boto3\nAWS_ACCESS_KEY_ID = \"AKIARMASVGVIVCLYPIUW\"\nsession = boto3.Session(aws_access_key_id=AWS_ACCESS_KEY_ID)\n"
	if err := os.WriteFile(filepath.Join(repo, "deploy", "aws.py"), []byte(key), 0o644); err != nil {
		t.Fatal(err)
	}
	env["SVC_SCHEDULER_FAKE_START"] = "2026-03-08T12:00:00-04:00"
	d = startScheduleDaemon(t, env)
	runs = d.waitRuns(t, sc.ID, 2)
	if runs[0].Outcome != "started" || runs[0].ScheduledFor != "2026-03-06T07:00:00Z" || *runs[0].Status != "completed" {
		t.Fatalf("catch-up run = %+v", runs[0])
	}
	var after struct {
		NextRunAt string `json:"next_run_at"`
	}
	d.call(t, "GET", "/api/v1/schedules/"+sc.ID, "", &after)
	if after.NextRunAt != "2026-03-09T06:00:00Z" {
		t.Fatalf("next_run_at after catching up = %s, want 2026-03-09T06:00:00Z (02:00 EDT)", after.NextRunAt)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(deliveries()) == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	ds := deliveries()
	if len(ds) != 1 {
		t.Fatalf("%d deliveries, want exactly 1: %v\n%s", len(ds), ds, d.p.stderr.String())
	}
	var msg struct {
		Event string `json:"event"`
		Data  struct {
			ScanID         string         `json:"scan_id"`
			PreviousScanID string         `json:"previous_scan_id"`
			TargetPath     string         `json:"target_path"`
			New            map[string]int `json:"new"`
			FixedCount     int            `json:"fixed_count"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(ds[0]), &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Event != "scan.new_findings" || msg.Data.ScanID != *runs[0].ScanID || msg.Data.PreviousScanID != *runs[1].ScanID ||
		msg.Data.TargetPath != repo || msg.Data.New["critical"] != 1 || msg.Data.FixedCount != 0 {
		t.Fatalf("delivery = %s", ds[0])
	}
	mu.Lock()
	if badSig != 0 {
		t.Errorf("%d deliveries failed signature verification", badSig)
	}
	mu.Unlock()
	var notes []struct {
		Severity string `json:"severity"`
		Title    string `json:"title"`
		ScanID   string `json:"scan_id"`
	}
	d.call(t, "GET", "/api/v1/notifications", "", &notes)
	n := 0
	for _, note := range notes {
		if strings.HasPrefix(note.Title, "New ") {
			n++
			if note.Severity != "critical" || note.ScanID != *runs[0].ScanID {
				t.Errorf("notification = %+v", note)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d new-finding notifications, want 1: %+v", n, notes)
	}
	d.stop(t)
}
