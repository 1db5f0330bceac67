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
