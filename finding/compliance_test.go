package finding

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// requiredCWEs: the CWE Top 25 of 2023 and 2024 and every CWE scand's
// scanners emit. Each must have an entry.
var requiredCWEs = []int{
	// CWE Top 25, 2023 and 2024
	787, 79, 89, 416, 78, 20, 125, 22, 352, 434, 862, 476, 287, 190, 502, 77, 119, 798,
	918, 306, 362, 269, 94, 863, 276, 200, 400,
	// emitted by scand's scanners
	798, 259, 321, 312, 522, 532, 200, 209, 215, 538, 540, 548, 16, 250, 269, 276, 732, 284,
	285, 287, 306, 307, 521, 262, 263, 916, 327, 328, 326, 330, 295, 297, 319, 311, 523,
	614, 1004, 1275, 352, 942, 346, 693, 1021, 1188, 494, 829, 1104, 1035, 937, 1395, 79,
	89, 78, 77, 94, 95, 22, 23, 73, 434, 502, 611, 918, 601, 400, 770, 20, 116, 117, 190,
	119, 125, 787, 416, 476, 362, 367, 377, 703, 754, 755, 390, 391, 561, 563, 676, 242,
	338, 489, 668, 1327, 605, 923, 1390, 1391, 1392, 1393, 1394, 1068, 749,
}

func controlSet(t *testing.T) map[string]bool {
	t.Helper()
	set := map[string]bool{}
	for _, fw := range Frameworks() {
		for _, c := range fw.Controls {
			set[c.ID] = true
		}
	}
	return set
}

func TestComplianceTableCoversRequiredCWEs(t *testing.T) {
	for _, n := range requiredCWEs {
		tags := ComplianceTags(Finding{CWE: CWE(fmt.Sprintf("CWE-%d", n))})
		if len(tags) == 0 {
			t.Errorf("CWE-%d has no compliance tags", n)
		}
	}
}

func TestComplianceTableWellFormed(t *testing.T) {
	controls := controlSet(t)
	for n, tags := range cweCompliance {
		if !slices.IsSorted(tags) || len(slices.Compact(slices.Clone(tags))) != len(tags) {
			t.Errorf("CWE-%d: tags %v not sorted and unique", n, tags)
		}
		owasp, pci, soc2 := 0, 0, 0
		for _, tag := range tags {
			if !controls[tag] {
				t.Errorf("CWE-%d: tag %q is no control of Frameworks()", n, tag)
			}
			switch {
			case strings.HasPrefix(tag, "OWASP-"):
				owasp++
			case strings.HasPrefix(tag, "PCI-DSS-"):
				pci++
			case strings.HasPrefix(tag, "SOC2-"):
				soc2++
			}
		}
		if owasp > 1 || pci == 0 || soc2 == 0 {
			t.Errorf("CWE-%d: %d OWASP, %d PCI, %d SOC 2 tags; want at most 1, at least 1, at least 1", n, owasp, pci, soc2)
		}
	}
	for i, k := range complianceKeywords {
		if k.cwe != 0 && len(cweCompliance[k.cwe]) == 0 {
			t.Errorf("keyword rule %d names CWE-%d, which has no entry", i, k.cwe)
		}
		for _, tag := range k.tags {
			if !controls[tag] {
				t.Errorf("keyword rule %d: tag %q is no control of Frameworks()", i, tag)
			}
		}
	}
	for st, n := range complianceScanTypeCWE {
		if len(cweCompliance[n]) == 0 {
			t.Errorf("scan type %s falls back to CWE-%d, which has no entry", st, n)
		}
	}
}

