package wrapped

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"scand/finding"
	"scand/scan"
)

type banditReport struct {
	Errors []struct {
		Filename string `json:"filename"`
		Reason   string `json:"reason"`
	} `json:"errors"`
	Results []struct {
		Filename        string `json:"filename"`
		IssueConfidence string `json:"issue_confidence"`
		IssueSeverity   string `json:"issue_severity"`
		IssueText       string `json:"issue_text"`
		IssueCWE        *struct {
			ID int `json:"id"`
		} `json:"issue_cwe"`
		LineNumber int    `json:"line_number"`
		MoreInfo   string `json:"more_info"`
		TestID     string `json:"test_id"`
		TestName   string `json:"test_name"`
		Code       string `json:"code"`
	} `json:"results"`
}

// banditStale reports results that older bandit releases (Debian 12 ships
// 1.6.2) raise and current ones do not: B322 (input() is only unsafe on
// Python 2; removed in bandit 1.7) and weak-hash calls that declare
// usedforsecurity=False (Python 3.9+), which bandit 1.7.4 stopped flagging.
func banditStale(testID, code string) bool {
	switch testID {
	case "B322":
		return true
	case "B303", "B324":
		return strings.Contains(strings.ReplaceAll(code, " ", ""), "usedforsecurity=False")
	}
	return false
}

// banditParse turns bandit's JSON report into findings with paths relative
// to root.
func banditParse(root string, out []byte) ([]finding.Finding, error) {
	var rep banditReport
	if err := decodeJSON("bandit", out, &rep); err != nil {
		return nil, err
	}
	fs := make([]finding.Finding, 0, len(rep.Results))
	for _, r := range rep.Results {
		if r.TestID == "" || banditStale(r.TestID, r.Code) {
			continue
		}
		cwe := banditCWE[r.TestID]
		if r.IssueCWE != nil && r.IssueCWE.ID > 0 {
			cwe = finding.CWE(fmt.Sprintf("CWE-%d", r.IssueCWE.ID))
		}
		title := r.TestName
		if title == "" {
			title = r.TestID
		}
		line := r.LineNumber
		if line < 0 {
			line = 0
		}
		md := map[string]any{
			"confidence": strings.ToLower(r.IssueConfidence),
			"more_info":  r.MoreInfo,
		}
		if banditNosec(r.Code, line) {
			md[finding.MetaSuppressedBy] = "inline: # nosec (bandit)"
		}
		fs = append(fs, finding.Finding{
			Scanner:     "bandit",
			ScanType:    scan.TypeCode,
			Severity:    severityOf(r.IssueSeverity, finding.Info),
			Title:       fmt.Sprintf("%s: %s", r.TestID, title),
			Description: strings.TrimSpace(r.IssueText),
			FilePath:    relPath(root, root, r.Filename),
			Line:        line,
			RuleID:      r.TestID,
			CWE:         cwe,
			Metadata:    md,
		})
	}
	return fs, nil
}

// banditNosecRe is bandit's own test for a "# nosec" comment on a line.
var banditNosecRe = regexp.MustCompile(`(?i)#\s*nosec`)

// banditNosec reports whether the issue's line, in the numbered code
// excerpt bandit prints ("8 subprocess.call(...)  # nosec"), carries the
// comment bandit would have hidden the issue for.
func banditNosec(code string, line int) bool {
	prefix := strconv.Itoa(line) + " "
	for l := range strings.SplitSeq(code, "\n") {
		if text, ok := strings.CutPrefix(l, prefix); ok {
			return banditNosecRe.MatchString(text)
		}
	}
	return false
}

// banditCWE is the CWE bandit ≥ 1.7.3 attaches to each test id, for the
// older releases that print none.
var banditCWE = map[string]finding.CWE{
	"B101": "CWE-703", "B102": "CWE-78", "B103": "CWE-732", "B104": "CWE-605",
	"B105": "CWE-259", "B106": "CWE-259", "B107": "CWE-259", "B108": "CWE-377",
	"B110": "CWE-703", "B112": "CWE-703", "B113": "CWE-400", "B201": "CWE-94",
	"B202": "CWE-22", "B301": "CWE-502", "B302": "CWE-502", "B303": "CWE-327",
	"B304": "CWE-327", "B305": "CWE-327", "B306": "CWE-377", "B307": "CWE-78",
	"B308": "CWE-79", "B310": "CWE-22", "B311": "CWE-330", "B312": "CWE-319",
	"B313": "CWE-20", "B314": "CWE-20", "B315": "CWE-20", "B316": "CWE-20",
	"B317": "CWE-20", "B318": "CWE-20", "B319": "CWE-20", "B320": "CWE-20",
	"B321": "CWE-319", "B323": "CWE-295", "B324": "CWE-327", "B401": "CWE-319",
	"B402": "CWE-319", "B403": "CWE-502", "B404": "CWE-78", "B405": "CWE-20",
	"B406": "CWE-20", "B407": "CWE-20", "B408": "CWE-20", "B409": "CWE-20",
	"B410": "CWE-20", "B411": "CWE-20", "B413": "CWE-327",
	"B501": "CWE-295", "B502": "CWE-327", "B503": "CWE-327",
	"B504": "CWE-327", "B505": "CWE-326", "B506": "CWE-20", "B507": "CWE-295",
	"B601": "CWE-78", "B602": "CWE-78", "B603": "CWE-78", "B604": "CWE-78",
	"B605": "CWE-78", "B606": "CWE-78", "B607": "CWE-78", "B608": "CWE-89",
	"B609": "CWE-155", "B610": "CWE-89", "B611": "CWE-89", "B701": "CWE-94",
	"B702": "CWE-80", "B703": "CWE-80",
}

// Bandit wraps bandit, the Python static analyzer (scan type code).
//
// Run: `bandit -r <target> -f json -q`. Exit 0 = clean, 1 = findings, any
// other status is a crash.
//
// Severity: bandit's issue_severity as is (HIGH → high, MEDIUM → medium,
// LOW → low, UNDEFINED → info); issue_confidence goes to metadata, because
// lowering severity on low confidence would hide a real shell injection the
// tool merely could not prove.
//
// CWE: bandit ≥ 1.7.3 prints issue_cwe and that wins. Older releases (Debian
// 12 ships 1.6.2) print none, so banditCWE holds the ids those newer
// releases assign to the same test ids.
func Bandit(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "bandit", scanType: scan.TypeCode,
		reads:        func(rel string) bool { return strings.HasSuffix(rel, ".py") || strings.HasSuffix(rel, ".pyw") },
		readsExactly: true, // with its configuration file replaced, bandit -r opens only these
		args: func(c *call) ([]string, error) {
			// -r reads the target's .bandit, which may skip any test: an
			// empty --ini keeps the scanned tree from configuring bandit.
			// --ignore-nosec: a "# nosec" in the tree marks a finding
			// suppressed (banditNosec) instead of hiding it.
			return []string{"-r", c.root, "-f", "json", "-q", "--ini", os.DevNull, "--ignore-nosec"}, nil
		},
		exits:       exits{report: []int{0, 1}},
		parse:       func(c *call, out []byte) ([]finding.Finding, error) { return banditParse(c.root, out) },
		version:     probeVersion(`bandit v?(\d+\.\d+(?:\.\d+)?)`, "--version"),
		installHint: "install the Debian package bandit (apt-get install -y bandit, from a local mirror when offline) or set SVC_BANDIT_PATH",
	})
}
