package findingjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"scand/finding"
)

func TestAppendFindingJSONMatchesEncodingJSON(t *testing.T) {
	for _, f := range []finding.Finding{
		{},
		{ID: "i", ScanID: "s", Scanner: "x<y", ScanType: "code", Severity: "high", Title: "t&t", Description: "d\n", FilePath: "a/b.go",
			Line: 12, RuleID: "R", CWE: "CWE-79", Fingerprint: "fp", ComplianceTags: []string{"OWASP-A03"},
			Metadata: map[string]any{"suppressed_by": nil, "n": 1.5, "list": []string{"b", "a"}}},
	} {
		fj, _, err := FieldsOf(f)
		if err != nil {
			t.Fatal(err)
		}
		if f.ComplianceTags == nil {
			f.ComplianceTags = []string{} // stored bodies always carry an array
		}
		want, _ := json.Marshal(f)
		if got := Append(nil, &fj); !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}
