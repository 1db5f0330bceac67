package schedule

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// background is the start-once, stop-with-a-bound life of a goroutine the
// scheduler and retention each run for the daemon's lifetime.
type background struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// start runs loop in a goroutine on a context that outlives ctx's
// cancellation (stop ends it); a second start is an error.
func (b *background) start(ctx context.Context, name string, loop func(ctx context.Context)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done != nil {
		return errors.New(name + " already started")
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
func (b *background) stop(timeout time.Duration, name string, log *slog.Logger) {
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
		log.Error(name+" did not stop in time", "timeout", timeout.String())
	}
}
