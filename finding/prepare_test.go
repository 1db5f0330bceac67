package finding

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/finding")

const fixtureDir = "../testdata/finding"

// fixtureFinding is a raw finding as a scanner returns it, snippet included
// (Finding.Snippet is never serialized).
type fixtureFinding struct {
	Finding
	RawSnippet string `json:"snippet"`
}

func loadRawFindings(t *testing.T) []Finding {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, "raw_findings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx []fixtureFinding
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	out := make([]Finding, len(fx))
	for i, f := range fx {
		out[i] = f.Finding
		out[i].Snippet = f.RawSnippet
	}
	return out
}

// treeLineSource reads lines from a fixture tree, the way the orchestrator's
// LineSource reads the scan target.
func treeLineSource(t *testing.T, root string) LineSource {
	t.Helper()
	cache := map[string][]string{}
	return func(path string, line int) (string, string, bool) {
		lines, ok := cache[path]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
			if err != nil {
				return "", "", false
			}
			lines = strings.Split(string(b), "\n")
			cache[path] = lines
		}
		if line < 1 || line > len(lines) {
			return "", "", false
		}
		prev := ""
		if line > 1 {
			prev = lines[line-2]
		}
		return lines[line-1], prev, true
	}
}

func sequentialIDs() func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("finding-%03d", n)
	}
}

func byRule(t *testing.T, fs []Finding, rule string, line int) Finding {
	t.Helper()
	for _, f := range fs {
		if f.RuleID == rule && f.Line == line {
			return f
		}
	}
	t.Fatalf("no finding %s at line %d", rule, line)
	return Finding{}
}

// TestPrepareGolden runs the fixture scan through Prepare and compares the
// JSON with the reviewed golden file (go test ./finding/ -run Golden -update
// rewrites it).
func TestPrepareGolden(t *testing.T) {
	raw := loadRawFindings(t)
	got := Prepare("scan-1", raw, treeLineSource(t, filepath.Join(fixtureDir, "src")), sequentialIDs())

	// The properties the golden file is reviewed for, asserted directly.
	if s := byRule(t, got, "aws-access-key-id", 3).Metadata[MetaSuppressedBy]; s != "inline: scand:ignore aws-access-key-id -- documented sample" {
		t.Errorf("same-line suppression: %v", s)
	}
	if s := byRule(t, got, "generic-password", 6).Metadata[MetaSuppressedBy]; s != "inline: scand:ignore generic-password -- local dev only" {
		t.Errorf("line-above suppression: %v", s)
	}
	if s := byRule(t, got, "generic-token", 7).Metadata[MetaSuppressedBy]; s != nil {
		t.Errorf("directive for another rule suppressed generic-token: %v", s)
	}
	if l := byRule(t, got, "generic-password", 4).Metadata[MetaAlsoAtLines]; !reflect.DeepEqual(l, []int{9}) {
		t.Errorf("identical line 9 should collapse into line 4: also_at_lines=%v", l)
	}
	if a := byRule(t, got, "DS002", 2).Metadata[MetaAlsoReportedBy]; !reflect.DeepEqual(a, []string{"dockerfile"}) {
		t.Errorf("trivy DS002 should absorb dockerfile DF002: %v", a)
	}
	if a := byRule(t, got, "python.lang.security.sqli.string-concat", 5).Metadata[MetaAlsoReportedBy]; !reflect.DeepEqual(a, []string{"bandit"}) {
		t.Errorf("semgrep should absorb bandit (same CWE, backslash path): %v", a)
	}
	if a := byRule(t, got, "missing-hsts", 0).Metadata[MetaAlsoReportedBy]; !reflect.DeepEqual(a, []string{"zap"}) {
		t.Errorf("DAST HSTS findings should merge: %v", a)
	}
	if f := byRule(t, got, "open-port", 0); f.Line != 0 || len(f.ComplianceTags) == 0 {
		t.Errorf("network finding: line %d tags %v", f.Line, f.ComplianceTags)
	}
	if f := byRule(t, got, "CVE-2021-33503", 0); f.Title != "CVE-2021-33503" || f.CWE != "" || f.Metadata[MetaOriginalCWE] != "NVD-CWE-Other" {
		t.Errorf("dependency finding cleaning: title %q cwe %q md %v", f.Title, f.CWE, f.Metadata)
	}
	if len(got) != 13 {
		t.Errorf("want 13 findings after dedup (18 raw: 2 copies, 3 merges), got %d", len(got))
	}
	seenID, seenFP := map[string]bool{}, map[string]bool{}
	for i, f := range got {
		if f.ScanID != "scan-1" || f.ID == "" || seenID[f.ID] || seenFP[f.Fingerprint] {
			t.Errorf("finding %d: scan %q id %q fingerprint %q (ids and fingerprints must be set and unique)", i, f.ScanID, f.ID, f.Fingerprint)
		}
		seenID[f.ID], seenFP[f.Fingerprint] = true, true
		if want := fmt.Sprintf("finding-%03d", i+1); f.ID != want {
			t.Errorf("finding %d has id %s, want %s (ids in canonical order)", i, f.ID, want)
		}
		if i > 0 && compareCanonical(&got[i-1], &got[i]) > 0 {
			t.Errorf("findings %d and %d out of canonical order", i-1, i)
		}
	}

	b, err := MarshalFindings(got)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden := filepath.Join(fixtureDir, "prepared.golden.json")
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("Prepare output differs from %s; rerun with -update and review the diff", golden)
	}
	if strings.Contains(pretty.String(), "AKIAFAKE") {
		t.Error("a secret value from the scanned source reached the JSON")
	}
}

