package components

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"scand/scan/spdx"
)

// Cargo.lock, Gemfile.lock, composer.lock and Maven pom.xml.

// ---- Cargo.lock ----

// compParseCargoLock reads [[package]] entries. Packages without a source
// are the workspace's own crates (and path dependencies): they are the
// roots, not components, and what they depend on is direct.
func compParseCargoLock(f compFile) ([]Component, error) {
	doc, err := compParseTOML(f.data)
	if err != nil {
		return nil, err
	}
	type entry struct {
		name, version string
		local         bool
		line          int
		deps          []string
	}
	var entries []entry
	byName := map[string][]int{}
	for _, p := range doc.arrays("package") {
		e := entry{name: p.str("name"), version: p.str("version"), local: p.str("source") == "", line: p.line}
		if kv := p.get("name"); kv != nil {
			e.line = kv.line
		}
		if kv := p.get("dependencies"); kv != nil {
			for _, d := range kv.value.arr {
				e.deps = append(e.deps, d.str)
			}
		}
		byName[e.name] = append(byName[e.name], len(entries))
		entries = append(entries, e)
	}
	id := func(e entry) string { return e.name + "@" + e.version }
	// A dependency is "name" when one version is locked, else "name
	// version" or "name version (source)".
	resolve := func(dep string) (entry, bool) {
		f := strings.Fields(dep)
		if len(f) == 0 {
			return entry{}, false
		}
		for _, i := range byName[f[0]] {
			if len(f) == 1 || entries[i].version == f[1] {
				return entries[i], true
			}
		}
		return entry{}, false
	}
	g := &compGraph{edges: map[string][]string{}}
	var roots []string
	for _, e := range entries {
		for _, d := range e.deps {
			to, ok := resolve(d)
			if !ok || to.local {
				continue
			}
			g.edges[id(e)] = append(g.edges[id(e)], id(to))
			if e.local {
				roots = append(roots, id(to))
			}
		}
	}
	var out []Component
	for _, e := range entries {
		if e.local {
			continue
		}
		c := Component{Name: e.name, Version: e.version, Ecosystem: EcoCargo, PURL: compPURL(EcoCargo, e.name, e.version), Source: f.rel, Line: e.line}
		for _, d := range e.deps {
			if to, ok := resolve(d); ok && !to.local {
				c.DependsOn = append(c.DependsOn, compPURL(EcoCargo, to.name, to.version))
			}
		}
		out = append(out, c)
	}
	g.apply(out, func(c Component) string { return c.Name + "@" + c.Version }, roots, nil)
	return out, nil
}

// ---- Gemfile.lock ----

// compParseGemfileLock reads the specs of the GEM and GIT sections
// ("    name (version[-platform])" with their requirements indented below)
// and DEPENDENCIES, which lists what the Gemfile asks for. PATH gems are
// the project's own. A platform-specific gem keeps its platform as the purl
// qualifier the gem purl type defines.
func compParseGemfileLock(f compFile) ([]Component, error) {
	type spec struct {
		name, version, platform string
		line                    int
		deps                    []string
	}
	var specs []*spec
	direct := map[string]bool{}
	section := ""
	var cur *spec
	for i, raw := range strings.Split(string(f.data), "\n") {
		raw = strings.TrimRight(raw, "\r")
		if raw == "" {
			continue
		}
		content := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(content)
		if indent == 0 {
			section = content
			cur = nil
			continue
		}
		name, paren, _ := strings.Cut(content, " (")
		name = strings.TrimSuffix(name, "!")
		switch {
		case (section == "GEM" || section == "GIT") && indent == 4:
			version := strings.TrimSuffix(paren, ")")
			platform := ""
			if j := strings.IndexByte(version, '-'); j >= 0 {
				version, platform = version[:j], version[j+1:]
			}
			cur = &spec{name: name, version: version, platform: platform, line: i + 1}
			specs = append(specs, cur)
		case (section == "GEM" || section == "GIT") && indent == 6 && cur != nil:
			cur.deps = append(cur.deps, name)
		case section == "DEPENDENCIES" && indent == 2:
			direct[name] = true
		}
	}
	byName := map[string][]*spec{}
	for _, s := range specs {
		byName[s.name] = append(byName[s.name], s)
	}
	purl := func(s *spec) string {
		return compPURL(EcoGem, s.name, s.version, [2]string{"platform", s.platform})
	}
	g := &compGraph{edges: map[string][]string{}}
	var out []Component
	var roots []string
	for _, s := range specs {
		c := Component{Name: s.name, Version: s.version, Ecosystem: EcoGem, PURL: purl(s), Source: f.rel, Line: s.line}
		for _, d := range s.deps {
			for _, to := range byName[d] {
				c.DependsOn = append(c.DependsOn, purl(to))
				g.edges[c.PURL] = append(g.edges[c.PURL], purl(to))
			}
		}
		if direct[s.name] {
			roots = append(roots, c.PURL)
		}
		out = append(out, c)
	}
	g.apply(out, func(c Component) string { return c.PURL }, roots, nil)
	return out, nil
}

