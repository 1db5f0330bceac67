package vex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of a document read: the body, the statements, the products of
// one statement and any one text. A vendor's VEX for a whole product line
// fits well within them.
const (
	MaxDocumentBytes = 10 << 20
	MaxStatements    = 50000
	MaxProducts      = 1000
	MaxTextRunes     = 10000
	// MaxDocumentProducts caps the products (and subcomponents and
	// affects) of all statements together: each is an index row.
	MaxDocumentProducts = 100000
)

// ErrTooLarge means a document is over MaxDocumentBytes.
var ErrTooLarge = fmt.Errorf("VEX document larger than %d bytes", MaxDocumentBytes)

// Problem is one structural fault of a document: where (loc, from the
// document's root), what, and the offending value.
type Problem struct {
	Type  string
	Loc   []any
	Msg   string
	Input any
}

// ProblemsError lists a document's faults (at most 50).
type ProblemsError struct{ Problems []Problem }

func (e *ProblemsError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(locString(p.Loc) + ": " + p.Msg)
	}
	return b.String()
}

func locString(loc []any) string {
	var b strings.Builder
	for _, l := range loc {
		switch v := l.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(v) + "]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, v)
		}
	}
	if b.Len() == 0 {
		return "document"
	}
	return b.String()
}

// Document is a document read: its format, identity, author and
// statements.
type Document struct {
	Format    string
	ID        string
	Author    string
	Timestamp *time.Time
	// Statements are in document order.
	Statements []Statement
}

type reader struct {
	probs    []Problem
	products int
}

// count adds a statement's products to the document's, and says when
// the document has too many.
func (r *reader) count(n int, loc ...any) {
	r.products += n
	if r.products > MaxDocumentProducts && r.products-n <= MaxDocumentProducts {
		r.add("too_long", fmt.Sprintf("at most %d products in one document; split it", MaxDocumentProducts), nil, loc...)
	}
}

func (r *reader) add(typ, msg string, input any, loc ...any) {
	if len(r.probs) < 50 {
		r.probs = append(r.probs, Problem{Type: typ, Loc: slices.Clone(loc), Msg: msg, Input: input})
	}
}

// Parse reads an OpenVEX or CycloneDX VEX JSON document, told apart by
// its content (@context, bomFormat). Every fault is reported with its
// place; nothing is guessed.
func Parse(raw []byte) (Document, error) {
	if len(raw) > MaxDocumentBytes {
		return Document{}, ErrTooLarge
	}
	var r reader
	raw = bytes.TrimSpace(raw)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		r.add("json_invalid", "not JSON: "+err.Error(), nil)
		return Document{}, &ProblemsError{r.probs}
	}
	if dec.More() {
		r.add("json_invalid", "unexpected data after the JSON document", nil)
		return Document{}, &ProblemsError{r.probs}
	}
	obj, ok := top.(map[string]any)
	if !ok {
		r.add("dict_type", "a VEX document is a JSON object", nil)
		return Document{}, &ProblemsError{r.probs}
	}
	var doc Document
	switch {
	case obj["@context"] != nil:
		doc = r.openVEX(obj)
	case obj["bomFormat"] != nil:
		doc = r.cycloneDX(obj)
	default:
		r.add("value_error", "neither OpenVEX (no @context) nor CycloneDX (no bomFormat)", nil)
	}
	if len(r.probs) > 0 {
		return Document{}, &ProblemsError{r.probs}
	}
	return doc, nil
}

// str reads an optional string field; required makes absence a fault.
func (r *reader) str(obj map[string]any, key string, required bool, loc ...any) string {
	v, present := obj[key]
	loc = append(loc, key)
	if !present || v == nil {
		if required {
			r.add("missing", "field required", nil, loc...)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.add("string_type", "must be a string", v, loc...)
		return ""
	}
	if utf8.RuneCountInString(s) > MaxTextRunes {
		r.add("string_too_long", fmt.Sprintf("at most %d characters", MaxTextRunes), nil, loc...)
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		r.add("missing", "must not be empty", s, loc...)
	}
	return s
}

func (r *reader) time(obj map[string]any, key string, required bool, loc ...any) *time.Time {
	s := r.str(obj, key, required, loc...)
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		r.add("datetime_parsing", "must be an RFC 3339 date-time", s, append(loc, key)...)
		return nil
	}
	t = t.UTC()
	return &t
}

