package ui

import (
	"context"
	"sync"
	"time"
)

// probesFresh is how long a scanner-availability or advisory-data answer
// is shown before it is refreshed; it matches the wrapped scanners' own
// probe cache.
const probesFresh = 30 * time.Second

// probeCache keeps the last answer of a probe the overview shows on every
// load: probing scanners starts tools, and dating advisory databases opens
// their archives. A stale answer is still shown while a refresh runs in
// the background.
type probeCache[T any] struct {
	mu         sync.Mutex
	value      T
	have       bool
	at         time.Time
	refreshing bool
}

// get returns the cached answer, probing now only when there is none.
func (pc *probeCache[T]) get(ctx context.Context, now func() time.Time, probe func(context.Context) T) T {
	pc.mu.Lock()
	cached, have := pc.value, pc.have
	if have && now().Sub(pc.at) >= probesFresh && !pc.refreshing {
		pc.refreshing = true
		go func() {
			// Not the request's context: the refresh outlives the page that
			// noticed the answer was stale; the probe bounds its own time.
			pc.store(probe(context.Background()), now())
		}()
	}
	pc.mu.Unlock()
	if have {
		return cached
	}
	fresh := probe(ctx)
	if ctx.Err() == nil {
		pc.store(fresh, now())
	}
	return fresh
}

func (pc *probeCache[T]) store(v T, at time.Time) {
	pc.mu.Lock()
	pc.value, pc.have, pc.at, pc.refreshing = v, true, at, false
	pc.mu.Unlock()
}

func (c *Console) scannerStates(ctx context.Context) []ScannerState {
	return c.scanners.get(ctx, c.cfg.Now, c.cfg.Actions.Scanners)
}

func (c *Console) advisoryData(ctx context.Context) []AdvisoryDB {
	return c.advisory.get(ctx, c.cfg.Now, c.cfg.Actions.AdvisoryData)
}
