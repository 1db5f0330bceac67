package components

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// A manifest without a lockfile (a package.json whose project ignores or
// never committed its lockfile, as juice-shop does) still says what the
// project depends on, only not which versions get installed. Its
// components carry the declared range as their version and VersionRange
// set, so the SBOM and a reader can tell; the licenses scanner reports one
// info finding per such manifest, since no advisory can be matched to a
// range.

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
			out = append(out, Component{Name: name, Version: spec, VersionRange: true, Ecosystem: EcoNPM,
				PURL: compPURL(EcoNPM, name, ""), Scope: ScopeDirect, Dev: dev, Source: f.rel, Line: lineOf(name)})
		}
	}
	add(deps.prod, false)
	add(deps.dev, true)
	return out
}
