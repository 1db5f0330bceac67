package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"scand/finding"
	"scand/finding/report"
	"scand/scan"
	"scand/scan/reportdata"
	"scand/scan/request"
	"scand/store"
)

// A baseline is the findings a team has accepted for now, committed to
// the repository: `scand scan --baseline FILE` shows the findings it lists
// marked baselined, and they never gate. The file is canonical and
// byte-stable (sorted by fingerprint, no timestamps unless SVC_FAKE_NOW
// pins one), so it changes in a review only when the findings do.

// defaultBaseline is where `scand baseline` writes, under PATH.
const defaultBaseline = ".scand/baseline.json"

// baselineMaxSize caps a baseline file read.
const baselineMaxSize = 64 << 20

const baselineVersion = 1

type baselineFile struct {
	Version   int             `json:"version"`
	CreatedAt string          `json:"created_at,omitempty"`
	Findings  []baselineEntry `json:"findings"`
}

// baselineEntry is one accepted finding: the fingerprint decides, the rest
// is for the person reading the diff of the file.
type baselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	RuleID      string `json:"rule_id"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Title       string `json:"title"`
}

// baseline is a loaded baseline file; the zero value lists nothing.
type baseline struct {
	fingerprints map[string]bool
}

// loadBaseline reads -baseline; "" is no baseline. A file that does not
// parse is a usage error (exit 2).
func loadBaseline(path string) (baseline, error) {
	if path == "" {
		return baseline{}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return baseline{}, &usageError{"-baseline: " + err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, baselineMaxSize+1))
	if err != nil {
		return baseline{}, &usageError{"-baseline: " + err.Error()}
	}
	if len(data) > baselineMaxSize {
		return baseline{}, &usageError{fmt.Sprintf("-baseline: %s is larger than %d bytes", path, baselineMaxSize)}
	}
	var file baselineFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return baseline{}, &usageError{fmt.Sprintf("-baseline: %s is not a scand baseline: %v", path, err)}
	}
	if file.Version != baselineVersion {
		return baseline{}, &usageError{fmt.Sprintf("-baseline: %s has version %d; this scand reads version %d", path, file.Version, baselineVersion)}
	}
	b := baseline{fingerprints: map[string]bool{}}
	for i, e := range file.Findings {
		if e.Fingerprint == "" {
			return baseline{}, &usageError{fmt.Sprintf("-baseline: %s: finding %d has no fingerprint", path, i)}
		}
		b.fingerprints[e.Fingerprint] = true
	}
	return b, nil
}

// mark combines the baseline with a diff's classification (nil: none).
func (b baseline) mark(diff func(fp string) string) reportdata.Mark {
	if len(b.fingerprints) == 0 && diff == nil {
		return nil
	}
	return func(fp string) (string, bool) {
		d := ""
		if diff != nil {
			d = diff(fp)
		}
		return d, b.fingerprints[fp]
	}
}

// encodeBaseline renders findings canonically.
func encodeBaseline(entries []baselineEntry, createdAt string) ([]byte, error) {
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.Fingerprint != b.Fingerprint {
			return a.Fingerprint < b.Fingerprint
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	entries = slices.CompactFunc(entries, func(a, b baselineEntry) bool { return a.Fingerprint == b.Fingerprint })
	if entries == nil {
		entries = []baselineEntry{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(baselineFile{Version: baselineVersion, CreatedAt: createdAt, Findings: entries})
	return buf.Bytes(), err
}

// runBaselineCommand is `scand baseline [PATH] [-o FILE]`.
func runBaselineCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scand baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "baseline file to write (default PATH/"+defaultBaseline+"; - for stdout)")
	fs.StringVar(out, "output", "", "same as -o")
	types := fs.String("type", "", "comma-separated scan types (default: scan_types of the config, else code,dependency)")
	scanners := fs.String("scanners", "", "comma-separated scanner ids to run (default: every scanner of the scan types)")
	config := fs.String("config", "", "repository config file (default: .scand.toml at the root of PATH)")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	allowPartial := fs.Bool("allow-partial", false, "write the baseline although a scanner -scanners names did not run or a scan type ran nothing able to find what it is about (a warning instead of exit 3)")
	fs.Usage = commandUsage(fs, "scand baseline [flags] [PATH]",
		"Scans PATH (default .) and writes every finding's fingerprint, rule, file, line and title, sorted, to a file meant to be committed; "+
			"`scand scan --baseline FILE` then shows those findings as baselined and never gates on them.")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagError(err)
	}
	sf := scanFlags{types: *types, scanners: *scanners, format: "text"}
	if err := sf.check(); err != nil {
		return err
	}
	abs, err := treeArg("scand baseline", pos)
	if err != nil {
		return err
	}
	cfg, err := loadRepoConfig(*config, abs)
	if err != nil {
		return err
	}
	scanTypes, _ := sf.settle(cfg)
	createdAt := ""
	if v := strings.TrimSpace(getenv("SVC_FAKE_NOW")); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return &usageError{"SVC_FAKE_NOW: must be an RFC 3339 time, got " + v}
		}
		createdAt = t.UTC().Format(time.RFC3339)
	}
	eng, err := newEngine(ctx, getenv, stderr, *quiet)
	if err != nil {
		return err
	}
	defer eng.close()
	named := splitList(*scanners)
	if err := eng.checkNames("scanners", named); err != nil {
		return err
	}
	opts := scan.RunOptions{Config: cfg, ConfigGiven: true, SkipIdle: true, DefaultTypes: sf.typesDefault(cfg)}
	if len(named) > 0 {
		opts.Scanners = named
	}
	sc, err := eng.run(ctx, request.Request{TargetPath: abs, ScanTypes: scanTypes}, opts)
	if err != nil {
		return err
	}
	// A baseline from a scan that did not look is no baseline: what a
	// failed scanner would have found would gate later as if new, or,
	// worse, the file would be taken as the whole truth. Fail closed.
	o := outcome{allowPartial: *allowPartial}
	o.checkCoverage(sc.Coverage, "", named)
	if sc.Coverage != nil {
		for _, s := range sc.Coverage.Scanners {
			if s.Status == finding.CoveragePartial {
				o.warnings = append(o.warnings, "partial: "+s.Describe())
			}
		}
	}
	if err := finish(stderr, o, report.Summary{}); err != nil {
		return err
	}
	var entries []baselineEntry
	for row, err := range eng.st.FindingRows(ctx, sc, store.FindingQuery{}) {
		if err != nil {
			return &exitError{exitNoScan, err.Error()}
		}
		f, err := row.Decode()
		if err != nil {
			return &exitError{exitNoScan, err.Error()}
		}
		entries = append(entries, baselineEntry{Fingerprint: f.Fingerprint, RuleID: f.RuleID, File: f.FilePath, Line: f.Line, Title: f.Title})
	}
	body, err := encodeBaseline(entries, createdAt)
	if err != nil {
		return &exitError{exitNoScan, err.Error()}
	}
	if *out == "-" {
		_, err := stdout.Write(body)
		return err
	}
	path := *out
	if path == "" {
		path = filepath.Join(abs, filepath.FromSlash(defaultBaseline))
	}
	if err := writeFileAtomic(path, body); err != nil {
		return &exitError{exitNoScan, "write the baseline: " + err.Error()}
	}
	fmt.Fprintf(stderr, "scand: baseline of %d findings written to %s\n", len(entries), path)
	return nil
}

// writeFileAtomic replaces path with body through a temporary file beside
// it, so a reader never sees half a baseline.
func writeFileAtomic(path string, body []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".baseline-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
