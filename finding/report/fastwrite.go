package report

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"scand/finding"
)

// Exports write every finding of a scan, so the per-finding part of SARIF
// and of the HTML report is written by hand here instead of through
// encoding/json's and html/template's reflection. Tests hold both to the
// bytes the reflective encoders give (sarifResult through
// json.MarshalIndent, the report's "finding" template), which stay the
// specification.

// indentJSON writes JSON laid out as json.MarshalIndent(v, prefix, "  ").
type indentJSON struct {
	b      []byte
	prefix string
	depth  int
	// empty[i] is whether the container open at depth i has no member yet.
	empty []bool
}

func (w *indentJSON) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.prefix...)
	for i := 0; i < w.depth; i++ {
		w.b = append(w.b, "  "...)
	}
}

// member starts a value inside the current container (after its key, if
// key is not empty).
func (w *indentJSON) member(key string) {
	if n := len(w.empty); n > 0 {
		if !w.empty[n-1] {
			w.b = append(w.b, ',')
		}
		w.empty[n-1] = false
		w.newline()
	}
	if key != "" {
		w.b = finding.AppendJSONString(w.b, key)
		w.b = append(w.b, ": "...)
	}
}

func (w *indentJSON) open(key string, c byte) {
	w.member(key)
	w.b = append(w.b, c)
	w.depth++
	w.empty = append(w.empty, true)
}

func (w *indentJSON) close(c byte) {
	w.depth--
	n := len(w.empty)
	if !w.empty[n-1] {
		w.newline()
	}
	w.empty = w.empty[:n-1]
	w.b = append(w.b, c)
}

func (w *indentJSON) str(key, v string) {
	w.member(key)
	w.b = finding.AppendJSONString(w.b, v)
}

// region appends a SARIF region (nothing when r is nil).
func (w *indentJSON) region(key string, r *sarifRegion) {
	if r == nil {
		return
	}
	w.open(key, '{')
	w.int("startLine", r.StartLine)
	if r.EndLine != 0 {
		w.int("endLine", r.EndLine)
	}
	if r.Snippet != nil {
		w.open("snippet", '{')
		w.str("text", r.Snippet.Text)
		w.close('}')
	}
	w.close('}')
}

