package finding

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// suppressMarker is the inline suppression keyword (see SuppressedBy). It is
// cut out of line contexts too, so that adding a suppression comment to a
// line never changes the fingerprint that triage verdicts are keyed on.
const suppressMarker = "scand:ignore"

// NormalizeLineContext turns the source line(s) a finding points at into the
// normalized_line_context that takes part in its fingerprint.
//
// The goal is that a pure line shift, a reindent or an added/edited trailing
// comment keeps the fingerprint (and so the triage verdict), while two
// different lines of code produce different contexts. The steps:
//
//   - Comments are folded away: "//" (unless preceded by ':' as in
//     "https://"), "#" (only at line start or after whitespace and followed
//     by whitespace, end of line or another '#', so "http://x/#a" and CSS
//     "#fff" stay; C preprocessor lines such as "#include" stay code),
//     "/* */" and "<!-- -->" (only when closed within raw, so a glob such as
//     "dir/*" stays code) and a trailing SQL/Lua "--" (only when surrounded
//     by whitespace, so "--flag" and "i--" stay code). Double, single and
//     back quotes (with backslash escapes, never spanning a line) protect
//     their content from comment detection.
//   - Everything from "scand:ignore" to the end of its line is dropped,
//     with the comment leader ("//", "#", ";", ...) written before it.
//   - Text is lower-cased, whitespace runs become one space, ends trimmed.
//
// When a line is nothing but a comment (a secret in a commented-out
// config line is common), the folded comment text is used instead of the
// empty code, so two different commented lines keep distinct fingerprints.
func NormalizeLineContext(raw string) string {
	code, _ := splitComments(raw, false)
	if s := foldContext(code); s != "" {
		return s
	}
	_, comments := splitComments(raw, true)
	return foldContext(comments)
}

// splitComments separates raw into its code and (when wantComments) its
// comment text, without the comment markers. Line comments leave the
// newline in the code; a removed block comment leaves a space, like a C
// compiler would. Each comment's text ends with a newline so later steps see
// one comment per line. Input without comments is returned as is.
func splitComments(raw string, wantComments bool) (code, comments string) {
	if !strings.ContainsAny(raw, "/#-") {
		return raw, ""
	}
	// A block opener only counts when a closer follows it somewhere; the
	// last closer's position answers that in O(1) per opener.
	lastC := strings.LastIndex(raw, "*/")
	lastHTML := strings.LastIndex(raw, "-->")

	var cb, mb strings.Builder
	copied := 0 // raw[:copied] has been written to cb or dropped
	var quote byte
	lineStart := true // only whitespace seen so far on this line
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\n' {
			quote, lineStart = 0, true
			continue
		}
		if quote != 0 {
			if c == '\\' && i+1 < len(raw) && raw[i+1] != '\n' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}

		prevSpace := i > 0 && isSpaceByte(raw[i-1])
		closer, textStart := "", 0
		switch {
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && strings.HasPrefix(raw[i:], "/*") && lastC >= i+2:
			closer, textStart = "*/", i+2
		case c == '<' && strings.HasPrefix(raw[i:], "<!--") && lastHTML >= i+4:
			closer, textStart = "-->", i+4
		case c == '/' && strings.HasPrefix(raw[i:], "//") && (i == 0 || raw[i-1] != ':'):
			closer, textStart = "\n", i+2
		case c == '#' && lineStart && !isPreprocessorLine(raw[i+1:]):
			closer, textStart = "\n", i+1
		case c == '#' && prevSpace && (i+1 == len(raw) || isSpaceByte(raw[i+1]) || raw[i+1] == '#'):
			closer, textStart = "\n", i+1
		case c == '-' && strings.HasPrefix(raw[i:], "--") && (lineStart || prevSpace) &&
			(i+2 == len(raw) || isSpaceByte(raw[i+2])):
			closer, textStart = "\n", i+2
		}
		if closer == "" {
			if !isSpaceByte(c) {
				lineStart = false
			}
			continue
		}

		textEnd, resume := len(raw), len(raw)
		if n := strings.Index(raw[textStart:], closer); n >= 0 {
			textEnd = textStart + n
			resume = textEnd
			if closer != "\n" {
				resume += len(closer)
			}
		}
		cb.WriteString(raw[copied:i])
		if closer != "\n" {
			cb.WriteByte(' ')
			if strings.IndexByte(raw[textStart:textEnd], '\n') >= 0 {
				lineStart = true
			}
		}
		copied = resume
		if wantComments {
			mb.WriteString(raw[textStart:textEnd])
			mb.WriteByte('\n')
		}
		i = resume - 1
	}
	if copied == 0 {
		return raw, ""
	}
	cb.WriteString(raw[copied:])
	return cb.String(), mb.String()
}

