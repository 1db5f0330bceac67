package components

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Python: requirements*.txt, poetry.lock (+ pyproject.toml for what is
// direct) and Pipfile.lock (+ Pipfile).

// compPyRequirementName returns the distribution name at the start of a
// PEP 508 requirement and the rest of the string.
func compPyRequirementName(s string) (string, string) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || (i > 0 && (c == '.' || c == '_' || c == '-')) {
			i++
			continue
		}
		break
	}
	return s[:i], s[i:]
}

type compPyRequirement struct {
	name, version string
	pinned        bool
	line          int
	via           []string // pip-compile "# via" annotations
}

// compParseRequirements reads a pip requirements file. "==" (and "===")
// pins give the version; any other specifier is kept as written in
// DeclaredRange, and Version is left to what is installed (resolveDeclared). Options (-r,
// -c, --index-url), editable installs and direct URLs name no registry
// release and are skipped. Scope comes from pip-compile's "# via"
// annotations when the file has them ("-r requirements.in" = direct, a
// package name = transitive, and that package depends on this one);
// otherwise it is unknown, since a plain requirements.txt may be a full
// `pip freeze`.
func compParseRequirements(f compFile) ([]Component, error) {
	var reqs []*compPyRequirement
	var last *compPyRequirement
	annotated := false
	logical, start := "", 0
	inVia := false
	lines := strings.Split(string(f.data), "\n")
	for i, raw := range lines {
		raw = strings.TrimRight(raw, "\r")
		trimmed := strings.TrimSpace(raw)
		if logical == "" && strings.HasPrefix(trimmed, "#") {
			// pip-compile annotation lines belong to the requirement above
			c := strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
			if last != nil {
				if rest, ok := strings.CutPrefix(c, "via"); ok && (rest == "" || rest[0] == ' ') {
					annotated, inVia = true, true
					last.via = append(last.via, strings.Fields(rest)...)
				} else if inVia && c != "" && raw != trimmed {
					last.via = append(last.via, strings.Fields(c)...)
				} else {
					inVia = false
				}
			}
			continue
		}
		if logical == "" {
			start = i + 1
		}
		if strings.HasSuffix(trimmed, "\\") {
			logical += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		logical += trimmed
		text := logical
		logical = ""
		inVia = false
		comment := ""
		if j := strings.Index(text, " #"); j >= 0 {
			text, comment = text[:j], strings.TrimSpace(text[j+2:])
		}
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "-") || strings.Contains(text, "://") && !strings.Contains(text, " @ ") {
			last = nil
			continue
		}
		req := compPyParseRequirement(text)
		if req == nil {
			last = nil
			continue
		}
		req.line = start
		if rest, ok := strings.CutPrefix(comment, "via"); ok {
			annotated, inVia = true, true
			req.via = append(req.via, strings.Fields(rest)...)
		}
		reqs = append(reqs, req)
		last = req
	}
	purlOf := map[string]string{}
	for _, r := range reqs {
		purlOf[compPyPINormalize(r.name)] = compPyPURL(r)
	}
	var out []Component
	dependsOn := map[string][]string{}
	for _, r := range reqs {
		c := Component{Name: r.name, Ecosystem: EcoPyPI, PURL: purlOf[compPyPINormalize(r.name)], Source: f.rel, Line: r.line}
		if r.pinned {
			c.Version = r.version
		} else {
			c.DeclaredRange = r.version // a specifier, or none: the installed version, if any, is filled in later
		}
		if annotated {
			c.Scope = ScopeTransitive
			for k := 0; k < len(r.via); k++ {
				v := r.via[k]
				switch {
				case v == "-r" || v == "-c":
					c.Scope = ScopeDirect
					k++
				case strings.HasPrefix(v, "-"):
					c.Scope = ScopeDirect
				default:
					parent := compPyPINormalize(strings.Trim(v, "(),"))
					dependsOn[parent] = append(dependsOn[parent], c.PURL)
				}
			}
		}
		out = append(out, c)
	}
	for i := range out {
		out[i].DependsOn = dependsOn[compPyPINormalize(out[i].Name)]
	}
	return out, nil
}

