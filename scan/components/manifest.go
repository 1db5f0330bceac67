package components

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"scand/scan/tree"
)

// A manifest without a lockfile (a package.json whose project ignores or
// never committed its lockfile, as juice-shop does) still says what the
// project depends on, only not which versions get installed. Its
// components carry the declared range in DeclaredRange and the installed
// version, when the tree has the package installed, in Version (empty
// otherwise: a range is not a version); the licenses scanner reports one
// info finding per such manifest and the scan a coverage warning, since no
// advisory can be matched to a range.

// compNPMExactSpec is a dependency spec naming one release ("1.2.3",
// "=1.2.3", "v1.2.3-rc.1"), as npm reads it.
var compNPMExactSpec = regexp.MustCompile(`^=?v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$`)

// compNPMLockfiles are the files that pin a package.json's versions.
var compNPMLockfiles = []string{"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb"}

// compHasNPMLockfile reports whether the package.json at rel (relative to
// the target), or a directory above it inside the target (a workspace
// root), has a lockfile.
func compHasNPMLockfile(root, rel string) bool {
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		for _, lf := range compNPMLockfiles {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir), lf)); err == nil {
				return true
			}
		}
		if dir == "." || dir == "/" || dir == "" {
			return false
		}
	}
}

// compParsePackageJSONRanges returns the dependencies of a package.json
// that has no lockfile, one component per dependency with its range.
func compParsePackageJSONRanges(f compFile, root string) []Component {
	if compHasNPMLockfile(root, f.rel) {
		return nil
	}
	deps, ok := compReadPackageJSONDeps(f.data)
	if !ok {
		return nil
	}
	lines := bytes.Split(f.data, []byte("\n"))
	lineOf := func(name string) int {
		key := []byte(strconv.Quote(name) + ":")
		for i, l := range lines {
			if bytes.Contains(bytes.ReplaceAll(l, []byte(`" :`), []byte(`":`)), key) {
				return i + 1
			}
		}
		return 0
	}
	var out []Component
	add := func(m map[string]string, dev bool) {
		for name, spec := range m {
			name, spec = compNPMAlias(name, spec)
			if strings.HasPrefix(spec, "file:") || strings.HasPrefix(spec, "link:") || strings.HasPrefix(spec, "workspace:") {
				continue // the project's own code, not a third-party package
			}
			c := Component{Name: name, DeclaredRange: spec, Ecosystem: EcoNPM,
				PURL: compPURL(EcoNPM, name, ""), Scope: ScopeDirect, Dev: dev, Source: f.rel, Line: lineOf(name)}
			if m := compNPMExactSpec.FindStringSubmatch(spec); m != nil {
				// "0.4.0" is a pin, not a range: npm installs exactly that.
				c.Version, c.DeclaredRange, c.PURL = m[1], "", compPURL(EcoNPM, name, m[1])
			}
			out = append(out, c)
		}
	}
	add(deps.prod, false)
	add(deps.dev, true)
	return out
}

// resolveDeclared gives the components a manifest declares by range the
// version installed in the tree, if any, and the purl of that version.
// npm: node_modules/<name>/package.json in the manifest's folder or a
// folder above it inside the target, the way Node resolves a require.
// Python: the one installed distribution of that name in a site-packages
// the walk read (none when several versions are installed).
func (d *compDiscovery) resolveDeclared(comps []Component) {
	for i := range comps {
		c := &comps[i]
		if c.Version != "" || (c.DeclaredRange == "" && c.Ecosystem != EcoPyPI) {
			continue
		}
		var v string
		switch c.Ecosystem {
		case EcoNPM:
			v = compInstalledNPMVersion(d.root, c.Source, c.Name)
		case EcoPyPI:
			v = d.licenses.installedVersion(EcoPyPI, c.Name)
		}
		if v != "" {
			c.Version, c.PURL = v, compPURL(c.Ecosystem, c.Name, v)
		}
	}
}

// compInstalledNPMVersion is the version in node_modules/<name>/package.json
// nearest the manifest at rel, or "" when none is installed or what is
// there is not an exact version.
func compInstalledNPMVersion(root, rel, name string) string {
	if strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return ""
	}
	for dir := path.Dir(rel); ; dir = path.Dir(dir) {
		p := filepath.Join(root, filepath.FromSlash(dir), "node_modules", filepath.FromSlash(name), "package.json")
		if data, err := tree.ReadCapped(p, compMaxMetaBytes); err == nil {
			var pkg struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			}
			if json.Unmarshal(data, &pkg) == nil && strings.EqualFold(pkg.Name, name) && compExactVersion(pkg.Version) {
				return pkg.Version
			}
			return ""
		}
		if dir == "." || dir == "/" || dir == "" {
			return ""
		}
	}
}

// compExactVersion reports whether v names one release, not a range.
func compExactVersion(v string) bool {
	return v != "" && len(v) <= 128 && !strings.ContainsAny(v, "<>=~^*| ,") && v != "latest" && !strings.HasSuffix(v, ".x")
}
