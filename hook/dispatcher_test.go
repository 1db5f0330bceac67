package hook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"scand/sse"
	"scand/store"
)

// verifySignature is written from SPEC.md, independently of Sign: HMAC-
// SHA256 keyed with the secret over "<t>." + the raw body as received.
func verifySignature(t *testing.T, secret string, header string, body []byte, now time.Time) {
	t.Helper()
	parts := strings.Split(header, ",")
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "t=") || !strings.HasPrefix(parts[1], "v1=") {
		t.Fatalf("signature header %q is not t=<unix>,v1=<hex>", header)
	}
	ts := strings.TrimPrefix(parts[0], "t=")
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		t.Fatalf("signature timestamp %q: %v", ts, err)
	}
	if d := now.Sub(time.Unix(unix, 0)); d < -time.Minute || d > 5*time.Minute {
		t.Fatalf("signature timestamp %d is %s away from now", unix, d)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	got := strings.TrimPrefix(parts[1], "v1=")
	if !hmac.Equal([]byte(got), []byte(want)) {
		t.Fatalf("v1 = %s, want %s (HMAC over the raw body)", got, want)
	}
}

func TestWebhookSignedRequestVerifiesOverRawBody(t *testing.T) {
	st := openTestStore(t)
	rec := newRecorder(t, nil)
	d := newTestDispatcher(t, st, true, nil)
	wh := createTestWebhook(t, st, rec.srv.URL+"/hook", sse.ScanComplete)

	ds, err := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(7))
	if err != nil || len(ds) != 1 {
		t.Fatalf("Enqueue = %d deliveries, %v; want 1", len(ds), err)
	}
	final := waitDeliveryStatus(t, st, ds[0].ID, store.DeliverySucceeded)
	if final.ResponseCode == nil || *final.ResponseCode != 200 || final.Attempt != 1 {
		t.Fatalf("delivery = code %v attempt %d, want 200 on attempt 1", final.ResponseCode, final.Attempt)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	verifySignature(t, wh.Secret, r.Header.Get("X-Svc-Signature"), r.Body, time.Now())

	for h, want := range map[string]string{
		"Content-Type":     "application/json",
		"User-Agent":       "Svc-Webhook/0.9",
		"X-Svc-Event":      "scan.complete",
		"X-Svc-Webhook-Id": wh.ID,
		"X-Svc-Delivery":   ds[0].ID,
	} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, r.Body); err != nil || !bytes.Equal(compact.Bytes(), r.Body) {
		t.Errorf("body is not compact JSON: %s", r.Body)
	}
	// Key order is part of the contract: event, data, delivered_at.
	body := string(r.Body)
	iEvent, iData, iAt := strings.Index(body, `"event":`), strings.Index(body, `"data":`), strings.Index(body, `"delivered_at":`)
	if !(iEvent == 1 && iEvent < iData && iData < iAt) {
		t.Errorf("top-level keys out of order (event %d, data %d, delivered_at %d): %s", iEvent, iData, iAt, body)
	}
	var env struct {
		Event string `json:"event"`
		Data  struct {
			ScanID         string             `json:"scan_id"`
			FindingsCount  *int               `json:"findings_count"`
			RiskScore      *int               `json:"risk_score"`
			TargetPath     string             `json:"target_path"`
			SeverityCounts sse.SeverityCounts `json:"severity_counts"`
		} `json:"data"`
		DeliveredAt time.Time `json:"delivered_at"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Event != "scan.complete" || env.Data.ScanID != "scan-7" || env.Data.FindingsCount == nil || *env.Data.FindingsCount != 7 ||
		env.Data.RiskScore == nil || env.Data.TargetPath != "/srv/app" || env.Data.SeverityCounts.Critical != 1 || env.DeliveredAt.IsZero() {
		t.Errorf("body fields wrong: %+v", env)
	}
}

func TestWebhookRetryAfter500ThenSuccess(t *testing.T) {
	st := openTestStore(t)
	rec := newRecorder(t, func(n int, _ received) int {
		if n == 0 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	d := newTestDispatcher(t, st, true, nil)
	createTestWebhook(t, st, rec.srv.URL, sse.ScanFailed)
	ds, err := d.Enqueue(context.Background(), sse.ScanFailed, sse.ScanFailedData{ScanID: "s1", TargetPath: "/x", Error: "boom"})
	if err != nil || len(ds) != 1 {
		t.Fatalf("Enqueue: %d, %v", len(ds), err)
	}
	final := waitDeliveryStatus(t, st, ds[0].ID, store.DeliverySucceeded)
	if final.Attempt != 2 || final.ResponseCode == nil || *final.ResponseCode != 200 {
		t.Fatalf("delivery attempt %d code %v, want success on attempt 2", final.Attempt, final.ResponseCode)
	}
	// Give a wrongly scheduled third attempt the chance to show up.
	time.Sleep(50 * time.Millisecond)
	reqs := rec.requests()
	if len(reqs) != 2 {
		t.Fatalf("receiver got %d requests, want exactly 2 (one retry)", len(reqs))
	}
	if a, b := reqs[0].Header.Get("X-Svc-Delivery"), reqs[1].Header.Get("X-Svc-Delivery"); a != ds[0].ID || b != a {
		t.Errorf("X-Svc-Delivery changed across the retry: %q then %q (want %q)", a, b, ds[0].ID)
	}
}

func TestWebhookHundredEventsArriveInOrder(t *testing.T) {
	st := openTestStore(t)
	// Every fourth request fails, so order must hold across retries too.
	rec := newRecorder(t, func(n int, _ received) int {
		if n%4 == 3 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	d := newTestDispatcher(t, st, true, nil)
	createTestWebhook(t, st, rec.srv.URL, sse.ScanComplete)
	const events = 100
	for i := 1; i <= events; i++ {
		// Through the bus sink, as the orchestrator would publish.
		if err := d.Sink(context.Background(), sse.Event{Name: sse.ScanComplete, Data: scanComplete(i)}); err != nil {
			t.Fatal(err)
		}
	}
	var acked []int
	waitFor(t, 120*time.Second, "100 acknowledged deliveries", func() bool {
		acked = acked[:0]
		highest := 0
		for i, r := range rec.requests() {
			var env struct {
				Data sse.ScanCompleteData `json:"data"`
			}
			if err := json.Unmarshal(r.Body, &env); err != nil {
				t.Fatal(err)
			}
			n := env.Data.FindingsCount
			// A retry repeats the current head; anything else must be the
			// next one in order.
			if n < highest || n > highest+1 {
				t.Fatalf("request %d carries event %d after event %d: out of order", i, n, highest)
			}
			highest = n
			if i%4 != 3 {
				acked = append(acked, n)
			}
		}
		return len(acked) == events
	})
	for i, n := range acked {
		if n != i+1 {
			t.Fatalf("acknowledged sequence broken at %d: got event %d", i, n)
		}
	}
}

func TestWebhookStalledReceiverDoesNotDelayOthers(t *testing.T) {
	st := openTestStore(t)
	release := make(chan struct{})
	var stalled atomic.Int32
	slow := newRecorder(t, func(int, received) int {
		stalled.Add(1)
		<-release
		return http.StatusOK
	})
	fast := newRecorder(t, nil)
	t.Cleanup(func() { close(release) })
	d := newTestDispatcher(t, st, true, func(d *Dispatcher) { d.Timeout = time.Minute })
	createTestWebhook(t, st, slow.srv.URL, sse.ScanComplete)
	createTestWebhook(t, st, fast.srv.URL, sse.ScanComplete)

	start := time.Now()
	for i := 1; i <= 5; i++ {
		if ds, err := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(i)); err != nil || len(ds) != 2 {
			t.Fatalf("Enqueue: %d deliveries, %v; want 2", len(ds), err)
		}
	}
	waitFor(t, 30*time.Second, "the healthy receiver to get all 5", func() bool { return fast.count() == 5 })
	if stalled.Load() != 1 {
		t.Fatalf("stalled receiver has %d requests in flight, want exactly 1 (one at a time)", stalled.Load())
	}
	t.Logf("healthy subscription drained in %s while the other was stalled", time.Since(start))
}

func TestWebhookRedirectIsNotFollowed(t *testing.T) {
	st := openTestStore(t)
	var target atomic.Int32
	rec := newRecorder(t, func(_ int, r received) int {
		if r.Path == "/elsewhere" {
			target.Add(1)
		}
		return http.StatusOK
	})
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, rec.srv.URL+"/elsewhere", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)
	d := newTestDispatcher(t, st, true, func(d *Dispatcher) { d.BackoffBase, d.BackoffCap = time.Hour, time.Hour })
	createTestWebhook(t, st, redirect.URL, sse.ScanComplete)
	ds, _ := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(1))
	var got store.Delivery
	waitFor(t, 30*time.Second, "the redirect to be recorded", func() bool {
		got = deliveryStatus(t, st, ds[0].ID)
		return got.Status == store.DeliveryPending && got.Attempt == 1
	})
	if got.ResponseCode == nil || *got.ResponseCode != http.StatusTemporaryRedirect || !strings.Contains(got.ResponseNote, "redirects are not followed") {
		t.Errorf("delivery = code %v note %q, want 307 and a note about redirects", got.ResponseCode, got.ResponseNote)
	}
	if target.Load() != 0 {
		t.Errorf("redirect target was hit %d times", target.Load())
	}
}

func TestWebhookAttemptTimesOut(t *testing.T) {
	st := openTestStore(t)
	release := make(chan struct{})
	rec := newRecorder(t, func(int, received) int { <-release; return 200 })
	t.Cleanup(func() { close(release) })
	d := newTestDispatcher(t, st, true, func(d *Dispatcher) {
		d.Timeout = 100 * time.Millisecond
		d.BackoffBase, d.BackoffCap = time.Hour, time.Hour
	})
	createTestWebhook(t, st, rec.srv.URL, sse.ScanComplete)
	ds, _ := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(1))
	var got store.Delivery
	waitFor(t, 30*time.Second, "the timeout to be recorded", func() bool {
		got = deliveryStatus(t, st, ds[0].ID)
		return got.Status == store.DeliveryPending && got.Attempt == 1
	})
	if got.ResponseCode != nil || !strings.Contains(got.ResponseNote, "timed out") {
		t.Errorf("delivery = code %v note %q, want no code and a timeout note", got.ResponseCode, got.ResponseNote)
	}
	if !got.NextAttemptAt.After(time.Now()) {
		t.Errorf("next_attempt_at %s is not in the future", got.NextAttemptAt)
	}
}

// fakeClock is a settable now func.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestWebhookGivesUpAfterMaxAge(t *testing.T) {
	st := openTestStore(t)
	clock := &fakeClock{t: time.Now()}
	rec := newRecorder(t, func(n int, _ received) int {
		// The first attempt fails 10 minutes after the event (retried),
		// the second 31 minutes after it (given up).
		switch n {
		case 0:
			clock.add(10 * time.Minute)
		case 1:
			clock.add(21 * time.Minute)
		}
		return http.StatusBadGateway
	})
	d := New(Config{Store: st, AllowPrivate: true, Now: clock.now})
	// No jitter: the retry is due at once on the frozen clock.
	d.jitter = func() float64 { return 0 }
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	createTestWebhook(t, st, rec.srv.URL, sse.ScanComplete)
	ds, _ := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(1))
	got := waitDeliveryStatus(t, st, ds[0].ID, store.DeliveryFailed)
	if got.Attempt != 2 || got.ResponseCode == nil || *got.ResponseCode != 502 || !strings.Contains(got.ResponseNote, "gave up") {
		t.Errorf("delivery = attempt %d code %v note %q, want failed on attempt 2 with 502", got.Attempt, got.ResponseCode, got.ResponseNote)
	}
	time.Sleep(20 * time.Millisecond)
	if n := rec.count(); n != 2 {
		t.Errorf("receiver got %d requests, want 2 (no attempt after giving up)", n)
	}
}

func TestWebhookSSRFRefusals(t *testing.T) {
	loopback := newRecorder(t, nil)
	cases := []struct {
		name         string
		url          string
		allowPrivate bool
		note         string
	}{
		{"metadata IPv4", "http://169.254.169.254/latest/meta-data/", true, "link-local"},
		{"link-local IPv4", "http://169.254.10.1:8080/", true, "link-local"},
		{"link-local IPv6", "http://[fe80::1]/", true, "link-local"},
		{"Alibaba metadata", "http://100.100.100.200/latest/meta-data/", true, "metadata"},
		{"AWS IPv6 metadata", "http://[fd00:ec2::254]/latest/meta-data/", true, "metadata"},
		{"IPv4-mapped metadata", "http://[::ffff:169.254.169.254]/", true, "link-local"},
		{"NAT64 metadata", "http://[64:ff9b::a9fe:a9fe]/", true, "link-local"},
		{"unspecified", "http://0.0.0.0:9/", true, "unspecified"},
		{"loopback when private disallowed", loopback.srv.URL, false, "loopback"},
		// The name is resolved by the dialer; the check runs on the address.
		{"localhost name when private disallowed", strings.Replace(loopback.srv.URL, "127.0.0.1", "localhost", 1), false, "loopback"},
		{"private range when disallowed", "http://10.1.2.3:9/", false, "private"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := openTestStore(t)
			d := newTestDispatcher(t, st, tc.allowPrivate, nil)
			createTestWebhook(t, st, tc.url, sse.ScanComplete)
			before := loopback.count()
			ds, err := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(1))
			if err != nil || len(ds) != 1 {
				t.Fatalf("Enqueue: %d, %v", len(ds), err)
			}
			got := waitDeliveryStatus(t, st, ds[0].ID, store.DeliveryFailed)
			if !strings.Contains(got.ResponseNote, "refused") || !strings.Contains(got.ResponseNote, tc.note) || got.Attempt != 1 {
				t.Errorf("note %q attempt %d; want a refusal mentioning %q on the first attempt", got.ResponseNote, got.Attempt, tc.note)
			}
			if loopback.count() != before {
				t.Errorf("the refused receiver was reached")
			}
		})
	}
}

func TestWebhookPrivateAllowedByDefault(t *testing.T) {
	st := openTestStore(t)
	rec := newRecorder(t, nil)
	d := newTestDispatcher(t, st, true, nil)
	createTestWebhook(t, st, rec.srv.URL, sse.ScanComplete)
	ds, _ := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(1))
	waitDeliveryStatus(t, st, ds[0].ID, store.DeliverySucceeded)
}

func TestWebhookOnlyEligibleEventsCreateDeliveries(t *testing.T) {
	st := openTestStore(t)
	rec := newRecorder(t, nil)
	d := newTestDispatcher(t, st, true, nil)
	all := createTestWebhook(t, st, rec.srv.URL)
	onlyFailed := createTestWebhook(t, st, rec.srv.URL, sse.ScanFailed)
	off := createTestWebhook(t, st, rec.srv.URL)
	disabled := false
	if _, err := st.UpdateWebhook(context.Background(), off.ID, store.WebhookPatch{Enabled: &disabled}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		event string
		want  []string
	}{
		{sse.ScanStart, nil},
		{sse.ScannerStart, nil},
		{sse.ScannerComplete, nil},
		{sse.ScannerSkipped, nil},
		{sse.ScanCancelled, nil},
		{"made.up", nil},
		{sse.ScanComplete, []string{all.ID}},
		{sse.ScannerFailed, []string{all.ID}},
		{sse.ScanFailed, []string{all.ID, onlyFailed.ID}},
	}
	for _, tc := range cases {
		ds, err := d.Enqueue(context.Background(), tc.event, map[string]string{"scan_id": "s"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, dl := range ds {
			got = append(got, dl.WebhookID)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s queued for %v, want %v", tc.event, got, tc.want)
		}
	}
}

func TestWebhookSinkNeverBlocks(t *testing.T) {
	st := openTestStore(t)
	d := New(Config{Store: st})
	d.QueueSize = 2
	if err := d.Sink(context.Background(), sse.Event{Name: sse.ScanComplete, Data: scanComplete(1)}); err == nil {
		t.Error("Sink before Start accepted an event it cannot persist")
	}
	// Started but with its enqueue loop not yet draining: fill the buffer.
	d.mu.Lock()
	d.events = make(chan queuedEvent, d.QueueSize)
	d.quit = make(chan struct{})
	d.mu.Unlock()
	ev := sse.Event{Name: sse.ScanComplete, Data: scanComplete(1)}
	var errs int
	start := time.Now()
	for i := 0; i < 5; i++ {
		if d.Sink(context.Background(), ev) != nil {
			errs++
		}
	}
	if errs != 3 {
		t.Errorf("%d of 5 events refused with a queue of 2, want 3", errs)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Sink took %s with a full queue; it must not block", el)
	}
	if err := d.Sink(context.Background(), sse.Event{Name: sse.ScanStart}); err != nil {
		t.Errorf("ineligible event: %v, want silently ignored", err)
	}
}

func TestWebhookStaleDeliveringRowsResumeAtStart(t *testing.T) {
	st := openTestStore(t)
	rec := newRecorder(t, nil)
	wh := createTestWebhook(t, st, rec.srv.URL, sse.ScanComplete)
	ctx := context.Background()
	var ids []string
	for i := 1; i <= 3; i++ {
		ds, err := st.EnqueueEvent(ctx, sse.ScanComplete, []byte(`{"n":`+strconv.Itoa(i)+`}`), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ds[0].ID)
	}
	// A previous process claimed the first one and died mid-request.
	c, err := st.ClaimDelivery(ctx, wh.ID, nil, time.Now())
	if err != nil || c.Delivery == nil || c.Delivery.ID != ids[0] {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	newTestDispatcher(t, st, true, nil)
	for _, id := range ids {
		waitDeliveryStatus(t, st, id, store.DeliverySucceeded)
	}
	var order []string
	for _, r := range rec.requests() {
		order = append(order, r.Header.Get("X-Svc-Delivery"))
	}
	if strings.Join(order, ",") != strings.Join(ids, ",") {
		t.Errorf("delivery order after restart = %v, want %v", order, ids)
	}
}

func TestWebhookStopInterruptsInFlightDelivery(t *testing.T) {
	st := openTestStore(t)
	release := make(chan struct{})
	var hits atomic.Int32
	rec := newRecorder(t, func(int, received) int { hits.Add(1); <-release; return 200 })
	defer close(release)
	d := New(Config{Store: st, AllowPrivate: true})
	d.StopTimeout = 3 * time.Second
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	createTestWebhook(t, st, rec.srv.URL, sse.ScanComplete)
	ds, _ := d.Enqueue(context.Background(), sse.ScanComplete, scanComplete(1))
	waitFor(t, 30*time.Second, "the request to be in flight", func() bool { return hits.Load() == 1 })
	start := time.Now()
	d.Stop()
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Stop took %s with a stalled receiver", el)
	}
	got := deliveryStatus(t, st, ds[0].ID)
	if got.Status != store.DeliveryPending {
		t.Errorf("interrupted delivery is %s, want pending (to be sent again)", got.Status)
	}
	if n := d.Workers(); n != 0 {
		t.Errorf("%d workers left after Stop", n)
	}
}

func TestWebhookTestDeliveryUsesQueue(t *testing.T) {
	st := openTestStore(t)
	rec := newRecorder(t, nil)
	d := newTestDispatcher(t, st, true, nil)
	// A filter without webhook.test: the test button still works.
	wh := createTestWebhook(t, st, rec.srv.URL, sse.ScanFailed)
	dl, err := d.Test(context.Background(), wh.ID)
	if err != nil {
		t.Fatal(err)
	}
	waitDeliveryStatus(t, st, dl.ID, store.DeliverySucceeded)
	r := rec.requests()[0]
	if r.Header.Get("X-Svc-Event") != sse.WebhookTest || r.Header.Get("X-Svc-Delivery") != dl.ID {
		t.Errorf("headers %v", r.Header)
	}
	verifySignature(t, wh.Secret, r.Header.Get("X-Svc-Signature"), r.Body, time.Now())
	if _, err := d.Test(context.Background(), "no-such-id"); err != store.ErrNotFound {
		t.Errorf("Test(unknown) = %v, want ErrNotFound", err)
	}
}

func TestWebhookBackoffIsCappedFullJitter(t *testing.T) {
	base, ceiling := time.Second, 5*time.Minute
	cases := []struct {
		attempt int
		r       float64
		want    time.Duration
	}{
		{1, 0.5, 500 * time.Millisecond},
		{2, 0.5, time.Second},
		{3, 0.999, 3996 * time.Millisecond},
		{9, 1.0 - 1e-9, 256 * time.Second},
		{10, 0.5, 150 * time.Second}, // 512 s window capped at 300 s
		{1000, 0.5, 150 * time.Second},
		{0, 0.5, 500 * time.Millisecond},
		{4, 0, 0},
	}
	for _, tc := range cases {
		got := Backoff(tc.attempt, base, ceiling, tc.r).Round(time.Millisecond)
		if got != tc.want {
			t.Errorf("Backoff(%d, r=%v) = %s, want %s", tc.attempt, tc.r, got, tc.want)
		}
	}
}
