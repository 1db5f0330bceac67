package repoconfig

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The TOML subset .scand.toml is written in: comments, [table] headers,
// bare or quoted keys, basic and literal strings and arrays of them (over
// several lines, with a trailing comma). Everything else TOML has
// (numbers, booleans, dates, inline tables, dotted keys, multi-line
// strings) is refused with the line it is on: the schema needs none of
// it, and a repository's config file must never be read half-way.

// value is one parsed value: a string or an array of strings.
type value struct {
	str     string
	arr     []string
	isArray bool
	line    int
}

// entry is one key = value line, under the table it appears in ("" for
// the top level).
type entry struct {
	table, key string
	value      value
	line       int
}

type parser struct {
	src  string
	i    int
	line int
	file string
}

func (p *parser) errf(line int, key, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// parseTOML reads the document into its entries, in order. Duplicate
// keys and tables are errors; what the keys mean is the schema's business.
func parseTOML(file string, data []byte) ([]entry, error) {
	if !utf8.Valid(data) {
		return nil, &Error{File: file, Line: 1, Msg: "not valid UTF-8"}
	}
	p := &parser{src: string(data), line: 1, file: file}
	var out []entry
	table := ""
	tables := map[string]int{"": 1}
	seen := map[string]int{}
	for {
		p.skipBlank()
		if p.i >= len(p.src) {
			return out, nil
		}
		line := p.line
		if p.src[p.i] == '[' {
			p.i++
			if p.i < len(p.src) && p.src[p.i] == '[' {
				return nil, p.errf(line, "", "arrays of tables ([[...]]) are not part of .scand.toml")
			}
			p.skipSpace()
			name, err := p.keyThen(']', "a table header is [name]")
			if err != nil {
				return nil, err
			}
			if err := p.endOfLine(name); err != nil {
				return nil, err
			}
			if first, dup := tables[name]; dup {
				return nil, p.errf(line, name, "table [%s] is defined twice (first on line %d)", name, first)
			}
			tables[name] = line
			table = name
			continue
		}
		key, err := p.keyThen('=', "expected = after the key")
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		full := key
		if table != "" {
			full = table + "." + key
		}
		v, err := p.value(full)
		if err != nil {
			return nil, err
		}
		if err := p.endOfLine(full); err != nil {
			return nil, err
		}
		if first, dup := seen[full]; dup {
			return nil, p.errf(line, full, "defined twice (first on line %d)", first)
		}
		seen[full] = line
		out = append(out, entry{table: table, key: key, value: v, line: line})
	}
}

// skipBlank skips spaces, newlines and comments.
func (p *parser) skipBlank() {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '\n':
			p.i++
			p.line++
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *parser) skipSpace() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

// endOfLine accepts trailing space and a comment, then a newline or EOF.
func (p *parser) endOfLine(key string) error {
	p.skipSpace()
	if p.i < len(p.src) && p.src[p.i] == '#' {
		for p.i < len(p.src) && p.src[p.i] != '\n' {
			p.i++
		}
	}
	if p.i < len(p.src) && p.src[p.i] == '\r' {
		p.i++
	}
	if p.i < len(p.src) && p.src[p.i] != '\n' {
		return p.errf(p.line, key, "unexpected %q after the value", p.src[p.i])
	}
	return nil
}

func bareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a bare or quoted key. Dotted keys are refused: the schema has
// none, and a rule id with a dot must be quoted.
func (p *parser) key() (string, error) {
	line := p.line
	if p.i >= len(p.src) {
		return "", p.errf(line, "", "expected a key")
	}
	var k string
	switch c := p.src[p.i]; {
	case c == '"' || c == '\'':
		s, err := p.str("")
		if err != nil {
			return "", err
		}
		k = s
	case bareKeyByte(c):
		start := p.i
		for p.i < len(p.src) && bareKeyByte(p.src[p.i]) {
			p.i++
		}
		k = p.src[start:p.i]
	default:
		return "", p.errf(line, "", "expected a key, found %q", c)
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		return "", p.errf(line, k, "dotted keys are not part of .scand.toml; quote a key that holds a dot")
	}
	return k, nil
}

// keyThen reads a key and the delimiter that must follow it (spaces
// between them allowed): ']' closing a table header, '=' before a value.
// Without the delimiter the error is msg, on the key's line.
func (p *parser) keyThen(delim byte, msg string) (string, error) {
	line := p.line
	k, err := p.key()
	if err != nil {
		return "", err
	}
	p.skipSpace()
	if p.i >= len(p.src) || p.src[p.i] != delim {
		return "", p.errf(line, k, "%s", msg)
	}
	p.i++
	return k, nil
}

// value reads a string or an array of strings.
func (p *parser) value(key string) (value, error) {
	line := p.line
	if p.i >= len(p.src) {
		return value{}, p.errf(line, key, "missing value")
	}
	switch c := p.src[p.i]; c {
	case '"', '\'':
		s, err := p.str(key)
		return value{str: s, line: line}, err
	case '[':
		p.i++
		v := value{isArray: true, arr: []string{}, line: line}
		for {
			p.skipBlank()
			if p.i >= len(p.src) {
				return v, p.errf(line, key, "array is not closed with ]")
			}
			if p.src[p.i] == ']' {
				p.i++
				return v, nil
			}
			if c := p.src[p.i]; c != '"' && c != '\'' {
				return v, p.errf(p.line, key, "array elements must be strings in quotes")
			}
			s, err := p.str(key)
			if err != nil {
				return v, err
			}
			v.arr = append(v.arr, s)
			p.skipBlank()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			if p.i >= len(p.src) {
				return v, p.errf(line, key, "array is not closed with ]")
			}
			if p.src[p.i] != ']' {
				return v, p.errf(p.line, key, "expected , or ] in the array")
			}
		}
	}
	return value{}, p.errf(line, key, "values are strings in quotes or arrays of them")
}

// str reads a basic ("...") or literal ('...') string on one line.
func (p *parser) str(key string) (string, error) {
	line := p.line
	q := p.src[p.i]
	if strings.HasPrefix(p.src[p.i:], string([]byte{q, q, q})) {
		return "", p.errf(line, key, "multi-line strings are not part of .scand.toml")
	}
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.src) || p.src[p.i] == '\n' {
			return "", p.errf(line, key, "string is not closed on its line")
		}
		c := p.src[p.i]
		if c == q {
			p.i++
			return b.String(), nil
		}
		if c < 0x20 && c != '\t' || c == 0x7f {
			return "", p.errf(line, key, "control character %q in a string", c)
		}
		if c != '\\' || q == '\'' {
			b.WriteByte(c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.src) {
			return "", p.errf(line, key, "string is not closed on its line")
		}
		e := p.src[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if p.i+n > len(p.src) {
				return "", p.errf(line, key, "short \\%c escape", e)
			}
			r, err := strconv.ParseUint(p.src[p.i:p.i+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return "", p.errf(line, key, "invalid \\%c escape", e)
			}
			b.WriteRune(rune(r))
			p.i += n
		default:
			return "", p.errf(line, key, "invalid escape \\%c (write \\\\ for a backslash, or use 'single quotes')", e)
		}
	}
}
