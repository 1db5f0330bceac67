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

// compilePaths checks and compiles the patterns; the error says which one
// is malformed and why.
func compilePaths(list []string) (*Paths, error) {
	out := &Paths{}
	for _, raw := range list {
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
// excluded: itself, or one of the directories it lies in.
func (ps *Paths) Ignored(rel string, isDir bool) bool {
	if ps.Empty() {
		return false
	}
	rel = strings.Trim(rel, "/")
	if rel == "" || rel == "." {
		return false
	}
	segs := strings.Split(rel, "/")
	for i := 1; i < len(segs); i++ {
		if ps.decide(segs[:i], true) {
			return true
		}
	}
	return ps.decide(segs, isDir)
}

// decide applies the patterns to one path: the last that matches wins.
func (ps *Paths) decide(segs []string, isDir bool) bool {
	ignored := false
	for i := range ps.patterns {
		p := &ps.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		if matchSegs(p.segs, segs) {
			ignored = !p.negate
		}
	}
	return ignored
}

// matchSegs matches pattern segments against path segments; "**" stands
// for any number of segments, and a trailing "**" for at least one.
func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return len(segs) > 0
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegs(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
