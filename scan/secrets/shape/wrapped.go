package shape

import "bytes"

// WrappedLiteral returns the string literal of an assignment broken over
// two lines: after its operator (Prettier's `const apiKey =` with the
// string alone below), before it (Java's `String ACCOUNT_KEY` with
// `= "..."` below, the way long literals are wrapped), or inside a C++
// brace initializer (`std::string accountKey{` with `"..."};` below).
// rest is what follows the name on its line, next the line below. The
// literal must end the statement: a `;`, `,`, the initializer's `}` or a
// comment may follow it, an expression may not ("a" + b).
func WrappedLiteral(rest, next []byte) ([]byte, bool) {
	if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
		rest = rest[1:] // the closing quote of a quoted name
	}
	op := string(bytes.TrimSpace(rest))
	next = bytes.TrimSpace(next)
	braced := op == "{"
	switch {
	case op == "":
		switch {
		case bytes.HasPrefix(next, []byte(":=")):
			next = next[2:]
		case len(next) > 1 && next[0] == '=' && next[1] != '=' && next[1] != '>':
			next = next[1:]
		default:
			return nil, false
		}
		next = bytes.TrimLeft(next, " \t")
	case op != ":=" && op != "=" && op != ":" && !braced:
		return nil, false
	}
	if len(next) < 3 || !isQuote(next[0]) {
		return nil, false
	}
	end := bytes.IndexByte(next[1:], next[0])
	if end < 0 {
		return nil, false
	}
	tail := bytes.TrimSpace(next[end+2:])
	if braced {
		if len(tail) == 0 || tail[0] != '}' {
			return nil, false
		}
		tail = bytes.TrimSpace(tail[1:])
	}
	if len(tail) > 0 && (tail[0] == ';' || tail[0] == ',') {
		tail = bytes.TrimSpace(tail[1:])
	}
	if len(tail) > 0 && !bytes.HasPrefix(tail, []byte("//")) && tail[0] != '#' {
		return nil, false
	}
	return next[1 : end+1], true
}

// BraceInitLiteral returns the bounds of the string literal of a C++
// brace initialization on one line (std::string apiKey{"..."};), p being
// just after the name.
func BraceInitLiteral(line []byte, p int) (int, int, bool) {
	if p >= len(line) || line[p] != '{' {
		return 0, 0, false
	}
	q := p + 1
	for q < len(line) && (line[q] == ' ' || line[q] == '\t') {
		q++
	}
	if q >= len(line) || !isQuote(line[q]) {
		return 0, 0, false
	}
	end := bytes.IndexByte(line[q+1:], line[q])
	if end < 0 || !bytes.HasPrefix(bytes.TrimLeft(line[q+2+end:], " \t"), []byte("}")) {
		return 0, 0, false
	}
	return q + 1, q + 1 + end, true
}

func isQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' }
