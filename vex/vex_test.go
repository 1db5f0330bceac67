package vex

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"scand/finding"
)

func advisory(eco, pkg, version, rule string, aliases ...string) finding.Finding {
	ids := append([]string{rule}, aliases...)
	return finding.Finding{Scanner: "osv-scanner", ScanType: "dependency", RuleID: rule, Metadata: map[string]any{
		"package": pkg, "version": version, "ecosystem": eco, "aliases": ids, "advisory_id": finding.CanonicalAdvisoryID(ids)}}
}

func TestPURLOfAndParse(t *testing.T) {
	cases := []struct {
		f        finding.Finding
		purl     string
		key, ver string
	}{
		{advisory("npm", "lodash", "4.17.15", "GHSA-p6mc-m468-83gw", "CVE-2020-8203"), "pkg:npm/lodash@4.17.15", "npm/lodash", "4.17.15"},
		{advisory("npm", "@babel/core", "7.0.0", "GHSA-x"), "pkg:npm/%40babel/core@7.0.0", "npm/@babel/core", "7.0.0"},
		{advisory("Go", "golang.org/x/text", "v0.3.0", "GO-2021-0113"), "pkg:golang/golang.org/x/text@v0.3.0", "golang/golang.org/x/text", "0.3.0"},
		{advisory("PyPI", "Django_Rest", "1.0", "PYSEC-1"), "pkg:pypi/Django_Rest@1.0", "pypi/django-rest", "1.0"},
		{advisory("Maven", "org.apache:commons", "2.0", "CVE-1"), "pkg:maven/org.apache/commons@2.0", "maven/org.apache/commons", "2.0"},
		{advisory("debian", "openssl", "1.1.1n-0+deb11u4", "CVE-2"), "pkg:deb/debian/openssl@1.1.1n-0%2Bdeb11u4", "deb/debian/openssl", "1.1.1n-0+deb11u4"},
	}
	for _, c := range cases {
		if got := PURLOf(c.f); got != c.purl {
			t.Errorf("PURLOf(%v) = %q, want %q", c.f.Metadata["package"], got, c.purl)
		}
		p, err := ParsePURL(c.purl)
		if err != nil {
			t.Fatalf("ParsePURL(%q): %v", c.purl, err)
		}
		key, ver, ok := FindingKey(c.f)
		if !ok || key != c.key || ver != c.ver || p.Key() != c.key || NormalizeVersion(p.Version) != c.ver {
			t.Errorf("%s: finding key %q %q %v, purl key %q %q; want %q %q", c.purl, key, ver, ok, p.Key(), p.Version, c.key, c.ver)
		}
	}
	p, err := ParsePURL("pkg:deb/debian/curl@7.74.0-1.3?arch=amd64&distro=debian-11&epoch=1#sub")
	if err != nil || p.Version != "1:7.74.0-1.3" || p.Key() != "deb/debian/curl" {
		t.Errorf("qualified purl: %+v %v", p, err)
	}
	for _, bad := range []string{"", "npm/lodash", "pkg:", "pkg:npm", "pkg:npm/%zz"} {
		if _, err := ParsePURL(bad); err == nil {
			t.Errorf("ParsePURL(%q) accepted", bad)
		}
	}
}

func TestStatementOfVerdicts(t *testing.T) {
	f := advisory("npm", "minimist", "1.2.0", "GHSA-xvch-5gv4-984h", "CVE-2021-44906")
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	exp := at.Add(30 * 24 * time.Hour)
	cases := []struct {
		v             Verdict
		gone          bool
		status, just  string
		contains      string
		cdxState, cdx string
	}{
		{Verdict{Status: "false_positive", Note: "never called", UpdatedBy: "ana"}, false, NotAffected, DefaultJustification, "", "not_affected", "code_not_reachable"},
		{Verdict{Status: "false_positive", Justification: "component_not_present"}, false, NotAffected, "component_not_present", "", "not_affected", "code_not_present"},
		{Verdict{Status: "accepted_risk", Note: "internal only", UpdatedBy: "bo", ExpiresAt: &exp}, false, Affected, "", "expires at 2026-03-31T10:00:00Z", "exploitable", ""},
		{Verdict{Status: "wont_fix", UpdatedBy: "bo"}, false, Affected, "", "Will not be fixed", "exploitable", ""},
		{Verdict{Status: "false_positive"}, true, Fixed, "", "", "resolved", ""},
		{Verdict{Status: "triaged"}, false, UnderInvestigation, "", "", "in_triage", ""},
	}
	for _, c := range cases {
		c.v.UpdatedAt = at
		st, ok := StatementOf(f, "", c.v, c.gone, at)
		if !ok || st.Status != c.status || st.Justification != c.just || !strings.Contains(st.ActionStatement, c.contains) {
			t.Errorf("%+v gone=%v: %+v", c.v, c.gone, st)
			continue
		}
		if st.Vulnerability != "CVE-2021-44906" || len(st.Aliases) != 1 || st.Aliases[0] != "GHSA-xvch-5gv4-984h" || st.Products[0] != "pkg:npm/minimist@1.2.0" {
			t.Errorf("ids/products: %+v", st)
		}
		v := cycloneDXVulnerability(st, "")
		if v.Analysis.State != c.cdxState || v.Analysis.Justification != c.cdx {
			t.Errorf("%s: CycloneDX analysis %+v", c.v.Status, v.Analysis)
		}
	}
	if _, ok := StatementOf(f, "", Verdict{Status: "new"}, false, at); ok {
		t.Error("the verdict new made a statement")
	}
	if _, ok := StatementOf(finding.Finding{RuleID: "G101"}, "", Verdict{Status: "false_positive"}, false, at); ok {
		t.Error("a finding that is no advisory made a statement")
	}
}

