package finding

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Exports (SARIF, HTML) decode every finding of a scan from its stored
// JSON; encoding/json's reflection made that the larger part of their
// cost. DecodeJSON reads a Finding's JSON form field by field and keeps
// only the metadata keys the caller asks for; ParseJSON only finds where
// each value is. Anything they do not expect (another writer's JSON, a
// corrupt row) falls back to encoding/json or is refused, so they are an
// optimization, never a second definition of the format.

var errFastJSON = errors.New("not the stored finding layout")

type jsonReader struct {
	b []byte
	i int
}

func (r *jsonReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *jsonReader) expect(c byte) error {
	r.ws()
	if r.i >= len(r.b) || r.b[r.i] != c {
		return errFastJSON
	}
	r.i++
	return nil
}

func (r *jsonReader) peek() byte {
	r.ws()
	if r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// str reads a JSON string.
func (r *jsonReader) str() (string, error) {
	if err := r.expect('"'); err != nil {
		return "", err
	}
	start := r.i
	for r.i < len(r.b) {
		c := r.b[r.i]
		if c == '"' {
			s := string(r.b[start:r.i])
			r.i++
			if !utf8.ValidString(s) {
				return "", errFastJSON // encoding/json would replace bytes; let it
			}
			return s, nil
		}
		if c == '\\' {
			return r.strSlow(start)
		}
		if c < 0x20 {
			return "", errFastJSON
		}
		r.i++
	}
	return "", errFastJSON
}

func (r *jsonReader) strSlow(start int) (string, error) {
	out := append([]byte(nil), r.b[start:r.i]...)
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			if !utf8.Valid(out) {
				return "", errFastJSON
			}
			return string(out), nil
		case c < 0x20:
			return "", errFastJSON
		case c != '\\':
			out = append(out, c)
			r.i++
			continue
		}
		if r.i+1 >= len(r.b) {
			return "", errFastJSON
		}
		e := r.b[r.i+1]
		r.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			c1, ok := r.hex4()
			if !ok {
				return "", errFastJSON
			}
			if utf16.IsSurrogate(c1) {
				if r.i+1 < len(r.b) && r.b[r.i] == '\\' && r.b[r.i+1] == 'u' {
					save := r.i
					r.i += 2
					if c2, ok := r.hex4(); ok {
						if d := utf16.DecodeRune(c1, c2); d != utf8.RuneError {
							out = utf8.AppendRune(out, d)
							continue
						}
					}
					r.i = save
				}
				c1 = utf8.RuneError
			}
			out = utf8.AppendRune(out, c1)
		default:
			return "", errFastJSON
		}
	}
	return "", errFastJSON
}

