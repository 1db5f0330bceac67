package importscan

import (
	"errors"
	"fmt"
	"io"
)

// squeezer feeds the JSON decoder an import body without its insignificant
// whitespace, and refuses a body whose structure would make the decoder
// hold a large part of it. encoding/json's Decoder keeps every whitespace
// byte between two tokens in its buffer (and rescans it on each refill), so
// "{" and 300 MiB of spaces cost 300 MiB and minutes before any error; and
// Decode reads a whole value before it returns, so one 200 MiB "finding"
// is held whole. The squeezer drops the whitespace as it passes (the body
// cap still counts it: it sits below, on the raw body) and fails a read as
// soon as one string or one value below the top-level members grows past
// maxValueBytes, whatever the nesting.
type squeezer struct {
	r        io.Reader
	inString bool
	escape   bool
	depth    int
	// valueBytes is the size of the value open at depth >= 3 (one
	// finding, one scanners_skipped entry), stringBytes that of the open
	// string.
	valueBytes  int
	stringBytes int
	// err is the first read error below the squeezer (the body cap's
	// *http.MaxBytesError, a cut connection): the decoder may report it
	// as the end of the input, so Read checks it at the end.
	err error
}

// maxValueBytes bounds one finding (its longest fields are 64 KiB), one
// string, and so what the decoder holds at once.
const maxValueBytes = 4 << 20

// ErrValueTooLarge is a value or string past maxValueBytes: a 413.
var ErrValueTooLarge = fmt.Errorf("a finding or a string in the body is larger than %d MiB", maxValueBytes>>20)

func (s *squeezer) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		if err != nil && !errors.Is(err, io.EOF) && s.err == nil {
			s.err = err
		}
		kept := 0
		for _, c := range p[:n] {
			if s.inString {
				s.stringBytes++
				switch {
				case s.escape:
					s.escape = false
				case c == '\\':
					s.escape = true
				case c == '"':
					s.inString = false
				}
			} else {
				switch c {
				case ' ', '\t', '\n', '\r':
					continue
				case '"':
					s.inString, s.stringBytes = true, 0
				case '{', '[':
					s.depth++
				case '}', ']':
					s.depth--
				}
			}
			if s.depth >= 3 {
				s.valueBytes++
			} else {
				s.valueBytes = 0
			}
			if s.valueBytes > maxValueBytes || s.stringBytes > maxValueBytes {
				s.err = ErrValueTooLarge
				return 0, s.err
			}
			p[kept] = c
			kept++
		}
		if kept > 0 || err != nil {
			return kept, err
		}
	}
}
