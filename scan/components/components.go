// Package components discovers the third-party components a source tree
// declares, offline: the parsers of its lockfiles and manifests
// (package-lock.json, yarn.lock, pnpm-lock.yaml, go.mod, requirements*.txt,
// Pipfile.lock, poetry.lock, Cargo.lock, Gemfile.lock, composer.lock,
// pom.xml), license data from what is installed or vendored on disk, and
// the capture stored with each scan. The licenses scanner and
// the SBOM writers (scan/sbom) read what it finds.
package components

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"scand/scan/purl"
	"scand/scan/tree"
)

// Component is one third-party package a target depends on, as declared by a
// manifest or lockfile found in the target. It feeds both the `licenses`
// scanner and the SBOM renderers, so everything in it comes from files on
// disk: discovery never touches the network.
type Component struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Ecosystem string `json:"ecosystem"`
	PURL      string `json:"purl"`
	// Scope is "direct", "transitive", or "" when the lockfile cannot tell
	// (no manifest beside it to say what the project itself asked for).
	Scope string `json:"scope"`
	// Dev is true when the lockfile says the package is only needed to build
	// or test the project (npm dev flag, Pipfile "develop", Maven test scope,
	// poetry dev group), so it does not ship.
	Dev bool `json:"dev"`
	// Source is the manifest or lockfile (slash-separated, relative to the
	// target) and Line the 1-based line where the package is declared; 0
	// when unknown.
	Source string `json:"source"`
	Line   int    `json:"line"`
	// Licenses holds normalized SPDX ids or expressions, or a license name as
	// given when it maps to no SPDX id. Several entries are alternatives
	// (the old npm "licenses" array and Python classifiers both mean that).
	Licenses []string `json:"licenses"`
	// LicenseSource and LicenseLine say where the license data was read
	// (a lockfile, node_modules/<pkg>/package.json, a METADATA file, a
	// vendored LICENSE). An empty LicenseSource means no license data was on
	// disk at all; a set LicenseSource with no Licenses means the package's
	// own metadata declares none.
	LicenseSource string `json:"license_source"`
	LicenseLine   int    `json:"license_line"`
	// DependsOn lists the PURLs of the components this one requires, as
	// resolved inside the same lockfile.
	DependsOn []string `json:"depends_on"`
	// DeclaredRange is the version range a manifest declares ("^4.13.4",
	// ">=2.0") when no lockfile pins the version (see manifest.go). Version
	// is then the version installed in the tree (node_modules/<name>/
	// package.json, a site-packages METADATA), or empty when none is: a
	// range is not a version, and the purl then carries none.
	DeclaredRange string `json:"declared_range,omitempty"`
}

// DecodeCapture reads a capture stored by CaptureJSON. Captures written
// before DeclaredRange existed kept the range in Version and flagged it
// with version_range; they read as the current shape.
func DecodeCapture(raw []byte) ([]Component, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var legacy []struct {
		Component
		VersionRange bool `json:"version_range"`
	}
	if err := json.Unmarshal(raw, &legacy); err != nil {
		return nil, err
	}
	out := make([]Component, len(legacy))
	for i, l := range legacy {
		out[i] = l.Component
		if l.VersionRange && out[i].DeclaredRange == "" {
			out[i].DeclaredRange, out[i].Version = out[i].Version, ""
		}
	}
	return out, nil
}

