// Package secrets is the built-in `secrets` scanner (scan type code):
// credentials in the working tree and in git history (history.go), found
// by a keyword pass (keywords.go) that picks the lines a rule could match
// and the rule table (rules.go, whose comment is the table).
package secrets

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"scand/finding"
	"scand/scan"
	"scand/scan/excerpt"
	"scand/scan/secrets/filekind"
	"scand/scan/secrets/rulebook"
	"scand/scan/secrets/shape"
	"scand/scan/tree"
)

// What the secrets scanner reads, and why:
//   - Files larger than secretsMaxFileSize (2 MiB) are skipped: hand-written
//     configuration and source that hold credentials are far smaller, and
//     multi-megabyte text is data (fixtures, dumps, bundles) that would
//     dominate the scan time. git-hygiene reports large committed files.
//   - Files with a NUL byte in their first 8 KiB are binary and skipped, as
//     are known binary extensions (images, archives, objects, fonts) without
//     being opened, minified bundles (*.min.js, *.min.css) and source maps
//     (*.map): they repeat the real sources on kilobyte-long lines.
//   - tree.SkipDir names are never entered: version-control metadata and
//     third-party dependency trees (node_modules, vendor, site-packages, ...),
//     whose secrets are upstream test fixtures the team cannot rotate.
//     dist/ and build/ ARE scanned: bundlers inline API keys into them and
//     build directories hold generated configuration.
//   - Symbolic links are not followed, so a link cannot lead the scan
//     outside the target.
const (
	secretsMaxFileSize   = 2 << 20
	secretsSnippetWindow = 240 // bytes kept on each side of the secret in a long line's snippet
)

// secretsSkipFile reports whether a file is skipped by name alone: known
// binary extensions, source maps and minified bundles, which repeat the
// real sources on kilobyte-long lines.
func secretsSkipFile(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	if strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, ".min.css") || strings.HasSuffix(base, ".min.mjs") {
		return true
	}
	return tree.BinaryExt(path.Ext(base))
}

// secretsSkipPath applies tree.SkipDir and secretsSkipFile to a
// slash-separated path relative to the target (used for history, where
// there is no directory walk to prune).
func secretsSkipPath(rel string) bool {
	return tree.UnderSkippedDir(rel) || secretsSkipFile(rel)
}

// secretsEngine is the compiled rule set: keyword automaton plus rules.
// It is immutable after construction and shared by all workers.
type secretsEngine struct {
	rules     []secretsRule
	ruleIndex map[string]int
	matcher   *secretsKeywordMatcher
	kwRules   [][]int // keyword index → rules that list it
	kwContext [][]int // keyword index → rules whose fileContext it satisfies
	// fileScoped are rules with a file context but no line keyword: their
	// value has no literal to look for (a Discord bot token is three
	// base64url parts), so once the file mentions the context word the
	// regexp runs over the whole file.
	fileScoped []int
	// byFileName are the rules that read every line of a file of that base
	// name (.pgpass, master.key).
	byFileName map[string][]int
	// nestedRules are the rules with a nested pattern (a vendor's name
	// that may open a block, an import, or name the file).
	nestedRules []int
	// k8sSecretRule is kubernetes-secret's index: its file context tells the
	// generic rules to leave a Secret's data alone.
	k8sSecretRule int
	prefixedRule  int
}

// secretsRuleSet is a bitset over rule indices; iteration in index order
// is priority order.
type secretsRuleSet [5]uint64

func (s *secretsRuleSet) add(i int)      { s[i>>6] |= 1 << (i & 63) }
func (s *secretsRuleSet) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

func newSecretsEngine() *secretsEngine {
	e := &secretsEngine{rules: secretsRuleTable(), ruleIndex: map[string]int{}, byFileName: map[string][]int{}}
	if len(e.rules) > len(secretsRuleSet{})*64 {
		panic("secrets: too many rules for secretsRuleSet")
	}
	var kws []secretsKeyword
	kwIndex := map[string]int{}
	intern := func(k string, cs bool) int {
		key := fmt.Sprint(cs, "\x00", k)
		if !cs {
			key = fmt.Sprint(cs, "\x00", strings.ToLower(k))
		}
		if i, ok := kwIndex[key]; ok {
			return i
		}
		kws = append(kws, secretsKeyword{raw: []byte(k), caseSensitive: cs})
		e.kwRules = append(e.kwRules, nil)
		e.kwContext = append(e.kwContext, nil)
		kwIndex[key] = len(kws) - 1
		return len(kws) - 1
	}
	for i := range e.rules {
		r := &e.rules[i]
		if _, dup := e.ruleIndex[r.id]; dup {
			panic("secrets: duplicate rule id " + r.id)
		}
		e.ruleIndex[r.id] = i
		for _, k := range r.keywords {
			ki := intern(k, false)
			e.kwRules[ki] = append(e.kwRules[ki], i)
		}
		for _, k := range r.csKeywords {
			ki := intern(k, true)
			e.kwRules[ki] = append(e.kwRules[ki], i)
		}
		for _, k := range r.fileContext {
			ki := intern(k, false)
			e.kwContext[ki] = append(e.kwContext[ki], i)
		}
		for _, name := range r.fileNames {
			e.byFileName[name] = append(e.byFileName[name], i)
		}
		if len(r.fileContext) > 0 && len(r.keywords)+len(r.csKeywords) == 0 {
			e.fileScoped = append(e.fileScoped, i)
		}
		if r.nested != "" {
			e.nestedRules = append(e.nestedRules, i)
			r.nestedRe = regexp.MustCompile(r.nested)
			for g, name := range r.nestedRe.SubexpNames() {
				if name == "secret" {
					r.nestedGroups = append(r.nestedGroups, g)
				}
			}
			if len(r.nestedGroups) == 0 {
				r.nestedGroups = []int{1}
			}
		}
		if r.pattern != "" {
			r.re = regexp.MustCompile(r.pattern)
			for g, name := range r.re.SubexpNames() {
				if name == "secret" {
					r.secretGroups = append(r.secretGroups, g)
				}
			}
			if len(r.secretGroups) == 0 && r.re.NumSubexp() >= 1 {
				r.secretGroups = []int{1}
			}
		}
	}
	e.matcher = newSecretsKeywordMatcher(kws)
	e.k8sSecretRule = e.ruleIndex["kubernetes-secret"]
	e.prefixedRule = e.ruleIndex["prefixed-token"]
	return e
}