func (r *jsonReader) hex4() (rune, bool) {
	if r.i+4 > len(r.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(r.b[r.i:r.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	r.i += 4
	return rune(n), true
}

func (r *jsonReader) literal(word string) bool {
	r.ws()
	if r.i+len(word) <= len(r.b) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return true
	}
	return false
}

// skip passes over one value of any kind and returns its bytes.
func (r *jsonReader) skip() ([]byte, error) {
	r.ws()
	start := r.i
	depth := 0
	for r.i < len(r.b) {
		switch c := r.b[r.i]; c {
		case '"':
			if _, err := r.rawStr(); err != nil {
				return nil, err
			}
			if depth == 0 {
				return r.b[start:r.i], nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				// the end of the enclosing container ends a bare value
				if r.i == start {
					return nil, errFastJSON
				}
				return r.b[start:r.i], nil
			}
			depth--
			if depth == 0 {
				r.i++
				return r.b[start:r.i], nil
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return r.b[start:r.i], nil
			}
		}
		r.i++
	}
	if depth == 0 && r.i > start {
		return r.b[start:r.i], nil
	}
	return nil, errFastJSON
}

// DecodeJSON decodes a Finding's JSON form; its metadata holds only the
// keys in metaKeys (all of them when metaKeys is nil). Numbers in metadata
// are json.Number, so they re-encode to the same digits.
func DecodeJSON(body []byte, metaKeys []string) (Finding, error) {
	f, err := decodeFindingLayout(body, metaKeys)
	if err == nil {
		return f, nil
	}
	f, err = decodeJSONNumbers(body)
	if err != nil || metaKeys == nil {
		return f, err
	}
	for k := range f.Metadata {
		if !slices.Contains(metaKeys, k) {
			delete(f.Metadata, k)
		}
	}
	return f, nil
}

func decodeFindingLayout(body []byte, metaKeys []string) (Finding, error) {
	var f Finding
	r := &jsonReader{b: body}
	if err := r.expect('{'); err != nil {
		return f, err
	}
	for first := true; ; first = false {
		if r.peek() == '}' {
			r.i++
			break
		}
		if !first {
			if err := r.expect(','); err != nil {
				return f, err
			}
		}
		key, err := r.str()
		if err != nil {
			return f, err
		}
		if err := r.expect(':'); err != nil {
			return f, err
		}
		var s string
		switch key {
		case "id", "scan_id", "scanner", "scan_type", "severity", "title", "description", "file_path", "rule_id", "fingerprint":
			if s, err = r.str(); err != nil {
				return f, err
			}
			switch key {
			case "id":
				f.ID = s
			case "scan_id":
				f.ScanID = s
			case "scanner":
				f.Scanner = s
			case "scan_type":
				f.ScanType = s
			case "severity":
				f.Severity = Severity(s)
			case "title":
				f.Title = s
			case "description":
				f.Description = s
			case "file_path":
				f.FilePath = s
			case "rule_id":
				f.RuleID = s
			case "fingerprint":
				f.Fingerprint = s
			}
		case "line":
			raw, err := r.skip()
			if err != nil {
				return f, err
			}
			if f.Line, err = strconv.Atoi(string(raw)); err != nil {
				return f, errFastJSON
			}
		case "cwe":
			if r.literal("null") {
				continue
			}
			if s, err = r.str(); err != nil {
				return f, err
			}
			f.CWE = CWE(s)
		case "compliance_tags":
			if r.literal("null") {
				continue
			}
			if err := r.expect('['); err != nil {
				return f, err
			}
			f.ComplianceTags = []string{}
			for i := 0; r.peek() != ']'; i++ {
				if i > 0 {
					if err := r.expect(','); err != nil {
						return f, err
					}
				}
				if s, err = r.str(); err != nil {
					return f, err
				}
				f.ComplianceTags = append(f.ComplianceTags, s)
			}
			r.i++
		case "metadata":
			if r.literal("null") {
				continue
			}
			if f.Metadata, err = r.metadata(metaKeys); err != nil {
				return f, err
			}
		default:
			return f, errFastJSON
		}
	}
	r.ws()
	if r.i != len(r.b) {
		return f, errFastJSON
	}
	return f, nil
}

func (r *jsonReader) metadata(keys []string) (map[string]any, error) {
	if err := r.expect('{'); err != nil {
		return nil, err
	}
	md := map[string]any{}
	for first := true; ; first = false {
		if r.peek() == '}' {
			r.i++
			return md, nil
		}
		if !first {
			if err := r.expect(','); err != nil {
				return nil, err
			}
		}
		key, err := r.str()
		if err != nil {
			return nil, err
		}
		if err := r.expect(':'); err != nil {
			return nil, err
		}
		want := keys == nil || slices.Contains(keys, key)
		switch c := r.peek(); {
		case c == '"':
			s, err := r.str()
			if err != nil {
				return nil, err
			}
			if want {
				md[key] = s
			}
		case r.literal("null"):
			if want {
				md[key] = nil
			}
		default:
			raw, err := r.skip()
			if err != nil {
				return nil, err
			}
			if want {
				var v any
				dec := json.NewDecoder(bytes.NewReader(raw))
				dec.UseNumber()
				if err := dec.Decode(&v); err != nil {
					return nil, errFastJSON
				}
				md[key] = v
			}
		}
	}
}

// RawFinding is a Finding's fields as the JSON tokens of its JSON form
// (strings with their quotes, escaped as encoding/json escapes them),
// pointing into that JSON: no value is decoded or copied. An export whose
// output escapes strings the same way copies them through.
type RawFinding struct {
	ID, ScanID, Scanner, ScanType, Severity, Title, Description, FilePath, RuleID, CWE, Fingerprint []byte
	Line                                                                                            int
	Tags                                                                                            [][]byte
	// SuppressedBy and URL are metadata values (any JSON); nil when absent.
	SuppressedBy, URL []byte
}

// rawStr returns the next string token, quotes included.
func (r *jsonReader) rawStr() ([]byte, error) {
	r.ws()
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return nil, errFastJSON
	}
	start := r.i
	r.i++
	for {
		q := bytes.IndexByte(r.b[r.i:], '"')
		if q < 0 {
			return nil, errFastJSON
		}
		r.i += q + 1
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		n := 0
		for j := r.i - 2; j > start && r.b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return r.b[start:r.i], nil
		}
	}
}

