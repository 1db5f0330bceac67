package vex

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"
)

// Header is what a written document says about itself.
type Header struct {
	// ID is the document's @id (OpenVEX) or serialNumber (CycloneDX), a
	// urn:uuid (DocumentID).
	ID        string
	Author    string
	Timestamp time.Time
	// ToolVersion is scand's version, for tooling and metadata.tools.
	ToolVersion string
	// BOMLink is "urn:cdx:<serial>/<version>" of the CycloneDX SBOM the
	// statements are about: CycloneDX affects refs then point into it
	// (BOM-Link), as consumers such as trivy sbom --vex require. Empty
	// writes the purl itself as the ref.
	BOMLink string
}

// Writer writes one document statement by statement: nothing but the
// current statement is held, so a large scan's VEX streams.
type Writer struct {
	w       *bufio.Writer
	format  string
	bomLink string
	n       int
	err     error
	// written holds a digest of each statement written: the same package
	// version reported from two lockfiles with one verdict gives the same
	// statement, and both schemas want the statements unique.
	written map[[sha256.Size]byte]bool
}

// NewWriter starts a document of format on w.
func NewWriter(w io.Writer, format string, h Header) (*Writer, error) {
	vw := &Writer{w: bufio.NewWriterSize(w, 32<<10), format: format, written: map[[sha256.Size]byte]bool{}}
	ts := h.Timestamp.UTC().Format(time.RFC3339)
	switch format {
	case FormatOpenVEX:
		head := map[string]any{"@context": OpenVEXContext, "@id": h.ID, "author": h.Author, "timestamp": ts, "version": 1,
			"tooling": "scand " + h.ToolVersion}
		vw.writeHead(head, []string{"@context", "@id", "author", "timestamp", "version", "tooling"}, "statements")
	case FormatCycloneDX:
		head := map[string]any{"bomFormat": "CycloneDX", "specVersion": "1.5", "serialNumber": h.ID, "version": 1,
			"metadata": map[string]any{"timestamp": ts,
				"tools":   map[string]any{"components": []any{map[string]any{"type": "application", "name": "scand", "version": h.ToolVersion}}},
				"authors": []any{map[string]any{"name": h.Author}}}}
		vw.writeHead(head, []string{"bomFormat", "specVersion", "serialNumber", "version", "metadata"}, "vulnerabilities")
	default:
		return nil, errors.New("vex: unknown format " + format)
	}
	vw.bomLink = h.BOMLink
	return vw, vw.err
}

// writeHead writes the document's opening fields in order and opens the
// array of statements.
func (vw *Writer) writeHead(head map[string]any, order []string, array string) {
	vw.put("{\n")
	for _, k := range order {
		vw.put("  " + quote(k) + ": " + string(marshal(head[k], "  ")) + ",\n")
	}
	vw.put("  " + quote(array) + ": [")
}

// Write adds one statement.
func (vw *Writer) Write(st Statement) error {
	if vw.err != nil {
		return vw.err
	}
	var v any
	if vw.format == FormatOpenVEX {
		v = openVEXStatement(st)
	} else {
		v = cycloneDXVulnerability(st, vw.bomLink)
	}
	body := marshal(v, "    ")
	sum := sha256.Sum256(body)
	if vw.written[sum] {
		return nil
	}
	vw.written[sum] = true
	if vw.n > 0 {
		vw.put(",")
	}
	vw.n++
	vw.put("\n    ")
	vw.put(string(body))
	return vw.err
}

// Count is the number of statements written.
func (vw *Writer) Count() int { return vw.n }

// Close ends the document and flushes it.
func (vw *Writer) Close() error {
	if vw.n > 0 {
		vw.put("\n  ")
	}
	vw.put("]\n}\n")
	if vw.err == nil {
		vw.err = vw.w.Flush()
	}
	return vw.err
}

func (vw *Writer) put(s string) {
	if vw.err == nil {
		_, vw.err = vw.w.WriteString(s)
	}
}

func quote(s string) string { return string(marshal(s, "")) }

