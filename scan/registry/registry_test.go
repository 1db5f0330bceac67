package registry

import (
	"context"
	"strings"
	"testing"
	"time"

	"scand/scan"
	"scand/scan/proc"
)

func TestRegistryOrderAndTypes(t *testing.T) {
	reg := All(scan.Config{Runner: proc.NewRunner(time.Minute), Getenv: func(string) string { return "" }, Now: time.Now})
	var got []string
	for _, s := range reg {
		got = append(got, s.Type()+":"+s.Name())
	}
	// SPEC's "code: 4 scanners" plus eslint (issue 16), after the other
	// code wrappers: an added scanner is additive.
	want := "code:secrets code:git-hygiene code:bandit code:gosec code:eslint dependency:licenses dependency:osv-scanner dependency:govulncheck dependency:trivy iac:dockerfile iac:kics baseline:baseline dast:builtin_dast dast:zap network:nmap"
	if strings.Join(got, " ") != want {
		t.Fatalf("registry\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	// Every scanner answers Available quickly and, when unavailable, says
	// how to get it.
	for _, s := range reg {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, hint, ok := s.Available(ctx)
		cancel()
		if !ok && hint == "" {
			t.Errorf("%s is unavailable without an install hint", s.Name())
		}
	}
}

func TestInstallRecipeFor(t *testing.T) {
	for name, pkg := range map[string]string{"bandit": "bandit", "nmap": "nmap", "git-hygiene": "git"} {
		r, ok := installRecipeFor(name)
		if !ok || r.Manager != "apt-get" || strings.Join(r.Args, " ") != "install -y "+pkg {
			t.Errorf("installRecipeFor(%q) = %+v, %v", name, r, ok)
		}
	}
	for _, name := range []string{"gosec", "trivy", "zap", "bandit; rm -rf /", ""} {
		if _, ok := installRecipeFor(name); ok {
			t.Errorf("installRecipeFor(%q) has a recipe", name)
		}
	}
}