func (w *indentJSON) int(key string, v int) {
	w.member(key)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

func (w *indentJSON) strs(key string, vs []string) {
	w.open(key, '[')
	for _, v := range vs {
		w.str("", v)
	}
	w.close(']')
}

// appendSARIFResult appends res as json.MarshalIndent(res, prefix, "  ").
func appendSARIFResult(b []byte, res *sarifResult, prefix string) []byte {
	w := &indentJSON{b: b, prefix: prefix}
	w.open("", '{')
	w.str("ruleId", res.RuleID)
	w.int("ruleIndex", res.RuleIndex)
	if res.Kind != "" {
		w.str("kind", res.Kind)
	}
	w.str("level", res.Level)
	w.open("message", '{')
	w.str("text", res.Message.Text)
	w.close('}')
	if len(res.Locations) > 0 {
		w.open("locations", '[')
		for _, loc := range res.Locations {
			w.open("", '{')
			if pl := loc.PhysicalLocation; pl != nil {
				w.open("physicalLocation", '{')
				w.open("artifactLocation", '{')
				if al := pl.ArtifactLocation; al.URI != "" || al.URIBaseID != "" || al.Description != nil {
					if al.URI != "" {
						w.str("uri", al.URI)
					}
					if al.URIBaseID != "" {
						w.str("uriBaseId", al.URIBaseID)
					}
					if al.Description != nil {
						w.open("description", '{')
						w.str("text", al.Description.Text)
						w.close('}')
					}
				}
				w.close('}')
				w.region("region", pl.Region)
				w.region("contextRegion", pl.ContextRegion)
				w.close('}')
			}
			if len(loc.LogicalLocations) > 0 {
				w.open("logicalLocations", '[')
				for _, ll := range loc.LogicalLocations {
					w.open("", '{')
					w.str("name", ll.Name)
					w.str("kind", ll.Kind)
					w.close('}')
				}
				w.close(']')
			}
			w.close('}')
		}
		w.close(']')
	}
	w.open("partialFingerprints", '{')
	w.str(sarifFingerprintKey, res.PartialFingerprints[sarifFingerprintKey])
	w.close('}')
	w.open("suppressions", '[')
	for _, s := range res.Suppressions {
		w.open("", '{')
		w.str("kind", s.Kind)
		w.str("status", s.Status)
		w.str("justification", s.Justification)
		w.close('}')
	}
	w.close(']')
	if res.BaselineState != "" {
		w.str("baselineState", res.BaselineState)
	}
	p := &res.Properties
	w.open("properties", '{')
	w.str("severity", p.Severity)
	w.str("scanType", p.ScanType)
	if p.CWE != "" {
		w.str("cwe", p.CWE)
	}
	w.strs("complianceTags", p.ComplianceTags)
	w.str("triageStatus", p.TriageStatus)
	if p.TriageNote != "" {
		w.str("triageNote", p.TriageNote)
	}
	w.str("findingId", p.FindingID)
	if p.FirstSeen != "" {
		w.str("firstSeen", p.FirstSeen)
		w.str("lastSeen", p.LastSeen)
	}
	w.close('}')
	w.close('}')
	return w.b
}

// htmlText appends s escaped as html/template escapes text in a text node
// or a quoted attribute.
func htmlText(b []byte, s string) []byte { return htmlEscape(b, s) }

func htmlEscape[T string | []byte](b []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, repl...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// appendReportFinding appends the report's "finding" template for f.
func appendReportFinding(b []byte, f *reportFinding) []byte {
	b = append(b, "\n<article class=\"finding"...)
	if f.Hidden {
		b = append(b, " hidden"...)
	}
	b = append(b, `" style="border-left-color: `...)
	b = htmlText(b, f.Color)
	b = append(b, "\">\n<h3>#"...)
	b = strconv.AppendInt(b, int64(f.N), 10)
	b = append(b, ' ')
	b = htmlText(b, f.Title)
	b = append(b, "</h3>\n<dl>\n<dt>Location</dt><dd><code>"...)
	b = htmlText(b, f.Location)
	b = append(b, "</code></dd>\n<dt>Scanner</dt><dd>"...)
	b = htmlText(b, f.Scanner)
	b = append(b, " ("...)
	b = htmlText(b, f.ScanType)
	b = append(b, "), rule <code>"...)
	b = htmlText(b, f.RuleID)
	b = append(b, "</code></dd>"...)
	if f.CWE != "" {
		b = append(b, "\n<dt>CWE</dt><dd>"...)
		b = htmlText(b, f.CWE)
		b = append(b, "</dd>"...)
	}
	if f.Seen != "" {
		b = append(b, "\n<dt>Seen</dt><dd>"...)
		b = htmlText(b, f.Seen)
		b = append(b, "</dd>"...)
	}
	b = append(b, "\n<dt>Triage</dt><dd>"...)
	b = htmlText(b, f.Triage)
	switch {
	case f.TriageBy != "":
		b = append(b, " <span class=\"note\">by "...)
		b = htmlText(b, f.TriageBy)
		b = append(b, ", "...)
		b = htmlText(b, f.TriageAt)
		b = append(b, "</span>"...)
	case f.TriageAt != "":
		b = append(b, " <span class=\"note\">"...)
		b = htmlText(b, f.TriageAt)
		b = append(b, "</span>"...)
	}
	b = append(b, "</dd>"...)
	if f.TriageNote != "" {
		b = append(b, "\n<dt>Triage note</dt><dd class=\"desc\">"...)
		b = htmlText(b, f.TriageNote)
		b = append(b, "</dd>"...)
	}
	if f.SuppressedBy != "" {
		b = append(b, "\n<dt>Suppressed by</dt><dd><span class=\"flag\">"...)
		b = htmlText(b, f.SuppressedBy)
		b = append(b, "</span></dd>"...)
	}
	if len(f.Tags) > 0 {
		b = append(b, "\n<dt>Compliance</dt><dd>"...)
		for _, t := range f.Tags {
			b = append(b, "<span class=\"tag\">"...)
			b = htmlText(b, t)
			b = append(b, "</span>"...)
		}
		b = append(b, "</dd>"...)
	}
	b = append(b, "\n<dt>Fingerprint</dt><dd><code>"...)
	b = htmlText(b, f.Fingerprint)
	b = append(b, "</code></dd>\n</dl>"...)
	if f.Description != "" {
		b = append(b, "\n<p class=\"desc\">"...)
		b = htmlText(b, f.Description)
		b = append(b, "</p>"...)
	}
	return append(b, "\n</article>"...)
}

// jsonInner strips a string token's quotes.
func jsonInner(tok []byte) []byte {
	if len(tok) >= 2 && tok[0] == '"' {
		return tok[1 : len(tok)-1]
	}
	return nil
}

// htmlFromJSON appends the JSON-escaped string inner (without quotes) as
// html/template escapes the decoded string: decoding and escaping in one
// pass, without building the string.
func htmlFromJSON(b, inner []byte) []byte {
	for i := 0; i < len(inner); {
		c := inner[i]
		if c != '\\' {
			j := i
			for j < len(inner) && inner[j] != '\\' {
				j++
			}
			b = htmlEscape(b, inner[i:j])
			i = j
			continue
		}
		if i+1 >= len(inner) {
			return append(b, '\\') // not a stored token; nothing sensible to decode
		}
		e := inner[i+1]
		i += 2
		switch e {
		case '"':
			b = append(b, "&#34;"...)
		case '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, n := jsonUnicodeEscape(inner[i-2:])
			i += n - 2
			if r < utf8.RuneSelf {
				b = htmlText(b, string(rune(r)))
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
	}
	return b
}

// jsonUnicodeEscape decodes \uXXXX (and a following low surrogate) at the
// start of s as encoding/json does, returning the rune and bytes used.
func jsonUnicodeEscape(s []byte) (rune, int) {
	hex4 := func(h []byte) (rune, bool) {
		if len(h) < 4 {
			return 0, false
		}
		n, err := strconv.ParseUint(string(h[:4]), 16, 32)
		return rune(n), err == nil
	}
	r, ok := hex4(s[2:])
	if !ok {
		return utf8.RuneError, min(len(s), 6)
	}
	if utf16.IsSurrogate(r) {
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2, ok := hex4(s[8:]); ok {
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					return d, 12
				}
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// raw writes a string token stored by encoding/json, as encoding/json
// would write the string it decodes to (see appendCanonical).
func (w *indentJSON) raw(key string, tok []byte) {
	w.member(key)
	if len(tok) < 2 || tok[0] != '"' {
		w.b = append(w.b, tok...)
		return
	}
	w.b = append(w.b, '"')
	w.b = appendCanonical(w.b, jsonInner(tok))
	w.b = append(w.b, '"')
}

// appendCanonical copies the inside of a stored string token. Encoding is
// the identity on decoded-then-encoded text except for one escape:
// encoding/json writes invalid UTF-8 as \ufffd, but the decoded U+FFFD
// re-encodes as itself, so \ufffd becomes the raw character here.
func appendCanonical(b, inner []byte) []byte {
	for {
		i := bytes.IndexByte(inner, '\\')
		if i < 0 || i+1 >= len(inner) {
			return append(b, inner...)
		}
		if inner[i+1] == 'u' && i+6 <= len(inner) && string(inner[i+2:i+6]) == "fffd" {
			b = append(b, inner[:i]...)
			b = append(b, "\uFFFD"...)
			inner = inner[i+6:]
			continue
		}
		n := 2
		if inner[i+1] == 'u' {
			n = 6
		}
		n = min(n, len(inner)-i)
		b = append(b, inner[:i+n]...)
		inner = inner[i+n:]
	}
}

// appendSARIFResultRaw is appendSARIFResult of sarifResultOf for a finding
// read as stored tokens, copying strings through. It reports false (and
// appends nothing) when the finding needs the general path: no file
// location, a title that may be blank, a structured suppressed_by.
func appendSARIFResultRaw(b []byte, prefix string, f *finding.RawFinding, row *Row, ruleIndex map[string]int,
	firstDescription map[string][]byte) ([]byte, bool) {
	state := row.Triage
	file, rule, title := jsonInner(f.FilePath), jsonInner(f.RuleID), jsonInner(f.Title)
	if row.Diff == DiffFixed || len(file) == 0 || bytes.IndexByte(file, '\\') >= 0 || bytes.IndexByte(rule, '\\') >= 0 || len(f.Severity) < 2 ||
		len(bytes.Trim(title, " ")) == 0 || bytes.IndexByte(title, '\\') >= 0 {
		return b, false
	}
	var suppressedBy []byte
	switch {
	case f.SuppressedBy == nil, string(f.SuppressedBy) == "null", string(f.SuppressedBy) == `""`:
	case f.SuppressedBy[0] == '"':
		suppressedBy = jsonInner(f.SuppressedBy)
	default:
		return b, false
	}
	w := &indentJSON{b: b, prefix: prefix}
	w.open("", '{')
	w.raw("ruleId", f.RuleID)
	w.int("ruleIndex", ruleIndex[string(rule)])
	sev := finding.Severity(jsonInner(f.Severity))
	w.str("level", sarifLevel(sev))
	w.open("message", '{')
	w.member("text")
	w.b = append(w.b, '"')
	w.b = appendCanonical(w.b, title)
	if desc := jsonInner(f.Description); len(desc) > 0 && !bytes.Equal(desc, firstDescription[string(rule)]) {
		at := len(w.b)
		w.b = append(w.b, `\n`...)
		w.b = appendCanonical(w.b, desc)
		if bytes.Equal(w.b[at+2:], firstDescription[string(rule)]) {
			w.b = w.b[:at] // the rule's own description is in the rule
		}
	}
	w.b = append(w.b, '"')
	w.close('}')
	w.open("locations", '[')
	w.open("", '{')
	w.open("physicalLocation", '{')
	w.open("artifactLocation", '{')
	w.str("uri", sarifURI(string(file)))
	w.str("uriBaseId", sarifSrcRoot)
	w.close('}')
	if f.Line > 0 {
		region, context := sarifRegions(f.Line, row.Excerpt)
		w.region("region", region)
		w.region("contextRegion", context)
	}
	w.close('}')
	w.close('}')
	w.close(']')
	w.open("partialFingerprints", '{')
	w.raw(sarifFingerprintKey, f.Fingerprint)
	w.close('}')
	w.open("suppressions", '[')
	if suppressedBy != nil {
		w.open("", '{')
		w.str("kind", "inSource")
		w.str("status", "accepted")
		w.member("justification")
		w.b = append(w.b, `"Suppressed in source by `...)
		w.b = appendCanonical(w.b, suppressedBy)
		w.b = append(w.b, '"')
		w.close('}')
	}
	if state != nil && HiddenVerdict(state.Status) {
		w.open("", '{')
		w.str("kind", "external")
		w.str("status", "accepted")
		w.str("justification", sarifTriageJustification(state))
		w.close('}')
	}
	w.close(']')
	if bs := sarifBaselineState(row); bs != "" {
		w.str("baselineState", bs)
	}
	w.open("properties", '{')
	w.raw("severity", f.Severity)
	w.raw("scanType", f.ScanType)
	if len(f.CWE) > 2 && f.CWE[0] == '"' {
		w.raw("cwe", f.CWE)
	}
	w.open("complianceTags", '[')
	for _, t := range f.Tags {
		w.raw("", t)
	}
	w.close(']')
	triage, note := "new", ""
	if state != nil {
		triage, note = state.Status, state.Note
	}
	w.str("triageStatus", triage)
	if note != "" {
		w.str("triageNote", note)
	}
	w.raw("findingId", f.ID)
	if first, last := row.Seen.sarif(); first != "" {
		w.str("firstSeen", first)
		w.str("lastSeen", last)
	}
	w.close('}')
	w.close('}')
	return w.b, true
}

// appendReportFindingRaw is appendReportFinding of reportFindingView for a
// finding read as stored tokens. It reports false (appending nothing) when
// the finding needs the general path: no file location or a structured
// suppressed_by.
func appendReportFindingRaw(b []byte, f *finding.RawFinding, state *Triage, seen *Seen, n int, color string) ([]byte, bool) {
	file := jsonInner(f.FilePath)
	if len(file) == 0 || (f.SuppressedBy != nil && f.SuppressedBy[0] != '"' && string(f.SuppressedBy) != "null") {
		return b, false
	}
	triage, triageNote, triageBy, triageAt, hidden := reportTriageLabels["new"], "", "", "", false
	if state != nil {
		if triage = reportTriageLabels[state.Status]; triage == "" {
			triage = state.Status
		}
		triageNote, triageBy = state.Note, state.UpdatedBy
		triageAt = state.UpdatedAt.UTC().Format(reportTimeLayout)
		hidden = HiddenVerdict(state.Status)
	}
	b = append(b, "\n<article class=\"finding"...)
	if hidden {
		b = append(b, " hidden"...)
	}
	b = append(b, `" style="border-left-color: `...)
	b = htmlText(b, color)
	b = append(b, "\">\n<h3>#"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = htmlFromJSON(b, jsonInner(f.Title))
	b = append(b, "</h3>\n<dl>\n<dt>Location</dt><dd><code>"...)
	b = htmlFromJSON(b, file)
	if f.Line > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(f.Line), 10)
	}
	b = append(b, "</code></dd>\n<dt>Scanner</dt><dd>"...)
	b = htmlFromJSON(b, jsonInner(f.Scanner))
	b = append(b, " ("...)
	b = htmlFromJSON(b, jsonInner(f.ScanType))
	b = append(b, "), rule <code>"...)
	b = htmlFromJSON(b, jsonInner(f.RuleID))
	b = append(b, "</code></dd>"...)
	if cwe := jsonInner(f.CWE); len(cwe) > 0 {
		b = append(b, "\n<dt>CWE</dt><dd>"...)
		b = htmlFromJSON(b, cwe)
		b = append(b, "</dd>"...)
	}
	if seen != nil {
		b = append(b, "\n<dt>Seen</dt><dd>"...)
		b = htmlText(b, seen.reportText())
		b = append(b, "</dd>"...)
	}
	b = append(b, "\n<dt>Triage</dt><dd>"...)
	b = htmlText(b, triage)
	switch {
	case triageBy != "":
		b = append(b, " <span class=\"note\">by "...)
		b = htmlText(b, triageBy)
		b = append(b, ", "...)
		b = htmlText(b, triageAt)
		b = append(b, "</span>"...)
	case triageAt != "":
		b = append(b, " <span class=\"note\">"...)
		b = htmlText(b, triageAt)
		b = append(b, "</span>"...)
	}
	b = append(b, "</dd>"...)
	if triageNote != "" {
		b = append(b, "\n<dt>Triage note</dt><dd class=\"desc\">"...)
		b = htmlText(b, triageNote)
		b = append(b, "</dd>"...)
	}
	if sup := jsonInner(f.SuppressedBy); len(sup) > 0 {
		b = append(b, "\n<dt>Suppressed by</dt><dd><span class=\"flag\">"...)
		b = htmlFromJSON(b, sup)
		b = append(b, "</span></dd>"...)
	}
	if len(f.Tags) > 0 {
		b = append(b, "\n<dt>Compliance</dt><dd>"...)
		for _, t := range f.Tags {
			b = append(b, "<span class=\"tag\">"...)
			b = htmlFromJSON(b, jsonInner(t))
			b = append(b, "</span>"...)
		}
		b = append(b, "</dd>"...)
	}
	b = append(b, "\n<dt>Fingerprint</dt><dd><code>"...)
	b = htmlFromJSON(b, jsonInner(f.Fingerprint))
	b = append(b, "</code></dd>\n</dl>"...)
	if desc := jsonInner(f.Description); len(desc) > 0 {
		b = append(b, "\n<p class=\"desc\">"...)
		b = htmlFromJSON(b, desc)
		b = append(b, "</p>"...)
	}
	return append(b, "\n</article>"...), true
}
