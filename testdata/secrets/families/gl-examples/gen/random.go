// The gl-random part: the samples gitleaks' rule definitions draw at
// random (secrets.NewSecret), drawn here from the same regular expressions
// with a seeded generator and written the way gitleaks' own tests write
// them (utils.GenerateSampleSecrets: a key named by the sample's
// identifier).
//
//	go run ./testdata/secrets/families/gl-examples/gen extract-random RULESDIR > testdata/secrets/families/gl-random/gen/samples.jsonl
//	go run ./testdata/secrets/families/gl-examples/gen write-random testdata/secrets/families/gl-random
//
// extract-random reads every GenerateSampleSecret(s)(identifier, value)
// whose value is string literals, the utils pattern helpers and
// secrets.NewSecret joined by +; write-random draws two values of each
// (seeds 1 and 2) and writes each in one of gitleaks' sample-generator
// contexts, in turn. Samples whose value is built another way
// (fmt.Sprintf, a loop) are left out.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strconv"
	"strings"
)

// part is a literal (Lit) or a pattern to draw from (Re); a draw whose
// Shannon entropy is under MinEntropy is drawn again, as betterleaks'
// NewSecretWithEntropy does.
type part struct {
	Lit, Re    string
	MinEntropy float64 `json:",omitempty"`
}

type randomSample struct {
	File, Func, RuleID, Ident string
	Parts                     []part
	Source                    string `json:",omitempty"`
}

// sampleKey leaves MinEntropy out: a fork that only adds an entropy floor
// to a sample draws from the same pattern.
func sampleKey(s randomSample) string {
	var k strings.Builder
	k.WriteString(s.RuleID)
	for _, p := range s.Parts {
		k.WriteString("\x00" + p.Lit + "\x00" + p.Re)
	}
	return k.String()
}

// helpers are gitleaks' utils pattern helpers (cmd/generate/config/utils/patterns.go).
var helpers = map[string]string{
	"Numeric": `[0-9]{%s}`, "Hex": `[a-f0-9]{%s}`, "AlphaNumeric": `[a-z0-9]{%s}`,
	"AlphaNumericExtendedShort": `[a-z0-9_-]{%s}`, "AlphaNumericExtended": `[a-z0-9=_\-]{%s}`,
	"AlphaNumericExtendedLong": `[a-z0-9\/=_\+\-]{%s}`,
}

