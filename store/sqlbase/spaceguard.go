package sqlbase

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
)

// spaceGuard refuses a write transaction when the file system holding the
// database has less than MinFreeBytes left. SQLite in WAL mode keeps the
// WAL file's pages after a checkpoint and reuses them, so on a full disk
// small writes keep succeeding until one needs a new page, in the middle
// of some later transaction (an ingest's). Refusing early makes a full disk
// a clear 507 at the first write, and keeps the room a checkpoint needs.
// One statfs per write transaction costs a microsecond; writes are few
// and batched, so nothing is cached.
type spaceGuard struct{ dir string }

func newSpaceGuard(dbPath string) *spaceGuard { return &spaceGuard{dir: filepath.Dir(dbPath)} }

// check returns ErrDiskFull (wrapped with the free bytes) when the file
// system is nearly full; a file system that cannot be asked passes.
func (g *spaceGuard) check() error {
	if g == nil {
		return nil
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(g.dir, &st); err != nil {
		return nil
	}
	if free := st.Bavail * uint64(st.Bsize); free < MinFreeBytes {
		return fmt.Errorf("%w: %d bytes free on the database's file system", ErrDiskFull, free)
	}
	return nil
}

// FreeingSpace marks a context whose writes give space back (deleting a
// scan, purging its rows, vacuuming): the guard lets them through, since
// on a full disk they are the way out.
type freeingSpaceKey struct{}

func FreeingSpace(ctx context.Context) context.Context {
	return context.WithValue(ctx, freeingSpaceKey{}, true)
}

func isFreeingSpace(ctx context.Context) bool {
	v, _ := ctx.Value(freeingSpaceKey{}).(bool)
	return v
}
