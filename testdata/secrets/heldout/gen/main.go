// Command gen writes the held-out secrets corpus in testdata/secrets/heldout
// from corpus.txt: files/ (each "@@file" block), LABELS.tsv (every true
// positive: file, line, family, source) and NEGATIVES.tsv (every hard
// negative: file, line, kind, source). The example values in corpus.txt were
// copied from public rule sets and detector tests that scand's rule authors
// did not write, so the corpus measures the scanner on data it was not tuned
// to; corpus.txt's header explains its line markers.
//
// Run from the repository root: go run ./testdata/secrets/heldout/gen
// [CORPUS_DIR]; CORPUS_DIR (default testdata/secrets/heldout) holds
// gen/corpus.txt and receives files/, LABELS.tsv and NEGATIVES.tsv, so the
// same generator writes every corpus of this layout (testdata/secrets/
// families/dev and families/heldout too).
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type corpusFile struct {
	path  string
	lines []string
}

type mark struct {
	file   string
	line   int
	class  string // family of a true positive, kind of a hard negative
	source string
}

func main() {
	root := filepath.Join("testdata", "secrets", "heldout")
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	spec, err := os.Open(filepath.Join(root, "gen", "corpus.txt"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "run from the repository root:", err)
		os.Exit(2)
	}
	defer spec.Close()
	var files []*corpusFile
	var positives, negatives []mark
	var cur *corpusFile
	source := ""
	sc := bufio.NewScanner(spec)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "corpus.txt:%d: %s\n", n, fmt.Sprintf(format, args...))
		os.Exit(1)
	}
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case l == "" || strings.HasPrefix(l, "@@#"):
		case strings.HasPrefix(l, "@@file "):
			cur = &corpusFile{path: strings.TrimPrefix(l, "@@file ")}
			files = append(files, cur)
			source = ""
		case strings.HasPrefix(l, "@@source "):
			source = strings.TrimPrefix(l, "@@source ")
		case cur == nil:
			fail("line before the first @@file")
		case strings.HasPrefix(l, "|"):
			cur.lines = append(cur.lines, l[1:])
		case strings.HasPrefix(l, "!"), strings.HasPrefix(l, "~"):
			class, text, ok := strings.Cut(l[1:], " ")
			if !ok || class == "" {
				fail("a marked line needs a family or kind, a space, then the text")
			}
			if source == "" {
				fail("marked line without an @@source")
			}
			cur.lines = append(cur.lines, text)
			m := mark{cur.path, len(cur.lines), class, source}
			if l[0] == '!' {
				positives = append(positives, m)
			} else {
				negatives = append(negatives, m)
			}
		default:
			fail("unknown line %q", l)
		}
	}
	if err := sc.Err(); err != nil {
		fail("%v", err)
	}
	if err := os.RemoveAll(filepath.Join(root, "files")); err != nil {
		fail("%v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.path] {
			fail("duplicate corpus file %s", f.path)
		}
		seen[f.path] = true
		p := filepath.Join(root, "files", filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fail("%v", err)
		}
		if err := os.WriteFile(p, []byte(strings.Join(f.lines, "\n")+"\n"), 0o644); err != nil {
			fail("%v", err)
		}
	}
	write(filepath.Join(root, "LABELS.tsv"), "# file\tline\tfamily\tsource: every true positive of the held-out corpus (written by gen/main.go from gen/corpus.txt; every other line is a negative)", positives)
	write(filepath.Join(root, "NEGATIVES.tsv"), "# file\tline\tkind\tsource: the hard negatives among the other lines (placeholder, documentation, identifier, variable, hash, lookalike)", negatives)
}

func write(path, head string, marks []mark) {
	sort.Slice(marks, func(i, j int) bool {
		if marks[i].file != marks[j].file {
			return marks[i].file < marks[j].file
		}
		return marks[i].line < marks[j].line
	})
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, m := range marks {
		fmt.Fprintf(&b, "%s\t%d\t%s\t%s\n", m.file, m.line, m.class, m.source)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