// pattern folds a regular expression given as a literal, a helper call or
// both joined by +.
func pattern(e ast.Expr) (string, bool) {
	if s, ok := literal(e, nil); ok {
		return s, true
	}
	switch v := e.(type) {
	case *ast.CallExpr:
		name := callName(v)
		if name == "Hex8_4_4_4_12" {
			return `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, true
		}
		if f, ok := helpers[name]; ok && len(v.Args) == 1 {
			if n, ok := literal(v.Args[0], nil); ok {
				return fmt.Sprintf(f, n), true
			}
		}
	case *ast.BinaryExpr:
		if v.Op == token.ADD {
			a, ok1 := pattern(v.X)
			b, ok2 := pattern(v.Y)
			return a + b, ok1 && ok2
		}
	case *ast.ParenExpr:
		return pattern(v.X)
	}
	return "", false
}

// randomValue folds a sample's value: literals and NewSecret(pattern) joined by +.
func randomValue(e ast.Expr) ([]part, bool) {
	if s, ok := literal(e, nil); ok {
		return []part{{Lit: s}}, true
	}
	switch v := e.(type) {
	case *ast.CallExpr:
		switch name := callName(v); {
		case name == "NewSecret" && len(v.Args) == 1:
			if re, ok := pattern(v.Args[0]); ok {
				return []part{{Re: re}}, true
			}
		case name == "NewSecretWithEntropy" && len(v.Args) == 2:
			re, ok1 := pattern(v.Args[0])
			e, ok2 := v.Args[1].(*ast.BasicLit)
			if ok1 && ok2 {
				min, err := strconv.ParseFloat(e.Value, 64)
				return []part{{Re: re, MinEntropy: min}}, err == nil
			}
		}
	case *ast.BinaryExpr:
		if v.Op == token.ADD {
			a, ok1 := randomValue(v.X)
			b, ok2 := randomValue(v.Y)
			return append(a, b...), ok1 && ok2
		}
	case *ast.ParenExpr:
		return randomValue(v.X)
	}
	return nil, false
}

func extractRandom(dir string) error {
	enc := json.NewEncoder(os.Stdout)
	source := rulesSource(dir)
	return eachRuleFunc(dir, func(base string, fd *ast.FuncDecl) error {
		ruleID := ""
		var found []randomSample
		ast.Inspect(fd.Body, func(nd ast.Node) bool {
			switch v := nd.(type) {
			case *ast.KeyValueExpr:
				if id, ok := v.Key.(*ast.Ident); ok && id.Name == "RuleID" && ruleID == "" {
					ruleID, _ = literal(v.Value, nil)
				}
			case *ast.CallExpr:
				if name := callName(v); (name == "GenerateSampleSecrets" || name == "GenerateSampleSecret") && len(v.Args) == 2 {
					ident, ok1 := literal(v.Args[0], nil)
					parts, ok2 := randomValue(v.Args[1])
					random := false
					for _, p := range parts {
						random = random || p.Re != ""
					}
					if ok1 && ok2 && random {
						found = append(found, randomSample{File: base, Func: fd.Name.Name, Ident: ident, Parts: parts})
					}
				}
			}
			return true
		})
		for _, s := range found {
			s.RuleID, s.Source = ruleID, source
			if except[sampleKey(s)] {
				continue
			}
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return nil
	})
}

// draw returns a string the expression matches, choosing at random.
func draw(r *rand.Rand, re *syntax.Regexp, out *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			out.WriteRune(c)
		}
	case syntax.OpCharClass:
		total := 0
		for i := 0; i < len(re.Rune); i += 2 {
			total += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
		k := r.Intn(total)
		for i := 0; i < len(re.Rune); i += 2 {
			n := int(re.Rune[i+1]-re.Rune[i]) + 1
			if k < n {
				out.WriteRune(re.Rune[i] + rune(k))
				return
			}
			k -= n
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		out.WriteByte(alnum[r.Intn(len(alnum))])
	case syntax.OpCapture:
		draw(r, re.Sub[0], out)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			draw(r, s, out)
		}
	case syntax.OpAlternate:
		draw(r, re.Sub[r.Intn(len(re.Sub))], out)
	case syntax.OpQuest:
		if r.Intn(2) == 0 {
			draw(r, re.Sub[0], out)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		lo, hi := 0, 3
		if re.Op == syntax.OpPlus {
			lo = 1
		}
		if re.Op == syntax.OpRepeat {
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		for i, n := 0, lo+r.Intn(hi-lo+1); i < n; i++ {
			draw(r, re.Sub[0], out)
		}
	}
}

// randomContexts are six of gitleaks' sample-generator contexts
// (utils.GenerateSampleSecrets), taken in turn; families/gl-contexts holds
// all 26.
var randomContexts = []struct{ template, ext string }{
	{`{i}Token="{s}"`, "ini"},
	{"{\n    \"{i}_token\": \"{s}\"\n}", "json"},
	{`{i}_token: {s}`, "yaml"},
	{`{i}Token = "{s}"`, "py"},
	{`{i}Token := "{s}"`, "go"},
	{`{I}_TOKEN = "{s}"`, "mk"},
}

func writeRandom(partDir string) error {
	in, err := os.Open(filepath.Join(partDir, "gen", "samples.jsonl"))
	if err != nil {
		return err
	}
	defer in.Close()
	files := filepath.Join(partDir, "files")
	if err := os.RemoveAll(files); err != nil {
		return err
	}
	var labels strings.Builder
	labels.WriteString("# file\tline\tfamily\tsource: a value drawn from a rule's secrets.NewSecret pattern (see gen/random.go), in one of its sample generator's contexts\n")
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for seed := int64(1); seed <= 2; seed++ {
		if _, err := in.Seek(0, 0); err != nil {
			return err
		}
		sc = bufio.NewScanner(in)
		r := rand.New(rand.NewSource(seed))
		for sc.Scan() {
			var s randomSample
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				return err
			}
			var v strings.Builder
			for _, p := range s.Parts {
				if p.Re == "" {
					v.WriteString(p.Lit)
					continue
				}
				re, err := syntax.Parse(p.Re, syntax.Perl)
				if err != nil {
					return fmt.Errorf("%s %s: %v", s.File, p.Re, err)
				}
				var d strings.Builder
				draw(r, re.Simplify(), &d)
				for try := 0; try < 100 && entropy(d.String()) < p.MinEntropy; try++ {
					d.Reset()
					draw(r, re.Simplify(), &d)
				}
				v.WriteString(d.String())
			}
			c := randomContexts[n%len(randomContexts)]
			n++
			ident := unsafeName.ReplaceAllString(s.Ident, "")
			body := strings.NewReplacer("{i}", ident, "{I}", strings.ToUpper(ident), "{s}", v.String()).Replace(c.template)
			rel := fmt.Sprintf("%04d/%s.%s", n, s.RuleID, c.ext)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(files, rel)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(files, rel), []byte(body+"\n"), 0o644); err != nil {
				return err
			}
			line := 1
			if c.ext == "json" {
				line = 2
			}
			fmt.Fprintf(&labels, "%s\t%d\t%s\t%s %s (seed %d)\n", rel, line, s.RuleID, sourceOf(s.Source, s.File), s.Func, seed)
		}
		if err := sc.Err(); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(partDir, "LABELS.tsv"), []byte(labels.String()), 0o644)
}

// entropy is the Shannon entropy of s in bits per character.
func entropy(s string) float64 {
	counts := map[rune]float64{}
	n := 0.0
	for _, c := range s {
		counts[c]++
		n++
	}
	h := 0.0
	for _, c := range counts {
		h -= c / n * math.Log2(c/n)
	}
	return h
}