// secretsScratch is per-worker reusable memory.
type secretsScratch struct {
	buf   []byte
	cands []secretsCand
	lower []byte
	// chain memoizes secretsMentionsChain for the content being scanned:
	// 0 not yet asked, 1 yes, 2 no.
	chain int8
}

type secretsCand struct {
	start, end, line int
	rules            secretsRuleSet
	nested           secretsRuleSet // see secretsMatchCtx.nested
}

// secretsHit is one accepted secret, already redacted: nothing in it holds
// the value.
type secretsHit struct {
	rule     int
	line     int // 1-based, within the scanned content
	snippet  string
	redacted string
	hash     [32]byte // SHA-256 of the value, to recognise it elsewhere
	// full is the whole line with every secret on it redacted (excerpts).
	full string
	// valueLine, when not 0, is the line the value sits on when that is
	// not the hit's line (a private key's body under its header), and
	// valueFull that line with the value redacted.
	valueLine int
	valueFull string
	// allowedBy is another scanner's inline marker on the line (or the
	// nextline pragma above it): the finding is reported as suppressed.
	allowedBy string
}

// lowerLine is the line in ASCII lower case, computed on first use into
// the worker's scratch buffer.
func (c *secretsMatchCtx) lowerLine() []byte {
	if c.lower == nil {
		c.lower = secretsLowerASCII(c.scratch.lower[:0], c.line)
		c.scratch.lower = c.lower
	}
	return c.lower
}

