package workdir

import (
	"os"
	"path/filepath"
	"testing"
)

// A work directory left by a dead process is swept; a live one's is not.
func TestWorkDirSweep(t *testing.T) {
	base := t.TempDir()
	dead := filepath.Join(base, workDirPrefix+"dead")
	os.MkdirAll(filepath.Join(dead, "image-1/rootfs"), 0o500)
	os.WriteFile(filepath.Join(dead, workDirOwner), []byte("999999999"), 0o600)
	live := filepath.Join(base, workDirPrefix+"live")
	os.MkdirAll(live, 0o700)
	os.WriteFile(filepath.Join(live, workDirOwner), []byte("1"), 0o600) // init never dies
	other := filepath.Join(base, "unrelated")
	os.MkdirAll(other, 0o700)
	w, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(w.Path()); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("work directory mode: %v %v", info.Mode(), err)
	}
	for p, want := range map[string]bool{dead: false, live: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", p, err == nil, want)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path()); !os.IsNotExist(err) {
		t.Error("Close left the directory")
	}
}

// A target is removed by Discard until it is kept, read-only directories
// inside included, and by Remove after.
func TestTargetDiscardUntilKept(t *testing.T) {
	w, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	failed, err := w.NewTarget("image-")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(failed.Path); err != nil || info.Mode().Perm() != 0o700 || filepath.Dir(failed.Path) != w.Path() {
		t.Fatalf("target %s: %v %v", failed.Path, info, err)
	}
	os.MkdirAll(filepath.Join(failed.Path, "rootfs/etc"), 0o500)
	failed.Discard()
	if exists(failed.Path) {
		t.Error("Discard before Keep left the directory")
	}

	kept, err := w.NewTarget("repo-")
	if err != nil {
		t.Fatal(err)
	}
	kept.Keep()
	kept.Discard()
	if !exists(kept.Path) {
		t.Fatal("Discard after Keep removed the directory")
	}
	kept.Remove()
	if exists(kept.Path) {
		t.Error("Remove left the directory")
	}
}