func compPyPURL(r *compPyRequirement) string {
	if r.pinned {
		return compPURL(EcoPyPI, r.name, r.version)
	}
	return compPURL(EcoPyPI, r.name, "")
}

// compPyParseRequirement parses `name[extras] specifiers ; markers`,
// `name @ url`, ignoring --hash options on the same line.
func compPyParseRequirement(text string) *compPyRequirement {
	var kept []string
	for _, tok := range strings.Fields(text) {
		if !strings.HasPrefix(tok, "--") {
			kept = append(kept, tok)
		}
	}
	text = strings.Join(kept, " ")
	if i := strings.IndexByte(text, ';'); i >= 0 {
		text = text[:i]
	}
	name, rest := compPyRequirementName(text)
	if name == "" {
		return nil
	}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, "[") {
		if j := strings.IndexByte(rest, ']'); j >= 0 {
			rest = strings.TrimSpace(rest[j+1:])
		}
	}
	if strings.HasPrefix(rest, "@") {
		return &compPyRequirement{name: name} // direct URL: no registry version
	}
	spec := strings.Join(strings.Fields(strings.Trim(rest, "()")), "")
	r := &compPyRequirement{name: name, version: spec}
	for _, op := range []string{"===", "=="} {
		if v, ok := strings.CutPrefix(spec, op); ok && !strings.ContainsAny(v, ",*<>=!~") && v != "" {
			r.version, r.pinned = v, true
			break
		}
	}
	return r
}

// ---- poetry.lock ----

// compParsePoetryLock reads [[package]] entries. Dev-ness is what the lock
// records (category = "dev" before Poetry 1.5, groups without "main"
// after); scope needs pyproject.toml beside the lock, whose dependency
// tables are the project's direct requirements.
func compParsePoetryLock(f compFile) ([]Component, error) {
	doc, err := compParseTOML(f.data)
	if err != nil {
		return nil, err
	}
	type entry struct {
		c        Component
		deps     []string
		explicit bool
	}
	var entries []entry
	for _, p := range doc.arrays("package") {
		name, version := p.str("name"), p.str("version")
		if name == "" {
			continue
		}
		line := p.line
		if kv := p.get("name"); kv != nil {
			line = kv.line
		}
		e := entry{c: Component{Name: name, Version: version, Ecosystem: EcoPyPI, PURL: compPURL(EcoPyPI, name, version), Source: f.rel, Line: line}}
		if cat := p.str("category"); cat != "" {
			e.explicit, e.c.Dev = true, cat == "dev"
		}
		if kv := p.get("groups"); kv != nil && kv.value.kind == 'a' {
			e.explicit, e.c.Dev = true, true
			for _, g := range kv.value.arr {
				if g.str == "main" {
					e.c.Dev = false
				}
			}
		}
		if deps := p.table("dependencies"); deps != nil {
			for _, kv := range deps.kvs {
				e.deps = append(e.deps, compPyPINormalize(kv.key))
			}
		}
		entries = append(entries, e)
	}
	g := &compGraph{edges: map[string][]string{}}
	purlOf := map[string]string{}
	for _, e := range entries {
		id := compPyPINormalize(e.c.Name)
		g.edges[id] = append(g.edges[id], e.deps...)
		purlOf[id] = e.c.PURL
	}
	out := make([]Component, 0, len(entries))
	for _, e := range entries {
		for _, d := range e.deps {
			if p, ok := purlOf[d]; ok {
				e.c.DependsOn = append(e.c.DependsOn, p)
			}
		}
		out = append(out, e.c)
	}
	prod, dev := compPyProjectRoots(f.sibling("pyproject.toml"))
	g.apply(out, func(c Component) string { return compPyPINormalize(c.Name) }, prod, dev)
	for i, e := range entries {
		if e.explicit {
			out[i].Dev = e.c.Dev
		}
	}
	return out, nil
}

