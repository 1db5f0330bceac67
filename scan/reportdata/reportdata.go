// Package reportdata builds what the report writers (finding/report) read
// from a stored scan. The API and the command line both build their
// documents through it, so a daemon's SARIF and `scand scan --format sarif`
// come from the same code over the same kind of store.
package reportdata

import (
	"context"
	"fmt"
	"iter"
	"time"

	"scand/finding"
	"scand/finding/report"
	"scand/scan"
	"scand/scan/components"
	"scand/store"
)

// sarifProbeTimeout bounds the version lookups of one SARIF document.
const sarifProbeTimeout = 20 * time.Second

// ImportWithoutComponents is the warning on an imported scan that sent
// no components: its SBOM is empty because nothing was sent, not because
// the target has no dependencies.
const ImportWithoutComponents = "no SBOM: the import sent no components (scand scan of an earlier release, or another tool), so this scan's dependencies are not in the inventory and are not re-evaluated"

// ScanCoverage is a stored scan's coverage warnings: what its findings may
// miss besides stale advisory data (components whose versions are
// unknown, an import that sent none). Read from the components captured
// with the scan, so an old scan says what it said then.
func ScanCoverage(ctx context.Context, st *store.Store, sc store.Scan) ([]string, error) {
	raw, err := st.ScanComponents(ctx, sc.ID)
	if err != nil {
		return nil, err
	}
	if raw == nil && sc.Source == store.SourceImport {
		return []string{ImportWithoutComponents}, nil
	}
	comps, err := components.DecodeCapture(raw)
	if err != nil {
		return nil, fmt.Errorf("components of scan %s: %w", sc.ID, err)
	}
	if w := components.VersionsUnknownWarning(comps); w != "" {
		return []string{w}, nil
	}
	return nil, nil
}

// ReportScan describes a stored scan to the writers; coverage is its
// ScanCoverage.
func ReportScan(sc store.Scan, data []store.ScanDataSource, coverage []string, version string) report.Scan {
	out := report.Scan{ID: sc.ID, TargetPath: sc.TargetPath, ScanTypes: sc.ScanTypes, StartedAt: sc.StartedAt, CompletedAt: sc.CompletedAt,
		RiskScore: sc.RiskScore, ScannersRun: sc.ScannersRun, CoverageWarnings: coverage, Version: version, Coverage: sc.Coverage}
	if sc.TargetURL != nil {
		out.TargetURL = *sc.TargetURL
	}
	if sc.TargetHost != nil {
		out.TargetHost = *sc.TargetHost
	}
	for _, s := range sc.ScannersSkipped {
		out.Skipped = append(out.Skipped, report.Skipped(s))
	}
	if out.Skipped == nil {
		out.Skipped = []report.Skipped{}
	}
	if len(data) > 0 {
		out.DataSources = data
	}
	return out
}

// TriageOf is a stored verdict as the writers read it.
func TriageOf(st *store.TriageState) *report.Triage {
	if st == nil {
		return nil
	}
	return &report.Triage{Status: st.Status, Note: st.Note, UpdatedBy: st.UpdatedBy, UpdatedAt: st.UpdatedAt}
}

// storedRow is a store row as a report.Stored.
type storedRow struct{ row store.FindingRow }

func (s *storedRow) Raw(tags [][]byte) (finding.RawFinding, bool) { return s.row.Raw(tags) }

func (s *storedRow) Finding() (finding.Finding, error) {
	fw, err := s.row.DecodeMeta(report.MetadataKeys...)
	return fw.Finding, err
}

func (s *storedRow) AppendJSON(b []byte) ([]byte, error) { return s.row.AppendJSON(b) }

// Mark says where a finding stands in a diff or against a baseline; nil
// marks nothing.
type Mark func(fingerprint string) (diff string, baselined bool)

// ReportRows hands store rows to a writer. One storedRow is reused for
// every row: a writer never keeps a row past its turn.
func ReportRows(rows iter.Seq2[store.FindingRow, error], mark Mark) iter.Seq2[report.Row, error] {
	return reportRows(func(yield func(Aged, error) bool) {
		for row, err := range rows {
			if !yield(Aged{Row: row}, err) {
				return
			}
		}
	}, mark)
}

