//go:build ignore

// secrets-score compares scanners' findings with the planted secrets:
// recall (planted lines reported, whatever the rule) and findings off the
// planted lines. Inputs: planted.jsonl from secrets-plant.go, scand's JSON
// lines from secrets-driver.go, gitleaks' JSON report.
//
// Usage: go run ./bench/secrets-score.go -planted P -scand S -gitleaks G -tree TREE
//
//	or -labels testdata/secrets/corpus/LABELS.tsv (or heldout/LABELS.tsv)
//	instead of -planted, to score a labeled corpus (bench/secrets-corpus.sh).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type loc struct {
	file string
	line int
}

// finding is a reported location; a gitleaks finding may span lines (a
// curl command whose credential is on a continuation line), and it counts
// for a planted line anywhere in its span.
type finding struct {
	loc
	firstLine, lastLine int
}

type planted struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
}

func readPlanted(p string) map[loc]string {
	out := map[loc]string{}
	f, err := os.Open(p)
	if err != nil {
		die(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var pl planted
		if err := json.Unmarshal(sc.Bytes(), &pl); err != nil {
			die(err)
		}
		out[loc{pl.File, pl.Line}] = pl.Kind
	}
	return out
}

// readLabels reads a labeled corpus's LABELS.tsv (file, line, family, and
// in the held-out corpus a fourth column naming the example's source) as a
// planted set.
func readLabels(p string) map[loc]string {
	data, err := os.ReadFile(p)
	if err != nil {
		die(err)
	}
	out := map[loc]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		var f, fam string
		var n int
		parts := strings.Split(l, "\t")
		if len(parts) != 3 && len(parts) != 4 {
			die(fmt.Errorf("bad label line %q", l))
		}
		f, fam = parts[0], parts[2]
		if _, err := fmt.Sscan(parts[1], &n); err != nil {
			die(err)
		}
		out[loc{f, n}] = fam
	}
	return out
}

// commandSpan widens a scand finding to the shell command it sits in when
// the command is continued over lines with a trailing backslash: scand
// reports a credential on a continuation line on that line and on the
// command's first line, and either is where a label may sit (gitleaks'
// findings span the command the same way).
func commandSpan(tree string, f finding) finding {
	if tree == "" {
		return f
	}
	data, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f.file)))
	if err != nil {
		return f
	}
	lines := strings.Split(string(data), "\n")
	continued := func(i int) bool {
		return i >= 1 && i <= len(lines) && strings.HasSuffix(strings.TrimRight(lines[i-1], " \t\r"), "\\")
	}
	for continued(f.firstLine - 1) {
		f.firstLine--
	}
	for continued(f.lastLine) {
		f.lastLine++
	}
	return f
}

func readScand(p string) []finding {
	f, err := os.Open(p)
	if err != nil {
		die(err)
	}
	defer f.Close()
	var out []finding
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r struct {
			File string `json:"file"`
			Line int    `json:"line"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			die(err)
		}
		out = append(out, finding{loc{r.File, r.Line}, r.Line, r.Line})
	}
	return out
}

func readGitleaks(p, tree string) []finding {
	data, err := os.ReadFile(p)
	if err != nil {
		die(err)
	}
	var rs []struct {
		File      string
		StartLine int
		EndLine   int
	}
	if err := json.Unmarshal(data, &rs); err != nil {
		die(err)
	}
	var out []finding
	for _, r := range rs {
		f := r.File
		if rel, err := filepath.Rel(tree, f); err == nil && !strings.HasPrefix(rel, "..") {
			f = rel
		}
		out = append(out, finding{loc{filepath.ToSlash(f), r.StartLine}, r.StartLine, max(r.EndLine, r.StartLine)})
	}
	return out
}

func score(name string, plant map[loc]string, found []finding) {
	hit := map[loc]bool{}
	offPlant := map[loc]bool{}
	offFiles := map[string]bool{}
	offFindings := 0
	// Narrow spans first, so that a finding spanning two commands does not
	// take the label of a finding that sits on one of them: the result
	// does not depend on the order of the report.
	sort.SliceStable(found, func(i, j int) bool {
		return found[i].lastLine-found[i].firstLine < found[j].lastLine-found[j].firstLine
	})
	for _, f := range found {
		// A finding counts for its own line when that is planted, else for
		// the first planted line of its span not yet counted; a finding on
		// a span whose planted lines are all counted is not a false
		// positive either.
		onPlant := false
		if _, ok := plant[f.loc]; ok {
			hit[f.loc] = true
			onPlant = true
		} else if _, ok := plant[loc{f.file, 0}]; ok {
			// Line 0 labels a whole file: an example that is the file.
			hit[loc{f.file, 0}] = true
			onPlant = true
		}
		for line := f.firstLine; line <= f.lastLine && !onPlant; line++ {
			if _, ok := plant[loc{f.file, line}]; ok && !hit[loc{f.file, line}] {
				hit[loc{f.file, line}] = true
				onPlant = true
			}
		}
		for line := f.firstLine; line <= f.lastLine && !onPlant; line++ {
			_, onPlant = plant[loc{f.file, line}]
		}
		if !onPlant {
			offPlant[f.loc] = true
			offFiles[f.file] = true
			offFindings++
		}
	}
	missedByKind := map[string]int{}
	for l, k := range plant {
		if !hit[l] {
			missedByKind[k]++
		}
	}
	var missed []string
	for k, n := range missedByKind {
		missed = append(missed, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(missed)
	fmt.Printf("%-9s findings=%-5d recall=%.3f (%d/%d)  off-plant findings=%d (on %d lines, in %d files)  missed: %s\n",
		name, len(found), float64(len(hit))/float64(len(plant)), len(hit), len(plant), offFindings, len(offPlant), len(offFiles), strings.Join(missed, " "))
}

func die(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func main() {
	plantedPath := flag.String("planted", "", "planted.jsonl")
	labelsPath := flag.String("labels", "", "LABELS.tsv of the labeled corpus (instead of -planted)")
	scandPath := flag.String("scand", "", "scand findings (JSON lines)")
	gitleaksPath := flag.String("gitleaks", "", "gitleaks JSON report (optional)")
	tree := flag.String("tree", "", "scanned tree (to relativize gitleaks paths)")
	flag.Parse()
	var plant map[loc]string
	if *labelsPath != "" {
		plant = readLabels(*labelsPath)
	} else {
		plant = readPlanted(*plantedPath)
	}
	scandFound := readScand(*scandPath)
	for i := range scandFound {
		scandFound[i] = commandSpan(*tree, scandFound[i])
	}
	score("scand", plant, scandFound)
	if *gitleaksPath != "" {
		score("gitleaks", plant, readGitleaks(*gitleaksPath, *tree))
	}
}
