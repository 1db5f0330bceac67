package sqlbase

import (
	"context"
	"errors"
	"sync"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDiskFull marks a write that failed because the file system holding
// the database is full (ENOSPC, EDQUOT) or SQLite reached its page limit
// (SQLITE_FULL). The API answers it with 507 instead of a generic 500.
var ErrDiskFull = errors.New("database disk is full")

// IsDiskFull reports whether err means the database cannot grow.
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrDiskFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	return sqliteCode(err) == sqlite3.SQLITE_FULL
}

// sqliteCode is the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// storageFailure names what kind of "cannot write" err is, or "" when err
// says nothing about the storage (a constraint, a busy database, a
// cancelled context).
func storageFailure(err error) string {
	switch {
	case err == nil:
		return ""
	case IsDiskFull(err):
		return "disk_full"
	case errors.Is(err, syscall.EROFS):
		return "read_only"
	case errors.Is(err, syscall.EIO):
		return "io_error"
	}
	switch sqliteCode(err) {
	case sqlite3.SQLITE_READONLY:
		return "read_only"
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
		return "io_error"
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return "corrupt"
	}
	return ""
}

// Fixed texts per failure kind: a readiness detail never carries paths or
// driver messages.
var storageDetails = map[string]string{
	"disk_full": "the file system holding the database is full; writes fail until space is freed",
	"read_only": "the database is read-only (file permissions or a read-only file system)",
	"io_error":  "the database file cannot be written (I/O error)",
	"corrupt":   "the database file is damaged",
}

// WriteState is what the store knows about whether it can write.
type WriteState struct {
	// Kind is "" when writes work, else disk_full, read_only, io_error or
	// corrupt.
	Kind string
	// Detail explains Kind in one sentence without paths.
	Detail string
	// Since is when the failure was first seen (zero when writable).
	Since time.Time
}

// OK reports whether the store can write.
func (w WriteState) OK() bool { return w.Kind == "" }

// Health remembers the last storage failure any statement met and the
// outcome of the last write probe. A failure is cleared only by a probe
// that succeeds after it, never by an unrelated small write that happened
// to fit: on a nearly full disk those succeed while inserts keep failing.
type Health struct {
	mu        sync.Mutex
	failure   WriteState // last storage failure not yet cleared by a probe
	failureAt time.Time
	probedAt  time.Time // when the last conclusive probe finished
	probing   chan struct{}
	clock     func() time.Time
}

// NewHealth is a Health on the store's clock.
func NewHealth(clock func() time.Time) *Health { return &Health{clock: clock} }

// observe records err when it is a storage failure and returns it as is.
func (h *Health) observe(err error) error {
	kind := storageFailure(err)
	if kind == "" {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.clock()
	if h.failure.Kind != kind {
		h.failure = WriteState{Kind: kind, Detail: storageDetails[kind], Since: now}
	}
	h.failureAt = now
	return err
}

// Observe records err when it is a storage failure (a check made outside
// the connections, such as free space) and returns it as is.
func (h *Health) Observe(err error) error { return h.observe(err) }

// Probe timing: a healthy store is re-probed at most every
// probeInterval, a failing one at most every RetryInterval, so a
// readiness check polled every second costs at most one small write
// transaction per interval.
const (
	probeInterval = 10 * time.Second
	RetryInterval = time.Second
	// MinFreeBytes must be free on the file system for the store to
	// count as writable, and for the space guard to let a write start.
	MinFreeBytes = 1 << 20
)

// Known is the last storage failure seen, without probing.
func (h *Health) Known() WriteState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failure
}

// State reports whether the store can write, running probe when the last
// probe is stale or a failure has been seen since. The probe runs in the
// background: when ctx ends first (a long write transaction holds the
// lock), the last known state is returned rather than a guess.
func (h *Health) State(ctx context.Context, probe func(context.Context) error) WriteState {
	h.mu.Lock()
	now := h.clock()
	stale := now.Sub(h.probedAt) >= probeInterval
	failing := h.failure.Kind != "" && now.Sub(h.probedAt) >= RetryInterval
	done := h.probing
	if done == nil && (stale || failing) {
		done = make(chan struct{})
		h.probing = done
		go h.runProbe(done, probe)
	}
	h.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failure
}

func (h *Health) runProbe(done chan struct{}, probe func(context.Context) error) {
	start := h.clock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := probe(ctx)
	cancel()
	h.mu.Lock()
	defer h.mu.Unlock()
	defer close(done)
	h.probing = nil
	kind := storageFailure(err)
	switch {
	case err == nil:
		// Only failures seen before the probe started are disproved by it.
		if !h.failureAt.After(start) {
			h.failure = WriteState{}
		}
		h.probedAt = h.clock()
	case kind != "":
		if h.failure.Kind != kind {
			h.failure = WriteState{Kind: kind, Detail: storageDetails[kind], Since: h.clock()}
		}
		h.failureAt = h.clock()
		h.probedAt = h.clock()
	}
	// Anything else (busy, timeout) proves nothing either way.
}