// TestWriteParseRoundTrip writes both formats and reads them back: the
// reader takes what the writer writes, and matching finds the finding.
func TestWriteParseRoundTrip(t *testing.T) {
	fp := advisory("npm", "minimist", "1.2.0", "GHSA-xvch-5gv4-984h", "CVE-2021-44906")
	other := advisory("npm", "lodash", "4.17.15", "GHSA-p6mc-m468-83gw", "CVE-2020-8203")
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	st, _ := StatementOf(fp, "", Verdict{Status: "false_positive", Note: "not reachable", UpdatedAt: at}, false, at)
	st2, _ := StatementOf(other, "", Verdict{Status: "accepted_risk", UpdatedAt: at}, false, at)
	for _, format := range Formats {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, format, Header{ID: DocumentID("t"), Author: "ACME PSIRT", Timestamp: at, ToolVersion: "0.11.0",
			BOMLink: "urn:cdx:0c4d5943-368e-519b-8fa9-9c0ec1174c0e/1"})
		if err != nil {
			t.Fatal(err)
		}
		// The same statement twice (one package version, two lockfiles)
		// is written once: both schemas want unique statements.
		for _, s := range []Statement{st, st2, st} {
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
		if w.Count() != 2 {
			t.Errorf("%s: %d statements written, want 2", format, w.Count())
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !json.Valid(buf.Bytes()) {
			t.Fatalf("%s: not JSON:\n%s", format, buf.String())
		}
		doc, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v\n%s", format, err, buf.String())
		}
		if doc.Format != format || doc.Author != "ACME PSIRT" || len(doc.Statements) != 2 {
			t.Fatalf("%s: read %+v", format, doc)
		}
		got := doc.Statements[0]
		if got.Status != NotAffected || got.Justification != DefaultJustification || got.ImpactStatement != "not reachable" || got.Products[0] != "pkg:npm/minimist@1.2.0" {
			t.Errorf("%s: statement read back %+v", format, got)
		}
		x := NewIndex(doc.Statements)
		if m, _, ok := x.Match(fp); !ok || m.Status != NotAffected {
			t.Errorf("%s: the marked finding does not match: %+v %v", format, m, ok)
		}
		if m, _, ok := x.Match(other); !ok || m.Status != Affected {
			t.Errorf("%s: the accepted finding matches %+v %v", format, m, ok)
		}
		if _, _, ok := x.Match(advisory("npm", "minimist", "1.2.6", "GHSA-xvch-5gv4-984h")); ok {
			t.Errorf("%s: another version matched", format)
		}
	}
}

func TestParseProblems(t *testing.T) {
	cases := []struct {
		doc, loc, msg string
	}{
		{`[]`, "document", "JSON object"},
		{`{"foo":1}`, "document", "neither OpenVEX"},
		{`{"@context":"https://openvex.dev/ns/v0.2.0","@id":"x","author":"a","timestamp":"2026-01-01T00:00:00Z","version":1,"statements":[{"vulnerability":{"name":"CVE-1"},"status":"not_affected","products":[{"@id":"pkg:npm/a@1"}]}]}`,
			"statements[0].justification", "needs a justification"},
		{`{"@context":"https://openvex.dev/ns/v0.2.0","@id":"x","author":"a","timestamp":"2026-01-01T00:00:00Z","version":1,"statements":[{"vulnerability":{"name":"CVE-1"},"status":"maybe"}]}`,
			"statements[0].status", "status must be one of"},
		{`{"@context":"https://openvex.dev/ns/v0.2.0","@id":"x","timestamp":"yesterday","version":1,"statements":[{"vulnerability":{},"status":"fixed"}]}`,
			"author", "field required"},
		{`{"bomFormat":"CycloneDX","specVersion":"1.5","vulnerabilities":[{"id":"CVE-1","analysis":{"state":"not_affected","justification":"because"},"affects":[{"ref":"pkg:npm/a@1"}]}]}`,
			"vulnerabilities[0].analysis.justification", "not one of"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc))
		p, ok := IsProblems(err)
		if !ok {
			t.Errorf("%s: err %v", c.doc, err)
			continue
		}
		found := false
		for _, pr := range p.Problems {
			if locString(pr.Loc) == c.loc && strings.Contains(pr.Msg, c.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: problems %v, want %s: %s", c.doc, err, c.loc, c.msg)
		}
	}
	if _, err := Parse(make([]byte, MaxDocumentBytes+1)); err != ErrTooLarge {
		t.Errorf("oversized: %v", err)
	}
}
