//go:build ignore

// secrets-driver runs scand's built-in secrets scanner on one directory and
// prints its findings as JSON lines (file, line, rule), for bench/secrets.sh.
// Usage: go run ./bench/secrets-driver.go [-cpuprofile f] DIR > findings.jsonl
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/secrets"
)

func main() {
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: secrets-driver [-cpuprofile f] DIR")
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	cfg := scan.Config{
		Runner: proc.NewRunner(time.Minute),
		Getenv: func(k string) string {
			if k == "SVC_SECRETS_HISTORY" {
				return "0"
			}
			return ""
		},
		Now: time.Now,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	fs, err := secrets.New(cfg).Scan(ctx, scan.Target{Path: flag.Arg(0)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "scan: %d findings in %s\n", len(fs), time.Since(start).Round(time.Millisecond))
	enc := json.NewEncoder(os.Stdout)
	for _, f := range fs {
		if finding.IsSuppressed(f) {
			continue // reported as suppressed: it fails no gate, as gitleaks drops it
		}
		enc.Encode(map[string]any{"file": f.FilePath, "line": f.Line, "rule": f.RuleID, "redacted": f.Metadata["redacted"]})
	}
}
