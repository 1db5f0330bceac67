package finding

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestDefuseBidi(t *testing.T) {
	controls := []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c}
	var in, want strings.Builder
	for _, r := range controls {
		in.WriteString("a" + string(r))
		want.WriteString(fmt.Sprintf("a[U+%04X]", r))
	}
	// Neighbours that are not controls stay: U+2028, U+2065, U+061B, U+200D.
	in.WriteString("\u2028\u2065\u061b\u200d é")
	want.WriteString("\u2028\u2065\u061b\u200d é")
	if got := string(DefuseBidi([]byte(in.String()))); got != want.String() {
		t.Fatalf("got  %q\nwant %q", got, want.String())
	}
	clean := []byte("plain ascii and é")
	if got := DefuseBidi(clean); &got[0] != &clean[0] {
		t.Error("clean input was copied")
	}
	// A stream split at every byte boundary gives the same result.
	src := []byte("x\u202ey\u2066z\u061cw" + strings.Repeat("\u200f", 3))
	wantStream := DefuseBidi(src)
	for cut := 0; cut <= len(src); cut++ {
		for cut2 := cut; cut2 <= len(src); cut2++ {
			var out bytes.Buffer
			bw := &BidiWriter{W: &out}
			bw.Write(src[:cut])
			bw.Write(src[cut:cut2])
			bw.Write(src[cut2:])
			if err := bw.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), wantStream) {
				t.Fatalf("split %d/%d: %q, want %q", cut, cut2, out.Bytes(), wantStream)
			}
		}
	}
}
