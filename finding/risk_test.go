package finding

import (
	"math"
	"math/rand/v2"
	"testing"
)

func sevs(counts map[Severity]int) []Finding {
	var out []Finding
	for _, s := range []Severity{Critical, High, Medium, Low, Info, "bogus"} {
		for i := 0; i < counts[s]; i++ {
			out = append(out, Finding{Severity: s})
		}
	}
	return out
}

func TestRiskScore(t *testing.T) {
	cases := []struct {
		name   string
		counts map[Severity]int
		want   int // the documented examples
	}{
		{"nothing", nil, 0},
		{"info only", map[Severity]int{Info: 50}, 0},
		{"unknown severity weighs nothing", map[Severity]int{"bogus": 3}, 0},
		{"one critical", map[Severity]int{Critical: 1}, 50},
		{"one high", map[Severity]int{High: 1}, 29},
		{"one medium", map[Severity]int{Medium: 1}, 14},
		{"one low", map[Severity]int{Low: 1}, 4},
		{"four criticals", map[Severity]int{Critical: 4}, 80},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RiskScore(sevs(c.counts)); got != c.want {
				t.Errorf("RiskScore = %d, want %d", got, c.want)
			}
		})
	}
}

// TestRiskScoreMatchesFormula checks the integer arithmetic against the
// documented formula evaluated in floating point.
func TestRiskScoreMatchesFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 2000; i++ {
		c := map[Severity]int{Critical: r.IntN(5), High: r.IntN(20), Medium: r.IntN(50), Low: r.IntN(200), Info: r.IntN(5)}
		s := float64(25*c[Critical] + 10*c[High] + 4*c[Medium] + c[Low])
		want := 0
		if s > 0 {
			want = int(math.Floor(100*s/(s+25) + 0.5))
		}
		if got := RiskScore(sevs(c)); got != want {
			t.Fatalf("%v: RiskScore = %d, formula gives %d", c, got, want)
		}
	}
}

func TestRiskScoreExcludesSuppressed(t *testing.T) {
	crit := Finding{Severity: Critical, Metadata: map[string]any{MetaSuppressedBy: nil}}
	sup := Finding{Severity: Critical, Metadata: map[string]any{MetaSuppressedBy: "inline: scand:ignore"}}
	if got := RiskScore([]Finding{sup, sup}); got != 0 {
		t.Errorf("only suppressed findings: score %d, want 0", got)
	}
	if a, b := RiskScore([]Finding{crit}), RiskScore([]Finding{crit, sup}); a != b {
		t.Errorf("a suppressed finding changed the score: %d -> %d", a, b)
	}
}

func TestRiskScoreMonotonicAndBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	all := []Severity{Critical, High, Medium, Low, Info}
	for run := 0; run < 50; run++ {
		var fs []Finding
		prev := RiskScore(fs)
		for i := 0; i < 400; i++ {
			fs = append(fs, Finding{Severity: all[r.IntN(len(all))]})
			score := RiskScore(fs)
			if score < prev {
				t.Fatalf("adding a %s finding lowered the score %d -> %d", fs[len(fs)-1].Severity, prev, score)
			}
			if score < 0 || score > 100 {
				t.Fatalf("score %d out of [0,100]", score)
			}
			prev = score
		}
		if got := RiskScore(shuffled(r, fs)); got != prev {
			t.Fatalf("score depends on order: %d vs %d", prev, got)
		}
	}
	// Severity dominance: replacing a finding by a more severe one never
	// lowers the score.
	for i := 1; i < len(all); i++ {
		lower := RiskScore([]Finding{{Severity: all[i]}, {Severity: High}})
		higher := RiskScore([]Finding{{Severity: all[i-1]}, {Severity: High}})
		if higher < lower {
			t.Errorf("%s scores below %s", all[i-1], all[i])
		}
	}
	// Saturation without overflow.
	huge := make([]Finding, 200000)
	for i := range huge {
		huge[i].Severity = Critical
	}
	if got := RiskScore(huge); got != 100 {
		t.Errorf("200k criticals: score %d, want 100", got)
	}
}
