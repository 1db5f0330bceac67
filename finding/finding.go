// Package finding is the pure core of scand's results: the normalized
// Finding shape, severities, fingerprints, deduplication, canonical order,
// compliance tags and the risk score. It imports nothing of scand's and does
// no I/O, so every rule about what a finding is lives in one auditable place.
package finding

import (
	"bytes"
	"encoding/json"
)

// Severity is one of the five SPEC.md severities.
type Severity string

const (
	Critical Severity = "critical"
	High     Severity = "high"
	Medium   Severity = "medium"
	Low      Severity = "low"
	Info     Severity = "info"
)

// Severities lists every severity from most to least severe.
var Severities = []Severity{Critical, High, Medium, Low, Info}

// Rank orders severities so that a higher rank is more severe; an unknown
// value ranks below info so it can never hide a real finding.
func (s Severity) Rank() int {
	switch s {
	case Critical:
		return 5
	case High:
		return 4
	case Medium:
		return 3
	case Low:
		return 2
	case Info:
		return 1
	}
	return 0
}

// Valid reports whether s is one of the five severities.
func (s Severity) Valid() bool { return s.Rank() > 0 }

// CWE is a weakness id such as "CWE-798". The empty value means "none" and
// is serialized as JSON null, because SPEC.md consumers expect null rather
// than an empty string for an absent CWE.
type CWE string

func (c CWE) MarshalJSON() ([]byte, error) {
	if c == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(c))
}

func (c *CWE) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*c = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*c = CWE(s)
	return nil
}

// Finding is the normalized shape every scanner produces (SPEC.md Finding,
// plus cwe). Scanners fill Scanner, ScanType, Severity, Title, Description,
// FilePath (relative to the target, slash-separated), Line, RuleID, CWE,
// Snippet and any Metadata; the orchestrator fills ID, ScanID, Fingerprint
// and ComplianceTags.
type Finding struct {
	ID             string         `json:"id"`
	ScanID         string         `json:"scan_id"`
	Scanner        string         `json:"scanner"`
	ScanType       string         `json:"scan_type"`
	Severity       Severity       `json:"severity"`
	Title          string         `json:"title"`
	Description    string         `json:"description"`
	FilePath       string         `json:"file_path"`
	Line           int            `json:"line"`
	RuleID         string         `json:"rule_id"`
	CWE            CWE            `json:"cwe"`
	Fingerprint    string         `json:"fingerprint"`
	ComplianceTags []string       `json:"compliance_tags"`
	Metadata       map[string]any `json:"metadata"`

	// Snippet is the raw source line(s) the finding points at. It is never
	// serialized (it may hold a secret); the fingerprint uses its normalized
	// form. When a scanner leaves it empty the orchestrator reads the line
	// from the target.
	Snippet string `json:"-"`
}
