package rules

import (
	"strings"
	"testing"

	"scand/finding"
)

var testTable = Table{Scanner: "demo", ScanType: "iac", Rules: []Rule{
	New("DM001", "first-rule", finding.High, "CWE-250", "First rule", "Do the first thing."),
	New("DM002", "second-rule", finding.Info, "", "Second rule", "Do the second thing."),
}}

func TestTableFinding(t *testing.T) {
	f := testTable.Finding("DM001", "a/Dockerfile", 7, "USER root at line 7.", "USER root", map[string]any{"k": "v"})
	if f.Scanner != "demo" || f.ScanType != "iac" || f.RuleID != "DM001" || f.Severity != finding.High || f.CWE != "CWE-250" {
		t.Fatalf("finding = %+v", f)
	}
	if f.Title != "First rule" || f.Description != "USER root at line 7. Do the first thing." {
		t.Fatalf("title/description = %q / %q", f.Title, f.Description)
	}
	if f.FilePath != "a/Dockerfile" || f.Line != 7 || f.Snippet != "USER root" {
		t.Fatalf("place = %q:%d %q", f.FilePath, f.Line, f.Snippet)
	}
	if f.Metadata["rule_name"] != "first-rule" || f.Metadata["k"] != "v" {
		t.Fatalf("metadata = %v", f.Metadata)
	}
	g := testTable.Finding("DM002", "x", 0, "", "", nil)
	if g.Description != "Do the second thing." || g.Metadata["rule_name"] != "second-rule" || g.CWE != "" {
		t.Fatalf("finding without detail or metadata = %+v", g)
	}
}

func TestTableByIDUnknownPanics(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "demo: unknown rule DM999") {
			t.Fatalf("recover() = %v, want a panic naming the rule", r)
		}
	}()
	testTable.ByID("DM999")
}
