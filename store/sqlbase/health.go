package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
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

// writeHealth remembers the last storage failure any statement met and the
// outcome of the last write probe. A failure is cleared only by a probe
// that succeeds after it, never by an unrelated small write that happened
// to fit: on a nearly full disk those succeed while inserts keep failing.
type writeHealth struct {
	mu        sync.Mutex
	failure   WriteState // last storage failure not yet cleared by a probe
	failureAt time.Time
	probedAt  time.Time // when the last conclusive probe finished
	probing   chan struct{}
	clock     func() time.Time
}

// observe records err when it is a storage failure and returns it as is.
func (h *writeHealth) observe(err error) error {
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

// Probe timing: a healthy store is re-probed at most every
// probeInterval, a failing one at most every retryInterval, so a
// readiness check polled every second costs at most one small write
// transaction per interval.
const (
	probeInterval = 10 * time.Second
	retryInterval = time.Second
	// probeBytes of new pages must fit (SQLite's page limit and free
	// pages), and minFreeBytes must be free on the file system, for the
	// store to count as writable.
	probeBytes   = 64 << 10
	minFreeBytes = 1 << 20
)

// WriteHealth reports whether the store can write, probing when the last
// probe is stale or a failure has been seen since. The probe runs in the
// background: when ctx ends first (a long write transaction holds the
// lock), the last known state is returned rather than a guess.
func (s *Store) WriteHealth(ctx context.Context) WriteState {
	h := s.health
	h.mu.Lock()
	now := h.clock()
	stale := now.Sub(h.probedAt) >= probeInterval
	failing := h.failure.Kind != "" && now.Sub(h.probedAt) >= retryInterval
	done := h.probing
	if done == nil && (stale || failing) {
		done = make(chan struct{})
		h.probing = done
		go s.runProbe(done)
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

func (s *Store) runProbe(done chan struct{}) {
	h := s.health
	start := h.clock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := s.probeWrite(ctx)
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

// probeWrite checks, without leaving a trace, that a modest write fits:
// free space on the file system, probeBytes of new pages inside SQLite's
// page limit (allocated in a transaction that is rolled back), and one
// committed write through the WAL (I/O errors, a read-only file).
func (s *Store) probeWrite(ctx context.Context) error {
	if s.path != "" {
		var st syscall.Statfs_t
		if err := syscall.Statfs(filepath.Dir(s.path), &st); err == nil {
			if free := st.Bavail * uint64(st.Bsize); free < minFreeBytes {
				return fmt.Errorf("%w: %d bytes free on the database's file system", ErrDiskFull, free)
			}
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	// Version 0 is never a migration; the row is rolled back either way.
	_, err = tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (0, 'write probe', '', zeroblob(?))", probeBytes)
	if rbErr := tx.Rollback(); err == nil && rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) {
		err = rbErr
	}
	if err != nil {
		return err
	}
	// SQLite skips a row update that changes nothing, but rewriting the
	// header's user_version (unused by scand) with its own value always
	// appends a frame to the WAL: a real commit that changes nothing.
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var v int64
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.FormatInt(v, 10))
		return err
	})
}
