package report

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"scand/finding"
	"scand/finding/excerpt"
)

var fakeNow = time.Date(2026, 3, 4, 8, 0, 0, 0, time.UTC)

func TestSARIFLocationsAndIDs(t *testing.T) {
	sc := &Scan{ID: "s", TargetPath: "/", TargetURL: "https://shop.test/", TargetHost: "10.0.0.8"}
	cases := []struct {
		name string
		f    finding.Finding
		want string
		ex   *excerpt.Excerpt // nil: none kept
	}{
		{"with the code kept", finding.Finding{FilePath: "a.go", Line: 3}, `[{"physicalLocation":{"artifactLocation":{"uri":"a.go","uriBaseId":"SRCROOT"},` +
			`"region":{"startLine":3,"snippet":{"text":"x := 1"}},"contextRegion":{"startLine":2,"endLine":4,"snippet":{"text":"func f() {\nx := 1\n}"}}}}]`,
			&excerpt.Excerpt{StartLine: 2, Line: 3, Lines: []string{"func f() {", "x := 1", "}"}}},
		{"colon in first segment", finding.Finding{FilePath: "c:weird/x.go", Line: 2}, `[{"physicalLocation":{"artifactLocation":{"uri":"./c:weird/x.go","uriBaseId":"SRCROOT"},"region":{"startLine":2}}}]`, nil},
		{"non-ascii and hash", finding.Finding{FilePath: "dir/ä#1.txt"}, `[{"physicalLocation":{"artifactLocation":{"uri":"dir/%C3%A4%231.txt","uriBaseId":"SRCROOT"}}}]`, nil},
		{"dast url from metadata", finding.Finding{ScanType: typeDAST, Metadata: map[string]any{"url": "https://shop.test/login"}}, `[{"physicalLocation":{"artifactLocation":{"uri":"https://shop.test/login"}}}]`, nil},
		{"dast target url", finding.Finding{ScanType: typeDAST}, `[{"physicalLocation":{"artifactLocation":{"uri":"https://shop.test/"}}}]`, nil},
		{"network host", finding.Finding{ScanType: typeNetwork}, `[{"logicalLocations":[{"name":"10.0.0.8","kind":"resource"}]}]`, nil},
		{"nothing to point at", finding.Finding{ScanType: "baseline"}, `null`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := json.Marshal(sarifLocations(sc, tc.f, tc.ex))
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	for in, want := range map[finding.CWE]string{"CWE-798": "798", "cwe-22": "22", "798": "798", "": "", "CWE-": "", "NVD-CWE-Other": ""} {
		if got := sarifCWEID(in); got != want {
			t.Errorf("sarifCWEID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReportHTMLEdgeCases(t *testing.T) {
	started := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
	completed := started.Add(1500 * time.Millisecond)
	cases := []struct {
		name     string
		scan     Scan
		findings []Decoded
		want     []string
		absent   []string
	}{
		{"no findings", Scan{ID: "s1", TargetPath: "/a", StartedAt: started, CompletedAt: &completed, ScannersRun: []string{"secrets"}},
			nil,
			[]string{"The scan found nothing.", "No scanner was skipped.", "No finding carries a compliance tag.", "<td>2s</td>", `id="findings-total">0<`},
			[]string{`class="group"`}},
		{"dast and network locations", Scan{ID: "s2", TargetPath: "/", TargetURL: "https://shop.test/login", TargetHost: "10.0.0.8", StartedAt: started, CompletedAt: &completed},
			[]Decoded{
				{F: finding.Finding{Scanner: "builtin_dast", ScanType: typeDAST, Severity: finding.Medium, Title: "Missing CSP", RuleID: "hdr-csp"}},
				{F: finding.Finding{Scanner: "nmap", ScanType: typeNetwork, Severity: finding.Low, Title: "Telnet open", RuleID: "port-23"}},
			},
			[]string{"<tr><th>Target URL</th><td class=\"mono\">https://shop.test/login</td></tr>", "<dt>Location</dt><dd><code>https://shop.test/login</code></dd>",
				"<dt>Location</dt><dd><code>10.0.0.8</code></dd>", "1 finding</h2>"},
			[]string{"1 findings"}},
		{"unknown severity is still shown", Scan{ID: "s3", TargetPath: "/a", StartedAt: started},
			[]Decoded{{F: finding.Finding{Scanner: "x", Severity: "severe", Title: "odd one", RuleID: "r"}}},
			[]string{`id="severity-severe"`, "odd one", "<td>not completed</td>"},
			nil},
		{"bidi controls are shown, not obeyed", Scan{ID: "s5", TargetPath: "/repo\u2066x", StartedAt: started, CompletedAt: &completed,
			Skipped: []Skipped{{Name: "bandit\u202e", Reason: "not installed"}}},
			[]Decoded{{F: finding.Finding{Scanner: "secrets\u200f", Severity: finding.High, Title: "key in invoice\u202egnp.js", RuleID: "r\u061c",
				FilePath: "docs/invoice\u202egnp.js", Description: "see \u2067here\u2069", Metadata: map[string]any{"suppressed_by": "x\u202d"}}}},
			[]string{"invoice[U+202E]gnp.js", "[U+2067]here[U+2069]", "/repo[U+2066]x", "r[U+061C]", "bandit[U+202E]"},
			[]string{"\u202e", "\u2066", "\u2067", "\u2069", "\u200f", "\u061c", "\u202d"}},
		{"structured suppressed_by", Scan{ID: "s4", TargetPath: "/a", StartedAt: started, CompletedAt: &completed},
			[]Decoded{{F: finding.Finding{Scanner: "x", Severity: finding.High, Title: "t", RuleID: "r", FilePath: "a.go",
				Metadata: map[string]any{"suppressed_by": map[string]any{"rule": "nosec", "line": 3}}}}},
			[]string{"{&#34;line&#34;:3,&#34;rule&#34;:&#34;nosec&#34;}", "<code>a.go</code>"},
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page, err := RenderHTML(tc.scan, tc.findings, fakeNow)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !bytes.Contains(page, []byte(w)) {
					t.Errorf("report lacks %q", w)
				}
			}
			for _, a := range tc.absent {
				if bytes.Contains(page, []byte(a)) {
					t.Errorf("report contains %q", a)
				}
			}
		})
	}
}

func TestReportChartScales(t *testing.T) {
	ch := reportBuildChart([]reportCount{{Label: "Critical", Count: 0}, {Label: "High", Count: 200}, {Label: "Medium", Count: 1}, {Label: "Low", Count: 100}})
	got := []int{ch.Bars[0].BarW, ch.Bars[1].BarW, ch.Bars[2].BarW, ch.Bars[3].BarW}
	want := []int{0, 200, 2, 100} // the largest spans the plot; 1 of 200 stays visible
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bar widths %v, want %v", got, want)
		}
	}
}
