// Package vex is scand's side of VEX (Vulnerability Exploitability
// eXchange): OpenVEX 0.2.0 and CycloneDX 1.5 VEX documents written from
// the verdicts reviewers set on dependency findings, and read back (a
// vendor's or another scand's) as statements that can be matched against
// findings by package URL and advisory id. It is pure: it imports only
// finding, does no I/O of its own beyond the io.Writer and bytes it is
// handed, and holds no state. vex/vexops applies it to the store.
package vex

import (
	"crypto/sha1"
	"fmt"
	"slices"
	"strings"
	"time"

	"scand/finding"
)

// Document formats.
const (
	FormatOpenVEX   = "openvex"
	FormatCycloneDX = "cyclonedx"
)

// Formats lists the formats, for validation.
var Formats = []string{FormatOpenVEX, FormatCycloneDX}

// OpenVEXContext is the @context of the documents scand writes.
const OpenVEXContext = "https://openvex.dev/ns/v0.2.0"

// Statuses of a statement (OpenVEX's; CycloneDX states map onto them).
const (
	NotAffected        = "not_affected"
	Affected           = "affected"
	Fixed              = "fixed"
	UnderInvestigation = "under_investigation"
)

// Statuses lists the statuses, for validation.
var Statuses = []string{NotAffected, Affected, Fixed, UnderInvestigation}

// Justifications are OpenVEX's reasons for not_affected; a false_positive
// verdict may carry one.
var Justifications = []string{
	"component_not_present",
	"vulnerable_code_not_present",
	"vulnerable_code_not_in_execute_path",
	"vulnerable_code_cannot_be_controlled_by_adversary",
	"inline_mitigations_already_exist",
}

// DefaultJustification is written for a false_positive verdict that
// carries none. A reviewer's false positive on a dependency almost
// always says "the package is there, but its vulnerable code is not
// reached from ours" (the issue's own example); the stronger claims
// (component or code not present) and the mitigation claims need a
// reviewer to make them explicitly.
const DefaultJustification = "vulnerable_code_not_in_execute_path"

// IsJustification reports whether j is one of Justifications.
func IsJustification(j string) bool { return slices.Contains(Justifications, j) }

// cdxJustification maps an OpenVEX justification onto CycloneDX 1.5's
// impactAnalysisJustification, and cdxToOpenVEX maps back. CycloneDX has
// no "component not present" (a BOM lists what is present), so it is
// written as code_not_present; OpenVEX's adversary and mitigation
// reasons each cover several CycloneDX ones.
var cdxJustification = map[string]string{
	"component_not_present":                             "code_not_present",
	"vulnerable_code_not_present":                       "code_not_present",
	"vulnerable_code_not_in_execute_path":               "code_not_reachable",
	"vulnerable_code_cannot_be_controlled_by_adversary": "requires_environment",
	"inline_mitigations_already_exist":                  "protected_by_mitigating_control",
}

var cdxToOpenVEX = map[string]string{
	"code_not_present":                "vulnerable_code_not_present",
	"code_not_reachable":              "vulnerable_code_not_in_execute_path",
	"requires_configuration":          "vulnerable_code_cannot_be_controlled_by_adversary",
	"requires_dependency":             "vulnerable_code_cannot_be_controlled_by_adversary",
	"requires_environment":            "vulnerable_code_cannot_be_controlled_by_adversary",
	"protected_by_compiler":           "inline_mitigations_already_exist",
	"protected_at_runtime":            "inline_mitigations_already_exist",
	"protected_at_perimeter":          "inline_mitigations_already_exist",
	"protected_by_mitigating_control": "inline_mitigations_already_exist",
}

// CycloneDXJustification is j in CycloneDX's vocabulary ("" for "").
func CycloneDXJustification(j string) string { return cdxJustification[j] }

