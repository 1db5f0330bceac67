package components

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func declaredWrite(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Without a lockfile a component's version is what node_modules has
// installed (the nearest one, as Node resolves it), else empty: the range
// is kept apart and the purl names no version.
func TestDeclaredRangeNPM(t *testing.T) {
	root := t.TempDir()
	declaredWrite(t, root, "app/package.json", `{"dependencies": {"express": "^4.17.1", "lodash": "~4.17.0", "left-pad": "*", "ms": "2.1.3", "debug": "=v4.3.4"},
		"devDependencies": {"@scope/tool": "^2.0.0"}}`)
	declaredWrite(t, root, "app/node_modules/express/package.json", `{"name": "express", "version": "4.18.2", "license": "MIT"}`)
	// Installed above the manifest's folder: Node finds it there too.
	declaredWrite(t, root, "node_modules/@scope/tool/package.json", `{"name": "@scope/tool", "version": "2.1.0"}`)
	// A package.json holding a range, or another package's name, is no version.
	declaredWrite(t, root, "app/node_modules/left-pad/package.json", `{"name": "left-pad", "version": "^1.0.0"}`)
	comps, err := Discover(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]string{ // name: version, range, purl
		"express":     {"4.18.2", "^4.17.1", "pkg:npm/express@4.18.2"},
		"lodash":      {"", "~4.17.0", "pkg:npm/lodash"},
		"left-pad":    {"", "*", "pkg:npm/left-pad"},
		"ms":          {"2.1.3", "", "pkg:npm/ms@2.1.3"}, // a pin is a version
		"debug":       {"4.3.4", "", "pkg:npm/debug@4.3.4"},
		"@scope/tool": {"2.1.0", "^2.0.0", "pkg:npm/%40scope/tool@2.1.0"},
	}
	seen := 0
	for _, c := range comps {
		if c.Source != "app/package.json" {
			continue
		}
		w, ok := want[c.Name]
		if !ok {
			t.Errorf("unexpected component %+v", c)
			continue
		}
		seen++
		if got := [3]string{c.Version, c.DeclaredRange, c.PURL}; got != w {
			t.Errorf("%s: version, range, purl = %q, want %q", c.Name, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d components from app/package.json, want %d: %+v", seen, len(want), comps)
	}
	if w := VersionsUnknownWarning(comps); w != "versions unknown for 2 components: no lockfile (their vulnerabilities cannot be checked; commit the lockfile or scan a tree with the dependencies installed)" {
		t.Errorf("warning = %q", w)
	}
	// With a lockfile the manifest's ranges are not components at all.
	declaredWrite(t, root, "app/package-lock.json", `{"lockfileVersion": 3, "packages": {"": {}}}`)
	comps, err = Discover(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if w := VersionsUnknownWarning(comps); w != "" {
		t.Errorf("warning with a lockfile = %q", w)
	}
}

// A stored capture from before DeclaredRange read as the current shape.
func TestDecodeCaptureLegacyRange(t *testing.T) {
	raw := `[{"name":"express","version":"^4.17.1","ecosystem":"npm","purl":"pkg:npm/express","version_range":true},
		{"name":"qs","version":"6.11.0","ecosystem":"npm","purl":"pkg:npm/qs@6.11.0"}]`
	comps, err := DecodeCapture([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 2 || comps[0].Version != "" || comps[0].DeclaredRange != "^4.17.1" || comps[1].Version != "6.11.0" || comps[1].DeclaredRange != "" {
		t.Errorf("decoded %+v", comps)
	}
	// And the current shape round-trips.
	b, err := json.Marshal(comps)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "version_range") {
		t.Errorf("re-encoded capture still has version_range: %s", b)
	}
	again, err := DecodeCapture(b)
	if err != nil || len(again) != 2 || again[0].DeclaredRange != "^4.17.1" || again[0].Version != "" {
		t.Errorf("round trip: %+v %v", again, err)
	}
	if w := VersionsUnknownWarning(comps); !strings.HasPrefix(w, "versions unknown for 1 components: no lockfile") {
		t.Errorf("warning = %q", w)
	}
}
