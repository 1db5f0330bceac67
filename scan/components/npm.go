package components

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// npm ecosystem: package-lock.json / npm-shrinkwrap.json (lockfile v1, v2,
// v3), yarn.lock (classic v1 and berry) and pnpm-lock.yaml (v5, v6, v9).

// compPackageJSONDeps is what a package.json asks for: prod holds
// dependencies and optionalDependencies (both ship), dev devDependencies.
type compPackageJSONDeps struct {
	prod map[string]string
	dev  map[string]string
}

func compReadPackageJSONDeps(data []byte) (compPackageJSONDeps, bool) {
	var pj struct {
		Dependencies         map[string]string `json:"dependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
		DevDependencies      map[string]string `json:"devDependencies"`
	}
	if data == nil || json.Unmarshal(data, &pj) != nil {
		return compPackageJSONDeps{}, false
	}
	d := compPackageJSONDeps{prod: map[string]string{}, dev: map[string]string{}}
	for k, v := range pj.Dependencies {
		d.prod[k] = v
	}
	for k, v := range pj.OptionalDependencies {
		d.prod[k] = v
	}
	for k, v := range pj.DevDependencies {
		if _, inProd := d.prod[k]; !inProd {
			d.dev[k] = v
		}
	}
	return d, true
}

// compNPMAlias resolves npm's alias syntax: a dependency "foo" whose
// version is "npm:bar@1.2.3" installs package bar.
func compNPMAlias(name, version string) (string, string) {
	if rest, ok := strings.CutPrefix(version, "npm:"); ok {
		if i := strings.LastIndex(rest, "@"); i > 0 {
			return rest[:i], rest[i+1:]
		}
	}
	return name, version
}

// compSplitNameAt splits "name@rest" where name may start with '@' (a
// scope): the separator is the first '@' after position 0.
func compSplitNameAt(s string) (string, string, bool) {
	if len(s) < 2 {
		return "", "", false
	}
	i := strings.Index(s[1:], "@")
	if i < 0 {
		return "", "", false
	}
	return s[:i+1], s[i+2:], true
}

// ---- package-lock.json ----

type compNPMLockPackage struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Dev                  bool              `json:"dev"`
	Link                 bool              `json:"link"`
	License              json.RawMessage   `json:"license"`
	Dependencies         map[string]string `json:"dependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	DevDependencies      map[string]string `json:"devDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
}

type compNPMLockDep struct {
	Version      string                     `json:"version"`
	Dev          bool                       `json:"dev"`
	Requires     map[string]string          `json:"requires"`
	Dependencies map[string]*compNPMLockDep `json:"dependencies"`
}

func compParseNPMLock(f compFile) ([]Component, error) {
	var lock struct {
		LockfileVersion int                           `json:"lockfileVersion"`
		Packages        map[string]compNPMLockPackage `json:"packages"`
		Dependencies    map[string]*compNPMLockDep    `json:"dependencies"`
	}
	if err := json.Unmarshal(f.data, &lock); err != nil {
		return nil, err
	}
	lines, err := compJSONKeyLines(f.data)
	if err != nil {
		return nil, err
	}
	if len(lock.Packages) > 0 {
		return compNPMLockPackages(f, lock.Packages, lines), nil
	}
	return compNPMLockV1(f, lock.Dependencies, lines), nil
}

// compNPMLockPackages reads the "packages" map of lockfile v2 and v3: keys
// are install paths (node_modules/a/node_modules/b), "" is the root project
// and paths outside node_modules are workspace packages, which are the
// project's own code and so roots rather than components.
func compNPMLockPackages(f compFile, pkgs map[string]compNPMLockPackage, lines map[string]int) []Component {
	// direct[workspace] = names that workspace declares
	direct := map[string]map[string]bool{}
	for k, p := range pkgs {
		if strings.HasPrefix(k, "node_modules/") || strings.Contains(k, "/node_modules/") {
			continue
		}
		names := map[string]bool{}
		for _, m := range []map[string]string{p.Dependencies, p.OptionalDependencies, p.DevDependencies, p.PeerDependencies} {
			for n := range m {
				names[n] = true
			}
		}
		direct[k] = names
	}
	nameOf := func(k string, p compNPMLockPackage) string {
		if p.Name != "" {
			return p.Name
		}
		i := strings.LastIndex(k, "node_modules/")
		return k[i+len("node_modules/"):]
	}
	purlOf := map[string]string{}
	keys := make([]string, 0, len(pkgs))
	for k, p := range pkgs {
		if k == "" || p.Link || !(strings.HasPrefix(k, "node_modules/") || strings.Contains(k, "/node_modules/")) {
			continue
		}
		keys = append(keys, k)
		purlOf[k] = compPURL(EcoNPM, nameOf(k, p), p.Version)
	}
	sort.Strings(keys)
	// resolve follows node's lookup: the requiring package's own
	// node_modules, then each ancestor's, up to the root.
	resolve := func(from, dep string) string {
		cur := from
		for {
			cand := "node_modules/" + dep
			if cur != "" {
				cand = cur + "/node_modules/" + dep
			}
			if _, ok := purlOf[cand]; ok {
				return cand
			}
			if cur == "" {
				return ""
			}
			i := strings.LastIndex(cur, "node_modules/")
			if i < 0 {
				cur = ""
				continue
			}
			cur = strings.TrimSuffix(cur[:i], "/")
		}
	}
	var out []Component
	for _, k := range keys {
		p := pkgs[k]
		first := strings.Index(k, "node_modules/")
		ws := strings.TrimSuffix(k[:first], "/")
		alias := k[first+len("node_modules/"):]
		c := Component{
			Name:      nameOf(k, p),
			Version:   p.Version,
			Ecosystem: EcoNPM,
			PURL:      purlOf[k],
			Scope:     ScopeTransitive,
			Dev:       p.Dev,
			Source:    f.rel,
			Line:      lines[compJSONPath("packages", k)],
		}
		if !strings.Contains(alias, "/node_modules/") {
			if direct[ws][alias] || (ws == "" && compNPMAnyWorkspaceDeclares(direct, alias)) {
				c.Scope = ScopeDirect
			}
		}
		for _, m := range []map[string]string{p.Dependencies, p.OptionalDependencies, p.PeerDependencies} {
			for dep := range m {
				if to := resolve(k, dep); to != "" {
					c.DependsOn = append(c.DependsOn, purlOf[to])
				}
			}
		}
		if len(p.License) > 0 {
			c.Licenses = compNPMLicenseField(p.License)
			c.LicenseSource = f.rel
			c.LicenseLine = lines[compJSONPath("packages", k, "license")]
		}
		out = append(out, c)
	}
	return out
}

// compNPMAnyWorkspaceDeclares: npm hoists workspace dependencies to the
// root node_modules, so a root-level package is direct when any workspace
// declares it.
func compNPMAnyWorkspaceDeclares(direct map[string]map[string]bool, name string) bool {
	for _, names := range direct {
		if names[name] {
			return true
		}
	}
	return false
}

// compNPMLockV1 reads lockfile v1's nested "dependencies" tree. v1 has no
// root entry, so the package.json beside it says what is direct; without
// one the scope stays unknown.
func compNPMLockV1(f compFile, deps map[string]*compNPMLockDep, lines map[string]int) []Component {
	manifest, haveManifest := compReadPackageJSONDeps(f.sibling("package.json"))
	type node struct {
		name   string
		dep    *compNPMLockDep
		path   []string
		parent *node
	}
	var nodes []*node
	var walk func(m map[string]*compNPMLockDep, parent *node, prefix []string)
	walk = func(m map[string]*compNPMLockDep, parent *node, prefix []string) {
		names := slices.Sorted(maps.Keys(m))
		for _, n := range names {
			d := m[n]
			if d == nil {
				continue
			}
			p := append(append([]string(nil), prefix...), "dependencies", n)
			nd := &node{name: n, dep: d, path: p, parent: parent}
			nodes = append(nodes, nd)
			walk(d.Dependencies, nd, p)
		}
	}
	walk(deps, nil, nil)
	purl := func(nd *node) string {
		name, version := compNPMAlias(nd.name, nd.dep.Version)
		return compPURL(EcoNPM, name, version)
	}
	resolve := func(from *node, dep string) *compNPMLockDep {
		for n := from; n != nil; n = n.parent {
			if d, ok := n.dep.Dependencies[dep]; ok {
				return d
			}
		}
		return deps[dep]
	}
	byDep := map[*compNPMLockDep]*node{}
	for _, nd := range nodes {
		byDep[nd.dep] = nd
	}
	var out []Component
	for _, nd := range nodes {
		name, version := compNPMAlias(nd.name, nd.dep.Version)
		c := Component{
			Name:      name,
			Version:   version,
			Ecosystem: EcoNPM,
			PURL:      purl(nd),
			Dev:       nd.dep.Dev,
			Source:    f.rel,
			Line:      lines[compJSONPath(nd.path...)],
		}
		if haveManifest {
			c.Scope = ScopeTransitive
			if nd.parent == nil && (manifest.prod[nd.name] != "" || manifest.dev[nd.name] != "") {
				c.Scope = ScopeDirect
			}
		}
		for req := range nd.dep.Requires {
			if d := resolve(nd, req); d != nil {
				if to, ok := byDep[d]; ok {
					c.DependsOn = append(c.DependsOn, purl(to))
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// ---- yarn.lock ----

// compYarnEntry is one resolved package of a yarn.lock.
type compYarnEntry struct {
	name, version string
	line          int
	deps          map[string]string // dependency name -> range as written
	workspace     string            // set for berry workspace entries: the path
	component     bool              // false for workspaces, patches, links
}

func compParseYarnLock(f compFile) ([]Component, error) {
	head := string(f.data[:min(len(f.data), 4096)])
	berry := strings.Contains(head, "__metadata:")
	var root *compYAMLNode
	if berry {
		root = compParseIndented(f.data, compSplitYAML)
	} else {
		root = compParseIndented(f.data, compSplitYarnV1)
	}
	var entries []*compYarnEntry
	byDescriptor := map[string]*compYarnEntry{}
	for _, n := range root.children {
		if n.key == "__metadata" {
			continue
		}
		descs := compSplitDescriptors(n.key)
		if len(descs) == 0 {
			continue
		}
		e := &compYarnEntry{line: n.line, deps: map[string]string{}, component: true}
		name, rng, ok := compSplitNameAt(descs[0])
		if !ok {
			continue
		}
		e.name = name
		if v := n.child("version"); v != nil {
			e.version = v.value
		}
		if berry {
			res := ""
			if r := n.child("resolution"); r != nil {
				res = r.value
			}
			rname, rref, _ := compSplitNameAt(res)
			switch {
			case strings.HasPrefix(rref, "npm:"):
				e.name = rname
				e.version = strings.TrimPrefix(rref, "npm:")
			case strings.HasPrefix(rref, "workspace:"):
				e.workspace = strings.TrimPrefix(rref, "workspace:")
				e.component = false
			default:
				// patch:, link:, portal:, file:, git: the project's own
				// code, or a patched copy of an npm entry listed anyway.
				e.component = false
				if rname != "" {
					e.name = rname
				}
			}
		} else {
			// an aliased descriptor "foo@npm:bar@^1" installs bar
			if real, _, ok := compSplitNameAt(strings.TrimPrefix(rng, "npm:")); ok && strings.HasPrefix(rng, "npm:") {
				e.name = real
			}
			if strings.HasPrefix(rng, "file:") || strings.HasPrefix(rng, "link:") || strings.HasPrefix(rng, "workspace:") {
				e.component = false
			}
		}
		for _, block := range []string{"dependencies", "optionalDependencies"} {
			for _, d := range n.child(block).childrenOrNil() {
				e.deps[d.key] = d.value
			}
		}
		for _, d := range descs {
			byDescriptor[d] = e
		}
		entries = append(entries, e)
	}
	descriptor := func(name, rng string) string {
		if berry && !strings.Contains(rng, ":") {
			return name + "@npm:" + rng
		}
		return name + "@" + rng
	}
	id := func(e *compYarnEntry) string { return e.name + "@" + e.version }
	g := &compGraph{edges: map[string][]string{}}
	for _, e := range entries {
		for dn, dr := range e.deps {
			if to := byDescriptor[descriptor(dn, dr)]; to != nil {
				g.edges[id(e)] = append(g.edges[id(e)], id(to))
			}
		}
	}
	var prodRoots, devRoots []string
	addRoots := func(deps map[string]string, manifest compPackageJSONDeps) {
		for dn, dr := range deps {
			to := byDescriptor[descriptor(dn, dr)]
			if to == nil {
				continue
			}
			if _, isDev := manifest.dev[dn]; isDev {
				devRoots = append(devRoots, id(to))
			} else {
				prodRoots = append(prodRoots, id(to))
			}
		}
	}
	if berry {
		for _, e := range entries {
			if e.workspace == "" {
				continue
			}
			pj := filepath.Join(filepath.Dir(f.abs), filepath.FromSlash(e.workspace), "package.json")
			data, _ := readWithin(filepath.Dir(f.abs), pj) // the lockfile names it: never outside the project
			manifest, _ := compReadPackageJSONDeps(data)
			addRoots(e.deps, manifest)
		}
	} else if manifest, ok := compReadPackageJSONDeps(f.sibling("package.json")); ok {
		all := map[string]string{}
		for k, v := range manifest.prod {
			all[k] = v
		}
		for k, v := range manifest.dev {
			all[k] = v
		}
		addRoots(all, manifest)
	}
	var out []Component
	purlOf := map[string]string{}
	for _, e := range entries {
		if e.component {
			purlOf[id(e)] = compPURL(EcoNPM, e.name, e.version)
		}
	}
	for _, e := range entries {
		if !e.component {
			continue
		}
		c := Component{Name: e.name, Version: e.version, Ecosystem: EcoNPM, PURL: purlOf[id(e)], Source: f.rel, Line: e.line}
		for _, to := range g.edges[id(e)] {
			if p, ok := purlOf[to]; ok {
				c.DependsOn = append(c.DependsOn, p)
			}
		}
		out = append(out, c)
	}
	g.apply(out, func(c Component) string { return c.Name + "@" + c.Version }, prodRoots, devRoots)
	return out, nil
}

func (n *compYAMLNode) childrenOrNil() []*compYAMLNode {
	if n == nil {
		return nil
	}
	return n.children
}

// ---- pnpm-lock.yaml ----

func compParsePNPMLock(f compFile) ([]Component, error) {
	root := compParseIndented(f.data, compSplitYAML)
	major := 0
	if v := root.child("lockfileVersion"); v != nil {
		s, _, _ := strings.Cut(v.value, ".")
		major, _ = strconv.Atoi(s)
	}
	if major == 0 {
		major = 5
	}
	type pkg struct {
		name, version string
		line          int
		dev           string // "true"/"false" as written (v5, v6), "" in v9
		deps          []string
	}
	pkgs := map[string]*pkg{}
	var order []string
	// v9 moved dependencies from packages to snapshots
	depSource := root.child("packages")
	if major >= 9 {
		depSource = root.child("snapshots")
	}
	for _, n := range root.child("packages").childrenOrNil() {
		name, version := compPNPMKey(n.key, major)
		if name == "" || strings.Contains(version, ":") || strings.Contains(version, "/") {
			continue // tarball, git or file dependency: no registry identity
		}
		id := name + "@" + version
		if _, ok := pkgs[id]; !ok {
			pkgs[id] = &pkg{name: name, version: version, line: n.line}
			order = append(order, id)
		}
		if d := n.child("dev"); d != nil {
			pkgs[id].dev = d.value
		}
	}
	for _, n := range depSource.childrenOrNil() {
		name, version := compPNPMKey(n.key, major)
		p := pkgs[name+"@"+version]
		if p == nil {
			continue
		}
		for _, block := range []string{"dependencies", "optionalDependencies"} {
			for _, d := range n.child(block).childrenOrNil() {
				if to := compPNPMRef(d.key, d.value, major); to != "" {
					p.deps = append(p.deps, to)
				}
			}
		}
	}
	g := &compGraph{edges: map[string][]string{}}
	for id, p := range pkgs {
		g.edges[id] = p.deps
	}
	var prodRoots, devRoots []string
	importers := []*compYAMLNode{root}
	if imp := root.child("importers"); imp != nil {
		importers = imp.children
	}
	for _, imp := range importers {
		for _, block := range []string{"dependencies", "optionalDependencies", "devDependencies"} {
			for _, d := range imp.child(block).childrenOrNil() {
				ref := d.value
				if v := d.child("version"); v != nil {
					ref = v.value
				}
				to := compPNPMRef(d.key, ref, major)
				if _, ok := pkgs[to]; !ok {
					continue
				}
				if block == "devDependencies" {
					devRoots = append(devRoots, to)
				} else {
					prodRoots = append(prodRoots, to)
				}
			}
		}
	}
	purlOf := map[string]string{}
	for id, p := range pkgs {
		purlOf[id] = compPURL(EcoNPM, p.name, p.version)
	}
	var out []Component
	for _, id := range order {
		p := pkgs[id]
		c := Component{Name: p.name, Version: p.version, Ecosystem: EcoNPM, PURL: purlOf[id], Source: f.rel, Line: p.line}
		for _, to := range p.deps {
			if pu, ok := purlOf[to]; ok {
				c.DependsOn = append(c.DependsOn, pu)
			}
		}
		out = append(out, c)
	}
	g.apply(out, func(c Component) string { return c.Name + "@" + c.Version }, prodRoots, devRoots)
	for i := range out {
		// v5/v6 record dev-ness themselves; trust the lockfile over the
		// graph walk where it speaks.
		switch pkgs[out[i].Name+"@"+out[i].Version].dev {
		case "true":
			out[i].Dev = true
		case "false":
			out[i].Dev = false
		}
	}
	return out, nil
}

// compPNPMKey splits a packages key into name and version, dropping the
// peer-dependency suffix: v5 "/@scope/name/1.0.0_react@18.0.0", v6
// "/@scope/name@1.0.0(react@18.0.0)", v9 "@scope/name@1.0.0(react@18.0.0)".
func compPNPMKey(key string, major int) (string, string) {
	key = strings.TrimPrefix(key, "/")
	if i := strings.IndexByte(key, '('); i >= 0 {
		key = key[:i]
	}
	if major < 6 {
		i := strings.LastIndexByte(key, '/')
		if i <= 0 {
			return "", ""
		}
		name, version := key[:i], key[i+1:]
		if j := strings.IndexByte(version, '_'); j >= 0 {
			version = version[:j]
		}
		return name, version
	}
	name, version, ok := compSplitNameAt(key)
	if !ok {
		return "", ""
	}
	return name, version
}

// compPNPMRef turns a dependency reference into a package id
// (name@version): a plain version (with peer suffix), an alias pointing at
// another package (v5/v6 "/other/1.0.0", v9 "other@1.0.0"), or a local
// link, which yields "".
func compPNPMRef(name, ref string, major int) string {
	if ref == "" || strings.HasPrefix(ref, "link:") || strings.HasPrefix(ref, "file:") || strings.HasPrefix(ref, "workspace:") {
		return ""
	}
	if strings.HasPrefix(ref, "/") {
		n, v := compPNPMKey(ref, major)
		if n == "" {
			return ""
		}
		return n + "@" + v
	}
	if i := strings.IndexByte(ref, '('); i >= 0 {
		ref = ref[:i]
	}
	if major < 6 {
		if j := strings.IndexByte(ref, '_'); j >= 0 {
			ref = ref[:j]
		}
	}
	if n, v, ok := compSplitNameAt(ref); ok && !strings.HasPrefix(ref, "npm:") {
		return n + "@" + v
	}
	return name + "@" + ref
}
