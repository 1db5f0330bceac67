package auth

import (
	"strconv"
	"testing"
	"time"
)

var rlStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func drain(t *testing.T, l *RateLimiter, key string, now time.Time, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if d := l.Allow(key, now); !d.Allowed {
			t.Fatalf("request %d of %d refused: %+v", i+1, n, d)
		}
	}
}

func TestRateLimiterBurstThenSustainedRate(t *testing.T) {
	l := NewRateLimiter(60, 10, true)
	for i := 1; i <= 10; i++ {
		d := l.Allow("k", rlStart)
		if !d.Allowed || d.Limit != 60 || d.Remaining != 10-i {
			t.Fatalf("request %d: %+v, want allowed with %d remaining", i, d, 10-i)
		}
	}
	d := l.Allow("k", rlStart)
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("11th request in the same instant: %+v, want refused", d)
	}
	if d.RetryAfter != time.Second {
		t.Fatalf("RetryAfter = %v, want 1s at 60/min", d.RetryAfter)
	}
	// Full again after 10 tokens at 1/s.
	if want := rlStart.Add(10 * time.Second); !d.Reset.Equal(want) {
		t.Fatalf("Reset = %v, want %v", d.Reset, want)
	}
	// 60/min is one token a second: half a second is not enough.
	if d := l.Allow("k", rlStart.Add(500*time.Millisecond)); d.Allowed {
		t.Fatalf("allowed after 0.5 s: %+v", d)
	}
	if d := l.Allow("k", rlStart.Add(time.Second)); !d.Allowed {
		t.Fatalf("refused after 1 s: %+v", d)
	}
	if d := l.Allow("k", rlStart.Add(time.Second)); d.Allowed {
		t.Fatalf("second request after 1 s allowed: %+v", d)
	}
	// Over a minute, exactly 60 more requests pass at one a second.
	allowed := 0
	for i := 2; i <= 61; i++ {
		now := rlStart.Add(time.Duration(i) * time.Second)
		for {
			if !l.Allow("k", now).Allowed {
				break
			}
			allowed++
		}
	}
	if allowed != 60 {
		t.Fatalf("sustained: %d requests allowed in 60 s, want 60", allowed)
	}
}

func TestRateLimiterRefillCapsAtBurst(t *testing.T) {
	l := NewRateLimiter(60, 10, true)
	drain(t, l, "k", rlStart, 10)
	later := rlStart.Add(30 * time.Minute)
	drain(t, l, "k", later, 10)
	if d := l.Allow("k", later); d.Allowed {
		t.Fatalf("an idle bucket held more than the burst: %+v", d)
	}
}

func TestRateLimiterRetryAfterScalesWithRate(t *testing.T) {
	l := NewRateLimiter(6, 1, true) // one token every 10 s
	drain(t, l, "k", rlStart, 1)
	d := l.Allow("k", rlStart.Add(3*time.Second))
	if d.Allowed || d.RetryAfter != 7*time.Second {
		t.Fatalf("%+v, want refused with RetryAfter 7s", d)
	}
	if d.Limit != 6 {
		t.Fatalf("Limit = %d, want the per-minute figure 6", d.Limit)
	}
}

func TestRateLimiterBucketsAreIndependent(t *testing.T) {
	l := NewRateLimiter(60, 10, true)
	drain(t, l, "key-a", rlStart, 10)
	if l.Allow("key-a", rlStart).Allowed {
		t.Fatal("key-a not limited")
	}
	drain(t, l, "key-b", rlStart, 10)
	drain(t, l, "env", rlStart, 10)
	if l.Len() != 3 {
		t.Fatalf("Len = %d, want 3 buckets", l.Len())
	}
}

func TestRateLimiterEvictsLeastRecentlyUsed(t *testing.T) {
	l := NewRateLimiter(60, 10, true)
	const maxBuckets = 10000
	drain(t, l, "oldest", rlStart, 10)
	drain(t, l, "kept", rlStart, 10)
	for i := 0; i < maxBuckets-2; i++ {
		l.Allow("filler-"+strconv.Itoa(i), rlStart)
	}
	if l.Len() != maxBuckets {
		t.Fatalf("Len = %d, want %d", l.Len(), maxBuckets)
	}
	// Touch "kept" (a refusal still counts as use) so "oldest" is the LRU.
	if l.Allow("kept", rlStart).Allowed {
		t.Fatal("kept bucket not empty")
	}
	l.Allow("newcomer", rlStart)
	if l.Len() != maxBuckets {
		t.Fatalf("Len = %d after overflow, want the cap %d", l.Len(), maxBuckets)
	}
	// The evicted bucket restarts full; the recently used one stays empty.
	if d := l.Allow("kept", rlStart); d.Allowed {
		t.Fatalf("recently used bucket was evicted: %+v", d)
	}
	drain(t, l, "oldest", rlStart, 10)
}

func TestRateLimiterIdleBucketsExpireAfterAnHour(t *testing.T) {
	// Refill would fill any bucket within an hour, so expiry shows only in
	// the number of buckets kept.
	l := NewRateLimiter(1, 2, true)
	drain(t, l, "idle", rlStart, 2)
	drain(t, l, "busy", rlStart, 2)
	if d := l.Allow("busy", rlStart.Add(30*time.Minute)); !d.Allowed {
		t.Fatalf("busy refused after 30 min: %+v", d)
	}
	l.Allow("third", rlStart.Add(61*time.Minute))
	if l.Len() != 2 {
		t.Fatalf("Len = %d, want 2: the bucket idle for over an hour must be dropped", l.Len())
	}
}

func TestRateLimiterDisabled(t *testing.T) {
	l := NewRateLimiter(60, 1, false)
	if l.Enabled() {
		t.Fatal("Enabled() = true")
	}
	for i := 0; i < 100; i++ {
		if !l.Allow("k", rlStart).Allowed {
			t.Fatalf("disabled limiter refused request %d", i+1)
		}
	}
	if l.Len() != 0 {
		t.Fatalf("disabled limiter keeps %d buckets", l.Len())
	}
	if !NewRateLimiter(60, 1, true).Enabled() {
		t.Fatal("enabled limiter reports disabled")
	}
}
