// Command gen builds the gl-examples part of the families corpus from
// gitleaks' own rule examples: every true- and false-positive example of
// cmd/generate/config/rules/*.go, one file per example, the way an outside
// set scored "per example file" is built. Its extract-random and
// write-random commands build the gl-random part from the same sources
// (random.go).
//
//	go run ./testdata/secrets/families/gl-examples/gen extract RULESDIR > testdata/secrets/families/gl-examples/gen/examples.jsonl
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
}

func main() {
	commands := map[string]func(string) error{
		"extract": extract, "write": write,
		// The gl-random part (random.go): the samples gitleaks draws at random.
		"extract-random": extractRandom, "write-random": writeRandom,
	}
	cmd, ok := commands[os.Args[min(1, len(os.Args)-1)]]
	if len(os.Args) != 3 || !ok {
		fmt.Fprintln(os.Stderr, "usage: gen extract|extract-random RULESDIR | gen write|write-random PARTDIR")
		os.Exit(2)
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

func extract(dir string) error {
	enc := json.NewEncoder(os.Stdout)
	return eachRuleFunc(dir, func(base string, fd *ast.FuncDecl) error { return extractFunc(enc, base, fd) })
}

func extractFunc(enc *json.Encoder, base string, fd *ast.FuncDecl) error {
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
		if encErr == nil {
			x.File, x.Func, x.RuleID, x.Multi = base, fd.Name.Name, ruleID, strings.Contains(x.Value, "\n")
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
		src := fmt.Sprintf("gitleaks/gitleaks v8.30.0 cmd/generate/config/rules/%s %s (%s)", x.File, x.Func, x.Kind)
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
