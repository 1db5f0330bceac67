package finding

import (
	"slices"
	"testing"
)

func TestCanonicalAdvisoryID(t *testing.T) {
	cases := []struct {
		ids  []string
		want string
	}{
		{[]string{"GO-2021-0113", "GHSA-ppp9-7jff-5vj2", "CVE-2021-38561"}, "CVE-2021-38561"},
		{[]string{"GHSA-ppp9-7jff-5vj2", "GO-2021-0113"}, "GHSA-ppp9-7jff-5vj2"},
		{[]string{"GO-2024-2600", "PYSEC-2020-1"}, "GO-2024-2600"},
		{[]string{"PYSEC-2021-10", "PYSEC-2021-9"}, "PYSEC-2021-9"},
		{[]string{"CVE-2021-10000", "CVE-2021-9999"}, "CVE-2021-9999"},
		{[]string{"RUSTSEC-2020-0001"}, "RUSTSEC-2020-0001"},
	}
	for _, c := range cases {
		rev := slices.Clone(c.ids)
		slices.Reverse(rev)
		for _, ids := range [][]string{c.ids, rev} {
			if got := CanonicalAdvisoryID(ids); got != c.want {
				t.Errorf("CanonicalAdvisoryID(%v) = %s, want %s", ids, got, c.want)
			}
		}
	}
}

func vuln(scanner, id, file, version string, sev Severity, aliases ...string) Finding {
	return Finding{Scanner: scanner, ScanType: "dependency", Severity: sev, RuleID: id, Title: id, FilePath: file,
		Metadata: map[string]any{"package": "golang.org/x/text", "version": version, "aliases": aliases}}
}

// TestMergeAdvisoriesBounds: ids join findings into one vulnerability
// only within one file and one package version, also through a third
// finding, and a suppressed copy never hides an unsuppressed one.
func TestMergeAdvisoriesBounds(t *testing.T) {
	in := []Finding{
		vuln("trivy", "CVE-2021-38561", "go.mod", "v0.3.6", Medium, "GHSA-ppp9-7jff-5vj2"),
		vuln("govulncheck", "GO-2021-0113", "go.mod", "v0.3.6", High), // knows no alias: not joined by itself
		vuln("osv-scanner", "GO-2021-0113", "go.mod", "0.3.6", Medium, "CVE-2021-38561"),
		vuln("osv-scanner", "GO-2021-0113", "go.mod", "0.3.5", Medium, "CVE-2021-38561"), // another version
		vuln("trivy", "CVE-2021-38561", "sub/go.mod", "v0.3.6", Medium),                  // another file
		vuln("trivy", "CVE-2022-32149", "go.mod", "v0.3.6", Medium),                      // another vulnerability
	}
	got := Prepare("s", in, nil, nil)
	if len(got) != 4 {
		t.Fatalf("%d findings, want 4", len(got))
	}
	f := got[0]
	ids, _ := f.Metadata[MetaAliases].([]string)
	if f.Scanner != "govulncheck" || f.FilePath != "go.mod" || !slices.Equal(ids, []string{"CVE-2021-38561", "GHSA-ppp9-7jff-5vj2", "GO-2021-0113"}) {
		t.Fatalf("first finding %s %s %v, want govulncheck's in go.mod with all three ids", f.Scanner, f.FilePath, ids)
	}
	if also := metaStrings(f.Metadata[MetaAlsoReportedBy]); !slices.Equal(also, []string{"osv-scanner", "trivy"}) {
		t.Errorf("also_reported_by %v", also)
	}
	// govulncheck alone knew only the GO id, so its own fingerprint was
	// another one; the others' equal the merged finding's.
	alone := PrepareOne("s", in[1], nil).Fingerprint
	if merged := metaStrings(f.Metadata[MetaMergedFingerprints]); !slices.Equal(merged, []string{alone}) {
		t.Errorf("merged_fingerprints %v, want govulncheck's own %s", merged, alone)
	}
	for _, g := range got[1:] {
		if g.Fingerprint == f.Fingerprint {
			t.Errorf("%s %s %v shares the merged finding's fingerprint", g.FilePath, g.Metadata["version"], g.Metadata[MetaAliases])
		}
	}

	sup := vuln("trivy", "CVE-2021-38561", "go.mod", "v0.3.6", Critical)
	sup.Metadata[MetaSuppressedBy] = "config: .scand.toml [ignore] rules CVE-2021-38561"
	got = Prepare("s", []Finding{sup, vuln("osv-scanner", "GO-2021-0113", "go.mod", "0.3.6", Low, "CVE-2021-38561")}, nil, nil)
	if len(got) != 1 || IsSuppressed(got[0]) || got[0].Scanner != "osv-scanner" {
		t.Fatalf("suppressed copy kept over the unsuppressed one: %+v", got)
	}
}
