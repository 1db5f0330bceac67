package components

import (
	"strings"
)

// A line-oriented reader for the indentation-structured lockfiles:
// pnpm-lock.yaml and yarn berry's yarn.lock (YAML) and yarn v1's yarn.lock
// (YAML-like, "key value" without a colon). These files are written by
// their tools in a narrow, regular style: block mappings, one key per line,
// scalars that are plain or quoted, flow collections kept on one line. That
// is what this reads; it is not a YAML parser, and it does not need to be,
// because only keys, scalar values and nesting matter here. The standard
// library has no YAML and scand links nothing else.

type compYAMLNode struct {
	key      string
	value    string
	line     int
	indent   int
	children []*compYAMLNode
}

// child returns the first child with key, or nil.
func (n *compYAMLNode) child(key string) *compYAMLNode {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.key == key {
			return c
		}
	}
	return nil
}

// compParseIndented builds the key tree of data. split turns one line's
// content (indentation removed) into key and value.
func compParseIndented(data []byte, split func(string) (key, value string, ok bool)) *compYAMLNode {
	root := &compYAMLNode{indent: -1}
	stack := []*compYAMLNode{root}
	blockIndent := -1 // >= 0 while inside a |/> block scalar
	for i, raw := range strings.Split(string(data), "\n") {
		raw = strings.TrimRight(raw, "\r")
		content := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(content)
		if blockIndent >= 0 {
			if content == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		if content == "" || content[0] == '#' {
			continue
		}
		key, value, ok := split(content)
		if !ok {
			continue
		}
		n := &compYAMLNode{key: key, value: value, line: i + 1, indent: indent}
		for len(stack) > 1 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		parent.children = append(parent.children, n)
		stack = append(stack, n)
		if strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">") {
			blockIndent = indent
			n.value = ""
		}
	}
	return root
}

// compSplitYAML splits `key: value` where key may be quoted.
func compSplitYAML(content string) (string, string, bool) {
	if strings.HasPrefix(content, "- ") || content == "-" {
		return "-", strings.TrimSpace(strings.TrimPrefix(content, "-")), true
	}
	var key, rest string
	if content[0] == '"' || content[0] == '\'' {
		k, n, ok := compYAMLUnquote(content)
		if !ok {
			return "", "", false
		}
		key, rest = k, strings.TrimLeft(content[n:], " ")
		if !strings.HasPrefix(rest, ":") {
			return "", "", false
		}
		rest = rest[1:]
	} else {
		i := strings.Index(content, ": ")
		switch {
		case i >= 0:
			key, rest = content[:i], content[i+1:]
		case strings.HasSuffix(content, ":"):
			key = strings.TrimSuffix(content, ":")
		default:
			return "", "", false
		}
	}
	return strings.TrimSpace(key), compYAMLScalar(rest), true
}

// compYAMLScalar decodes a value: quoted strings unquoted, a trailing
// comment dropped from plain ones, flow collections kept raw.
func compYAMLScalar(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if s[0] == '"' || s[0] == '\'' {
		if v, _, ok := compYAMLUnquote(s); ok {
			return v
		}
		return s
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// compYAMLUnquote decodes the quoted string at the start of s and returns
// it with the number of bytes consumed. Single quotes escape by doubling;
// double quotes take backslash escapes.
func compYAMLUnquote(s string) (string, int, bool) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '\'' && c == '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, true
		case q == '"' && c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
		case q == '"' && c == '"':
			return b.String(), i + 1, true
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// compSplitYarnV1 splits yarn v1 lines: `"a@^1", a@^2:` (a header or a
// nested block), `version "1.2.3"`, `"@scope/dep" "^1.0.0"`.
func compSplitYarnV1(content string) (string, string, bool) {
	if strings.HasSuffix(content, ":") {
		return strings.TrimSuffix(content, ":"), "", true
	}
	var key, rest string
	if content[0] == '"' {
		k, n, ok := compYAMLUnquote(content)
		if !ok {
			return "", "", false
		}
		key, rest = k, content[n:]
	} else {
		i := strings.IndexByte(content, ' ')
		if i < 0 {
			return content, "", true
		}
		key, rest = content[:i], content[i:]
	}
	return key, compYAMLScalar(rest), true
}

// compSplitDescriptors splits a lockfile entry header listing several
// descriptors (`"a@^1", "a@^2"` in yarn v1, `a@npm:^1, a@npm:^2` in berry).
func compSplitDescriptors(header string) []string {
	var out []string
	for _, d := range strings.Split(header, ",") {
		d = strings.TrimSpace(d)
		if len(d) >= 2 && (d[0] == '"' || d[0] == '\'') {
			if v, _, ok := compYAMLUnquote(d); ok {
				d = v
			}
		}
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
