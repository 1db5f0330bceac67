package repoconfig

import (
	"fmt"
	"path"
	"strings"
)

// Paths is a list of gitignore-style patterns, applied as git applies a
// .gitignore at the root of the tree:
//
//   - a pattern without a slash (other than a trailing one) matches a name
//     at any depth: "*.min.js", "fixtures";
//   - a pattern with a slash is relative to the root ("/build", "docs/*.md");
//   - "**" matches any number of directories: "**/testdata", "a/**/b",
//     "generated/**" (everything inside generated/);
//   - a trailing "/" matches directories only: "vendor/";
//   - "!" negates: a later "!keep.go" brings back what an earlier pattern
//     excluded; the last matching pattern decides;
//   - as in git, a file inside an excluded directory cannot be brought
//     back by a negation: the directory is never entered.
type Paths struct {
	patterns []pattern
}

type pattern struct {
	segs    []string
	negate  bool
	dirOnly bool
	text    string
}

// Caps on [ignore] paths: the file comes from the scanned tree, so its
// patterns are hostile input; these bound what matching one path costs.
const (
	MaxPathPatterns = 1000
	MaxPatternBytes = 1024
)

// compilePaths checks and compiles the patterns; the error says which one
// is malformed and why.
func compilePaths(list []string) (*Paths, error) {
	if len(list) > MaxPathPatterns {
		return nil, fmt.Errorf("%d patterns; at most %d are allowed", len(list), MaxPathPatterns)
	}
	out := &Paths{}
	for _, raw := range list {
		if len(raw) > MaxPatternBytes {
			return nil, fmt.Errorf("%.40q...: a pattern may be at most %d bytes", raw, MaxPatternBytes)
		}
		p := pattern{text: raw}
		s := raw
		if strings.HasPrefix(s, "!") {
			p.negate, s = true, s[1:]
		}
		if strings.HasPrefix(s, `\!`) || strings.HasPrefix(s, `\#`) {
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			p.dirOnly, s = true, strings.TrimRight(s, "/")
		}
		if s == "" {
			return nil, fmt.Errorf("%q: an empty pattern matches nothing", raw)
		}
		anchored := strings.Contains(s, "/")
		s = strings.TrimPrefix(s, "/")
		for _, seg := range strings.Split(s, "/") {
			if seg == "" {
				return nil, fmt.Errorf("%q: empty path segment (//)", raw)
			}
			if seg == "." || seg == ".." {
				return nil, fmt.Errorf("%q: . and .. segments never match a path in the tree", raw)
			}
			if seg != "**" {
				if _, err := path.Match(seg, ""); err != nil {
					return nil, fmt.Errorf("%q: malformed pattern %q", raw, seg)
				}
			}
			p.segs = append(p.segs, seg)
		}
		if !anchored && p.segs[0] != "**" {
			p.segs = append([]string{"**"}, p.segs...)
		}
		out.patterns = append(out.patterns, p)
	}
	return out, nil
}

// Patterns returns the patterns as written.
func (ps *Paths) Patterns() []string {
	if ps == nil {
		return nil
	}
	out := make([]string, len(ps.patterns))
	for i, p := range ps.patterns {
		out[i] = p.text
	}
	return out
}

// Negates reports whether a pattern brings paths back (!...): tools whose
// exclude flags cannot express that must not get the list.
func (ps *Paths) Negates() bool {
	for _, p := range ps.patterns {
		if p.negate {
			return true
		}
	}
	return false
}

// Empty reports whether no pattern is set.
func (ps *Paths) Empty() bool { return ps == nil || len(ps.patterns) == 0 }

// Ignored reports whether a slash-separated path relative to the root is
// excluded: itself, or one of the directories it lies in. The last
// pattern that matches a path decides, for the path and for each
// directory above it. Each pattern is run once over the path's segments
// (matchPrefixes), so the cost is linear in the path's length times the
// patterns' total length, whatever mix of "**" and "*" they hold.
func (ps *Paths) Ignored(rel string, isDir bool) bool {
	if ps.Empty() {
		return false
	}
	rel = strings.Trim(rel, "/")
	if rel == "" || rel == "." {
		return false
	}
	segs := strings.Split(rel, "/")
	// decision[k] is the verdict on the path's first k+1 segments.
	decision := make([]bool, len(segs))
	matched := make([]bool, len(segs))
	for i := range ps.patterns {
		p := &ps.patterns[i]
		matchPrefixes(p.segs, segs, matched)
		for k, m := range matched {
			// Every prefix but the whole path is a directory.
			if m && (!p.dirOnly || isDir || k < len(segs)-1) {
				decision[k] = !p.negate
			}
		}
	}
	for _, ignored := range decision {
		if ignored {
			return true
		}
	}
	return false
}

// matchPrefixes sets matched[k] to whether pattern segments pat match the
// first k+1 path segments. "**" stands for any number of segments, and a
// trailing "**" for at least one. It simulates the pattern as an automaton
// whose states are positions in pat, one step per path segment: no
// backtracking, so "**/**/**/a*b" costs what "a*b" does times its length.
func matchPrefixes(pat, segs []string, matched []bool) {
	n := len(pat)
	cur := make([]bool, n+1)
	next := make([]bool, n+1)
	// closure lets a "**" that is not last match zero segments.
	closure := func(st []bool) {
		for i := 0; i < n; i++ {
			if st[i] && pat[i] == "**" && i < n-1 {
				st[i+1] = true
			}
		}
	}
	cur[0] = true
	closure(cur)
	for k, seg := range segs {
		clear(next)
		for i := 0; i < n; i++ {
			if !cur[i] {
				continue
			}
			if pat[i] == "**" {
				next[i], next[i+1] = true, true
			} else if ok, _ := path.Match(pat[i], seg); ok {
				next[i+1] = true
			}
		}
		closure(next)
		cur, next = next, cur
		matched[k] = cur[n]
	}
}
