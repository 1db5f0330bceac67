package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"scand/scan"
	"scand/scan/registry"
	"scand/scan/repoconfig"
)

// runConfigCommand is `scand config check [FILE]`: validates a repository
// config (default ./.scand.toml) the way a scan reads it; every error
// names the file, the line and the key.
func runConfigCommand(_ context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scand config check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = commandUsage(fs, "scand config check [FILE]",
		"Validates a repository config file (default ./"+repoconfig.FileName+"): unknown keys, bad values and unknown scanners are errors naming the file, line and key.")
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fs.Usage()
			return flag.ErrHelp
		}
		fs.Usage()
		return &usageError{"scand config: the subcommand is check"}
	}
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 1 {
		return &usageError{fmt.Sprintf("scand config check takes one FILE, got %q", pos)}
	}
	path := repoconfig.FileName
	if len(pos) == 1 {
		path = pos[0]
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, repoconfig.FileName)
	}
	cfg, err := repoconfig.Load(path, path)
	if err != nil {
		return &usageError{err.Error()}
	}
	var names []string
	for _, s := range registry.All(scan.Config{}) {
		names = append(names, s.Name())
	}
	if err := cfg.CheckScanners(names); err != nil {
		return &usageError{err.Error()}
	}
	fmt.Fprintf(stdout, "%s: ok\n", path)
	return nil
}
