package sse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

func publishN(b *Bus, scan string, n int) {
	for i := 0; i < n; i++ {
		b.Publish(context.Background(), Event{Scan: scan, Name: ScannerStart, Data: i})
	}
}

func TestReplayBufferKeepsLast200(t *testing.T) {
	b := NewBus(nil)
	publishN(b, "s", 250)
	sub := b.Subscribe("s")
	defer sub.Close()
	var got []int
	for {
		ev, ok, _ := sub.Next(context.Background(), 10*time.Millisecond)
		if !ok {
			break
		}
		got = append(got, ev.Data.(int))
	}
	if len(got) != ReplayBufferSize || got[0] != 50 || got[len(got)-1] != 249 {
		t.Fatalf("replay = %d events from %v to %v, want 200 from 50 to 249", len(got), got[0], got[len(got)-1])
	}
}

func TestSlowSubscriberStillGetsTerminal(t *testing.T) {
	b := NewBus(nil)
	sub := b.Subscribe("s")
	defer sub.Close()
	publishN(b, "s", 5000) // never read while publishing
	b.Publish(context.Background(), Event{Scan: "s", Name: ScanComplete})
	var last Event
	n := 0
	for {
		ev, ok, _ := sub.Next(context.Background(), 10*time.Millisecond)
		if !ok {
			break
		}
		last = ev
		n++
	}
	if last.Name != ScanComplete {
		t.Fatalf("last event %q, want scan.complete", last.Name)
	}
	if sub.Dropped() == 0 || n > subscriberQueue {
		t.Fatalf("queue not bounded: received %d, dropped %d", n, sub.Dropped())
	}
}

func TestTerminalNeverDroppedEvenWhenQueueIsAllTerminal(t *testing.T) {
	s := &Subscription{wake: make(chan struct{}, 1)}
	for i := 0; i < subscriberQueue+10; i++ {
		s.push(Event{Name: ScannerStart})
	}
	s.push(Event{Name: ScanFailed})
	for i := 0; i < subscriberQueue; i++ {
		s.push(Event{Name: ScannerComplete})
	}
	found := false
	for _, ev := range s.queue {
		found = found || ev.Name == ScanFailed
	}
	if !found {
		t.Fatal("terminal event was dropped")
	}
}

func TestBufferExpiresAfterTerminal(t *testing.T) {
	b := NewBus(nil)
	b.SetRetention(20 * time.Millisecond)
	b.Publish(context.Background(), Event{Scan: "s", Name: ScanStart})
	b.Publish(context.Background(), Event{Scan: "s", Name: ScanComplete})
	if !b.Known("s") {
		t.Fatal("buffer gone right after the terminal event")
	}
	time.Sleep(100 * time.Millisecond)
	if b.Known("s") {
		t.Fatal("buffer kept after its retention")
	}
	b.mu.Lock()
	left := len(b.scans)
	b.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d topics left behind", left)
	}
}

func TestSubscriberCloseLeavesNothing(t *testing.T) {
	b := NewBus(nil)
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub := b.Subscribe("quiet")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			sub.Next(ctx, time.Hour)
			cancel()
			sub.Close()
		}()
	}
	wg.Wait()
	if n := b.Subscribers("quiet"); n != 0 {
		t.Fatalf("%d subscribers left", n)
	}
	b.mu.Lock()
	topics := len(b.scans)
	b.mu.Unlock()
	if topics != 0 {
		t.Fatalf("%d empty topics left", topics)
	}
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Fatalf("goroutines %d > %d before", g, before)
	}
}

func TestSinkFailureIsIsolated(t *testing.T) {
	b := NewBus(nil)
	var got []string
	b.AddSink("bad", func(context.Context, Event) error { return errors.New("receiver down") })
	b.AddSink("panics", func(context.Context, Event) error { panic("boom") })
	b.AddSink("good", func(_ context.Context, ev Event) error { got = append(got, ev.Name); return nil })
	b.Publish(context.Background(), Event{Scan: "s", Name: ScanComplete})
	if len(got) != 1 {
		t.Fatalf("a failing sink stopped later sinks: %v", got)
	}
}

func TestWriteEventFraming(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteEvent(&buf, Event{Name: "scan.complete", Data: map[string]int{"findings_count": 3}}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "event: scan.complete\ndata: {\"findings_count\":3}\n\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
	buf.Reset()
	WriteEvent(&buf, Event{Name: "x\ny", Data: nil})
	if bytes.Count(buf.Bytes(), []byte("\n")) != 3 {
		t.Fatalf("newline in a name broke framing: %q", buf.String())
	}
}

// BenchmarkThousandSubscribersTerminal measures publish of scan.complete
// to 1,000 subscribers until every one has received it.
func BenchmarkThousandSubscribersTerminal(b *testing.B) {
	for i := 0; i < b.N; i++ {
		bus := NewBus(nil)
		scan := fmt.Sprintf("scan-%d", i)
		var ready, done sync.WaitGroup
		for j := 0; j < 1000; j++ {
			sub := bus.Subscribe(scan)
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				defer sub.Close()
				ready.Done()
				for {
					ev, ok, _ := sub.Next(context.Background(), 10*time.Second)
					if !ok || ev.Name == ScanComplete {
						return
					}
				}
			}()
		}
		ready.Wait()
		start := time.Now()
		bus.Publish(context.Background(), Event{Scan: scan, Name: ScanComplete})
		done.Wait()
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms-to-all")
	}
}
