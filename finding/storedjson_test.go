package finding

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
)

// TestFastDecodeMatchesEncodingJSON: exports decode stored bodies with a
// hand-written reader; encoding/json is its specification.
func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	alphabet := []string{"a", " ", "<", "&", "\"", "\\", "\x00", "\n", "é", "\u2028", "\xff", "\U0001F600", "/"}
	str := func() string {
		var b bytes.Buffer
		for j := rng.Intn(8); j > 0; j-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	for i := 0; i < 500; i++ {
		f := Finding{ID: str(), ScanID: str(), Scanner: str(), ScanType: str(), Severity: Severity(str()), Title: str(),
			Description: str(), FilePath: str(), Line: rng.Intn(1000), RuleID: str(), CWE: CWE(str()), Fingerprint: str()}
		if i%2 == 0 {
			f.ComplianceTags = []string{str(), str()}
		}
		if i%3 != 0 {
			f.Metadata = map[string]any{"suppressed_by": nil, "url": str(), "n": 3.25, "list": []any{str(), map[string]any{"k": str()}}, str(): str()}
		}
		body, _ := json.Marshal(f)
		want, err := decodeJSONNumbers(body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeJSON(body, nil)
		if err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if !bytes.Equal(gb, wb) {
			t.Fatalf("body %s:\nfast     %s\nreflect  %s", body, gb, wb)
		}
		some, err := DecodeJSON(body, []string{"url"})
		if err != nil || len(some.Metadata) > 1 || (f.Metadata != nil && some.Metadata["url"] != want.Metadata["url"]) {
			t.Fatalf("selected metadata %v, %v", some.Metadata, err)
		}
	}
	// Not the stored layout: still decoded, by encoding/json.
	got, err := DecodeJSON([]byte(`{"title":"t","extra":{"a":[1,2]},"line":4}`), nil)
	if err != nil || got.Title != "t" || got.Line != 4 {
		t.Fatalf("fallback: %+v %v", got, err)
	}
}
