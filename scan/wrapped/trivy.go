package wrapped

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"scand/finding"
	"scand/scan"
)

type trivyReport struct {
	Results []struct {
		Target          string `json:"Target"`
		Class           string `json:"Class"`
		Type            string `json:"Type"`
		Vulnerabilities []struct {
			VulnerabilityID  string   `json:"VulnerabilityID"`
			VendorIDs        []string `json:"VendorIDs"`
			PkgName          string   `json:"PkgName"`
			InstalledVersion string   `json:"InstalledVersion"`
			FixedVersion     string   `json:"FixedVersion"`
			Status           string   `json:"Status"`
			Severity         string   `json:"Severity"`
			SeveritySource   string   `json:"SeveritySource"`
			Title            string   `json:"Title"`
			Description      string   `json:"Description"`
			CweIDs           []string `json:"CweIDs"`
			PrimaryURL       string   `json:"PrimaryURL"`
			References       []string `json:"References"`
			DataSource       *struct {
				Name string `json:"Name"`
			} `json:"DataSource"`
		} `json:"Vulnerabilities"`
	} `json:"Results"`
}

var trivyAliasRe = regexp.MustCompile(`\b(GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}|CVE-\d{4}-\d{4,}|GO-\d{4}-\d{4,})\b`)

// trivyParse turns Trivy's JSON report into findings relative to root.
// For an image (image true), an OS package's finding points at the
// distribution's package database and a language package's at its file,
// both paths inside the image (the orchestrator adds the layer).
func trivyParse(root string, out []byte, lines lineFinder, image bool) ([]finding.Finding, error) {
	var rep trivyReport
	if err := decodeJSON("trivy", out, &rep); err != nil {
		return nil, err
	}
	var fs []finding.Finding
	for _, r := range rep.Results {
		rel := relPath(root, root, r.Target)
		if image {
			rel = trivyImagePath(r.Class, r.Type, r.Target)
		}
		for _, v := range r.Vulnerabilities {
			if v.VulnerabilityID == "" {
				continue
			}
			aliases := trivyAliases(v.VulnerabilityID, v.VendorIDs, append([]string{v.PrimaryURL}, v.References...))
			var cwe finding.CWE
			if len(v.CweIDs) > 0 {
				cwe = cweOf(v.CweIDs[0])
			}
			title := v.Title
			if title == "" {
				title = fmt.Sprintf("vulnerability in %s", v.PkgName)
			}
			line := 0
			if lines != nil {
				line = lines(rel, v.PkgName, v.InstalledVersion)
			}
			fixed := trivyFixedVersion(v.InstalledVersion, v.FixedVersion)
			meta := map[string]any{
				"package":        v.PkgName,
				"version":        v.InstalledVersion,
				"ecosystem":      r.Type,
				"fixed_version":  fixed,
				"fixed_versions": v.FixedVersion,
				"aliases":        aliases,
				"cwe_ids":        v.CweIDs,
				"status":         v.Status,
			}
			if v.PrimaryURL != "" {
				meta["url"] = v.PrimaryURL
			}
			if v.DataSource != nil && v.DataSource.Name != "" {
				meta["data_source"] = v.DataSource.Name
			}
			fs = append(fs, finding.Finding{
				Scanner:     "trivy",
				ScanType:    scan.TypeDependency,
				Severity:    severityOf(v.Severity, finding.Medium),
				Title:       fmt.Sprintf("%s: %s", v.VulnerabilityID, title),
				Description: osvDescription(v.PkgName, v.InstalledVersion, r.Type, fixed, aliases, v.Description),
				FilePath:    rel,
				Line:        line,
				RuleID:      v.VulnerabilityID,
				CWE:         cwe,
				Metadata:    meta,
			})
		}
	}
	return fs, nil
}

// trivyImagePath is where, inside an image, a Trivy result's packages are
// recorded.
func trivyImagePath(class, typ, target string) string {
	if class == "os-pkgs" {
		switch typ {
		case "debian", "ubuntu":
			return "var/lib/dpkg/status"
		case "alpine", "wolfi", "chainguard":
			return "lib/apk/db/installed"
		default:
			return "var/lib/rpm/rpmdb.sqlite"
		}
	}
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean("/"+target)), "/")
}

// trivyFixedVersion picks, from Trivy's list of fixed versions ("0.2.4,
// 1.2.6": one per release line), the lowest above the installed version.
func trivyFixedVersion(installed, fixed string) string {
	best := ""
	for _, f := range strings.Split(fixed, ",") {
		f = strings.TrimSpace(f)
		if f == "" || !osvVersionLess(installed, f) {
			continue
		}
		if best == "" || osvVersionLess(f, best) {
			best = f
		}
	}
	if best == "" {
		return strings.TrimSpace(fixed)
	}
	return best
}

