// Package repoconfig reads .scand.toml, a repository's own scand
// configuration, kept at the root of the scanned tree (or named with
// `scand scan --config`). The command line and the daemon both read it,
// so a scan started from CI and one started through the API agree.
//
//	scan_types = ["code", "dependency"]   # the CLI's default --type
//	fail_on = "high"                      # the CLI's default --fail-on
//
//	[ignore]
//	paths = ["testdata/**", "*.min.js", "!testdata/keep.go"]  # gitignore-style
//	rules = ["generic-api-key", "B101"]   # findings kept, marked suppressed
//
//	[severity]                            # per-rule severity overrides
//	G104 = "low"
//	"security/detect-object-injection" = "info"
//
//	[scanners]
//	disable = ["eslint"]
//
// Unknown keys and bad values are errors naming the file, the line and
// the key, never ignored: a typo in an ignore list must not silently
// widen or narrow a gate. The package is pure (Parse) apart from Load.
package repoconfig

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"scand/finding"
	"scand/scan/tree"
)

// FileName is the config file scand looks for at the root of a tree.
const FileName = ".scand.toml"

// MaxSize caps the file: it comes from the scanned tree.
const MaxSize = 256 << 10

// ScanTypes are the values scan_types accepts (scan.ScanTypes; a test in
// package scan keeps the two lists equal).
var ScanTypes = []string{"code", "dependency", "iac", "baseline", "dast", "network"}

// FailOnValues are the values fail_on accepts, most severe first.
var FailOnValues = []string{"critical", "high", "medium", "low", "info", "none"}

// Config is one parsed .scand.toml.
type Config struct {
	// File is the name errors and suppressions cite.
	File string
	// ScanTypes and FailOn are the command line's defaults; nil and ""
	// when not set.
	ScanTypes []string
	FailOn    string
	// IgnorePaths are the [ignore] paths patterns, as written.
	IgnorePaths []string
	paths       *Paths
	// IgnoreRules are rule ids whose findings are kept but suppressed.
	IgnoreRules []string
	// Severity maps a rule id to the severity its findings get.
	Severity map[string]finding.Severity
	// Disable names scanners that do not run.
	Disable []string
	// lines remembers where each key was set, for later checks.
	lines map[string]int
}

// Error is a problem in a config file, at a line and a key.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key != "" {
		return loc + ": " + e.Key + ": " + e.Msg
	}
	return loc + ": " + e.Msg
}

// Parse reads a config file's content; file names it in errors.
func Parse(file string, data []byte) (*Config, error) {
	entries, err := parseTOML(file, data)
	if err != nil {
		return nil, err
	}
	c := &Config{File: file, lines: map[string]int{}}
	bad := func(e entry, full, format string, args ...any) error {
		return &Error{File: file, Line: e.line, Key: full, Msg: fmt.Sprintf(format, args...)}
	}
	for _, e := range entries {
		full := e.key
		if e.table != "" {
			full = e.table + "." + e.key
		}
		c.lines[full] = e.line
		wantArray := func() ([]string, error) {
			if !e.value.isArray {
				return nil, bad(e, full, "must be an array of strings, e.g. [\"a\", \"b\"]")
			}
			return e.value.arr, nil
		}
		wantString := func() (string, error) {
			if e.value.isArray {
				return "", bad(e, full, "must be a string, not an array")
			}
			return e.value.str, nil
		}
		switch e.table {
		case "":
			switch e.key {
			case "scan_types":
				list, err := wantArray()
				if err != nil {
					return nil, err
				}
				if len(list) == 0 {
					return nil, bad(e, full, "must name at least one scan type (%s)", strings.Join(ScanTypes, ", "))
				}
				for _, t := range list {
					if !slices.Contains(ScanTypes, t) {
						return nil, bad(e, full, "unknown scan type %q (one of %s)", t, strings.Join(ScanTypes, ", "))
					}
					if !slices.Contains(c.ScanTypes, t) {
						c.ScanTypes = append(c.ScanTypes, t)
					}
				}
			case "fail_on":
				v, err := wantString()
				if err != nil {
					return nil, err
				}
				if !slices.Contains(FailOnValues, v) {
					return nil, bad(e, full, "must be one of %s, got %q", strings.Join(FailOnValues, ", "), v)
				}
				c.FailOn = v
			default:
				return nil, bad(e, full, "unknown key (the top level has scan_types and fail_on, and the tables [ignore], [severity], [scanners])")
			}
		case "ignore":
			list, err := wantArray()
			if err != nil {
				return nil, err
			}
			switch e.key {
			case "paths":
				ps, err := compilePaths(list)
				if err != nil {
					return nil, bad(e, full, "%v", err)
				}
				c.IgnorePaths, c.paths = list, ps
			case "rules":
				for _, r := range list {
					if strings.TrimSpace(r) == "" {
						return nil, bad(e, full, "an empty rule id matches nothing")
					}
				}
				c.IgnoreRules = list
			default:
				return nil, bad(e, full, "unknown key ([ignore] has paths and rules)")
			}
		case "severity":
			v, err := wantString()
			if err != nil {
				return nil, err
			}
			sev := finding.Severity(v)
			if !sev.Valid() {
				return nil, bad(e, full, "must be critical, high, medium, low or info, got %q", v)
			}
			if strings.TrimSpace(e.key) == "" {
				return nil, bad(e, full, "an empty rule id matches nothing")
			}
			if c.Severity == nil {
				c.Severity = map[string]finding.Severity{}
			}
			for k := range c.Severity {
				if strings.EqualFold(k, e.key) {
					return nil, bad(e, full, "rule %q is overridden twice (rule ids are compared without case)", e.key)
				}
			}
			c.Severity[e.key] = sev
		case "scanners":
			if e.key != "disable" {
				return nil, bad(e, full, "unknown key ([scanners] has disable)")
			}
			list, err := wantArray()
			if err != nil {
				return nil, err
			}
			c.Disable = list
		default:
			return nil, bad(e, full, "unknown table [%s] (tables are [ignore], [severity] and [scanners])", e.table)
		}
	}
	return c, nil
}

