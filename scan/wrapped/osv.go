package wrapped

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"scand/finding"
	"scand/scan"
	"scand/scan/tree"
)

// osvRecord is the part of an OSV record the findings use; govulncheck's
// and osv-scanner's outputs both embed full records.
type osvRecord struct {
	ID       string   `json:"id"`
	Aliases  []string `json:"aliases"`
	Summary  string   `json:"summary"`
	Details  string   `json:"details"`
	Affected []struct {
		Package struct {
			Name      string `json:"name"`
			Ecosystem string `json:"ecosystem"`
		} `json:"package"`
		Ranges []struct {
			Events []map[string]string `json:"events"`
		} `json:"ranges"`
	} `json:"affected"`
	DatabaseSpecific struct {
		Severity string   `json:"severity"`
		CWEIDs   []string `json:"cwe_ids"`
	} `json:"database_specific"`
}

type osvReport struct {
	Results []struct {
		Source struct {
			Path string `json:"path"`
		} `json:"source"`
		Packages []struct {
			Package struct {
				Name      string `json:"name"`
				Version   string `json:"version"`
				Ecosystem string `json:"ecosystem"`
			} `json:"package"`
			Groups []struct {
				IDs         []string `json:"ids"`
				Aliases     []string `json:"aliases"`
				MaxSeverity string   `json:"max_severity"`
			} `json:"groups"`
			Vulnerabilities []osvRecord `json:"vulnerabilities"`
		} `json:"packages"`
	} `json:"results"`
}

// osvParse turns osv-scanner's JSON report into findings relative to root.
func osvParse(root string, out []byte, lines lineFinder) ([]finding.Finding, error) {
	var rep osvReport
	if err := decodeJSON("osv-scanner", out, &rep); err != nil {
		return nil, err
	}
	var fs []finding.Finding
	for _, r := range rep.Results {
		rel := relPath(root, root, r.Source.Path)
		for _, p := range r.Packages {
			recs := map[string]osvRecord{}
			for _, v := range p.Vulnerabilities {
				recs[v.ID] = v
			}
			line := 0
			if lines != nil {
				line = lines(rel, p.Package.Name, p.Package.Version)
			}
			for _, g := range p.Groups {
				if len(g.IDs) == 0 {
					continue
				}
				id := g.IDs[0]
				rec := recs[id]
				sev := osvSeverity(g.MaxSeverity, rec.DatabaseSpecific.Severity)
				fixed := osvFixedVersion(rec, p.Package.Name, p.Package.Version)
				var aliases []string
				for _, a := range g.Aliases {
					if a != id {
						aliases = append(aliases, a)
					}
				}
				var cwe finding.CWE
				if len(rec.DatabaseSpecific.CWEIDs) > 0 {
					cwe = cweOf(rec.DatabaseSpecific.CWEIDs[0])
				}
				title := rec.Summary
				if title == "" {
					title = fmt.Sprintf("vulnerability in %s", p.Package.Name)
				}
				fs = append(fs, finding.Finding{
					Scanner:     "osv-scanner",
					ScanType:    scan.TypeDependency,
					Severity:    sev,
					Title:       fmt.Sprintf("%s: %s %s: %s", id, p.Package.Name, p.Package.Version, title),
					Description: osvDescription(p.Package.Name, p.Package.Version, p.Package.Ecosystem, fixed, aliases, rec.Details),
					FilePath:    rel,
					Line:        line,
					RuleID:      id,
					CWE:         cwe,
					// The installed package, not the lockfile line, tells
					// one (package, version, advisory) from another: a
					// package installed at two versions may share a line.
					Snippet: p.Package.Name + "@" + p.Package.Version,
					Metadata: map[string]any{
						"package":       p.Package.Name,
						"version":       p.Package.Version,
						"ecosystem":     p.Package.Ecosystem,
						"fixed_version": fixed,
						"aliases":       aliases,
						"cwe_ids":       rec.DatabaseSpecific.CWEIDs,
						"cvss_score":    g.MaxSeverity,
					},
				})
			}
		}
	}
	return fs, nil
}

