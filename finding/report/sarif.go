package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/url"
	"slices"
	"sort"
	"strings"

	"scand/finding"
	"scand/finding/excerpt"
)

// SARIF 2.1.0 output. Design choices, each for a consumer:
//   - One run per scanner that ran, in registry order, results in the
//     canonical finding order: GitHub code scanning and similar tools track
//     alerts per tool, and a run with zero results tells them the tool ran
//     and found nothing. Skipped scanners get no run, because an empty run
//     would close that tool's open alerts although nothing was checked.
//   - Locations are relative to the uriBaseId SRCROOT, whose
//     originalUriBaseIds entry carries only a description, not the absolute
//     target path: findings store paths relative to the target so two
//     checkouts of one tree give the same SARIF, and the server's directory
//     layout does not leak into uploaded files.
//   - partialFingerprints["scand/v1"] is the finding fingerprint, which
//     already survives line moves; consumers need not compute their own.
//   - Suppressions: a finding with metadata.suppressed_by is suppressed
//     "inSource" (an annotation in the code). A triage verdict of
//     false_positive, accepted_risk or wont_fix (the dashboard's
//     default-hidden set) is an "external" suppression with status
//     "accepted": the decision lives in scand, not in the code. "fixed" is
//     not a suppression: a finding triaged fixed that still shows up is
//     exactly what a reviewer must see. Every other result carries an empty
//     suppressions array, which SARIF defines as "not suppressed" (absent
//     would mean "unknown").

const (
	sarifSchemaURI      = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json"
	sarifVersion        = "2.1.0"
	sarifSrcRoot        = "SRCROOT"
	sarifFingerprintKey = "scand/v1"
	sarifCWEName        = "CWE"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	AutomationDetails  sarifAutomationDetails           `json:"automationDetails"`
	Invocations        []sarifInvocation                `json:"invocations"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds"`
	Taxonomies         []sarifToolComponent             `json:"taxonomies,omitempty"`
	// Properties holds "scand/vulndb": the offline advisory data this tool
	// read for the scan, with its build date and age. It precedes results
	// because the streaming writer appends the results last.
	Properties map[string]any `json:"properties,omitempty"`
	Results    []sarifResult  `json:"results"`
}

type sarifTool struct {
	Driver sarifToolComponent `json:"driver"`
}

type sarifToolComponent struct {
	Name                string                     `json:"name"`
	Version             string                     `json:"version,omitempty"`
	Organization        string                     `json:"organization,omitempty"`
	InformationURI      string                     `json:"informationUri,omitempty"`
	ShortDescription    *sarifText                 `json:"shortDescription,omitempty"`
	SupportedTaxonomies []sarifToolComponentRef    `json:"supportedTaxonomies,omitempty"`
	Rules               []sarifReportingDescriptor `json:"rules,omitempty"`
	Taxa                []sarifReportingDescriptor `json:"taxa,omitempty"`
}

