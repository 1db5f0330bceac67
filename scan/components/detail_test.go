package components

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDiscoverComponentsDependsOn checks the edges each lockfile kind
// records, including node's nested resolution (mocha's own debug and ms),
// Cargo's "name version" references, yarn berry's patch entries folding into
// the npm entry and pip-compile's "# via" annotations.
func TestDiscoverComponentsDependsOn(t *testing.T) {
	tests := []struct {
		dir, source, purl string
		want              []string
	}{
		{"npm-v1", "package-lock.json", "pkg:npm/express@4.17.1", []string{"pkg:npm/debug@2.6.9", "pkg:npm/ms@2.0.0"}},
		{"npm-v1", "package-lock.json", "pkg:npm/mocha@8.2.1", []string{"pkg:npm/debug@4.2.0", "pkg:npm/ms@2.1.2"}},
		{"npm-v2", "package-lock.json", "pkg:npm/rxjs@7.8.0", []string{"pkg:npm/tslib@2.4.1"}},
		{"npm-v2", "package-lock.json", "pkg:npm/%40angular/core@15.2.9", []string{"pkg:npm/rxjs@7.8.0", "pkg:npm/tslib@2.5.0", "pkg:npm/zone.js@0.13.0"}},
		{"npm-v3", "package-lock.json", "pkg:npm/chalk@4.1.2", []string{"pkg:npm/ansi-styles@4.3.0", "pkg:npm/supports-color@7.2.0"}},
		{"yarn-v1", "yarn.lock", "pkg:npm/%40babel/highlight@7.13.10", []string{"pkg:npm/%40babel/helper-validator-identifier@7.12.11", "pkg:npm/chalk@2.4.2", "pkg:npm/js-tokens@4.0.0"}},
		{"yarn-berry", "yarn.lock", "pkg:npm/resolve@1.22.2", []string{"pkg:npm/is-core-module@2.12.1", "pkg:npm/path-parse@1.0.7", "pkg:npm/supports-preserve-symlinks-flag@1.0.0"}},
		{"pnpm-v5", "pnpm-lock.yaml", "pkg:npm/react-dom@18.2.0", []string{"pkg:npm/loose-envify@1.4.0", "pkg:npm/react@18.2.0", "pkg:npm/scheduler@0.23.0"}},
		{"pnpm-v6", "pnpm-lock.yaml", "pkg:npm/vitest@0.32.2", []string{"pkg:npm/tinyspy@2.1.1"}},
		{"pnpm-v9", "pnpm-lock.yaml", "pkg:npm/debug@4.3.4", []string{"pkg:npm/ms@2.1.2", "pkg:npm/supports-color@9.4.0"}},
		{"cargo", "Cargo.lock", "pkg:cargo/indexmap@1.9.3", []string{"pkg:cargo/hashbrown@0.12.3"}},
		{"gemfile", "Gemfile.lock", "pkg:gem/nokogiri@1.15.3", []string{"pkg:gem/mini_portile2@2.8.4", "pkg:gem/racc@1.7.1"}},
		{"composer", "composer.lock", "pkg:composer/monolog/monolog@3.4.0", []string{"pkg:composer/psr/log@3.0.0"}},
		{"poetry", "poetry.lock", "pkg:pypi/urllib3@2.0.4", []string{"pkg:pypi/pysocks@1.7.1"}},
		{"poetry", "poetry.lock", "pkg:pypi/black@23.7.0", []string{"pkg:pypi/click@8.1.6", "pkg:pypi/platformdirs@3.10.0"}},
		{"requirements", "requirements-dev.txt", "pkg:pypi/pytest@7.4.0", []string{"pkg:pypi/iniconfig@2.0.0", "pkg:pypi/packaging@23.1", "pkg:pypi/pluggy@1.2.0"}},
		{"gomod", "go.mod", "pkg:golang/gopkg.in/yaml.v3@v3.0.1", nil},
	}
	for _, tc := range tests {
		t.Run(tc.dir+"/"+tc.purl, func(t *testing.T) {
			c := compByPURL(t, discoverFixture(t, tc.dir), tc.source, tc.purl)
			if !reflect.DeepEqual(c.DependsOn, tc.want) {
				t.Errorf("DependsOn = %v, want %v", c.DependsOn, tc.want)
			}
		})
	}
}

