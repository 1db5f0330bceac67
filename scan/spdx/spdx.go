// Package spdx maps the license names package metadata uses onto SPDX
// license ids and expressions, and parses those expressions. The license
// lists (ids.go) are the ones the CycloneDX schema accepts.
package spdx

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// SPDX license normalization: package metadata says "Apache 2.0", "GPLv3+",
// "MIT License", "(MIT OR Apache-2.0)" or "MIT/Apache-2.0"; SBOMs and the
// license policy need SPDX ids and expressions. Mapping is deliberately
// conservative: a name that does not pin down one license (plain "BSD",
// "GPL" without a version, "Apache Software License" without one) is kept
// as written and reported as not an SPDX id, rather than guessed.

type licenseTables struct {
	ids        map[string]string // lowercase -> canonical license id
	exceptions map[string]string // lowercase -> canonical exception id
	aliases    map[string]string // folded free text -> SPDX expression
}

// licenseDeprecated maps deprecated SPDX ids to their replacements: the
// bare GNU ids meant "only" (the SPDX list says so), and the
// "-with-exception" ids became WITH expressions.
var licenseDeprecated = map[string]string{
	"gpl-1.0": "GPL-1.0-only", "gpl-1.0+": "GPL-1.0-or-later",
	"gpl-2.0": "GPL-2.0-only", "gpl-2.0+": "GPL-2.0-or-later",
	"gpl-3.0": "GPL-3.0-only", "gpl-3.0+": "GPL-3.0-or-later",
	"lgpl-2.0": "LGPL-2.0-only", "lgpl-2.0+": "LGPL-2.0-or-later",
	"lgpl-2.1": "LGPL-2.1-only", "lgpl-2.1+": "LGPL-2.1-or-later",
	"lgpl-3.0": "LGPL-3.0-only", "lgpl-3.0+": "LGPL-3.0-or-later",
	"agpl-1.0": "AGPL-1.0-only", "agpl-3.0": "AGPL-3.0-only",
	"gpl-2.0-with-classpath-exception": "GPL-2.0-only WITH Classpath-exception-2.0",
	"gpl-2.0-with-gcc-exception":       "GPL-2.0-only WITH GCC-exception-2.0",
	"gpl-3.0-with-gcc-exception":       "GPL-3.0-only WITH GCC-exception-3.1",
	"gpl-2.0-with-autoconf-exception":  "GPL-2.0-only WITH Autoconf-exception-2.0",
	"gpl-3.0-with-autoconf-exception":  "GPL-3.0-only WITH Autoconf-exception-3.0",
	"gpl-2.0-with-bison-exception":     "GPL-2.0-only WITH Bison-exception-2.2",
	"gpl-2.0-with-font-exception":      "GPL-2.0-only WITH Font-exception-2.0",
}