// scanContent runs the rules over data (a file, or the added lines of one
// file in one commit) and calls emit for each secret.
func (e *secretsEngine) scanContent(data []byte, rel string, sc *secretsScratch, emit func(secretsHit)) {
	format := filekind.FormatName(rel, data)
	sc.chain = 0
	cands := sc.cands[:0]
	var contextOK secretsRuleSet
	curEnd, counted, lineNo := -1, 0, 0
	e.matcher.scan(data, func(k, end int) {
		for _, r := range e.kwContext[k] {
			contextOK.add(r)
		}
		rules := e.kwRules[k]
		if len(rules) == 0 {
			return
		}
		if end > curEnd {
			ls := 0
			if end >= 2 {
				ls = bytes.LastIndexByte(data[:end-1], '\n') + 1
			}
			lineNo += bytes.Count(data[counted:ls], []byte{'\n'})
			counted = ls
			le := len(data)
			if i := bytes.IndexByte(data[end-1:], '\n'); i >= 0 {
				le = end - 1 + i
			}
			cands = append(cands, secretsCand{start: ls, end: le, line: lineNo + 1})
			curEnd = le
		}
		c := &cands[len(cands)-1]
		for _, r := range rules {
			c.rules.add(r)
		}
	})
	for _, r := range e.fileScoped {
		if contextOK.has(r) {
			cands = e.addFileScoped(data, r, cands)
		}
	}
	// A file-name rule names the real file (_curlrc) or the file a copy
	// copies (.curlrc.example).
	byName := e.byFileName[path.Base(rel)]
	if byName == nil {
		byName = e.byFileName[path.Base(format)]
	}
	for _, r := range byName {
		cands = e.addFileScoped(data, r, cands)
	}
	cands = e.addNestedBlocks(data, cands)
	cands = e.addPathVendors(data, format, cands)
	cands = e.addPrefixedTokens(data, cands)
	sc.cands = cands
	if len(cands) == 0 {
		return
	}
	fileKinds := secretsKindsOf(format)
	// A Markdown document is documentation: its prose is read as plain
	// text and its code blocks in their fences' languages, and a value
	// anywhere in it is a sample unless it looks machine-made.
	var blocks []filekind.Block
	var blockKinds *secretsKinds // blocks[0]'s
	if filekind.Markdown(format) {
		blocks = filekind.MarkdownBlocks(data)
		fileKinds = secretsKindsOf(format + ".txt")
		fileKinds.docBlock = true
	}
	var accepted []secretsSpan
	// A value a name above it announces (a name/value pair, an XML
	// element, a wrapped literal) is held until its own line has been
	// scanned: a vendor's rule that reports it there reports it alone.
	var pending []secretsHit
	flush := func(before int) {
		n := 0
		for _, h := range pending {
			if h.line < before {
				emit(h)
			} else {
				pending[n] = h
				n++
			}
		}
		pending = pending[:n]
	}
	defer func() { flush(math.MaxInt) }()
	for ci := range cands {
		cand := &cands[ci]
		flush(cand.line)
		line := data[cand.start:cand.end]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		kinds := fileKinds
		for len(blocks) > 0 && blocks[0].End <= cand.start {
			blocks, blockKinds = blocks[1:], nil
		}
		if len(blocks) > 0 && blocks[0].Start <= cand.start {
			if blockKinds == nil {
				// Once per block, not once per line of it.
				k := secretsKindsOf(blocks[0].Format)
				k.docBlock = true
				blockKinds = &k
			}
			kinds = *blockKinds
		}
		mc := secretsMatchCtx{data: data, lineStart: cand.start, lineEnd: cand.start + len(line), line: line,
			secretsKinds: kinds, k8sSecret: contextOK.has(e.k8sSecretRule),
			nested: cand.nested, engine: e, scratch: sc}
		accepted = accepted[:0]
		for w, word := range cand.rules {
			for word != 0 {
				r := w*64 + bits.TrailingZeros64(word)
				word &= word - 1
				rule := &e.rules[r]
				if len(rule.fileContext) > 0 && !contextOK.has(r) || rule.prefilter != nil && !rule.prefilter(line) {
					continue
				}
				var spans []secretsSpan
				if rule.find != nil {
					spans = rule.find(&mc)
				} else {
					spans = e.matchPattern(r, &mc)
				}
				for _, sp := range spans {
					if !secretsOverlaps(accepted, sp) {
						accepted = append(accepted, sp)
					}
				}
			}
		}
		if len(accepted) == 0 {
			continue
		}
		allowedBy := secretsAllowMarker(data, cand.start, line)
		slices.SortFunc(accepted, func(a, b secretsSpan) int { return a.matchStart - b.matchStart })
		redactedLine, at := secretsRedactLine(line, accepted)
		for i, sp := range accepted {
			valueLine, valueFull := secretsValueElsewhere(data, cand.start+len(line), cand.line, sp)
			hit := secretsHit{
				valueLine: valueLine,
				valueFull: valueFull,
				rule:      sp.rule,
				line:      cand.line,
				snippet:   secretsWindow(redactedLine, at[i]),
				redacted:  secretsRedact(sp.value),
				hash:      sha256.Sum256(sp.value),
				full:      redactedLine,
				allowedBy: allowedBy,
			}
			if sp.onValueLine && valueLine > 0 {
				hit.line, hit.full, hit.snippet = valueLine, valueFull, secretsWindow(valueFull, 0)
				hit.valueLine, hit.valueFull = 0, ""
				pending = append(pending, hit)
				continue
			}
			pending = slices.DeleteFunc(pending, func(p secretsHit) bool { return p.line == hit.line && p.hash == hit.hash })
			emit(hit)
		}
	}
}

// secretsValueElsewhere finds the line after a hit's line (ending at
// lineEnd) that holds a value the span does not cover (a private key's
// body under its header) and returns its number and the line with the
// value redacted; 0 when the value is on the hit's line or not found.
func secretsValueElsewhere(data []byte, lineEnd, lineNo int, sp secretsSpan) (int, string) {
	if sp.end > sp.start || len(sp.value) == 0 || lineEnd >= len(data) {
		return 0, ""
	}
	rest := data[lineEnd:min(len(data), lineEnd+8<<10)]
	i := bytes.Index(rest, sp.value)
	if i < 0 {
		return 0, ""
	}
	ls := bytes.LastIndexByte(rest[:i], '\n') + 1
	le := len(rest)
	if j := bytes.IndexByte(rest[i:], '\n'); j >= 0 {
		le = i + j
	}
	full := string(rest[ls:i]) + secretsRedact(sp.value) + string(rest[i+len(sp.value):le])
	return lineNo + bytes.Count(rest[:i], []byte{'\n'}), strings.ToValidUTF8(strings.TrimSuffix(full, "\r"), "\uFFFD")
}

// addFileScoped runs a file-scoped rule's regexp over the whole content
// and marks the lines it matches as candidates for that rule.
func (e *secretsEngine) addFileScoped(data []byte, r int, cands []secretsCand) []secretsCand {
	return secretsMarkLines(data, r, cands, func(mark func(int)) {
		for _, m := range e.rules[r].re.FindAllIndex(data, -1) {
			mark(m[0])
		}
	})
}