// ParseJSON finds the token of each field in a Finding's JSON form; tags
// is reused for the tag list. ok is false when body is not that form (the
// caller then decodes it).
func ParseJSON(body []byte, tags [][]byte) (RawFinding, bool) {
	f := RawFinding{Tags: tags[:0]}
	r := &jsonReader{b: body}
	if r.expect('{') != nil {
		return f, false
	}
	for first := true; ; first = false {
		if r.peek() == '}' {
			r.i++
			break
		}
		if !first && r.expect(',') != nil {
			return f, false
		}
		key, err := r.rawStr()
		if err != nil || r.expect(':') != nil {
			return f, false
		}
		var dst *[]byte
		switch string(key) {
		case `"id"`:
			dst = &f.ID
		case `"scan_id"`:
			dst = &f.ScanID
		case `"scanner"`:
			dst = &f.Scanner
		case `"scan_type"`:
			dst = &f.ScanType
		case `"severity"`:
			dst = &f.Severity
		case `"title"`:
			dst = &f.Title
		case `"description"`:
			dst = &f.Description
		case `"file_path"`:
			dst = &f.FilePath
		case `"rule_id"`:
			dst = &f.RuleID
		case `"fingerprint"`:
			dst = &f.Fingerprint
		case `"cwe"`:
			if r.literal("null") {
				f.CWE = []byte("null")
				continue
			}
			dst = &f.CWE
		case `"line"`:
			raw, err := r.skip()
			if err != nil {
				return f, false
			}
			if f.Line, err = strconv.Atoi(string(raw)); err != nil {
				return f, false
			}
			continue
		case `"compliance_tags"`:
			if r.literal("null") {
				continue
			}
			if r.expect('[') != nil {
				return f, false
			}
			for i := 0; r.peek() != ']'; i++ {
				if i > 0 && r.expect(',') != nil {
					return f, false
				}
				t, err := r.rawStr()
				if err != nil {
					return f, false
				}
				f.Tags = append(f.Tags, t)
			}
			r.i++
			continue
		case `"metadata"`:
			if r.literal("null") {
				continue
			}
			if !r.rawMetadata(&f) {
				return f, false
			}
			continue
		default:
			return f, false
		}
		if *dst, err = r.rawStr(); err != nil {
			return f, false
		}
	}
	r.ws()
	return f, r.i == len(r.b)
}

func (r *jsonReader) rawMetadata(f *RawFinding) bool {
	if r.expect('{') != nil {
		return false
	}
	for first := true; ; first = false {
		if r.peek() == '}' {
			r.i++
			return true
		}
		if !first && r.expect(',') != nil {
			return false
		}
		key, err := r.rawStr()
		if err != nil || r.expect(':') != nil {
			return false
		}
		val, err := r.skip()
		if err != nil {
			return false
		}
		switch string(key) {
		case `"suppressed_by"`:
			f.SuppressedBy = val
		case `"url"`:
			f.URL = val
		}
	}
}

// decodeJSONNumbers is encoding/json's decoding of a Finding with
// json.Number for numbers.
func decodeJSONNumbers(body []byte) (Finding, error) {
	var f Finding
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("decode finding JSON: %w", err)
	}
	return f, nil
}