// compPyProjectRoots returns the normalized names pyproject.toml declares:
// Poetry's own tables and PEP 621 [project] (+ PEP 735 dependency-groups).
func compPyProjectRoots(data []byte) (prod, dev []string) {
	if data == nil {
		return nil, nil
	}
	doc, err := compParseTOML(data)
	if err != nil {
		return nil, nil
	}
	keys := func(t *compTOMLTable) []string {
		var out []string
		for _, kv := range t.kvsOrNil() {
			if kv.key != "python" {
				out = append(out, compPyPINormalize(kv.key))
			}
		}
		return out
	}
	strs := func(v compTOMLValue) []string {
		var out []string
		for _, el := range v.arr {
			if n, _ := compPyRequirementName(el.str); n != "" {
				out = append(out, compPyPINormalize(n))
			}
		}
		return out
	}
	poetry := doc.table("tool", "poetry")
	prod = append(prod, keys(poetry.table("dependencies"))...)
	dev = append(dev, keys(poetry.table("dev-dependencies"))...)
	if groups := poetry.table("group"); groups != nil {
		names := slices.Sorted(maps.Keys(groups.sub))
		for _, n := range names {
			if n == "main" {
				prod = append(prod, keys(groups.sub[n].table("dependencies"))...)
			} else {
				dev = append(dev, keys(groups.sub[n].table("dependencies"))...)
			}
		}
	}
	project := doc.table("project")
	if kv := project.get("dependencies"); kv != nil {
		prod = append(prod, strs(kv.value)...)
	}
	for _, kv := range project.table("optional-dependencies").kvsOrNil() {
		prod = append(prod, strs(kv.value)...)
	}
	for _, kv := range doc.table("dependency-groups").kvsOrNil() {
		dev = append(dev, strs(kv.value)...)
	}
	return prod, dev
}

func (t *compTOMLTable) kvsOrNil() []compTOMLKV {
	if t == nil {
		return nil
	}
	return t.kvs
}

// ---- Pipfile.lock ----

// compParsePipfileLock reads the "default" (runtime) and "develop" (dev)
// sections. Pipfile beside it lists the direct requirements; without it the
// scope is unknown.
func compParsePipfileLock(f compFile) ([]Component, error) {
	var lock map[string]json.RawMessage
	if err := json.Unmarshal(f.data, &lock); err != nil {
		return nil, err
	}
	lines, err := compJSONKeyLines(f.data)
	if err != nil {
		return nil, err
	}
	direct := map[string]bool{}
	havePipfile := false
	if data := f.sibling("Pipfile"); data != nil {
		if doc, err := compParseTOML(data); err == nil {
			havePipfile = true
			for _, sec := range []string{"packages", "dev-packages"} {
				for _, kv := range doc.table(sec).kvsOrNil() {
					direct[compPyPINormalize(kv.key)] = true
				}
			}
		}
	}
	var out []Component
	for _, sec := range []string{"default", "develop"} {
		var pkgs map[string]struct {
			Version string `json:"version"`
		}
		if raw, ok := lock[sec]; !ok || json.Unmarshal(raw, &pkgs) != nil {
			continue
		}
		names := slices.Sorted(maps.Keys(pkgs))
		for _, n := range names {
			v := strings.TrimPrefix(strings.TrimPrefix(pkgs[n].Version, "==="), "==")
			c := Component{Name: n, Version: v, Ecosystem: EcoPyPI, PURL: compPURL(EcoPyPI, n, v), Dev: sec == "develop", Source: f.rel, Line: lines[compJSONPath(sec, n)]}
			if havePipfile {
				c.Scope = ScopeTransitive
				if direct[compPyPINormalize(n)] {
					c.Scope = ScopeDirect
				}
			}
			out = append(out, c)
		}
	}
	return out, nil
}
