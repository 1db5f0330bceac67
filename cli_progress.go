package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"scand/finding/report"
)

// heartbeatInterval is how often the command line says a long scanner is
// still at work: a CI log that stays silent for minutes looks hung.
const heartbeatInterval = 10 * time.Second

// heartbeat prints, every interval while a scanner runs, its name and how
// long it has been running. started and finished come from the progress
// sink; close stops every ticker.
type heartbeat struct {
	w        io.Writer
	interval time.Duration
	mu       sync.Mutex
	running  map[string]chan struct{}
	wg       sync.WaitGroup
}

func newHeartbeat(w io.Writer, interval time.Duration) *heartbeat {
	return &heartbeat{w: w, interval: interval, running: map[string]chan struct{}{}}
}

func (h *heartbeat) started(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.running[name]; ok || h.running == nil {
		return
	}
	done := make(chan struct{})
	h.running[name] = done
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		start := time.Now()
		t := time.NewTicker(h.interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				h.mu.Lock()
				select {
				case <-done:
				default:
					fmt.Fprintf(h.w, "scand: %s: still running after %s\n", report.Printable(name, 100), now.Sub(start).Round(time.Second))
				}
				h.mu.Unlock()
			}
		}
	}()
}

func (h *heartbeat) finished(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if done, ok := h.running[name]; ok {
		close(done)
		delete(h.running, name)
	}
}

// close stops every ticker and waits for them, so nothing is printed
// after the report.
func (h *heartbeat) close() {
	h.mu.Lock()
	for name, done := range h.running {
		close(done)
		delete(h.running, name)
	}
	h.running = nil
	h.mu.Unlock()
	h.wg.Wait()
}
