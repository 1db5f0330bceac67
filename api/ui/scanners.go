package ui

import (
	"context"
	"sync"
	"time"
)

// scannersFresh is how long an availability answer is shown before it is
// refreshed; it matches the wrapped scanners' own probe cache.
const scannersFresh = 30 * time.Second

// scannerCache keeps the last scanner availability: probing starts tools,
// and the overview shows availability on every load. A stale answer is
// still shown while a refresh runs in the background.
type scannerCache struct {
	mu         sync.Mutex
	states     []ScannerState
	at         time.Time
	refreshing bool
}

func (c *Console) scannerStates(ctx context.Context) []ScannerState {
	sc := &c.scanners
	sc.mu.Lock()
	cached := sc.states
	if cached != nil && c.cfg.Now().Sub(sc.at) >= scannersFresh && !sc.refreshing {
		sc.refreshing = true
		go func() {
			// Not the request's context: the refresh outlives the page that
			// noticed the answer was stale; the API's probe bounds its time.
			c.storeScanners(c.cfg.Actions.Scanners(context.Background()))
		}()
	}
	sc.mu.Unlock()
	if cached != nil {
		return cached
	}
	fresh := c.cfg.Actions.Scanners(ctx)
	if ctx.Err() == nil {
		c.storeScanners(fresh)
	}
	return fresh
}

func (c *Console) storeScanners(states []ScannerState) {
	c.scanners.mu.Lock()
	c.scanners.states, c.scanners.at, c.scanners.refreshing = states, c.cfg.Now(), false
	c.scanners.mu.Unlock()
}
