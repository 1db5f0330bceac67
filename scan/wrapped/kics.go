package wrapped

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"scand/finding"
	"scand/scan"
)

// kicsScanner wraps KICS, the infrastructure-as-code analyzer (Terraform,
// Kubernetes, Dockerfile, CloudFormation, Ansible, ...).
//
// Run: `kics scan -p <target> -q <queries> --libraries-path <libraries>
// --report-formats json -o <tempdir> --output-name results --no-progress
// --disable-secrets --ignore-on-exit results --no-color --silent`, run in
// the target. The query library is SVC_KICS_QUERIES (its sibling
// libraries/ folder is used too), else the assets/queries folder beside the
// kics binary. Secrets detection is off: the built-in secrets scanner owns
// it, and KICS would put the secret's value into actual_value. With
// --ignore-on-exit results, findings exit 0; KICS's own codes for results
// (20 info … 60 critical) are accepted too in case an operator's config
// overrides it; anything else (126 = bad arguments or assets) is a crash.
//
// A kics built with `go install` never calls home; a release binary checks
// GitHub for a newer version once per run (20 s timeout, then it carries on).
//
// Severity: KICS's as is (CRITICAL, HIGH, MEDIUM, LOW; INFO and TRACE →
// info). CWE: the query's cwe. rule_id: the query id (a UUID, stable across
// KICS releases; the title carries the query name).
type kicsScanner struct{ cli *wrapCLI }

// Kics returns the KICS wrapper (scan type iac).
func Kics(cfg scan.Config) scan.Scanner {
	s := &kicsScanner{}
	s.cli = newWrapCLI(cfg, wrapCLISpec{
		name:        "kics",
		program:     "kics",
		pathEnv:     "SVC_KICS_PATH",
		versionArgs: []string{"version"},
		versionRe:   regexp.MustCompile(`(?:Keeping Infrastructure as Code Secure|KICS|kics)\s+v?(\d+\.\d+\.\d+\S*|development)`),
		installHint: "go install github.com/Checkmarx/kics/v2/cmd/console@v2.2.0 and rename it to kics, then copy the module's assets/ folder beside it or to SVC_KICS_QUERIES (…/assets/queries); or set SVC_KICS_PATH",
		ready:       s.queriesReady,
	})
	return s
}

func (s *kicsScanner) Name() string { return "kics" }
func (s *kicsScanner) Type() string { return scan.TypeIaC }
func (s *kicsScanner) Available(ctx context.Context) (string, string, bool) {
	return s.cli.Available(ctx)
}

// queriesDir is SVC_KICS_QUERIES, else assets/queries beside the binary.
func (s *kicsScanner) queriesDir() string {
	if q := strings.TrimSpace(s.cli.cfg.Env("SVC_KICS_QUERIES")); q != "" {
		return q
	}
	prog := s.cli.program()
	if !strings.Contains(prog, "/") {
		look := s.cli.runner().LookPath
		if look == nil {
			look = exec.LookPath
		}
		p, err := look(prog)
		if err != nil {
			return ""
		}
		prog = p
	}
	if real, err := filepath.EvalSymlinks(prog); err == nil {
		prog = real
	}
	return filepath.Join(filepath.Dir(prog), "assets", "queries")
}

func (s *kicsScanner) queriesReady() (string, bool) {
	q := s.queriesDir()
	if q == "" {
		return "set SVC_KICS_QUERIES to the assets/queries folder of the KICS release you installed", false
	}
	if !filepath.IsAbs(q) {
		return fmt.Sprintf("SVC_KICS_QUERIES=%s must be an absolute path", q), false
	}
	for _, d := range []string{q, kicsLibraries(q)} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Sprintf("KICS query library %s is missing: copy the assets/ folder of the KICS module (queries/ and libraries/) there, or set SVC_KICS_QUERIES", d), false
		}
	}
	return "", true
}

func kicsLibraries(queries string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(queries)), "libraries")
}