func TestComplianceTagsForKnownCWEs(t *testing.T) {
	cases := []struct {
		cwe     CWE
		include []string
		exclude []string
	}{
		{"CWE-798", []string{"OWASP-A07", "PCI-DSS-8.6.2", "SOC2-CC6.1"}, nil},
		{"CWE-259", []string{"OWASP-A07", "PCI-DSS-8.6.2"}, nil},
		{"CWE-89", []string{"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"}, nil},
		{"CWE-79", []string{"OWASP-A03", "PCI-DSS-6.2.4"}, nil},
		{"CWE-22", []string{"OWASP-A01"}, nil},
		{"CWE-319", []string{"OWASP-A02", "PCI-DSS-4.2.1", "SOC2-CC6.7"}, nil},
		{"CWE-295", []string{"OWASP-A07", "PCI-DSS-4.2.1", "SOC2-CC6.7"}, nil},
		{"CWE-312", []string{"OWASP-A04", "PCI-DSS-3.5.1"}, nil},
		{"CWE-321", []string{"OWASP-A02", "PCI-DSS-3.6.1"}, nil},
		{"CWE-16", []string{"OWASP-A05", "PCI-DSS-2.2.1", "SOC2-CC7.1"}, nil},
		{"CWE-1104", []string{"OWASP-A06", "PCI-DSS-6.3.1", "PCI-DSS-6.3.3", "SOC2-CC7.1"}, nil},
		{"CWE-502", []string{"OWASP-A08", "SOC2-CC6.8"}, nil},
		{"CWE-829", []string{"OWASP-A08", "PCI-DSS-6.4.3"}, nil},
		{"CWE-117", []string{"OWASP-A09", "PCI-DSS-10.3.2", "SOC2-CC7.2"}, nil},
		{"CWE-918", []string{"OWASP-A10", "SOC2-CC6.6"}, nil},
		{"CWE-307", []string{"PCI-DSS-8.3.4"}, nil},
		{"CWE-521", []string{"PCI-DSS-8.3.6"}, nil},
		{"CWE-262", []string{"PCI-DSS-8.3.9"}, nil},
		{"CWE-1392", []string{"PCI-DSS-2.2.2"}, nil},
		{"CWE-250", []string{"PCI-DSS-7.2.5", "SOC2-CC6.3"}, nil},
		{"CWE-1327", []string{"PCI-DSS-1.2.5", "SOC2-CC6.6"}, nil},
		{"CWE-787", []string{"PCI-DSS-6.2.4"}, []string{"OWASP-"}},
		{"CWE-561", []string{"PCI-DSS-6.2.3"}, []string{"OWASP-"}},
		{"cwe-079", []string{"OWASP-A03"}, nil},
		{"79", []string{"OWASP-A03"}, nil},
	}
	for _, c := range cases {
		got := ComplianceTags(Finding{CWE: c.cwe})
		for _, want := range c.include {
			if !slices.Contains(got, want) {
				t.Errorf("%s: tags %v lack %s", c.cwe, got, want)
			}
		}
		for _, prefix := range c.exclude {
			for _, tag := range got {
				if strings.HasPrefix(tag, prefix) {
					t.Errorf("%s: unexpected tag %s", c.cwe, tag)
				}
			}
		}
	}
}

func TestComplianceTagsFallbacks(t *testing.T) {
	// union is the sorted set of the CWEs' table tags and the extra tags.
	union := func(cwe int, extra ...string) []string {
		out := append(slices.Clone(cweCompliance[cwe]), extra...)
		slices.Sort(out)
		return slices.Compact(out)
	}
	cases := []struct {
		name string
		f    Finding
		want []string
	}{
		{"nothing to go on", Finding{Scanner: "custom", ScanType: "code", RuleID: "r1", Title: "Something odd"}, []string{}},
		{"secret rule id", Finding{Scanner: "gitleaks", RuleID: "generic-api-key", Title: "Generic API Key"}, union(798)},
		{"secrets scanner name", Finding{Scanner: "secrets", RuleID: "aws-access-key-id", Title: "AWS access key"}, union(798)},
		{"password", Finding{RuleID: "B105", Title: "Possible hardcoded password"}, union(798)},
		{"token", Finding{RuleID: "slack-token"}, union(798)},
		{"csrf token is not a secret", Finding{RuleID: "csrf-token-missing"}, union(352)},
		{"sql", Finding{RuleID: "formatted-sql-query"}, union(89)},
		{"mysql is not sql", Finding{RuleID: "mysql-config", Title: "MySQL config"}, []string{}},
		{"xss", Finding{RuleID: "reflected-xss"}, union(79)},
		{"tls", Finding{Title: "TLS 1.0 enabled"}, union(319)},
		{"ssl prefix", Finding{RuleID: "sslv3-enabled"}, union(319)},
		{"header and hsts", Finding{Title: "Missing HSTS header"}, union(319, cweCompliance[693]...)},
		{"cookie", Finding{Title: "Cookie without Secure flag"}, union(614)},
		{"cors", Finding{RuleID: "cors-wildcard"}, union(942)},
		{"license", Finding{Scanner: "licenses", Title: "GPL-3.0-only in foo"}, []string{"PCI-DSS-6.3.2", "SOC2-CC9.2"}},
		{"cve", Finding{RuleID: "CVE-2023-12345", Title: "openssl: bug"}, union(1104)},
		{"ghsa", Finding{RuleID: "GHSA-abcd-efgh-ijkl"}, union(1104)},
		{"vulnerable", Finding{Title: "Vulnerable dependency"}, union(1104)},
		{"port", Finding{Scanner: "nmap", RuleID: "open-port", Title: "Open port 8080/tcp"}, union(1327)},
		// the SSH rule's fixed tags plus CWE-798's for the "password" token
		{"ssh", Finding{RuleID: "sshd-password-auth"}, union(798, "OWASP-A05", "PCI-DSS-2.2.7", "SOC2-CC6.6")},
		{"permission", Finding{Title: "World-writable file"}, union(732)},
		{"root", Finding{RuleID: "dockerfile-user-root", Title: "Container runs as root"}, union(250)},
		{"dependency scan type", Finding{Scanner: "grype", ScanType: "dependency", RuleID: "pkg-1"}, union(1104)},
		{"network scan type", Finding{Scanner: "nmap", ScanType: "network", RuleID: "svc-http"}, union(1327)},
		{"unknown CWE falls back to keywords", Finding{CWE: "CWE-99999", RuleID: "hardcoded-secret"}, union(798)},
		{"unreadable CWE falls back", Finding{CWE: "NVD-CWE-Other", RuleID: "CVE-2020-1"}, union(1104)},
		{"known CWE wins over keywords", Finding{CWE: "CWE-89", Title: "SQL injection via root password"}, union(89)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ComplianceTags(c.f)
			if got == nil {
				t.Fatal("ComplianceTags returned nil")
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ComplianceTags = %v, want %v", got, c.want)
			}
		})
	}
}