// TestPrepareLineShiftKeepsFingerprints scans a copy of the fixture tree in
// which every file gained three lines on top, was reindented and had its
// comments edited: the findings must keep their fingerprints.
func TestPrepareLineShiftKeepsFingerprints(t *testing.T) {
	raw := loadRawFindings(t)
	shifted := make([]Finding, len(raw))
	for i, f := range raw {
		if f.FilePath != "" && f.Line > 0 {
			f.Line += 3
		}
		shifted[i] = f
	}
	before := Prepare("a", raw, treeLineSource(t, filepath.Join(fixtureDir, "src")), nil)
	after := Prepare("b", shifted, treeLineSource(t, filepath.Join(fixtureDir, "src_shifted")), nil)
	key := func(fs []Finding) map[string]string {
		m := map[string]string{}
		for _, f := range fs {
			line := f.Line
			if line > 0 && f.FilePath != "" && fs[0].ScanID == "b" {
				line -= 3
			}
			m[fmt.Sprintf("%s/%s:%d", f.Scanner, f.RuleID, line)] = f.Fingerprint + fmt.Sprint(f.Metadata[MetaSuppressedBy])
		}
		return m
	}
	if kb, ka := key(before), key(after); !reflect.DeepEqual(kb, ka) {
		for k, v := range kb {
			if ka[k] != v {
				t.Errorf("%s: %s -> %s", k, v, ka[k])
			}
		}
		t.Fatal("fingerprints or suppressions changed by a pure line shift and reindent")
	}
}