// marshal encodes v indented under prefix, without HTML escaping (notes
// hold & and <).
func marshal(v any, prefix string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

type ovIdentifiers struct {
	PURL string `json:"purl"`
}

type ovProduct struct {
	ID          string         `json:"@id"`
	Identifiers *ovIdentifiers `json:"identifiers,omitempty"`
}

type ovVulnerability struct {
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
}

type ovStatement struct {
	Vulnerability            ovVulnerability `json:"vulnerability"`
	Timestamp                string          `json:"timestamp,omitempty"`
	Products                 []ovProduct     `json:"products"`
	Status                   string          `json:"status"`
	StatusNotes              string          `json:"status_notes,omitempty"`
	Justification            string          `json:"justification,omitempty"`
	ImpactStatement          string          `json:"impact_statement,omitempty"`
	ActionStatement          string          `json:"action_statement,omitempty"`
	ActionStatementTimestamp string          `json:"action_statement_timestamp,omitempty"`
}

// openVEXStatement: products are the packages themselves (@id and
// identifiers.purl), not the scanned target with the package as a
// subcomponent: a directory or repository has no purl, and trivy fs
// matches a lockfile's package only when it is the product.
func openVEXStatement(st Statement) ovStatement {
	o := ovStatement{Vulnerability: ovVulnerability{Name: st.Vulnerability, Aliases: st.Aliases}, Status: st.Status,
		StatusNotes: st.StatusNotes, Justification: st.Justification, ImpactStatement: st.ImpactStatement, ActionStatement: st.ActionStatement,
		Products: []ovProduct{}}
	if !st.Timestamp.IsZero() {
		o.Timestamp = st.Timestamp.UTC().Format(time.RFC3339)
		if o.ActionStatement != "" {
			o.ActionStatementTimestamp = o.Timestamp
		}
	}
	for _, p := range st.Products {
		prod := ovProduct{ID: p}
		if strings.HasPrefix(p, "pkg:") {
			prod.Identifiers = &ovIdentifiers{PURL: p}
		}
		o.Products = append(o.Products, prod)
	}
	return o
}

type cdxSource struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

type cdxReference struct {
	ID     string    `json:"id"`
	Source cdxSource `json:"source"`
}

type cdxAnalysis struct {
	State         string   `json:"state"`
	Justification string   `json:"justification,omitempty"`
	Response      []string `json:"response,omitempty"`
	Detail        string   `json:"detail,omitempty"`
	LastUpdated   string   `json:"lastUpdated,omitempty"`
}

type cdxAffect struct {
	Ref string `json:"ref"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type cdxVulnerability struct {
	ID         string         `json:"id"`
	Source     *cdxSource     `json:"source,omitempty"`
	References []cdxReference `json:"references,omitempty"`
	Analysis   cdxAnalysis    `json:"analysis"`
	Affects    []cdxAffect    `json:"affects"`
	Properties []cdxProperty  `json:"properties,omitempty"`
}

// cdxState maps a status onto CycloneDX's impactAnalysisState.
var cdxState = map[string]string{NotAffected: "not_affected", Affected: "exploitable", Fixed: "resolved", UnderInvestigation: "in_triage"}

func cycloneDXVulnerability(st Statement, bomLink string) cdxVulnerability {
	v := cdxVulnerability{ID: st.Vulnerability, Analysis: cdxAnalysis{State: cdxState[st.Status]}, Affects: []cdxAffect{}}
	if src := sourceOf(st.Vulnerability); src.Name != "" {
		v.Source = &src
	}
	for _, a := range st.Aliases {
		v.References = append(v.References, cdxReference{ID: a, Source: sourceOf(a)})
	}
	switch st.Status {
	case NotAffected:
		v.Analysis.Justification = CycloneDXJustification(st.Justification)
		v.Analysis.Detail = st.ImpactStatement
	case Affected:
		v.Analysis.Response = []string{"will_not_fix"}
		v.Analysis.Detail = st.ActionStatement
	default:
		v.Analysis.Detail = st.StatusNotes
	}
	if v.Analysis.Detail == "" {
		v.Analysis.Detail = st.StatusNotes
	}
	if !st.Timestamp.IsZero() {
		v.Analysis.LastUpdated = st.Timestamp.UTC().Format(time.RFC3339)
	}
	for _, p := range st.Products {
		ref := p
		if bomLink != "" {
			ref = bomLink + "#" + p
		}
		v.Affects = append(v.Affects, cdxAffect{Ref: ref})
	}
	if st.Verdict != "" {
		v.Properties = append(v.Properties, cdxProperty{"scand:verdict", st.Verdict})
	}
	if st.Justification != "" {
		v.Properties = append(v.Properties, cdxProperty{"scand:openvex_justification", st.Justification})
	}
	if st.ExpiresAt != nil {
		v.Properties = append(v.Properties, cdxProperty{"scand:expires_at", st.ExpiresAt.UTC().Format(time.RFC3339)})
	}
	return v
}

// sourceOf names the database an advisory id comes from, by its prefix.
func sourceOf(id string) cdxSource {
	u := strings.ToUpper(id)
	switch {
	case strings.HasPrefix(u, "CVE-"):
		return cdxSource{Name: "NVD", URL: "https://nvd.nist.gov/vuln/detail/" + id}
	case strings.HasPrefix(u, "GHSA-"):
		return cdxSource{Name: "GitHub Advisories", URL: "https://github.com/advisories/" + id}
	case strings.HasPrefix(u, "GO-"):
		return cdxSource{Name: "Go Vulnerability Database", URL: "https://pkg.go.dev/vuln/" + id}
	}
	return cdxSource{Name: "OSV", URL: "https://osv.dev/vulnerability/" + id}
}
