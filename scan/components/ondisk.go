package components

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"scand/scan/spdx"
	"scand/scan/tree"
)

// License data read from installed or vendored packages. Lockfiles name
// packages; only the packages' own metadata on disk says their license, and
// scand reads nothing from a registry.

// compLicenseInfo is what one package's metadata on disk says.
type compLicenseInfo struct {
	licenses []string
	source   string // slash path relative to the target
	line     int
}

// compLicenseIndex maps eco\x00name\x00version to license data. A second
// key with version "*" holds the data when only one version of the name is
// installed, for manifests that do not pin (requirements.txt ">=").
type compLicenseIndex map[string]compLicenseInfo

const compLicenseAmbiguous = "\x00ambiguous"

func compLicenseKey(eco, name, version string) string {
	return eco + "\x00" + compNormName(eco, name) + "\x00" + version
}

// compNormName folds a name the way its ecosystem compares names.
func compNormName(eco, name string) string {
	switch eco {
	case EcoNPM, EcoGolang, EcoComposer:
		return strings.ToLower(name)
	case EcoPyPI:
		return compPyPINormalize(name)
	}
	return name
}

func (x compLicenseIndex) add(eco, name, version string, info compLicenseInfo) {
	if name == "" {
		return
	}
	k := compLicenseKey(eco, name, version)
	if _, ok := x[k]; !ok {
		x[k] = info
	}
	anyKey := compLicenseKey(eco, name, "*")
	prev, ok := x[anyKey]
	switch {
	case !ok:
		info.source += "\x00" + version
		x[anyKey] = info
	case !strings.HasSuffix(prev.source, "\x00"+version):
		x[anyKey] = compLicenseInfo{source: compLicenseAmbiguous}
	}
}

// attach fills license data into components whose lockfile carried none.
// The name-only fallback applies only when the component's version is not
// an exact one (a range from requirements.txt, or none) and exactly one
// version of the package is installed: then that installed copy is the one
// the project runs.
func (x compLicenseIndex) attach(comps []Component) {
	for i := range comps {
		c := &comps[i]
		if c.LicenseSource != "" {
			continue
		}
		info, ok := x[compLicenseKey(c.Ecosystem, c.Name, c.Version)]
		if !ok && c.Ecosystem == EcoGolang {
			// vendor/modules.txt may record a pseudo-version differently
			// from go.mod only through a replace; the vendored tree holds
			// one copy per module path, so the path decides.
			info, ok = x.byName(c.Ecosystem, c.Name)
		}
		if !ok && (c.Version == "" || strings.ContainsAny(c.Version, "<>=~!^* ,")) {
			info, ok = x.byName(c.Ecosystem, c.Name)
		}
		if !ok {
			continue
		}
		c.Licenses = info.licenses
		c.LicenseSource = info.source
		c.LicenseLine = info.line
	}
}

// installedVersion is the version of the one installed copy of name, or ""
// when none or several versions are installed.
func (x compLicenseIndex) installedVersion(eco, name string) string {
	info, ok := x[compLicenseKey(eco, name, "*")]
	if !ok || info.source == compLicenseAmbiguous {
		return ""
	}
	if i := strings.IndexByte(info.source, 0); i >= 0 && compExactVersion(info.source[i+1:]) {
		return info.source[i+1:]
	}
	return ""
}

func (x compLicenseIndex) byName(eco, name string) (compLicenseInfo, bool) {
	info, ok := x[compLicenseKey(eco, name, "*")]
	if !ok || info.source == compLicenseAmbiguous {
		return compLicenseInfo{}, false
	}
	if i := strings.IndexByte(info.source, 0); i >= 0 {
		info.source = info.source[:i]
	}
	return info, true
}

// ---- node_modules ----

