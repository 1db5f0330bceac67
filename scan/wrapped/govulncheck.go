package wrapped

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"scand/finding"
	"scand/scan"
)

type govulncheckFrame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
	Receiver string `json:"receiver"`
	Position *struct {
		Filename string `json:"filename"`
		Line     int    `json:"line"`
	} `json:"position"`
}

type govulncheckMessage struct {
	OSV *struct {
		ID               string   `json:"id"`
		Aliases          []string `json:"aliases"`
		Summary          string   `json:"summary"`
		Details          string   `json:"details"`
		DatabaseSpecific struct {
			URL string `json:"url"`
		} `json:"database_specific"`
	} `json:"osv"`
	Finding *struct {
		OSV          string             `json:"osv"`
		FixedVersion string             `json:"fixed_version"`
		Trace        []govulncheckFrame `json:"trace"`
	} `json:"finding"`
}

// govulncheck reachability levels, weakest first.
const (
	govulncheckRequired = iota
	govulncheckImported
	govulncheckCalled
)

var govulncheckLevelName = []string{"required", "imported", "called"}

// govulncheckMaxPaths bounds the call paths kept per finding: the first few
// tell a reviewer where to look; hundreds only bloat the report.
const govulncheckMaxPaths = 5

type govulncheckAgg struct {
	id, module, version, fixed string
	level                      int
	paths                      []string
}

// govulncheckParse turns one module's JSON stream into findings pointing
// at that module's go.mod (modRel, relative to the target).
func govulncheckParse(modRel string, out []byte, lines lineFinder) ([]finding.Finding, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	type osvInfo struct {
		aliases          []string
		summary, details string
		url              string
	}
	osvs := map[string]osvInfo{}
	aggs := map[string]*govulncheckAgg{}
	var order []string
	seenConfig := false
	for {
		var m govulncheckMessage
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("govulncheck output is not a valid JSON stream: %w", err)
		}
		seenConfig = true
		if m.OSV != nil && m.OSV.ID != "" {
			osvs[m.OSV.ID] = osvInfo{m.OSV.Aliases, m.OSV.Summary, m.OSV.Details, m.OSV.DatabaseSpecific.URL}
		}
		f := m.Finding
		if f == nil || f.OSV == "" || len(f.Trace) == 0 {
			continue
		}
		top := f.Trace[0]
		level := govulncheckRequired
		if top.Function != "" {
			level = govulncheckCalled
		} else if top.Package != "" {
			level = govulncheckImported
		}
		key := f.OSV + "\x00" + top.Module
		a := aggs[key]
		if a == nil {
			a = &govulncheckAgg{id: f.OSV, module: top.Module, version: top.Version, fixed: f.FixedVersion, level: level}
			aggs[key] = a
			order = append(order, key)
		}
		if level > a.level {
			a.level = level
		}
		if level == govulncheckCalled && len(a.paths) < govulncheckMaxPaths {
			a.paths = append(a.paths, govulncheckPath(f.Trace))
		}
	}
	if !seenConfig {
		return nil, fmt.Errorf("govulncheck printed no output")
	}
	sort.Strings(order)
	fs := make([]finding.Finding, 0, len(order))
	for _, key := range order {
		a := aggs[key]
		info := osvs[a.id]
		title := info.summary
		if title == "" {
			title = fmt.Sprintf("vulnerability in %s", a.module)
		}
		var desc strings.Builder
		fmt.Fprintf(&desc, "%s %s is vulnerable (%s).", a.module, a.version, a.id)
		if a.fixed != "" {
			fmt.Fprintf(&desc, " Fixed in %s.", a.fixed)
		} else {
			desc.WriteString(" No fixed version is known.")
		}
		switch a.level {
		case govulncheckCalled:
			desc.WriteString(" govulncheck proved a call path from this module's code to the vulnerable function:")
			for _, p := range a.paths {
				desc.WriteString("\n  " + p)
			}
		case govulncheckImported:
			desc.WriteString(" A vulnerable package is imported, but govulncheck found no call to the vulnerable functions.")
		default:
			desc.WriteString(" The module is required, but no vulnerable package is imported.")
		}
		if info.details != "" {
			desc.WriteString("\n\n" + info.details)
		}
		sev := finding.Info
		switch a.level {
		case govulncheckCalled:
			sev = finding.High
		case govulncheckImported:
			sev = finding.Low
		}
		line := 0
		if lines != nil {
			line = lines(modRel, a.module, a.version)
		}
		meta := map[string]any{
			"package":       a.module,
			"version":       a.version,
			"ecosystem":     "Go",
			"fixed_version": a.fixed,
			"aliases":       info.aliases,
			"reachability":  govulncheckLevelName[a.level],
		}
		if len(a.paths) > 0 {
			meta["call_paths"] = a.paths
		}
		if info.url != "" {
			meta["url"] = info.url
		}
		fs = append(fs, finding.Finding{
			Scanner:     "govulncheck",
			ScanType:    scan.TypeDependency,
			Severity:    sev,
			Title:       fmt.Sprintf("%s: %s", a.id, title),
			Description: desc.String(),
			FilePath:    modRel,
			Line:        line,
			RuleID:      a.id,
			Metadata:    meta,
		})
	}
	return fs, nil
}

