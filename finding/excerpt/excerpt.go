// Package excerpt is the code kept around a finding at scan time: the
// finding's line and up to Context lines either side, each capped, with
// secrets redacted and bidirectional controls made visible before it is
// stored, so every reader (console, API, SARIF, markdown) shows the same
// inert text.
package excerpt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"unicode/utf8"

	"scand/finding"
)

// Context is how many lines either side of a finding's line are kept.
const Context = 3

// MaxLineBytes caps each kept line; a longer one is cut on a rune
// boundary and ends in Cut.
const MaxLineBytes = 240

// Cut ends a line that was longer than MaxLineBytes.
const Cut = "…"

// Excerpt is the code around a finding.
type Excerpt struct {
	// StartLine is the 1-based number of Lines[0].
	StartLine int `json:"start_line"`
	// Line is the finding's line, the one to highlight.
	Line  int      `json:"line"`
	Lines []string `json:"lines" doc:"the source lines from start_line on: secrets redacted as in the finding, each at most 240 bytes (a longer one is cut and ends in …), bidirectional controls shown as [U+XXXX]"`
}

// Text returns the excerpt's line n (1-based, as in the file) and whether
// the excerpt has it.
func (e *Excerpt) Text(n int) (string, bool) {
	if e == nil || n < e.StartLine || n >= e.StartLine+len(e.Lines) {
		return "", false
	}
	return e.Lines[n-e.StartLine], true
}

// Window returns the first and last line numbers (1-based) to keep
// around line in a file of total lines.
func Window(line, total int) (first, last int) {
	return max(1, line-Context), min(total, line+Context)
}

// Clean makes one already redacted source line safe to keep: invalid
// UTF-8 replaced, a trailing CR dropped, control characters other than
// tab shown as U+FFFD, bidirectional controls as finding.DefuseBidi
// shows them, key material masked, and the result capped.
func Clean(line string) string {
	line = strings.TrimSuffix(line, "\r")
	if !utf8.ValidString(line) {
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	line = strings.Map(func(r rune) rune {
		if r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
			return '\uFFFD'
		}
		return r
	}, line)
	line = MaskTokens(line)
	line = string(finding.DefuseBidi([]byte(line)))
	return capLine(line)
}

func capLine(s string) string {
	if len(s) <= MaxLineBytes {
		return s
	}
	cut := MaxLineBytes - len(Cut)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Cut
}

// minToken is the shortest run of key-like characters MaskTokens hides:
// shorter runs are identifiers and words; a token, key or hash this long
// is not something a reviewer reads.
const minToken = 32

// MaskTokens hides the long base64- or hex-looking runs in a line that
// mix letters and digits (a token, a line of a PEM key body, a hash) the
// way the secrets scanner redacts a value: its first four characters and
// a mask. It catches key material the line-by-line secret rules do not
// mark, such as the body lines under a private key's header.
func MaskTokens(line string) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		tok := line[start:end]
		if len(tok) >= minToken && mixed(tok) {
			b.WriteString(tok[:4])
			b.WriteString("…" + strings.Repeat("*", 8))
		} else {
			b.WriteString(tok)
		}
		start = -1
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if tokenByte(c) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			flush(i)
		}
		b.WriteByte(c)
	}
	if start >= 0 {
		flush(len(line))
	}
	return b.String()
}

func tokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=' || c == '_' || c == '-'
}

func mixed(tok string) bool {
	letter, digit := false, false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		letter = letter || ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z')
		digit = digit || ('0' <= c && c <= '9')
	}
	return letter && digit
}

// Encode is the stored form of an excerpt's lines from StartLine (the
// highlighted line comes from the finding): a varint start line, then
// each line as a varint length and its bytes. Two findings in the same
// window of the same file share one stored copy.
func Encode(e *Excerpt) []byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(e.StartLine))
	for _, l := range e.Lines {
		b = binary.AppendUvarint(b, uint64(len(l)))
		b = append(b, l...)
	}
	return b
}

// Decode reads Encode's form; line is the finding's line.
func Decode(b []byte, line int) (*Excerpt, error) {
	start, n := binary.Uvarint(b)
	if n <= 0 || start == 0 {
		return nil, errBad
	}
	e := &Excerpt{StartLine: int(start), Line: line}
	r := bytes.NewReader(b[n:])
	for r.Len() > 0 {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > uint64(r.Len()) {
			return nil, errBad
		}
		buf := make([]byte, l)
		r.Read(buf)
		e.Lines = append(e.Lines, string(buf))
	}
	return e, nil
}

var errBad = errors.New("excerpt: bad stored form")

// Row is one line of an excerpt as a page shows it.
type Row struct {
	N    int
	Text string
	// Hit marks the finding's line.
	Hit bool
}

// Rows numbers the lines for a page, marking the finding's.
func (e *Excerpt) Rows() []Row {
	if e == nil {
		return nil
	}
	out := make([]Row, len(e.Lines))
	for i, l := range e.Lines {
		out[i] = Row{N: e.StartLine + i, Text: l, Hit: e.StartLine+i == e.Line}
	}
	return out
}
