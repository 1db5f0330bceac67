package hook

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"

	"scand/sse"
)

// orderReceiver counts deliveries per subscription and every time one
// arrives out of order (its sequence number is not the next expected).
type orderReceiver struct {
	mu         sync.Mutex
	next       map[string]int
	total      int
	violations int
	done       chan struct{}
	want       int
}

func (o *orderReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var env struct {
		Data struct {
			FindingsCount int `json:"findings_count"`
		} `json:"data"`
	}
	_ = json.Unmarshal(raw, &env)
	id := r.Header.Get(HeaderWebhookID)
	o.mu.Lock()
	if env.Data.FindingsCount != o.next[id] {
		o.violations++
	}
	o.next[id] = env.Data.FindingsCount + 1
	o.total++
	if o.total == o.want {
		close(o.done)
	}
	o.mu.Unlock()
}

// BenchmarkWebhookDelivery sends 10,000 deliveries (200 events x 50
// subscriptions) to a loopback receiver and reports deliveries per second
// and order violations. "live" publishes through the bus sink while the
// workers run; "backlog" drains 10,000 rows already committed (the restart
// case); "one-subscription-backlog" drains 10,000 rows of one subscription.
// Run with -benchtime 1x (bench/webhooks.sh).
func BenchmarkWebhookDelivery(b *testing.B) {
	for _, bc := range []struct {
		name, mode            string
		subscriptions, events int
	}{
		{"live", "live", 50, 200},
		{"backlog", "backlog", 50, 200},
		// One subscription with a 10,000-row backlog: finding the head of
		// the queue must stay cheap however long the queue is.
		{"one-subscription-backlog", "backlog", 1, 10000},
	} {
		mode, subscriptions, events := bc.mode, bc.subscriptions, bc.events
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				st := openTestStore(b)
				recv := &orderReceiver{next: map[string]int{}, done: make(chan struct{}), want: subscriptions * events}
				srv := httptest.NewServer(recv)
				for s := 0; s < subscriptions; s++ {
					createTestWebhook(b, st, srv.URL, sse.ScanComplete)
				}
				d := New(Config{Store: st, AllowPrivate: true})
				publish := func() {
					for e := 0; e < events; e++ {
						if mode == "backlog" {
							if _, err := st.EnqueueEvent(context.Background(), sse.ScanComplete, mustJSON(b, scanComplete(e)), time.Now()); err != nil {
								b.Fatal(err)
							}
							continue
						}
						if err := d.Sink(context.Background(), sse.Event{Name: sse.ScanComplete, Data: scanComplete(e)}); err != nil {
							b.Fatal(err)
						}
					}
				}
				if mode == "backlog" {
					publish()
				}
				b.StartTimer()
				cpuStart := processCPU()
				start := time.Now()
				if err := d.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				if mode == "live" {
					publish()
				}
				select {
				case <-recv.done:
				case <-time.After(5 * time.Minute):
					b.Fatalf("only %d of %d deliveries arrived", recv.total, recv.want)
				}
				elapsed := time.Since(start)
				cpu := processCPU() - cpuStart
				b.StopTimer()
				d.Stop()
				srv.Close()
				b.ReportMetric(float64(recv.want)/elapsed.Seconds(), "deliveries/s")
				b.ReportMetric(float64(recv.violations), "order_violations")
				// CPU per delivery (dispatcher, SQLite and the receiver, all in
				// this process) is steadier than wall time on a shared machine.
				b.ReportMetric(float64(cpu.Microseconds())/float64(recv.want), "cpu-µs/delivery")
				if recv.violations != 0 {
					b.Errorf("%d order violations", recv.violations)
				}
			}
		})
	}
}

func mustJSON(b *testing.B, v any) []byte {
	raw, err := compactJSON(v)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// processCPU is the user+system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
