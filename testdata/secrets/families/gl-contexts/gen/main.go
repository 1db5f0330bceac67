// Command gen writes the gl-contexts part of the families corpus: every
// bare hand-written true positive of gitleaks v8.28.0's rule examples
// (gen/values.tsv, the values gl-dev and gl-heldout hold) in each context
// of gitleaks' own sample generator (utils.GenerateSampleSecrets of that
// version), one file per value and context, labeled on the value's line.
// It measures whether detection holds across the contexts a value is
// written in, not new values.
//
// Usage: go run ./testdata/secrets/families/gl-contexts/gen testdata/secrets/families/gl-contexts
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// contexts are GenerateSampleSecrets' templates ({i} the identifier, {I}
// it upper-cased, {s} the secret) and the file kind each is written to.
var contexts = []struct{ name, template, ext string }{
	{"ini-q1", `{i}Token="{s}"`, "ini"},
	{"ini-q2", `{i}Token = "{s}"`, "ini"},
	{"ini-u1", `{i}Token={s}`, "ini"},
	{"ini-u2", `{i}Token = {s}`, "ini"},
	{"json", "{\n    \"{i}_token\": \"{s}\"\n}", "json"},
	{"json-nl", `{"config.ini": "{I}_TOKEN={s}\nBACKUP_ENABLED=true"}`, "json"},
	{"xml-ml", "<{i}Token>\n    {s}\n</{i}Token>", "xml"},
	{"yaml-u", `{i}_token: {s}`, "yaml"},
	{"yaml-sq", `{i}_token: '{s}'`, "yaml"},
	{"yaml-dq", `{i}_token: "{s}"`, "yaml"},
	{"cs", `string {i}Token = "{s}";`, "cs"},
	{"go-n", `var {i}Token string = "{s}"`, "go"},
	{"go-s", `{i}Token := "{s}"`, "go"},
	{"go-b", "{i}Token := `{s}`", "go"},
	{"java", `String {i}Token = "{s}";`, "java"},
	{"kt", `var {i}Token = "{s}"`, "kt"},
	{"php", `${i}Token .= "{s}"`, "php"},
	{"py-sq", `{i}Token = '{s}'`, "py"},
	{"py-dq", `{i}Token = "{s}"`, "py"},
	{"misc-comma", `System.setProperty("{I}_TOKEN", "{s}")`, "java"},
	{"logstash", `  "{i}Token" => "{s}"`, "conf"},
	{"make-r", `{i}_TOKEN = "{s}"`, "mk"},
	{"make-s", `{i}_TOKEN := "{s}"`, "mk"},
	{"make-sh", `{i}_TOKEN ::= "{s}"`, "mk"},
	{"make-esh", `{i}_TOKEN :::= "{s}"`, "mk"},
	{"make-c", `{i}_TOKEN ?= "{s}"`, "mk"},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen PARTDIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func write(part string) error {
	in, err := os.Open(filepath.Join(part, "gen", "values.tsv"))
	if err != nil {
		return err
	}
	defer in.Close()
	files := filepath.Join(part, "files")
	if err := os.RemoveAll(files); err != nil {
		return err
	}
	var labels strings.Builder
	labels.WriteString("# file\tline\tfamily\tsource: a value of gen/values.tsv in a context of gitleaks' sample generator (see gen/main.go)\n")
	sc := bufio.NewScanner(in)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 {
			return fmt.Errorf("values.tsv: bad line %q", sc.Text())
		}
		rule, ident, value := f[0], f[1], f[2]
		n++
		for _, c := range contexts {
			body := strings.NewReplacer("{i}", ident, "{I}", strings.ToUpper(ident), "{s}", value).Replace(c.template)
			rel := fmt.Sprintf("%s/%03d-%s.%s", rule, n, c.name, c.ext)
			if c.ext == "mk" {
				rel = fmt.Sprintf("%s/%03d-%s/Makefile", rule, n, c.name)
			}
			at := 0
			for i, l := range strings.Split(body, "\n") {
				if strings.Contains(l, value) {
					at = i + 1
					break
				}
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(files, rel)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(files, rel), []byte(body+"\n"), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(&labels, "%s\t%d\t%s\tgitleaks/gitleaks v8.28.0 %s (%s)\n", rel, at, rule, f[3], c.name)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(part, "LABELS.tsv"), []byte(labels.String()), 0o644)
}
