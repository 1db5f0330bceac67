package scan

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestRegistryOrderAndTypes(t *testing.T) {
	reg := Registry(Config{Runner: NewRunner(time.Minute), Getenv: func(string) string { return "" }, Now: time.Now})
	var got []string
	for _, s := range reg {
		got = append(got, s.Type()+":"+s.Name())
	}
	want := "code:secrets code:git-hygiene code:bandit code:gosec dependency:licenses dependency:osv-scanner dependency:govulncheck dependency:trivy iac:dockerfile iac:kics baseline:baseline dast:builtin_dast dast:zap network:nmap"
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
