package excerpt

import (
	"strings"
	"testing"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	e := &Excerpt{StartLine: 17, Line: 20, Lines: []string{"", "a", strings.Repeat("é", 100), "\tb"}}
	got, err := Decode(Encode(e), 20)
	if err != nil || got.StartLine != 17 || got.Line != 20 || strings.Join(got.Lines, "|") != strings.Join(e.Lines, "|") {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range [][]byte{nil, {0}, {5, 9, 'a'}} {
		if _, err := Decode(bad, 1); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

func TestCleanMasksKeyMaterialAndControls(t *testing.T) {
	for in, want := range map[string]string{
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0": "MIIE…********",
		"sha = 3f786850e387550fdab836ed7e6dc881de23001b":                                "sha = 3f78…********",
		"a_plain_identifier_without_digits_at_all_here":                                 "a_plain_identifier_without_digits_at_all_here",
		"x\x1b[31mred\r":  "x\uFFFD[31mred",
		"\u2066rtl\u2069": "[U+2066]rtl[U+2069]",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}