// scanNodeModules reads <pkg>/package.json for each package in a
// node_modules directory, then that package's own nested node_modules, and
// pnpm's .pnpm store. It reads only the package.json at a package's root:
// nested package.json files inside a package (module-type markers) are not
// packages.
func (d *compDiscovery) scanNodeModules(ctx context.Context, dir string, depth int) error {
	if depth > compMaxNodeModulesDepth {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.errs = append(d.errs, err)
		return nil
	}
	return d.eachEntry(ctx, entries, func(e os.DirEntry) error {
		if !e.IsDir() {
			return nil // symlinks too: pnpm's top-level links point into .pnpm, read below
		}
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case name == ".pnpm", strings.HasPrefix(name, "@"):
			// Every folder of pnpm's store holds a node_modules of its own;
			// every folder of an @scope is a package.
			sub, err := os.ReadDir(p)
			if err != nil {
				return nil
			}
			return d.eachEntry(ctx, sub, func(s os.DirEntry) error {
				switch {
				case !s.IsDir():
					return nil
				case name == ".pnpm":
					return d.scanNodeModules(ctx, filepath.Join(p, s.Name(), "node_modules"), depth+1)
				default:
					return d.scanNPMPackage(ctx, filepath.Join(p, s.Name()), depth)
				}
			})
		case strings.HasPrefix(name, "."):
			// .bin, .cache, .vite: not packages
		default:
			return d.scanNPMPackage(ctx, p, depth)
		}
		return nil
	})
}

func (d *compDiscovery) scanNPMPackage(ctx context.Context, dir string, depth int) error {
	pj := filepath.Join(dir, "package.json")
	if data, err := tree.ReadCapped(pj, compMaxMetaBytes); err == nil {
		if name, version, info, ok := compNPMPackageJSONLicense(data, d.rel(pj)); ok {
			d.licenses.add(EcoNPM, name, version, info)
		}
	}
	nested := filepath.Join(dir, "node_modules")
	if fi, err := os.Lstat(nested); err == nil && fi.IsDir() {
		return d.scanNodeModules(ctx, nested, depth+1)
	}
	return nil
}

// compNPMPackageJSONLicense reads name, version and license data from a
// package.json: "license" as a string or the deprecated {"type": ...}
// object, or the deprecated "licenses" array, whose entries are
// alternatives.
func compNPMPackageJSONLicense(data []byte, rel string) (name, version string, info compLicenseInfo, ok bool) {
	var pj struct {
		Name     string          `json:"name"`
		Version  string          `json:"version"`
		License  json.RawMessage `json:"license"`
		Licenses json.RawMessage `json:"licenses"`
	}
	if err := json.Unmarshal(data, &pj); err != nil || pj.Name == "" {
		return "", "", info, false
	}
	lines, _ := compJSONKeyLines(data)
	info.source = rel
	info.licenses = compNPMLicenseField(pj.License)
	info.line = lines["license"]
	if len(info.licenses) == 0 {
		info.licenses = compNPMLicenseField(pj.Licenses)
		info.line = lines["licenses"]
	}
	if len(info.licenses) == 0 {
		info.line = lines["name"]
	}
	return pj.Name, pj.Version, info, true
}

// compNPMLicenseField decodes the shapes npm has accepted over time: "MIT",
// {"type":"MIT"}, ["MIT"], [{"type":"MIT"}].
func compNPMLicenseField(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n := spdx.Normalize(s); n != "" {
			return []string{n}
		}
		return nil
	}
	var obj struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &obj) == nil && (obj.Type != "" || obj.Name != "") {
		if obj.Type == "" {
			obj.Type = obj.Name
		}
		return []string{spdx.Normalize(obj.Type)}
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		var out []string
		for _, a := range arr {
			out = append(out, compNPMLicenseField(a)...)
		}
		return out
	}
	return nil
}

// ---- Python site-packages ----

// scanSitePackages reads *.dist-info/METADATA (and the older
// *.egg-info/PKG-INFO) of every installed distribution.
func (d *compDiscovery) scanSitePackages(ctx context.Context, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.errs = append(d.errs, err)
		return nil
	}
	return d.eachEntry(ctx, entries, func(e os.DirEntry) error {
		var meta string
		switch {
		case e.IsDir() && strings.HasSuffix(e.Name(), ".dist-info"):
			meta = filepath.Join(dir, e.Name(), "METADATA")
		case e.IsDir() && strings.HasSuffix(e.Name(), ".egg-info"):
			meta = filepath.Join(dir, e.Name(), "PKG-INFO")
		case e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".egg-info"):
			meta = filepath.Join(dir, e.Name())
		default:
			return nil
		}
		data, err := tree.ReadCapped(meta, compMaxMetaBytes)
		if err != nil {
			return nil
		}
		name, version, info := compParsePythonMetadata(data, d.rel(meta))
		d.licenses.add(EcoPyPI, name, version, info)
		return nil
	})
}