func (r *reader) array(obj map[string]any, key string, required bool, max int, loc ...any) []any {
	v, present := obj[key]
	loc = append(loc, key)
	if !present || v == nil {
		if required {
			r.add("missing", "field required", nil, loc...)
		}
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		r.add("list_type", "must be an array", nil, loc...)
		return nil
	}
	if len(a) > max {
		r.add("too_long", fmt.Sprintf("at most %d entries", max), len(a), loc...)
		return nil
	}
	return a
}

func (r *reader) object(v any, loc ...any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		r.add("dict_type", "must be an object", nil, loc...)
	}
	return m
}

func (r *reader) strings(obj map[string]any, key string, loc ...any) []string {
	var out []string
	for i, v := range r.array(obj, key, false, MaxProducts, loc...) {
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			r.add("string_type", "must be a non-empty string", v, append(slices.Clone(loc), key, i)...)
			continue
		}
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

func (r *reader) openVEX(obj map[string]any) Document {
	doc := Document{Format: FormatOpenVEX}
	if ctx := r.str(obj, "@context", true); ctx != "" && !strings.HasPrefix(ctx, "https://openvex.dev/ns") {
		r.add("value_error", "an OpenVEX @context starts with https://openvex.dev/ns (this is "+OpenVEXContext+")", ctx, "@context")
	}
	doc.ID = r.str(obj, "@id", true)
	doc.Author = strings.TrimSpace(r.str(obj, "author", true))
	doc.Timestamp = r.time(obj, "timestamp", true)
	if v, ok := obj["version"]; !ok {
		r.add("missing", "field required", nil, "version")
	} else if n, ok := v.(json.Number); !ok {
		r.add("int_type", "must be an integer of at least 1", v, "version")
	} else if i, err := n.Int64(); err != nil || i < 1 {
		r.add("int_type", "must be an integer of at least 1", v, "version")
	}
	stmts := r.array(obj, "statements", true, MaxStatements)
	if stmts != nil && len(stmts) == 0 {
		r.add("too_short", "must list at least one statement", nil, "statements")
	}
	for i, v := range stmts {
		loc := []any{"statements", i}
		m := r.object(v, loc...)
		if m == nil {
			continue
		}
		var st Statement
		if vul := r.object(m["vulnerability"], append(loc, "vulnerability")...); vul != nil {
			st.Vulnerability = strings.TrimSpace(r.str(vul, "name", true, append(loc, "vulnerability")...))
			st.Aliases = r.strings(vul, "aliases", append(loc, "vulnerability")...)
		}
		st.Status = r.status(m, loc)
		st.Justification = r.str(m, "justification", false, loc...)
		if st.Justification != "" && !IsJustification(st.Justification) {
			r.add("enum", "justification must be one of "+strings.Join(Justifications, ", "), st.Justification, append(loc, "justification")...)
		}
		st.ImpactStatement = r.str(m, "impact_statement", false, loc...)
		st.ActionStatement = r.str(m, "action_statement", false, loc...)
		st.StatusNotes = r.str(m, "status_notes", false, loc...)
		if t := r.time(m, "timestamp", false, loc...); t != nil {
			st.Timestamp = *t
		}
		switch {
		case st.Status == NotAffected && st.Justification == "" && strings.TrimSpace(st.ImpactStatement) == "":
			r.add("missing", "a not_affected statement needs a justification or an impact_statement", nil, append(loc, "justification")...)
		case st.Status == Affected && strings.TrimSpace(st.ActionStatement) == "":
			r.add("missing", "an affected statement needs an action_statement", nil, append(loc, "action_statement")...)
		}
		for j, pv := range r.array(m, "products", false, MaxProducts, loc...) {
			ploc := append(slices.Clone(loc), "products", j)
			p := r.object(pv, ploc...)
			if p == nil {
				continue
			}
			ids := r.componentIDs(p, ploc)
			for k, sv := range r.array(p, "subcomponents", false, MaxProducts, ploc...) {
				if sub := r.object(sv, append(slices.Clone(ploc), "subcomponents", k)...); sub != nil {
					ids = append(ids, r.componentIDs(sub, append(slices.Clone(ploc), "subcomponents", k))...)
				}
			}
			st.Products = append(st.Products, ids...)
		}
		r.count(len(st.Products), append(loc, "products")...)
		doc.Statements = append(doc.Statements, st)
	}
	return doc
}

// componentIDs reads a product's or subcomponent's @id and
// identifiers.purl; one of them is required.
func (r *reader) componentIDs(c map[string]any, loc []any) []string {
	var ids []string
	if id := strings.TrimSpace(r.str(c, "@id", false, loc...)); id != "" {
		ids = append(ids, id)
	}
	if idv, ok := c["identifiers"]; ok {
		if idm := r.object(idv, append(slices.Clone(loc), "identifiers")...); idm != nil {
			if p := strings.TrimSpace(r.str(idm, "purl", false, append(slices.Clone(loc), "identifiers")...)); p != "" && !slices.Contains(ids, p) {
				ids = append(ids, p)
			}
		}
	}
	if len(ids) == 0 {
		r.add("missing", "a product or subcomponent needs an @id or identifiers.purl", nil, loc...)
	}
	for _, id := range ids {
		if strings.HasPrefix(id, "pkg:") {
			if _, err := ParsePURL(id); err != nil {
				r.add("value_error", err.Error(), id, loc...)
			}
		}
	}
	return ids
}

func (r *reader) status(m map[string]any, loc []any) string {
	s := r.str(m, "status", true, loc...)
	if s != "" && !slices.Contains(Statuses, s) {
		r.add("enum", "status must be one of "+strings.Join(Statuses, ", "), s, append(loc, "status")...)
		return ""
	}
	return s
}

// cdxStatus maps CycloneDX's impactAnalysisState onto a status.
var cdxStatus = map[string]string{"not_affected": NotAffected, "false_positive": NotAffected, "exploitable": Affected,
	"resolved": Fixed, "resolved_with_pedigree": Fixed, "in_triage": UnderInvestigation}

func (r *reader) cycloneDX(obj map[string]any) Document {
	doc := Document{Format: FormatCycloneDX}
	if f := r.str(obj, "bomFormat", true); f != "" && f != "CycloneDX" {
		r.add("value_error", "bomFormat must be CycloneDX", f, "bomFormat")
	}
	if sv := r.str(obj, "specVersion", true); sv != "" && !slices.Contains([]string{"1.4", "1.5", "1.6"}, sv) {
		r.add("value_error", "specVersion must be 1.4, 1.5 or 1.6", sv, "specVersion")
	}
	doc.ID = r.str(obj, "serialNumber", false)
	refs := map[string]string{} // bom-ref → purl of the document's own components
	r.components(obj, refs, 0, "components")
	if mv, ok := obj["metadata"]; ok {
		if md := r.object(mv, "metadata"); md != nil {
			doc.Timestamp = r.time(md, "timestamp", false, "metadata")
			doc.Author = cdxAuthor(md)
			if cv, ok := md["component"].(map[string]any); ok {
				r.components(map[string]any{"components": []any{cv}}, refs, 0, "metadata")
			}
		}
	}
	if doc.Author == "" {
		doc.Author = "unknown (CycloneDX " + doc.ID + ")"
	}
	vulns := r.array(obj, "vulnerabilities", true, MaxStatements)
	if vulns != nil && len(vulns) == 0 {
		r.add("too_short", "must list at least one vulnerability", nil, "vulnerabilities")
	}
	for i, v := range vulns {
		loc := []any{"vulnerabilities", i}
		m := r.object(v, loc...)
		if m == nil {
			continue
		}
		st := Statement{Vulnerability: strings.TrimSpace(r.str(m, "id", true, loc...))}
		for j, rv := range r.array(m, "references", false, MaxProducts, loc...) {
			if ref := r.object(rv, append(slices.Clone(loc), "references", j)...); ref != nil {
				if id := strings.TrimSpace(r.str(ref, "id", true, append(slices.Clone(loc), "references", j)...)); id != "" {
					st.Aliases = append(st.Aliases, id)
				}
			}
		}
		an := r.object(m["analysis"], append(loc, "analysis")...)
		if an == nil {
			continue
		}
		aloc := append(slices.Clone(loc), "analysis")
		state := r.str(an, "state", true, aloc...)
		if st.Status = cdxStatus[state]; state != "" && st.Status == "" {
			r.add("enum", "analysis.state must be one of not_affected, false_positive, exploitable, resolved, resolved_with_pedigree, in_triage", state, append(aloc, "state")...)
		}
		if j := r.str(an, "justification", false, aloc...); j != "" {
			if st.Justification = cdxToOpenVEX[j]; st.Justification == "" {
				r.add("enum", "analysis.justification is not one of CycloneDX 1.5's", j, append(aloc, "justification")...)
			}
		}
		detail := r.str(an, "detail", false, aloc...)
		if st.Status == Affected {
			st.ActionStatement = detail
			if st.ActionStatement == "" {
				st.ActionStatement = r.str(m, "recommendation", false, loc...)
			}
		} else {
			st.ImpactStatement = detail
		}
		if t := r.time(an, "lastUpdated", false, aloc...); t != nil {
			st.Timestamp = *t
		}
		for j, av := range r.array(m, "affects", true, MaxProducts, loc...) {
			floc := append(slices.Clone(loc), "affects", j)
			af := r.object(av, floc...)
			if af == nil {
				continue
			}
			ref := strings.TrimSpace(r.str(af, "ref", true, floc...))
			if ref == "" {
				continue
			}
			st.Products = append(st.Products, resolveRef(ref, refs))
		}
		r.count(len(st.Products), append(loc, "affects")...)
		doc.Statements = append(doc.Statements, st)
	}
	return doc
}

// components collects the bom-ref → purl pairs of a document's
// components (nested ones too, a few levels deep).
func (r *reader) components(obj map[string]any, refs map[string]string, depth int, loc ...any) {
	if depth > 4 {
		return
	}
	arr, _ := obj["components"].([]any)
	for _, cv := range arr {
		c, ok := cv.(map[string]any)
		if !ok {
			continue
		}
		ref, _ := c["bom-ref"].(string)
		purl, _ := c["purl"].(string)
		if ref != "" && purl != "" && len(refs) < MaxStatements {
			refs[ref] = purl
		}
		r.components(c, refs, depth+1, loc...)
	}
}

// resolveRef turns an affects ref into a product: a BOM-Link's element
// (urn:cdx:serial/version#ref, percent-decoded), then a bom-ref of the
// document's own components to that component's purl.
func resolveRef(ref string, refs map[string]string) string {
	if strings.HasPrefix(ref, "urn:cdx:") {
		if i := strings.IndexByte(ref, '#'); i >= 0 {
			ref = ref[i+1:]
			if d, err := url.PathUnescape(ref); err == nil && strings.HasPrefix(d, "pkg:") {
				ref = d
			}
		}
	}
	if p, ok := refs[ref]; ok {
		return p
	}
	return ref
}

// cdxAuthor names a CycloneDX document's author: metadata.authors, else
// the supplier or manufacturer.
func cdxAuthor(md map[string]any) string {
	if as, ok := md["authors"].([]any); ok {
		for _, a := range as {
			if m, ok := a.(map[string]any); ok {
				if n, _ := m["name"].(string); strings.TrimSpace(n) != "" {
					return strings.TrimSpace(n)
				}
			}
		}
	}
	for _, k := range []string{"supplier", "manufacturer", "manufacture"} {
		if m, ok := md[k].(map[string]any); ok {
			if n, _ := m["name"].(string); strings.TrimSpace(n) != "" {
				return strings.TrimSpace(n)
			}
		}
	}
	return ""
}

// IsProblems reports whether err lists a document's faults.
func IsProblems(err error) (*ProblemsError, bool) {
	var p *ProblemsError
	ok := errors.As(err, &p)
	return p, ok
}
