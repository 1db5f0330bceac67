package report

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"net/url"
	"strings"
	"testing"
	"time"

	"scand/finding"
)

// rawRow is a stored finding as the store hands it out: its JSON, read
// through finding.ParseJSON and finding.DecodeJSON.
type rawRow struct{ body []byte }

func (r rawRow) Raw(tags [][]byte) (finding.RawFinding, bool) { return finding.ParseJSON(r.body, tags) }
func (r rawRow) Finding() (finding.Finding, error)            { return finding.DecodeJSON(r.body, MetadataKeys) }
func (r rawRow) AppendJSON(b []byte) ([]byte, error)          { return append(b, r.body...), nil }

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
		f := finding.Finding{ID: pick(), Scanner: pick(), ScanType: []string{"code", "dast", "network"}[i%3],
			Severity: finding.Severities[i%5], Title: pick(), Description: pick(), RuleID: pick(), CWE: finding.CWE(pick()),
			Fingerprint: pick(), Metadata: map[string]any{}}
		row := Row{Diff: []string{"", DiffNew, DiffUnchanged, DiffFixed}[i%4], Baselined: i%6 == 0}
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
			row.Triage = &Triage{Status: []string{"false_positive", "fixed"}[i%2], Note: pick(), UpdatedBy: pick(), UpdatedAt: time.Unix(0, 0)}
		}
		if i%2 == 0 {
			row.Seen = &Seen{First: time.Unix(int64(rng.Intn(1e9)), 0), Last: time.Unix(int64(1e9+rng.Intn(1e9)), 0)}
		}
		sc := &Scan{ID: "s", TargetURL: url, TargetHost: host}
		res := sarifResultOf(sc, f, &row, map[string]int{f.RuleID: i}, map[string]string{f.RuleID: pick()})
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
			ScanType: pick(), RuleID: pick(), CWE: pick(), Seen: pick(), Location: pick(), Fingerprint: pick(), Triage: pick(), TriageNote: pick(),
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

// TestRawExportPathsMatchDecoded: SARIF results and report entries copied
// from the stored tokens equal the ones built from the decoded finding.
func TestRawExportPathsMatchDecoded(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	strs := hostileStrings(rng, 300)
	plain := []string{"src/app.go", "GitHub token", "rule-1", "a b", "x/y z.conf", "CWE-798", "Überweisung 日本"}
	pick := func() string {
		if rng.Intn(2) == 0 {
			return plain[rng.Intn(len(plain))]
		}
		return strs[rng.Intn(len(strs))]
	}
	fast := 0
	for i := 0; i < 600; i++ {
		f := finding.Finding{ID: pick(), ScanID: "s", Scanner: pick(), ScanType: pick(), Severity: finding.Severities[i%5], Title: pick(),
			Description: pick(), FilePath: pick(), Line: rng.Intn(3), RuleID: pick(), CWE: finding.CWE(pick()), Fingerprint: pick()}
		if i%2 == 0 {
			f.ComplianceTags = []string{pick(), pick()}
		}
		switch i % 5 {
		case 0:
			f.Metadata = map[string]any{"suppressed_by": pick(), "redacted": pick(), "url": pick()}
		case 1:
			f.Metadata = map[string]any{"suppressed_by": map[string]any{"rule": pick()}}
		case 2:
			f.Metadata = map[string]any{"suppressed_by": nil}
		}
		var state *Triage
		if i%4 == 0 {
			state = &Triage{Status: []string{"new", "triaged", "false_positive", "accepted_risk", "fixed", "wont_fix"}[i%6], Note: pick(), UpdatedBy: pick(), UpdatedAt: time.Unix(int64(i), 0)}
		}
		var seen *Seen
		if i%3 != 1 {
			seen = &Seen{First: time.Unix(int64(i)*86400, 0), Last: time.Unix(int64(i)*86400+3600, 0).In(time.FixedZone("x", 3600))}
		}
		body, _ := json.Marshal(f)
		row := Row{Stored: rawRow{body}, Triage: state, Diff: []string{"", DiffNew, DiffFixed}[i%3], Baselined: i%5 == 1, Seen: seen}
		raw, ok := row.Raw(nil)
		if !ok {
			t.Fatalf("finding %d: stored layout not recognized: %s", i, body)
		}
		fw, err := row.Finding()
		if err != nil {
			t.Fatal(err)
		}
		sc := &Scan{ID: "s", TargetPath: "/t"}
		first := map[string]string{fw.RuleID: pick()}
		if i%3 == 0 {
			first[fw.RuleID] = fw.Description
		}
		firstRaw := map[string][]byte{fw.RuleID: jsonInner(finding.AppendJSONString(nil, first[fw.RuleID]))}
		index := map[string]int{fw.RuleID: i}
		if got, ok := appendSARIFResultRaw(nil, "        ", &raw, &row, index, firstRaw); ok {
			fast++
			res := sarifResultOf(sc, fw, &row, index, first)
			if want := appendSARIFResult(nil, &res, "        "); !bytes.Equal(got, want) {
				t.Fatalf("SARIF %d:\nraw     %s\ndecoded %s", i, got, want)
			}
		}
		if got, ok := appendReportFindingRaw(nil, &raw, state, seen, i, "#991b1b"); ok {
			rf := reportFindingView(sc, fw, state, seen, i, "#991b1b")
			if want := appendReportFinding(nil, &rf); !bytes.Equal(got, want) {
				t.Fatalf("report %d:\nraw     %q\ndecoded %q", i, got, want)
			}
		}
	}
	if fast < 50 {
		t.Errorf("the raw SARIF path was taken %d times of 600", fast)
	}
}

func TestSARIFURIPlainPathUnchanged(t *testing.T) {
	slow := func(p string) string {
		segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		out := strings.Join(segs, "/")
		if first, _, _ := strings.Cut(out, "/"); strings.Contains(first, ":") {
			out = "./" + out
		}
		return out
	}
	rng := rand.New(rand.NewSource(7))
	alphabet := "aZ09-._~/ :%+?#é"
	for i := 0; i < 5000; i++ {
		b := make([]byte, rng.Intn(12))
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		if got, want := sarifURI(string(b)), slow(string(b)); got != want {
			t.Fatalf("sarifURI(%q) = %q, want %q", b, got, want)
		}
	}
}