// addPrefixedTokens marks the lines that hold a token in a vendor's
// prefixed shape as candidates for prefixed-token.
func (e *secretsEngine) addPrefixedTokens(data []byte, cands []secretsCand) []secretsCand {
	return secretsMarkLines(data, e.prefixedRule, cands, func(mark func(int)) {
		shape.FindPrefixedTokens(data, func(start, _ int) { mark(start) })
	})
}

// secretsMarkLines makes the line holding each offset that each passes to
// mark (in increasing order) a candidate for rule r, keeping cands in line
// order. Lines are found and numbered in one pass and new candidates
// merged once, so that a hit on every line, or thousands on one long line,
// cost one pass over the file and not one per hit.
func secretsMarkLines(data []byte, r int, cands []secretsCand, each func(mark func(at int))) []secretsCand {
	known := len(cands)
	pos, lineNo, lineEnd := 0, 1, -1 // lineNo numbers the line that starts at pos
	each(func(at int) {
		if at <= lineEnd {
			return // on the line marked last
		}
		ls := pos
		if j := bytes.LastIndexByte(data[pos:at], '\n'); j >= 0 {
			ls = pos + j + 1
		}
		lineNo += bytes.Count(data[pos:ls], []byte{'\n'})
		pos = ls
		lineEnd = len(data)
		if j := bytes.IndexByte(data[ls:], '\n'); j >= 0 {
			lineEnd = ls + j
		}
		if i, found := slices.BinarySearchFunc(cands[:known], ls, func(c secretsCand, start int) int { return c.start - start }); found {
			cands[i].rules.add(r)
			return
		}
		c := secretsCand{start: ls, end: lineEnd, line: lineNo}
		c.rules.add(r)
		cands = append(cands, c)
	})
	if len(cands) > known {
		slices.SortFunc(cands, func(a, b secretsCand) int { return a.start - b.start })
	}
	return cands
}

// secretsNestedBlockLines bounds how far a block opened by a vendor's
// name is followed: configuration blocks of one service are short.
const secretsNestedBlockLines = 40

// secretsImportBlockLines bounds how far an import of a vendor's SDK is
// followed (see addNestedBlocks).
const secretsImportBlockLines = 200

var secretsImportLineRe = regexp.MustCompile(rulebook.ImportLinePattern)

// addNestedBlocks marks the lines inside a block that a vendor's name
// opens (a line of a rule with a nested pattern that ends in ":" or "{")
// as candidates for that rule's nested pattern: the lines indented deeper
// than the opener, or up to the brace that closes it, at most
// secretsNestedBlockLines. Openers are rare, so this need not be clever.
func (e *secretsEngine) addNestedBlocks(data []byte, cands []secretsCand) []secretsCand {
	n := len(cands)
	for ci := 0; ci < n; ci++ {
		var openers []int
		for w, word := range cands[ci].rules {
			for word != 0 {
				r := w*64 + bits.TrailingZeros64(word)
				word &= word - 1
				if e.rules[r].nestedRe != nil {
					openers = append(openers, r)
				}
			}
		}
		if len(openers) == 0 {
			continue
		}
		line := bytes.TrimRight(data[cands[ci].start:cands[ci].end], " \t\r")
		if len(line) == 0 {
			continue
		}
		last := line[len(line)-1]
		limit := secretsNestedBlockLines
		switch {
		case secretsOpensValueBlock(line):
			// The value follows on the next, deeper-indented lines.
			last = ':'
		case secretsMayImport(line) && secretsImportLineRe.Match(line):
			// An import of the vendor's SDK names the vendor for the rest
			// of the file: using MessageBird; ... Client.CreateDefault("...").
			// A generic keyword (vault's "token") is no vendor: import
			// "go/token" opens nothing.
			last, limit = 'i', secretsImportBlockLines
			lower := bytes.ToLower(line)
			openers = slices.DeleteFunc(openers, func(r int) bool {
				return !slices.ContainsFunc(e.rules[r].keywords, func(k string) bool { return k != "token" && bytes.Contains(lower, []byte(k)) })
			})
		}
		if last != ':' && last != '{' && last != 'i' {
			continue
		}
		indent := len(line) - len(bytes.TrimLeft(line, " \t"))
		depth := 0
		pos, lineNo := cands[ci].end, cands[ci].line
		for k := 0; k < limit && pos < len(data); k++ {
			start := pos + 1
			end := len(data)
			if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
				end = start + j
			}
			pos, lineNo = end, lineNo+1
			l := data[start:end]
			t := bytes.TrimSpace(l)
			if len(t) == 0 || t[0] == '#' {
				continue
			}
			if last == ':' && len(l)-len(bytes.TrimLeft(l, " \t")) <= indent {
				break
			}
			if last == '{' {
				depth += bytes.Count(l, []byte("{")) - bytes.Count(l, []byte("}"))
				if depth < 0 {
					break
				}
			}
			i, found := slices.BinarySearchFunc(cands, start, func(c secretsCand, s int) int { return c.start - s })
			if !found {
				cands = slices.Insert(cands, i, secretsCand{start: start, end: end, line: lineNo})
				if i <= ci {
					ci++
				}
				n++
			}
			for _, r := range openers {
				cands[i].rules.add(r)
				cands[i].nested.add(r)
			}
		}
	}
	return cands
}

