package findings

import (
	"encoding/json"

	"scand/finding"
)

// DecodeMeta is Decode keeping only the named metadata keys, several
// times faster: what an export that reads every finding needs.
func (r FindingRow) DecodeMeta(keys ...string) (FindingWithState, error) {
	f, err := finding.DecodeJSON(r.Body, keys)
	if err != nil {
		return FindingWithState{}, err
	}
	if f.ComplianceTags == nil {
		f.ComplianceTags = []string{}
	}
	return FindingWithState{Finding: f, State: r.State}, nil
}

// Raw finds the tokens of the row's fields without decoding them (see
// finding.ParseJSON); they are only valid until the iteration continues.
func (r FindingRow) Raw(tags [][]byte) (finding.RawFinding, bool) {
	if r.text == nil {
		return finding.ParseJSON(r.Body, tags)
	}
	// The description was stored apart: parse the short body and take the
	// description token as it is, instead of scanning it.
	f, ok := finding.ParseJSON(r.bare, tags)
	f.Description = r.text
	return f, ok
}

// Severity is the row's severity, read without decoding the rest of it.
func (r FindingRow) Severity() (finding.Severity, error) {
	if raw, ok := r.Raw(nil); ok {
		var sev finding.Severity
		if err := json.Unmarshal(raw.Severity, &sev); err == nil {
			return sev, nil
		}
	}
	fw, err := r.DecodeMeta()
	return fw.Severity, err
}
