package finding

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchFindings builds n synthetic raw findings shaped like a large scan:
// eight scanners over 2000 files, half with a scanner snippet and half read
// through the LineSource, about 10% exact re-reports and about 5% of the
// same issue reported by a second scanner.
func benchFindings(n int) []Finding {
	r := rand.New(rand.NewPCG(42, 42))
	scanners := []string{"secrets", "git-hygiene", "semgrep", "gosec", "trivy", "grype", "dockerfile", "licenses"}
	cwes := []CWE{"CWE-798", "CWE-89", "CWE-79", "CWE-22", "CWE-1104", "", "", "CWE-250", "NVD-CWE-Other"}
	sevs := []Severity{Critical, High, Medium, Low, Info, "WARNING"}
	out := make([]Finding, 0, n)
	for len(out) < n {
		switch p := r.IntN(100); {
		case p < 10 && len(out) > 0: // exact re-report
			out = append(out, out[r.IntN(len(out))])
			continue
		case p < 15 && len(out) > 0: // another scanner, same issue
			f := out[r.IntN(len(out))]
			f.Scanner = scanners[r.IntN(len(scanners))]
			f.RuleID = "other-" + f.RuleID
			f.Metadata = map[string]any{"tool": f.Scanner}
			out = append(out, f)
			continue
		}
		i := len(out)
		f := Finding{
			Scanner:     scanners[r.IntN(len(scanners))],
			ScanType:    "code",
			Severity:    sevs[r.IntN(len(sevs))],
			Title:       "Synthetic finding " + strconv.Itoa(r.IntN(50)),
			Description: "A synthetic finding for the Prepare benchmark.",
			FilePath:    fmt.Sprintf("./pkg%d/file%d.go", r.IntN(40), r.IntN(50)),
			Line:        1 + r.IntN(500),
			RuleID:      "rule-" + strconv.Itoa(r.IntN(60)),
			CWE:         cwes[r.IntN(len(cwes))],
			Metadata:    map[string]any{"confidence": "high", "n": i},
		}
		if r.IntN(2) == 0 {
			f.Snippet = fmt.Sprintf("\tpassword_%d := \"value-%d\" // synthetic", i%997, i)
		}
		out = append(out, f)
	}
	return out
}

func benchLineSource() LineSource {
	lines := make([]string, 502)
	for i := range lines {
		lines[i] = fmt.Sprintf("    x%d := call(arg, \"https://example.com/%d\") // note %d", i, i, i)
	}
	lines[100] = "    // scand:ignore rule-7 -- synthetic"
	return func(_ string, line int) (string, string, bool) {
		return lines[line], lines[line-1], true
	}
}

// BenchmarkPrepare100k is the whole pure pipeline for a 100k-finding scan.
// Run: go test ./finding/ -run '^$' -bench Prepare100k -benchmem -count 3
func BenchmarkPrepare100k(b *testing.B) {
	raw := benchFindings(100_000)
	src := benchLineSource()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		out := Prepare("scan", raw, src, func() string { n++; return strconv.Itoa(n) })
		if len(out) == 0 || len(out) >= len(raw) {
			b.Fatalf("unexpected output size %d", len(out))
		}
	}
}