// cPreprocessorDirectives are the words after '#' that make a line C/C++/
// Objective-C code rather than a shell/Python/YAML comment.
var cPreprocessorDirectives = [...]string{
	"include", "define", "undef", "ifdef", "ifndef", "if", "elif", "else",
	"endif", "pragma", "error", "warning", "import", "line",
}

func isPreprocessorLine(afterHash string) bool {
	for _, d := range cPreprocessorDirectives {
		if strings.HasPrefix(afterHash, d) &&
			(len(afterHash) == len(d) || !isWordByte(afterHash[len(d)])) {
			return true
		}
	}
	return false
}

// directiveLeaders are the characters that may introduce a suppression
// comment in the languages scand scans (and the whitespace before them).
const directiveLeaders = " \t\r\v\f/#*;-<!%"

// foldContext lower-cases s, drops every suppression directive to the end of
// its line and collapses whitespace (newlines included) to single spaces,
// in one pass and one allocation.
func foldContext(s string) string {
	var b strings.Builder
	pendingSpace := false
	for len(s) > 0 {
		line := s
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			line, s = s[:nl], s[nl+1:]
		} else {
			s = ""
		}
		if i := indexASCIIFold(line, suppressMarker); i >= 0 {
			// Also drop the comment leader written for the directive, so
			// "x # scand:ignore" folds like "x" even where the comment
			// itself was not recognized.
			line = strings.TrimRight(line[:i], directiveLeaders)
		}
		for j := 0; j < len(line); {
			r, size := rune(line[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(line[j:])
			}
			j += size
			if unicode.IsSpace(r) {
				pendingSpace = b.Len() > 0
				continue
			}
			if b.Cap() == 0 {
				b.Grow(len(line) + len(s))
			}
			if pendingSpace {
				b.WriteByte(' ')
				pendingSpace = false
			}
			if r < utf8.RuneSelf {
				if 'A' <= r && r <= 'Z' {
					r += 'a' - 'A'
				}
				b.WriteByte(byte(r))
			} else {
				// Same mapping as strings.ToLower, invalid bytes included
				// (they become U+FFFD).
				b.WriteRune(unicode.ToLower(r))
			}
		}
		pendingSpace = b.Len() > 0
	}
	return b.String()
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isWordByte(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// Fingerprint is the cross-scan identity of a finding: the lowercase hex
// SHA-256 of its five identifying fields.
//
// Encoding, so anyone can recompute it: for each field in the order scanner,
// rule_id, file_path, normalized_line_context, cwe (the "CWE-n" string, or
// empty for none), write the field's length in bytes as an 8-byte big-endian
// unsigned integer, then the field's bytes (UTF-8). The SHA-256 of the
// concatenation is the fingerprint. The length prefixes make the encoding
// injective: ("ab","c") and ("a","bc") hash different inputs, which plain
// concatenation or a separator that may occur inside a field could not
// guarantee.
func Fingerprint(scanner, ruleID, filePath, normalizedLineContext string, cwe CWE) string {
	fields := [...]string{scanner, ruleID, filePath, normalizedLineContext, string(cwe)}
	n := 0
	for _, f := range fields {
		n += 8 + len(f)
	}
	var stack [512]byte
	buf := stack[:0]
	if n > len(stack) {
		buf = make([]byte, 0, n)
	}
	for _, f := range fields {
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(f)))
		buf = append(buf, f...)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

// IsFingerprint reports whether fp has a fingerprint's shape (64 lowercase
// hex characters), so a typo in a URL never reaches a query or a verdict.
func IsFingerprint(fp string) bool {
	if len(fp) != 64 {
		return false
	}
	for i := 0; i < len(fp); i++ {
		if c := fp[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
