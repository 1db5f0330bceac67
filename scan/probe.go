package scan

import (
	"context"
	"log/slog"
	"sync"
)

// Availability is one scanner's answer to Available.
type Availability struct {
	Version string
	Hint    string
	OK      bool
}

// probeParallel is how many availability probes run at once: a wrapper's
// probe starts the tool (a third of a second for node-based ones), and
// one after the other they would add up to seconds.
const probeParallel = 8

// ProbeAll asks each scanner whether it can run, several at a time, and
// returns the answers in the scanners' order. A probe that panics reports
// the scanner unavailable (and is logged): it must not take the process
// down from a bare goroutine.
func ProbeAll(ctx context.Context, log *slog.Logger, scanners []Scanner) []Availability {
	out := make([]Availability, len(scanners))
	sem := make(chan struct{}, probeParallel)
	var wg sync.WaitGroup
	for i, sc := range scanners {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() {
				if v := recover(); v != nil {
					if log != nil {
						log.ErrorContext(ctx, "scanner availability probe panicked", "scanner", sc.Name(), "panic", v)
					}
					out[i] = Availability{Hint: "availability probe failed; see the service log"}
				}
				<-sem
				wg.Done()
			}()
			v, h, ok := sc.Available(ctx)
			out[i] = Availability{Version: v, Hint: h, OK: ok}
		}()
	}
	wg.Wait()
	return out
}