// VersionsUnknownWarning is the scan's coverage warning when components
// have no version (declared by range or not at all, with no lockfile and
// nothing installed to say which version is used): no advisory can be
// matched to them. Empty when every component has a version.
func VersionsUnknownWarning(comps []Component) string {
	n := 0
	for _, c := range comps {
		if c.Version == "" {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("versions unknown for %d components: no lockfile (their vulnerabilities cannot be checked; commit the lockfile or scan a tree with the dependencies installed)", n)
}

// Component scopes.
const (
	ScopeDirect     = "direct"
	ScopeTransitive = "transitive"
)

// Ecosystems, named after their purl types.
const (
	EcoNPM      = "npm"
	EcoGolang   = "golang"
	EcoPyPI     = "pypi"
	EcoCargo    = "cargo"
	EcoGem      = "gem"
	EcoComposer = "composer"
	EcoMaven    = "maven"
)

// Bounds on the walk. A target is a source tree, so these are generous; they
// exist so a hostile or accidental tree (a symlink farm, a decompressed
// archive bomb, a 2 GB "lockfile") cannot pin the daemon.
const (
	compMaxDepth     = 40
	compMaxEntries   = 500_000
	compMaxFileBytes = 20 << 20
	// compMaxMetaBytes caps package.json, METADATA and LICENSE reads: real
	// ones are a few KiB.
	compMaxMetaBytes = 1 << 20
	// compMaxNodeModulesDepth bounds node_modules/x/node_modules/y nesting.
	compMaxNodeModulesDepth = 24
)

// errCompEntryLimit stops the walk once compMaxEntries entries were seen.
var errCompEntryLimit = errors.New("component discovery: entry limit reached")

// compLockfileParsers maps a file name to its parser. requirements*.txt is
// matched separately because its name is a pattern.
var compLockfileParsers = map[string]func(compFile) ([]Component, error){
	"package-lock.json":   compParseNPMLock,
	"npm-shrinkwrap.json": compParseNPMLock,
	"yarn.lock":           compParseYarnLock,
	"pnpm-lock.yaml":      compParsePNPMLock,
	"go.mod":              compParseGoMod,
	"poetry.lock":         compParsePoetryLock,
	"Pipfile.lock":        compParsePipfileLock,
	"Cargo.lock":          compParseCargoLock,
	"Gemfile.lock":        compParseGemfileLock,
	"composer.lock":       compParseComposerLock,
	"pom.xml":             compParsePOM,
}

// compFile is one manifest or lockfile handed to a parser.
type compFile struct {
	abs  string // absolute path on disk
	rel  string // slash-separated, relative to the target
	data []byte
}

// sibling reads a file next to f (package.json beside package-lock.json,
// pyproject.toml beside poetry.lock, ...); nil when absent or too large.
func (f compFile) sibling(name string) []byte {
	b, err := tree.ReadCapped(filepath.Join(filepath.Dir(f.abs), name), compMaxMetaBytes)
	if err != nil {
		return nil
	}
	return b
}

// compDiscovery is the state of one Discover call.
type compDiscovery struct {
	root     string
	entries  int
	comps    []Component
	licenses compLicenseIndex
	errs     []error
}

// Discover walks root and returns every third-party component its
// manifests and lockfiles declare, with license data from what is installed
// or vendored on disk (node_modules, a Python venv's site-packages, Go and
// Cargo vendor directories). The result is sorted by ecosystem, name,
// version and source, and holds one entry per (purl, source).
//
// Lockfiles inside node_modules, vendor, site-packages and .git are never
// parsed as the project's own: those trees are read only for license data.
//
// A file that cannot be parsed does not stop discovery: the returned error
// then joins one error per such file (and the entry-limit error, if hit)
// while the slice still holds everything else. Only a cancelled ctx returns
// ctx's error.
func Discover(ctx context.Context, root string) ([]Component, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("component discovery: %s is not a directory", root)
	}
	d := &compDiscovery{root: abs, licenses: compLicenseIndex{}}
	werr := filepath.WalkDir(abs, func(p string, e fs.DirEntry, err error) error {
		return d.visit(ctx, p, e, err)
	})
	if werr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		d.errs = append(d.errs, werr)
	}
	d.resolveDeclared(d.comps)
	d.licenses.attach(d.comps)
	return compFinalize(d.comps), errors.Join(d.errs...)
}