// govulncheckPath renders a trace (vulnerable symbol first) from the
// module's entry point to the vulnerable symbol.
func govulncheckPath(trace []govulncheckFrame) string {
	parts := make([]string, 0, len(trace))
	for i := len(trace) - 1; i >= 0; i-- {
		fr := trace[i]
		name := fr.Function
		if fr.Receiver != "" {
			name = fr.Receiver + "." + name
		}
		if fr.Package != "" {
			name = fr.Package + "." + name
		}
		if fr.Position != nil && fr.Position.Filename != "" && i > 0 {
			name = fmt.Sprintf("%s (%s:%d)", name, fr.Position.Filename, fr.Position.Line)
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, " → ")
}

// Govulncheck wraps govulncheck, the Go vulnerability checker that proves
// whether vulnerable code is actually reached (scan type dependency).
//
// Run: `govulncheck -db file://<SVC_GOVULN_DB> -format json ./...` in every
// module root under the target, with GOPROXY=off and GOTOOLCHAIN=local: it
// loads packages with the go command, so the module's dependencies must be
// in vendor/ or the local module cache (a missing one fails the scan with
// "module lookup disabled by GOPROXY=off", never a download). In JSON mode it
// exits 0 whether or not it finds anything; anything else is a crash.
//
// One finding per vulnerability per module, at the strongest level proven:
//
//	called   (a call path from the module's code reaches the vulnerable symbol) → high
//	imported (a vulnerable package is imported, no call path)                   → low
//	required (only the module is required)                                      → info
//
// The Go database has no severity; reachability is what govulncheck knows,
// and a proven call path is what makes a vulnerability urgent.
func Govulncheck(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "govulncheck", scanType: scan.TypeDependency,
		eachDirOf: "go.mod",
		env:       goToolEnv(),
		args: func(c *call) ([]string, error) {
			return []string{"-db", "file://" + c.db, "-format", "json", "./..."}, nil
		},
		exits: exits{report: []int{0}},
		parse: func(c *call, out []byte) ([]finding.Finding, error) {
			return govulncheckParse(c.rel(c.file), out, c.lines)
		},
		db: offlineDB{env: "SVC_GOVULN_DB", fileURL: true, imported: "govulndb",
			unset:   "SVC_GOVULN_DB is not set: copy a Go vulnerability database (the index/ and ID/ folders served by vuln.go.dev) onto this host and set SVC_GOVULN_DB to its absolute path",
			needs:   []string{"index/db.json", "index/modules.json"},
			missing: "has no %s: copy the whole Go vulnerability database (index/ and ID/) there"},
		version:     probeVersion(`Scanner: govulncheck@v?(\S+)`, "-version"),
		installHint: "go install golang.org/x/vuln/cmd/govulncheck@v1.8.0 (from a module mirror or a copied module cache), or copy the govulncheck binary onto PATH or SVC_GOVULNCHECK_PATH; the go command must be on PATH",
	})
}
