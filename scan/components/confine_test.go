package components

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTreeNamedPathsStayInTheTarget: vendor/modules.txt, a vendored
// crate's license-file and a symlinked module directory are the tree's
// own words; none may make discovery read a file outside the target.
func TestTreeNamedPathsStayInTheTarget(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mit := "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n"
	write(filepath.Join(outside, "LICENSE"), mit)
	write(filepath.Join(outside, "mod", "LICENSE"), mit)
	write(filepath.Join(root, "vendor", "modules.txt"), "# ../../outside v1.0.0\n# example.com/linked v1.0.0\n# example.com/ok v1.0.0\n")
	write(filepath.Join(root, "vendor", "example.com", "ok", "LICENSE"), mit)
	if err := os.Symlink(filepath.Join(outside, "mod"), filepath.Join(root, "vendor", "example.com", "linked")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "vendor", "crate", "Cargo.toml"), "[package]\nname = \"crate\"\nversion = \"0.1.0\"\nlicense-file = \"../../../outside/LICENSE\"\n")

	d := &compDiscovery{root: root, licenses: compLicenseIndex{}}
	if err := d.scanVendor(context.Background(), filepath.Join(root, "vendor")); err != nil {
		t.Fatal(err)
	}
	found := false
	for k, info := range d.licenses {
		if strings.HasPrefix(info.source, "..") || strings.Contains(info.source, "linked") {
			t.Errorf("license of %q read from outside the target: %s", k, info.source)
		}
		found = found || info.source == "vendor/example.com/ok/LICENSE"
	}
	if !found {
		t.Errorf("the vendored module inside the target lost its license: %v", d.licenses)
	}
}
