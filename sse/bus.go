// Package sse is scand's in-process event bus: the orchestrator publishes,
// and SSE subscribers, the webhook dispatcher and the notification store
// consume. It keeps a per-scan replay buffer so a late subscriber sees what
// it missed.
package sse

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Event is one thing that happened to a scan.
type Event struct {
	Scan string
	Name string
	Data any
	At   time.Time
	// StreamOnly: the event is progress for the scan's stream and replay
	// buffer, not for the sinks (webhooks, notifications, alerts). A
	// re-evaluation's scans are reported once for the whole run
	// (advisory.new_matches), not per target.
	StreamOnly bool
}

// Event names of SPEC.md.
const (
	ScanStart        = "scan.start"
	ScannerStart     = "scanner.start"
	ScannerComplete  = "scanner.complete"
	ScannerSkipped   = "scanner.skipped"
	ScannerFailed    = "scanner.failed"
	ScanComplete     = "scan.complete"
	ScanFailed       = "scan.failed"
	ScanCancelled    = "scan.cancelled"
	WebhookTest      = "webhook.test"
	ReplayBufferSize = 200
	RetainAfterEnd   = 30 * time.Second
	// subscriberQueue bounds what a slow subscriber may have pending before
	// its oldest non-terminal events are dropped.
	subscriberQueue = 256
)

// IsTerminal reports whether name ends a scan's stream.
func IsTerminal(name string) bool {
	return name == ScanComplete || name == ScanFailed || name == ScanCancelled
}

// Sink is a side-effect consumer. Its error is logged and never reaches
// the publisher: a failing webhook or notification must not break a scan.
type Sink func(context.Context, Event) error

// Bus routes events. The zero value is not usable; use NewBus.
type Bus struct {
	log   *slog.Logger
	mu    sync.Mutex
	scans map[string]*topic
	sinks []namedSink
	// retain is how long a finished scan's buffer stays; a var for tests.
	retain time.Duration
}

type namedSink struct {
	name string
	fn   Sink
}

type topic struct {
	buffer []Event // replay, at most ReplayBufferSize
	subs   map[*Subscription]struct{}
	ended  bool
	timer  *time.Timer
}

// NewBus returns an empty bus.
func NewBus(log *slog.Logger) *Bus {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Bus{log: log, scans: map[string]*topic{}, retain: RetainAfterEnd}
}

// SetRetention changes how long a finished scan's buffer is kept.
func (b *Bus) SetRetention(d time.Duration) {
	b.mu.Lock()
	b.retain = d
	b.mu.Unlock()
}

// AddSink registers a side-effect consumer; call before publishing starts.
func (b *Bus) AddSink(name string, fn Sink) {
	b.mu.Lock()
	b.sinks = append(b.sinks, namedSink{name, fn})
	b.mu.Unlock()
}

// Publish delivers ev to the scan's subscribers and replay buffer, then to
// every sink in registration order.
func (b *Bus) Publish(ctx context.Context, ev Event) {
	b.mu.Lock()
	sinks := b.sinks
	if ev.Scan != "" {
		t := b.topicLocked(ev.Scan)
		if len(t.buffer) == ReplayBufferSize {
			// Keep the first event (scan.start) context cheap: just slide.
			copy(t.buffer, t.buffer[1:])
			t.buffer = t.buffer[:ReplayBufferSize-1]
		}
		t.buffer = append(t.buffer, ev)
		for s := range t.subs {
			s.push(ev)
		}
		if IsTerminal(ev.Name) && !t.ended {
			t.ended = true
			scan := ev.Scan
			t.timer = time.AfterFunc(b.retain, func() { b.expire(scan, t) })
		}
	}
	b.mu.Unlock()
	if ev.StreamOnly {
		return
	}
	for _, s := range sinks {
		b.runSink(ctx, s, ev)
	}
}

func (b *Bus) runSink(ctx context.Context, s namedSink, ev Event) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("event sink panicked", "sink", s.name, "event", ev.Name, "scan_id", ev.Scan, "panic", r)
		}
	}()
	if err := s.fn(ctx, ev); err != nil {
		b.log.Error("event sink failed", "sink", s.name, "event", ev.Name, "scan_id", ev.Scan, "error", err)
	}
}

func (b *Bus) topicLocked(scan string) *topic {
	t := b.scans[scan]
	if t == nil {
		t = &topic{subs: map[*Subscription]struct{}{}}
		b.scans[scan] = t
	}
	return t
}

func (b *Bus) expire(scan string, t *topic) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.scans[scan] == t && len(t.subs) == 0 {
		delete(b.scans, scan)
	} else if b.scans[scan] == t {
		// Subscribers still draining; they hold what they need. Drop the
		// buffer so late joiners fall back to the stored scan state.
		t.buffer = nil
	}
}

// Subscribe returns a subscription that first yields the scan's replay
// buffer, then live events. Ended reports whether the buffer already holds
// a terminal event. Close it when done.
func (b *Bus) Subscribe(scan string) *Subscription {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.topicLocked(scan)
	s := &Subscription{bus: b, scan: scan, wake: make(chan struct{}, 1)}
	for _, ev := range t.buffer {
		s.push(ev)
	}
	t.subs[s] = struct{}{}
	return s
}

// Known reports whether the bus holds a replay buffer for scan.
func (b *Bus) Known(scan string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.scans[scan]
	return t != nil && len(t.buffer) > 0
}

// Subscribers returns the number of live subscribers of scan.
func (b *Bus) Subscribers(scan string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.scans[scan]; t != nil {
		return len(t.subs)
	}
	return 0
}

// Subscription is one consumer's queue. A slow consumer loses its oldest
// non-terminal events, never a terminal one.
type Subscription struct {
	bus     *Bus
	scan    string
	mu      sync.Mutex
	queue   []Event
	dropped int
	wake    chan struct{}
	closed  bool
}

func (s *Subscription) push(ev Event) {
	s.mu.Lock()
	if len(s.queue) >= subscriberQueue {
		s.dropOldestNonTerminal()
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Subscription) dropOldestNonTerminal() {
	for i, ev := range s.queue {
		if !IsTerminal(ev.Name) {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			s.dropped++
			return
		}
	}
}

// Next blocks until an event is available, ctx ends, or wait elapses (in
// which case ok is false and timedOut true, so the caller can send a
// keepalive).
func (s *Subscription) Next(ctx context.Context, wait time.Duration) (ev Event, ok bool, timedOut bool) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev = s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return ev, true, false
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return Event{}, false, false
		case <-t.C:
			return Event{}, false, true
		case <-s.wake:
		}
	}
}

// Dropped returns how many events were dropped for this slow subscriber.
func (s *Subscription) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Close detaches the subscription from the bus.
func (s *Subscription) Close() {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if t := s.bus.scans[s.scan]; t != nil {
		delete(t.subs, s)
		// A topic that exists only because of a subscriber (no events yet,
		// or expired) leaves nothing behind when the last one goes.
		if len(t.subs) == 0 && (len(t.buffer) == 0) {
			if t.timer != nil {
				t.timer.Stop()
			}
			delete(s.bus.scans, s.scan)
		}
	}
}