func (d *compDiscovery) rel(p string) string {
	r, err := filepath.Rel(d.root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// count charges one walked entry against the bound and polls ctx now and
// then, so a huge tree can be cancelled promptly.
func (d *compDiscovery) count(ctx context.Context) error {
	d.entries++
	if d.entries > compMaxEntries {
		return errCompEntryLimit
	}
	if d.entries%512 == 0 {
		return ctx.Err()
	}
	return nil
}

// eachEntry calls visit for every entry of a directory listing, each
// charged against the bound, and stops at the first error visit or the
// bound returns.
func (d *compDiscovery) eachEntry(ctx context.Context, entries []os.DirEntry, visit func(os.DirEntry) error) error {
	for _, e := range entries {
		if err := d.count(ctx); err != nil {
			return err
		}
		if err := visit(e); err != nil {
			return err
		}
	}
	return nil
}

func (d *compDiscovery) visit(ctx context.Context, p string, e fs.DirEntry, err error) error {
	if err != nil {
		if p == d.root {
			return err
		}
		d.errs = append(d.errs, err)
		if e != nil && e.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	if cerr := d.count(ctx); cerr != nil {
		return cerr
	}
	name := e.Name()
	if e.IsDir() {
		if p == d.root {
			return nil
		}
		if strings.Count(d.rel(p), "/")+1 > compMaxDepth {
			return fs.SkipDir
		}
		switch name {
		case ".git", ".hg", ".svn":
			return fs.SkipDir
		case "node_modules":
			if err := d.scanNodeModules(ctx, p, 0); err != nil {
				return err
			}
			return fs.SkipDir
		case "site-packages", "dist-packages":
			if err := d.scanSitePackages(ctx, p); err != nil {
				return err
			}
			return fs.SkipDir
		case "vendor":
			if err := d.scanVendor(ctx, p); err != nil {
				return err
			}
			return fs.SkipDir
		}
		return nil
	}
	if !e.Type().IsRegular() {
		return nil
	}
	parse := compLockfileParsers[name]
	if parse == nil && compIsRequirementsFile(name) {
		parse = compParseRequirements
	}
	if name == "package.json" {
		root := d.root
		parse = func(f compFile) ([]Component, error) { return compParsePackageJSONRanges(f, root), nil }
	}
	if parse == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rel := d.rel(p)
	data, err := tree.ReadCapped(p, compMaxFileBytes)
	if err != nil {
		d.errs = append(d.errs, fmt.Errorf("%s: skipped: %w", rel, err))
		return nil
	}
	comps, err := parse(compFile{abs: p, rel: rel, data: data})
	if err != nil {
		d.errs = append(d.errs, fmt.Errorf("%s: %w", rel, err))
	}
	d.comps = append(d.comps, comps...)
	return nil
}

// compIsRequirementsFile matches requirements.txt, requirements-dev.txt,
// requirements_test.txt and the like.
func compIsRequirementsFile(name string) bool {
	return strings.HasPrefix(name, "requirements") && strings.HasSuffix(name, ".txt")
}

// compFinalize merges duplicates (same purl declared twice in one file, such
// as one npm package nested under two parents) and sorts. A merged entry is
// direct if any occurrence is, and dev only if every occurrence is, because
// one runtime path is enough for the package to ship.
func compFinalize(comps []Component) []Component {
	type key struct{ purl, source string }
	byKey := map[key]int{}
	var out []Component
	for _, c := range comps {
		if c.Name == "" {
			continue
		}
		k := key{c.PURL, c.Source}
		i, seen := byKey[k]
		if !seen {
			byKey[k] = len(out)
			c.Licenses = compUniqueSorted(c.Licenses)
			c.DependsOn = compUniqueSorted(c.DependsOn)
			out = append(out, c)
			continue
		}
		m := &out[i]
		if c.Line > 0 && (m.Line == 0 || c.Line < m.Line) {
			m.Line = c.Line
		}
		switch {
		case m.Scope == ScopeDirect || c.Scope == ScopeDirect:
			m.Scope = ScopeDirect
		case m.Scope == "":
			m.Scope = c.Scope
		}
		m.Dev = m.Dev && c.Dev
		if len(m.Licenses) == 0 && len(c.Licenses) > 0 {
			m.Licenses, m.LicenseSource, m.LicenseLine = compUniqueSorted(c.Licenses), c.LicenseSource, c.LicenseLine
		}
		if m.LicenseSource == "" {
			m.LicenseSource, m.LicenseLine = c.LicenseSource, c.LicenseLine
		}
		m.DependsOn = compUniqueSorted(append(m.DependsOn, c.DependsOn...))
	}
	slices.SortStableFunc(out, Compare)
	if out == nil {
		out = []Component{}
	}
	return out
}

// Compare orders components by ecosystem, name, version, source and purl:
// the order of Discover's result and of every SBOM.
func Compare(a, b Component) int {
	return cmp.Or(strings.Compare(a.Ecosystem, b.Ecosystem), strings.Compare(a.Name, b.Name),
		strings.Compare(a.Version, b.Version), strings.Compare(a.Source, b.Source), strings.Compare(a.PURL, b.PURL))
}

func compUniqueSorted(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ---- purl ----

// compPURL builds a package URL per the purl spec: the type's own name
// normalization and namespace, then purl.Build (segments encoded one by
// one, so an npm scope becomes %40scope; qualifiers sorted; an empty
// version left out).
func compPURL(eco, name, version string, qualifiers ...[2]string) string {
	var ns string
	switch eco {
	case EcoNPM:
		name = strings.ToLower(name)
		if strings.HasPrefix(name, "@") {
			if i := strings.Index(name, "/"); i > 0 {
				ns, name = name[:i], name[i+1:]
			}
		}
	case EcoGolang:
		name = strings.ToLower(name)
		if i := strings.LastIndex(name, "/"); i > 0 {
			ns, name = name[:i], name[i+1:]
		}
	case EcoPyPI:
		name = compPyPINormalize(name)
	case EcoComposer:
		name = strings.ToLower(name)
		if i := strings.Index(name, "/"); i > 0 {
			ns, name = name[:i], name[i+1:]
		}
	case EcoMaven:
		if i := strings.Index(name, ":"); i > 0 {
			ns, name = name[:i], name[i+1:]
		}
	}
	return purl.Build(purl.Escape, eco, strings.Split(ns, "/"), name, version, qualifiers...)
}

// compPyPINormalize is PEP 503 name normalization, which the purl spec
// adopts for pypi: lowercase, runs of -, _ and . become one -.
func compPyPINormalize(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		if r == '-' || r == '_' || r == '.' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}

// ---- line numbers ----

// compLines maps byte offsets to 1-based line numbers.
type compLines []int

func compNewLines(data []byte) compLines {
	starts := compLines{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func (l compLines) at(offset int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > offset })
}

// compJSONKeyLines returns the line of every object key in data, keyed by
// its path: segments (keys, or array indexes in decimal) joined by "\x00".
// encoding/json keeps no positions, so this replays the token stream.
func compJSONKeyLines(data []byte) (map[string]int, error) {
	lines := compNewLines(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object    bool
		expectKey bool
		path      string
		key       string
		index     int
	}
	out := map[string]int{}
	var stack []*frame
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		seg := top.key
		if !top.object {
			seg = strconv.Itoa(top.index)
		}
		if top.path == "" && len(stack) == 1 {
			return seg
		}
		return top.path + "\x00" + seg
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expectKey = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.object && top.expectKey {
				if s, ok := tok.(string); ok {
					top.key = s
					top.expectKey = false
					kp := s
					if len(stack) > 1 || top.path != "" {
						kp = top.path + "\x00" + s
					}
					out[kp] = lines.at(int(dec.InputOffset()) - 1)
					continue
				}
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &frame{object: t == '{', expectKey: t == '{', path: childPath()})
			case '}', ']':
				stack = stack[:len(stack)-1]
				valueDone()
			}
		default:
			valueDone()
		}
	}
}

// compJSONPath joins path segments the way compJSONKeyLines keys them.
func compJSONPath(segs ...string) string { return strings.Join(segs, "\x00") }

// ---- dependency graph ----

// compGraph resolves scope and dev-ness from the edges of a lockfile when
// the lockfile itself does not record them (yarn, pnpm v9, poetry, Cargo,
// composer): roots are what the project's manifest declares, everything
// reachable from them is transitive, and a package reachable only from dev
// roots is dev.
type compGraph struct {
	edges map[string][]string
}

func (g *compGraph) reach(roots []string) map[string]bool {
	seen := map[string]bool{}
	stack := append([]string(nil), roots...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, g.edges[n]...)
	}
	return seen
}

// apply sets Scope and Dev on comps (indexed by the same ids as the graph
// through idOf). With no roots at all the manifest was missing, so scope
// stays unknown rather than guessed.
func (g *compGraph) apply(comps []Component, idOf func(Component) string, prodRoots, devRoots []string) {
	if len(prodRoots) == 0 && len(devRoots) == 0 {
		return
	}
	direct := map[string]bool{}
	for _, r := range append(append([]string(nil), prodRoots...), devRoots...) {
		direct[r] = true
	}
	prod := g.reach(prodRoots)
	dev := g.reach(devRoots)
	for i := range comps {
		id := idOf(comps[i])
		switch {
		case direct[id]:
			comps[i].Scope = ScopeDirect
		case prod[id] || dev[id]:
			comps[i].Scope = ScopeTransitive
		}
		if dev[id] && !prod[id] {
			comps[i].Dev = true
		}
	}
}

// compDirOf is the slash directory of a relative source path, "" at the top.
func compDirOf(rel string) string {
	d := path.Dir(rel)
	if d == "." {
		return ""
	}
	return d
}
