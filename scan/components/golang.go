package components

import (
	"sort"
	"strconv"
	"strings"
)

// Go modules: go.mod's require directives, with go.sum filling in the
// module graph for modules written before Go 1.17.

type compGoRequire struct {
	path, version string
	indirect      bool
	line          int
}

// compParseGoMod reads require directives (single-line and blocks).
// `// indirect` marks a module the main module does not import itself:
// transitive. replace directives that point at another module version are
// applied, since that version is what gets built; a replace pointing at a
// local directory leaves the version unknown (the code is the project's own
// copy). Since Go 1.17 go.mod lists every module the build needs, so go.sum
// is consulted only for older go directives, where go.mod lists only direct
// requirements: then each module go.sum holds a full (h1: of the module,
// not just its go.mod) checksum for, at its highest version, is added as
// transitive.
func compParseGoMod(f compFile) ([]Component, error) {
	var reqs []compGoRequire
	replaces := map[string][2]string{} // old path (or path@version) -> new path, version
	goVersion := ""
	block := ""
	for i, raw := range strings.Split(string(f.data), "\n") {
		line := strings.TrimSpace(raw)
		comment := ""
		if j := strings.Index(line, "//"); j >= 0 {
			comment = strings.TrimSpace(line[j+2:])
			line = strings.TrimSpace(line[:j])
		}
		if line == "" {
			continue
		}
		if block != "" {
			if line == ")" {
				block = ""
				continue
			}
			compGoDirective(block, line, comment, i+1, &reqs, replaces)
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch verb {
		case "go":
			goVersion = rest
		case "require", "replace":
			if rest == "(" {
				block = verb
				continue
			}
			compGoDirective(verb, rest, comment, i+1, &reqs, replaces)
		case "exclude", "retract":
			if rest == "(" {
				block = verb
			}
		}
	}
	var out []Component
	seen := map[string]bool{}
	for _, r := range reqs {
		name, version := r.path, r.version
		if rep, ok := replaces[r.path+"@"+r.version]; ok {
			name, version = rep[0], rep[1]
		} else if rep, ok := replaces[r.path]; ok {
			name, version = rep[0], rep[1]
		}
		if version == "" && name != r.path {
			name = r.path // local directory replacement
		}
		scope := ScopeDirect
		if r.indirect {
			scope = ScopeTransitive
		}
		seen[r.path] = true
		out = append(out, Component{
			Name: name, Version: version, Ecosystem: EcoGolang,
			PURL:  compPURL(EcoGolang, name, version),
			Scope: scope, Source: f.rel, Line: r.line,
		})
	}
	if compGoVersionBefore117(goVersion) {
		sumRel := "go.sum"
		if d := compDirOf(f.rel); d != "" {
			sumRel = d + "/go.sum"
		}
		for _, m := range compParseGoSum(f.sibling("go.sum")) {
			if seen[m.path] {
				continue
			}
			out = append(out, Component{
				Name: m.path, Version: m.version, Ecosystem: EcoGolang,
				PURL:  compPURL(EcoGolang, m.path, m.version),
				Scope: ScopeTransitive, Source: sumRel, Line: m.line,
			})
		}
	}
	return out, nil
}

func compGoDirective(verb, line, comment string, lineNo int, reqs *[]compGoRequire, replaces map[string][2]string) {
	switch verb {
	case "require":
		f := compGoFields(line)
		if len(f) < 2 {
			return
		}
		*reqs = append(*reqs, compGoRequire{path: f[0], version: f[1], indirect: comment == "indirect" || strings.HasPrefix(comment, "indirect;"), line: lineNo})
	case "replace":
		left, right, ok := strings.Cut(line, "=>")
		if !ok {
			return
		}
		lf, rf := compGoFields(left), compGoFields(right)
		if len(lf) == 0 || len(rf) == 0 {
			return
		}
		key := lf[0]
		if len(lf) > 1 {
			key += "@" + lf[1]
		}
		to := [2]string{rf[0], ""}
		if len(rf) > 1 {
			to[1] = rf[1]
		}
		replaces[key] = to
	}
}

// compGoFields splits a directive's arguments, unquoting quoted paths.
func compGoFields(s string) []string {
	f := strings.Fields(s)
	for i, x := range f {
		if u, err := strconv.Unquote(x); err == nil {
			f[i] = u
		}
	}
	return f
}

// compGoVersionBefore117 reports whether a go directive predates module
// graph pruning; no directive at all means Go 1.16 semantics.
func compGoVersionBefore117(v string) bool {
	if v == "" {
		return true
	}
	major, rest, _ := strings.Cut(v, ".")
	minorS, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minorS)
	if err1 != nil || err2 != nil {
		return false
	}
	return ma < 1 || (ma == 1 && mi < 17)
}

// compParseGoSum keeps, per module, the highest version with a module
// (not only go.mod) checksum: go.sum also lists versions the resolver only
// looked at, and minimal version selection picks the highest.
func compParseGoSum(data []byte) []compGoRequire {
	best := map[string]compGoRequire{}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasSuffix(f[1], "/go.mod") {
			continue
		}
		cur, ok := best[f[0]]
		if !ok || compSemverLess(cur.version, f[1]) {
			best[f[0]] = compGoRequire{path: f[0], version: f[1], line: i + 1}
		}
	}
	out := make([]compGoRequire, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// compSemverLess orders Go module versions (vMAJOR.MINOR.PATCH[-pre][+meta]):
// numeric parts numerically, a prerelease before its release.
func compSemverLess(a, b string) bool {
	pa, prea := compSemverParts(a)
	pb, preb := compSemverParts(b)
	for i := 0; i < 3; i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	switch {
	case prea == preb:
		return false
	case prea == "":
		return false
	case preb == "":
		return true
	}
	return prea < preb
}

func compSemverParts(v string) ([3]int, string) {
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "+")
	core, pre, _ := strings.Cut(v, "-")
	var out [3]int
	for i, p := range strings.SplitN(core, ".", 3) {
		out[i], _ = strconv.Atoi(p)
	}
	return out, pre
}
