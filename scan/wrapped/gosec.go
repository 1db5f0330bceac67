package wrapped

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
)

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
		// Suppressions is set with -track-suppressions: a #nosec on the
		// line, with the text after "--" as its justification.
		Suppressions []struct {
			Kind          string `json:"kind"`
			Justification string `json:"justification"`
		} `json:"suppressions"`
	} `json:"Issues"`
}

// gosecParse turns one gosec report into findings relative to root; dir is
// where gosec ran. It also returns the files (relative to root, sorted)
// that had type errors.
func gosecParse(root, dir string, out []byte) ([]finding.Finding, []string, error) {
	var rep gosecReport
	if err := decodeJSON("gosec", out, &rep); err != nil {
		return nil, nil, err
	}
	fs := make([]finding.Finding, 0, len(rep.Issues))
	for _, is := range rep.Issues {
		if is.RuleID == "" {
			continue
		}
		md := map[string]any{
			"confidence": strings.ToLower(is.Confidence),
			"column":     is.Column,
		}
		switch {
		case len(is.Suppressions) > 0:
			// Kept and marked, as scand:ignore is: a #nosec in a hostile
			// tree must not make a finding disappear.
			md[finding.MetaSuppressedBy] = gosecSuppressedBy(is.Suppressions[0].Kind, is.Suppressions[0].Justification)
		case is.NoSec:
			md[finding.MetaSuppressedBy] = gosecSuppressedBy("inSource", "")
		}
		fs = append(fs, finding.Finding{
			Scanner:     "gosec",
			ScanType:    scan.TypeCode,
			Severity:    severityOf(is.Severity, finding.Info),
			Title:       fmt.Sprintf("%s: %s", is.RuleID, strings.TrimSpace(is.Details)),
			Description: strings.TrimSpace(is.Details),
			FilePath:    relPath(root, dir, is.File),
			Line:        gosecLine(is.Line),
			RuleID:      is.RuleID,
			CWE:         cweOf(is.CWE.ID),
			Metadata:    md,
		})
	}
	var typeErrs []string
	for f := range rep.GolangErrors {
		typeErrs = append(typeErrs, relPath(root, dir, f))
	}
	slices.Sort(typeErrs)
	return fs, typeErrs, nil
}

// gosecSuppressedBy is metadata.suppressed_by for a suppression gosec
// tracked; the justification is the tree's text, so it is cut short and
// kept to one printable line.
func gosecSuppressedBy(kind, justification string) string {
	by := "inline: #nosec (gosec)"
	if kind != "" && kind != "inSource" {
		by = "gosec: " + kind
	}
	justification = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, justification)
	if j := strings.Join(strings.Fields(justification), " "); j != "" {
		if r := []rune(j); len(r) > 120 {
			j = string(r[:120]) + "…"
		}
		by += " -- " + j
	}
	return by
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

// Gosec wraps gosec, the Go static analyzer (scan type code).
//
// Run: `gosec -fmt json ./...` in every module root under the target (a
// directory holding go.mod; directories no project owns, such as vendor/
// and node_modules/, and testdata/ are not searched), because gosec loads
// packages with the go command, which only works inside a module. The go
// command runs with GOPROXY=off and GOTOOLCHAIN=local: a dependency missing
// from the module cache or vendor/ becomes a "Golang errors" entry (logged)
// and the rest is still analyzed. Exit 0 = clean, 1 = findings or type
// errors; 1 with no report and "No packages found" on stderr is a module
// without Go files.
//
// Severity: gosec's severity as is (HIGH/MEDIUM/LOW); confidence goes to
// metadata. CWE: gosec's cwe.id.
func Gosec(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "gosec", scanType: scan.TypeCode,
		eachDirOf: "go.mod",
		env:       goToolEnv(),
		args:      func(*call) ([]string, error) { return []string{"-fmt", "json", "-track-suppressions", "./..."}, nil },
		exits: exits{
			report: []int{0, 1},
			nothingWhen: func(res proc.Result) bool {
				return len(bytes.TrimSpace(res.Stdout)) == 0 && res.ExitCode == 1 && bytes.Contains(res.Stderr, []byte("No packages found"))
			},
			unparsedIsCrash: true,
		},
		parse: func(c *call, out []byte) ([]finding.Finding, error) {
			fs, typeErrs, err := gosecParse(c.root, c.dir, out)
			if err == nil && len(typeErrs) > 0 {
				// A module that does not build (a go.sum without the
				// entries go.mod needs) loses every finding that needs
				// types: the coverage says so instead of a log line.
				c.skipped = append(c.skipped, skippedFiles("module "+c.rel(c.dir), fmt.Sprintf("%d file(s) could not be type-checked; findings that need types are missing", len(typeErrs)),
					"make the module build offline (go mod download, a complete go.sum, or vendor/)", typeErrs))
			}
			return fs, err
		},
		version:     probeVersion(`Version: v?(\S+)`, "-version"),
		installHint: "go install github.com/securego/gosec/v2/cmd/gosec@v2.29.0 (from a module mirror or a copied module cache), or copy the gosec binary onto PATH or SVC_GOSEC_PATH; the go command must be on PATH",
	})
}
