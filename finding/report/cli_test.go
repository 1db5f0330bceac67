package report

import (
	"encoding/json"
	"iter"
	"strings"
	"testing"

	"scand/finding"
	"scand/finding/excerpt"
)

func rowsOf(rs []Row) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		for _, r := range rs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

// verdict is a new finding with a triage verdict, as a store hands it out.
func verdict(d *Decoded, status string) Row {
	d.State = &Triage{Status: status}
	return Row{Stored: d, Triage: d.State, Diff: DiffNew}
}

func cliRows() []Row {
	mk := func(sev finding.Severity, rule, file string, md map[string]any) *Decoded {
		if md == nil {
			md = map[string]any{finding.MetaSuppressedBy: nil}
		}
		return &Decoded{F: finding.Finding{ID: rule, Scanner: "secrets", ScanType: "code", Severity: sev, Title: "t " + rule, RuleID: rule,
			FilePath: file, Line: 3, Fingerprint: "fp-" + rule, Metadata: md}}
	}
	return []Row{
		{Stored: mk(finding.Critical, "new-crit", "a.py", nil), Diff: DiffNew},
		{Stored: mk(finding.Critical, "old-crit", "a.py", nil), Diff: DiffUnchanged},
		{Stored: mk(finding.High, "suppressed", "b.py", map[string]any{finding.MetaSuppressedBy: "config: .scand.toml [ignore] rules suppressed"}), Diff: DiffNew},
		{Stored: mk(finding.High, "baselined", "b.py", nil), Diff: DiffNew, Baselined: true},
		verdict(mk(finding.High, "fp", "c.py", nil), "false_positive"),
		verdict(mk(finding.High, "fixed-bug", "c.py", nil), "fixed"),
		{Stored: mk(finding.Low, "low", "d.py", nil), Diff: DiffNew},
		{Stored: mk(finding.Critical, "gone", "e.py", nil), Diff: DiffFixed},
	}
}

func TestGateAndSummary(t *testing.T) {
	s, err := Summarize(Gate{FailOn: "high"}, rowsOf(cliRows()))
	if err != nil {
		t.Fatal(err)
	}
	// new-crit and fixed-bug (a "fixed" verdict that still shows up is
	// live) gate; old-crit is unchanged; the rest are taken out.
	if s.Gating != 2 || s.New != 6 || s.Unchanged != 1 || s.Fixed != 1 || s.Findings != 7 || s.Suppressed != 1 || s.Baselined != 1 || s.Hidden != 1 {
		t.Errorf("summary %+v", s)
	}
	if s.Live.Critical != 2 || s.Live.High != 1 || s.Live.Low != 1 {
		t.Errorf("live %+v", s.Live)
	}
	if n, _ := Summarize(Gate{FailOn: "none"}, rowsOf(cliRows())); n.Gating != 0 {
		t.Error("fail-on none gated")
	}
	if n, _ := Summarize(Gate{FailOn: "low"}, rowsOf(cliRows())); n.Gating != 3 {
		t.Errorf("fail-on low: %d gating", n.Gating)
	}
}

func TestJSONReport(t *testing.T) {
	var b strings.Builder
	g := Gate{FailOn: "high"}
	sum, _ := Summarize(g, rowsOf(cliRows()))
	if err := WriteJSON(&b, Run{Scan: Scan{TargetPath: "/r", Version: "x"}, Base: "main", Head: "working tree", Summary: sum}, g, rowsOf(cliRows())); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Mode     string
		Summary  map[string]any
		Findings []map[string]any
	}
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Mode != "diff" || len(doc.Findings) != 8 || doc.Summary["fixed"] != 1.0 {
		t.Fatalf("doc %+v", doc)
	}
	f := doc.Findings[2]
	if f["diff_status"] != "new" || f["suppressed_by"] != "config: .scand.toml [ignore] rules suppressed" || f["gating"] != false || f["triage"] != "new" {
		t.Errorf("finding %v", f)
	}
	if f := doc.Findings[4]; f["triage"] != "false_positive" || f["state"] == nil {
		t.Errorf("verdict finding %v", f)
	}
}