func TestComplianceTagsReturnsCopy(t *testing.T) {
	f := Finding{CWE: "CWE-89"}
	first := ComplianceTags(f)
	want := slices.Clone(first)
	first[0] = "MUTATED"
	if again := ComplianceTags(f); !reflect.DeepEqual(again, want) {
		t.Errorf("mutating a result changed the table: %v", again)
	}
}

func TestFrameworks(t *testing.T) {
	fws := Frameworks()
	if len(fws) != 3 {
		t.Fatalf("want 3 frameworks, got %d", len(fws))
	}
	used := map[string]bool{}
	for _, tags := range cweCompliance {
		for _, tag := range tags {
			used[tag] = true
		}
	}
	for _, k := range complianceKeywords {
		for _, tag := range k.tags {
			used[tag] = true
		}
	}
	for _, fw := range fws {
		if fw.ID == "" || fw.Name == "" || fw.Version == "" || len(fw.Controls) == 0 {
			t.Errorf("framework %+v incomplete", fw)
		}
		seen := map[string]bool{}
		for _, c := range fw.Controls {
			if !strings.HasPrefix(c.ID, fw.ID+"-") {
				t.Errorf("%s: control %s lacks the framework prefix", fw.ID, c.ID)
			}
			if c.Title == "" {
				t.Errorf("%s: control %s has no title", fw.ID, c.ID)
			}
			if seen[c.ID] {
				t.Errorf("%s: control %s listed twice", fw.ID, c.ID)
			}
			seen[c.ID] = true
			if !used[c.ID] {
				t.Errorf("%s: control %s is never tagged", fw.ID, c.ID)
			}
		}
	}
	owasp := fws[0]
	if owasp.ID != "OWASP" || owasp.Version != "2021" || len(owasp.Controls) != 10 {
		t.Fatalf("first framework should be OWASP Top 10 2021 with 10 controls, got %+v", owasp)
	}
	for i, c := range owasp.Controls {
		if want := fmt.Sprintf("OWASP-A%02d", i+1); c.ID != want {
			t.Errorf("OWASP control %d is %s, want %s", i, c.ID, want)
		}
	}
	fws[0].Controls[0].Title = "MUTATED"
	if Frameworks()[0].Controls[0].Title == "MUTATED" {
		t.Error("Frameworks shares memory between calls")
	}
}

