package api

import (
	"strconv"

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
				if pl.Region != nil {
					w.open("region", '{')
					w.int("startLine", pl.Region.StartLine)
					w.close('}')
				}
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
	w.close('}')
	w.close('}')
	return w.b
}

// htmlText appends s escaped as html/template escapes text in a text node
// or a quoted attribute.
func htmlText(b []byte, s string) []byte {
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
