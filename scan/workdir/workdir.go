// Package workdir is scand's private directory for prepared targets
// (unpacked images, clones) and the removal that works on read-only trees.
// The image and repository preparers make their roots in it.
package workdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Dir is this process's private directory for prepared targets
// (unpacked images, clones): a fresh mode-0700 directory under the base
// (SVC_WORK_DIR, else the system temp directory) that only scand's user
// can enter, so nobody else can read an image's secrets or swap a file
// under a running scan. A process killed before it could clean up leaves
// its directory behind; the next Open over the same base removes it.
type Dir struct {
	dir string
}

// workDirPrefix names every process's directory; workDirOwner holds the
// pid of the process using it.
const (
	workDirPrefix = "scand-work-"
	workDirOwner  = ".owner-pid"
)

// Open makes this process's directory under base ("" is the system
// temp directory) and removes the directories that dead scand processes
// left there.
func Open(base string) (*Dir, error) {
	if base == "" {
		base = os.TempDir()
	}
	if !filepath.IsAbs(base) {
		return nil, fmt.Errorf("work directory %s must be an absolute path", base)
	}
	info, err := os.Stat(base)
	if err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("work directory %s is not a directory", base)
	}
	sweepWorkDirs(base)
	dir, err := os.MkdirTemp(base, workDirPrefix)
	if err != nil {
		return nil, fmt.Errorf("work directory: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("work directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, workDirOwner), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("work directory: %w", err)
	}
	return &Dir{dir: dir}, nil
}

// Path is the directory.
func (w *Dir) Path() string { return w.dir }

// Temp makes a fresh mode-0700 directory for one target.
func (w *Dir) Temp(prefix string) (string, error) {
	return os.MkdirTemp(w.dir, prefix)
}

// Target is the directory a preparer fills with one target. Until Keep,
// Discard removes it: a preparer that defers Discard leaves nothing behind
// on every way out but success, a panic included, and on success hands
// the directory to the orchestrator, which calls Remove when the scan ends.
type Target struct {
	Path string
	kept bool
}

// NewTarget makes a fresh mode-0700 directory (Temp) for one target.
func (w *Dir) NewTarget(prefix string) (*Target, error) {
	dir, err := w.Temp(prefix)
	if err != nil {
		return nil, err
	}
	return &Target{Path: dir}, nil
}

// Keep marks the target prepared: Discard leaves it alone from now on.
func (t *Target) Keep() { t.kept = true }

// Discard removes the directory unless it was kept.
func (t *Target) Discard() {
	if !t.kept {
		_ = RemoveTree(t.Path)
	}
}

// Remove removes the directory, kept or not.
func (t *Target) Remove() { _ = RemoveTree(t.Path) }

// Close removes the directory and everything left in it.
func (w *Dir) Close() error { return RemoveTree(w.dir) }

// RemoveTree removes dir and everything under it, first giving the owner
// write and search permission on every directory inside (an unpacked image
// or a clone may hold read-only directories that would stop os.RemoveAll).
func RemoveTree(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// sweepWorkDirs removes the directories of scand processes that are gone:
// only directories owned by this user whose recorded pid is not running.
func sweepWorkDirs(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), workDirPrefix) {
			continue
		}
		p := filepath.Join(base, e.Name())
		info, err := os.Lstat(p)
		if err != nil || !info.IsDir() {
			continue
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok || int(st.Uid) != os.Geteuid() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(p, workDirOwner))
		if err != nil {
			continue // not (yet) claimed: a process may be creating it now
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		_ = RemoveTree(p)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
