package finding

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
)

// Metadata keys Prepare maintains.
const (
	// MetaSuppressedBy is always present after Prepare: the suppression
	// (see SuppressedBy) or nil. SPEC.md requires the key.
	MetaSuppressedBy = "suppressed_by"
	// MetaOriginalSeverity keeps a severity Prepare had to replace.
	MetaOriginalSeverity = "original_severity"
	// MetaOriginalCWE keeps a CWE value Prepare could not read.
	MetaOriginalCWE = "original_cwe"
)

// LineSource returns the source line line (1-based) of filePath (relative to
// the scan target, slash-separated) and the line before it ("" for line 1).
// ok is false when the line cannot be read; Prepare then does without.
// The orchestrator's implementation does the file I/O (and should cache
// files: Prepare asks once per finding); this package does none.
type LineSource func(filePath string, line int) (current, previous string, ok bool)

// Prepare turns what the scanners returned into the findings a scan stores,
// in the order and with the ids the API shows:
//
//  1. Clean each finding: metadata made non-nil (and copied: raw is never
//     modified); file_path slash-separated, without leading "./"; a negative
//     line becomes 0; an empty title becomes the rule_id; the severity is
//     lower-cased, "moderate" read as medium and anything else unknown
//     made info, and whenever it changed the raw value is kept in metadata
//     original_severity; the CWE is normalized to "CWE-<n>" ("79",
//     "cwe-079" accepted), an unreadable one (e.g. "NVD-CWE-Other")
//     dropped and kept in metadata original_cwe.
//     Then ApplyTestContext: a finding in test code keeps its place with
//     metadata context "test" and one severity level less.
//  2. Line context: NormalizeLineContext of the finding's Snippet, or of
//     the current line from src when the scanner gave none.
//  3. Fingerprint (a known vulnerability of a dependency: from its
//     advisory, see AdvisoryOf and CanonicalAdvisoryID), suppression (metadata suppressed_by, from the source
//     lines when src has them, else from the Snippet), compliance tags and
//     scan_id.
//  4. Dedup (whose result is in canonical order, see Sort), then ids from
//     newID in that order, so ids follow the order the API lists findings in.
//
// src and newID may be nil (no source lines; ids left as they are).
func Prepare(scanID string, raw []Finding, src LineSource, newID func() string) []Finding {
	out := make([]Finding, len(raw))
	for i := range raw {
		out[i] = PrepareOne(scanID, raw[i], src)
	}
	out = dedupOwned(out) // Dedup on our own copy; its result is in canonical order
	if newID != nil {
		for i := range out {
			out[i].ID = newID()
		}
	}
	return out
}

// PrepareOne is steps 1 to 3 of Prepare for one finding: everything that
// depends on the finding alone. A caller that cannot hold a whole scan in
// memory prepares findings one by one as they arrive and applies Dedup
// per file_path later: every group Dedup forms (same fingerprint, same
// location) lies within one file_path, so deduplicating each file's
// findings apart and sorting the union canonically gives what Prepare
// gives. f is not modified.
func PrepareOne(scanID string, f Finding, src LineSource) Finding {
	f, _ = PrepareOneWithContext(scanID, f, src)
	return f
}