// licenseAliasSource lists free-text names seen in package metadata with
// the one SPDX expression each unambiguously means. Keys are folded with
// licenseFold, so "Apache License, Version 2.0", "Apache-2" and "ASL 2.0"
// all meet one entry. GNU names are handled by licenseGNUName instead.
var licenseAliasSource = [][2]string{
	{"MIT License", "MIT"}, {"Expat", "MIT"}, {"Expat License", "MIT"},
	{"MIT No Attribution", "MIT-0"},
	{"Apache 2.0", "Apache-2.0"}, {"ASL 2.0", "Apache-2.0"}, {"ASF 2.0", "Apache-2.0"},
	{"Apache 1.1", "Apache-1.1"}, {"Apache 1.0", "Apache-1.0"},
	{"BSD 3-Clause", "BSD-3-Clause"}, {"3-Clause BSD", "BSD-3-Clause"}, {"BSD-3", "BSD-3-Clause"},
	{"New BSD", "BSD-3-Clause"}, {"BSD New", "BSD-3-Clause"}, {"Modified BSD", "BSD-3-Clause"},
	{"Revised BSD", "BSD-3-Clause"},
	{"BSD 2-Clause", "BSD-2-Clause"}, {"2-Clause BSD", "BSD-2-Clause"}, {"BSD-2", "BSD-2-Clause"},
	{"Simplified BSD", "BSD-2-Clause"}, {"FreeBSD", "BSD-2-Clause"},
	{"BSD Zero Clause", "0BSD"}, {"Zero-Clause BSD", "0BSD"},
	{"ISC License", "ISC"}, {"ISCL", "ISC"},
	{"Mozilla Public License 2.0", "MPL-2.0"}, {"MPL 2.0", "MPL-2.0"},
	{"Mozilla Public License 1.1", "MPL-1.1"}, {"MPL 1.1", "MPL-1.1"},
	{"Eclipse Public License 1.0", "EPL-1.0"}, {"EPL 1.0", "EPL-1.0"},
	{"Eclipse Public License 2.0", "EPL-2.0"}, {"EPL 2.0", "EPL-2.0"},
	{"European Union Public Licence 1.2", "EUPL-1.2"}, {"EUPL 1.2", "EUPL-1.2"},
	{"European Union Public Licence 1.1", "EUPL-1.1"}, {"EUPL 1.1", "EUPL-1.1"},
	{"Common Development and Distribution License 1.0", "CDDL-1.0"}, {"CDDL 1.0", "CDDL-1.0"},
	{"Common Development and Distribution License 1.1", "CDDL-1.1"}, {"CDDL 1.1", "CDDL-1.1"},
	{"The Unlicense", "Unlicense"},
	{"CC0", "CC0-1.0"}, {"CC0 1.0 Universal", "CC0-1.0"}, {"CC0 1.0", "CC0-1.0"},
	{"Boost Software License 1.0", "BSL-1.0"}, {"Boost", "BSL-1.0"},
	{"zlib/libpng", "Zlib"},
	{"Python Software Foundation License", "PSF-2.0"}, {"PSF", "PSF-2.0"}, {"PSFL", "PSF-2.0"},
	{"Artistic License 2.0", "Artistic-2.0"},
	{"Do What The F*ck You Want To Public License", "WTFPL"},
	{"Server Side Public License", "SSPL-1.0"}, {"SSPL", "SSPL-1.0"}, {"SSPL v1", "SSPL-1.0"},
	{"Business Source License 1.1", "BUSL-1.1"},
	{"Elastic License 2.0", "Elastic-2.0"}, {"ELv2", "Elastic-2.0"},
	{"Blue Oak Model License 1.0.0", "BlueOak-1.0.0"},
}

var licenseTablesOnce = sync.OnceValue(func() *licenseTables {
	t := &licenseTables{ids: map[string]string{}, exceptions: map[string]string{}, aliases: map[string]string{}}
	for _, id := range strings.Fields(licenseSPDXLicenseIDs) {
		t.ids[strings.ToLower(id)] = id
	}
	for _, id := range strings.Fields(licenseSPDXExceptionIDs) {
		t.exceptions[strings.ToLower(id)] = id
	}
	for _, a := range licenseAliasSource {
		t.aliases[licenseFold(a[0])] = a[1]
	}
	return t
})

var (
	licenseLetterDigit = regexp.MustCompile(`([a-z])([0-9])`)
	licenseVTag        = regexp.MustCompile(`\bv([0-9])`)
	licenseBareInt     = regexp.MustCompile(`^[0-9]+$`)
	licenseParenthesis = regexp.MustCompile(`\s*\([^()]*\)\s*$`)
	licenseOrLater     = regexp.MustCompile(`\b(or|and) (any )?later( version)?\b|\bor-later\b|\bplus\b`)
)

// licenseStopwords carry no identity in a license name.
var licenseStopwords = map[string]bool{
	"the": true, "license": true, "licence": true, "licensed": true, "licenses": true,
	"version": true, "v": true, "software": true, "under": true, "terms": true, "of": true,
}

// licenseVersionedAcronyms are written with a "v" before the version.
var licenseVersionedAcronyms = map[string]bool{"gpl": true, "lgpl": true, "agpl": true, "mpl": true, "epl": true, "sspl": true, "el": true}