func osvDescription(name, version, eco, fixed string, aliases []string, details string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s) is affected.", name, version, eco)
	if fixed != "" {
		fmt.Fprintf(&b, " Fixed in %s.", fixed)
	} else {
		b.WriteString(" No fixed version is known.")
	}
	if len(aliases) > 0 {
		fmt.Fprintf(&b, " Also known as %s.", strings.Join(aliases, ", "))
	}
	if d := strings.TrimSpace(details); d != "" {
		b.WriteString("\n\n" + d)
	}
	return b.String()
}

// osvSeverity maps a CVSS base score, else a GHSA severity word.
func osvSeverity(score, word string) finding.Severity {
	if f, err := strconv.ParseFloat(strings.TrimSpace(score), 64); err == nil && f > 0 {
		switch {
		case f >= 9:
			return finding.Critical
		case f >= 7:
			return finding.High
		case f >= 4:
			return finding.Medium
		default:
			return finding.Low
		}
	}
	return severityOf(strings.TrimSpace(word), finding.Medium)
}

// osvFixedVersion is the lowest "fixed" event above the installed version
// among the record's ranges for this package (minimist has one fix per
// major line; 1.2.0 needs 1.2.6, not 0.2.4).
func osvFixedVersion(rec osvRecord, name, installed string) string {
	best := ""
	for _, a := range rec.Affected {
		if a.Package.Name != "" && a.Package.Name != name {
			continue
		}
		for _, r := range a.Ranges {
			for _, ev := range r.Events {
				fx := ev["fixed"]
				if fx == "" || !osvVersionLess(installed, fx) {
					continue
				}
				if best == "" || osvVersionLess(fx, best) {
					best = fx
				}
			}
		}
	}
	return best
}

// osvVersionLess compares dotted versions numerically where it can
// ("1.10.0" > "1.9.2"), textually otherwise; a leading "v" is ignored. It
// is for choosing among fixed versions, not for deciding what is affected:
// that is the tool's job.
func osvVersionLess(a, b string) bool {
	split := func(s string) []string {
		s = strings.TrimPrefix(strings.TrimSpace(s), "v")
		return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	}
	pa, pb := split(a), split(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil:
			if na != nb {
				return na < nb
			}
		case pa[i] != pb[i]:
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

// OSV wraps osv-scanner, which matches lockfiles and manifests against OSV
// records (scan type dependency).
//
// Run: `osv-scanner scan source --offline --local-db-path <db> --format
// json -L <lockfile>...` over the lockfiles of the target (osvEcosystemOf
// lists the names; dependency folders such as node_modules are not
// searched) whose ecosystem's database is present. --offline disables every
// network feature; the database is read from
// <db>/osv-scalibr/<ecosystem>/all.zip, <db> being SVC_OSV_DB or the
// imported copy under SVC_VULNDB_DIR. osv-scanner fails outright when one
// lockfile's database is missing, so a lockfile without its ecosystem's
// zip is not passed: it is reported as a skipped part ("osv-scanner
// (PyPI)", reason "database not configured", the files and the zip to
// copy in the hint) and the other lockfiles are still checked. Exit 0 =
// clean, 1 = vulnerabilities, 128 = no lockfile found (a clean result),
// 127 and anything else = error.
//
// One finding per (package, installed version, advisory) per lockfile: an
// advisory is a vulnerability group (osv-scanner groups records that are
// aliases of each other), a package installed at three versions gives three
// findings, each with the lowest fixed version above its own version and
// pointing at its own lockfile entry. The fingerprint's line context is
// "<package>@<version>", so two versions never collapse into one finding.
// Severity, first match:
//
//	the group's max_severity (a CVSS base score): ≥ 9 critical, ≥ 7 high, ≥ 4 medium, > 0 low
//	the record's database_specific.severity (GHSA): CRITICAL, HIGH, MODERATE → medium, LOW
//	otherwise medium: a known vulnerability without a score is not hidden as info
func OSV(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "osv-scanner", scanType: scan.TypeDependency,
		noFollow: true, // seen not to read symlinked lockfiles or descend into symlinked directories; osvArgs lists regular files only
		args:     osvArgs,
		sbom:     &sbomRun{args: osvSBOMArgs},
		reads:    func(rel string) bool { return osvEcosystemOf(path.Base(rel)) != "" },
		// Each lockfile is passed with -L, and --config replaces the
		// osv-scanner.toml it would otherwise read beside it.
		readsExactly: true,
		exits:        exits{report: []int{0, 1}, nothing: []int{128}},
		parse:        func(c *call, out []byte) ([]finding.Finding, error) { return osvParse(c.root, out, c.lines) },
		db: offlineDB{env: "SVC_OSV_DB", imported: "osv",
			unset:   "SVC_OSV_DB is not set: copy OSV databases (<ecosystem>/all.zip from the OSV bucket, e.g. npm/all.zip, Go/all.zip, PyPI/all.zip) to <dir>/osv-scalibr/ on this host and set SVC_OSV_DB=<dir>",
			needs:   []string{"osv-scalibr/*/all.zip"},
			missing: "holds no osv-scalibr/<ecosystem>/all.zip: copy the OSV database zips of the ecosystems you scan there"},
		version:     probeVersion(`osv-scanner version: v?(\S+)`, "--version"),
		installHint: "go install github.com/google/osv-scanner/v2/cmd/osv-scanner@v2.5.0 (from a module mirror or a copied module cache), or copy the osv-scanner binary onto PATH or SVC_OSV_SCANNER_PATH",
	})
}

