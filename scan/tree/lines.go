package tree

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// maxSourceFileBytes bounds what the line source reads per file.
const maxSourceFileBytes = 4 << 20

// Line source cache bounds: findings arrive grouped by file (a scanner
// reports one file's findings together), so a few recent files give
// almost every hit while memory stays bounded however large the tree.
const (
	lineCacheFiles = 64
	lineCacheBytes = 32 << 20
)

// LineSource reads finding lines from a target for fingerprints and
// inline suppressions (a finding.LineSource): the line and the one before
// it, by slash-separated path relative to root. It only opens regular
// files inside root, keeps the most recently read files, and is safe for
// concurrent use.
func LineSource(root string) func(rel string, line int) (current, previous string, ok bool) {
	type entry struct {
		lines []string
		size  int
	}
	var mu sync.Mutex
	cache := map[string]entry{}
	var order []string // oldest first
	total := 0
	return func(rel string, line int) (string, string, bool) {
		if line <= 0 || rel == "" || strings.Contains(rel, "://") {
			return "", "", false
		}
		clean := path.Clean("/" + rel)[1:]
		if clean == "" || clean != strings.TrimPrefix(rel, "./") {
			return "", "", false
		}
		mu.Lock()
		e, ok := cache[clean]
		mu.Unlock()
		if !ok {
			lines, size := readLines(filepath.Join(root, filepath.FromSlash(clean)))
			e = entry{lines: lines, size: size}
			mu.Lock()
			if _, raced := cache[clean]; !raced {
				cache[clean] = e
				order = append(order, clean)
				total += size
				for len(order) > 1 && (len(order) > lineCacheFiles || total > lineCacheBytes) {
					total -= cache[order[0]].size
					delete(cache, order[0])
					order = order[1:]
				}
			}
			mu.Unlock()
		}
		if line > len(e.lines) {
			return "", "", false
		}
		prev := ""
		if line > 1 {
			prev = e.lines[line-2]
		}
		return e.lines[line-1], prev, true
	}
}

func readLines(p string) ([]string, int) {
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxSourceFileBytes {
		return nil, 0
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	var out []string
	size := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxSourceFileBytes)
	for sc.Scan() {
		out = append(out, sc.Text())
		size += len(sc.Bytes()) + 16
	}
	return out, size
}
