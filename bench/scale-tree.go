//go:build ignore

// scale-tree writes a tree in which scand's built-in secrets scanner finds
// exactly N secrets, for bench/scale.sh: FILES files under 100 directories,
// each line one synthetic credential of four kinds (GitHub, Stripe, GitLab,
// AWS key ids: two severities, several rules), random enough to pass the
// scanner's entropy and placeholder checks. Every 50th line carries a
// "scand:ignore" comment, so suppressed findings take part in the bench.
//
// Usage: go run ./bench/scale-tree.go -n 1000000 -files 20000 DIR
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

const (
	base62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b32    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

func main() {
	n := flag.Int("n", 10000, "secrets to plant")
	files := flag.Int("files", 0, "files to spread them over (default n/50, at least 1)")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	if flag.NArg() != 1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: scale-tree [-n N] [-files F] [-seed S] DIR")
		os.Exit(2)
	}
	if *files <= 0 {
		*files = max(1, *n/50)
	}
	rng := rand.New(rand.NewSource(*seed))
	rs := func(alpha string, k int) string {
		for {
			b := make([]byte, k)
			for i := range b {
				b[i] = alpha[rng.Intn(len(alpha))]
			}
			s := string(b)
			l := strings.ToLower(s)
			if !strings.Contains(l, "test") && !strings.Contains(l, "xxxx") && !strings.Contains(l, "fake") &&
				!strings.Contains(l, "your") && !strings.Contains(l, "example") && !strings.Contains(l, "1234") &&
				!strings.Contains(l, "abcd") && !strings.Contains(l, "dummy") && !strings.Contains(l, "sample") {
				return s
			}
		}
	}
	// The key name differs on every line: the fingerprint is taken over the
	// redacted line, so identical lines would collapse into one finding.
	kinds := []func(i int) string{
		func(i int) string { return fmt.Sprintf("token_%d = \"ghp_%s\"", i, rs(base62, 36)) },
		func(i int) string { return fmt.Sprintf("stripe_key_%d = \"sk_live_%s\"", i, rs(base62, 30)) },
		func(i int) string { return fmt.Sprintf("gitlab_%d = \"glpat-%s\"", i, rs(base62, 20)) },
		func(i int) string { return fmt.Sprintf("aws_key_id_%d = \"AKIA%s\"", i, rs(b32, 16)) },
	}
	root := flag.Arg(0)
	written := 0
	for f := 0; f < *files; f++ {
		per := *n / *files
		if f < *n%*files {
			per++
		}
		dir := filepath.Join(root, fmt.Sprintf("d%02d", f%100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fh, err := os.Create(filepath.Join(dir, fmt.Sprintf("creds%06d.conf", f)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w := bufio.NewWriter(fh)
		for i := 0; i < per; i++ {
			line := kinds[(written+i)%len(kinds)](i)
			if (written+i)%50 == 49 {
				line += " # scand:ignore -- rotated, kept for the bench"
			}
			fmt.Fprintln(w, line)
		}
		written += per
		if err := w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fh.Close()
	}
}