// osvEcosystemOf is the OSV database folder (osv-scalibr/<ecosystem>/)
// that a lockfile osv-scanner reads needs; "" for other files.
func osvEcosystemOf(name string) string {
	switch name {
	case "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock":
		return "npm"
	case "go.mod":
		return "Go"
	case "poetry.lock", "Pipfile.lock", "pdm.lock", "uv.lock", "pylock.toml":
		return "PyPI"
	case "Cargo.lock":
		return "crates.io"
	case "Gemfile.lock", "gems.locked":
		return "RubyGems"
	case "composer.lock":
		return "Packagist"
	case "pom.xml", "gradle.lockfile", "buildscript-gradle.lockfile":
		return "Maven"
	case "packages.lock.json":
		return "NuGet"
	case "pubspec.lock":
		return "Pub"
	case "mix.lock":
		return "Hex"
	case "renv.lock":
		return "CRAN"
	}
	if strings.HasPrefix(name, "requirements") && strings.HasSuffix(name, ".txt") {
		return "PyPI"
	}
	return ""
}

// osvArgs passes osv-scanner the lockfiles whose ecosystem database is
// present and records the others as skipped parts.
func osvArgs(c *call) ([]string, error) {
	// --config: osv-scanner otherwise reads the osv-scanner.toml beside
	// each lockfile, whose [[IgnoredVulns]] would let the scanned tree hide
	// its own advisories; scand's triage and .scand.toml are where that is
	// decided, visibly.
	args := []string{"scan", "source", "--offline", "--local-db-path", c.db, "--format", "json", "--config", os.DevNull}
	missing := map[string][]string{}
	var eco []string
	_ = tree.Walk{Ignore: ignoreFunc(c.ignore)}.Files(c.runCtx(), c.root, func(abs, rel string) error {
		e := osvEcosystemOf(path.Base(rel))
		if e == "" {
			return nil
		}
		if strings.Contains(abs, ":") {
			// -L reads "<parser>:<path>"; such a path cannot be passed.
			c.cfg.Log().Warn("osv-scanner: lockfile path holds a colon and is not scanned", "file", rel)
			return nil
		}
		if _, err := os.Stat(filepath.Join(c.db, "osv-scalibr", e, "all.zip")); err != nil {
			if len(missing[e]) == 0 {
				eco = append(eco, e)
			}
			missing[e] = append(missing[e], rel)
			return nil
		}
		args = append(args, "-L", abs)
		return nil
	})
	slices.Sort(eco)
	for _, e := range eco {
		c.skipped = append(c.skipped, scan.SkippedPart{Part: e, Reason: scan.SkipDatabaseNotConfigured,
			Count: len(missing[e]), Paths: missing[e][:min(len(missing[e]), finding.CoverageMaxPaths)],
			Hint: fmt.Sprintf("%s not checked: the OSV database has no %s data; copy OSV's %s/all.zip to %s/osv-scalibr/%s/all.zip (SVC_OSV_DB) or import it with `scand vulndb import`",
				fileList(missing[e]), e, e, c.db, e)})
	}
	if !slices.Contains(args, "-L") {
		return nil, errNothingToScan
	}
	return args, nil
}