// addPathVendors reads a small configuration file whose path names a
// vendor (~/.kaggle/kaggle.json, configstore/snyk.json, .sentryclirc) as
// a block that vendor's name opens: its keys need only say they hold a
// credential ("key", "api", "token").
func (e *secretsEngine) addPathVendors(data []byte, rel string, cands []secretsCand) []secretsCand {
	lowerRel := strings.ToLower(rel)
	if !filekind.Config(rel) && path.Ext(lowerRel) != ".json" || filekind.PlainText(rel) || bytes.Count(data, []byte{'\n'}) > secretsImportBlockLines {
		return cands
	}
	var rules []int
	for _, r := range e.nestedRules {
		for _, k := range e.rules[r].keywords {
			if strings.Contains(lowerRel, k) {
				rules = append(rules, r)
				break
			}
		}
	}
	if len(rules) == 0 {
		return cands
	}
	for start, lineNo := 0, 1; start < len(data); lineNo++ {
		end := len(data)
		if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
			end = start + j
		}
		i, found := slices.BinarySearchFunc(cands, start, func(c secretsCand, s int) int { return c.start - s })
		if !found {
			cands = slices.Insert(cands, i, secretsCand{start: start, end: end, line: lineNo})
		}
		for _, r := range rules {
			cands[i].rules.add(r)
			cands[i].nested.add(r)
		}
		start = end + 1
	}
	return cands
}

var secretsValueBlockRe = regexp.MustCompile(rulebook.ValueBlockPattern)

// secretsOpensValueBlock runs the regexp only on lines that end the way
// one of its forms must (or name a "name"): most lines do not.
func secretsOpensValueBlock(line []byte) bool {
	if len(line) == 0 || strings.IndexByte("|>-+0123456789", line[len(line)-1]) < 0 && !bytes.Contains(line, []byte("name")) {
		return false
	}
	return secretsValueBlockRe.Match(line)
}

// secretsMayImport holds for every line secretsImportLineRe matches: one
// of its keywords ("us" of using and use) or a closing quote at the end.
func secretsMayImport(line []byte) bool {
	if len(line) > 0 && line[len(line)-1] == '"' {
		return true
	}
	for _, w := range [...]string{"us", "import", "from", "require", "extern"} {
		if bytes.Contains(line, []byte(w)) {
			return true
		}
	}
	return false
}

// matchPattern applies a regexp rule to the line and filters the values.
func (e *secretsEngine) matchPattern(r int, c *secretsMatchCtx) []secretsSpan {
	rule := &e.rules[r]
	var spans []secretsSpan
	matches, groups := rule.re.FindAllSubmatchIndex(c.line, -1), rule.secretGroups
	if len(matches) == 0 && rule.nestedRe != nil && c.nested.has(r) {
		matches, groups = rule.nestedRe.FindAllSubmatchIndex(c.line, -1), rule.nestedGroups
	}
	for _, m := range matches {
		vs, ve := m[0], m[1]
		// The first participating value group wins: alternations such as
		// Twilio's carry one "secret" group per form.
		for _, g := range groups {
			if m[2*g] >= 0 {
				vs, ve = m[2*g], m[2*g+1]
				break
			}
		}
		v := c.line[vs:ve]
		if rule.minEntropy > 0 && shape.Entropy(v) < rule.minEntropy || secretsFollowedByAsset(c.line, ve) {
			continue
		}
		if rule.formatPlaceholder {
			if shape.LooksFormatPlaceholder(v) {
				continue
			}
		} else if shape.LooksPlaceholder(secretsWithoutModeWords(v, rule.modeWords)) {
			continue
		}
		if rule.validate != nil && !rule.validate(v, c) {
			continue
		}
		if rule.nested != "" && secretsUUIDNamedID(c.line[m[0]:vs], v) {
			continue
		}
		if rule.vendorFormat && secretsKeywordSplitsWord(c.line, m[0], rule.keywords) {
			continue
		}
		spans = append(spans, secretsSpan{rule: r, matchStart: m[0], matchEnd: m[1], start: vs, end: ve, value: v})
	}
	return spans
}

// secretsKeywordSplitsWord reports a vendor's name matched across a
// camelCase boundary and into the next word: "sumo" in sumOfExposures,
// "meraki" in CameraKit. Names are matched without regard to case, so
// only the case of the text shows that the name's last letters begin
// another word; MessageBirdKey and SUMO_KEY still name their vendor.
func secretsKeywordSplitsWord(line []byte, at int, keywords []string) bool {
	for _, kw := range keywords {
		end := at + len(kw)
		if end >= len(line) || !bytes.EqualFold(line[at:end], []byte(kw)) {
			continue
		}
		if next := line[end]; next < 'a' || next > 'z' {
			return false
		}
		for i := at + 1; i < end; i++ {
			if 'a' <= line[i-1] && line[i-1] <= 'z' && 'A' <= line[i] && line[i] <= 'Z' {
				return true
			}
		}
		return false
	}
	return false
}

