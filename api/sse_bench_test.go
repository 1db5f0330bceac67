package api

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/sse"
	"scand/store"
)

// BenchmarkSSEThousandClients connects 1,000 HTTP event streams to one
// running scan and measures from publishing scan.complete until every
// client has read it.
func BenchmarkSSEThousandClients(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := newBenchHarness(b)
		id := store.NewID()
		ctx := context.Background()
		h.store.CreateScan(ctx, store.Scan{ID: id, TargetPath: "/tmp", ScanTypes: []string{"code"}, StartedAt: time.Now()})
		h.store.MarkScanRunning(ctx, id)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2000, MaxConnsPerHost: 0}}
		var connected, done sync.WaitGroup
		received := make(chan time.Time, 1000)
		for j := 0; j < 1000; j++ {
			connected.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				resp, err := client.Get(h.srv.URL + "/api/v1/scans/" + id + "/events")
				connected.Done()
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "event: scan.complete") {
						received <- time.Now()
						return
					}
				}
			}()
		}
		connected.Wait()
		for h.bus.Subscribers(id) < 1000 {
			time.Sleep(5 * time.Millisecond)
		}
		b.StartTimer()
		start := time.Now()
		h.bus.Publish(ctx, sse.Event{Scan: id, Name: sse.ScanComplete, Data: sse.ScanCompleteData{ScanID: id}})
		done.Wait()
		b.StopTimer()
		close(received)
		var last time.Time
		n := 0
		for at := range received {
			n++
			if at.After(last) {
				last = at
			}
		}
		if n != 1000 {
			b.Fatalf("%d of 1000 clients received scan.complete", n)
		}
		b.ReportMetric(float64(last.Sub(start).Microseconds())/1000, "ms-to-last-client")
		client.CloseIdleConnections()
		h.close()
	}
}