// compParsePythonMetadata reads the core-metadata headers (RFC 822 style,
// up to the first blank line). License data is taken, in order of how much
// it can be trusted: License-Expression (PEP 639, already SPDX); License when
// it maps to an SPDX id; "License ::" classifiers that map to SPDX ids; then
// the License text or classifier names as given.
func compParsePythonMetadata(data []byte, rel string) (name, version string, info compLicenseInfo) {
	info.source = rel
	type field struct {
		value string
		line  int
	}
	var expr, lic field
	var classifiers []field
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), compMaxMetaBytes)
	n := 0
	inLicense := false
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			// A continuation line: only a License field ever spans lines,
			// when a project pasted its whole license text there.
			if inLicense {
				lic.value += "\n" + strings.TrimSpace(line)
			}
			continue
		}
		inLicense = false
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "name":
			name = v
		case "version":
			version = v
		case "license-expression":
			expr = field{v, n}
		case "license":
			lic = field{v, n}
			inLicense = true
		case "classifier":
			if rest, ok := strings.CutPrefix(v, "License ::"); ok {
				parts := strings.Split(rest, "::")
				last := strings.TrimSpace(parts[len(parts)-1])
				if last != "" && !strings.EqualFold(last, "OSI Approved") {
					classifiers = append(classifiers, field{last, n})
				}
			}
		}
	}
	if expr.value != "" {
		info.licenses, info.line = []string{spdx.Normalize(expr.value)}, expr.line
		return
	}
	licValue := strings.TrimSpace(lic.value)
	if strings.EqualFold(licValue, "UNKNOWN") {
		licValue = ""
	}
	// A License field that is the license text itself is identified by
	// its wording; a short one is a name.
	if strings.Contains(licValue, "\n") || len(licValue) > 200 {
		if id := spdx.IdentifyText(licValue); id != "" {
			licValue = id
		} else {
			licValue = strings.SplitN(licValue, "\n", 2)[0]
		}
	}
	if licValue != "" {
		if n := spdx.Normalize(licValue); spdx.IsSPDX(n) {
			info.licenses, info.line = []string{n}, lic.line
			return
		}
	}
	var known, names []string
	knownLine, namesLine := 0, 0
	for _, c := range classifiers {
		n := spdx.Normalize(c.value)
		if spdx.IsSPDX(n) {
			known = append(known, n)
			if knownLine == 0 {
				knownLine = c.line
			}
		} else {
			names = append(names, n)
			if namesLine == 0 {
				namesLine = c.line
			}
		}
	}
	// Classifier names ("BSD License") are the project's own structured
	// answer; a free-text License field that is not SPDX ("Dual License")
	// says less, so it comes last.
	switch {
	case len(known) > 0:
		info.licenses, info.line = compUniqueSorted(known), knownLine
	case len(names) > 0:
		info.licenses, info.line = compUniqueSorted(names), namesLine
	case licValue != "":
		info.licenses, info.line = []string{spdx.Normalize(licValue)}, lic.line
	default:
		info.line = 1
	}
	return
}

// ---- vendor directories ----

