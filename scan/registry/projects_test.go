package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/internal/scantest"
	"scand/scan/proc"
)

// The fixtures in testdata/projects stand in for the public projects issue
// 16 was measured on. These tests run the registry's real scanners on them
// and hold scand to that bars.

func projectsConfig() scan.Config {
	return scan.Config{Runner: proc.NewRunner(2 * time.Minute), Now: time.Now,
		Getenv: func(k string) string {
			if k == "SVC_SECRETS_HISTORY" {
				return "0"
			}
			return ""
		}}
}

func projectsScanner(t *testing.T, name string) scan.Scanner {
	t.Helper()
	for _, s := range All(projectsConfig()) {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no scanner %s", name)
	return nil
}

func projectsDir(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "projects", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// juice-shop: its translation files give no secrets finding, the private
// key written inline with \r\n escapes is found, and its package.json
// without a lockfile gives range components and an info finding saying the
// versions are unresolved.
func TestProjectJuiceShop(t *testing.T) {
	dir := projectsDir(t, "juice-shop")
	var keys int
	for _, f := range scantest.Scan(t, projectsScanner(t, "secrets"), dir) {
		if strings.Contains(f.FilePath, "/i18n/") {
			t.Errorf("translation file finding: %s at %s:%d", f.RuleID, f.FilePath, f.Line)
		}
		if f.FilePath == "lib/insecurity.ts" && f.RuleID == "private-key-rsa" {
			keys++
		}
	}
	if keys != 1 {
		t.Errorf("the inline RSA key of lib/insecurity.ts was found %d times, want once", keys)
	}

	comps, err := components.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ranged := 0
	for _, c := range comps {
		if c.Source == "package.json" && c.DeclaredRange != "" && c.Scope == components.ScopeDirect {
			ranged++
			if c.Name == "express" && (c.DeclaredRange != "^4.17.1" || c.Version != "" || c.PURL != "pkg:npm/express") {
				t.Errorf("express version %q range %q purl %q, want no version, the declared range and a purl without version", c.Version, c.DeclaredRange, c.PURL)
			}
		}
		if strings.ContainsAny(c.Version, "^~<>*") {
			t.Errorf("%s has a range as its version: %q", c.Name, c.Version)
		}
		// A pin in package.json is a version.
		if c.Name == "jsonwebtoken" && (c.Version != "0.4.0" || c.DeclaredRange != "" || c.PURL != "pkg:npm/jsonwebtoken@0.4.0") {
			t.Errorf("jsonwebtoken = %+v, want the pinned version 0.4.0", c)
		}
	}
	if ranged != 3 {
		t.Errorf("%d range components from package.json, want 3: %+v", ranged, comps)
	}
	if w := components.VersionsUnknownWarning(comps); !strings.HasPrefix(w, "versions unknown for 3 components: no lockfile") {
		t.Errorf("warning = %q", w)
	}
	var unresolved []finding.Finding
	for _, f := range scantest.Scan(t, projectsScanner(t, "licenses"), dir) {
		if f.RuleID == "dependency-versions-unresolved" {
			unresolved = append(unresolved, f)
		}
	}
	if len(unresolved) != 1 || unresolved[0].Severity != finding.Info || unresolved[0].FilePath != "package.json" {
		t.Errorf("unresolved-version findings = %+v", unresolved)
	}
}

// A committed test key is one finding, not two: secrets and git-hygiene
// both report it, the equivalence table merges them, and being under
// tests/ it has the test context and one severity level less.
func TestProjectTestKeyIsOneFinding(t *testing.T) {
	r := scantest.NewGitRepo(t)
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "secrets", "positive", "private-key-ec.pem"))
	if err != nil {
		t.Fatal(err)
	}
	r.Write("tests/certs/server.key", string(src))
	r.Write(".gitignore", ".env\n.env.*\n")
	r.Write("app.py", "print('hi')\n")
	r.Commit()
	var raw []finding.Finding
	for _, name := range []string{"secrets", "git-hygiene"} {
		raw = append(raw, scantest.Scan(t, projectsScanner(t, name), r.Dir)...)
	}
	var onKey []finding.Finding
	for _, f := range finding.Prepare("s", raw, nil, nil) {
		if f.FilePath == "tests/certs/server.key" {
			onKey = append(onKey, f)
		}
	}
	if len(onKey) != 1 {
		t.Fatalf("%d findings on the test key, want 1: %+v", len(onKey), onKey)
	}
	f := onKey[0]
	also, _ := f.Metadata[finding.MetaAlsoReportedBy].([]string)
	if f.Scanner != "secrets" || f.Line != 1 || len(also) != 1 || also[0] != "git-hygiene" {
		t.Errorf("kept %s at line %d also reported by %v; want secrets at line 1, also git-hygiene", f.Scanner, f.Line, also)
	}
	if f.Metadata[finding.MetaContext] != finding.ContextTest || f.Severity != finding.High {
		t.Errorf("context %v severity %s, want test and high (critical lowered)", f.Metadata[finding.MetaContext], f.Severity)
	}
}
