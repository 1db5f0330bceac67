package shape

import (
	"bytes"
	"regexp"
	"strings"
)

var (
	yamlBlockRe = regexp.MustCompile(`^:[ \t]*[|>][-+]?$`)
	typedOpRe   = regexp.MustCompile(`^:[ \t]*[A-Za-z_][\w.<>\[\]|?]*[ \t]*=$`)
)

// WrappedLiteral returns the string literal of an assignment broken over
// two lines: after its operator (Prettier's `const apiKey =` with the
// string alone below, also typed, `token: string =`, or parenthesized,
// Python's `= (`), before it (Java's `String ACCOUNT_KEY` with `= "..."`
// below, the way long literals are wrapped), inside a C++ brace
// initializer (`std::string accountKey{` with `"..."};` below), or as a
// one-line YAML block scalar (`password: >-` with the value below).
// rest is what follows the name on its line, next the line below. The
// literal must end the statement: a `;`, `,`, the initializer's `}` or a
// comment may follow it, an expression may not ("a" + b).
func WrappedLiteral(rest, next []byte) ([]byte, bool) {
	if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
		rest = rest[1:] // the closing quote of a quoted name
	}
	// Only an operator, a type and a bracket may follow the name: a long
	// rest is a statement going on (and, on a minified line, would be
	// copied once for each of its names).
	rest = bytes.TrimSpace(rest)
	if len(rest) > 128 {
		return nil, false
	}
	op := string(rest)
	next = bytes.TrimSpace(next)
	if yamlBlockRe.MatchString(op) {
		// A YAML block scalar of one line (password: >- and the value
		// below): the value is the line, unquoted.
		if len(next) == 0 || bytes.ContainsAny(next, " \t") || isQuote(next[0]) || next[0] == '#' {
			return nil, false
		}
		return next, true
	}
	// A type between the name and its operator (TypeScript's and Kotlin's
	// `token: string =`), and Python's parenthesized literal (`= (`).
	op = typedOpRe.ReplaceAllString(op, "=")
	parenthesized := strings.HasSuffix(op, "(")
	op = strings.TrimSpace(strings.TrimSuffix(op, "("))
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
	if parenthesized && len(tail) > 0 && tail[0] == ')' {
		tail = bytes.TrimSpace(tail[1:])
	}
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

// YAMLBlockIndicator reports the header of a block scalar: | or > with
// an optional chomping indicator.
func YAMLBlockIndicator(v []byte) bool {
	return len(v) >= 1 && len(v) <= 2 && (v[0] == '|' || v[0] == '>') && (len(v) == 1 || v[1] == '-' || v[1] == '+')
}

func isQuote(b byte) bool { return b == '"' || b == '\'' || b == '`' }

// commandSetsRe ends the text before a NAME=value argument that a command
// stores or passes on as a setting: kubectl's --from-literal=, docker's
// -e/--env and --build-arg, helm's --set, the config:set / secrets set of
// Heroku, Dokku, Fly and Doppler, and Vault's kv put and write after their
// path (any of the pairs that follow them).
var commandSetsRe = regexp.MustCompile(`(?:--from-literal=|(?:^|[ \t])(?:-e|--env|--set|--set-string|--build-arg)[ \t=]+|(?:^|[ \t])(?:config:set|secrets[ \t]+set|secrets:set)[ \t]+(?:-[\w-]+(?:[ \t]+[\w-]+)?[ \t]+)*(?:[\w.-]+=[^ \t]*[ \t]+)*|(?:^|[ \t])vault[ \t]+(?:kv[ \t]+put|write)[ \t]+(?:-[\w-]+(?:=[^ \t]*)?[ \t]+)*[^ \t=]+[ \t]+(?:[\w.-]+=[^ \t]*[ \t]+)*)$`)

// CommandSetsValue reports whether before, the text of a line before a
// NAME=value, makes it an argument a command stores or passes on as a
// setting, whose value is then a literal even unquoted (unlike a shell
// variable's, which may be a vendor lookalike the vendor rules rejected).
func CommandSetsValue(before []byte) bool {
	tail := Tail(before)
	// Every form holds one of these; most lines hold none.
	if !bytes.Contains(tail, []byte("-e")) && !bytes.Contains(tail, []byte("--")) && !bytes.Contains(tail, []byte("config:")) &&
		!bytes.Contains(tail, []byte("secrets")) && !bytes.Contains(tail, []byte("vault")) {
		return false
	}
	return commandSetsRe.Match(tail)
}

// Tail is the end of the text of a line before a name, all that a pattern
// read right to left up to the name ($-anchored) needs: matched against
// the whole text, each of a long minified line's thousands of names would
// cost a pass over the line before it.
func Tail(before []byte) []byte {
	return before[max(0, len(before)-256):]
}