func reportRows(rows iter.Seq2[Aged, error], mark Mark) iter.Seq2[report.Row, error] {
	return func(yield func(report.Row, error) bool) {
		cur := &storedRow{}
		for aged, err := range rows {
			if err != nil {
				yield(report.Row{}, err)
				return
			}
			cur.row = aged.Row
			r := report.Row{Stored: cur, Triage: TriageOf(aged.Row.State), Seen: aged.Seen, Excerpt: aged.Excerpt}
			if mark != nil {
				r.Diff, r.Baselined = mark(aged.Row.Fingerprint)
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// SARIFTools lists a completed scan's SARIF runs: one per scanner that
// ran, in registry order, then any other scanner with findings (an older
// orchestrator's scan), each with its rules as stored at ingest, the
// advisory data it read and its version as recorded when the scan ran it
// (as the registry reports it now for a scan recorded before versions
// were). results gives each scanner's findings.
func SARIFTools(ctx context.Context, st *store.Store, sc store.Scan, scanners []scan.Scanner, data []store.ScanDataSource,
	results func(scanner string) iter.Seq2[report.Row, error]) ([]report.Tool, error) {
	rules, err := st.ScanRules(ctx, sc)
	if err != nil {
		return nil, err
	}
	blocks, err := st.ScanBlocks(ctx, sc)
	if err != nil {
		return nil, err
	}
	order := append([]string(nil), sc.ScannersRun...)
	seen := map[string]bool{}
	for _, n := range order {
		seen[n] = true
	}
	for _, b := range blocks {
		if !seen[b.Scanner] {
			seen[b.Scanner] = true
			order = append(order, b.Scanner)
		}
	}
	return Tools(ctx, order, scanners, data, sc.Coverage, func(name string) []report.Rule {
		var out []report.Rule
		for _, r := range rules {
			if r.Scanner == name {
				out = append(out, report.Rule{RuleID: r.RuleID, First: r.First, Worst: r.Worst, CWEs: r.CWEs, Tags: r.Tags})
			}
		}
		return out
	}, results), nil
}

// Tools builds the SARIF runs of the named scanners: each version is the
// one coverage recorded when the scan ran the tool; a tool without one (a
// scan recorded before versions were) is probed now, concurrently (each
// probe is a subprocess). The rest comes from rules and results.
func Tools(ctx context.Context, names []string, scanners []scan.Scanner, data []store.ScanDataSource, coverage *finding.ScanCoverage,
	rules func(scanner string) []report.Rule, results func(scanner string) iter.Seq2[report.Row, error]) []report.Tool {
	probeCtx, cancel := context.WithTimeout(ctx, sarifProbeTimeout)
	defer cancel()
	byName := map[string]scan.Scanner{}
	for _, s := range scanners {
		byName[s.Name()] = s
	}
	versions := map[string]string{}
	if coverage != nil {
		for _, c := range coverage.Scanners {
			if c.Version != "" {
				versions[c.Scanner] = c.Version
			}
		}
	}
	var probe []scan.Scanner
	for _, n := range names {
		if s := byName[n]; s != nil && versions[n] == "" {
			probe = append(probe, s)
		}
	}
	for i, a := range scan.ProbeAll(probeCtx, nil, probe) {
		versions[probe[i].Name()] = a.Version
	}
	tools := make([]report.Tool, len(names))
	for i, name := range names {
		var ds []report.ScanDataSource
		for _, d := range data {
			if d.Tool == name {
				ds = append(ds, d)
			}
		}
		tools[i] = report.Tool{Name: name, Version: versions[name], InformationURI: InformationURI(byName[name], name),
			Rules: rules(name), DataSources: ds, Results: results(name)}
	}
	return tools
}

// InformationURI is a wrapped tool's home page. A scanner may declare its
// own by implementing InformationURI() string; built-ins have none, which
// SARIF allows.
func InformationURI(sc scan.Scanner, name string) string {
	if d, ok := sc.(interface{ InformationURI() string }); ok {
		return d.InformationURI()
	}
	switch name {
	case "bandit":
		return "https://bandit.readthedocs.io/"
	case "semgrep":
		return "https://semgrep.dev/"
	case "gosec":
		return "https://github.com/securego/gosec"
	case "trivy":
		return "https://trivy.dev/"
	case "grype":
		return "https://github.com/anchore/grype"
	case "osv-scanner":
		return "https://google.github.io/osv-scanner/"
	case "pip-audit":
		return "https://github.com/pypa/pip-audit"
	case "npm-audit":
		return "https://docs.npmjs.com/cli/commands/npm-audit"
	case "govulncheck":
		return "https://go.dev/security/vuln/"
	case "checkov":
		return "https://www.checkov.io/"
	case "hadolint":
		return "https://github.com/hadolint/hadolint"
	case "tfsec":
		return "https://github.com/aquasecurity/tfsec"
	case "kics":
		return "https://kics.io/"
	case "zap":
		return "https://www.zaproxy.org/"
	case "nmap":
		return "https://nmap.org/"
	case "gitleaks":
		return "https://github.com/gitleaks/gitleaks"
	}
	return ""
}