// TestDiscoverComponentsLicenses checks where license data comes from:
// lockfiles that record it (package-lock v2+, composer.lock), package.json in
// node_modules (string, object and array forms, and a package.json inside a
// package that must not count), the .pnpm store, a venv's METADATA, vendored
// Go LICENSE files and vendored crates' Cargo.toml.
func TestDiscoverComponentsLicenses(t *testing.T) {
	tests := []struct {
		dir, source, purl string
		licenses          []string
		licSource         string
		licLine           int
	}{
		{"npm-v2", "package-lock.json", "pkg:npm/tslib@2.4.1", []string{"0BSD"}, "package-lock.json", 65},
		{"npm-v2", "package-lock.json", "pkg:npm/rxjs@7.8.0", []string{"Apache-2.0"}, "package-lock.json", 58},
		{"npm-v3", "package-lock.json", "pkg:npm/chalk@4.1.2", []string{"MIT"}, "node_modules/chalk/package.json", 5},
		{"npm-v3", "package-lock.json", "pkg:npm/color-convert@2.0.1", []string{"MIT"}, "node_modules/color-convert/package.json", 5},
		{"npm-v3", "package-lock.json", "pkg:npm/color-name@1.1.4", []string{"MIT"}, "node_modules/color-name/package.json", 5},
		{"npm-v3", "package-lock.json", "pkg:npm/string-width@4.2.3", []string{"MIT"}, "node_modules/string-width-cjs/package.json", 5},
		{"npm-v3", "package-lock.json", "pkg:npm/has-flag@4.0.0", nil, "node_modules/has-flag/package.json", 2},
		{"npm-v1", "package-lock.json", "pkg:npm/express@4.17.1", nil, "", 0},
		{"pnpm-v9", "pnpm-lock.yaml", "pkg:npm/%40types/ms@0.7.31", []string{"MIT"}, "node_modules/.pnpm/@types+ms@0.7.31/node_modules/@types/ms/package.json", 5},
		{"composer", "composer.lock", "pkg:composer/phpunit/php-timer@6.0.0", []string{"BSD-3-Clause"}, "composer.lock", 57},
		{"requirements", "requirements.txt", "pkg:pypi/requests@2.31.0", []string{"Apache-2.0"}, ".venv/lib/python3.11/site-packages/requests-2.31.0.dist-info/METADATA", 8},
		{"requirements", "requirements.txt", "pkg:pypi/flask@2.3.2", []string{"BSD-3-Clause"}, ".venv/lib/python3.11/site-packages/Flask-2.3.2.dist-info/METADATA", 6},
		{"requirements", "requirements.txt", "pkg:pypi/uvicorn@0.23.1", []string{"BSD-3-Clause"}, ".venv/lib/python3.11/site-packages/uvicorn-0.23.1.dist-info/METADATA", 5},
		{"requirements", "requirements.txt", "pkg:pypi/python-dateutil@2.8.2", []string{"Apache Software License", "BSD License"}, ".venv/lib/python3.11/site-packages/python_dateutil-2.8.2.dist-info/METADATA", 8},
		{"requirements", "requirements.txt", "pkg:pypi/sqlalchemy@2.0.19", nil, "", 0},
		{"gomod", "go.mod", "pkg:golang/github.com/google/uuid@v1.3.0", []string{"BSD-3-Clause"}, "vendor/github.com/google/uuid/LICENSE", 1},
		{"gomod", "go.mod", "pkg:golang/github.com/burntsushi/toml@v1.3.2", []string{"MIT"}, "vendor/github.com/BurntSushi/toml/COPYING", 1},
		{"gomod", "go.mod", "pkg:golang/github.com/pkg/errors@v0.9.0", []string{"BSD-2-Clause"}, "vendor/github.com/pkg/errors/LICENSE", 1},
		{"gomod", "go.mod", "pkg:golang/gopkg.in/yaml.v3@v3.0.1", []string{"Apache-2.0 AND MIT"}, "vendor/gopkg.in/yaml.v3/LICENSE", 1},
		{"cargo", "Cargo.lock", "pkg:cargo/anyhow@1.0.75", []string{"MIT OR Apache-2.0"}, "vendor/anyhow/Cargo.toml", 20},
		{"cargo", "Cargo.lock", "pkg:cargo/serde@1.0.188", []string{"MIT OR Apache-2.0"}, "vendor/serde/Cargo.toml", 8},
		{"cargo", "Cargo.lock", "pkg:cargo/indexmap@1.9.3", []string{"Apache-2.0"}, "vendor/indexmap/LICENSE-APACHE", 1},
	}
	for _, tc := range tests {
		t.Run(tc.dir+"/"+tc.purl, func(t *testing.T) {
			c := compByPURL(t, discoverFixture(t, tc.dir), tc.source, tc.purl)
			if !reflect.DeepEqual(c.Licenses, tc.licenses) || c.LicenseSource != tc.licSource || c.LicenseLine != tc.licLine {
				t.Errorf("license = %q from %s:%d, want %q from %s:%d", c.Licenses, c.LicenseSource, c.LicenseLine, tc.licenses, tc.licSource, tc.licLine)
			}
		})
	}
}

