package components

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A TOML subset reader for the files component discovery needs
// (Cargo.lock, Cargo.toml, poetry.lock, pyproject.toml, Pipfile): tables,
// arrays of tables, dotted keys, basic/literal/multi-line strings, arrays and
// inline tables. Numbers, booleans and dates are kept as their raw text,
// which is all a lockfile reader needs. scand links no TOML library (the
// design allows the standard library only), and these files use a small,
// machine-written part of the language.

type compTOMLValue struct {
	kind  byte // 's' string, 'r' raw scalar, 'a' array, 't' inline table
	str   string
	arr   []compTOMLValue
	table *compTOMLTable
	line  int
}

type compTOMLKV struct {
	key   string
	value compTOMLValue
	line  int
}

type compTOMLTable struct {
	line int
	kvs  []compTOMLKV
	sub  map[string]*compTOMLTable
	arrs map[string][]*compTOMLTable
}

func compNewTOMLTable(line int) *compTOMLTable {
	return &compTOMLTable{line: line, sub: map[string]*compTOMLTable{}, arrs: map[string][]*compTOMLTable{}}
}

// get returns the key/value pair for key, or nil.
func (t *compTOMLTable) get(key string) *compTOMLKV {
	if t == nil {
		return nil
	}
	for i := range t.kvs {
		if t.kvs[i].key == key {
			return &t.kvs[i]
		}
	}
	return nil
}

// str returns a string value, "" when absent or not a scalar.
func (t *compTOMLTable) str(key string) string {
	kv := t.get(key)
	if kv == nil || (kv.value.kind != 's' && kv.value.kind != 'r') {
		return ""
	}
	return kv.value.str
}

// table walks sub-tables by name; nil when any is missing.
func (t *compTOMLTable) table(path ...string) *compTOMLTable {
	for _, p := range path {
		if t == nil {
			return nil
		}
		t = t.sub[p]
	}
	return t
}

// arrays returns the elements of an array of tables such as [[package]].
func (t *compTOMLTable) arrays(name string) []*compTOMLTable {
	if t == nil {
		return nil
	}
	return t.arrs[name]
}

type compTOMLParser struct {
	s    []byte
	i    int
	line int
}

func compParseTOML(data []byte) (*compTOMLTable, error) {
	p := &compTOMLParser{s: data, line: 1}
	root := compNewTOMLTable(1)
	cur := root
	for {
		p.skipSpaceNewlines()
		if p.eof() {
			return root, nil
		}
		if p.s[p.i] == '[' {
			isArray := p.i+1 < len(p.s) && p.s[p.i+1] == '['
			line := p.line
			p.i++
			if isArray {
				p.i++
			}
			keys, err := p.key()
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			closing := "]"
			if isArray {
				closing = "]]"
			}
			if !strings.HasPrefix(string(p.s[p.i:min(len(p.s), p.i+2)]), closing) {
				return nil, p.errf("unterminated table header")
			}
			p.i += len(closing)
			cur = compTOMLOpen(root, keys, isArray, line)
		} else {
			line := p.line
			keys, err := p.key()
			if err != nil {
				return nil, err
			}
			p.skipSpace()
			if p.eof() || p.s[p.i] != '=' {
				return nil, p.errf("expected '=' after key %q", strings.Join(keys, "."))
			}
			p.i++
			p.skipSpace()
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			compTOMLSet(cur, keys, v, line)
		}
		p.skipSpace()
		if !p.eof() && p.s[p.i] == '#' {
			p.skipComment()
		}
		if !p.eof() && p.s[p.i] != '\n' && p.s[p.i] != '\r' {
			return nil, p.errf("unexpected %q after value", p.s[p.i])
		}
	}
}

// compTOMLOpen finds or creates the table a header names. A path through an
// array of tables continues in its last element, so [package.dependencies]
// after [[package]] belongs to that package.
func compTOMLOpen(root *compTOMLTable, keys []string, isArray bool, line int) *compTOMLTable {
	t := root
	for _, k := range keys[:len(keys)-1] {
		t = compTOMLDescend(t, k, line)
	}
	last := keys[len(keys)-1]
	if isArray {
		nt := compNewTOMLTable(line)
		t.arrs[last] = append(t.arrs[last], nt)
		return nt
	}
	if arr := t.arrs[last]; len(arr) > 0 {
		return arr[len(arr)-1]
	}
	if st, ok := t.sub[last]; ok {
		st.line = line
		return st
	}
	nt := compNewTOMLTable(line)
	t.sub[last] = nt
	return nt
}

func compTOMLDescend(t *compTOMLTable, k string, line int) *compTOMLTable {
	if arr := t.arrs[k]; len(arr) > 0 {
		return arr[len(arr)-1]
	}
	if st, ok := t.sub[k]; ok {
		return st
	}
	nt := compNewTOMLTable(line)
	t.sub[k] = nt
	return nt
}

func compTOMLSet(t *compTOMLTable, keys []string, v compTOMLValue, line int) {
	for _, k := range keys[:len(keys)-1] {
		t = compTOMLDescend(t, k, line)
	}
	last := keys[len(keys)-1]
	t.kvs = append(t.kvs, compTOMLKV{key: last, value: v, line: line})
	if v.kind == 't' && v.table != nil {
		// Inline tables are also reachable as sub-tables, so callers can
		// read `serde = { version = "1" }` and [dependencies.serde] alike.
		t.sub[last] = v.table
	}
}

func (p *compTOMLParser) eof() bool { return p.i >= len(p.s) }

