package auth

import (
	"container/list"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// FailureThrottle slows down credential guessing: per client address it
// counts failed authentications, and past a few free ones it refuses every
// attempt from that address for an exponentially growing back-off. Only
// failures count: a correct key never spends anything, and a correct key
// from an address that is not failing is never delayed. During a back-off
// the right key is refused too (checking it would tell a guesser it is
// right), but never for longer than the Retry-After the refusal names.
//
// Memory is bounded: at most maxAddrs addresses are tracked (LRU), so a
// spray of addresses costs a fixed amount; an evicted address starts over,
// which costs a guesser the same as a new address would. IPv6 clients are
// tracked per /64, the block one host usually holds.
type FailureThrottle struct {
	free     int
	base     time.Duration
	maxDelay time.Duration
	forget   time.Duration
	maxAddrs int

	mu     sync.Mutex
	lru    *list.List // front = most recently failed
	byAddr map[netip.Prefix]*list.Element

	failures atomic.Uint64
	refusals atomic.Uint64
}

type failureRecord struct {
	addr    netip.Prefix
	n       int
	last    time.Time
	blocked time.Time // refuse until then
}

// Throttle defaults: 5 free failures, then 1 s, 2 s, 4 s ... up to 15
// minutes; an address that has not failed for an hour starts over.
const (
	ThrottleFree     = 5
	ThrottleBase     = time.Second
	ThrottleMaxDelay = 15 * time.Minute
	ThrottleForget   = time.Hour
	ThrottleMaxAddrs = 10000
)

// NewFailureThrottle returns a throttle with the documented defaults.
func NewFailureThrottle() *FailureThrottle {
	return &FailureThrottle{free: ThrottleFree, base: ThrottleBase, maxDelay: ThrottleMaxDelay, forget: ThrottleForget,
		maxAddrs: ThrottleMaxAddrs, lru: list.New(), byAddr: map[netip.Prefix]*list.Element{}}
}

// ThrottleStats are the throttle's counters since start.
type ThrottleStats struct {
	// Failures is every failed authentication recorded.
	Failures uint64
	// Refusals is every attempt refused with a 429 during a back-off.
	Refusals uint64
	// Tracked is the number of addresses currently remembered.
	Tracked int
}

// Stats returns the counters (for /metrics and tests).
func (t *FailureThrottle) Stats() ThrottleStats {
	t.mu.Lock()
	n := t.lru.Len()
	t.mu.Unlock()
	return ThrottleStats{Failures: t.failures.Load(), Refusals: t.refusals.Load(), Tracked: n}
}

// clientKey groups an address: itself for IPv4, its /64 for IPv6. An
// unparsable address (a Unix socket, a test's "pipe") is one group.
func clientKey(addr string) netip.Prefix {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap()
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(64)
	return p
}

// Check reports how long addr must still wait before it may try a
// credential; zero means it may try now. A positive wait is a refusal and
// is counted.
func (t *FailureThrottle) Check(addr string, now time.Time) time.Duration {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.byAddr[clientKey(addr)]
	if !ok {
		return 0
	}
	rec := el.Value.(*failureRecord)
	wait := rec.blocked.Sub(now)
	if wait <= 0 {
		return 0
	}
	t.refusals.Add(1)
	return wait
}

// Fail records a failed authentication from addr and returns the back-off
// it starts (zero while the address is within its free failures).
func (t *FailureThrottle) Fail(addr string, now time.Time) time.Duration {
	if t == nil {
		return 0
	}
	t.failures.Add(1)
	key := clientKey(addr)
	t.mu.Lock()
	defer t.mu.Unlock()
	var rec *failureRecord
	if el, ok := t.byAddr[key]; ok {
		rec = el.Value.(*failureRecord)
		t.lru.MoveToFront(el)
		if now.Sub(rec.last) > t.forget {
			rec.n = 0
		}
	} else {
		for t.lru.Len() >= t.maxAddrs {
			back := t.lru.Back()
			t.lru.Remove(back)
			delete(t.byAddr, back.Value.(*failureRecord).addr)
		}
		rec = &failureRecord{addr: key}
		t.byAddr[key] = t.lru.PushFront(rec)
	}
	rec.n++
	rec.last = now
	if rec.n <= t.free {
		return 0
	}
	delay := t.maxDelay
	if shift := rec.n - t.free - 1; shift < 30 {
		delay = min(t.base<<shift, t.maxDelay)
	}
	rec.blocked = now.Add(delay)
	return delay
}
