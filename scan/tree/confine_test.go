package tree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWalkStaysInsideWhenADirectoryIsSwapped swaps a directory the walk
// has listed but not yet entered for a symlink out of the target, as a
// hostile tree's owner could while a scan runs: nothing outside is visited.
func TestWalkStaysInsideWhenADirectoryIsSwapped(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	writeFile(t, filepath.Join(root, "a", "first.txt"), "x")
	writeFile(t, filepath.Join(root, "b", "later.txt"), "x")
	writeFile(t, filepath.Join(outside, "token.txt"), "secret")
	var visited, unreadable []string
	walk := Walk{Unreadable: func(p string, err error) { unreadable = append(unreadable, p) }}
	err := walk.Files(context.Background(), root, func(abs, rel string) error {
		visited = append(visited, rel)
		if rel == "a/first.txt" {
			if err := os.RemoveAll(filepath.Join(root, "b")); err != nil {
				return err
			}
			return os.Symlink(outside, filepath.Join(root, "b"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range visited {
		if strings.Contains(v, "token") {
			t.Fatalf("the walk followed a swapped directory out of the target: visited %q", visited)
		}
	}
	if len(visited) != 1 {
		t.Errorf("visited %q, want only a/first.txt", visited)
	}
	if len(unreadable) != 1 || unreadable[0] != filepath.Join(root, "b") {
		t.Errorf("unreadable = %q, want the swapped directory reported", unreadable)
	}
}

func TestOpenFileRefusesLinksAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, "hello")
	if f, fi, err := OpenFile(file); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
		if fi.Size() != 5 || !fi.Mode().IsRegular() {
			t.Errorf("OpenFile(file) info = %v %d, want a regular file of 5 bytes", fi.Mode(), fi.Size())
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenFile(link); !errors.Is(err, ErrSymlink) || err.Error() != link+": a symbolic link, not followed" {
		t.Fatalf("OpenFile(symlink) = %v, want a refusal", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := OpenFile(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || err.Error() != fifo+": not a regular file" {
			t.Fatalf("OpenFile(fifo) = %v, want a refusal", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OpenFile blocked on a FIFO")
	}
}

func TestWithin(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	writeFile(t, filepath.Join(root, "vendor", "mod", "LICENSE"), "MIT")
	writeFile(t, filepath.Join(base, "outside", "LICENSE"), "secret")
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "vendor", "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mod", filepath.Join(root, "vendor", "inner")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    string
		want bool
	}{
		{filepath.Join(root, "vendor", "mod", "LICENSE"), true},
		{filepath.Join(root, "vendor", "mod", "missing"), false},
		{filepath.Join(root, "vendor", "..", "..", "outside", "LICENSE"), false},
		{filepath.Join(base, "outside", "LICENSE"), false},
		{filepath.Join(root, "vendor", "linked", "LICENSE"), false},
		// A link that stays inside is refused too: the caller reads the
		// path it was given, and no link is the simple rule.
		{filepath.Join(root, "vendor", "inner", "LICENSE"), false},
	} {
		if got := Within(root, tc.p); got != tc.want {
			t.Errorf("Within(root, %s) = %v, want %v", strings.TrimPrefix(tc.p, base), got, tc.want)
		}
	}
}
