package schedule

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// background is the start-once, stop-with-a-bound life of a goroutine the
// scheduler and retention each run for the daemon's lifetime, and the
// pause between its passes that a wake-up cuts short.
type background struct {
	name string
	// wake holds at most one pending wake-up: those that come while a
	// pass runs fold into one more pass.
	wake chan struct{}

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// newBackground names the loop in its errors and log lines.
func newBackground(name string) *background {
	return &background{name: name, wake: make(chan struct{}, 1)}
}

// start runs loop in a goroutine on a context that outlives ctx's
// cancellation (stop ends it); a second start is an error.
func (b *background) start(ctx context.Context, loop func(ctx context.Context)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done != nil {
		return errors.New(b.name + " already started")
	}
	ctx, b.cancel = context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	b.done = done
	go func() {
		defer close(done)
		loop(ctx)
	}()
	return nil
}

// stop cancels the loop and waits for it at most timeout.
func (b *background) stop(timeout time.Duration, log *slog.Logger) {
	b.mu.Lock()
	cancel, done := b.cancel, b.done
	b.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	select {
	case <-done:
	case <-time.After(timeout):
		log.Error(b.name+" did not stop in time", "timeout", timeout.String())
	}
}

// poke ends the loop's pause now, or the next one if it is not pausing;
// it never blocks.
func (b *background) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// pause waits d, or until poked; false when the loop is to end.
func (b *background) pause(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-b.wake:
	case <-timer.C:
	}
	return true
}
