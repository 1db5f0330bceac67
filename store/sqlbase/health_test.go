package sqlbase

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

func TestStorageFailureClassification(t *testing.T) {
	cases := []struct {
		err      error
		kind     string
		diskFull bool
	}{
		{nil, "", false},
		{errors.New("UNIQUE constraint failed"), "", false},
		{context.DeadlineExceeded, "", false},
		{fmt.Errorf("write: %w", syscall.ENOSPC), "disk_full", true},
		{fmt.Errorf("write: %w", syscall.EDQUOT), "disk_full", true},
		{fmt.Errorf("%w: 10 bytes free", ErrDiskFull), "disk_full", true},
		{&os.PathError{Op: "open", Path: "/x", Err: syscall.EROFS}, "read_only", false},
		{fmt.Errorf("read: %w", syscall.EIO), "io_error", false},
	}
	for _, c := range cases {
		if got := storageFailure(c.err); got != c.kind {
			t.Errorf("storageFailure(%v) = %q, want %q", c.err, got, c.kind)
		}
		if got := IsDiskFull(c.err); got != c.diskFull {
			t.Errorf("IsDiskFull(%v) = %v, want %v", c.err, got, c.diskFull)
		}
	}
}