// secretsWithoutModeWords drops the vendor's mode word (test, live) from
// the first 24 bytes of a token whose format has one, so that sk_test_…
// is judged by its random part like sk_live_… is.
func secretsWithoutModeWords(v []byte, modeWords bool) []byte {
	if !modeWords {
		return v
	}
	head := v[:min(len(v), 24)]
	for _, w := range []string{"test", "TEST", "live", "LIVE"} {
		if i := bytes.Index(head, []byte(w)); i >= 0 && (i == 0 || !shape.IsAlnum(head[i-1])) {
			j := i + len(w)
			if j == len(v) || !shape.IsAlnum(v[j]) || w == "TEST" {
				out := append(append([]byte{}, v[:i]...), v[j:]...)
				return out
			}
		}
	}
	return v
}

func secretsOverlaps(accepted []secretsSpan, sp secretsSpan) bool {
	for _, a := range accepted {
		if sp.matchStart < a.matchEnd && a.matchStart < sp.matchEnd {
			return true
		}
	}
	return false
}

// secretsRedactLine replaces every accepted value on the line with its
// redacted form, so a finding's snippet never carries its own secret nor a
// neighbour's. It returns where each span's redacted value starts.
func secretsRedactLine(line []byte, spans []secretsSpan) (string, []int) {
	var b strings.Builder
	at := make([]int, len(spans))
	pos := 0
	for i, sp := range spans {
		if sp.start < pos { // nested in a previous span: already masked
			at[i] = b.Len()
			continue
		}
		b.Write(line[pos:sp.start])
		at[i] = b.Len()
		if sp.end > sp.start {
			b.WriteString(secretsRedact(line[sp.start:sp.end]))
		}
		pos = sp.end
	}
	b.Write(line[pos:])
	return strings.ToValidUTF8(b.String(), "\uFFFD"), at
}

// secretsWindow trims a long line to the part around position at, on rune
// boundaries, so snippets stay small and deterministic.
func secretsWindow(line string, at int) string {
	if len(line) <= 2*secretsSnippetWindow {
		return line
	}
	lo, hi := max(0, at-secretsSnippetWindow), min(len(line), at+secretsSnippetWindow)
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi++
	}
	return line[lo:hi]
}

// secretsRedactMaxMask caps the mask so a 3 KiB PEM body does not become a
// 3 KiB row of stars.
const secretsRedactMaxMask = 32

// secretsRedact keeps a short prefix (at most 4 characters, and at most a
// quarter of the value, so short passwords reveal little) and masks the
// rest with one '*' per character: "AKIA****************". Past
// secretsRedactMaxMask characters the mask is capped and an ellipsis
// marks the cut: "MIIE…********************************".
func secretsRedact(v []byte) string {
	r := []rune(string(v))
	keep := min(4, len(r)/4)
	masked := len(r) - keep
	var b strings.Builder
	b.WriteString(string(r[:keep]))
	if masked > secretsRedactMaxMask {
		b.WriteString("…")
		masked = secretsRedactMaxMask
	}
	b.WriteString(strings.Repeat("*", masked))
	return b.String()
}

// ---- the scanner ----

// secretsScanner is the built-in `secrets` code scanner.
type secretsScanner struct {
	cfg scan.Config
	// engine compiles the rule set on first use: an idle daemon, and a
	// command that never scans, do not carry its ~3 MB of compiled
	// patterns.
	engine  func() *secretsEngine
	workers int
	history bool
	// History bounds; the constants in history.go, except in tests.
	historyMaxBytes   int
	historyMaxCommits int
	historyTimeout    time.Duration
}

// New returns the built-in secrets scanner. It scans the
// working tree of the target and, when the target is the root of a git
// repository and git is installed, the repository's history (see
// history.go for its bounds). SVC_SECRETS_HISTORY=0 turns the
// history scan off.
func New(cfg scan.Config) scan.Scanner {
	h := strings.ToLower(strings.TrimSpace(cfg.Env("SVC_SECRETS_HISTORY")))
	return &secretsScanner{
		cfg:    cfg,
		engine: sync.OnceValue(newSecretsEngine),
		// GOMAXPROCS, not NumCPU: it honours the container's CPU quota.
		workers: runtime.GOMAXPROCS(0),
		history: h != "0" && h != "false" && h != "off" && h != "no",

		historyMaxBytes:   secretsHistoryMaxBytes,
		historyMaxCommits: secretsHistoryMaxCommits,
		historyTimeout:    secretsHistoryTimeout,
	}
}

func (s *secretsScanner) Name() string { return "secrets" }
func (s *secretsScanner) Type() string { return scan.TypeCode }

// Available is always true: the scanner is built in. The history scan
// quietly does without git when git is missing.
func (s *secretsScanner) Available(context.Context) (string, string, bool) {
	return fmt.Sprintf("builtin (%d rules)", len(secretsRuleTable())), "", true
}

