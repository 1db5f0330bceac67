package tree

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestLinkOut(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "token"), "secret")
	link := func(root, dest, name string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(dest, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		build func(root string)
		want  string
	}{
		{"no links", func(root string) { writeFile(t, filepath.Join(root, "a.py"), "x") }, ""},
		{"link inside", func(root string) {
			writeFile(t, filepath.Join(root, "a.py"), "x")
			link(root, "a.py", "b.py")
			link(root, filepath.Join(root, "a.py"), "sub/c.py")
		}, ""},
		{"directory link out", func(root string) { link(root, outside, "dir") }, ""},
		{"dangling link", func(root string) { link(root, filepath.Join(base, "nowhere"), "gone.py") }, ""},
		{"file link out", func(root string) { link(root, filepath.Join(outside, "token"), "src/config.py") }, "src/config.py"},
		{"relative link out", func(root string) {
			rel, err := filepath.Rel(filepath.Join(root, "src"), filepath.Join(outside, "token"))
			if err != nil {
				t.Fatal(err)
			}
			link(root, rel, "src/rel.py")
		}, "src/rel.py"},
		{"link out in a skipped directory", func(root string) {
			link(root, filepath.Join(outside, "token"), "node_modules/pkg/index.js")
		}, "node_modules/pkg/index.js"},
		{"chain out through an inside link", func(root string) {
			link(root, filepath.Join(outside, "token"), "z-real-out")
			link(root, "z-real-out", "a-hop")
		}, "a-hop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "target")
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.build(root)
			got, err := LinkOut(context.Background(), root)
			if err != nil || got != tc.want {
				t.Fatalf("LinkOut = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestGitDirLeavesTree(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "other", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		build func(root string)
		want  bool
	}{
		{"no .git", func(string) {}, false},
		{".git directory", func(root string) { os.Mkdir(filepath.Join(root, ".git"), 0o755) }, false},
		{".git symlink", func(root string) { os.Symlink(filepath.Join(base, "other", ".git"), filepath.Join(root, ".git")) }, true},
		{"gitfile out", func(root string) {
			writeFile(t, filepath.Join(root, ".git"), "gitdir: "+filepath.Join(base, "other", ".git")+"\n")
		}, true},
		{"relative gitfile out", func(root string) {
			rel, _ := filepath.Rel(root, filepath.Join(base, "other", ".git"))
			writeFile(t, filepath.Join(root, ".git"), "gitdir: "+rel+"\n")
		}, true},
		{"gitfile inside", func(root string) {
			os.MkdirAll(filepath.Join(root, ".repo", "git"), 0o755)
			writeFile(t, filepath.Join(root, ".git"), "gitdir: .repo/git\n")
		}, false},
		{"gitfile to nowhere", func(root string) { writeFile(t, filepath.Join(root, ".git"), "gitdir: /nonexistent/x\n") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "target")
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.build(root)
			if got := GitDirLeavesTree(root); got != tc.want {
				t.Fatalf("GitDirLeavesTree = %v, want %v", got, tc.want)
			}
		})
	}
}