func (p *compTOMLParser) errf(format string, args ...any) error {
	return fmt.Errorf("toml line %d: %s", p.line, fmt.Sprintf(format, args...))
}

func (p *compTOMLParser) skipSpace() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *compTOMLParser) skipComment() {
	for !p.eof() && p.s[p.i] != '\n' {
		p.i++
	}
}

// skipSpaceNewlines skips blanks, newlines and comments.
func (p *compTOMLParser) skipSpaceNewlines() {
	for !p.eof() {
		switch p.s[p.i] {
		case ' ', '\t', '\r':
			p.i++
		case '\n':
			p.i++
			p.line++
		case '#':
			p.skipComment()
		default:
			return
		}
	}
}

func compTOMLBareKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a possibly dotted, possibly quoted key.
func (p *compTOMLParser) key() ([]string, error) {
	var keys []string
	for {
		p.skipSpace()
		if p.eof() {
			return nil, p.errf("expected a key")
		}
		switch c := p.s[p.i]; {
		case c == '"' || c == '\'':
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			keys = append(keys, v.str)
		case compTOMLBareKeyByte(c):
			start := p.i
			for !p.eof() && compTOMLBareKeyByte(p.s[p.i]) {
				p.i++
			}
			keys = append(keys, string(p.s[start:p.i]))
		default:
			return nil, p.errf("unexpected %q in key", c)
		}
		p.skipSpace()
		if p.eof() || p.s[p.i] != '.' {
			return keys, nil
		}
		p.i++
	}
}

func (p *compTOMLParser) value() (compTOMLValue, error) {
	if p.eof() {
		return compTOMLValue{}, p.errf("expected a value")
	}
	line := p.line
	switch p.s[p.i] {
	case '"':
		if strings.HasPrefix(string(p.s[p.i:min(len(p.s), p.i+3)]), `"""`) {
			p.i += 3
			s, err := p.basicString(`"""`)
			return compTOMLValue{kind: 's', str: strings.TrimPrefix(s, "\n"), line: line}, err
		}
		p.i++
		s, err := p.basicString(`"`)
		return compTOMLValue{kind: 's', str: s, line: line}, err
	case '\'':
		delim := "'"
		if strings.HasPrefix(string(p.s[p.i:min(len(p.s), p.i+3)]), "'''") {
			delim = "'''"
		}
		p.i += len(delim)
		end := strings.Index(string(p.s[p.i:]), delim)
		if end < 0 {
			return compTOMLValue{}, p.errf("unterminated literal string")
		}
		s := string(p.s[p.i : p.i+end])
		p.line += strings.Count(s, "\n")
		p.i += end + len(delim)
		return compTOMLValue{kind: 's', str: strings.TrimPrefix(s, "\n"), line: line}, nil
	case '[':
		p.i++
		v := compTOMLValue{kind: 'a', line: line}
		for {
			p.skipSpaceNewlines()
			if p.eof() {
				return v, p.errf("unterminated array")
			}
			if p.s[p.i] == ']' {
				p.i++
				return v, nil
			}
			el, err := p.value()
			if err != nil {
				return v, err
			}
			v.arr = append(v.arr, el)
			p.skipSpaceNewlines()
			if !p.eof() && p.s[p.i] == ',' {
				p.i++
			}
		}
	case '{':
		p.i++
		t := compNewTOMLTable(line)
		for {
			p.skipSpace()
			if p.eof() {
				return compTOMLValue{}, p.errf("unterminated inline table")
			}
			if p.s[p.i] == '}' {
				p.i++
				return compTOMLValue{kind: 't', table: t, line: line}, nil
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			kline := p.line
			keys, err := p.key()
			if err != nil {
				return compTOMLValue{}, err
			}
			p.skipSpace()
			if p.eof() || p.s[p.i] != '=' {
				return compTOMLValue{}, p.errf("expected '=' in inline table")
			}
			p.i++
			p.skipSpace()
			el, err := p.value()
			if err != nil {
				return compTOMLValue{}, err
			}
			compTOMLSet(t, keys, el, kline)
		}
	default:
		start := p.i
		for !p.eof() && !strings.ContainsRune(",]}\n#\r", rune(p.s[p.i])) {
			p.i++
		}
		raw := strings.TrimSpace(string(p.s[start:p.i]))
		if raw == "" {
			return compTOMLValue{}, p.errf("empty value")
		}
		return compTOMLValue{kind: 'r', str: raw, line: line}, nil
	}
}

// basicString reads up to delim, decoding escapes; the opening quote(s)
// are already consumed.
func (p *compTOMLParser) basicString(delim string) (string, error) {
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.errf("unterminated string")
		}
		if strings.HasPrefix(string(p.s[p.i:min(len(p.s), p.i+len(delim))]), delim) {
			p.i += len(delim)
			return b.String(), nil
		}
		c := p.s[p.i]
		switch {
		case c == '\n':
			if len(delim) == 1 {
				return "", p.errf("newline in string")
			}
			p.line++
			b.WriteByte(c)
			p.i++
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errf("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if p.i+n > len(p.s) {
					return "", p.errf("short unicode escape")
				}
				r, err := strconv.ParseUint(string(p.s[p.i:p.i+n]), 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", p.errf("bad unicode escape")
				}
				b.WriteRune(rune(r))
				p.i += n
			case '\n':
				// line-ending backslash in a multi-line string: trim
				p.line++
				for !p.eof() && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
					if p.s[p.i] == '\n' {
						p.line++
					}
					p.i++
				}
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}