func (s *kicsScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	if err := wrapValidatePath(t.Path); err != nil {
		return nil, err
	}
	if err := s.cli.notReady(ctx); err != nil {
		return nil, err
	}
	outDir, err := os.MkdirTemp("", "scand-kics-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(outDir)
	q := s.queriesDir()
	res, err := s.cli.run(ctx, t.Path, nil,
		"scan", "-p", t.Path, "-q", q, "--libraries-path", kicsLibraries(q),
		"--report-formats", "json", "-o", outDir, "--output-name", "results",
		"--no-progress", "--disable-secrets", "--ignore-on-exit", "results", "--no-color", "--silent")
	if err != nil {
		return nil, err
	}
	switch res.ExitCode {
	case 0, 20, 30, 40, 50, 60:
	default:
		return nil, wrapCrash("kics", res)
	}
	report, err := kicsReadReport(filepath.Join(outDir, "results.json"))
	if err != nil {
		return nil, err
	}
	fs, err := kicsParse(t.Path, report)
	if err != nil {
		return nil, err
	}
	return s.cli.finish(fs), nil
}

func kicsReadReport(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("kics wrote no report: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, wrapMaxFileRead+1))
	if err != nil {
		return nil, err
	}
	if len(b) > wrapMaxFileRead {
		return nil, fmt.Errorf("kics report is larger than %d bytes; scan a smaller target", wrapMaxFileRead)
	}
	return b, nil
}

type kicsReport struct {
	Queries []struct {
		QueryName   string `json:"query_name"`
		QueryID     string `json:"query_id"`
		QueryURL    string `json:"query_url"`
		Severity    string `json:"severity"`
		Platform    string `json:"platform"`
		CWE         string `json:"cwe"`
		Category    string `json:"category"`
		Description string `json:"description"`
		Files       []struct {
			FileName      string `json:"file_name"`
			Line          int    `json:"line"`
			ResourceType  string `json:"resource_type"`
			ResourceName  string `json:"resource_name"`
			IssueType     string `json:"issue_type"`
			SearchKey     string `json:"search_key"`
			ExpectedValue string `json:"expected_value"`
			ActualValue   string `json:"actual_value"`
		} `json:"files"`
	} `json:"queries"`
}

// kicsParse turns a KICS JSON report into findings relative to root.
func kicsParse(root string, out []byte) ([]finding.Finding, error) {
	out = wrapTrimJSON(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("kics report is empty")
	}
	var rep kicsReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, fmt.Errorf("kics report is not valid JSON: %w", err)
	}
	var fs []finding.Finding
	for _, q := range rep.Queries {
		if q.QueryID == "" {
			continue
		}
		for _, f := range q.Files {
			desc := strings.TrimSpace(q.Description)
			if f.ExpectedValue != "" || f.ActualValue != "" {
				desc += fmt.Sprintf("\nExpected: %s\nActual: %s", f.ExpectedValue, f.ActualValue)
			}
			line := f.Line
			if line < 0 {
				line = 0
			}
			meta := map[string]any{
				"query_name": q.QueryName,
				"platform":   q.Platform,
				"category":   q.Category,
				"query_url":  q.QueryURL,
				"issue_type": f.IssueType,
				"search_key": f.SearchKey,
			}
			if f.ResourceType != "" {
				meta["resource_type"] = f.ResourceType
				meta["resource_name"] = f.ResourceName
			}
			fs = append(fs, finding.Finding{
				Scanner:     "kics",
				ScanType:    scan.TypeIaC,
				Severity:    kicsSeverity(q.Severity),
				Title:       q.QueryName,
				Description: desc,
				FilePath:    wrapRelPath(root, root, f.FileName),
				Line:        line,
				RuleID:      q.QueryID,
				CWE:         wrapCWE(q.CWE),
				Metadata:    meta,
			})
		}
	}
	return fs, nil
}

func kicsSeverity(s string) finding.Severity {
	switch strings.ToUpper(s) {
	case "CRITICAL":
		return finding.Critical
	case "HIGH":
		return finding.High
	case "MEDIUM":
		return finding.Medium
	case "LOW":
		return finding.Low
	}
	return finding.Info
}
