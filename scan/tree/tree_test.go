package tree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSkipDirAndUnderSkippedDir(t *testing.T) {
	for name, want := range map[string]bool{
		".git": true, "node_modules": true, "vendor": true, "site-packages": true, ".venv": true,
		"src": false, "dist": false, "build": false, "testdata": false, "vendored": false,
	} {
		if got := SkipDir(name); got != want {
			t.Errorf("SkipDir(%q) = %v, want %v", name, got, want)
		}
	}
	for rel, want := range map[string]bool{
		"node_modules/x/.env":      true,
		"a/b/vendor/c/key.pem":     true,
		".git/config":              true,
		"vendor":                   false, // a file named vendor is not inside one
		"src/vendor.go":            false,
		"app/config/settings.yaml": false,
	} {
		if got := UnderSkippedDir(rel); got != want {
			t.Errorf("UnderSkippedDir(%q) = %v, want %v", rel, got, want)
		}
	}
}

func TestWalkFiles(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret"), "x")
	for _, rel := range []string{"b.txt", "a/z.txt", "a/b/c.txt", "node_modules/p/index.js", ".git/config", "keep/testdata/f"} {
		writeFile(t, filepath.Join(root, rel), rel)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := Walk{}.Files(context.Background(), root, func(abs, rel string) error {
		if abs != filepath.Join(root, filepath.FromSlash(rel)) {
			t.Errorf("abs %q does not match rel %q", abs, rel)
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "a/b/c.txt a/z.txt b.txt keep/testdata/f"
	if strings.Join(got, " ") != want {
		t.Fatalf("visited %v, want %s (lexical, no skipped dirs, no links)", got, want)
	}

	got = nil
	skipKeep := Walk{Skip: func(name string) bool { return name == "keep" }}
	if err := skipKeep.Files(context.Background(), root, func(_, rel string) error { got = append(got, rel); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != ".git/config a/b/c.txt a/z.txt b.txt node_modules/p/index.js" {
		t.Fatalf("with a custom skip, visited %v", got)
	}

	stop := errors.New("stop")
	if err := (Walk{}).Files(context.Background(), root, func(string, string) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("visit error = %v, want it returned", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (Walk{}).Files(ctx, root, func(string, string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled walk = %v", err)
	}
	if err := (Walk{}).Files(context.Background(), filepath.Join(root, "missing"), func(string, string) error { return nil }); err == nil {
		t.Fatal("a missing root walked without error")
	}
}

func TestFindFiles(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"go.mod", "svc/a/go.mod", "vendor/x/go.mod", "svc/a/testdata/m/go.mod", "svc/b/other.mod"} {
		writeFile(t, filepath.Join(root, rel), "module m\n")
	}
	got := FindFiles(root, func(name string) bool { return SkipDir(name) || name == "testdata" }, "go.mod")
	want := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "svc/a/go.mod")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("FindFiles = %v, want %v", got, want)
	}
	if got := FindFiles(filepath.Join(root, "missing"), nil, "go.mod"); len(got) != 0 {
		t.Fatalf("FindFiles on a missing root = %v", got)
	}
}

func TestReadCappedAndCheckDir(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	writeFile(t, small, "hello")
	if b, err := ReadCapped(small, 5); err != nil || string(b) != "hello" {
		t.Fatalf("ReadCapped at the cap = %q, %v", b, err)
	}
	_, err := ReadCapped(small, 4)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "5 bytes, over the 4-byte cap") {
		t.Fatalf("ReadCapped over the cap = %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCapped(link, 100); err == nil || errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadCapped followed a symlink: %v", err)
	}
	if _, err := ReadCapped(filepath.Join(dir, "missing"), 100); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadCapped(missing) = %v", err)
	}
	if err := CheckDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(small); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("CheckDir(file) = %v", err)
	}
	if err := CheckDir(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("CheckDir(missing) = %v", err)
	}
}

func TestBinary(t *testing.T) {
	text := []byte(strings.Repeat("a", 2*BinarySniff))
	if LooksBinary(text) || LooksBinary(nil) {
		t.Fatal("text reported binary")
	}
	if !LooksBinary([]byte("PK\x03\x04\x00")) {
		t.Fatal("a NUL byte early was not binary")
	}
	late := append(append([]byte{}, text...), 0)
	if LooksBinary(late) {
		t.Fatal("a NUL past the sniff window made the file binary")
	}
	for ext, want := range map[string]bool{".png": true, ".map": true, ".go": false, ".env": false} {
		if BinaryExt(ext) != want {
			t.Errorf("BinaryExt(%q) != %v", ext, want)
		}
	}
}
