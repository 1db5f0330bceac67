package dockerfile

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// This file is the Dockerfile parser behind the dockerfile scanner. It is a
// real parser rather than a line grep because the rules must survive what
// real Dockerfiles do: instructions continued over many lines (with `\` or
// the escape character chosen by a `# escape=` directive), comment lines in
// the middle of a continuation, BuildKit heredocs whose bodies are not
// instructions, and exec (JSON array) versus shell form. Every piece of an
// instruction keeps the physical line it came from, so a rule can report the
// line of the offending word inside a continuation, not just the line where
// the instruction starts.

// dockerfileText is instruction text assembled from one or more physical
// lines, with the map back to 1-based line numbers.
type dockerfileText struct {
	s     string
	marks []dockerfileMark // ascending by off; marks[0].off == 0
}

// dockerfileMark says that the text from off onwards came from line.
type dockerfileMark struct{ off, line int }

// lineAt returns the physical line of the byte at off.
func (t dockerfileText) lineAt(off int) int {
	if len(t.marks) == 0 {
		return 0
	}
	i := sort.Search(len(t.marks), func(i int) bool { return t.marks[i].off > off })
	if i == 0 {
		return t.marks[0].line
	}
	return t.marks[i-1].line
}

// slice returns s[from:to] with its line map.
func (t dockerfileText) slice(from, to int) dockerfileText {
	out := dockerfileText{s: t.s[from:to]}
	first := t.lineAt(from)
	out.marks = append(out.marks, dockerfileMark{0, first})
	for _, m := range t.marks {
		if m.off > from && m.off < to {
			out.marks = append(out.marks, dockerfileMark{m.off - from, m.line})
		}
	}
	return out
}

// dockerfileSingleLine is a text that maps entirely to one line, used for
// strings that came out of a JSON array (their offsets mean nothing in the
// file).
func dockerfileSingleLine(s string, line int) dockerfileText {
	return dockerfileText{s: s, marks: []dockerfileMark{{0, line}}}
}

// dockerfileInstruction is one parsed instruction.
type dockerfileInstruction struct {
	keyword string // upper case: FROM, RUN, ...
	line    int    // 1-based line where the keyword is
	flags   []dockerfileFlag
	args    dockerfileText // everything after the keyword and its flags
	// exec holds the elements of an exec-form (JSON array) instruction; it
	// is nil for shell form.
	exec     []string
	heredocs []dockerfileHeredoc
}

// isExec reports whether the instruction used the JSON array form.
func (in *dockerfileInstruction) isExec() bool { return in.exec != nil }

// flag returns the value of --name and whether it was given.
func (in *dockerfileInstruction) flag(name string) (string, bool) {
	for _, f := range in.flags {
		if f.name == name {
			return f.value, true
		}
	}
	return "", false
}

// dockerfileFlag is one `--name=value` flag of an instruction.
type dockerfileFlag struct {
	name, value string
	line        int
}

// dockerfileHeredoc is one `<<NAME` body attached to an instruction.
type dockerfileHeredoc struct {
	name string
	body dockerfileText
	// markerOff and markerEnd locate the `<<NAME` marker in the
	// instruction's args.
	markerOff, markerEnd int
}

// dockerfileFile is a parsed Dockerfile.
type dockerfileFile struct {
	escape       byte
	instructions []*dockerfileInstruction
	lines        []string // physical lines, for snippets
}

// physical returns the text of 1-based line n.
func (f *dockerfileFile) physical(n int) string {
	if n < 1 || n > len(f.lines) {
		return ""
	}
	return f.lines[n-1]
}

var (
	// dockerfileDirectiveRe matches a parser directive (`# escape=`),
	// which is only honoured before the first comment, blank line or
	// instruction.
	dockerfileDirectiveRe = regexp.MustCompile(`^#\s*([a-zA-Z][a-zA-Z0-9_-]*)\s*=\s*(\S*)\s*$`)
	// dockerfileHeredocRe matches a heredoc marker: <<EOF, <<-EOF,
	// <<"EOF", <<'EOF'.
	dockerfileHeredocRe = regexp.MustCompile(`<<(-?)(?:"([A-Za-z0-9_.-]+)"|'([A-Za-z0-9_.-]+)'|([A-Za-z_][A-Za-z0-9_.-]*))`)
)

// dockerfileFlagKeywords are the instructions whose leading `--x` words are
// BuildKit flags rather than arguments.
var dockerfileFlagKeywords = map[string]bool{"FROM": true, "RUN": true, "COPY": true, "ADD": true, "HEALTHCHECK": true}

