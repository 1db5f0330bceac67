package finding

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// mk builds a finding with its fingerprint computed from ctx, the way
// Prepare would.
func mk(scanner, rule string, sev Severity, path string, line int, cwe CWE, title, ctx string) Finding {
	return Finding{
		Scanner: scanner, ScanType: "code", Severity: sev, Title: title,
		FilePath: path, Line: line, RuleID: rule, CWE: cwe,
		Fingerprint: Fingerprint(scanner, rule, path, NormalizeLineContext(ctx), cwe),
		Metadata:    map[string]any{MetaSuppressedBy: nil},
	}
}

func suppressed(f Finding) Finding {
	f.Metadata = map[string]any{MetaSuppressedBy: "inline: scand:ignore"}
	return f
}

// randomFindings draws from small domains so that duplicates, same-line
// overlaps across scanners and full ties are frequent.
func randomFindings(r *rand.Rand, n int) []Finding {
	scanners := []string{"secrets", "semgrep", "gosec", "trivy"}
	sevs := []Severity{Critical, High, Medium, Low, Info}
	cwes := []CWE{"", "CWE-79", "CWE-89", "CWE-798"}
	titles := []string{"SQL injection", "sql  Injection.", "Hard-coded secret", "XSS"}
	out := make([]Finding, n)
	for i := range out {
		f := mk(
			scanners[r.IntN(len(scanners))],
			fmt.Sprintf("rule-%d", r.IntN(3)),
			sevs[r.IntN(len(sevs))],
			fmt.Sprintf("f%d.go", r.IntN(3)),
			r.IntN(3),
			cwes[r.IntN(len(cwes))],
			titles[r.IntN(len(titles))],
			fmt.Sprintf("line %d", r.IntN(3)),
		)
		if r.IntN(5) == 0 {
			f = suppressed(f)
		}
		if r.IntN(7) == 0 {
			f.Metadata["note"] = fmt.Sprintf("n%d", r.IntN(2))
		}
		out[i] = f
	}
	return out
}

func shuffled(r *rand.Rand, fs []Finding) []Finding {
	out := append([]Finding(nil), fs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func mustMarshal(t testing.TB, fs []Finding) string {
	t.Helper()
	b, err := MarshalFindings(fs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonRoundTrip is what findings look like after the store: metadata lists
// come back as []any of strings and float64s.
func jsonRoundTrip(t testing.TB, fs []Finding) []Finding {
	t.Helper()
	var out []Finding
	if err := json.Unmarshal([]byte(mustMarshal(t, fs)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
