package schedule_test

// End-to-end tests of schedules with a fake clock: a real store in a temp
// dir, the real orchestrator running the real secrets scanner, the real
// bus, webhook dispatcher (to a loopback receiver) and notification
// service. The scheduler only ever sees the fake clock, so a day passes
// in a line of test code.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/finding"
	"scand/hook"
	"scand/notify"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/request"
	"scand/scan/schedule"
	"scand/scan/secrets"
	"scand/sse"
	"scand/store"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// gate is a scanner of type code that holds its scan while closed, so a
// test can keep a scheduled scan running for as long as it needs.
type gate struct {
	mu     sync.Mutex
	closed chan struct{} // nil: open
}

func (g *gate) Name() string                                     { return "gate" }
func (g *gate) Type() string                                     { return scan.TypeCode }
func (g *gate) Available(context.Context) (string, string, bool) { return "1", "", true }
func (g *gate) Scan(ctx context.Context, _ scan.Target) ([]finding.Finding, error) {
	g.mu.Lock()
	ch := g.closed
	g.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return []finding.Finding{}, nil
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = make(chan struct{})
	g.mu.Unlock()
}

func (g *gate) open() {
	g.mu.Lock()
	if g.closed != nil {
		close(g.closed)
		g.closed = nil
	}
	g.mu.Unlock()
}

// receiver is a loopback webhook endpoint that verifies signatures and
// records each delivery.
type receiver struct {
	srv    *httptest.Server
	secret string
	mu     sync.Mutex
	got    []delivery
	badSig int
}

type delivery struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

func (d delivery) String() string { return d.Event + " " + string(d.Data) }

func newReceiver(t *testing.T, secret string) *receiver {
	r := &receiver{secret: secret}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var ts, v1 string
		for _, part := range strings.Split(req.Header.Get("X-Svc-Signature"), ",") {
			k, v, _ := strings.Cut(part, "=")
			if k == "t" {
				ts = v
			} else if k == "v1" {
				v1 = v
			}
		}
		mac := hmac.New(sha256.New, []byte(r.secret))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		var d delivery
		_ = json.Unmarshal(body, &d)
		r.mu.Lock()
		if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(v1)) {
			r.badSig++
		}
		r.got = append(r.got, d)
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

type env struct {
	t       *testing.T
	clock   *fakeClock
	dbPath  string
	root    string
	store   *store.Store
	bus     *sse.Bus
	gate    *gate
	orch    *scan.Orchestrator
	hooks   *hook.Dispatcher
	notes   *notify.Service
	alerts  *schedule.Alerts
	ret     *schedule.Retention
	sched   *schedule.Scheduler
	stopped bool
}

type envOptions struct {
	retentionDays int
}

func newEnv(t *testing.T, start time.Time, opts envOptions) *env {
	t.Helper()
	e := &env{t: t, clock: &fakeClock{t: start}, dbPath: filepath.Join(t.TempDir(), "scand.db"), root: t.TempDir(), gate: &gate{}}
	e.open(opts)
	t.Cleanup(e.stop)
	return e
}

