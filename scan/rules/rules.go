// Package rules is the rule table the rule-based built-in scanners share
// (dockerfile, baseline, builtin_dast): every rule has an id, a stable
// slug, a severity, a CWE, a title and its fix, and raises its findings
// the same way. Each scanner's table, with the rules' exceptions, is the
// doc comment at the top of that scanner's file.
package rules

import "scand/finding"

// Rule is one check of a built-in scanner.
type Rule struct {
	ID       string // stable rule id, e.g. DF001
	Name     string // slug, e.g. latest-tag; findings carry it as metadata.rule_name
	Severity finding.Severity
	CWE      finding.CWE
	Title    string
	Fix      string // the remediation, the last part of every description
}

// New is one rule table row: id, slug, severity, CWE, title, fix.
func New(id, name string, sev finding.Severity, cwe finding.CWE, title, fix string) Rule {
	return Rule{ID: id, Name: name, Severity: sev, CWE: cwe, Title: title, Fix: fix}
}

// Table is one scanner's rules, in documentation order. It is read-only.
type Table struct {
	Scanner  string
	ScanType string
	Rules    []Rule
}

// ByID returns a rule. An unknown id is a programming error, not input.
func (t Table) ByID(id string) Rule {
	for _, r := range t.Rules {
		if r.ID == id {
			return r
		}
	}
	panic(t.Scanner + ": unknown rule " + id)
}

// Finding is what rule id raises at file and line: detail (what was seen;
// may be empty) then the rule's fix make the description, and meta (nil
// allowed) gains the rule's slug.
func (t Table) Finding(id, file string, line int, detail, snippet string, meta map[string]any) finding.Finding {
	r := t.ByID(id)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["rule_name"] = r.Name
	desc := r.Fix
	if detail != "" {
		desc = detail + " " + r.Fix
	}
	return finding.Finding{
		Scanner:     t.Scanner,
		ScanType:    t.ScanType,
		Severity:    r.Severity,
		Title:       r.Title,
		Description: desc,
		FilePath:    file,
		Line:        line,
		RuleID:      r.ID,
		CWE:         r.CWE,
		Snippet:     snippet,
		Metadata:    meta,
	}
}
