package wrapped

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"scand/finding"
	"scand/scan"
)

// trivyScanner wraps Trivy's filesystem vulnerability scanner.
//
// Run: `trivy fs --scanners vuln --format json --quiet --cache-dir
// <SVC_TRIVY_CACHE> --skip-db-update --skip-java-db-update --offline-scan
// --skip-version-check --disable-telemetry <target>`: every flag that would
// reach the network is off, and the database is <cache>/db/trivy.db with
// its db/metadata.json, copied from a connected machine. Trivy exits 0
// with or without vulnerabilities (no --exit-code); anything else is an
// error.
//
// Severity: Trivy's (CRITICAL, HIGH, MEDIUM, LOW); UNKNOWN → medium, as for
// osv-scanner: a known vulnerability without a score is not hidden.
type trivyScanner struct{ cli *wrapCLI }

// Trivy returns the Trivy wrapper (scan type dependency).
func Trivy(cfg scan.Config) scan.Scanner {
	s := &trivyScanner{}
	s.cli = newWrapCLI(cfg, wrapCLISpec{
		name:        "trivy",
		program:     "trivy",
		pathEnv:     "SVC_TRIVY_PATH",
		versionArgs: []string{"--version"},
		versionRe:   regexp.MustCompile(`(?m)^Version: v?(\S+)`),
		installHint: "build trivy v0.74.0 from its module (go mod download github.com/aquasecurity/trivy@v0.74.0, then GOEXPERIMENT=jsonv2 go build ./cmd/trivy in a copy of its directory) or copy a trivy binary onto PATH or SVC_TRIVY_PATH",
		ready:       s.dbReady,
	})
	return s
}

func (s *trivyScanner) Name() string { return "trivy" }
func (s *trivyScanner) Type() string { return scan.TypeDependency }
func (s *trivyScanner) Available(ctx context.Context) (string, string, bool) {
	return s.cli.Available(ctx)
}

func (s *trivyScanner) cacheDir() string { return strings.TrimSpace(s.cli.cfg.Env("SVC_TRIVY_CACHE")) }

func (s *trivyScanner) dbReady() (string, bool) {
	dir := s.cacheDir()
	if dir == "" {
		return "SVC_TRIVY_CACHE is not set: copy a Trivy cache directory holding db/trivy.db and db/metadata.json (trivy --download-db-only on a connected machine) onto this host and set SVC_TRIVY_CACHE to it", false
	}
	if !filepath.IsAbs(dir) {
		return fmt.Sprintf("SVC_TRIVY_CACHE=%s must be an absolute path", dir), false
	}
	for _, f := range []string{"db/trivy.db", "db/metadata.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Sprintf("SVC_TRIVY_CACHE=%s has no %s: copy the whole db/ folder of a Trivy cache there", dir, f), false
		}
	}
	return "", true
}

func (s *trivyScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	if err := wrapValidatePath(t.Path); err != nil {
		return nil, err
	}
	if err := s.cli.notReady(ctx); err != nil {
		return nil, err
	}
	res, err := s.cli.run(ctx, t.Path, nil,
		"fs", "--scanners", "vuln", "--format", "json", "--quiet",
		"--cache-dir", s.cacheDir(), "--skip-db-update", "--skip-java-db-update",
		"--offline-scan", "--skip-version-check", "--disable-telemetry", t.Path)
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 {
		return nil, wrapCrash("trivy", res)
	}
	fs, err := trivyParse(t.Path, res.Stdout, wrapDeclLines(t.Path))
	if err != nil {
		return nil, err
	}
	return s.cli.finish(fs), nil
}

type trivyReport struct {
	Results []struct {
		Target          string `json:"Target"`
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
func trivyParse(root string, out []byte, lines wrapLineFinder) ([]finding.Finding, error) {
	out = wrapTrimJSON(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("trivy printed no report")
	}
	var rep trivyReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, fmt.Errorf("trivy report is not valid JSON: %w", err)
	}
	var fs []finding.Finding
	for _, r := range rep.Results {
		rel := wrapRelPath(root, root, r.Target)
		for _, v := range r.Vulnerabilities {
			if v.VulnerabilityID == "" {
				continue
			}
			aliases := trivyAliases(v.VulnerabilityID, v.VendorIDs, append([]string{v.PrimaryURL}, v.References...))
			var cwe finding.CWE
			if len(v.CweIDs) > 0 {
				cwe = wrapCWE(v.CweIDs[0])
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
				Severity:    trivySeverity(v.Severity),
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

func trivySeverity(s string) finding.Severity {
	switch strings.ToUpper(s) {
	case "CRITICAL":
		return finding.Critical
	case "HIGH":
		return finding.High
	case "LOW":
		return finding.Low
	}
	return finding.Medium
}