// TestDiscoverComponentsWholeTree runs over every fixture at once: sources
// are relative to the root, the output is sorted and has no duplicate
// (purl, source), and two runs agree.
func TestDiscoverComponentsWholeTree(t *testing.T) {
	a := discoverFixture(t, "")
	b := discoverFixture(t, "")
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two discoveries of the same tree differ")
	}
	seen := map[string]bool{}
	for i, c := range a {
		if !strings.Contains(c.Source, "/") {
			t.Errorf("%s: source %q is not relative to the tree root", c.PURL, c.Source)
		}
		k := c.PURL + " " + c.Source
		if seen[k] {
			t.Errorf("duplicate %s", k)
		}
		seen[k] = true
		if i > 0 {
			p := a[i-1]
			if p.Ecosystem > c.Ecosystem || p.Ecosystem == c.Ecosystem && p.Name > c.Name {
				t.Errorf("not sorted: %s/%s before %s/%s", p.Ecosystem, p.Name, c.Ecosystem, c.Name)
			}
		}
		if strings.Contains(c.Source, "node_modules/") || strings.Contains(c.Source, "vendor/") || strings.Contains(c.Source, "site-packages/") {
			t.Errorf("%s: a lockfile inside an installed tree was parsed: %s", c.PURL, c.Source)
		}
	}
	if len(a) < 100 {
		t.Errorf("only %d components from all fixtures", len(a))
	}
}

func compWriteTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestDiscoverComponentsBounds covers what must be skipped or survived:
// lockfiles inside node_modules and vendor, .git, oversized files, a
// malformed lockfile next to a good one, symlinks, and cancellation.
func TestDiscoverComponentsBounds(t *testing.T) {
	good := "requests==2.31.0\n"
	root := compWriteTree(t, map[string]string{
		"requirements.txt":                        good,
		"node_modules/x/requirements.txt":         "evil==1.0\n",
		"node_modules/x/package-lock.json":        `{"lockfileVersion":3,"packages":{"node_modules/evil":{"version":"1.0.0"}}}`,
		"vendor/github.com/a/b/go.mod":            "module github.com/a/b\n\nrequire github.com/evil/evil v1.0.0\n",
		".git/requirements.txt":                   "evil==2.0\n",
		"broken/package-lock.json":                `{"lockfileVersion": 3, "packages": {`,
		"deep/a/b/c/requirements-test.txt":        "pytest==7.4.0\n",
		"site-packages/x/requirements.txt":        "evil==3.0\n",
		"sub/Gemfile.lock":                        "GEM\n  remote: https://rubygems.org/\n  specs:\n    rake (13.0.6)\n",
		"huge/requirements.txt":                   "",
		"linked-target/requirements-linked.txt":   "",
		"node_modules/y/node_modules/z/README.md": "not a package",
	})
	if err := os.Truncate(filepath.Join(root, "huge/requirements.txt"), compMaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.TempDir(), "outside.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := compWriteTree(t, map[string]string{"requirements.txt": "outside==1.0\n"})
	if err := os.Symlink(filepath.Join(outside, "requirements.txt"), filepath.Join(root, "requirements-link.txt")); err != nil {
		t.Fatal(err)
	}
	comps, err := Discover(context.Background(), root)
	var got []string
	for _, c := range comps {
		got = append(got, c.Source+" "+c.PURL)
	}
	want := []string{
		"sub/Gemfile.lock pkg:gem/rake@13.0.6",
		"deep/a/b/c/requirements-test.txt pkg:pypi/pytest@7.4.0",
		"requirements.txt pkg:pypi/requests@2.31.0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("components = %q\nwant %q", got, want)
	}
	if err == nil || !strings.Contains(err.Error(), "broken/package-lock.json") || !strings.Contains(err.Error(), "huge/requirements.txt") {
		t.Errorf("error = %v, want it to name the malformed and the oversized file", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Discover(ctx, compFixtures); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled discovery: err = %v, want context.Canceled", err)
	}
	if _, err := Discover(context.Background(), filepath.Join(root, "requirements.txt")); err == nil {
		t.Error("a file as root: want an error")
	}
}

func TestCompPURL(t *testing.T) {
	tests := []struct {
		eco, name, version string
		quals              [][2]string
		want               string
	}{
		{EcoNPM, "@Babel/Core", "7.20.0", nil, "pkg:npm/%40babel/core@7.20.0"},
		{EcoNPM, "lodash", "", nil, "pkg:npm/lodash"},
		{EcoGolang, "github.com/Azure/go-autorest", "v14.2.0+incompatible", nil, "pkg:golang/github.com/azure/go-autorest@v14.2.0%2Bincompatible"},
		{EcoPyPI, "Zope.Interface__Extra", "6.0", nil, "pkg:pypi/zope-interface-extra@6.0"},
		{EcoCargo, "Inflector", "0.11.4", nil, "pkg:cargo/Inflector@0.11.4"},
		{EcoGem, "nokogiri", "1.15.3", [][2]string{{"platform", "x86_64-linux"}}, "pkg:gem/nokogiri@1.15.3?platform=x86_64-linux"},
		{EcoComposer, "Symfony/Console", "v6.3.0", nil, "pkg:composer/symfony/console@v6.3.0"},
		{EcoMaven, "org.apache.commons:commons-lang3", "3.12.0", [][2]string{{"type", "pom"}, {"classifier", "sources"}}, "pkg:maven/org.apache.commons/commons-lang3@3.12.0?classifier=sources&type=pom"},
		{EcoNPM, "weird name", "1.0.0 beta", nil, "pkg:npm/weird%20name@1.0.0%20beta"},
	}
	for _, tc := range tests {
		if got := compPURL(tc.eco, tc.name, tc.version, tc.quals...); got != tc.want {
			t.Errorf("compPURL(%s, %s, %s) = %s, want %s", tc.eco, tc.name, tc.version, got, tc.want)
		}
	}
}

func TestCompRequirementLines(t *testing.T) {
	tests := []struct {
		line         string
		name, ver    string
		pinned, none bool
	}{
		{line: "requests==2.31.0", name: "requests", ver: "2.31.0", pinned: true},
		{line: "requests === 2.31.0", name: "requests", ver: "2.31.0", pinned: true},
		{line: "Django[argon2]>=4.2,<5 ; python_version>'3.8'", name: "Django", ver: ">=4.2,<5"},
		{line: "numpy==1.*", name: "numpy", ver: "==1.*"},
		{line: "black~=23.0", name: "black", ver: "~=23.0"},
		{line: "pip @ https://example.com/pip-23.2.tar.gz", name: "pip"},
		{line: "attrs==23.1.0 --hash=sha256:1f28b4522cdc2fb4256ac1a020c78acf9cba2c6b", name: "attrs", ver: "23.1.0", pinned: true},
		{line: "==1.0", none: true},
	}
	for _, tc := range tests {
		r := compPyParseRequirement(tc.line)
		if tc.none {
			if r != nil {
				t.Errorf("%q: got %+v, want nothing", tc.line, *r)
			}
			continue
		}
		if r == nil || r.name != tc.name || r.version != tc.ver || r.pinned != tc.pinned {
			t.Errorf("%q: got %+v, want name %q version %q pinned %v", tc.line, r, tc.name, tc.ver, tc.pinned)
		}
	}
}

func TestCompParseTOML(t *testing.T) {
	doc, err := compParseTOML([]byte(`# comment
title = "x \"quoted\" \u00e9"
[package]
name = 'lit'
"dotted.key" = 1
multi = """
line one
line two"""
arr = [
  "a", # trailing comment
  { n = "b", v = [1, 2] },
]
[[bin]]
name = "one"
[[bin]]
name = "two"
[bin.extra]
k = true
a.b.c = "deep"
`))
	if err != nil {
		t.Fatal(err)
	}
	pkg := doc.table("package")
	if doc.str("title") != `x "quoted" é` || pkg.str("name") != "lit" || pkg.str("dotted.key") != "1" {
		t.Errorf("scalars: title=%q name=%q dotted=%q", doc.str("title"), pkg.str("name"), pkg.str("dotted.key"))
	}
	if pkg.str("multi") != "line one\nline two" {
		t.Errorf("multi-line string = %q", pkg.str("multi"))
	}
	arr := pkg.get("arr").value.arr
	if len(arr) != 2 || arr[0].str != "a" || arr[1].table.str("n") != "b" || len(arr[1].table.get("v").value.arr) != 2 {
		t.Errorf("array = %+v", arr)
	}
	bins := doc.arrays("bin")
	if len(bins) != 2 || bins[1].str("name") != "two" || bins[1].table("extra").str("k") != "true" {
		t.Fatalf("array of tables = %+v", bins)
	}
	if got := bins[1].table("extra", "a", "b").str("c"); got != "deep" {
		t.Errorf("dotted key in table = %q", got)
	}
	if kv := bins[1].get("name"); kv == nil || kv.line != 16 {
		t.Errorf("line of name in second [[bin]] = %v, want 16", kv)
	}
	for _, bad := range []string{"a = ", "[unterminated", "a = \"open", "a = [1, 2", "= 1"} {
		if _, err := compParseTOML([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestCompParseYAML(t *testing.T) {
	root := compParseIndented([]byte(`lockfileVersion: '9.0'
# comment
importers:

  .:
    dependencies:
      '@scope/pkg':
        specifier: ^1.0.0
        version: 1.0.0(peer@2.0.0)
notes: |
  key: not a key
  - nor an item
"quoted: key": "value # not a comment"
plain: value # a comment
`), compSplitYAML)
	if v := root.child("lockfileVersion").value; v != "9.0" {
		t.Errorf("lockfileVersion = %q", v)
	}
	dep := root.child("importers").child(".").child("dependencies").child("@scope/pkg")
	if dep == nil || dep.child("version").value != "1.0.0(peer@2.0.0)" || dep.line != 7 {
		t.Fatalf("nested mapping = %+v", dep)
	}
	if n := root.child("notes"); n == nil || len(n.children) != 0 {
		t.Errorf("block scalar lines were parsed as keys: %+v", n)
	}
	if v := root.child("quoted: key").value; v != "value # not a comment" {
		t.Errorf("quoted = %q", v)
	}
	if v := root.child("plain").value; v != "value" {
		t.Errorf("plain = %q", v)
	}
}

func TestCompPNPMKeys(t *testing.T) {
	tests := []struct {
		key          string
		major        int
		name, vers   string
		ref, refWant string
	}{
		{key: "/@babel/core/7.20.0_react@18.0.0", major: 5, name: "@babel/core", vers: "7.20.0"},
		{key: "/lodash/4.17.21", major: 5, name: "lodash", vers: "4.17.21"},
		{key: "/@babel/core@7.20.0(react@18.0.0)", major: 6, name: "@babel/core", vers: "7.20.0"},
		{key: "@babel/core@7.20.0(react@18.0.0)(typescript@5.0.0)", major: 9, name: "@babel/core", vers: "7.20.0"},
	}
	for _, tc := range tests {
		n, v := compPNPMKey(tc.key, tc.major)
		if n != tc.name || v != tc.vers {
			t.Errorf("compPNPMKey(%q) = %q, %q", tc.key, n, v)
		}
	}
	refs := []struct {
		name, ref string
		major     int
		want      string
	}{
		{"react-dom", "18.2.0_react@18.2.0", 5, "react-dom@18.2.0"},
		{"alias", "/string-width/4.2.3", 5, "string-width@4.2.3"},
		{"vitest", "0.32.2(jsdom@22.1.0)", 6, "vitest@0.32.2"},
		{"string-width-cjs", "string-width@4.2.3", 9, "string-width@4.2.3"},
		{"@scope/x", "1.0.0", 9, "@scope/x@1.0.0"},
		{"utils", "link:../packages/utils", 9, ""},
	}
	for _, tc := range refs {
		if got := compPNPMRef(tc.name, tc.ref, tc.major); got != tc.want {
			t.Errorf("compPNPMRef(%q, %q) = %q, want %q", tc.name, tc.ref, got, tc.want)
		}
	}
}

func TestCompJSONKeyLines(t *testing.T) {
	lines, err := compJSONKeyLines([]byte(`{
  "a": {
    "": {"x": 1},
    "b": [
      {"name": "first"},
      {
        "name": "second"
      }
    ]
  },
  "c": "d"
}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"a": 2, compJSONPath("a", ""): 3, compJSONPath("a", "", "x"): 3, compJSONPath("a", "b"): 4,
		compJSONPath("a", "b", "0", "name"): 5, compJSONPath("a", "b", "1", "name"): 7, "c": 11,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("key lines = %v\nwant %v", lines, want)
	}
}