// Statement is one VEX statement, the same whatever the format: one
// vulnerability (its name and aliases) and the products (package URLs)
// it is about.
type Statement struct {
	Vulnerability string
	Aliases       []string
	// Products are package URLs; a statement read from a document may
	// also hold other identifiers, which never match a finding.
	Products      []string
	Status        string
	Justification string
	// ImpactStatement says why a product is not affected; ActionStatement
	// what is done about an affected one; StatusNotes how the status was
	// determined.
	ImpactStatement string
	ActionStatement string
	StatusNotes     string
	Timestamp       time.Time
	// Verdict is the scand verdict the statement was written from
	// ("" when read from a document); ExpiresAt the acceptance's end.
	Verdict   string
	ExpiresAt *time.Time
}

// IDs returns the vulnerability name and its aliases.
func (s Statement) IDs() []string { return append([]string{s.Vulnerability}, s.Aliases...) }

// Verdict is the scand triage verdict on a finding, as far as VEX needs
// it.
type Verdict struct {
	Status, Note, Justification, UpdatedBy string
	UpdatedAt                              time.Time
	ExpiresAt                              *time.Time
}

// StatementOf is the statement of a dependency finding f with verdict v:
// false_positive is not_affected (with v's justification, else
// DefaultJustification; the note as impact statement), accepted_risk and
// wont_fix are affected with an action statement naming the decision and
// its expiry, fixed is fixed and triaged under_investigation. disappeared
// says a later scan of the target no longer reports f: whatever the
// verdict, it is then fixed. ok is false for a finding that is no advisory
// of a package, and for the verdict new.
func StatementOf(f finding.Finding, purl string, v Verdict, disappeared bool, at time.Time) (Statement, bool) {
	a, ok := finding.AdvisoryOf(f)
	if !ok {
		return Statement{}, false
	}
	name, _ := f.Metadata[finding.MetaAdvisoryID].(string)
	if name == "" || !slices.Contains(a.IDs, name) {
		name = finding.CanonicalAdvisoryID(a.IDs)
	}
	if purl == "" {
		purl = PURLOf(f)
	}
	st := Statement{Vulnerability: name, Products: []string{purl}, Verdict: v.Status, Timestamp: v.UpdatedAt.UTC()}
	for _, id := range a.IDs {
		if id != name {
			st.Aliases = append(st.Aliases, id)
		}
	}
	who := v.UpdatedBy
	if who == "" {
		who = "a reviewer"
	}
	switch {
	case disappeared:
		st.Status = Fixed
		st.Timestamp = at.UTC()
		st.StatusNotes = fmt.Sprintf("No longer reported by a later scan of the target (scand verdict before: %s).", v.Status)
	case v.Status == "false_positive":
		st.Status = NotAffected
		st.Justification = v.Justification
		if st.Justification == "" {
			st.Justification = DefaultJustification
		}
		st.ImpactStatement = strings.TrimSpace(v.Note)
		st.StatusNotes = "scand verdict false_positive by " + who
	case v.Status == "accepted_risk" || v.Status == "wont_fix":
		st.Status = Affected
		what := "Risk accepted"
		if v.Status == "wont_fix" {
			what = "Will not be fixed"
		}
		st.ActionStatement = what + " (scand verdict " + v.Status + " by " + who + ")"
		if n := strings.TrimSpace(v.Note); n != "" {
			st.ActionStatement += ": " + n
		}
		if v.ExpiresAt != nil {
			exp := v.ExpiresAt.UTC()
			st.ExpiresAt = &exp
			st.ActionStatement += "; the decision expires at " + exp.Format(time.RFC3339) + " and the finding is then open again"
		}
		st.ActionStatement += "."
	case v.Status == "fixed":
		st.Status = Fixed
		st.StatusNotes = "scand verdict fixed by " + who
	case v.Status == "triaged":
		st.Status = UnderInvestigation
		st.StatusNotes = "scand verdict triaged by " + who
	default:
		return Statement{}, false
	}
	return st, true
}

// DocumentID makes a stable urn:uuid (version 5) from parts, so the same
// export at the same time gets the same id and different ones do not.
func DocumentID(parts ...string) string {
	h := sha1.New()
	// RFC 4122 URL namespace, as scan/sbom's serial numbers.
	h.Write([]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8})
	h.Write([]byte("scand:vex"))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
