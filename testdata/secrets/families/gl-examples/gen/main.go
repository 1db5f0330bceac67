// Command gen builds the gl-examples part of the families corpus from
// gitleaks' own rule examples: every true- and false-positive example of
// cmd/generate/config/rules/*.go, one file per example, the way an outside
// set scored "per example file" is built. Its extract-random and
// write-random commands build the gl-random part from the same sources
// (random.go). Given an earlier extraction as EXCEPT, extract and
// extract-random keep only what it lacks: the bl-examples and bl-random
// parts are what betterleaks, gitleaks' fork, added.
//
//	go run ./testdata/secrets/families/gl-examples/gen extract RULESDIR [EXCEPT.jsonl] > testdata/secrets/families/gl-examples/gen/examples.jsonl
//	go run ./testdata/secrets/families/gl-examples/gen write testdata/secrets/families/gl-examples
//
// extract reads the string literals assigned to tps/fps (and passed to
// utils.GenerateSampleSecret(s)) in a gitleaks source tree; write turns
// gen/examples.jsonl into files/, LABELS.tsv and NEGATIVES.tsv. Only
// literal examples are kept: ones gitleaks draws at random
// (secrets.NewSecret) are not hand-written.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type example struct {
	File, Func, RuleID, Kind, Value, Ident, Path string
	Multi                                        bool
	// Source names the rule sources read; empty in examples extracted
	// before a second scanner's sources were read: gitleaks v8.30.0's.
	Source string `json:",omitempty"`
}

func main() {
	commands := map[string]func(string) error{
		"extract": extract, "write": write,
		// The gl-random part (random.go): the samples gitleaks draws at random.
		"extract-random": extractRandom, "write-random": writeRandom,
	}
	cmd, ok := commands[os.Args[min(1, len(os.Args)-1)]]
	extracting := ok && strings.HasPrefix(os.Args[1], "extract")
	if !ok || len(os.Args) < 3 || len(os.Args) > 4 || len(os.Args) == 4 && !extracting {
		fmt.Fprintln(os.Stderr, "usage: gen extract|extract-random RULESDIR [EXCEPT.jsonl] | gen write|write-random PARTDIR")
		os.Exit(2)
	}
	// EXCEPT is an earlier extraction: a fork's rule sources keep most of
	// the examples of the scanner it forked, and a part of its own holds
	// only what is new.
	if len(os.Args) == 4 {
		var err error
		if except, err = readExcept(os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := cmd(os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// literal folds an expression made only of string literals, + and the
// function's own literal locals.
func literal(e ast.Expr, locals map[string]string) (string, bool) {
	switch v := e.(type) {
	case *ast.BasicLit:
		if v.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(v.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if v.Op != token.ADD {
			return "", false
		}
		a, ok1 := literal(v.X, locals)
		b, ok2 := literal(v.Y, locals)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return literal(v.X, locals)
	case *ast.Ident:
		s, ok := locals[v.Name]
		return s, ok
	}
	return "", false
}

// eachRuleFunc calls fn on every function of the rule files in dir (tests
// and stopwords.go aside), files in C order.
func eachRuleFunc(dir string, fn func(base string, fd *ast.FuncDecl) error) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		base := filepath.Base(n)
		if strings.HasSuffix(base, "_test.go") || base == "stopwords.go" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), n, nil, 0)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if err := fn(base, fd); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// callName is the called function's name, without its package.
func callName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.Ident:
		return f.Name
	}
	return ""
}

// except holds the keys (exampleKey, sampleKey) of an earlier extraction
// to leave out.
var except = map[string]bool{}

func readExcept(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	keys := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var x struct {
			example
			Parts []part
		}
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if x.Parts != nil {
			keys[sampleKey(randomSample{RuleID: x.RuleID, Parts: x.Parts})] = true
		} else {
			keys[exampleKey(x.example)] = true
		}
	}
	return keys, sc.Err()
}

func exampleKey(x example) string { return x.Kind + "\x00" + x.Value }

// rulesSource names a rules directory by its module and version when it
// sits in the module cache (the way every part's SOURCE gives it).
func rulesSource(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if _, rest, ok := strings.Cut(filepath.ToSlash(abs), "/pkg/mod/"); ok {
		return rest
	}
	return filepath.ToSlash(abs)
}

// sourceOf is where an example came from, for its label.
func sourceOf(source, file string) string {
	if source == "" {
		source = "gitleaks/gitleaks v8.30.0 cmd/generate/config/rules"
	}
	return source + "/" + file
}

func extract(dir string) error {
	enc := json.NewEncoder(os.Stdout)
	source := rulesSource(dir)
	return eachRuleFunc(dir, func(base string, fd *ast.FuncDecl) error { return extractFunc(enc, source, base, fd) })
}

