package sqlbase

import (
	"errors"
	"os"
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
