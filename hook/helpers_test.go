package hook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"scand/sse"
	"scand/store"
)

func openTestStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "hook.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newTestDispatcher returns a started dispatcher with timings short enough
// for tests; it is stopped when the test ends.
func newTestDispatcher(t testing.TB, st *store.Store, allowPrivate bool, tune func(*Dispatcher)) *Dispatcher {
	t.Helper()
	d := New(Config{Store: st, AllowPrivate: allowPrivate})
	d.Timeout = 2 * time.Second
	d.BackoffBase = 5 * time.Millisecond
	d.BackoffCap = 20 * time.Millisecond
	d.RetryAfterError = 20 * time.Millisecond
	if tune != nil {
		tune(d)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return d
}

func createTestWebhook(t testing.TB, st *store.Store, url string, events ...string) store.Webhook {
	t.Helper()
	if len(events) == 0 {
		events = Events
	}
	wh, err := st.CreateWebhook(context.Background(), store.Webhook{ID: store.NewID(), Name: "test", URL: url, Secret: NewSecret(), EventFilter: events, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	return wh
}

// received is one request as the receiver saw it, body bytes untouched.
type received struct {
	Header http.Header
	Body   []byte
	Path   string
}

// recorder is a loopback receiver that keeps every request and answers
// with whatever status respond returns (200 when nil).
type recorder struct {
	mu      sync.Mutex
	reqs    []received
	respond func(n int, r received) int
	srv     *httptest.Server
}

func newRecorder(t testing.TB, respond func(n int, r received) int) *recorder {
	t.Helper()
	rec := &recorder{respond: respond}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := received{Header: r.Header.Clone(), Body: body, Path: r.URL.Path}
		rec.mu.Lock()
		n := len(rec.reqs)
		rec.reqs = append(rec.reqs, got)
		rec.mu.Unlock()
		status := http.StatusOK
		if rec.respond != nil {
			status = rec.respond(n, got)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (r *recorder) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.reqs...)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// waitFor polls cond until it holds or the timeout fails the test.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func deliveryStatus(t testing.TB, st *store.Store, id string) store.Delivery {
	t.Helper()
	d, err := st.DeliveryByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func waitDeliveryStatus(t testing.TB, st *store.Store, id, status string) store.Delivery {
	t.Helper()
	var d store.Delivery
	waitFor(t, 60*time.Second, "delivery "+id+" to be "+status, func() bool {
		d = deliveryStatus(t, st, id)
		return d.Status == status
	})
	return d
}

func scanComplete(i int) sse.ScanCompleteData {
	return sse.ScanCompleteData{
		ScanID:         "scan-" + strconv.Itoa(i),
		TargetPath:     "/srv/app",
		FindingsCount:  i,
		RiskScore:      40,
		SeverityCounts: sse.SeverityCounts{Critical: 1, High: 2, Medium: 3, Low: 4, Info: 5},
		DurationS:      1.5,
	}
}
