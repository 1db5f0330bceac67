package api

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

// hostileStrings mixes the characters each encoder treats specially.
func hostileStrings(rng *rand.Rand, n int) []string {
	alphabet := []string{"a", "Z", "0", " ", "<", ">", "&", "'", "\"", "+", "\\", "/", "\x00", "\n", "\t", "é", "日", "\u2028",
		"\xff", "\xc3", "&amp;", "</dd>", "{{", "}}", "%", ":"}
	out := []string{""}
	for i := 0; i < n; i++ {
		var b bytes.Buffer
		for j := rng.Intn(12); j > 0; j-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestFastSARIFResultMatchesMarshalIndent: the streamed SARIF writes each
// result by hand; json.MarshalIndent of sarifResult is its specification.
func TestFastSARIFResultMatchesMarshalIndent(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	strs := hostileStrings(rng, 300)
	pick := func() string { return strs[rng.Intn(len(strs))] }
	url, host := "https://t.example/x?a=<b>", "10.0.0.1"
	for i := 0; i < 400; i++ {
		f := store.FindingWithState{Finding: finding.Finding{ID: pick(), Scanner: pick(), ScanType: []string{"code", "dast", "network"}[i%3],
			Severity: finding.Severities[i%5], Title: pick(), Description: pick(), RuleID: pick(), CWE: finding.CWE(pick()),
			Fingerprint: pick(), Metadata: map[string]any{}}}
		switch i % 4 {
		case 0:
			f.FilePath, f.Line = pick(), rng.Intn(3)
		case 1:
			f.Metadata["url"] = pick()
		}
		if i%3 == 0 {
			f.ComplianceTags = []string{pick(), pick()}
		}
		if i%5 == 0 {
			f.Metadata["suppressed_by"] = pick()
		}
		if i%7 == 0 {
			f.State = &store.TriageState{Status: []string{"false_positive", "fixed"}[i%2], Note: pick(), UpdatedBy: pick(), UpdatedAt: time.Unix(0, 0)}
		}
		sc := store.Scan{ID: "s", TargetURL: &url, TargetHost: &host}
		res := sarifResultOf(sc, f, map[string]int{f.RuleID: i}, map[string]string{f.RuleID: pick()})
		want, err := json.MarshalIndent(res, "        ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if got := appendSARIFResult(nil, &res, "        "); !bytes.Equal(got, want) {
			t.Fatalf("finding %d:\ngot  %s\nwant %s", i, got, want)
		}
	}
}

// TestFastReportFindingMatchesTemplate: the report writes each finding by
// hand; the template's "finding" block is its specification.
func TestFastReportFindingMatchesTemplate(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	strs := hostileStrings(rng, 300)
	pick := func() string {
		if rng.Intn(3) == 0 {
			return ""
		}
		return strs[rng.Intn(len(strs))]
	}
	colors := []string{}
	for _, c := range reportSeverityColors {
		colors = append(colors, c)
	}
	for i := 0; i < 400; i++ {
		rf := reportFinding{Color: colors[i%len(colors)], N: rng.Intn(100000), Title: pick(), Description: pick(), Scanner: pick(),
			ScanType: pick(), RuleID: pick(), CWE: pick(), Location: pick(), Fingerprint: pick(), Triage: pick(), TriageNote: pick(),
			TriageBy: pick(), TriageAt: pick(), Hidden: i%2 == 0, SuppressedBy: pick()}
		for j := rng.Intn(3); j > 0; j-- {
			rf.Tags = append(rf.Tags, pick())
		}
		var want bytes.Buffer
		if err := reportTemplate.ExecuteTemplate(&want, "finding", rf); err != nil {
			t.Fatal(err)
		}
		if got := appendReportFinding(nil, &rf); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("finding %d:\ngot  %q\nwant %q", i, got, want.Bytes())
		}
	}
}
