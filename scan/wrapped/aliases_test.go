package wrapped

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"scand/finding"
)

// recordedVulnFindings are the three advisory-matching tools' recorded
// findings on the fixture tree: osv-scanner keys x/text's advisories by GO
// id (CVE and GHSA as aliases), govulncheck by GO id, Trivy by CVE id.
func recordedVulnFindings(t *testing.T) map[string][]finding.Finding {
	t.Helper()
	lines := wrapTestTreeLines(t)
	osv, err := osvParse(wrapRecordedRoot, wrapTestRead(t, "osv-scanner/findings.json"), lines)
	if err != nil {
		t.Fatal(err)
	}
	gov, err := govulncheckParse("goapp/go.mod", wrapTestRead(t, "govulncheck/findings.json"), lines)
	if err != nil {
		t.Fatal(err)
	}
	trivy, err := trivyParse(wrapRecordedRoot, wrapTestRead(t, "trivy/findings.json"), lines, false)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]finding.Finding{"osv-scanner": osv, "govulncheck": gov, "trivy": trivy}
}

// vulnByID finds the prepared finding whose aliases hold id.
func vulnByID(fs []finding.Finding, id string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if ids, _ := f.Metadata[finding.MetaAliases].([]string); slices.Contains(ids, id) {
			out = append(out, f)
		}
	}
	return out
}

// TestAliasedAdvisoriesAreOneFinding: GO-2021-0113 (osv-scanner,
// govulncheck) and CVE-2021-38561 (Trivy) are one vulnerability of
// golang.org/x/text v0.3.6, so the three tools' findings become one
// finding carrying every id; the same holds for the npm advisories Trivy
// reports by CVE and osv-scanner by GHSA. 14 tool findings, 6
// vulnerabilities.
func TestAliasedAdvisoriesAreOneFinding(t *testing.T) {
	byTool := recordedVulnFindings(t)
	var all []finding.Finding
	for _, tool := range []string{"osv-scanner", "govulncheck", "trivy"} {
		all = append(all, byTool[tool]...)
	}
	if len(all) != 14 {
		t.Fatalf("%d recorded findings, want 14 (6 osv-scanner, 2 govulncheck, 6 trivy)", len(all))
	}
	got := finding.Prepare("s", all, nil, nil)
	if len(got) != 6 {
		for _, f := range got {
			t.Logf("%s %s %s %v", f.Scanner, f.RuleID, f.FilePath, f.Metadata[finding.MetaAliases])
		}
		t.Fatalf("%d findings, want 6 (one per vulnerability)", len(got))
	}
	cases := []struct {
		id       string
		ids      []string
		canon    string
		scanners []string
		fixed    string
	}{
		{"GO-2021-0113", []string{"CVE-2021-38561", "GHSA-ppp9-7jff-5vj2", "GO-2021-0113"}, "CVE-2021-38561", []string{"govulncheck", "osv-scanner", "trivy"}, "v0.3.7"},
		{"GO-2022-1059", []string{"CVE-2022-32149", "GHSA-69ch-w2m2-3vjp", "GO-2022-1059"}, "CVE-2022-32149", []string{"govulncheck", "osv-scanner", "trivy"}, "v0.3.8"},
		{"GHSA-xvch-5gv4-984h", []string{"CVE-2021-44906", "GHSA-xvch-5gv4-984h"}, "CVE-2021-44906", []string{"osv-scanner", "trivy"}, "1.2.6"},
	}
	for _, c := range cases {
		fs := vulnByID(got, c.id)
		if len(fs) != 1 {
			t.Errorf("%s: %d findings carry it, want 1", c.id, len(fs))
			continue
		}
		f := fs[0]
		ids, _ := f.Metadata[finding.MetaAliases].([]string)
		if !slices.Equal(ids, c.ids) {
			t.Errorf("%s: aliases %v, want %v", c.id, ids, c.ids)
		}
		if f.Metadata[finding.MetaAdvisoryID] != c.canon {
			t.Errorf("%s: advisory_id %v, want %s", c.id, f.Metadata[finding.MetaAdvisoryID], c.canon)
		}
		scanners := append([]string{f.Scanner}, metaList(f.Metadata[finding.MetaAlsoReportedBy])...)
		slices.Sort(scanners)
		if !slices.Equal(scanners, c.scanners) {
			t.Errorf("%s: reported by %v, want %v", c.id, scanners, c.scanners)
		}
		if f.Metadata[finding.MetaFixedVersion] != c.fixed {
			t.Errorf("%s: fixed_version %v, want %s", c.id, f.Metadata[finding.MetaFixedVersion], c.fixed)
		}
	}
	// govulncheck proved a call path: its severity (high) is the one kept.
	if f := vulnByID(got, "GO-2021-0113"); len(f) == 1 && (f[0].Scanner != "govulncheck" || f[0].Severity != finding.High) {
		t.Errorf("GO-2021-0113 kept %s's finding at %s, want govulncheck's at high", f[0].Scanner, f[0].Severity)
	}
}

// TestAdvisoryFingerprintWhicheverToolRan: the fingerprint of a
// vulnerability is the same whether one tool, two or all three reported
// it, and whatever order their findings arrived in, so a verdict and a
// diff keep matching when a tool is missing on one run.
func TestAdvisoryFingerprintWhicheverToolRan(t *testing.T) {
	byTool := recordedVulnFindings(t)
	tools := []string{"osv-scanner", "govulncheck", "trivy"}
	want := map[string]string{} // id -> fingerprint with every tool
	var all []finding.Finding
	for _, tool := range tools {
		all = append(all, byTool[tool]...)
	}
	for _, f := range finding.Prepare("s", all, nil, nil) {
		ids, _ := f.Metadata[finding.MetaAliases].([]string)
		for _, id := range ids {
			want[id] = f.Fingerprint
		}
	}
	if want["GO-2021-0113"] == "" || want["GO-2021-0113"] != want["CVE-2021-38561"] {
		t.Fatalf("GO-2021-0113 and CVE-2021-38561 have fingerprints %q and %q", want["GO-2021-0113"], want["CVE-2021-38561"])
	}
	subsets := [][]string{{"osv-scanner"}, {"govulncheck"}, {"trivy"}, {"trivy", "govulncheck"}, {"govulncheck", "osv-scanner"}, {"trivy", "osv-scanner", "govulncheck"}}
	for _, subset := range subsets {
		var in []finding.Finding
		for _, tool := range subset {
			in = append(in, byTool[tool]...)
		}
		for _, order := range []string{"forward", "reverse"} {
			if order == "reverse" {
				slices.Reverse(in)
			}
			for _, f := range finding.Prepare("s", in, nil, nil) {
				ids, _ := f.Metadata[finding.MetaAliases].([]string)
				for _, id := range ids {
					if want[id] != f.Fingerprint {
						t.Errorf("%s, %s order: %s (%s) has fingerprint %s, want %s as with every tool",
							strings.Join(subset, "+"), order, id, f.Scanner, f.Fingerprint, want[id])
					}
				}
			}
		}
	}
}

func metaList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			out[i] = fmt.Sprint(e)
		}
		return out
	}
	return nil
}
