package finding

import (
	"fmt"
	"io"
)

// Unicode bidirectional controls make text read differently from what it
// is ("Trojan Source"): a scanned file named "invoice<U+202E>gnp.js" shows
// as "invoicesj.png". Scanned paths, titles and comments may carry them, so
// every human-readable output (console pages, HTML and PDF reports,
// markdown, text) shows them as a visible "[U+202E]" marker instead. The
// machine formats (JSON, SARIF) keep the data as it is.

// IsBidiControl reports whether r is a bidirectional control: the
// embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069, the
// marks U+200E, U+200F and U+061C.
func IsBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// bidiAt returns the rune and length of the bidi control starting at b[i]
// in UTF-8, or 0 when there is none.
func bidiAt(b []byte, i int) (rune, int) {
	switch b[i] {
	case 0xd8: // U+061C is D8 9C
		if i+1 < len(b) && b[i+1] == 0x9c {
			return 0x061c, 2
		}
	case 0xe2: // U+200E..U+2069 are E2 80 xx / E2 81 xx
		if i+2 < len(b) {
			c2, c3 := b[i+1], b[i+2]
			if (c2 == 0x80 && (c3 == 0x8e || c3 == 0x8f || (c3 >= 0xaa && c3 <= 0xae))) || (c2 == 0x81 && c3 >= 0xa6 && c3 <= 0xa9) {
				return rune(0x2000 | int(c2&0x3f)<<6 | int(c3&0x3f)), 3
			}
		}
	}
	return 0, 0
}

// DefuseBidi replaces every bidi control in b with a visible "[U+XXXX]";
// b itself is returned when it has none.
func DefuseBidi(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != 0xe2 && b[i] != 0xd8 {
			continue
		}
		r, n := bidiAt(b, i)
		if n == 0 {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b)+32)
		}
		out = append(out, b[last:i]...)
		out = fmt.Appendf(out, "[U+%04X]", r)
		i += n - 1
		last = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// BidiWriter defuses bidi controls in a stream: what is written reaches W
// with every control replaced, also one split across two writes. Flush
// writes what it still holds (at most two bytes of a possible control).
type BidiWriter struct {
	W     io.Writer
	carry []byte
}

func (bw *BidiWriter) Write(p []byte) (int, error) {
	data := p
	if len(bw.carry) > 0 {
		data = append(bw.carry, p...)
		bw.carry = nil
	}
	// Hold back a tail that may be the start of a control.
	keep := 0
	for k := 1; k <= 2 && k <= len(data); k++ {
		if c := data[len(data)-k]; c == 0xe2 || (c == 0xd8 && k == 1) {
			keep = k
			break
		}
	}
	if keep > 0 {
		bw.carry = append([]byte(nil), data[len(data)-keep:]...)
		data = data[:len(data)-keep]
	}
	if _, err := bw.W.Write(DefuseBidi(data)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the held-back tail.
func (bw *BidiWriter) Flush() error {
	if len(bw.carry) == 0 {
		return nil
	}
	_, err := bw.W.Write(bw.carry)
	bw.carry = nil
	return err
}
