// Package findingjson is a finding row's stored body: its canonical JSON,
// encoded without reflection yet byte for byte as encoding/json encodes a
// finding.Finding (the ingest encodes every finding once, so this is on
// its hottest path), decoded back without losing a digit, and with a long
// description kept apart (finding_texts) spliced back in. It holds no SQL.
package findingjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"scand/finding"
)

// Fields is finding.Finding's JSON form with the two nested values kept as
// raw JSON, so a finding read back from the scratch file encodes to the
// same bytes as the Finding it came from.
type Fields struct {
	ID             string          `json:"id"`
	ScanID         string          `json:"scan_id"`
	Scanner        string          `json:"scanner"`
	ScanType       string          `json:"scan_type"`
	Severity       string          `json:"severity"`
	Title          string          `json:"title"`
	Description    string          `json:"description"`
	FilePath       string          `json:"file_path"`
	Line           int             `json:"line"`
	RuleID         string          `json:"rule_id"`
	CWE            finding.CWE     `json:"cwe"`
	Fingerprint    string          `json:"fingerprint"`
	ComplianceTags json.RawMessage `json:"compliance_tags"`
	Metadata       json.RawMessage `json:"metadata"`
}

// FieldsOf splits a finding into its JSON fields and the JSON of its tags;
// a nil tag list is stored as [].
func FieldsOf(f finding.Finding) (Fields, string, error) {
	tags, err := TagsJSON(f.ComplianceTags)
	if err != nil {
		return Fields{}, "", err
	}
	meta, err := json.Marshal(f.Metadata)
	if err != nil {
		return Fields{}, "", err
	}
	return Fields{ID: f.ID, ScanID: f.ScanID, Scanner: f.Scanner, ScanType: f.ScanType, Severity: string(f.Severity),
		Title: f.Title, Description: f.Description, FilePath: f.FilePath, Line: f.Line, RuleID: f.RuleID, CWE: f.CWE,
		Fingerprint: f.Fingerprint, ComplianceTags: json.RawMessage(tags), Metadata: meta}, tags, nil
}

// TagsJSON is a compliance tag list as a row stores it: [] for none.
func TagsJSON(tags []string) (string, error) {
	if tags == nil {
		tags = []string{}
	}
	b, err := json.Marshal(tags)
	return string(b), err
}

// Finding decodes the fields back into a Finding (numbers in metadata
// stay json.Number, so they re-encode to the same digits).
func (fj Fields) Finding() (finding.Finding, error) {
	return Decode(Append(nil, &fj))
}

// Append appends f encoded exactly as encoding/json encodes it
// (field order, escaping, null cwe), without reflection: the ingest
// encodes every finding once, so this is on its hottest path. The two raw
// values are copied as they are; they come from encoding/json.
func Append(b []byte, f *Fields) []byte {
	b = append(b, `{"id":`...)
	b = finding.AppendJSONString(b, f.ID)
	b = append(b, `,"scan_id":`...)
	b = finding.AppendJSONString(b, f.ScanID)
	b = append(b, `,"scanner":`...)
	b = finding.AppendJSONString(b, f.Scanner)
	b = append(b, `,"scan_type":`...)
	b = finding.AppendJSONString(b, f.ScanType)
	b = append(b, `,"severity":`...)
	b = finding.AppendJSONString(b, f.Severity)
	b = append(b, `,"title":`...)
	b = finding.AppendJSONString(b, f.Title)
	b = append(b, `,"description":`...)
	b = finding.AppendJSONString(b, f.Description)
	b = append(b, `,"file_path":`...)
	b = finding.AppendJSONString(b, f.FilePath)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(f.Line), 10)
	b = append(b, `,"rule_id":`...)
	b = finding.AppendJSONString(b, f.RuleID)
	b = append(b, `,"cwe":`...)
	if f.CWE == "" {
		b = append(b, "null"...)
	} else {
		b = finding.AppendJSONString(b, string(f.CWE))
	}
	b = append(b, `,"fingerprint":`...)
	b = finding.AppendJSONString(b, f.Fingerprint)
	b = append(b, `,"compliance_tags":`...)
	b = appendRaw(b, f.ComplianceTags)
	b = append(b, `,"metadata":`...)
	b = appendRaw(b, f.Metadata)
	return append(b, '}')
}

func appendRaw(b []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// descriptionKey is where a description is spliced back into a body
// stored without it. A raw quote cannot occur inside an encoded string, so
// the first occurrence is the key itself.
var descriptionKey = []byte(`,"description":`)

// Decode reads a finding back from its canonical JSON. Numbers stay
// json.Number, so re-encoding gives the same digits.
func Decode(body []byte) (finding.Finding, error) {
	return finding.DecodeJSON(body, nil)
}

// Splice puts a description token kept apart back into its body in place
// of the empty string the body holds; buf is reused for the result.
func Splice(buf, body, tok []byte) ([]byte, error) {
	i := bytes.Index(body, descriptionKey)
	at := i + len(descriptionKey)
	if i < 0 || !bytes.HasPrefix(body[at:], []byte(`""`)) || len(tok) < 2 || tok[0] != '"' {
		return buf, errors.New("stored finding body has no empty description to fill")
	}
	buf = append(buf[:0], body[:at]...)
	buf = append(buf, tok...)
	return append(buf, body[at+2:]...), nil
}
