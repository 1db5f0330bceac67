package store

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"slices"
	"testing"

	"scand/finding"
)

func TestAppendFindingJSONMatchesEncodingJSON(t *testing.T) {
	for _, f := range []finding.Finding{
		{},
		{ID: "i", ScanID: "s", Scanner: "x<y", ScanType: "code", Severity: "high", Title: "t&t", Description: "d\n", FilePath: "a/b.go",
			Line: 12, RuleID: "R", CWE: "CWE-79", Fingerprint: "fp", ComplianceTags: []string{"OWASP-A03"},
			Metadata: map[string]any{"suppressed_by": nil, "n": 1.5, "list": []string{"b", "a"}}},
	} {
		fj, _, err := findingFields(f)
		if err != nil {
			t.Fatal(err)
		}
		f.ComplianceTags = nonNilStrings(f.ComplianceTags) // stored bodies always carry an array
		want, _ := json.Marshal(f)
		if got := appendFindingJSON(nil, &fj); !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

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
		return bytes.Compare(canonicalKey(nil, a.Severity, a.Scanner, a.RuleID, a.FilePath, a.Line, a.Title, a.Fingerprint),
			canonicalKey(nil, b.Severity, b.Scanner, b.RuleID, b.FilePath, b.Line, b.Title, b.Fingerprint))
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
	r := scratchRecord{f: findingJSON{Severity: "high", Scanner: "s", ScanType: "code", Title: "t", Description: "", FilePath: "f",
		Line: 7, RuleID: "r", CWE: "CWE-1", Fingerprint: "fp", ComplianceTags: []byte(`["A"]`), Metadata: []byte(`{"k":1}`)},
		textID: 3, suppressed: true, snippet: "x := 1"}
	got, err := decodeRecord(r.encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	if string(appendFindingJSON(nil, &got.f)) != string(appendFindingJSON(nil, &r.f)) || got.textID != 3 || !got.suppressed || got.snippet != "x := 1" {
		t.Fatalf("round trip: %+v", got)
	}
	if _, err := decodeRecord([]byte{0xff}); err == nil {
		t.Fatal("a corrupt record decoded")
	}
}

func TestSeenSetHasNoFalseNegatives(t *testing.T) {
	s := newSeenSet()
	for i := 0; i < seenExactMax*2; i++ {
		if s.testAndAdd(uint64(i) * 0x9e3779b97f4a7c15) {
			// a false positive is allowed; count nothing
		}
	}
	for i := 0; i < seenExactMax*2; i++ {
		if !s.testAndAdd(uint64(i) * 0x9e3779b97f4a7c15) {
			t.Fatalf("value %d added before is reported unseen", i)
		}
	}
	if s.bloom == nil {
		t.Fatal("the set never switched to its bounded form")
	}
}