// dockerfileExecKeywords accept the JSON array form.
var dockerfileExecKeywords = map[string]bool{"RUN": true, "CMD": true, "ENTRYPOINT": true, "SHELL": true, "COPY": true, "ADD": true, "VOLUME": true}

// dockerfileParse parses a Dockerfile. It never fails: text it cannot make
// sense of is kept as an instruction with an unknown keyword, which no rule
// looks at, so a malformed file yields fewer findings rather than none.
func dockerfileParse(src string) *dockerfileFile {
	src = strings.TrimPrefix(src, "\ufeff")
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	f := &dockerfileFile{escape: '\\', lines: lines}

	i := 0
	for ; i < len(lines); i++ {
		m := dockerfileDirectiveRe.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			break
		}
		if strings.EqualFold(m[1], "escape") && (m[2] == "`" || m[2] == `\`) {
			f.escape = m[2][0]
		}
	}

	isSkippable := func(l string) bool {
		t := strings.TrimSpace(l)
		return t == "" || strings.HasPrefix(t, "#")
	}

	for i < len(lines) {
		if isSkippable(lines[i]) {
			i++
			continue
		}
		startLine := i + 1
		var text dockerfileText
		cur := strings.TrimLeft(lines[i], " \t")
		for {
			body := strings.TrimRight(cur, " \t")
			if len(body) > 0 && body[len(body)-1] == f.escape {
				text.marks = append(text.marks, dockerfileMark{len(text.s), i + 1})
				text.s += body[:len(body)-1]
				i++
				// Comment and blank lines inside a continuation are dropped
				// by Docker and do not end the instruction.
				for i < len(lines) && isSkippable(lines[i]) {
					i++
				}
				if i >= len(lines) {
					break
				}
				cur = lines[i]
				continue
			}
			text.marks = append(text.marks, dockerfileMark{len(text.s), i + 1})
			text.s += body
			i++
			break
		}
		in := dockerfileSplitInstruction(text, startLine)
		if in.keyword == "RUN" || in.keyword == "COPY" || in.keyword == "ADD" {
			if !in.isExec() {
				i = dockerfileReadHeredocs(in, lines, i)
			}
		}
		f.instructions = append(f.instructions, in)
	}
	return f
}

// dockerfileSplitInstruction splits a logical line into keyword, flags and
// arguments.
func dockerfileSplitInstruction(text dockerfileText, line int) *dockerfileInstruction {
	s := text.s
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	in := &dockerfileInstruction{keyword: strings.ToUpper(s[:end]), line: line}
	pos := dockerfileSkipBlanks(s, end)
	if dockerfileFlagKeywords[in.keyword] {
		for strings.HasPrefix(s[pos:], "--") {
			wEnd := strings.IndexAny(s[pos:], " \t")
			if wEnd < 0 {
				wEnd = len(s) - pos
			}
			word := s[pos+2 : pos+wEnd]
			name, value, _ := strings.Cut(word, "=")
			in.flags = append(in.flags, dockerfileFlag{name: strings.ToLower(name), value: value, line: text.lineAt(pos)})
			pos = dockerfileSkipBlanks(s, pos+wEnd)
		}
	}
	in.args = text.slice(pos, len(s))
	if dockerfileExecKeywords[in.keyword] {
		trimmed := strings.TrimSpace(in.args.s)
		if strings.HasPrefix(trimmed, "[") {
			var arr []string
			if err := json.Unmarshal([]byte(trimmed), &arr); err == nil {
				if arr == nil {
					arr = []string{}
				}
				in.exec = arr
			}
		}
	}
	return in
}

func dockerfileSkipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// dockerfileReadHeredocs consumes the bodies of the heredocs an instruction
// opens, starting at lines[i], and returns the index of the first line after
// them. Bodies are never parsed as instructions: a heredoc holding `FROM x`
// is file content, not a new stage.
func dockerfileReadHeredocs(in *dockerfileInstruction, lines []string, i int) int {
	for _, m := range dockerfileHeredocRe.FindAllStringSubmatchIndex(in.args.s, -1) {
		name := ""
		for g := 2; g <= 4; g++ {
			if m[2*g] >= 0 {
				name = in.args.s[m[2*g]:m[2*g+1]]
			}
		}
		stripTabs := m[3] > m[2]
		h := dockerfileHeredoc{name: name, markerOff: m[0], markerEnd: m[1]}
		for i < len(lines) {
			l := lines[i]
			cmp := l
			if stripTabs {
				cmp = strings.TrimLeft(l, "\t")
			}
			i++
			if cmp == name {
				break
			}
			h.body.marks = append(h.body.marks, dockerfileMark{len(h.body.s), i})
			h.body.s += l + "\n"
		}
		if len(h.body.marks) == 0 {
			h.body.marks = []dockerfileMark{{0, in.line}}
		}
		in.heredocs = append(in.heredocs, h)
	}
	return i
}

// dockerfileWord is one word of an instruction or shell command, with
// quotes removed, and the line it starts on.
type dockerfileWord struct {
	text string
	line int
}

// dockerfileWords splits non-shell instruction arguments (ENV, ARG, EXPOSE,
// COPY, WORKDIR, ...) into words, honouring quotes and the escape
// character the way Docker does for those instructions.
func dockerfileWords(t dockerfileText, escape byte) []dockerfileWord {
	var out []dockerfileWord
	var b strings.Builder
	start := -1
	var quote byte
	flush := func() {
		if start >= 0 {
			out = append(out, dockerfileWord{text: b.String(), line: t.lineAt(start)})
		}
		b.Reset()
		start = -1
	}
	s := t.s
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == escape && quote == '"' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else {
				b.WriteByte(c)
			}
		case c == ' ' || c == '\t':
			flush()
		case c == '"' || c == '\'':
			if start < 0 {
				start = i
			}
			quote = c
		case c == escape && i+1 < len(s):
			if start < 0 {
				start = i
			}
			i++
			b.WriteByte(s[i])
		default:
			if start < 0 {
				start = i
			}
			b.WriteByte(c)
		}
	}
	flush()
	return out
}

// dockerfileShellCmd is one simple command of a RUN script: the words
// between two of `;`, `&&`, `||`, `|`, `&`, a newline or a parenthesis.
type dockerfileShellCmd struct {
	words []dockerfileWord
	// pipeNext is set when this command's output is piped into the next.
	pipeNext bool
}

// dockerfileShellParse splits a shell script into simple commands. It is a
// deliberately small model of POSIX sh: quotes and backslashes are honoured
// so that separators inside strings do not split commands, and the inside of
// $(...), <(...), >(...) and backticks is parsed again as commands of its
// own, so `sh -c "$(curl -k ...)"` still shows its curl. Shell functions,
// loops and variable expansion are not interpreted.
func dockerfileShellParse(t dockerfileText) []dockerfileShellCmd {
	var cmds []dockerfileShellCmd
	var nested [][2]int
	s := t.s
	var cur dockerfileShellCmd
	var b strings.Builder
	start := -1
	flushWord := func() {
		if start >= 0 {
			cur.words = append(cur.words, dockerfileWord{text: b.String(), line: t.lineAt(start)})
		}
		b.Reset()
		start = -1
	}
	flushCmd := func(pipe bool) {
		flushWord()
		if len(cur.words) > 0 {
			cur.pipeNext = pipe
			cmds = append(cmds, cur)
		}
		cur = dockerfileShellCmd{}
	}
	mark := func(i int) {
		if start < 0 {
			start = i
		}
	}
	// substitute keeps the parenthesized command list that opens at s[at]
	// ("$(" or "<(") in the word, records its inside (from s[inside]) to be
	// parsed as commands too, and returns the index of the closing ')'.
	substitute := func(at, inside int) int {
		end := dockerfileMatchParen(s, inside)
		nested = append(nested, [2]int{inside, end})
		b.WriteString(s[at:min(end+1, len(s))])
		return end
	}
	// backquoted does the same for `cmd`; an unclosed one runs to the end.
	backquoted := func(at int) int {
		end := strings.IndexByte(s[at+1:], '`')
		if end < 0 {
			end = len(s) - at - 1
		}
		nested = append(nested, [2]int{at + 1, at + 1 + end})
		b.WriteString(s[at:min(at+2+end, len(s))])
		return at + end + 1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\r':
			flushWord()
		case '\n', ';':
			flushCmd(false)
		case '#':
			if start >= 0 {
				b.WriteByte(c)
				continue
			}
			for i < len(s) && s[i] != '\n' {
				i++
			}
			flushCmd(false)
		case '&':
			switch {
			case i+1 < len(s) && s[i+1] == '&':
				i++
				flushCmd(false)
			case i+1 < len(s) && s[i+1] == '>', i > 0 && (s[i-1] == '>' || s[i-1] == '<'):
				mark(i)
				b.WriteByte(c)
			default:
				flushCmd(false)
			}
		case '|':
			switch {
			case i+1 < len(s) && s[i+1] == '|':
				i++
				flushCmd(false)
			case i+1 < len(s) && s[i+1] == '&':
				i++
				flushCmd(true)
			default:
				flushCmd(true)
			}
		case '(', ')':
			if (c == '(') && start >= 0 && i > 0 && (s[i-1] == '<' || s[i-1] == '>') {
				// Process substitution <(cmd): keep it in the word, parse
				// its inside as commands too.
				i = substitute(i, i+1)
				continue
			}
			flushCmd(false)
		case '\'':
			mark(i)
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				continue
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '"':
			mark(i)
			i++
			for i < len(s) && s[i] != '"' {
				switch {
				case s[i] == '\\' && i+1 < len(s):
					i++
					b.WriteByte(s[i])
				case s[i] == '$' && i+1 < len(s) && s[i+1] == '(':
					i = substitute(i, i+2)
				case s[i] == '`':
					i = backquoted(i)
				default:
					b.WriteByte(s[i])
				}
				i++
			}
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] == '\n' {
					continue
				}
				mark(i - 1)
				b.WriteByte(s[i])
			}
		case '$':
			mark(i)
			if i+1 < len(s) && s[i+1] == '(' {
				if i+2 < len(s) && s[i+2] == '(' {
					// Arithmetic $((...)) is not a command.
					end := dockerfileMatchParen(s, i+2)
					b.WriteString(s[i:min(end+1, len(s))])
					i = end
					continue
				}
				i = substitute(i, i+2)
				continue
			}
			b.WriteByte(c)
		case '`':
			mark(i)
			i = backquoted(i)
		default:
			mark(i)
			b.WriteByte(c)
		}
	}
	flushCmd(false)
	for _, n := range nested {
		if n[0] < n[1] && n[1] <= len(s) {
			cmds = append(cmds, dockerfileShellParse(t.slice(n[0], n[1]))...)
		}
	}
	return cmds
}

