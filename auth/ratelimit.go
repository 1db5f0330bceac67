package auth

import (
	"container/list"
	"math"
	"sync"
	"time"
)

// RateLimiter is a token bucket per principal with a bounded, LRU-evicted
// bucket store. An evicted or expired bucket restarts full, which is the
// documented trade-off for bounded memory.
type RateLimiter struct {
	perMin   int
	burst    int
	maxKeys  int
	idleTTL  time.Duration
	mu       sync.Mutex
	lru      *list.List // front = most recently used
	byKey    map[string]*list.Element
	disabled bool
}

type bucket struct {
	key    string
	tokens float64
	last   time.Time
}

// RateDecision is the outcome of one Allow call, with what the headers need.
type RateDecision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Time // when the bucket is full again
	RetryAfter time.Duration
}

// NewRateLimiter builds a limiter; enabled=false makes Allow always pass.
func NewRateLimiter(perMin, burst int, enabled bool) *RateLimiter {
	return &RateLimiter{perMin: perMin, burst: burst, maxKeys: 10000, idleTTL: time.Hour,
		lru: list.New(), byKey: map[string]*list.Element{}, disabled: !enabled}
}

// Enabled reports whether the limiter enforces anything.
func (l *RateLimiter) Enabled() bool { return !l.disabled }

// Allow takes one token from key's bucket at time now.
func (l *RateLimiter) Allow(key string, now time.Time) RateDecision {
	if l.disabled {
		return RateDecision{Allowed: true, Limit: l.perMin, Remaining: l.burst, Reset: now}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rate := float64(l.perMin) / 60 // tokens per second
	b := l.get(key, now)
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(float64(l.burst), b.tokens+elapsed*rate)
	}
	b.last = now
	d := RateDecision{Limit: l.perMin}
	if b.tokens >= 1 {
		b.tokens--
		d.Allowed = true
	} else {
		d.RetryAfter = time.Duration(math.Ceil((1-b.tokens)/rate)) * time.Second
	}
	d.Remaining = int(math.Floor(b.tokens))
	d.Reset = now.Add(time.Duration((float64(l.burst) - b.tokens) / rate * float64(time.Second)))
	return d
}

func (l *RateLimiter) get(key string, now time.Time) *bucket {
	if el, ok := l.byKey[key]; ok {
		b := el.Value.(*bucket)
		if now.Sub(b.last) <= l.idleTTL {
			l.lru.MoveToFront(el)
			return b
		}
		l.lru.Remove(el)
		delete(l.byKey, key)
	}
	// Expire idle buckets from the back before evicting live ones.
	for back := l.lru.Back(); back != nil && now.Sub(back.Value.(*bucket).last) > l.idleTTL; back = l.lru.Back() {
		l.lru.Remove(back)
		delete(l.byKey, back.Value.(*bucket).key)
	}
	for l.lru.Len() >= l.maxKeys {
		back := l.lru.Back()
		l.lru.Remove(back)
		delete(l.byKey, back.Value.(*bucket).key)
	}
	b := &bucket{key: key, tokens: float64(l.burst), last: now}
	l.byKey[key] = l.lru.PushFront(b)
	return b
}

// Len returns the number of live buckets (for tests and metrics).
func (l *RateLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}