// PrepareOneWithContext is PrepareOne that also returns the normalized
// line context the fingerprint was made of, so a caller can ask which
// fingerprint the same finding had at another path (a moved file).
func PrepareOneWithContext(scanID string, f Finding, src LineSource) (Finding, string) {
	cleanFinding(&f)
	ApplyTestContext(&f)

	var cur, prev string
	haveLines := false
	if src != nil && f.FilePath != "" && f.Line > 0 {
		cur, prev, haveLines = src(f.FilePath, f.Line)
	}
	context := ""
	switch {
	case f.Snippet != "":
		context = NormalizeLineContext(f.Snippet)
	case haveLines:
		context = NormalizeLineContext(cur)
	}
	f.Fingerprint = Fingerprint(f.Scanner, f.RuleID, f.FilePath, context, f.CWE)
	if a, ok := AdvisoryOf(f); ok {
		// A vulnerability's identity is its advisory, not the tool that
		// matched it: every tool that reports it gives one fingerprint.
		setAdvisory(&f, a)
	}

	var suppression string
	if haveLines {
		suppression = SuppressedBy(f.RuleID, cur, prev)
	} else if f.Snippet != "" {
		suppression = SuppressedBy(f.RuleID, f.Snippet, "")
	}
	if suppression == "" {
		// A tool's own in-source suppression (gosec's #nosec, which it
		// reports with -track-suppressions) stays, visible as one, unless
		// scand:ignore names the line too.
		suppression, _ = f.Metadata[MetaSuppressedBy].(string)
	}
	if suppression != "" {
		f.Metadata[MetaSuppressedBy] = suppression
	} else {
		f.Metadata[MetaSuppressedBy] = nil
	}
	f.ComplianceTags = ComplianceTags(f)
	f.ScanID = scanID
	return f, context
}

func cleanFinding(f *Finding) {
	md := make(map[string]any, len(f.Metadata)+2)
	maps.Copy(md, f.Metadata)
	f.Metadata = md

	f.FilePath = cleanFilePath(f.FilePath)
	f.Line = max(f.Line, 0)
	if f.Title == "" {
		f.Title = f.RuleID
	}
	sev, exact := cleanSeverity(f.Severity)
	if !exact {
		md[MetaOriginalSeverity] = string(f.Severity)
	}
	f.Severity = sev
	if f.CWE != "" {
		if c, ok := cleanCWE(f.CWE); ok {
			f.CWE = c
		} else {
			md[MetaOriginalCWE] = string(f.CWE)
			f.CWE = ""
		}
	}
}

// cleanFilePath makes a scanner's path the stored form: slash-separated
// (a tool that prints Windows separators still yields the same fingerprint)
// and without "./" prefixes.
func cleanFilePath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	return p
}

// cleanSeverity maps a scanner's severity to one of the five. exact is false
// when the input was not already a valid severity, including mere case
// differences, so the raw value is recorded.
func cleanSeverity(s Severity) (clean Severity, exact bool) {
	if s.Valid() {
		return s, true
	}
	switch l := Severity(strings.ToLower(strings.TrimSpace(string(s)))); l {
	case Critical, High, Medium, Low, Info:
		return l, false
	case "moderate":
		return Medium, false
	}
	return Info, false
}

// cleanCWE accepts "CWE-79", "cwe-79", "CWE-079" and "79".
func cleanCWE(c CWE) (CWE, bool) {
	if isCanonicalCWE(c) {
		return c, true
	}
	s := strings.TrimSpace(string(c))
	if len(s) >= 4 && strings.EqualFold(s[:4], "CWE-") {
		s = s[4:]
	}
	if s == "" || len(s) > 9 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return "", false
	}
	return CWE("CWE-" + strconv.Itoa(n)), true
}

// isCanonicalCWE reports whether c already is "CWE-<n>", n without leading
// zeros: the common case, answered without allocating.
func isCanonicalCWE(c CWE) bool {
	d, ok := strings.CutPrefix(string(c), "CWE-")
	if !ok || d == "" || len(d) > 9 || d[0] == '0' {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// MarshalFindings is the one JSON form of a list of findings: always an
// array ("[]" for none), compliance_tags always an array, metadata always
// an object holding suppressed_by. encoding/json writes map keys sorted and
// Dedup writes its metadata lists sorted, so equal findings give equal
// bytes. fs is not modified.
func MarshalFindings(fs []Finding) ([]byte, error) {
	out := make([]Finding, len(fs))
	for i, f := range fs {
		if f.ComplianceTags == nil {
			f.ComplianceTags = []string{}
		}
		if _, ok := f.Metadata[MetaSuppressedBy]; !ok {
			md := make(map[string]any, len(f.Metadata)+1)
			maps.Copy(md, f.Metadata)
			md[MetaSuppressedBy] = nil
			f.Metadata = md
		}
		out[i] = f
	}
	return json.Marshal(out)
}
