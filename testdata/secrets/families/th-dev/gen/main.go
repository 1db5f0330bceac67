// Command gen builds the th-dev and th-heldout parts of the families
// corpus from TruffleHog's detector tests: the literal inputs of each
// detector's pattern test (pkg/detectors/**/*_test.go, integration tests
// aside), an input with expected results a true positive and one without
// a false-positive example, one file each.
//
//	go run ./testdata/secrets/families/th-dev/gen extract DETECTORSDIR > testdata/secrets/families/th-dev/gen/examples.jsonl
//	go run ./testdata/secrets/families/th-dev/gen write testdata/secrets/families
//
// write splits by detector: the detector directories, sorted, at even
// indexes go to th-dev, at odd ones to th-heldout.
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

type ex struct {
	Detector, File, Name, Input string
	Want                        []string
}

func main() {
	if len(os.Args) != 3 || os.Args[1] != "extract" && os.Args[1] != "write" {
		fmt.Fprintln(os.Stderr, "usage: gen extract DETECTORSDIR | gen write FAMILIESDIR")
		os.Exit(2)
	}
	if os.Args[1] == "write" {
		if err := write(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	extract(os.Args[2])
}

// extract prints every pattern-test case whose input (and expected
// results, when there are any) are literals or the file's literal
// constants.
func extract(root string) {
	var files []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, "_test.go") && !strings.Contains(p, "integration") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	enc := json.NewEncoder(os.Stdout)
	for _, f := range files {
		fs := token.NewFileSet()
		af, err := parser.ParseFile(fs, f, nil, 0)
		if err != nil {
			continue
		}
		consts := map[string]string{}
		var lit func(e ast.Expr) (string, bool)
		lit = func(e ast.Expr) (string, bool) {
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
				a, ok1 := lit(v.X)
				b, ok2 := lit(v.Y)
				return a + b, ok1 && ok2
			case *ast.ParenExpr:
				return lit(v.X)
			case *ast.Ident:
				s, ok := consts[v.Name]
				return s, ok
			}
			return "", false
		}
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok {
						for i, n := range vs.Names {
							if i < len(vs.Values) {
								if s, ok := lit(vs.Values[i]); ok {
									consts[n.Name] = s
								}
							}
						}
					}
				}
			}
		}
		rel, _ := filepath.Rel(root, f)
		det := filepath.Dir(rel)
		ast.Inspect(af, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			var input, name string
			haveInput, wantOK := false, true
			var want []string
			for _, el := range cl.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				k, ok := kv.Key.(*ast.Ident)
				if !ok {
					continue
				}
				switch k.Name {
				case "name":
					name, _ = lit(kv.Value)
				case "input":
					input, haveInput = lit(kv.Value)
				case "want":
					switch w := kv.Value.(type) {
					case *ast.CompositeLit:
						for _, x := range w.Elts {
							if s, ok := lit(x); ok {
								want = append(want, s)
							} else {
								wantOK = false
							}
						}
					case *ast.Ident:
						if w.Name != "nil" {
							wantOK = false
						}
					default:
						wantOK = false
					}
				}
			}
			if haveInput && wantOK && strings.TrimSpace(input) != "" {
				enc.Encode(ex{det, filepath.Base(f), name, input, want})
			}
			return true
		})
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

func write(families string) error {
	in, err := os.Open(filepath.Join(families, "th-dev", "gen", "examples.jsonl"))
	if err != nil {
		return err
	}
	defer in.Close()
	var all []ex
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var x ex
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return err
		}
		all = append(all, x)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var detectors []string
	seen := map[string]bool{}
	for _, x := range all {
		if !seen[x.Detector] {
			seen[x.Detector] = true
			detectors = append(detectors, x.Detector)
		}
	}
	sort.Strings(detectors)
	partOf := map[string]string{}
	for i, d := range detectors {
		partOf[d] = []string{"th-dev", "th-heldout"}[i%2]
	}
	type out struct{ labels, negatives strings.Builder }
	parts := map[string]*out{"th-dev": {}, "th-heldout": {}}
	for name, o := range parts {
		if err := os.RemoveAll(filepath.Join(families, name, "files")); err != nil {
			return err
		}
		o.labels.WriteString("# file\tline\tfamily\tsource (line 0: the example is the whole file, found by a finding on any of its lines)\n")
		o.negatives.WriteString("# file\tline\tfamily\tsource: an input the detector's test expects nothing from, one per file\n")
	}
	for i, x := range all {
		part := partOf[x.Detector]
		kind := "tp"
		if len(x.Want) == 0 {
			kind = "fp"
		}
		family := "th." + strings.ReplaceAll(x.Detector, "/", ".")
		rel := fmt.Sprintf("%s/%04d/%s.txt", kind, i+1, unsafeName.ReplaceAllString(strings.ReplaceAll(x.Detector, "/", "-"), "_"))
		path := filepath.Join(families, part, "files", rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		body := x.Input
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return err
		}
		src := fmt.Sprintf("trufflesecurity/trufflehog v3.90.0 pkg/detectors/%s/%s (%q)", x.Detector, x.File, x.Name)
		if kind == "tp" {
			fmt.Fprintf(&parts[part].labels, "%s\t0\t%s\t%s\n", rel, family, src)
		} else {
			fmt.Fprintf(&parts[part].negatives, "%s\t0\t%s\t%s\n", rel, family, src)
		}
	}
	for name, o := range parts {
		if err := os.WriteFile(filepath.Join(families, name, "LABELS.tsv"), []byte(o.labels.String()), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(families, name, "NEGATIVES.tsv"), []byte(o.negatives.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
