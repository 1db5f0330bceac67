package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"syscall"

	"scand/store/sqlbase"
)

// What the store knows about whether it can write: sqlbase keeps the
// failures every statement met; the probe below is the write that clears
// them once it succeeds again.

// ErrDiskFull marks a write that failed because the file system holding
// the database is full (ENOSPC, EDQUOT) or SQLite reached its page limit
// (SQLITE_FULL). The API answers it with 507 instead of a generic 500.
var ErrDiskFull = sqlbase.ErrDiskFull

// IsDiskFull reports whether err means the database cannot grow.
func IsDiskFull(err error) bool { return sqlbase.IsDiskFull(err) }

// WriteState is what the store knows about whether it can write.
type WriteState = sqlbase.WriteState

// probeBytes of new pages must fit (SQLite's page limit and free pages)
// for the store to count as writable.
const probeBytes = 64 << 10

// WriteHealth reports whether the store can write, probing when the last
// probe is stale or a failure has been seen since. The probe runs in the
// background: when ctx ends first (a long write transaction holds the
// lock), the last known state is returned rather than a guess.
func (s *Store) WriteHealth(ctx context.Context) WriteState {
	// A statfs costs microseconds: a disk that filled since the last
	// probe is seen now, not up to a healthy probe interval later.
	s.health.Observe(s.checkFreeSpace())
	return s.health.State(ctx, s.probeWrite)
}

// checkFreeSpace is ErrDiskFull when the database's file system has less
// than sqlbase.MinFreeBytes free; nil when it has more or cannot be asked.
func (s *Store) checkFreeSpace() error {
	if s.path == "" {
		return nil
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(s.path), &st); err == nil {
		if free := st.Bavail * uint64(st.Bsize); free < sqlbase.MinFreeBytes {
			return fmt.Errorf("%w: %d bytes free on the database's file system", ErrDiskFull, free)
		}
	}
	return nil
}

// probeWrite checks, without leaving a trace, that a modest write fits:
// free space on the file system, probeBytes of new pages inside SQLite's
// page limit (allocated in a transaction that is rolled back), and one
// committed write through the WAL (I/O errors, a read-only file).
func (s *Store) probeWrite(ctx context.Context) error {
	if err := s.checkFreeSpace(); err != nil {
		return err
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
