package finding

import (
	"strings"
	"testing"
)

func TestScanCoverageSettle(t *testing.T) {
	sc := func(name, typ, status string) ScannerCoverage {
		return ScannerCoverage{Scanner: name, ScanType: typ, Status: status, Reason: "why"}
	}
	licenses := ScannerCoverage{Scanner: "licenses", ScanType: "dependency", Status: CoverageRan, Supplementary: true}
	cases := []struct {
		name     string
		scanners []ScannerCoverage
		types    []string
		explicit bool
		want     string // "type=status ..." then "| partial" and each reason's first word
	}{
		{"all ran", []ScannerCoverage{sc("secrets", "code", CoverageRan)}, []string{"code"}, true, "code=ran"},
		{"one failed beside one that ran", []ScannerCoverage{sc("secrets", "code", CoverageRan), sc("gosec", "code", CoverageFailed)}, []string{"code"}, true,
			"code=partial | partial gosec"},
		{"only a supplementary scanner ran, explicit", []ScannerCoverage{licenses, sc("osv-scanner", "dependency", CoverageNotInstalled)}, []string{"dependency"}, true,
			"dependency=failed | partial scan"},
		{"the same by default: a note, not partial", []ScannerCoverage{licenses, sc("osv-scanner", "dependency", CoverageNotInstalled)}, []string{"dependency"}, false,
			"dependency=failed | note"},
		{"a default type whose scanner crashed is partial", []ScannerCoverage{sc("builtin_dast", "dast", CoverageFailed)}, []string{"dast"}, false,
			"dast=failed | partial builtin_dast scan"},
		{"nothing of the kind in the tree", []ScannerCoverage{sc("eslint", "code", CoverageNotNeeded), sc("gosec", "code", CoverageDisabled)}, []string{"code"}, true,
			"code=not_needed"},
		{"a partial scanner", []ScannerCoverage{sc("eslint", "code", CoveragePartial)}, []string{"code"}, true, "code=partial | partial eslint"},
		{"a type with no scanner at all", nil, []string{"network"}, true, "network=not_needed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ScanCoverage{Scanners: tc.scanners}
			c.Settle(tc.types, tc.explicit)
			var got []string
			for _, ty := range c.Types {
				got = append(got, ty.ScanType+"="+ty.Status)
			}
			tail := []string{}
			if c.Partial {
				tail = append(tail, "partial")
			}
			for _, r := range c.Reasons {
				tail = append(tail, strings.Fields(r)[0])
			}
			if len(c.Notes) > 0 {
				tail = append(tail, "note")
			}
			s := strings.Join(got, " ")
			if len(tail) > 0 {
				s += " | " + strings.Join(tail, " ")
			}
			if s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
			if c.Partial != (len(c.Reasons) > 0) {
				t.Errorf("partial %v with reasons %v", c.Partial, c.Reasons)
			}
		})
	}
}

func TestNotComparedReason(t *testing.T) {
	cov := func(status string) *ScanCoverage {
		return &ScanCoverage{Scanners: []ScannerCoverage{{Scanner: "gosec", ScanType: "code", Status: status, Reason: "boom"}}}
	}
	cases := []struct {
		base, head *ScanCoverage
		want       string
	}{
		{cov(CoverageRan), cov(CoverageRan), ""},
		{cov(CoverageRan), cov(CoverageFailed), "head: gosec failed: boom"},
		{cov(CoveragePartial), cov(CoverageRan), "base: gosec partial: boom"},
		{cov(CoverageNotInstalled), cov(CoverageRan), "base: gosec not installed: boom"},
		{cov(CoverageNotNeeded), cov(CoverageRan), ""},         // nothing to scan there: its findings are new
		{nil, cov(CoverageFailed), "head: gosec failed: boom"}, // a side from before coverage says nothing
		{nil, nil, ""},
		{cov(CoverageFailed), cov(CoveragePartial), "base: gosec failed: boom; head: gosec partial: boom"},
	}
	for i, tc := range cases {
		if got := NotComparedReason(tc.base, tc.head, "gosec"); got != tc.want {
			t.Errorf("%d: got %q, want %q", i, got, tc.want)
		}
	}
}
