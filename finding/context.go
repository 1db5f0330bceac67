package finding

import (
	"path"
	"strings"
)

// Metadata keys of the test context (see ApplyTestContext).
const (
	// MetaContext is "test" for a finding in test code, fixtures or
	// examples; absent otherwise.
	MetaContext = "context"
	// MetaSeverityBeforeContext keeps the severity the scanner gave a
	// finding that ApplyTestContext lowered.
	MetaSeverityBeforeContext = "severity_before_context"
	// ContextTest is MetaContext's value for test code.
	ContextTest = "test"
)

// testDirs are the directory names whose contents are tests, fixtures or
// examples rather than shipped code.
var testDirs = map[string]bool{
	"test": true, "tests": true, "testdata": true, "fixtures": true, "fixture": true,
	"examples": true, "example": true, "__tests__": true, "__mocks__": true, "spec": true,
}

// IsTestPath reports whether a finding's file (slash-separated, relative to
// the target) is test code, a fixture or an example: it lies under a
// directory named test, tests, testdata, fixtures, fixture, examples,
// example, __tests__, __mocks__ or spec, or its name is *_test.*,
// *.test.*, *.spec.*, test_*.py or conftest.py.
func IsTestPath(p string) bool {
	if p == "" || strings.Contains(p, "://") {
		return false
	}
	p = strings.ToLower(p)
	for dir := path.Dir(p); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if testDirs[path.Base(dir)] {
			return true
		}
	}
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		return true
	case strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || base == "conftest.py"):
		return true
	}
	return false
}

// ApplyTestContext gives a finding in test code (IsTestPath) context
// rather than silence: metadata context = "test" and one severity level
// lower (critical → high → medium → low → info), the scanner's severity
// kept in metadata severity_before_context. Bandit's B101 (assert) in a
// test file is info: assert is how Python tests assert. Findings are never
// dropped. Only code, dependency and IaC findings have paths this applies
// to; DAST URLs, hosts and audited system files do not.
func ApplyTestContext(f *Finding) {
	switch f.ScanType {
	case "dast", "network", "baseline":
		return
	}
	if !IsTestPath(f.FilePath) {
		return
	}
	if f.Metadata == nil {
		f.Metadata = map[string]any{}
	}
	f.Metadata[MetaContext] = ContextTest
	lowered := lowerSeverity(f.Severity)
	if f.Scanner == "bandit" && f.RuleID == "B101" {
		lowered = Info
	}
	if lowered != f.Severity {
		f.Metadata[MetaSeverityBeforeContext] = string(f.Severity)
		f.Severity = lowered
	}
}

func lowerSeverity(s Severity) Severity {
	switch s {
	case Critical:
		return High
	case High:
		return Medium
	case Medium:
		return Low
	}
	return Info
}
