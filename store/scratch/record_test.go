package scratch

import (
	"bytes"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"scand/finding"
	"scand/store/findingjson"
)

func TestCanonicalKeyOrdersLikeSort(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	pick := func(opts ...string) string { return opts[rng.Intn(len(opts))] }
	var fs []finding.Finding
	for i := 0; i < 500; i++ {
		fs = append(fs, finding.Finding{Severity: finding.Severity(pick("critical", "high", "low", "info", "weird", "")),
			Scanner: pick("a", "ab", "a\x00", "b"), RuleID: pick("R1", "R10", "R2"), FilePath: pick("x", "x/y", "x\x00y", ""),
			Line: rng.Intn(3) * 1000, Title: pick("t", "T", "tt"), Fingerprint: string(rune('a' + i%26))})
	}
	sorted := slices.Clone(fs)
	finding.Sort(sorted)
	byKey := slices.Clone(fs)
	slices.SortStableFunc(byKey, func(a, b finding.Finding) int {
		return bytes.Compare(CanonicalKey(nil, a.Severity, a.Scanner, a.RuleID, a.FilePath, a.Line, a.Title, a.Fingerprint),
			CanonicalKey(nil, b.Severity, b.Scanner, b.RuleID, b.FilePath, b.Line, b.Title, b.Fingerprint))
	})
	for i := range sorted {
		a, b := sorted[i], byKey[i]
		if a.Severity != b.Severity || a.Scanner != b.Scanner || a.RuleID != b.RuleID || a.FilePath != b.FilePath || a.Line != b.Line ||
			a.Title != b.Title || a.Fingerprint != b.Fingerprint {
			t.Fatalf("position %d: Sort gives %+v, the key %+v", i, a, b)
		}
	}
}

func TestScratchRecordRoundTrip(t *testing.T) {
	r := Record{F: findingjson.Fields{Severity: "high", Scanner: "s", ScanType: "code", Title: "t", Description: "", FilePath: "f",
		Line: 7, RuleID: "r", CWE: "CWE-1", Fingerprint: "fp", ComplianceTags: []byte(`["A"]`), Metadata: []byte(`{"k":1}`)},
		TextID: 3, Suppressed: true, Snippet: "x := 1"}
	got, err := DecodeRecord(r.Encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	if string(findingjson.Append(nil, &got.F)) != string(findingjson.Append(nil, &r.F)) || got.TextID != 3 || !got.Suppressed || got.Snippet != "x := 1" {
		t.Fatalf("round trip: %+v", got)
	}
	if _, err := DecodeRecord([]byte{0xff}); err == nil {
		t.Fatal("a corrupt record decoded")
	}
}

func TestSeenSetHasNoFalseNegatives(t *testing.T) {
	s := NewSeenSet()
	for i := 0; i < seenExactMax*2; i++ {
		if s.TestAndAdd(uint64(i) * 0x9e3779b97f4a7c15) {
			// a false positive is allowed; count nothing
		}
	}
	for i := 0; i < seenExactMax*2; i++ {
		if !s.TestAndAdd(uint64(i) * 0x9e3779b97f4a7c15) {
			t.Fatalf("value %d added before is reported unseen", i)
		}
	}
	if s.bloom == nil {
		t.Fatal("the set never switched to its bounded form")
	}
}

// TestSeenSetFalsePositivesAtAMillion: past a million hashes a set takes
// a hash it has not seen for seen at most once in 20,000 (about once in
// 100,000 measured; the filter of four bits over the whole set: 56 in
// 200,000); each false positive sends a file through Dedup for nothing.
func TestSeenSetFalsePositivesAtAMillion(t *testing.T) {
	s := NewSeenSet()
	for i := 0; i < 1_000_000; i++ {
		s.TestAndAdd(s.Hash("added", strconv.Itoa(i)))
	}
	const tries = 200_000
	fp := 0
	for i := 0; i < tries; i++ {
		if s.TestAndAdd(s.Hash("new", strconv.Itoa(i))) {
			fp++
		}
	}
	if fp > tries/20_000 {
		t.Errorf("%d false positives in %d new hashes, want at most %d", fp, tries, tries/20_000)
	}
	t.Logf("%d false positives in %d", fp, tries)
}