func TestCoverage(t *testing.T) {
	injection := []string{"OWASP-A03", "PCI-DSS-6.2.4", "SOC2-CC8.1"}
	fs := []Finding{
		{Fingerprint: "bb", ComplianceTags: injection, Metadata: map[string]any{MetaSuppressedBy: nil}},
		{Fingerprint: "aa", ComplianceTags: injection},
		{Fingerprint: "cc", ComplianceTags: []string{"OWASP-A01", "PCI-DSS-7.2.1"}, Metadata: map[string]any{MetaSuppressedBy: "inline: scand:ignore"}},
		{Fingerprint: "dd", ComplianceTags: []string{"NOT-A-CONTROL"}},
	}
	got := Coverage(fs)
	fws := Frameworks()
	if len(got) != len(fws) {
		t.Fatalf("coverage for %d frameworks, want %d", len(got), len(fws))
	}
	for i, fc := range got {
		fw := fws[i]
		if fc.ID != fw.ID || fc.Name != fw.Name || fc.Version != fw.Version {
			t.Errorf("framework %d: got %s/%s/%s", i, fc.ID, fc.Name, fc.Version)
		}
		if fc.ControlsTotal != len(fw.Controls) || len(fc.Controls) != len(fw.Controls) {
			t.Errorf("%s: %d/%d controls, want %d", fc.ID, fc.ControlsTotal, len(fc.Controls), len(fw.Controls))
		}
		// Exactly one control per framework is violated: the injection one.
		if fc.ControlsViolated != 1 || fc.ControlsClear != len(fw.Controls)-1 {
			t.Errorf("%s: violated %d clear %d", fc.ID, fc.ControlsViolated, fc.ControlsClear)
		}
		wantPct := math.Round(float64(len(fw.Controls)-1)*1000/float64(len(fw.Controls))) / 10
		if fc.ControlsClearPercent != wantPct {
			t.Errorf("%s: clear percent %v, want %v", fc.ID, fc.ControlsClearPercent, wantPct)
		}
		for j, cc := range fc.Controls {
			if cc.ID != fw.Controls[j].ID || cc.Title != fw.Controls[j].Title {
				t.Errorf("%s: control %d is %s, want %s", fc.ID, j, cc.ID, fw.Controls[j].ID)
			}
			if cc.Fingerprints == nil {
				t.Errorf("%s: nil fingerprints", cc.ID)
			}
			if slices.Contains(injection, cc.ID) {
				if cc.Status != ControlViolated || cc.FindingCount != 2 || !reflect.DeepEqual(cc.Fingerprints, []string{"aa", "bb"}) {
					t.Errorf("%s: %+v, want violated by aa and bb", cc.ID, cc)
				}
			} else if cc.Status != ControlClear || cc.FindingCount != 0 || len(cc.Fingerprints) != 0 {
				t.Errorf("%s: %+v, want clear (the suppressed finding must not count)", cc.ID, cc)
			}
		}
	}

	empty := Coverage(nil)
	for _, fc := range empty {
		if fc.ControlsClearPercent != 100 || fc.ControlsViolated != 0 {
			t.Errorf("%s with no findings: %v%% clear, %d violated", fc.ID, fc.ControlsClearPercent, fc.ControlsViolated)
		}
	}

	b, err := json.Marshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"controls_clear_percent":`, `"controls_total":`, `"controls_violated":`, `"finding_count":`, `"fingerprints":[`, `"status":"clear"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("coverage JSON lacks %s: %s", key, b)
		}
	}
}

func TestComplianceTagsForAdvisories(t *testing.T) {
	vulnerableComponent := ComplianceTags(Finding{CWE: "CWE-1104"})
	cases := []struct {
		name string
		f    Finding
		also []string // tags beyond the vulnerable-component ones
		not  []string
	}{
		// The title's "header" must not turn a Go advisory into a misconfiguration.
		{"go advisory without CWE", Finding{RuleID: "GO-2022-1059", ScanType: "dependency", Title: "Denial of service via crafted Accept-Language header"}, nil, []string{"OWASP-A05"}},
		{"ghsa with CWE keeps its weakness", Finding{RuleID: "GHSA-xvch-5gv4-984h", CWE: "CWE-1321", Title: "Prototype Pollution in minimist"}, []string{"OWASP-A08"}, nil},
		{"cve lower case", Finding{RuleID: "cve-2021-44906", CWE: "CWE-79"}, []string{"OWASP-A03"}, nil},
		{"pysec", Finding{RuleID: "PYSEC-2023-62"}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ComplianceTags(c.f)
			for _, want := range append(append([]string(nil), vulnerableComponent...), c.also...) {
				if !slices.Contains(got, want) {
					t.Errorf("tags %v lack %s", got, want)
				}
			}
			for _, bad := range c.not {
				if slices.Contains(got, bad) {
					t.Errorf("tags %v contain %s", got, bad)
				}
			}
			if !slices.IsSorted(got) {
				t.Errorf("tags not sorted: %v", got)
			}
		})
	}
	for _, notAdvisory := range []string{"GO-", "G204", "gosec-G101", "CVE-none", "DF001", "go-module"} {
		if isAdvisoryID(notAdvisory) {
			t.Errorf("%q taken for an advisory id", notAdvisory)
		}
	}
}