// licenseFold reduces a license name to comparable words: lowercase,
// punctuation dropped, "v3"/"3" written "3.0", "or later" written "+",
// filler words removed.
func licenseFold(s string) string {
	s = strings.ToLower(s)
	s = licenseOrLater.ReplaceAllString(s, " + ")
	s = strings.ReplaceAll(s, "+", " + ")
	s = licenseVTag.ReplaceAllString(s, "$1")
	s = licenseLetterDigit.ReplaceAllString(s, "$1 $2")
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '+' {
			return r
		}
		return ' '
	}, s)
	var words []string
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, ".")
		if w == "" || licenseStopwords[w] {
			continue
		}
		if base, ok := strings.CutSuffix(w, "v"); ok && licenseVersionedAcronyms[base] {
			w = base // "gplv 3" (from "GPLv3") reads "gpl 3"
		}
		if licenseBareInt.MatchString(w) {
			w += ".0"
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// licenseGNUName maps free-text GNU license names ("GPLv2", "GNU General
// Public License v3 or later (GPLv3+)", "LGPL-2.1+", "GNU Affero GPL 3")
// to SPDX ids. A name without a version maps to nothing: which GPL it is
// matters for compatibility and the text does not say.
func licenseGNUName(s string) string {
	f := " " + licenseFold(licenseParenthesis.ReplaceAllString(s, "")) + " "
	for _, other := range []string{" mit ", " bsd ", " apache ", " mozilla ", " mpl ", " or ", " and ", " with ", " exception ", " classpath ", " epl ", " cddl "} {
		if strings.Contains(f, other) {
			return ""
		}
	}
	var family string
	switch {
	case strings.Contains(f, " affero ") || strings.Contains(f, " agpl "):
		family = "AGPL"
	case strings.Contains(f, " lesser ") || strings.Contains(f, " library ") || strings.Contains(f, " lgpl "):
		family = "LGPL"
	case strings.Contains(f, " general public ") || strings.Contains(f, " gpl "):
		family = "GPL"
	default:
		return ""
	}
	version := ""
	for _, w := range strings.Fields(f) {
		if w == "1.0" || w == "2.0" || w == "2.1" || w == "3.0" {
			version = w
			break
		}
	}
	if version == "" {
		return ""
	}
	suffix := "-only"
	if strings.Contains(f, " + ") {
		suffix = "-or-later"
	}
	id := family + "-" + version + suffix
	if _, ok := licenseTablesOnce().ids[strings.ToLower(id)]; !ok {
		return ""
	}
	return id
}

// Expr is a parsed SPDX license expression.
type Expr struct {
	Op          string // "AND", "OR"; "" for a leaf
	Left, Right *Expr
	ID          string // leaf: canonical id when known, else as written
	Exception   string // leaf: WITH exception, canonical when known
	Known       bool   // leaf: id (and exception) are on the SPDX lists
}

// ParseExpr parses an SPDX expression; operators are accepted in
// any case, as package metadata writes "mit or apache-2.0" too. ok is false
// when s is not expression syntax (free text such as "Apache License,
// Version 2.0").
func ParseExpr(s string) (*Expr, bool) {
	var toks []string
	for _, f := range strings.Fields(strings.NewReplacer("(", " ( ", ")", " ) ").Replace(s)) {
		toks = append(toks, f)
	}
	if len(toks) == 0 {
		return nil, false
	}
	p := &licenseExprParser{toks: toks}
	e, ok := p.or()
	if !ok || p.i != len(toks) {
		return nil, false
	}
	return e, true
}

type licenseExprParser struct {
	toks []string
	i    int
}

func (p *licenseExprParser) peekOp(op string) bool {
	return p.i < len(p.toks) && strings.EqualFold(p.toks[p.i], op)
}

// or and and parse left-associative chains; AND binds tighter than OR.
func (p *licenseExprParser) or() (*Expr, bool)  { return p.chain("OR", p.and) }
func (p *licenseExprParser) and() (*Expr, bool) { return p.chain("AND", p.atom) }

func (p *licenseExprParser) chain(op string, operand func() (*Expr, bool)) (*Expr, bool) {
	l, ok := operand()
	for ok && p.peekOp(op) {
		p.i++
		var r *Expr
		if r, ok = operand(); ok {
			l = &Expr{Op: op, Left: l, Right: r}
		}
	}
	return l, ok
}

var licenseIDToken = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.\-]*\+?$|^(DocumentRef-[A-Za-z0-9.\-]+:)?LicenseRef-[A-Za-z0-9.\-]+$`)

func (p *licenseExprParser) atom() (*Expr, bool) {
	if p.i >= len(p.toks) {
		return nil, false
	}
	t := p.toks[p.i]
	if t == "(" {
		p.i++
		e, ok := p.or()
		if !ok || p.i >= len(p.toks) || p.toks[p.i] != ")" {
			return nil, false
		}
		p.i++
		return e, true
	}
	if t == ")" || p.peekOp("AND") || p.peekOp("OR") || p.peekOp("WITH") || !licenseIDToken.MatchString(t) {
		return nil, false
	}
	p.i++
	leaf := licenseLeaf(t)
	if p.peekOp("WITH") {
		p.i++
		if p.i >= len(p.toks) || !licenseIDToken.MatchString(p.toks[p.i]) {
			return nil, false
		}
		exc := p.toks[p.i]
		p.i++
		if canon, ok := licenseTablesOnce().exceptions[strings.ToLower(exc)]; ok {
			leaf.Exception = canon
		} else {
			leaf.Exception, leaf.Known = exc, false
		}
	}
	return leaf, true
}

// licenseLeaf canonicalizes one id token: case, deprecated ids, a trailing
// "+" on GNU ids, and single-token aliases such as "GPLv3" or "Apache2".
func licenseLeaf(tok string) *Expr {
	t := licenseTablesOnce()
	low := strings.ToLower(tok)
	if rep, ok := licenseDeprecated[low]; ok {
		if e, ok := ParseExpr(rep); ok {
			return e
		}
	}
	if id, ok := t.ids[low]; ok {
		return &Expr{ID: id, Known: true}
	}
	if base, ok := strings.CutSuffix(low, "+"); ok {
		if rep, ok := licenseDeprecated[strings.TrimSuffix(base, "-only")+"+"]; ok {
			return &Expr{ID: rep, Known: true}
		}
		if id, ok := t.ids[base]; ok {
			return &Expr{ID: id + "+", Known: true}
		}
	}
	if a, ok := t.aliases[licenseFold(tok)]; ok {
		return &Expr{ID: a, Known: true}
	}
	if g := licenseGNUName(tok); g != "" {
		return &Expr{ID: g, Known: true}
	}
	return &Expr{ID: tok}
}

// allKnown reports whether every leaf is an SPDX-listed id.
func (e *Expr) allKnown() bool {
	if e == nil {
		return false
	}
	if e.Op == "" {
		return e.Known
	}
	return e.Left.allKnown() && e.Right.allKnown()
}

func (e *Expr) String() string { return e.render("") }

func (e *Expr) render(parent string) string {
	if e.Op == "" {
		s := e.ID
		if e.Exception != "" {
			s += " WITH " + e.Exception
		}
		if parent != "" && strings.Contains(e.ID, " ") {
			// an alias can expand to a compound expression
			s = "(" + s + ")"
		}
		return s
	}
	s := e.Left.render(e.Op) + " " + e.Op + " " + e.Right.render(e.Op)
	if parent != "" && parent != e.Op {
		s = "(" + s + ")"
	}
	return s
}

// Normalize turns a license as written in package metadata into an
// SPDX id or expression when it unambiguously names one: "Apache 2.0" and
// "Apache License, Version 2.0" become Apache-2.0, "GPLv3" GPL-3.0-only,
// "GPLv3+" or "GPL-3.0 or later" GPL-3.0-or-later, "MIT License" MIT,
// "mit/apache-2.0" MIT OR Apache-2.0, deprecated ids their replacements.
// Anything else, "BSD" included (2- or 3-clause?), is returned as written
// (trimmed, spaces collapsed); IsSPDX then reports it as not SPDX.
func Normalize(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	t := licenseTablesOnce()
	if id, ok := t.ids[strings.ToLower(s)]; ok {
		if rep, ok := licenseDeprecated[strings.ToLower(s)]; ok {
			return rep
		}
		return id
	}
	if e, ok := ParseExpr(s); ok && e.allKnown() {
		return e.String()
	}
	// Cargo's old "MIT/Apache-2.0" meant OR.
	if strings.Contains(s, "/") && !strings.Contains(s, " ") {
		if e, ok := ParseExpr(strings.ReplaceAll(s, "/", " OR ")); ok && e.allKnown() {
			return e.String()
		}
	}
	for _, cand := range []string{s, licenseParenthesis.ReplaceAllString(s, "")} {
		if a, ok := t.aliases[licenseFold(cand)]; ok {
			return a
		}
	}
	if g := licenseGNUName(s); g != "" {
		return g
	}
	return s
}

// IsSPDX reports whether s is an SPDX expression over listed ids
// only (LicenseRef- references and free text are not).
func IsSPDX(s string) bool {
	e, ok := ParseExpr(s)
	return ok && e.allKnown()
}

// IsSingleID reports whether s is exactly one listed SPDX license
// id, with no operator, "+" or exception: what CycloneDX accepts as
// license.id.
func IsSingleID(s string) bool {
	_, ok := licenseTablesOnce().ids[strings.ToLower(s)]
	return ok && !strings.ContainsAny(s, " ()+")
}

// ---- license text identification ----

// IdentifyText names the license a LICENSE/COPYING file holds, by
// wording that each license's text has and the others lack. Titles are
// looked for near the top only, because GPL texts mention the Lesser GPL and
// Apache NOTICE files quote other licenses further down. A GNU license file
// cannot say "or later" (that is in the source headers), so GNU texts map to
// the -only id. Returns "" when nothing matches.
func IdentifyText(text string) string {
	norm := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	head := norm
	if len(head) > 1200 {
		head = head[:1200]
	}
	has := func(s, sub string) bool { return strings.Contains(s, sub) }
	// The first title in the text names it: the GPL-2.0 preamble mentions
	// the Lesser GPL a few hundred characters in, the LGPL-3.0 text the GPL.
	titles := []struct{ title, id string }{
		{"gnu affero general public license", "AGPL"},
		{"gnu lesser general public license", "LGPL"},
		{"gnu library general public license", "LGPL-2.0"},
		{"gnu general public license", "GPL"},
		{"server side public license", "SSPL-1.0"},
		{"mozilla public license", "MPL"},
		{"eclipse public license", "EPL"},
	}
	first, firstAt := "", len(head)
	for _, t := range titles {
		if i := strings.Index(head, t.title); i >= 0 && i < firstAt {
			first, firstAt = t.id, i+len(t.title)
		}
	}
	if first != "" {
		// the version follows the title: "Version 2, June 1991",
		// "Version 2.0", "- v 2.0"
		after := head[firstAt:min(len(head), firstAt+40)]
		ver := ""
		for _, v := range []string{"2.1", "1.0", "1.1", "2.0", "3", "2", "1"} {
			if has(after, "version "+v) || has(after, "v "+v) || has(after, "v"+v) {
				ver = v
				break
			}
		}
		switch first {
		case "SSPL-1.0":
			return first
		case "LGPL-2.0":
			return "LGPL-2.0-only"
		case "AGPL", "GPL", "LGPL":
			switch ver {
			case "3":
				return first + "-3.0-only"
			case "2":
				if first == "LGPL" {
					return "LGPL-2.0-only"
				}
				return first + "-2.0-only"
			case "2.1":
				if first == "LGPL" {
					return "LGPL-2.1-only"
				}
			case "1":
				if first == "GPL" || first == "AGPL" {
					return first + "-1.0-only"
				}
			}
			return ""
		case "MPL", "EPL":
			switch ver {
			case "2", "2.0":
				return first + "-2.0"
			case "1.1":
				if first == "MPL" {
					return "MPL-1.1"
				}
			case "1", "1.0":
				return first + "-1.0"
			}
			return ""
		}
	}
	// Permissive texts are often combined in one file (yaml.v3: MIT for
	// the libyaml port, Apache-2.0 for the rest), so every match counts
	// and the result is their conjunction.
	var found []string
	if has(head, "apache license") && has(head, "version 2.0, january 2004") ||
		has(norm, "licensed under the apache license, version 2.0") {
		found = append(found, "Apache-2.0")
	}
	if has(norm, "this is free and unencumbered software released into the public domain") {
		found = append(found, "Unlicense")
	}
	if has(norm, "permission is hereby granted, free of charge, to any person obtaining a copy") {
		found = append(found, "MIT")
	}
	if has(norm, "permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted") ||
		has(norm, "permission to use, copy, modify, and distribute this software for any purpose with or without fee is hereby granted") {
		if has(norm, "provided that the above copyright notice and this permission notice appear in all copies") {
			found = append(found, "ISC")
		} else {
			found = append(found, "0BSD")
		}
	}
	if has(norm, "redistribution and use in source and binary forms, with or without modification, are permitted provided that") {
		switch {
		case has(norm, "advertising materials"):
			found = append(found, "BSD-4-Clause")
		case has(norm, "neither the name") || has(norm, "may be used to endorse or promote products"):
			found = append(found, "BSD-3-Clause")
		default:
			found = append(found, "BSD-2-Clause")
		}
	}
	sort.Strings(found)
	return strings.Join(found, " AND ")
}