// scanVendor reads license data from a Go vendor tree (vendor/modules.txt
// names the modules) and from `cargo vendor` output (one directory per crate
// with its Cargo.toml).
func (d *compDiscovery) scanVendor(ctx context.Context, dir string) error {
	if data, err := tree.ReadCapped(filepath.Join(dir, "modules.txt"), compMaxFileBytes); err == nil {
		for _, m := range compParseVendorModules(data) {
			if err := d.count(ctx); err != nil {
				return err
			}
			modDir := filepath.Join(dir, filepath.FromSlash(m.path))
			if !tree.Within(dir, modDir) {
				continue // modules.txt is the tree's word: "../" or a link must not lead out
			}
			if info, ok := d.licenseFromDir(modDir); ok {
				d.licenses.add(EcoGolang, m.path, m.version, info)
				if m.replVersion != "" {
					d.licenses.add(EcoGolang, m.path, m.replVersion, info)
				}
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	return d.eachEntry(ctx, entries, func(e os.DirEntry) error {
		if !e.IsDir() {
			return nil
		}
		crateDir := filepath.Join(dir, e.Name())
		ct := filepath.Join(crateDir, "Cargo.toml")
		if data, err := tree.ReadCapped(ct, compMaxMetaBytes); err == nil {
			d.addCargoTomlLicense(crateDir, ct, data)
		}
		return nil
	})
}

func (d *compDiscovery) addCargoTomlLicense(crateDir, ct string, data []byte) {
	doc, err := compParseTOML(data)
	if err != nil {
		d.errs = append(d.errs, err)
		return
	}
	pkg := doc.table("package")
	if pkg == nil {
		return
	}
	name, version := pkg.str("name"), pkg.str("version")
	info := compLicenseInfo{source: d.rel(ct), line: pkg.line}
	if kv := pkg.get("license"); kv != nil && kv.value.str != "" {
		info.licenses, info.line = []string{spdx.Normalize(kv.value.str)}, kv.line
	} else if kv := pkg.get("license-file"); kv != nil && kv.value.str != "" {
		lf := filepath.Join(crateDir, filepath.FromSlash(kv.value.str))
		// A license-file naming a path outside the target is not read.
		if text, err := readWithin(d.root, lf); err == nil {
			info.source, info.line = d.rel(lf), 1
			info.licenses = []string{compLicenseFromText(text)}
		}
	}
	d.licenses.add(EcoCargo, name, version, info)
}

type compVendorModule struct {
	path, version string
	// replVersion is the version a replace directive substitutes; the
	// vendored code is that version, which is what go.mod resolution yields.
	replVersion string
}

// compParseVendorModules reads the "# path version [=> new newVersion]"
// lines of vendor/modules.txt. Lines naming a path without a version are
// the trailer Go writes for wildcard replacements and repeat a module
// already listed.
func compParseVendorModules(data []byte) []compVendorModule {
	var out []compVendorModule
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "# ")
		if !ok {
			continue
		}
		left, right, _ := strings.Cut(rest, "=>")
		f := strings.Fields(left)
		if len(f) != 2 {
			continue
		}
		m := compVendorModule{path: f[0], version: f[1]}
		if rf := strings.Fields(right); len(rf) == 2 {
			m.replVersion = rf[1]
		}
		out = append(out, m)
	}
	return out
}

// compLicenseFileNames are the names a license file goes by, best first.
var compLicenseFilePrefixes = []string{"LICENSE", "LICENCE", "COPYING", "UNLICENSE"}

// readWithin reads a metadata file a tree names itself, only when it lies
// within root (tree.Within).
func readWithin(root, p string) ([]byte, error) {
	if !tree.Within(root, p) {
		return nil, fmt.Errorf("%s: outside the target, not read", p)
	}
	return tree.ReadCapped(p, compMaxMetaBytes)
}

// licenseFromDir identifies the license file at the root of a vendored
// module. The text alone decides; an unrecognized text is reported as such
// rather than guessed.
func (d *compDiscovery) licenseFromDir(dir string) (compLicenseInfo, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return compLicenseInfo{}, false
	}
	var cands []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		up := strings.ToUpper(e.Name())
		for _, p := range compLicenseFilePrefixes {
			if strings.HasPrefix(up, p) {
				cands = append(cands, e.Name())
				break
			}
		}
	}
	if len(cands) == 0 {
		return compLicenseInfo{}, false
	}
	sort.Slice(cands, func(i, j int) bool {
		if len(cands[i]) != len(cands[j]) {
			return len(cands[i]) < len(cands[j])
		}
		return cands[i] < cands[j]
	})
	p := filepath.Join(dir, cands[0])
	text, err := tree.ReadCapped(p, compMaxMetaBytes)
	if err != nil {
		return compLicenseInfo{}, false
	}
	return compLicenseInfo{licenses: []string{compLicenseFromText(text)}, source: d.rel(p), line: 1}, true
}

// LicenseUnidentified marks a license file whose text matched none of
// the known licenses; it is a valid SPDX LicenseRef so SBOMs can carry it.
const LicenseUnidentified = "LicenseRef-scand-unidentified-license-text"

func compLicenseFromText(text []byte) string {
	if id := spdx.IdentifyText(string(text)); id != "" {
		return id
	}
	return LicenseUnidentified
}
