package components

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const compFixtures = "../../testdata/components"

// compRow is the identity of one discovered component, as the tables below
// spell it out.
type compRow struct {
	name, version, purl, scope string
	dev                        bool
	source                     string
	line                       int
}

func compRows(comps []Component) []compRow {
	out := make([]compRow, 0, len(comps))
	for _, c := range comps {
		out = append(out, compRow{c.Name, c.Version, c.PURL, c.Scope, c.Dev, c.Source, c.Line})
	}
	return out
}

func discoverFixture(t *testing.T, dir string) []Component {
	t.Helper()
	comps, err := Discover(context.Background(), filepath.Join(compFixtures, dir))
	if err != nil {
		t.Fatalf("Discover(%s): %v", dir, err)
	}
	return comps
}

func compByPURL(t *testing.T, comps []Component, source, purl string) Component {
	t.Helper()
	for _, c := range comps {
		if c.PURL == purl && c.Source == source {
			return c
		}
	}
	t.Fatalf("no component %s in %s; have %v", purl, source, compRows(comps))
	return Component{}
}

// TestDiscoverComponentsPerLockfile pins every component each lockfile kind
// yields: name, version, purl, scope, dev flag, source and declaring line
// (each line was checked against the fixture by hand).
func TestDiscoverComponentsPerLockfile(t *testing.T) {
	want := map[string][]compRow{
		// No lockfile: the version installed in node_modules, else none.
		"npm-nolock": {
			{"cookie-parser", "", "pkg:npm/cookie-parser", "direct", false, "package.json", 6},
			{"express", "4.18.2", "pkg:npm/express@4.18.2", "direct", false, "package.json", 5},
			{"mocha", "", "pkg:npm/mocha", "direct", true, "package.json", 9},
		},
		"cargo": {
			{"anyhow", "1.0.75", "pkg:cargo/anyhow@1.0.75", "direct", false, "Cargo.lock", 6},
			{"hashbrown", "0.12.3", "pkg:cargo/hashbrown@0.12.3", "transitive", false, "Cargo.lock", 12},
			{"hashbrown", "0.14.0", "pkg:cargo/hashbrown@0.14.0", "direct", false, "Cargo.lock", 18},
			{"indexmap", "1.9.3", "pkg:cargo/indexmap@1.9.3", "direct", false, "Cargo.lock", 24},
			{"serde", "1.0.188", "pkg:cargo/serde@1.0.188", "direct", false, "Cargo.lock", 50},
			{"serde_derive", "1.0.188", "pkg:cargo/serde_derive@1.0.188", "transitive", false, "Cargo.lock", 59},
		},
		"composer": {
			{"monolog/monolog", "3.4.0", "pkg:composer/monolog/monolog@3.4.0", "direct", false, "composer.lock", 10},
			{"phpunit/php-timer", "6.0.0", "pkg:composer/phpunit/php-timer@6.0.0", "direct", true, "composer.lock", 46},
			{"psr/log", "3.0.0", "pkg:composer/psr/log@3.0.0", "transitive", false, "composer.lock", 28},
		},
		"gemfile": {
			{"mini_portile2", "2.8.4", "pkg:gem/mini_portile2@2.8.4", "transitive", false, "Gemfile.lock", 17},
			{"nokogiri", "1.15.3", "pkg:gem/nokogiri@1.15.3", "direct", false, "Gemfile.lock", 18},
			{"nokogiri", "1.15.3", "pkg:gem/nokogiri@1.15.3?platform=x86_64-linux", "direct", false, "Gemfile.lock", 21},
			{"racc", "1.7.1", "pkg:gem/racc@1.7.1", "transitive", false, "Gemfile.lock", 24},
			{"rack", "2.2.7", "pkg:gem/rack@2.2.7", "transitive", false, "Gemfile.lock", 23},
			{"rake", "13.0.6", "pkg:gem/rake@13.0.6", "direct", false, "Gemfile.lock", 25},
			{"sprockets", "4.2.0", "pkg:gem/sprockets@4.2.0", "direct", false, "Gemfile.lock", 5},
		},
		"gomod-legacy": {
			{"github.com/gorilla/mux", "v1.8.0", "pkg:golang/github.com/gorilla/mux@v1.8.0", "direct", false, "go.mod", 6},
			{"github.com/konsorten/go-windows-terminal-sequences", "v1.0.1", "pkg:golang/github.com/konsorten/go-windows-terminal-sequences@v1.0.1", "transitive", false, "go.sum", 4},
			{"github.com/sirupsen/logrus", "v1.4.2", "pkg:golang/github.com/sirupsen/logrus@v1.4.2", "direct", false, "go.mod", 7},
			{"golang.org/x/sys", "v0.0.0-20191026070338-33540a1f6037", "pkg:golang/golang.org/x/sys@v0.0.0-20191026070338-33540a1f6037", "transitive", false, "go.sum", 10},
		},
		"gomod": {
			{"github.com/BurntSushi/toml", "v1.3.2", "pkg:golang/github.com/burntsushi/toml@v1.3.2", "direct", false, "go.mod", 6},
			{"github.com/google/uuid", "v1.3.0", "pkg:golang/github.com/google/uuid@v1.3.0", "direct", false, "go.mod", 7},
			{"github.com/pkg/errors", "v0.9.0", "pkg:golang/github.com/pkg/errors@v0.9.0", "transitive", false, "go.mod", 12},
			{"golang.org/x/text", "v0.13.0", "pkg:golang/golang.org/x/text@v0.13.0", "transitive", false, "go.mod", 8},
			{"gopkg.in/yaml.v3", "v3.0.1", "pkg:golang/gopkg.in/yaml.v3@v3.0.1", "direct", false, "go.mod", 9},
		},
		"maven": {
			{"com.acme:acme-bom-managed", "", "pkg:maven/com.acme/acme-bom-managed", "direct", false, "pom.xml", 59},
			{"com.acme:orders-model", "3.1.0", "pkg:maven/com.acme/orders-model@3.1.0", "direct", false, "pom.xml", 42},
			{"com.fasterxml.jackson.core:jackson-databind", "2.15.2", "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.15.2", "direct", false, "pom.xml", 33},
			{"io.netty:netty-transport-native-epoll", "4.1.94.Final", "pkg:maven/io.netty/netty-transport-native-epoll@4.1.94.Final?classifier=linux-x86_64", "direct", false, "pom.xml", 47},
			{"org.junit.jupiter:junit-jupiter", "5.10.0", "pkg:maven/org.junit.jupiter/junit-jupiter@5.10.0", "direct", true, "pom.xml", 53},
			{"org.slf4j:slf4j-api", "2.0.7", "pkg:maven/org.slf4j/slf4j-api@2.0.7", "direct", false, "pom.xml", 38},
		},
		"npm-v1": {
			{"@babel/runtime", "7.12.5", "pkg:npm/%40babel/runtime@7.12.5", "direct", false, "package-lock.json", 7},
			{"debug", "2.6.9", "pkg:npm/debug@2.6.9", "transitive", false, "package-lock.json", 15},
			{"debug", "4.2.0", "pkg:npm/debug@4.2.0", "transitive", true, "package-lock.json", 42},
			{"express", "4.17.1", "pkg:npm/express@4.17.1", "direct", false, "package-lock.json", 23},
			{"mocha", "8.2.1", "pkg:npm/mocha@8.2.1", "direct", true, "package-lock.json", 32},
			{"ms", "2.0.0", "pkg:npm/ms@2.0.0", "transitive", false, "package-lock.json", 59},
			{"ms", "2.1.2", "pkg:npm/ms@2.1.2", "transitive", true, "package-lock.json", 51},
			{"regenerator-runtime", "0.13.7", "pkg:npm/regenerator-runtime@0.13.7", "transitive", false, "package-lock.json", 64},
		},
		"npm-v2": {
			{"@angular/core", "15.2.9", "pkg:npm/%40angular/core@15.2.9", "direct", false, "package-lock.json", 21},
			{"@types/node", "18.15.11", "pkg:npm/%40types/node@18.15.11", "direct", true, "package-lock.json", 37},
			{"lodash", "4.17.21", "pkg:npm/lodash@4.17.21", "direct", false, "package-lock.json", 44},
			{"rxjs", "7.8.0", "pkg:npm/rxjs@7.8.0", "transitive", false, "package-lock.json", 50},
			{"tslib", "2.4.1", "pkg:npm/tslib@2.4.1", "transitive", false, "package-lock.json", 60},
			{"tslib", "2.5.0", "pkg:npm/tslib@2.5.0", "transitive", false, "package-lock.json", 67},
			{"zone.js", "0.13.0", "pkg:npm/zone.js@0.13.0", "transitive", false, "package-lock.json", 77},
		},
		"npm-v3": {
			{"@sindresorhus/is", "4.6.0", "pkg:npm/%40sindresorhus/is@4.6.0", "direct", false, "package-lock.json", 19},
			{"ansi-styles", "4.3.0", "pkg:npm/ansi-styles@4.3.0", "transitive", false, "package-lock.json", 27},
			{"chalk", "4.1.2", "pkg:npm/chalk@4.1.2", "direct", false, "package-lock.json", 35},
			{"color-convert", "2.0.1", "pkg:npm/color-convert@2.0.1", "transitive", false, "package-lock.json", 44},
			{"color-name", "1.1.4", "pkg:npm/color-name@1.1.4", "transitive", false, "package-lock.json", 52},
			{"has-flag", "4.0.0", "pkg:npm/has-flag@4.0.0", "transitive", false, "package-lock.json", 57},
			{"string-width", "4.2.3", "pkg:npm/string-width@4.2.3", "direct", false, "package-lock.json", 62},
			{"supports-color", "7.2.0", "pkg:npm/supports-color@7.2.0", "transitive", false, "package-lock.json", 68},
			{"typescript", "5.0.4", "pkg:npm/typescript@5.0.4", "direct", true, "package-lock.json", 76},
		},
		"pipenv": {
			{"asgiref", "3.7.2", "pkg:pypi/asgiref@3.7.2", "transitive", false, "Pipfile.lock", 19},
			{"django", "4.2.4", "pkg:pypi/django@4.2.4", "direct", false, "Pipfile.lock", 26},
			{"pytest", "7.4.0", "pkg:pypi/pytest@7.4.0", "transitive", true, "Pipfile.lock", 42},
			{"pytest-django", "4.5.2", "pkg:pypi/pytest-django@4.5.2", "direct", true, "Pipfile.lock", 48},
			{"sqlparse", "0.4.4", "pkg:pypi/sqlparse@0.4.4", "transitive", false, "Pipfile.lock", 33},
		},
		"pnpm-v5": {
			{"@types/prop-types", "15.7.5", "pkg:npm/%40types/prop-types@15.7.5", "transitive", true, "pnpm-lock.yaml", 17},
			{"@types/react", "18.0.28", "pkg:npm/%40types/react@18.0.28", "direct", true, "pnpm-lock.yaml", 21},
			{"csstype", "3.1.1", "pkg:npm/csstype@3.1.1", "transitive", true, "pnpm-lock.yaml", 28},
			{"js-tokens", "4.0.0", "pkg:npm/js-tokens@4.0.0", "transitive", false, "pnpm-lock.yaml", 32},
			{"loose-envify", "1.4.0", "pkg:npm/loose-envify@1.4.0", "transitive", false, "pnpm-lock.yaml", 36},
			{"react", "18.2.0", "pkg:npm/react@18.2.0", "direct", false, "pnpm-lock.yaml", 53},
			{"react-dom", "18.2.0", "pkg:npm/react-dom@18.2.0", "direct", false, "pnpm-lock.yaml", 43},
			{"scheduler", "0.23.0", "pkg:npm/scheduler@0.23.0", "transitive", false, "pnpm-lock.yaml", 60},
		},
		"pnpm-v6": {
			{"@vue/shared", "3.3.4", "pkg:npm/%40vue/shared@3.3.4", "direct", false, "pnpm-lock.yaml", 22},
			{"asynckit", "0.4.0", "pkg:npm/asynckit@0.4.0", "transitive", false, "pnpm-lock.yaml", 26},
			{"axios", "1.4.0", "pkg:npm/axios@1.4.0", "direct", false, "pnpm-lock.yaml", 30},
			{"follow-redirects", "1.15.2", "pkg:npm/follow-redirects@1.15.2", "transitive", false, "pnpm-lock.yaml", 39},
			{"form-data", "4.0.0", "pkg:npm/form-data@4.0.0", "transitive", false, "pnpm-lock.yaml", 49},
			{"tinyspy", "2.1.1", "pkg:npm/tinyspy@2.1.1", "transitive", true, "pnpm-lock.yaml", 66},
			{"vitest", "0.32.2", "pkg:npm/vitest@0.32.2", "direct", true, "pnpm-lock.yaml", 56},
		},
		"pnpm-v9": {
			{"@types/ms", "0.7.31", "pkg:npm/%40types/ms@0.7.31", "direct", false, "pnpm-lock.yaml", 36},
			{"debug", "4.3.4", "pkg:npm/debug@4.3.4", "direct", false, "pnpm-lock.yaml", 39},
			{"ms", "2.1.2", "pkg:npm/ms@2.1.2", "direct", false, "pnpm-lock.yaml", 48},
			{"string-width", "4.2.3", "pkg:npm/string-width@4.2.3", "direct", false, "pnpm-lock.yaml", 51},
			{"supports-color", "9.4.0", "pkg:npm/supports-color@9.4.0", "direct", false, "pnpm-lock.yaml", 55},
		},
		"poetry": {
			{"PySocks", "1.7.1", "pkg:pypi/pysocks@1.7.1", "transitive", false, "poetry.lock", 66},
			{"black", "23.7.0", "pkg:pypi/black@23.7.0", "direct", true, "poetry.lock", 4},
			{"certifi", "2023.7.22", "pkg:pypi/certifi@2023.7.22", "direct", false, "poetry.lock", 23},
			{"click", "8.1.6", "pkg:pypi/click@8.1.6", "transitive", true, "poetry.lock", 33},
			{"colorama", "0.4.6", "pkg:pypi/colorama@0.4.6", "transitive", true, "poetry.lock", 46},
			{"platformdirs", "3.10.0", "pkg:pypi/platformdirs@3.10.0", "transitive", true, "poetry.lock", 56},
			{"urllib3", "2.0.4", "pkg:pypi/urllib3@2.0.4", "direct", false, "poetry.lock", 76},
		},
		"requirements": {
			{"Flask", "2.3.2", "pkg:pypi/flask@2.3.2", "", false, "requirements.txt", 3}, // ">=2.2,<3.0", installed in .venv
			{"SQLAlchemy", "2.0.19", "pkg:pypi/sqlalchemy@2.0.19", "", false, "requirements.txt", 5},
			{"iniconfig", "2.0.0", "pkg:pypi/iniconfig@2.0.0", "transitive", false, "requirements-dev.txt", 7},
			{"packaging", "23.1", "pkg:pypi/packaging@23.1", "transitive", false, "requirements-dev.txt", 9},
			{"pluggy", "1.2.0", "pkg:pypi/pluggy@1.2.0", "transitive", false, "requirements-dev.txt", 11},
			{"pytest", "7.4.0", "pkg:pypi/pytest@7.4.0", "direct", false, "requirements-dev.txt", 15},
			{"python_dateutil", "2.8.2", "pkg:pypi/python-dateutil@2.8.2", "", false, "requirements.txt", 4},
			{"requests", "2.31.0", "pkg:pypi/requests@2.31.0", "", false, "requirements.txt", 2},
			{"uvicorn", "0.23.1", "pkg:pypi/uvicorn@0.23.1", "", false, "requirements.txt", 6}, // no specifier, installed in .venv
		},
		"yarn-berry": {
			{"@emotion/hash", "0.9.1", "pkg:npm/%40emotion/hash@0.9.1", "direct", false, "yarn.lock", 8},
			{"function-bind", "1.1.1", "pkg:npm/function-bind@1.1.1", "transitive", false, "yarn.lock", 25},
			{"has", "1.0.3", "pkg:npm/has@1.0.3", "transitive", false, "yarn.lock", 32},
			{"is-core-module", "2.12.1", "pkg:npm/is-core-module@2.12.1", "direct", false, "yarn.lock", 41},
			{"path-parse", "1.0.7", "pkg:npm/path-parse@1.0.7", "transitive", false, "yarn.lock", 50},
			{"resolve", "1.22.2", "pkg:npm/resolve@1.22.2", "direct", false, "yarn.lock", 57},
			{"supports-preserve-symlinks-flag", "1.0.0", "pkg:npm/supports-preserve-symlinks-flag@1.0.0", "transitive", false, "yarn.lock", 83},
		},
		"yarn-v1": {
			{"@babel/code-frame", "7.12.13", "pkg:npm/%40babel/code-frame@7.12.13", "direct", false, "yarn.lock", 5},
			{"@babel/helper-validator-identifier", "7.12.11", "pkg:npm/%40babel/helper-validator-identifier@7.12.11", "transitive", false, "yarn.lock", 12},
			{"@babel/highlight", "7.13.10", "pkg:npm/%40babel/highlight@7.13.10", "transitive", false, "yarn.lock", 17},
			{"ansi-regex", "5.0.1", "pkg:npm/ansi-regex@5.0.1", "transitive", false, "yarn.lock", 26},
			{"ansi-styles", "3.2.1", "pkg:npm/ansi-styles@3.2.1", "transitive", false, "yarn.lock", 31},
			{"chalk", "2.4.2", "pkg:npm/chalk@2.4.2", "direct", false, "yarn.lock", 38},
			{"color-convert", "1.9.3", "pkg:npm/color-convert@1.9.3", "transitive", false, "yarn.lock", 47},
			{"color-name", "1.1.3", "pkg:npm/color-name@1.1.3", "transitive", false, "yarn.lock", 54},
			{"escape-string-regexp", "1.0.5", "pkg:npm/escape-string-regexp@1.0.5", "transitive", false, "yarn.lock", 59},
			{"has-flag", "3.0.0", "pkg:npm/has-flag@3.0.0", "transitive", false, "yarn.lock", 64},
			{"js-tokens", "4.0.0", "pkg:npm/js-tokens@4.0.0", "direct", false, "yarn.lock", 69},
			{"strip-ansi", "6.0.1", "pkg:npm/strip-ansi@6.0.1", "direct", false, "yarn.lock", 74},
			{"supports-color", "5.5.0", "pkg:npm/supports-color@5.5.0", "transitive", false, "yarn.lock", 81},
		},
	}
	entries, err := os.ReadDir(compFixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && want[e.Name()] == nil {
			t.Errorf("fixture %s has no expectation", e.Name())
		}
	}
	for dir, rows := range want {
		t.Run(dir, func(t *testing.T) {
			got := compRows(discoverFixture(t, dir))
			if reflect.DeepEqual(got, rows) {
				return
			}
			for i := 0; i < len(got) || i < len(rows); i++ {
				var g, w compRow
				if i < len(got) {
					g = got[i]
				}
				if i < len(rows) {
					w = rows[i]
				}
				if g != w {
					t.Errorf("row %d: got %+v want %+v", i, g, w)
				}
			}
		})
	}
}