func TestMarkdownAndTextKeepHostileTextInert(t *testing.T) {
	evil := "<img src=x onerror=alert(1)> | [x](javascript:alert(1)) `code` \x1b[31mred\u202e"
	rows := []Row{{Stored: &Decoded{F: finding.Finding{Scanner: "s", Severity: finding.High, Title: evil, RuleID: "r`|x",
		FilePath: "dir/a b)(.py", Line: 7, Metadata: map[string]any{}}}}}
	for i := 0; i < 60; i++ {
		rows = append(rows, Row{Stored: &Decoded{F: finding.Finding{Scanner: "s", Severity: finding.Low, Title: "t", RuleID: "r", FilePath: "z.py", Line: i}}})
	}
	g := Gate{FailOn: "high"}
	sum, _ := Summarize(g, rowsOf(rows))
	var md strings.Builder
	if err := WriteMarkdown(&md, Run{Summary: sum, Scan: Scan{Skipped: []Skipped{{Name: "bandit", Reason: "not installed", InstallHint: "apt-get install <bandit>"}, {Name: "gosec", Reason: SkippedIdle}}}}, g, rowsOf(rows)); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if !strings.HasPrefix(out, MarkdownMarker+"\n") {
		t.Errorf("no marker line: %q", out[:40])
	}
	for _, bad := range []string{"<img", "](javascript", "\x1b", "\u202e", "<bandit>"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown carries %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "(dir/a%20b%29%28.py#L7)") || !strings.Contains(out, "…and 11 more.") || !strings.Contains(out, "Not needed here (no file they read): gosec.") {
		t.Errorf("markdown:\n%s", out)
	}
	var text strings.Builder
	if err := WriteText(&text, Run{Summary: sum}, g, rowsOf(rows), true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "\x1b[31mred") || strings.Contains(text.String(), "\u202e") || !strings.Contains(text.String(), "[U+001B][31mred[U+202E]") {
		t.Errorf("text:\n%q", text.String())
	}
	if !strings.Contains(text.String(), "\x1b[31mhigh") {
		t.Error("no colour where asked for")
	}
}

// TestMarkdownShowsNewFindingsCode: a diff's new finding with an excerpt
// gets its code in a fence no line can close (the stored lines are
// already redacted and defused); unchanged findings and findings without
// an excerpt get none.
func TestMarkdownShowsNewFindingsCode(t *testing.T) {
	ex := &excerpt.Excerpt{StartLine: 9, Line: 10, Lines: []string{"~~~~~ end?", "token = 'ghp_…********'", "</details><script>x</script>"}}
	rows := []Row{
		{Stored: &Decoded{F: finding.Finding{Scanner: "secrets", Severity: finding.High, Title: "GitHub token", RuleID: "github-pat", FilePath: "a.py", Line: 10}},
			Diff: DiffNew, Excerpt: ex},
		{Stored: &Decoded{F: finding.Finding{Scanner: "secrets", Severity: finding.High, Title: "Old one", RuleID: "github-pat", FilePath: "b.py", Line: 3}},
			Diff: DiffUnchanged, Excerpt: &excerpt.Excerpt{StartLine: 3, Line: 3, Lines: []string{"UNCHANGED CODE"}}},
	}
	g := Gate{FailOn: "high"}
	sum, _ := Summarize(g, rowsOf(rows))
	var md strings.Builder
	if err := WriteMarkdown(&md, Run{Summary: sum, Base: "main", Head: "pr"}, g, rowsOf(rows)); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	fence := strings.Repeat("~", 6)
	for _, want := range []string{"<summary>Code of the new findings</summary>", fence + "\n", "> 10 | token = 'ghp_…********'", "   9 | ~~~~~ end?"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "UNCHANGED CODE") || strings.Count(out, fence+"\n") != 2 {
		t.Errorf("markdown:\n%s", out)
	}
}
