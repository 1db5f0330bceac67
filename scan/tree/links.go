package tree

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LinkOut returns the first symbolic link under root, in lexical order,
// that resolves to a file outside root, as a slash-separated path relative
// to root; "" when there is none. Wrapped tools that follow symbolic links
// to files are not run on a tree that holds one: they would read, and
// report, a file the target does not contain. Links to directories are not
// reported (no wrapped tool descends into them), nor dangling links
// (nothing can be read through them). Every directory is searched, the
// skipped ones included, because the tools read those too.
func LinkOut(ctx context.Context, root string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	prefix := strings.TrimSuffix(realRoot, string(filepath.Separator)) + string(filepath.Separator)
	found := ""
	err = filepath.WalkDir(realRoot, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == realRoot {
				return err
			}
			return nil // unreadable for scand is unreadable for the tool too
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		dest, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil
		}
		if dest == realRoot || strings.HasPrefix(dest, prefix) {
			return nil
		}
		if st, err := os.Stat(dest); err != nil || st.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(realRoot, p)
		found = filepath.ToSlash(rel)
		return fs.SkipAll
	})
	return found, err
}

// GitDirLeavesTree reports whether root's own .git entry would make git
// read a repository outside root: .git is a symbolic link, or a gitfile
// ("gitdir: <path>", what linked worktrees and submodules have) whose
// directory resolves outside root. A scanner that runs git on a target
// treats such a tree as no repository, so a hostile tree cannot have
// another repository's history or index read and reported as its own.
// A missing .git, or a .git directory, stays inside.
func GitDirLeavesTree(root string) bool {
	p := filepath.Join(root, ".git")
	fi, err := os.Lstat(p)
	switch {
	case err != nil || fi.IsDir():
		return false
	case fi.Mode()&fs.ModeSymlink != 0:
		return true
	case !fi.Mode().IsRegular():
		return true
	}
	b, err := ReadCapped(p, 4<<10)
	if err != nil {
		return true
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return false // not a gitfile: git refuses it, nothing is read through it
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return true
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false // a gitdir that does not exist: git fails, nothing is read
	}
	return real != realRoot && !strings.HasPrefix(real, strings.TrimSuffix(realRoot, string(filepath.Separator))+string(filepath.Separator))
}
