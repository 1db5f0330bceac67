package finding

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
)

// TestAppendJSONStringMatchesEncodingJSON: the hand-written encoder must
// give encoding/json's bytes for any string, or stored bodies would differ
// from what the API promised before.
func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `q"uote\back`, "<a href='x'>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f", "é日本\U0001F600",
		"bad\xffutf8\xc3", "sep\u2028para\u2029end", "\xed\xa0\x80 surrogate"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.Intn(40))
		for j := range b {
			b[j] = byte(rng.Intn(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := AppendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	}
}