// ErrNotRegular is what Load says of a config that is a directory, a FIFO
// or a device: in a scanned tree it is an attacker's way to make scand
// hang or read what is not the tree's.
var ErrNotRegular = tree.ErrNotRegular

// Load reads and parses a config file without following a final symbolic
// link (tree.OpenFile); name is what errors cite (".scand.toml" for the
// file at a tree's root, the path given for --config).
func Load(path, name string) (*Config, error) {
	f, _, err := tree.OpenFile(path)
	switch {
	case errors.Is(err, tree.ErrSymlink):
		return nil, &Error{File: name, Msg: "is a symbolic link; scand reads only a regular file"}
	case errors.Is(err, tree.ErrNotRegular):
		return nil, &Error{File: name, Msg: ErrNotRegular.Error()}
	case err != nil:
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("larger than %d bytes", MaxSize)}
	}
	return Parse(name, data)
}

// LoadTree reads the config at a tree's root; nil (and no error) when the
// tree has none.
func LoadTree(root string) (*Config, error) {
	path := root + string(os.PathSeparator) + FileName
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return Load(path, FileName)
}

// CheckScanners reports a [scanners] disable entry that names no scanner.
func (c *Config) CheckScanners(known []string) error {
	if c == nil {
		return nil
	}
	for _, d := range c.Disable {
		if !slices.Contains(known, d) {
			return &Error{File: c.File, Line: c.lines["scanners.disable"], Key: "scanners.disable",
				Msg: fmt.Sprintf("unknown scanner %q (scanners: %s)", d, strings.Join(known, ", "))}
		}
	}
	return nil
}

// Disabled reports whether the config turns a scanner off.
func (c *Config) Disabled(name string) bool { return c != nil && slices.Contains(c.Disable, name) }

// Paths returns the [ignore] paths; nil when none are set.
func (c *Config) Paths() *Paths {
	if c == nil || c.paths.Empty() {
		return nil
	}
	return c.paths
}

// PathIgnored reports whether a finding's file_path lies under [ignore]
// paths. Paths that are not a tree's (a URL, an image layer's "<digest>:/…")
// are never ignored.
func (c *Config) PathIgnored(filePath string) bool {
	ps := c.Paths()
	if ps == nil || filePath == "" || strings.Contains(filePath, ":") {
		return false
	}
	return ps.Ignored(filePath, false)
}

// Apply applies [ignore] rules and [severity] to a prepared finding: an
// ignored rule marks the finding suppressed (metadata.suppressed_by
// "config: ...") unless it already is, and an override sets the severity,
// keeping the scanner's in metadata.original_severity. It reports whether
// it changed anything; f's metadata is replaced, never modified in place.
// A known vulnerability matches by any of its ids (metadata.aliases), so
// "CVE-2021-38561" also names the tools' findings keyed GO-2021-0113.
func (c *Config) Apply(f *finding.Finding) bool {
	if c == nil {
		return false
	}
	ids := []string{f.RuleID}
	if a, ok := finding.AdvisoryOf(*f); ok {
		ids = a.IDs
	}
	names := func(k string) bool {
		for _, id := range ids {
			if strings.EqualFold(k, id) {
				return true
			}
		}
		return false
	}
	changed := false
	md := f.Metadata
	own := func() {
		if !changed {
			cp := make(map[string]any, len(md)+1)
			for k, v := range md {
				cp[k] = v
			}
			md, changed = cp, true
		}
	}
	// The first id (rule_id, or the sorted aliases) with an override
	// decides, so two overrides of one vulnerability's ids never race.
	override, found := finding.Severity(""), false
	for _, id := range ids {
		for k, sev := range c.Severity {
			if strings.EqualFold(k, id) {
				override, found = sev, true
				break
			}
		}
		if found {
			break
		}
	}
	if found && override != f.Severity {
		own()
		if _, kept := md[finding.MetaOriginalSeverity]; !kept {
			md[finding.MetaOriginalSeverity] = string(f.Severity)
		}
		f.Severity = override
	}
	if !finding.IsSuppressed(*f) {
		for _, r := range c.IgnoreRules {
			if names(r) {
				own()
				md[finding.MetaSuppressedBy] = "config: " + c.File + " [ignore] rules " + r
				break
			}
		}
	}
	if changed {
		f.Metadata = md
	}
	return changed
}