// Scan reports secrets in the working tree (in file, line, rule order),
// then those that exist only in git history. A secret present in both is
// reported once, for the working tree, because that is where it must be
// removed.
func (s *secretsScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	var mu sync.Mutex
	var inTree, hist []finding.Finding
	err := s.scan(ctx, t, func(f finding.Finding) error {
		mu.Lock()
		inTree = append(inTree, f)
		mu.Unlock()
		return nil
	}, func(f finding.Finding) error {
		hist = append(hist, f)
		return nil
	})
	var partial *scan.PartialSkip
	if err != nil && !errors.As(err, &partial) {
		return nil, err
	}
	slices.SortFunc(inTree, secretsCompareFindings)
	out := append(inTree, hist...)
	if out == nil {
		out = []finding.Finding{}
	}
	if partial != nil {
		return out, partial
	}
	return out, nil
}

// ScanStream is Scan without holding the findings: each one goes to emit
// as a worker finds it (see scan.StreamScanner).
func (s *secretsScanner) ScanStream(ctx context.Context, t scan.Target, emit func(finding.Finding) error) error {
	return s.scan(ctx, t, emit, emit)
}

// scan runs the tree and history scans. emitTree may be called from
// several workers at once; emitHistory is called after the tree is done.
func (s *secretsScanner) scan(ctx context.Context, t scan.Target, emitTree, emitHistory func(finding.Finding) error) error {
	root := t.Path
	if err := tree.CheckDir(root); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}

	var (
		hist    []secretsHistoryHit
		histErr error
		capped  bool
		wg      sync.WaitGroup
		inTree  *secretsValueSet
	)
	if s.history && secretsIsRepoRoot(root) {
		inTree = &secretsValueSet{seen: map[uint64]struct{}{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			hist, capped, histErr = s.scanHistory(ctx, root)
		}()
	}
	err := s.scanTree(ctx, root, t.Ignored, emitTree, inTree)
	wg.Wait()
	if err != nil {
		return err
	}
	var historyGaps []scan.SkippedPart
	if histErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The working-tree result still stands; a repository git refuses
		// (ownership, corruption) must not hide it, nor may the gap go
		// unsaid: the scan's coverage is partial.
		historyGaps = append(historyGaps, scan.SkippedPart{Part: "git history", Reason: "not scanned: " + strings.ToValidUTF8(histErr.Error()[:min(len(histErr.Error()), 300)], ""),
			Hint: "check the repository with git fsck; set SVC_SECRETS_HISTORY=0 to scan the working tree only"})
	} else if inTree != nil {
		historyGaps = append(historyGaps, s.historyLimits(root, capped)...)
	}
	for _, h := range hist {
		if inTree.has(h.hit.hash) {
			continue
		}
		if err := emitHistory(s.historyFinding(h)); err != nil {
			return err
		}
	}
	if len(historyGaps) > 0 {
		return &scan.PartialSkip{Parts: historyGaps}
	}
	return nil
}

// secretsValueSet remembers which secret values the working tree holds,
// by the first 8 bytes of their SHA-256: 8 bytes per secret instead of
// the findings, and a false match needs a 64-bit collision.
type secretsValueSet struct {
	mu   sync.Mutex
	seen map[uint64]struct{}
}

func (v *secretsValueSet) add(h [32]byte) {
	if v == nil {
		return
	}
	v.mu.Lock()
	v.seen[binary.LittleEndian.Uint64(h[:8])] = struct{}{}
	v.mu.Unlock()
}

func (v *secretsValueSet) has(h [32]byte) bool {
	if v == nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	_, ok := v.seen[binary.LittleEndian.Uint64(h[:8])]
	return ok
}

func (s *secretsScanner) newFinding(rule *secretsRule, rel string, h secretsHit) finding.Finding {
	return finding.Finding{
		Scanner:     s.Name(),
		ScanType:    scan.TypeCode,
		Severity:    rule.severity,
		Title:       rule.title,
		Description: rule.title + " found. " + rule.remediation + rulebook.CommonRemediation,
		FilePath:    rel,
		Line:        h.line,
		RuleID:      rule.id,
		CWE:         rule.cwe,
		Snippet:     h.snippet,
		Metadata:    secretsMetadata(h),
	}
}

func secretsMetadata(h secretsHit) map[string]any {
	md := map[string]any{"redacted": h.redacted}
	if h.allowedBy != "" {
		md[finding.MetaSuppressedBy] = "inline: " + h.allowedBy
	}
	return md
}

type secretsFileJob struct{ abs, rel string }