// trivyAliases gathers the other ids of a vulnerability: Trivy keys GHSA
// advisories by CVE and names the GHSA only in its URLs.
func trivyAliases(id string, vendor, urls []string) []string {
	seen := map[string]bool{id: true}
	var out []string
	add := func(a string) {
		if a != "" && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, v := range vendor {
		add(v)
	}
	for _, u := range urls {
		for _, m := range trivyAliasRe.FindAllString(u, -1) {
			add(m)
		}
	}
	sort.Strings(out)
	return out
}

// Trivy wraps Trivy's filesystem vulnerability scanner (scan type
// dependency).
//
// Run: `trivy fs --scanners vuln --format json --quiet --cache-dir
// <SVC_TRIVY_CACHE> --skip-db-update --skip-java-db-update --offline-scan
// --skip-version-check --disable-telemetry <target>`: every flag that would
// reach the network is off, and the database is <cache>/db/trivy.db with
// its db/metadata.json, copied from a connected machine. Trivy exits 0
// with or without vulnerabilities (no --exit-code); anything else is an
// error.
//
// An image target runs `trivy image --input <archive or layout>` with the
// same flags plus --cache-backend memory, so nothing about the image is
// written into the (possibly read-only) database folder: Trivy reads the
// OS and language packages of every layer itself.
//
// Severity: Trivy's (CRITICAL, HIGH, MEDIUM, LOW); UNKNOWN → medium, as for
// osv-scanner: a known vulnerability without a score is not hidden.
func Trivy(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "trivy", scanType: scan.TypeDependency,
		noFollow: true, // seen not to read symlinked lockfiles or descend into symlinked directories
		target: func(ctx context.Context, c *call, t scan.Target) error {
			c.image = t.Image
			return pathTarget(ctx, c, t)
		},
		readsImage: true,
		reads:      trivyReads,
		args: func(c *call) ([]string, error) {
			offline := []string{"--scanners", "vuln", "--format", "json", "--quiet",
				"--cache-dir", c.db, "--skip-db-update", "--skip-java-db-update",
				"--offline-scan", "--skip-version-check", "--disable-telemetry",
				// Trivy reads trivy.yaml and .trivyignore from its working
				// directory, the scanned tree: a tree must not turn its own
				// vulnerabilities off (skip-files, severity, ignored ids).
				"--config", os.DevNull, "--ignorefile", os.DevNull}
			if c.image != "" {
				return append(append([]string{"image"}, offline...), "--cache-backend", "memory", "--input", c.image), nil
			}
			return append(append(append([]string{"fs"}, offline...), trivySkipArgs(c.excludePatterns(false))...), c.root), nil
		},
		sbom:  &sbomRun{args: trivySBOMArgs, each: true},
		exits: exits{report: []int{0}},
		parse: func(c *call, out []byte) ([]finding.Finding, error) {
			return trivyParse(c.root, out, c.lines, c.image != "")
		},
		db: offlineDB{env: "SVC_TRIVY_CACHE", imported: "trivy",
			unset:   "SVC_TRIVY_CACHE is not set: copy a Trivy cache directory holding db/trivy.db and db/metadata.json (trivy --download-db-only on a connected machine) onto this host and set SVC_TRIVY_CACHE to it",
			needs:   []string{"db/trivy.db", "db/metadata.json"},
			missing: "has no %s: copy the whole db/ folder of a Trivy cache there"},
		version:     probeVersion(`(?m)^Version: v?(\S+)`, "--version"),
		installHint: "build trivy v0.74.0 from its module (go mod download github.com/aquasecurity/trivy@v0.74.0, then GOEXPERIMENT=jsonv2 go build ./cmd/trivy in a copy of its directory) or copy a trivy binary onto PATH or SVC_TRIVY_PATH",
	})
}

// trivyReads tells the files trivy fs reads: every ecosystem's lockfiles
// and manifests (osv-scanner's and more), Java archives, and the package
// databases of an operating system's root.
func trivyReads(rel string) bool {
	name := filepath.Base(rel)
	if osvEcosystemOf(name) != "" || strings.HasPrefix(name, "requirements") && strings.HasSuffix(name, ".txt") {
		return true
	}
	switch name {
	case "package.json", "go.sum", "Pipfile", "pyproject.toml", "setup.py", "Gemfile", "build.gradle", "build.gradle.kts",
		"Podfile.lock", "Package.resolved", "conan.lock", "packages.config", "status", "installed", "Packages", "Packages.db", "rpmdb.sqlite":
		return true
	}
	switch filepath.Ext(name) {
	case ".jar", ".war", ".ear", ".par", ".gemspec", ".csproj", ".nuspec":
		return true
	}
	return strings.HasSuffix(name, ".deps.json")
}

// trivySkipArgs turns [ignore] paths into --skip-dirs and --skip-files
// globs relative to the target: a pattern without a slash matches at any
// depth ("**/"), a trailing slash means directories only.
func trivySkipArgs(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		dirOnly := strings.HasSuffix(p, "/")
		p = strings.TrimRight(p, "/")
		anchored := strings.Contains(p, "/")
		p = strings.TrimPrefix(p, "/")
		if !anchored && !strings.HasPrefix(p, "**/") {
			p = "**/" + p
		}
		out = append(out, "--skip-dirs", p)
		if !dirOnly {
			out = append(out, "--skip-files", p)
		}
	}
	return out
}