func extractFunc(enc *json.Encoder, source, base string, fd *ast.FuncDecl) error {
	locals := map[string]string{}
	ruleID := ""
	ast.Inspect(fd.Body, func(nd ast.Node) bool {
		switch v := nd.(type) {
		case *ast.AssignStmt:
			if v.Tok == token.DEFINE {
				for i, l := range v.Lhs {
					if id, ok := l.(*ast.Ident); ok && i < len(v.Rhs) {
						if s, ok := literal(v.Rhs[i], locals); ok {
							locals[id.Name] = s
						}
					}
				}
			}
		case *ast.KeyValueExpr:
			if id, ok := v.Key.(*ast.Ident); ok && id.Name == "RuleID" && ruleID == "" {
				ruleID, _ = literal(v.Value, locals)
			}
		}
		return true
	})
	var encErr error
	put := func(x example) {
		if encErr == nil && !except[exampleKey(x)] {
			x.File, x.Func, x.RuleID, x.Multi, x.Source = base, fd.Name.Name, ruleID, strings.Contains(x.Value, "\n"), source
			encErr = enc.Encode(x)
		}
	}
	var walk func(kind string, e ast.Expr)
	walk = func(kind string, e ast.Expr) {
		if s, ok := literal(e, locals); ok {
			put(example{Kind: kind, Value: s})
			return
		}
		switch v := e.(type) {
		case *ast.CompositeLit:
			for _, el := range v.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					// ValidateWithPaths' map: file name → example.
					p, ok1 := literal(kv.Key, locals)
					s, ok2 := literal(kv.Value, locals)
					if ok1 && ok2 {
						put(example{Kind: kind, Value: s, Path: p})
					}
					continue
				}
				walk(kind, el)
			}
		case *ast.CallExpr:
			switch callName(v) {
			case "append":
				for _, a := range v.Args[1:] {
					walk(kind, a)
				}
			case "GenerateSampleSecrets", "GenerateSampleSecret":
				if len(v.Args) == 2 {
					id, _ := literal(v.Args[0], locals)
					if s, ok := literal(v.Args[1], locals); ok {
						put(example{Kind: kind + "-sample", Value: s, Ident: id})
					}
				}
			}
		}
	}
	kindOf := func(name string) string {
		if ln := strings.ToLower(name); strings.HasPrefix(ln, "tp") || strings.HasPrefix(ln, "fp") {
			return ln[:2]
		}
		return ""
	}
	ast.Inspect(fd.Body, func(nd ast.Node) bool {
		switch v := nd.(type) {
		case *ast.AssignStmt:
			for i, l := range v.Lhs {
				if id, ok := l.(*ast.Ident); ok && i < len(v.Rhs) && kindOf(id.Name) != "" {
					walk(kindOf(id.Name), v.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, nm := range v.Names {
				if i < len(v.Values) && kindOf(nm.Name) != "" {
					walk(kindOf(nm.Name), v.Values[i])
				}
			}
		}
		return true
	})
	return encErr
}

// sampleContexts are four of gitleaks' sample-generator contexts
// (utils.GenerateSampleSecrets), taken in turn for the examples it writes
// that way; families/gl-contexts holds all 26 for every value.
var sampleContexts = []struct{ template, ext string }{
	{`{i}Token="{s}"`, "ini"},
	{"{\n    \"{i}_token\": \"{s}\"\n}", "json"},
	{`{i}_token: {s}`, "yaml"},
	{`{i}Token = "{s}"`, "py"},
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

func write(part string) error {
	in, err := os.Open(filepath.Join(part, "gen", "examples.jsonl"))
	if err != nil {
		return err
	}
	defer in.Close()
	files := filepath.Join(part, "files")
	if err := os.RemoveAll(files); err != nil {
		return err
	}
	var labels, negatives strings.Builder
	labels.WriteString("# file\tline\tfamily\tsource (line 0: the example is the whole file, found by a finding on any of its lines)\n")
	negatives.WriteString("# file\tline\tfamily\tsource: a false-positive example, one per file: any finding in it is a false positive\n")
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, samples := 0, 0
	for sc.Scan() {
		var x example
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return err
		}
		n++
		body, name := x.Value, x.RuleID+".txt"
		if x.Path != "" {
			name = unsafeName.ReplaceAllString(filepath.Base(x.Path), "_")
		}
		if x.Kind == "tp-sample" {
			c := sampleContexts[samples%len(sampleContexts)]
			samples++
			ident := strings.ToLower(unsafeName.ReplaceAllString(x.Ident, ""))
			body = strings.NewReplacer("{i}", ident, "{s}", x.Value).Replace(c.template)
			name = x.RuleID + "." + c.ext
		}
		kind := "tp"
		if x.Kind == "fp" {
			kind = "fp"
		}
		rel := fmt.Sprintf("%s/%04d/%s", kind, n, name)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(files, rel)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(files, rel), []byte(body+"\n"), 0o644); err != nil {
			return err
		}
		src := fmt.Sprintf("%s %s (%s)", sourceOf(x.Source, x.File), x.Func, x.Kind)
		if kind == "tp" {
			fmt.Fprintf(&labels, "%s\t0\t%s\t%s\n", rel, x.RuleID, src)
		} else {
			fmt.Fprintf(&negatives, "%s\t0\t%s\t%s\n", rel, x.RuleID, src)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(part, "LABELS.tsv"), []byte(labels.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(part, "NEGATIVES.tsv"), []byte(negatives.String()), 0o644)
}