// scanTree walks the target with one producer and GOMAXPROCS workers,
// which hand every secret to emit as they find it (emit runs on several
// workers at once) and record its value in inTree (nil: not needed). The
// first error emit returns stops the walk.
func (s *secretsScanner) scanTree(ctx context.Context, root string, ignore func(string, bool) bool, emit func(finding.Finding) error, inTree *secretsValueSet) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	jobs := make(chan secretsFileJob, 256)
	var wg sync.WaitGroup
	for w := 0; w < s.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &secretsScratch{}
			var hits []secretsHit
			for job := range jobs {
				if ctx.Err() != nil {
					continue // drain
				}
				data, err := s.readCandidate(job.abs, sc)
				if err != nil {
					s.cfg.Log().Debug("secrets: file not read", "file", job.rel, "error", err.Error())
					continue
				}
				if data == nil {
					continue
				}
				// A file's hits are held until it is read through, so that the
				// excerpts of its findings get its redacted lines from here.
				hits = hits[:0]
				s.engine().scanContent(data, job.rel, sc, func(h secretsHit) { hits = append(hits, h) })
				if len(hits) > 0 && excerpt.Scanned.Wanted() {
					redacted := make(map[int]string, len(hits))
					for i := range hits {
						hits[i].redactInto(redacted)
					}
					excerpt.Scanned.Put(job.rel, data, redacted)
				}
				for i := range hits {
					if ctx.Err() != nil {
						break
					}
					inTree.add(hits[i].hash)
					if err := emit(s.newFinding(&s.engine().rules[hits[i].rule], job.rel, hits[i])); err != nil {
						stop(err)
					}
				}
			}
		}()
	}

	walk := tree.Walk{Ignore: ignore, Unreadable: func(p string, err error) {
		s.cfg.Log().Debug("secrets: path not walked", "path", p, "error", err.Error())
	}}
	var keyStores []finding.Finding // the walk calls back on one goroutine
	walkErr := walk.Files(ctx, root, func(abs, rel string) error {
		if secretsPKCS12File(rel) {
			// Binary, so never read: the name is the finding.
			rule := &s.engine().rules[s.engine().ruleIndex["pkcs12-file"]]
			f := s.newFinding(rule, rel, secretsHit{snippet: path.Base(rel)})
			f.Metadata = map[string]any{"redacted": "(binary key store)"}
			keyStores = append(keyStores, f)
			return nil
		}
		if secretsSkipFile(rel) {
			return nil
		}
		select {
		case jobs <- secretsFileJob{abs: abs, rel: rel}:
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	})
	close(jobs)
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // emit's error, or the caller's deadline
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if walkErr != nil {
		return fmt.Errorf("secrets: walk %s: %w", root, walkErr)
	}
	for _, f := range keyStores {
		if err := emit(f); err != nil {
			return err
		}
	}
	return nil
}

func secretsCompareFindings(a, b finding.Finding) int {
	return cmp.Or(strings.Compare(a.FilePath, b.FilePath), cmp.Compare(a.Line, b.Line),
		strings.Compare(a.RuleID, b.RuleID), strings.Compare(a.Snippet, b.Snippet))
}

// readCandidate reads a file into the worker's buffer, or returns nil data
// when it is too large or binary.
func (s *secretsScanner) readCandidate(abs string, sc *secretsScratch) ([]byte, error) {
	f, st, err := tree.OpenFile(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := st.Size()
	if size == 0 || size > secretsMaxFileSize {
		return nil, nil
	}
	if int64(cap(sc.buf)) < size {
		sc.buf = make([]byte, size)
	}
	buf := sc.buf[:size]
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	buf = buf[:n]
	if tree.LooksBinary(buf) {
		return nil, nil
	}
	return buf, nil
}

var secretsUUIDRe = regexp.MustCompile(rulebook.UUIDPattern)

// secretsUUIDNamedID reports a UUID under a name that says identifier
// (HEROKU_APP_ID, snykOrgId): it names an app or an organisation and opens
// nothing. before is the line from the vendor's name to the value.
func secretsUUIDNamedID(before, v []byte) bool {
	if !secretsUUIDRe.Match(v) {
		return false
	}
	name := bytes.TrimRight(before, " \t\"'`:=([,>-")
	i := len(name)
	for i > 0 && (shape.IsAlnum(name[i-1]) || name[i-1] == '_' || name[i-1] == '-' || name[i-1] == '.') {
		i--
	}
	name = bytes.ToLower(name[i:])
	return bytes.HasSuffix(name, []byte("id")) || bytes.HasSuffix(name, []byte("uuid")) || bytes.HasSuffix(name, []byte("guid"))
}

// secretsAllowMarker is the inline marker of another scanner with which
// a reviewer said the line holds no secret (rulebook.AllowlistMarkers, or
// detect-secrets' nextline pragma on the line above); "" when none. One
// review serves every tool, but as with scand:ignore the finding stays in
// the results, flagged as suppressed, since whoever can commit can add a
// marker.
func secretsAllowMarker(data []byte, lineStart int, line []byte) string {
	lower := bytes.ToLower(line)
	for _, m := range rulebook.AllowlistMarkers {
		if bytes.Contains(lower, []byte(m)) {
			return m
		}
	}
	const nextline = "pragma: allowlist nextline secret"
	if lineStart >= 2 && bytes.Contains(bytes.ToLower(data[bytes.LastIndexByte(data[:lineStart-1], '\n')+1:lineStart-1]), []byte(nextline)) {
		return nextline
	}
	return ""
}