func TestPrepareCleans(t *testing.T) {
	cases := []struct {
		name  string
		in    Finding
		check func(t *testing.T, f Finding)
	}{
		{"nil metadata gets suppressed_by", Finding{Scanner: "s", RuleID: "r", Severity: Low}, func(t *testing.T, f Finding) {
			if v, ok := f.Metadata[MetaSuppressedBy]; !ok || v != nil {
				t.Errorf("suppressed_by = %v (present %v), want present and nil", v, ok)
			}
		}},
		{"upper-case severity", Finding{Severity: "HIGH"}, func(t *testing.T, f Finding) {
			if f.Severity != High || f.Metadata[MetaOriginalSeverity] != "HIGH" {
				t.Errorf("severity %q original %v", f.Severity, f.Metadata[MetaOriginalSeverity])
			}
		}},
		{"moderate", Finding{Severity: "moderate"}, func(t *testing.T, f Finding) {
			if f.Severity != Medium {
				t.Errorf("severity %q, want medium", f.Severity)
			}
		}},
		{"unknown severity", Finding{Severity: "warning"}, func(t *testing.T, f Finding) {
			if f.Severity != Info || f.Metadata[MetaOriginalSeverity] != "warning" {
				t.Errorf("severity %q original %v", f.Severity, f.Metadata[MetaOriginalSeverity])
			}
		}},
		{"valid severity leaves no trace", Finding{Severity: Critical}, func(t *testing.T, f Finding) {
			if _, ok := f.Metadata[MetaOriginalSeverity]; ok || f.Severity != Critical {
				t.Errorf("severity %q metadata %v", f.Severity, f.Metadata)
			}
		}},
		{"path cleaning", Finding{FilePath: `.\src\main.go`}, func(t *testing.T, f Finding) {
			if f.FilePath != "src/main.go" {
				t.Errorf("file_path %q", f.FilePath)
			}
		}},
		{"repeated dot-slash", Finding{FilePath: "././/a/b"}, func(t *testing.T, f Finding) {
			if f.FilePath != "a/b" {
				t.Errorf("file_path %q", f.FilePath)
			}
		}},
		{"negative line", Finding{Line: -7}, func(t *testing.T, f Finding) {
			if f.Line != 0 {
				t.Errorf("line %d", f.Line)
			}
		}},
		{"empty title", Finding{RuleID: "G101"}, func(t *testing.T, f Finding) {
			if f.Title != "G101" {
				t.Errorf("title %q", f.Title)
			}
		}},
		{"cwe forms", Finding{CWE: " cwe-0079 "}, func(t *testing.T, f Finding) {
			if f.CWE != "CWE-79" {
				t.Errorf("cwe %q", f.CWE)
			}
		}},
		{"bare cwe number", Finding{CWE: "798"}, func(t *testing.T, f Finding) {
			if f.CWE != "CWE-798" {
				t.Errorf("cwe %q", f.CWE)
			}
		}},
		{"unreadable cwe", Finding{CWE: "NVD-CWE-noinfo"}, func(t *testing.T, f Finding) {
			if f.CWE != "" || f.Metadata[MetaOriginalCWE] != "NVD-CWE-noinfo" {
				t.Errorf("cwe %q metadata %v", f.CWE, f.Metadata)
			}
		}},
		{"compliance tags and scan id", Finding{CWE: "CWE-89"}, func(t *testing.T, f Finding) {
			if f.ScanID != "scan-x" || !reflect.DeepEqual(f.ComplianceTags, ComplianceTags(Finding{CWE: "CWE-89"})) {
				t.Errorf("scan %q tags %v", f.ScanID, f.ComplianceTags)
			}
		}},
		{"snippet suppression without source", Finding{RuleID: "r", Snippet: "x = 1 // scand:ignore r"}, func(t *testing.T, f Finding) {
			if f.Metadata[MetaSuppressedBy] != "inline: scand:ignore r" {
				t.Errorf("suppressed_by %v", f.Metadata[MetaSuppressedBy])
			}
		}},
		{"fingerprint from snippet", Finding{Scanner: "s", RuleID: "r", FilePath: "f", Line: 3, Snippet: "  X = 1  // c"}, func(t *testing.T, f Finding) {
			if want := Fingerprint("s", "r", "f", "x = 1", ""); f.Fingerprint != want {
				t.Errorf("fingerprint %s, want %s", f.Fingerprint, want)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := Prepare("scan-x", []Finding{c.in}, nil, nil)
			if len(out) != 1 {
				t.Fatalf("got %d findings", len(out))
			}
			c.check(t, out[0])
		})
	}
}

func TestPrepareSourceLines(t *testing.T) {
	var calls []string
	src := func(path string, line int) (string, string, bool) {
		calls = append(calls, fmt.Sprintf("%s:%d", path, line))
		if path == "missing.go" {
			return "", "", false
		}
		return "  secret := \"v\"", "// scand:ignore", true
	}
	in := []Finding{
		{Scanner: "s", RuleID: "r", FilePath: "./a.go", Line: 2},
		{Scanner: "s", RuleID: "r", FilePath: "b.go", Line: 2, Snippet: "other := 1"},
		{Scanner: "s", RuleID: "r", FilePath: "missing.go", Line: 2},
		{Scanner: "s", RuleID: "r", FilePath: "c.go", Line: 0},
		{Scanner: "s", RuleID: "r", FilePath: "", Line: 5},
	}
	out := Prepare("x", in, src, nil)
	if want := []string{"a.go:2", "b.go:2", "missing.go:2"}; !reflect.DeepEqual(calls, want) {
		t.Errorf("LineSource calls %v, want %v (cleaned paths, only real locations)", calls, want)
	}
	a, b, m := byFile(out, "a.go"), byFile(out, "b.go"), byFile(out, "missing.go")
	if a.Fingerprint != Fingerprint("s", "r", "a.go", `secret := "v"`, "") {
		t.Error("context not taken from the source line")
	}
	if b.Fingerprint != Fingerprint("s", "r", "b.go", "other := 1", "") {
		t.Error("the scanner's snippet should win over the source line")
	}
	if a.Metadata[MetaSuppressedBy] != "inline: scand:ignore" || b.Metadata[MetaSuppressedBy] != "inline: scand:ignore" {
		t.Error("suppression must come from the source lines when available")
	}
	if m.Fingerprint != Fingerprint("s", "r", "missing.go", "", "") || m.Metadata[MetaSuppressedBy] != nil {
		t.Error("an unreadable line gives an empty context and no suppression")
	}
}

func byFile(fs []Finding, path string) Finding {
	for _, f := range fs {
		if f.FilePath == path {
			return f
		}
	}
	return Finding{}
}

func TestPrepareLeavesRawAlone(t *testing.T) {
	raw := loadRawFindings(t)
	before, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	snippets := make([]string, len(raw))
	for i := range raw {
		snippets[i] = raw[i].Snippet
	}
	_ = Prepare("s", raw, treeLineSource(t, filepath.Join(fixtureDir, "src")), sequentialIDs())
	after, _ := json.Marshal(raw)
	if !bytes.Equal(before, after) {
		t.Error("Prepare modified its input findings")
	}
	for i := range raw {
		if raw[i].Snippet != snippets[i] {
			t.Error("Prepare modified an input snippet")
		}
	}
}

func TestPrepareOrderIndependent(t *testing.T) {
	raw := loadRawFindings(t)
	src := treeLineSource(t, filepath.Join(fixtureDir, "src"))
	want := mustMarshal(t, Prepare("s", raw, src, sequentialIDs()))
	rev := slices.Clone(raw)
	slices.Reverse(rev)
	if got := mustMarshal(t, Prepare("s", rev, src, sequentialIDs())); got != want {
		t.Error("Prepare output depends on the order scanners returned findings in")
	}
}

func TestMarshalFindings(t *testing.T) {
	cases := []struct {
		name string
		in   []Finding
		want string // a fragment the output must contain
	}{
		{"nil list", nil, "[]"},
		{"empty list", []Finding{}, "[]"},
		{"nil tags become []", []Finding{{}}, `"compliance_tags":[]`},
		{"nil metadata becomes suppressed_by null", []Finding{{}}, `"metadata":{"suppressed_by":null}`},
		{"empty cwe is null", []Finding{{}}, `"cwe":null`},
		{"metadata keys sorted", []Finding{{Metadata: map[string]any{"z": 1, "a": 2, MetaSuppressedBy: nil}}}, `"metadata":{"a":2,"suppressed_by":null,"z":1}`},
		{"snippet never serialized", []Finding{{Snippet: "AKIA-SECRET"}}, `"fingerprint":""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := MarshalFindings(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), c.want) {
				t.Errorf("output %s lacks %s", b, c.want)
			}
			if strings.Contains(string(b), "AKIA-SECRET") {
				t.Error("snippet serialized")
			}
		})
	}

	in := []Finding{{Metadata: map[string]any{"k": "v"}}}
	first := mustMarshal(t, in)
	if _, ok := in[0].Metadata[MetaSuppressedBy]; ok || in[0].ComplianceTags != nil {
		t.Error("MarshalFindings modified its input")
	}
	for i := 0; i < 20; i++ {
		if again := mustMarshal(t, in); again != first {
			t.Fatal("MarshalFindings is not deterministic")
		}
	}
	if _, err := MarshalFindings([]Finding{{Metadata: map[string]any{"x": math.NaN()}}}); err == nil {
		t.Error("an unencodable metadata value should be an error, not silent output")
	}
}

// A scanner's own in-source suppression (gosec's #nosec) is kept; a
// scand:ignore on the line wins; anything but a non-empty string is none.
func TestPrepareKeepsAScannersSuppression(t *testing.T) {
	src := func(path string, line int) (string, string, bool) {
		if path == "ignored.go" {
			return "x := 1 // scand:ignore", "", true
		}
		return "x := 1", "", true
	}
	tool := map[string]any{MetaSuppressedBy: "inline: #nosec (gosec)"}
	in := []Finding{
		{Scanner: "s", RuleID: "r", FilePath: "tool.go", Line: 1, Metadata: tool},
		{Scanner: "s", RuleID: "r", FilePath: "ignored.go", Line: 1, Metadata: tool},
		{Scanner: "s", RuleID: "r", FilePath: "plain.go", Line: 1},
		{Scanner: "s", RuleID: "r", FilePath: "odd.go", Line: 1, Metadata: map[string]any{MetaSuppressedBy: 7}},
	}
	out := Prepare("x", in, src, nil)
	for file, want := range map[string]any{"tool.go": "inline: #nosec (gosec)", "ignored.go": "inline: scand:ignore", "plain.go": nil, "odd.go": nil} {
		if got := byFile(out, file).Metadata[MetaSuppressedBy]; got != want {
			t.Errorf("%s: suppressed_by %v, want %v", file, got, want)
		}
	}
}