// open wires and starts everything the way wire.go does, over the same
// database file each time (a restart).
func (e *env) open(opts envOptions) {
	t := e.t
	ctx := context.Background()
	st, err := store.Open(ctx, e.dbPath, e.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	e.store = st
	e.bus = sse.NewBus(nil)
	cfg := scan.Config{Runner: proc.NewRunner(time.Minute), Getenv: func(k string) string {
		if k == "SVC_SECRETS_HISTORY" {
			return "0"
		}
		return ""
	}, Now: e.clock.Now}
	e.orch = scan.NewOrchestrator(scan.OrchestratorOptions{Store: st, Bus: e.bus, Now: e.clock.Now, MaxConcurrent: 1,
		Scanners: []scan.Scanner{secrets.New(cfg), e.gate}})
	e.hooks = hook.New(hook.Config{Store: st, Now: e.clock.Now, AllowPrivate: true})
	e.notes = notify.New(notify.Config{Store: st, Now: e.clock.Now})
	e.alerts = schedule.NewAlerts(schedule.AlertOptions{Store: st, Bus: e.bus, Now: e.clock.Now, MinSeverity: "high"})
	e.ret = schedule.NewRetention(schedule.RetentionOptions{Store: st, Now: e.clock.Now, MaxAge: time.Duration(opts.retentionDays) * 24 * time.Hour, Pause: time.Millisecond})
	e.sched = schedule.New(schedule.Options{Store: st, Submit: e.orch.Submit, Now: e.clock.Now, Policy: request.TargetPolicy{Roots: []string{e.root}}})
	e.bus.AddSink("webhooks", e.hooks.Sink)
	e.bus.AddSink("notifications", e.notes.Sink)
	e.bus.AddSink("alerts", e.alerts.Sink)
	e.bus.AddSink("retention", e.ret.Sink)
	for _, start := range []func(context.Context) error{e.hooks.Start, e.notes.Start, e.alerts.Start, e.orch.Start, e.sched.Start, e.ret.Start} {
		if err := start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	e.stopped = false
}

func (e *env) stop() {
	if e.stopped {
		return
	}
	e.stopped = true
	e.gate.open()
	e.sched.Stop(5 * time.Second)
	e.ret.Stop(5 * time.Second)
	e.orch.Stop(10 * time.Second)
	e.alerts.Stop(5 * time.Second)
	e.notes.Stop(5 * time.Second)
	e.hooks.Stop()
	e.store.Close()
}

// restart stops the daemon, lets the clock move while it is down and
// starts it again on the same database.
func (e *env) restart(downUntil time.Time, opts envOptions) {
	e.stop()
	e.clock.Set(downUntil)
	e.open(opts)
}

// at moves the clock and wakes the scheduler, as its timer would.
func (e *env) at(t time.Time) {
	e.clock.Set(t)
	e.sched.Wake()
}

func (e *env) writeTarget(files map[string]string) string {
	e.t.Helper()
	dir := filepath.Join(e.root, "repo")
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	return dir
}

// waitRuns waits until the schedule has n runs and returns them, newest
// first.
func (e *env) waitRuns(id string, n int) []store.ScheduleRun {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		runs, err := e.store.ScheduleRuns(context.Background(), id, 100)
		if err != nil {
			e.t.Fatal(err)
		}
		if len(runs) >= n {
			if len(runs) > n {
				e.t.Fatalf("%d runs, want %d: %+v", len(runs), n, runs)
			}
			return runs
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("schedule %s has %d runs after 30 s, want %d", id, len(runs), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) waitScan(id, status string) store.Scan {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		sc, err := e.store.ScanByID(context.Background(), id)
		if err != nil {
			e.t.Fatal(err)
		}
		if sc.Status == status {
			return sc
		}
		if store.TerminalStatus(sc.Status) || time.Now().After(deadline) {
			e.t.Fatalf("scan %s is %s (%s), want %s", id, sc.Status, sc.Error, status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settle waits until the queued side effects of finished scans are done:
// change alerts compared and their deliveries and notifications stored.
func (e *env) settle(r *receiver, wantDeliveries int) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(r.deliveries()) < wantDeliveries {
		if time.Now().After(deadline) {
			e.t.Fatalf("%d webhook deliveries after 20 s, want %d", len(r.deliveries()), wantDeliveries)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Anything more would arrive within this pause: the queues are local.
	time.Sleep(300 * time.Millisecond)
	if got := len(r.deliveries()); got != wantDeliveries {
		e.t.Fatalf("%d webhook deliveries, want exactly %d: %v", got, wantDeliveries, r.deliveries())
	}
}

func (e *env) newFindingNotifications() []store.Notification {
	e.t.Helper()
	all, err := e.store.Notifications(context.Background(), false, 200)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []store.Notification
	for _, n := range all {
		if strings.HasPrefix(n.Title, "New ") {
			out = append(out, n)
		}
	}
	return out
}

const awsKeyFile = "import boto3\nAWS_ACCESS_KEY_ID = \"AKIARMASVGVIVCLYPIUW\"\nsession = boto3.Session(aws_access_key_id=AWS_ACCESS_KEY_ID)\n"

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestScheduleEndToEnd: a nightly schedule in New York fires on time, is
// skipped while its previous scan still runs, alerts exactly once when a
// secret appears, catches up once after downtime, and keep_last trims its
// old scans.
func TestScheduleEndToEnd(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, mustTime(t, "2026-03-04T12:00:00-05:00"), envOptions{})
	dir := e.writeTarget(map[string]string{"app.py": "print('hello')\n"})
	recv := newReceiver(t, "0123456789abcdef0123456789abcdef")
	if _, err := e.store.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), Name: "alerts", URL: recv.srv.URL, Secret: recv.secret,
		EventFilter: []string{sse.ScanNewFindings}, Enabled: true}); err != nil {
		t.Fatal(err)
	}

	sc, err := e.sched.Create(ctx, schedule.Spec{Name: "nightly", TargetPath: dir, ScanTypes: []string{"code"}, Cron: "0 2 * * *",
		Timezone: "America/New_York", Enabled: true, KeepLast: 2}, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if want := mustTime(t, "2026-03-05T02:00:00-05:00"); !sc.NextRunAt.Equal(want) {
		t.Fatalf("next_run_at = %v, want %v", sc.NextRunAt, want)
	}

	// 1. Fires on time: nothing a second early, a scan at 02:00.
	e.at(mustTime(t, "2026-03-05T01:59:59-05:00"))
	time.Sleep(100 * time.Millisecond)
	if runs, _ := e.store.ScheduleRuns(ctx, sc.ID, 10); len(runs) != 0 {
		t.Fatalf("ran early: %+v", runs)
	}
	e.at(mustTime(t, "2026-03-05T02:00:00-05:00"))
	runs := e.waitRuns(sc.ID, 1)
	if runs[0].Outcome != store.RunStarted || !runs[0].ScheduledFor.Equal(mustTime(t, "2026-03-05T02:00:00-05:00")) || runs[0].ScanID == "" {
		t.Fatalf("first run = %+v", runs[0])
	}
	first := e.waitScan(runs[0].ScanID, store.StatusCompleted)
	if first.ScheduleID != sc.ID || first.TargetPath != dir || strings.Join(first.ScanTypes, ",") != "code" {
		t.Fatalf("scheduled scan = %+v", first)
	}
	got, _ := e.store.ScheduleByID(ctx, sc.ID)
	if want := mustTime(t, "2026-03-06T02:00:00-05:00"); !got.NextRunAt.Equal(want) {
		t.Fatalf("next_run_at after the run = %v, want %v", got.NextRunAt, want)
	}

	// 2. Skips while busy: the second night's scan is still running when
	// the third night comes.
	e.gate.close()
	e.at(mustTime(t, "2026-03-06T02:00:00-05:00"))
	runs = e.waitRuns(sc.ID, 2)
	second := e.waitScan(runs[0].ScanID, store.StatusRunning)
	e.at(mustTime(t, "2026-03-07T02:00:00-05:00"))
	runs = e.waitRuns(sc.ID, 3)
	if runs[0].Outcome != store.RunSkipped || runs[0].ScanID != "" || !strings.Contains(runs[0].Reason, "still pending or running") {
		t.Fatalf("run while busy = %+v", runs[0])
	}
	e.gate.open()
	e.waitScan(second.ID, store.StatusCompleted)

	// 3. A new secret: exactly one scan.new_findings delivery and one
	// notification, on the night it appears and not the night after. 8
	// March is the spring-forward day in New York: 02:00 does not exist,
	// so the run is at 03:00 EDT.
	e.writeTarget(map[string]string{"deploy/aws.py": awsKeyFile})
	e.at(mustTime(t, "2026-03-08T03:00:00-04:00"))
	runs = e.waitRuns(sc.ID, 4)
	if !runs[0].ScheduledFor.Equal(mustTime(t, "2026-03-08T03:00:00-04:00")) {
		t.Fatalf("run on the DST day scheduled for %v", runs[0].ScheduledFor)
	}
	withSecret := e.waitScan(runs[0].ScanID, store.StatusCompleted)
	e.settle(recv, 1)
	d := recv.deliveries()[0]
	var payload sse.ScanNewFindingsData
	if err := json.Unmarshal(d.Data, &payload); err != nil {
		t.Fatal(err)
	}
	if d.Event != sse.ScanNewFindings || payload.ScanID != withSecret.ID || payload.PreviousScanID != second.ID || payload.TargetPath != dir ||
		payload.New.Critical != 1 || payload.New.High+payload.New.Medium+payload.New.Low+payload.New.Info != 0 || payload.FixedCount != 0 ||
		payload.ScheduleID == nil || *payload.ScheduleID != sc.ID || payload.AlertMinSeverity != "high" {
		t.Fatalf("delivery = %s %s", d.Event, d.Data)
	}
	if recv.badSig != 0 {
		t.Fatalf("%d deliveries with a bad signature", recv.badSig)
	}
	notes := e.newFindingNotifications()
	if len(notes) != 1 || notes[0].Severity != "critical" || notes[0].ScanID != withSecret.ID || !strings.Contains(notes[0].Body, dir) {
		t.Fatalf("new-finding notifications = %+v", notes)
	}
	e.at(mustTime(t, "2026-03-09T02:00:00-04:00"))
	runs = e.waitRuns(sc.ID, 5)
	e.waitScan(runs[0].ScanID, store.StatusCompleted)
	e.settle(recv, 1)
	if notes := e.newFindingNotifications(); len(notes) != 1 {
		t.Fatalf("the unchanged secret alerted again: %+v", notes)
	}

	// 4. keep_last 2: of the schedule's four completed scans, the two
	// oldest go; triage on the secret's fingerprint stays.
	waitScanGone(t, e.store, first.ID)
	waitScanGone(t, e.store, second.ID)
	completed, _ := e.store.Scans(ctx, store.ScanFilter{Statuses: []string{store.StatusCompleted}})
	if len(completed) != 2 {
		t.Fatalf("%d completed scans kept, want 2", len(completed))
	}

	// 5. Down from the 9th after the run until the 12th at noon: three
	// run times missed, one catch-up run at startup, then on schedule.
	e.restart(mustTime(t, "2026-03-12T12:00:00-04:00"), envOptions{})
	runs = e.waitRuns(sc.ID, 6)
	if runs[0].Outcome != store.RunStarted || !runs[0].ScheduledFor.Equal(mustTime(t, "2026-03-10T02:00:00-04:00")) {
		t.Fatalf("catch-up run = %+v", runs[0])
	}
	e.waitScan(runs[0].ScanID, store.StatusCompleted)
	got, _ = e.store.ScheduleByID(ctx, sc.ID)
	if want := mustTime(t, "2026-03-13T02:00:00-04:00"); !got.NextRunAt.Equal(want) {
		t.Fatalf("next_run_at after catching up = %v, want %v", got.NextRunAt, want)
	}
	time.Sleep(200 * time.Millisecond)
	if runs, _ := e.store.ScheduleRuns(ctx, sc.ID, 100); len(runs) != 6 {
		t.Fatalf("%d runs after the catch-up, want 6 (one per missed period, not per missed slot)", len(runs))
	}

	// keep_last applies to the catch-up scan too.
	waitScanGone(t, e.store, withSecret.ID)

	// 6. Deleting the schedule keeps its scans.
	if err := e.sched.Delete(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	left, _ := e.store.Scans(ctx, store.ScanFilter{})
	if len(left) != 2 || left[0].ID != runs[0].ScanID || left[1].ScheduleID != sc.ID {
		t.Fatalf("scans after deleting the schedule = %+v, want the newest two", left)
	}
}

func waitScanGone(t *testing.T, st *store.Store, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := st.ScanByID(context.Background(), id)
		if errors.Is(err, store.ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan %s still there: %v", id, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