type sarifToolComponentRef struct {
	Name  string `json:"name"`
	Index int    `json:"index"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifReportingDescriptor struct {
	ID                   string              `json:"id"`
	ShortDescription     *sarifText          `json:"shortDescription,omitempty"`
	FullDescription      *sarifText          `json:"fullDescription,omitempty"`
	Help                 *sarifText          `json:"help,omitempty"`
	HelpURI              string              `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifRuleConfig    `json:"defaultConfiguration,omitempty"`
	Relationships        []sarifRelationship `json:"relationships,omitempty"`
	Properties           *sarifRuleProps     `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

// sarifRuleProps: security-severity and tags are what GitHub code scanning
// reads to rank and filter alerts.
type sarifRuleProps struct {
	SecuritySeverity string   `json:"security-severity"`
	Tags             []string `json:"tags"`
}

type sarifRelationship struct {
	Target sarifDescriptorRef `json:"target"`
	Kinds  []string           `json:"kinds"`
}

type sarifDescriptorRef struct {
	ID            string                `json:"id"`
	Index         int                   `json:"index"`
	ToolComponent sarifToolComponentRef `json:"toolComponent"`
}

type sarifAutomationDetails struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

// sarifNotification is what a tool run says about its own execution: a
// part it could not scan, a scanner that failed or could not run.
type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifArtifactLocation struct {
	URI         string     `json:"uri,omitempty"`
	URIBaseID   string     `json:"uriBaseId,omitempty"`
	Description *sarifText `json:"description,omitempty"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Kind                string             `json:"kind,omitempty"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions"`
	BaselineState       string             `json:"baselineState,omitempty"`
	Properties          sarifResultProps   `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
	ContextRegion    *sarifRegion          `json:"contextRegion,omitempty"`
}

type sarifRegion struct {
	StartLine int        `json:"startLine"`
	EndLine   int        `json:"endLine,omitempty"`
	Snippet   *sarifText `json:"snippet,omitempty"`
}

// sarifRegions are a finding's region and, when an excerpt was kept, the
// region's snippet (the finding's line) and the contextRegion around it.
func sarifRegions(line int, ex *excerpt.Excerpt) (region, context *sarifRegion) {
	region = &sarifRegion{StartLine: line}
	text, ok := ex.Text(line)
	if !ok {
		return region, nil
	}
	region.Snippet = &sarifText{Text: text}
	return region, &sarifRegion{StartLine: ex.StartLine, EndLine: ex.StartLine + len(ex.Lines) - 1,
		Snippet: &sarifText{Text: strings.Join(ex.Lines, "\n")}}
}

type sarifLogicalLocation struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Justification string `json:"justification"`
}

type sarifResultProps struct {
	Severity       string   `json:"severity"`
	ScanType       string   `json:"scanType"`
	CWE            string   `json:"cwe,omitempty"`
	ComplianceTags []string `json:"complianceTags"`
	TriageStatus   string   `json:"triageStatus"`
	TriageNote     string   `json:"triageNote,omitempty"`
	FindingID      string   `json:"findingId"`
	FirstSeen      string   `json:"firstSeen,omitempty"`
	LastSeen       string   `json:"lastSeen,omitempty"`
}

// sarifLevel maps scand severities onto SARIF's three result levels.
func sarifLevel(sev finding.Severity) string {
	switch sev {
	case finding.Critical, finding.High:
		return "error"
	case finding.Medium:
		return "warning"
	}
	return "note"
}

// sarifSecuritySeverity places each severity inside GitHub's CVSS-like
// bands (critical >= 9.0, high 7.0-8.9, medium 4.0-6.9, low 0.1-3.9).
func sarifSecuritySeverity(sev finding.Severity) string {
	switch sev {
	case finding.Critical:
		return "9.5"
	case finding.High:
		return "8.0"
	case finding.Medium:
		return "5.5"
	case finding.Low:
		return "2.0"
	}
	return "0.0"
}

// sarifCWEID turns "CWE-798" into "798"; anything else is not a CWE id and
// yields "".
func sarifCWEID(c finding.CWE) string {
	s := strings.TrimSpace(string(c))
	if len(s) > 4 && strings.EqualFold(s[:4], "CWE-") {
		s = s[4:]
	}
	if s == "" {
		return ""
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return s
}

// sarifPlainPath reports whether p is already a URI reference that
// sarifURI would return unchanged: relative, only unreserved characters
// and slashes, no empty first segment.
func sarifPlainPath(p string) bool {
	if p == "" || p[0] == '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
			return false
		}
	}
	return true
}

// sarifURI makes a relative, slash-separated file path a URI reference:
// each segment is percent-encoded, and a first segment with a colon gets a
// "./" so it cannot read as a scheme.
func sarifURI(p string) string {
	if sarifPlainPath(p) {
		return p // nothing to escape: the common case, without allocating
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	out := strings.Join(segs, "/")
	if first, _, _ := strings.Cut(out, "/"); strings.Contains(first, ":") {
		out = "./" + out
	}
	return out
}

func sarifSuppressions(f finding.Finding, t *Triage) []sarifSuppression {
	out := []sarifSuppression{}
	if by := SuppressedBy(f.Metadata); by != "" {
		out = append(out, sarifSuppression{Kind: "inSource", Status: "accepted", Justification: "Suppressed in source by " + by})
	}
	if t != nil && HiddenVerdict(t.Status) {
		out = append(out, sarifSuppression{Kind: "external", Status: "accepted", Justification: sarifTriageJustification(t)})
	}
	return out
}

func sarifTriageJustification(st *Triage) string {
	j := "Triaged as " + st.Status
	if st.UpdatedBy != "" {
		j += " by " + st.UpdatedBy
	}
	if st.Note != "" {
		j += ": " + st.Note
	}
	return j
}

func sarifLocations(sc *Scan, f finding.Finding, ex *excerpt.Excerpt) []sarifLocation {
	if f.FilePath != "" {
		pl := &sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: sarifURI(f.FilePath), URIBaseID: sarifSrcRoot}}
		if f.Line > 0 {
			pl.Region, pl.ContextRegion = sarifRegions(f.Line, ex)
		}
		return []sarifLocation{{PhysicalLocation: pl}}
	}
	// DAST and network findings point at what was probed, not at a file.
	if u, ok := f.Metadata["url"].(string); ok && u != "" {
		return []sarifLocation{{PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: u}}}}
	}
	if f.ScanType == typeDAST && sc.TargetURL != "" {
		return []sarifLocation{{PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: sc.TargetURL}}}}
	}
	if f.ScanType == typeNetwork && sc.TargetHost != "" {
		return []sarifLocation{{LogicalLocations: []sarifLogicalLocation{{Name: sc.TargetHost, Kind: "resource"}}}}
	}
	return nil
}

// The two scan types whose findings point at a target instead of a file.
const (
	typeDAST    = "dast"
	typeNetwork = "network"
)

// Tool is one SARIF run: a scanner that ran, its rules and its findings.
type Tool struct {
	Name           string
	Version        string
	InformationURI string
	// Rules are the scanner's rules sorted by id, each with its first
	// finding in canonical order (RulesOf for findings held in memory).
	Rules []Rule
	// DataSources is the offline advisory data the tool read.
	DataSources []ScanDataSource
	// Results are the tool's findings in canonical order.
	Results iter.Seq2[Row, error]
}

// Rule is one rule of a scanner's findings: the first finding of the rule
// gives its descriptions, the most severe finding its level.
type Rule struct {
	RuleID string
	First  finding.Finding
	Worst  finding.Severity
	CWEs   []string
	Tags   []string
}

// WriteSARIF writes an indented SARIF 2.1.0 log, byte for byte what
// json.MarshalIndent of the whole log gives, while the results are read:
// one run per tool in the order given, each with its rule table, then its
// results. Rows with a Diff get a baselineState (new, unchanged, or absent
// for a fixed finding); a baselined finding outside a diff is unchanged.
func WriteSARIF(w io.Writer, sc Scan, tools []Tool) error {
	head, err := json.MarshalIndent(sarifLog{Schema: sarifSchemaURI, Version: sarifVersion, Runs: []sarifRun{}}, "", "  ")
	if err != nil {
		return err
	}
	emptyRuns := []byte(`"runs": []` + "\n}")
	if !bytes.HasSuffix(head, emptyRuns) {
		return errors.New("unexpected SARIF log encoding")
	}
	if _, err := w.Write(head[:len(head)-len(emptyRuns)]); err != nil {
		return err
	}
	io.WriteString(w, `"runs": [`)
	for i := range tools {
		if i > 0 {
			io.WriteString(w, ",")
		}
		io.WriteString(w, "\n    ")
		if err := sarifWriteRun(w, &sc, &tools[i]); err != nil {
			return err
		}
	}
	if run, ok := sarifCoverageRun(&sc, tools); ok {
		if len(tools) > 0 {
			io.WriteString(w, ",")
		}
		io.WriteString(w, "\n    ")
		b, err := json.MarshalIndent(run, "    ", "  ")
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		tools = append(tools, Tool{})
	}
	if len(tools) > 0 {
		io.WriteString(w, "\n  ")
	}
	_, err = io.WriteString(w, "]\n}\n")
	return err
}

// RulesOf summarizes findings held in memory the way the store summarizes
// them at ingest: rules sorted by id, each with its first finding in
// canonical order, its most severe severity, CWEs and tags.
func RulesOf(findings []finding.Finding) []Rule {
	byID := map[string]*Rule{}
	var ids []string
	for _, f := range findings {
		r := byID[f.RuleID]
		if r == nil {
			r = &Rule{RuleID: f.RuleID, First: f, Worst: f.Severity}
			byID[f.RuleID] = r
			ids = append(ids, f.RuleID)
		}
		if f.Severity.Rank() > r.Worst.Rank() {
			r.Worst = f.Severity
		}
		if f.CWE != "" && !slices.Contains(r.CWEs, string(f.CWE)) {
			r.CWEs = append(r.CWEs, string(f.CWE))
		}
		for _, t := range f.ComplianceTags {
			if !slices.Contains(r.Tags, t) {
				r.Tags = append(r.Tags, t)
			}
		}
	}
	sort.Strings(ids)
	out := make([]Rule, 0, len(ids))
	for _, id := range ids {
		out = append(out, *byID[id])
	}
	return out
}

// sarifRunHeader builds a run without results: tool, rules, taxonomies.
func sarifRunHeader(sc *Scan, t *Tool) (sarifRun, map[string]int, map[string]string) {
	run := sarifRun{
		Tool:              sarifTool{Driver: sarifToolComponent{Name: t.Name, Version: t.Version, InformationURI: t.InformationURI}},
		AutomationDetails: sarifAutomationDetails{ID: "scand/" + t.Name + "/" + sc.ID},
		Invocations:       []sarifInvocation{sarifToolInvocation(sc.Coverage, t.Name)},
		OriginalURIBaseIDs: map[string]sarifArtifactLocation{
			sarifSrcRoot: {Description: &sarifText{Text: "The scan's target_path; every file location is relative to it."}},
		},
		Properties: dataProperties(t.DataSources),
		Results:    []sarifResult{},
	}
	cwes := map[string]bool{}
	for _, r := range t.Rules {
		for _, c := range r.CWEs {
			if id := sarifCWEID(finding.CWE(c)); id != "" {
				cwes[id] = true
			}
		}
	}
	var taxa []string
	for id := range cwes {
		taxa = append(taxa, id)
	}
	sort.Slice(taxa, func(i, j int) bool { return sarifNumericLess(taxa[i], taxa[j]) })
	taxonIndex := map[string]int{}
	if len(taxa) > 0 {
		cwe := sarifToolComponent{
			Name: sarifCWEName, Organization: "MITRE", InformationURI: "https://cwe.mitre.org/",
			ShortDescription: &sarifText{Text: "The MITRE Common Weakness Enumeration"},
		}
		for i, id := range taxa {
			taxonIndex[id] = i
			cwe.Taxa = append(cwe.Taxa, sarifReportingDescriptor{
				ID: id, ShortDescription: &sarifText{Text: "CWE-" + id},
				HelpURI: "https://cwe.mitre.org/data/definitions/" + id + ".html",
			})
		}
		run.Taxonomies = []sarifToolComponent{cwe}
		run.Tool.Driver.SupportedTaxonomies = []sarifToolComponentRef{{Name: sarifCWEName, Index: 0}}
	}

	ruleIndex := map[string]int{}
	firstDescription := map[string]string{}
	for i, rs := range t.Rules {
		id := rs.RuleID
		ruleIndex[id] = i
		firstDescription[id] = rs.First.Description
		title := sarifNonEmpty(rs.First.Title, id)
		full := sarifNonEmpty(rs.First.Description, title)
		rd := sarifReportingDescriptor{
			ID:                   id,
			ShortDescription:     &sarifText{Text: title},
			FullDescription:      &sarifText{Text: full},
			DefaultConfiguration: &sarifRuleConfig{Level: sarifLevel(rs.Worst)},
			Properties:           &sarifRuleProps{SecuritySeverity: sarifSecuritySeverity(rs.Worst), Tags: []string{"security"}},
		}
		help := full
		idSet := map[string]bool{}
		for _, c := range rs.CWEs {
			if id := sarifCWEID(finding.CWE(c)); id != "" {
				idSet[id] = true
			}
		}
		var ids []string
		for c := range idSet {
			ids = append(ids, c)
		}
		sort.Slice(ids, func(i, j int) bool { return sarifNumericLess(ids[i], ids[j]) })
		for _, c := range ids {
			rd.Relationships = append(rd.Relationships, sarifRelationship{
				Target: sarifDescriptorRef{ID: c, Index: taxonIndex[c], ToolComponent: sarifToolComponentRef{Name: sarifCWEName, Index: 0}},
				Kinds:  []string{"superset"},
			})
			rd.Properties.Tags = append(rd.Properties.Tags, "external/cwe/cwe-"+c)
		}
		if len(ids) > 0 {
			help += "\n\nWeakness: CWE-" + strings.Join(ids, ", CWE-") + "."
		}
		tags := slices.Clone(rs.Tags)
		sort.Strings(tags)
		tags = slices.Compact(tags)
		if len(tags) > 0 {
			help += "\nCompliance: " + strings.Join(tags, ", ") + "."
		}
		rd.Properties.Tags = append(rd.Properties.Tags, tags...)
		rd.Help = &sarifText{Text: help}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rd)
	}
	return run, ruleIndex, firstDescription
}

// sarifBaselineState is a result's baselineState: SARIF's new, unchanged
// and absent (a finding the newer revision no longer has) in a diff; a
// finding the baseline file lists is unchanged; "" leaves it out.
func sarifBaselineState(r *Row) string {
	switch r.Diff {
	case DiffNew:
		if r.Baselined {
			return "unchanged"
		}
		return "new"
	case DiffUnchanged:
		return "unchanged"
	case DiffFixed:
		return "absent"
	}
	if r.Baselined {
		return "unchanged"
	}
	return ""
}

func sarifResultOf(sc *Scan, f finding.Finding, row *Row, ruleIndex map[string]int, firstDescription map[string]string) sarifResult {
	msg := sarifNonEmpty(f.Title, f.RuleID)
	if f.Description != "" && f.Description != firstDescription[f.RuleID] {
		msg += "\n" + f.Description
	}
	res := sarifResult{
		RuleID:              f.RuleID,
		RuleIndex:           ruleIndex[f.RuleID],
		Level:               sarifLevel(f.Severity),
		Message:             sarifText{Text: msg},
		Locations:           sarifLocations(sc, f, row.Excerpt),
		PartialFingerprints: map[string]string{sarifFingerprintKey: f.Fingerprint},
		Suppressions:        sarifSuppressions(f, row.Triage),
		BaselineState:       sarifBaselineState(row),
		Properties: sarifResultProps{
			Severity: string(f.Severity), ScanType: f.ScanType, CWE: string(f.CWE),
			ComplianceTags: sarifTags(f.ComplianceTags), TriageStatus: "new", FindingID: f.ID,
		},
	}
	if row.Triage != nil {
		res.Properties.TriageStatus, res.Properties.TriageNote = row.Triage.Status, row.Triage.Note
	}
	res.Properties.FirstSeen, res.Properties.LastSeen = row.Seen.sarif()
	if row.Diff == DiffFixed {
		// A fixed finding is a passed check, never an alert at a path the
		// head may have deleted (-sarif-fixed; otherwise not written).
		res.Kind, res.Level = "pass", "none"
	}
	return res
}

// sarifWriteRun writes one run at the indentation of a runs element: the
// run marshalled without results, then each result at its own depth,
// which together are the bytes MarshalIndent of the whole run gives. A
// result is copied through from the stored tokens when it can be
// (appendSARIFResultRaw), else decoded.
func sarifWriteRun(w io.Writer, sc *Scan, t *Tool) error {
	run, ruleIndex, firstDescription := sarifRunHeader(sc, t)
	firstRaw := map[string][]byte{}
	for id, d := range firstDescription {
		firstRaw[id] = jsonInner(finding.AppendJSONString(nil, d))
	}
	head, err := json.MarshalIndent(run, "    ", "  ")
	if err != nil {
		return err
	}
	emptyResults := []byte(`"results": []` + "\n    }")
	if !bytes.HasSuffix(head, emptyResults) {
		return errors.New("unexpected SARIF run encoding")
	}
	if _, err := w.Write(head[:len(head)-len(emptyResults)]); err != nil {
		return err
	}
	io.WriteString(w, `"results": [`)
	n := 0
	var b []byte
	var tags [][]byte
	if t.Results != nil {
		for row, err := range t.Results {
			if err != nil {
				return err
			}
			if !sarifWritten(sc, &row) {
				continue
			}
			b = b[:0]
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n        "...)
			raw, ok := row.Raw(tags)
			tags = raw.Tags
			if ok {
				b, ok = appendSARIFResultRaw(b, "        ", &raw, &row, ruleIndex, firstRaw)
			}
			if !ok {
				f, err := row.Finding()
				if err != nil {
					return err
				}
				res := sarifResultOf(sc, f, &row, ruleIndex, firstDescription)
				b = appendSARIFResult(b, &res, "        ")
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
			n++
		}
	}
	if n > 0 {
		io.WriteString(w, "\n      ")
	}
	_, err = io.WriteString(w, "]\n    }")
	return err
}

func sarifNonEmpty(s, fallback string) string {
	if strings.TrimSpace(s) == "" {
		return fallback
	}
	return s
}

// sarifNumericLess orders decimal CWE numbers by value.
func sarifNumericLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

func sarifTags(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