// ---- composer.lock ----

type compComposerPackage struct {
	Name    string            `json:"name"`
	Version string            `json:"version"`
	Require map[string]string `json:"require"`
	License []string          `json:"license"`
}

// compComposerPlatform reports requirements on the PHP runtime itself and
// its extensions, which are not packages.
func compComposerPlatform(name string) bool {
	return name == "php" || name == "hhvm" || name == "composer-plugin-api" || name == "composer-runtime-api" ||
		strings.HasPrefix(name, "ext-") || strings.HasPrefix(name, "lib-") || !strings.Contains(name, "/")
}

// compParseComposerLock reads "packages" (runtime) and "packages-dev"
// (dev); composer.json beside it says what is direct. composer.lock copies
// each package's license list, so license data comes from the lock itself.
func compParseComposerLock(f compFile) ([]Component, error) {
	var lock struct {
		Packages    []compComposerPackage `json:"packages"`
		PackagesDev []compComposerPackage `json:"packages-dev"`
	}
	if err := json.Unmarshal(f.data, &lock); err != nil {
		return nil, err
	}
	lines, err := compJSONKeyLines(f.data)
	if err != nil {
		return nil, err
	}
	var manifest struct {
		Require    map[string]string `json:"require"`
		RequireDev map[string]string `json:"require-dev"`
	}
	haveManifest := false
	if data := f.sibling("composer.json"); data != nil && json.Unmarshal(data, &manifest) == nil {
		haveManifest = true
	}
	purlOf := map[string]string{}
	for _, set := range [][]compComposerPackage{lock.Packages, lock.PackagesDev} {
		for _, p := range set {
			purlOf[strings.ToLower(p.Name)] = compPURL(EcoComposer, p.Name, p.Version)
		}
	}
	var out []Component
	for si, set := range [][]compComposerPackage{lock.Packages, lock.PackagesDev} {
		section := []string{"packages", "packages-dev"}[si]
		for i, p := range set {
			idx := []string{section, strconv.Itoa(i)}
			c := Component{
				Name: p.Name, Version: p.Version, Ecosystem: EcoComposer, PURL: purlOf[strings.ToLower(p.Name)],
				Dev: si == 1, Source: f.rel, Line: lines[compJSONPath(append(idx, "name")...)],
				Licenses: compNormalizeAll(p.License), LicenseSource: f.rel,
				LicenseLine: lines[compJSONPath(append(idx, "license")...)],
			}
			if c.LicenseLine == 0 {
				c.LicenseLine = c.Line
			}
			if haveManifest {
				c.Scope = ScopeTransitive
				if _, ok := manifest.Require[p.Name]; ok {
					c.Scope = ScopeDirect
				}
				if _, ok := manifest.RequireDev[p.Name]; ok {
					c.Scope = ScopeDirect
				}
			}
			for dep := range p.Require {
				if compComposerPlatform(dep) {
					continue
				}
				if pu, ok := purlOf[strings.ToLower(dep)]; ok {
					c.DependsOn = append(c.DependsOn, pu)
				}
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func compNormalizeAll(in []string) []string {
	var out []string
	for _, s := range in {
		if n := spdx.Normalize(s); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// ---- Maven pom.xml ----

type compPOMDependency struct {
	group, artifact, version, scope, typ, classifier string
	line                                             int
}

// compParsePOM reads the dependencies a pom.xml declares (direct by
// definition; Maven resolves the transitive ones from a repository, which
// an offline scan does not reach). ${property} references are resolved from
// <properties> and the project's own coordinates; a version inherited from
// a parent POM or a BOM outside this file stays unknown rather than
// guessed. <dependencyManagement> supplies versions for dependencies that
// omit one. Test-scoped dependencies are dev.
func compParsePOM(f compFile) ([]Component, error) {
	lines := compNewLines(f.data)
	dec := xml.NewDecoder(bytes.NewReader(f.data))
	dec.Strict = false
	var stack []string
	props := map[string]string{}
	var deps, managed []compPOMDependency
	var cur *compPOMDependency
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			text.Reset()
			p := strings.Join(stack, "/")
			if p == "project/dependencies/dependency" || p == "project/dependencyManagement/dependencies/dependency" {
				cur = &compPOMDependency{line: lines.at(int(dec.InputOffset()) - 1)}
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			p := strings.Join(stack, "/")
			v := strings.TrimSpace(text.String())
			switch {
			case p == "project/dependencies/dependency" && cur != nil:
				deps = append(deps, *cur)
				cur = nil
			case p == "project/dependencyManagement/dependencies/dependency" && cur != nil:
				managed = append(managed, *cur)
				cur = nil
			case cur != nil && (strings.HasPrefix(p, "project/dependencies/dependency/") || strings.HasPrefix(p, "project/dependencyManagement/dependencies/dependency/")):
				switch t.Name.Local {
				case "groupId":
					cur.group = v
				case "artifactId":
					cur.artifact = v
				case "version":
					cur.version = v
				case "scope":
					cur.scope = v
				case "type":
					cur.typ = v
				case "classifier":
					cur.classifier = v
				}
			case len(stack) == 3 && stack[1] == "properties":
				props[t.Name.Local] = v
			case p == "project/groupId":
				props["project.groupId"] = v
			case p == "project/artifactId":
				props["project.artifactId"] = v
			case p == "project/version":
				props["project.version"] = v
			case p == "project/parent/groupId":
				props["project.parent.groupId"] = v
			case p == "project/parent/version":
				props["project.parent.version"] = v
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			text.Reset()
		}
	}
	// a child POM without its own groupId/version inherits the parent's
	for _, k := range []string{"groupId", "version"} {
		if props["project."+k] == "" {
			props["project."+k] = props["project.parent."+k]
		}
	}
	props["pom.version"] = props["project.version"]
	props["version"] = props["project.version"]
	props["parent.version"] = props["project.parent.version"]
	managedVersion := map[string]string{}
	for _, m := range managed {
		managedVersion[compPOMResolve(m.group, props)+":"+compPOMResolve(m.artifact, props)] = m.version
	}
	var out []Component
	for _, d := range deps {
		group, artifact := compPOMResolve(d.group, props), compPOMResolve(d.artifact, props)
		if group == "" || artifact == "" || strings.Contains(group+artifact, "${") {
			continue
		}
		version := d.version
		if version == "" {
			version = managedVersion[group+":"+artifact]
		}
		version = compPOMResolve(version, props)
		if strings.Contains(version, "${") || strings.ContainsAny(version, "[](),") {
			version = "" // unresolved property or a version range: not a release
		}
		name := group + ":" + artifact
		typ := d.typ
		if typ == "jar" {
			typ = ""
		}
		out = append(out, Component{
			Name: name, Version: version, Ecosystem: EcoMaven,
			PURL:  compPURL(EcoMaven, name, version, [2]string{"classifier", d.classifier}, [2]string{"type", typ}),
			Scope: ScopeDirect, Dev: d.scope == "test", Source: f.rel, Line: d.line,
		})
	}
	return out, nil
}

// compPOMResolve expands ${name} references, a few levels deep (a property
// may refer to another); an unknown one is left in place.
func compPOMResolve(s string, props map[string]string) string {
	for depth := 0; depth < 8 && strings.Contains(s, "${"); depth++ {
		var b strings.Builder
		rest := s
		changed := false
		for {
			i := strings.Index(rest, "${")
			if i < 0 {
				b.WriteString(rest)
				break
			}
			j := strings.IndexByte(rest[i:], '}')
			if j < 0 {
				b.WriteString(rest)
				break
			}
			key := rest[i+2 : i+j]
			b.WriteString(rest[:i])
			if v, ok := props[key]; ok {
				b.WriteString(v)
				changed = true
			} else {
				b.WriteString(rest[i : i+j+1])
			}
			rest = rest[i+j+1:]
		}
		s = b.String()
		if !changed {
			break
		}
	}
	return s
}
