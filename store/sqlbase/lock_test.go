package sqlbase

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLockIsExclusiveAcrossDescriptors: flock locks belong to an open
// file, so even one process cannot take the lock twice, and a symlinked
// spelling of the database path meets the same lock.
func TestLockIsExclusiveAcrossDescriptors(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/scand.db"
	l, err := Lock(db)
	if err != nil {
		t.Fatal(err)
	}
	link := t.TempDir() + "/link"
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, spelling := range []string{db, link + "/scand.db"} {
		_, err := Lock(spelling)
		var locked *LockedError
		if !errors.As(err, &locked) || locked.PID != os.Getpid() {
			t.Fatalf("second Lock(%s) = %v, want a LockedError naming pid %d", spelling, err, os.Getpid())
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := Lock(db)
	if err != nil {
		t.Fatalf("Lock after Release: %v", err)
	}
	l2.Release()
}

// TestLockCheckRecoversOrReportsLoss: a deleted lock file is locked again
// by Check (nobody else holds it); a lock file replaced and locked by
// another process is reported as lost until that process lets go.
func TestLockCheckRecoversOrReportsLoss(t *testing.T) {
	db := filepath.Join(t.TempDir(), "scand.db")
	l, err := Lock(db)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := l.Check(); err != nil {
		t.Fatalf("fresh lock: %v", err)
	}
	path, _ := LockPath(db)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatalf("after the lock file was deleted, Check must lock a new one: %v", err)
	}
	if _, err := Lock(db); err == nil {
		t.Fatal("a second Lock succeeded after Check re-took the lock")
	}
	// Another holder takes a replacement file: the lock is lost.
	os.Remove(path)
	other, err := Lock(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); !errors.Is(err, ErrLockLost) {
		t.Fatalf("with another holder: %v, want ErrLockLost", err)
	}
	other.Release()
	if err := l.Check(); err != nil {
		t.Fatalf("after the other holder let go: %v", err)
	}
}
