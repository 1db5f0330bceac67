package report

import (
	"strings"
	"testing"

	"scand/finding"
)

func actionRows() []Row {
	mk := func(sev finding.Severity, rule, file string, line int, diff string, md map[string]any) Row {
		if md == nil {
			md = map[string]any{}
		}
		md[finding.MetaSuppressedBy] = nil
		return Row{Stored: &Decoded{F: finding.Finding{ID: rule, Scanner: "s", Severity: sev, Title: "t " + rule, RuleID: rule,
			FilePath: file, Line: line, Fingerprint: "fp-" + rule, Metadata: md}}, Diff: diff}
	}
	return []Row{
		mk(finding.High, "unchanged-high", "a.go", 1, DiffUnchanged, nil),
		mk(finding.High, "vuln", "go.mod", 5, DiffNew, map[string]any{finding.MetaFixedVersion: "v0.3.7"}),
		mk(finding.Low, "new-low", "a.go", 2, DiffNew, nil),
		mk(finding.Critical, "gone", "b.go", 3, DiffFixed, nil),
		mk(finding.Info, "new-info", "z.go", 9, DiffNew, nil),
	}
}

// TestShowHidesRowsNotCounts: --show high leaves the low and info rows
// out of the text and markdown listings, says so, and changes neither the
// counts nor the gate; JSON still lists everything.
func TestShowHidesRowsNotCounts(t *testing.T) {
	g := Gate{FailOn: "low"}
	sum, _ := Summarize(g, rowsOf(actionRows()))
	run := Run{Summary: sum, Show: finding.High, Base: "main", Head: "working tree"}
	var text, md, js strings.Builder
	if err := WriteText(&text, run, g, rowsOf(actionRows()), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, run, g, rowsOf(actionRows())); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, run, g, rowsOf(actionRows())); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if strings.Contains(out, "new-low") || strings.Contains(out, "new-info") {
			t.Errorf("%s lists a row below high:\n%s", name, out)
		}
		if !strings.Contains(out, "vuln") || !strings.Contains(out, "2 findings below high not listed") {
			t.Errorf("%s lacks the high row or the note:\n%s", name, out)
		}
	}
	if !strings.Contains(text.String(), "result: FAILED (2 gating at fail-on low)") {
		t.Errorf("--show changed the gate:\n%s", text.String())
	}
	if !strings.Contains(js.String(), "new-low") || !strings.Contains(js.String(), "new-info") {
		t.Errorf("JSON hid rows:\n%s", js.String())
	}
}

// TestFixedVersionAndNewFirst: a vulnerable dependency's fixed version is
// in both listings, and the text report of a diff lists new findings
// before unchanged and fixed ones.
func TestFixedVersionAndNewFirst(t *testing.T) {
	g := Gate{FailOn: "high"}
	sum, _ := Summarize(g, rowsOf(actionRows()))
	var text, md strings.Builder
	run := Run{Summary: sum, Base: "main", Head: "working tree"}
	if err := WriteText(&text, run, g, rowsOf(actionRows()), false); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, run, g, rowsOf(actionRows())); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "t vuln (fixed in v0.3.7)") || !strings.Contains(md.String(), "t vuln (fixed in `v0.3.7`)") {
		t.Errorf("no fixed version:\n%s\n%s", text.String(), md.String())
	}
	out := text.String()
	order := []string{"== new ==", "new-low", "vuln", "new-info", "== unchanged ==", "unchanged-high", "== fixed ==", "gone"}
	at := 0
	for _, s := range order {
		i := strings.Index(out[at:], s)
		if i < 0 {
			t.Fatalf("%q not after position %d in:\n%s", s, at, out)
		}
		at += i + len(s)
	}
}

// TestMarkdownLinkBase: with a link base the locations are absolute, and
// a base that could break out of the link destination is not used.
func TestMarkdownLinkBase(t *testing.T) {
	g := Gate{FailOn: "none"}
	sum, _ := Summarize(g, rowsOf(actionRows()))
	for base, want := range map[string]string{
		"https://github.com/o/r/blob/0123abc/sub/": "(https://github.com/o/r/blob/0123abc/sub/go.mod#L5)",
		"":                          "(go.mod#L5)",
		"https://x/y) [evil](js:/":  "(go.mod#L5)",
		"javascript:alert(1)//x/":   "(go.mod#L5)",
		"https://u:p@host/o/r/":     "(go.mod#L5)",
		"https://host/o/r/no-slash": "(go.mod#L5)",
	} {
		var md strings.Builder
		if err := WriteMarkdown(&md, Run{Summary: sum, Base: "main", LinkBase: base}, g, rowsOf(actionRows())); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md.String(), want) {
			t.Errorf("link base %q: no %s in:\n%s", base, want, md.String())
		}
	}
}
