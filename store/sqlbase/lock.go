package sqlbase

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LockedError means another process holds the database's lock file: a
// second daemon on one database would run restart recovery over the first
// one's running scans and mark them failed.
type LockedError struct {
	DB       string // the database path as configured
	LockPath string
	// PID is the holder's process id as it wrote it into the lock file;
	// 0 when the holder has not written it yet or the file is unreadable.
	PID int
}

func (e *LockedError) Error() string {
	holder := "an unknown process"
	if e.PID > 0 {
		holder = "pid " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("database %s is in use by another scand (%s holds %s); one process per database", e.DB, holder, e.LockPath)
}

// DBLock is the exclusive lock on a database, held for the life of the
// process that runs migrations, restart recovery and scans over it.
type DBLock struct {
	mu   sync.Mutex
	f    *os.File
	db   string
	path string
}

// ErrLockLost means the lock file this process locked is no longer the one
// at the lock file's path (deleted or replaced) and the lock could not be
// taken again: a second daemon could start on the database.
var ErrLockLost = errors.New("database lock lost")

// LockPath is the lock file beside the database: "<db>.lock", after
// resolving symlinks so two spellings of one database share one lock.
func LockPath(db string) (string, error) {
	abs, err := filepath.Abs(db)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	return abs + ".lock", nil
}

// Lock takes an exclusive, non-blocking flock on the database's lock file
// and writes this process's pid into it. It never opens the database
// itself, so a refused second process leaves the database untouched. The
// kernel drops the lock when the process dies, even on SIGKILL; the file
// descriptor is close-on-exec, so scanner subprocesses never inherit it.
func Lock(db string) (*DBLock, error) {
	path, err := LockPath(db)
	if err != nil {
		return nil, fmt.Errorf("lock database %s: %w", db, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock database %s: %w", db, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{DB: db, LockPath: path, PID: holderPID(path)}
		}
		return nil, fmt.Errorf("lock database %s: flock %s: %w", db, path, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock database %s: %w", db, err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock database %s: %w", db, err)
	}
	return &DBLock{f: f, db: db, path: path}, nil
}

// Check reports whether the lock file at the lock path is still the one
// this process holds locked. When it was deleted or replaced (a cleanup
// job, a restore done by hand), Check locks the file now at the path; if
// that succeeds the process holds the database alone again and Check
// returns nil, so readiness recovers by itself. Otherwise it returns
// ErrLockLost naming the other holder.
func (l *DBLock) Check() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("%w: released", ErrLockLost)
	}
	held, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrLockLost, err)
	}
	if now, err := os.Stat(l.path); err == nil && os.SameFile(held, now) {
		return nil
	}
	again, err := Lock(l.db)
	if err != nil {
		return fmt.Errorf("%w: %s was removed or replaced and cannot be locked again: %v", ErrLockLost, l.path, err)
	}
	l.f.Close()
	l.f = again.f
	return nil
}

// holderPID reads the pid the holder wrote. The holder writes it right
// after locking, so an empty file gets a few short retries.
func holderPID(path string) int {
	for i := 0; i < 20; i++ {
		b, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// Release empties the lock file and drops the lock. The file stays: a
// process that opened it just before an unlink would lock an orphaned
// inode while a third process locks a new file, and both would run.
func (l *DBLock) Release() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	l.f.Truncate(0)
	err := l.f.Close() // closing the last descriptor drops the flock
	l.f = nil
	return err
}