// dockerfileMatchParen returns the index of the `)` closing a parenthesis
// opened just before i, or len(s)-1 when it is never closed.
func dockerfileMatchParen(s string, i int) int {
	depth := 1
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
				i += j + 1
			} else {
				return len(s) - 1
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}

// dockerfileShellWrappers run the command that follows them; the program a
// rule cares about is the one after them.
var dockerfileShellWrappers = map[string]bool{"sudo": true, "env": true, "command": true, "exec": true, "nohup": true, "time": true, "nice": true, "doas": true}

// dockerfileShellKeywords may precede a command in a simple command list.
var dockerfileShellKeywords = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "do": true, "while": true, "until": true, "!": true, "{": true, "}": true}

// dockerfileSudoValueFlags are sudo options that take a value.
var dockerfileSudoValueFlags = map[string]bool{"-u": true, "-g": true, "-C": true, "-p": true, "-U": true, "-h": true, "-r": true, "-t": true, "-D": true, "-R": true, "-T": true}

// program returns the index of the word that is the program a command runs
// (skipping variable assignments, shell keywords and wrappers such as sudo
// and env), or -1.
func (c dockerfileShellCmd) program() int {
	w := c.words
	i := 0
	for i < len(w) {
		t := w[i].text
		switch {
		case dockerfileIsAssignment(t), dockerfileShellKeywords[t]:
			i++
		case dockerfileShellWrappers[dockerfileBase(t)]:
			wrapper := dockerfileBase(t)
			i++
			for i < len(w) && (strings.HasPrefix(w[i].text, "-") || (wrapper == "env" && dockerfileIsAssignment(w[i].text))) {
				if (wrapper == "sudo" && dockerfileSudoValueFlags[w[i].text]) || (wrapper == "nice" && w[i].text == "-n") {
					i++
				}
				i++
			}
		default:
			return i
		}
	}
	return -1
}

// name returns the base name of the program, or "".
func (c dockerfileShellCmd) name() string {
	if p := c.program(); p >= 0 {
		return dockerfileBase(c.words[p].text)
	}
	return ""
}

// args returns the words after the program.
func (c dockerfileShellCmd) args() []dockerfileWord {
	if p := c.program(); p >= 0 {
		return c.words[p+1:]
	}
	return nil
}

// subcommand returns the first non-option argument (apt-get *install*).
func (c dockerfileShellCmd) subcommand() (dockerfileWord, bool) {
	args := c.args()
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "-o" || t == "-c" || t == "-t" {
			i++ // apt-get options that take a value
			continue
		}
		if !strings.HasPrefix(t, "-") {
			return args[i], true
		}
	}
	return dockerfileWord{}, false
}

// hasArg reports whether any argument equals one of want (or starts with
// want+"=").
func (c dockerfileShellCmd) hasArg(want ...string) bool {
	for _, a := range c.args() {
		for _, w := range want {
			if a.text == w || strings.HasPrefix(a.text, w+"=") {
				return true
			}
		}
	}
	return false
}

func dockerfileIsAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i, r := range w[:eq] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func dockerfileBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
