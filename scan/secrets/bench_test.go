package secrets

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scand/scan"
)

// BenchmarkSecretsScan scans a synthetic 4 MiB tree of source-like files:
// mostly lines without keywords, some with the words the generic rules look
// for ("token", "password", "secret") and one real secret per file, so both
// the prefilter and the rule path are on the profile. bench/secrets.sh is
// the end-to-end comparison with gitleaks.
func BenchmarkSecretsScan(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewSource(1))
	words := []string{"func", "return", "err", "nil", "ctx", "value", "buffer", "index", "len", "if", "for", "range", "struct", "map"}
	noisy := []string{
		"\ttok := p.token() // next token",
		"\tif password == \"\" { return errEmpty }",
		"\tsecretName := cfg.SecretRef",
		"\tlog.Printf(\"refreshing token for %s\", user)",
	}
	var total int64
	for i := 0; i < 200; i++ {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n\n", i)
		for sb.Len() < 20<<10 {
			if rng.Intn(20) == 0 {
				sb.WriteString(noisy[rng.Intn(len(noisy))])
			} else {
				sb.WriteString("\t")
				for w := 0; w < 8; w++ {
					sb.WriteString(words[rng.Intn(len(words))])
					sb.WriteByte(' ')
				}
			}
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "const apiToken = \"ghp_%036d\"\n", rng.Int63())
		data := []byte(sb.String())
		total += int64(len(data))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i)), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	s := secretsTestScanner(b, false)
	ctx := context.Background()
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Scan(ctx, scan.Target{Path: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSecretsMinifiedLine scans one 1 MiB line of bundled JavaScript
// whose names hold the generic rules' words thousands of times, as a
// committed dist/ bundle or a source map does. A finder that reads the
// whole line before each name makes this quadratic; round 32 found the npm
// packages of a typical web app taking 5.6 minutes for that reason.
func BenchmarkSecretsMinifiedLine(b *testing.B) {
	dir := b.TempDir()
	rng := rand.New(rand.NewSource(1))
	parts := []string{
		`var t=e.token||"";`, `n.accessToken=r(o,"key");`, `if(i.password){u.secret=a}`, `o["x-api-key"]=s.apiKey,`,
		`function c(e){return e.authorization?e:null}`, `l=m({name:"secret",value:p}),`, `f=h+":"+d;`, `w.push(k);`,
	}
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(parts[rng.Intn(len(parts))])
	}
	sb.WriteString("\n")
	if err := os.WriteFile(filepath.Join(dir, "bundle.js"), []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	s := secretsTestScanner(b, false)
	ctx := context.Background()
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Scan(ctx, scan.Target{Path: dir}); err != nil {
			b.Fatal(err)
		}
	}
}
