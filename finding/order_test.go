package finding

import (
	"math/rand/v2"
	"testing"
)

func TestSortCanonicalOrder(t *testing.T) {
	// want is listed in canonical order; each neighbour differs from the
	// previous one in exactly the key that orders them.
	want := []Finding{
		{Severity: Critical, Scanner: "z", RuleID: "z", FilePath: "z", Line: 9, Title: "z"},
		{Severity: High, Scanner: "a", RuleID: "z", FilePath: "z", Line: 9, Title: "z"},
		{Severity: High, Scanner: "b", RuleID: "a", FilePath: "z", Line: 9, Title: "z"},
		{Severity: High, Scanner: "b", RuleID: "b", FilePath: "a", Line: 9, Title: "z"},
		{Severity: High, Scanner: "b", RuleID: "b", FilePath: "b", Line: 2, Title: "z"},
		{Severity: High, Scanner: "b", RuleID: "b", FilePath: "b", Line: 10, Title: "a"},
		{Severity: High, Scanner: "b", RuleID: "b", FilePath: "b", Line: 10, Title: "b", Fingerprint: "1"},
		{Severity: High, Scanner: "b", RuleID: "b", FilePath: "b", Line: 10, Title: "b", Fingerprint: "2"},
		{Severity: Medium, Scanner: "a"},
		{Severity: Low, Scanner: "a"},
		{Severity: Info, Scanner: "a"},
		{Severity: "bogus", Scanner: "a"}, // unknown ranks below info
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 20; i++ {
		got := shuffled(r, want)
		Sort(got)
		for j := range want {
			if compareCanonical(&got[j], &want[j]) != 0 {
				t.Fatalf("position %d: got %+v, want %+v", j, got[j], want[j])
			}
		}
	}
}

func TestSortTotalAndStable(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	fs := randomFindings(r, 300)
	// Antisymmetry and reflexivity of the comparison over many pairs.
	for i := range fs {
		j := r.IntN(len(fs))
		a, b := compareCanonical(&fs[i], &fs[j]), compareCanonical(&fs[j], &fs[i])
		if a != -b {
			t.Fatalf("compare(%d,%d)=%d but compare(%d,%d)=%d", i, j, a, j, i, b)
		}
		if compareCanonical(&fs[i], &fs[i]) != 0 {
			t.Fatalf("finding %d does not compare equal to itself", i)
		}
	}
	// Any input order yields the same output; sorted means non-decreasing.
	first := append([]Finding(nil), fs...)
	Sort(first)
	for i := 1; i < len(first); i++ {
		if compareCanonical(&first[i-1], &first[i]) > 0 {
			t.Fatalf("positions %d and %d out of order", i-1, i)
		}
	}
	for i := 0; i < 10; i++ {
		again := shuffled(r, fs)
		Sort(again)
		// Ties across every ordered field keep input order, so compare the
		// ordered fields only.
		for k := range again {
			if compareCanonical(&again[k], &first[k]) != 0 {
				t.Fatalf("shuffle %d: position %d differs", i, k)
			}
		}
	}

	// Stability: full ties keep their input order.
	a := mk("s", "r", High, "f", 1, "", "t", "c")
	b := a
	a.Metadata = map[string]any{"n": 1}
	b.Metadata = map[string]any{"n": 2}
	for _, in := range [][]Finding{{a, b}, {b, a}} {
		got := append([]Finding(nil), in...)
		Sort(got)
		if got[0].Metadata["n"] != in[0].Metadata["n"] {
			t.Errorf("full tie reordered: input %v, output %v", in[0].Metadata, got[0].Metadata)
		}
	}
}
