package importscan

import (
	"encoding/binary"
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
	// buf[pos:] is read from r and not yet passed on; readErr is what r
	// said last (io.EOF at the end).
	buf     []byte
	pos     int
	readErr error
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
	if len(p) == 0 {
		return 0, nil
	}
	// Read the body in large blocks: the decoder asks for a few hundred
	// bytes at a time, and a mostly-whitespace body would otherwise cost a
	// read call per few hundred bytes.
	if s.buf == nil {
		s.buf = make([]byte, 0, 64<<10)
	}
	for {
		if s.pos == len(s.buf) {
			if s.readErr != nil {
				return 0, s.readErr
			}
			n, err := s.r.Read(s.buf[:cap(s.buf)])
			s.buf, s.pos = s.buf[:n], 0
			if err != nil {
				s.readErr = err
				if !errors.Is(err, io.EOF) && s.err == nil {
					s.err = err
				}
			}
		}
		kept := 0
		for s.pos < len(s.buf) && kept < len(p) {
			if !s.inString {
				// Skip a run of spaces eight bytes at a time: a padded body
				// must cost no more than reading it.
				for s.pos+8 <= len(s.buf) && binary.LittleEndian.Uint64(s.buf[s.pos:]) == 0x2020202020202020 {
					s.pos += 8
				}
				if s.pos == len(s.buf) {
					break
				}
			}
			c := s.buf[s.pos]
			s.pos++
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
				s.readErr = ErrValueTooLarge
				return 0, s.err
			}
			p[kept] = c
			kept++
		}
		if kept > 0 {
			return kept, nil
		}
	}
}
