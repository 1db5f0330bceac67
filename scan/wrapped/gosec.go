package wrapped

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"scand/finding"
	"scand/scan"
)

// gosecScanner wraps gosec, the Go static analyzer.
//
// Run: `gosec -fmt json ./...` in every module root under the target (a
// directory holding go.mod; vendor/, testdata/ and node_modules/ are not
// searched), because gosec loads packages with the go command, which only
// works inside a module. The go command runs with GOPROXY=off and
// GOTOOLCHAIN=local: a dependency missing from the module cache or vendor/
// becomes a "Golang errors" entry (logged) and the rest is still analyzed.
// Exit 0 = clean, 1 = findings or type errors; 1 with no report and "No
// packages found" on stderr is a module without Go files.
//
// Severity: gosec's severity as is (HIGH/MEDIUM/LOW); confidence goes to
// metadata. CWE: gosec's cwe.id.
type gosecScanner struct{ cli *wrapCLI }

// Gosec returns the gosec wrapper (scan type code).
func Gosec(cfg scan.Config) scan.Scanner {
	return &gosecScanner{cli: newWrapCLI(cfg, wrapCLISpec{
		name:        "gosec",
		program:     "gosec",
		pathEnv:     "SVC_GOSEC_PATH",
		versionArgs: []string{"-version"},
		versionRe:   regexp.MustCompile(`Version: v?(\S+)`),
		installHint: "go install github.com/securego/gosec/v2/cmd/gosec@v2.29.0 (from a module mirror or a copied module cache), or copy the gosec binary onto PATH or SVC_GOSEC_PATH; the go command must be on PATH",
	})}
}

func (s *gosecScanner) Name() string { return "gosec" }
func (s *gosecScanner) Type() string { return scan.TypeCode }
func (s *gosecScanner) Available(ctx context.Context) (string, string, bool) {
	return s.cli.Available(ctx)
}

func (s *gosecScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	if err := wrapValidatePath(t.Path); err != nil {
		return nil, err
	}
	if err := s.cli.notReady(ctx); err != nil {
		return nil, err
	}
	var all []finding.Finding
	for _, mod := range wrapFindFiles(t.Path, "go.mod") {
		dir := filepath.Dir(mod)
		res, err := s.cli.run(ctx, dir, wrapGoToolEnv(), "-fmt", "json", "./...")
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(res.Stdout)) == 0 && res.ExitCode == 1 && bytes.Contains(res.Stderr, []byte("No packages found")) {
			continue
		}
		if res.ExitCode != 0 && res.ExitCode != 1 {
			return nil, wrapCrash("gosec", res)
		}
		fs, typeErrs, err := gosecParse(t.Path, dir, res.Stdout)
		if err != nil {
			if res.ExitCode != 0 {
				return nil, wrapCrash("gosec", res)
			}
			return nil, err
		}
		if typeErrs > 0 && s.cli.cfg.Logger != nil {
			s.cli.cfg.Logger.Warn("gosec could not type-check some files; findings that need types may be missing",
				"module", wrapRelPath(t.Path, t.Path, dir), "files", typeErrs)
		}
		all = append(all, fs...)
	}
	return s.cli.finish(all), nil
}

type gosecReport struct {
	GolangErrors map[string]json.RawMessage `json:"Golang errors"`
	Issues       []struct {
		Severity   string `json:"severity"`
		Confidence string `json:"confidence"`
		CWE        struct {
			ID string `json:"id"`
		} `json:"cwe"`
		RuleID  string `json:"rule_id"`
		Details string `json:"details"`
		File    string `json:"file"`
		Line    string `json:"line"`
		Column  string `json:"column"`
		NoSec   bool   `json:"nosec"`
	} `json:"Issues"`
}

// gosecParse turns one gosec report into findings relative to root; dir is
// where gosec ran. It also returns how many files had type errors.
func gosecParse(root, dir string, out []byte) ([]finding.Finding, int, error) {
	out = wrapTrimJSON(out)
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("gosec printed no report")
	}
	var rep gosecReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, 0, fmt.Errorf("gosec report is not valid JSON: %w", err)
	}
	fs := make([]finding.Finding, 0, len(rep.Issues))
	for _, is := range rep.Issues {
		if is.RuleID == "" || is.NoSec {
			continue
		}
		fs = append(fs, finding.Finding{
			Scanner:     "gosec",
			ScanType:    scan.TypeCode,
			Severity:    gosecSeverity(is.Severity),
			Title:       fmt.Sprintf("%s: %s", is.RuleID, strings.TrimSpace(is.Details)),
			Description: strings.TrimSpace(is.Details),
			FilePath:    wrapRelPath(root, dir, is.File),
			Line:        gosecLine(is.Line),
			RuleID:      is.RuleID,
			CWE:         wrapCWE(is.CWE.ID),
			Metadata: map[string]any{
				"confidence": strings.ToLower(is.Confidence),
				"column":     is.Column,
			},
		})
	}
	return fs, len(rep.GolangErrors), nil
}

// gosecLine reads "28" or a range "28-30" as its first line.
func gosecLine(s string) int {
	if i := strings.IndexByte(s, '-'); i > 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func gosecSeverity(s string) finding.Severity {
	switch strings.ToUpper(s) {
	case "HIGH":
		return finding.High
	case "MEDIUM":
		return finding.Medium
	case "LOW":
		return finding.Low
	}
	return finding.Info
}
