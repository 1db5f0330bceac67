package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"scand/finding"
)

// The report is one embedded template with inline CSS and inline SVG: no
// script, no font, no image, no link to anything, so it renders the same on
// an air-gapped machine, in a mail attachment and in headless Chromium.
//
//go:embed assets/report.html
var reportTemplateText string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"deref": func(f *float64) float64 { return *f },
}).Parse(reportTemplateText))

// CSP tells a browser the report page loads nothing, which also makes any
// future slip (an external font, a tracking pixel) fail loudly in testing.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// reportSeverityLabels are the group headings, most severe first.
var reportSeverityLabels = map[finding.Severity]string{
	finding.Critical: "Critical", finding.High: "High", finding.Medium: "Medium", finding.Low: "Low", finding.Info: "Info",
}

// reportSeverityColors are the chart and badge colours; each keeps 4.5:1
// contrast with white text.
var reportSeverityColors = map[finding.Severity]string{
	finding.Critical: "#991b1b", finding.High: "#c2410c", finding.Medium: "#a16207", finding.Low: "#1d4ed8", finding.Info: "#4b5563",
}

// reportTriageLabels are how the triage statuses read in the report.
var reportTriageLabels = map[string]string{
	"new": "New", "triaged": "Triaged", "false_positive": "False positive",
	"accepted_risk": "Accepted risk", "fixed": "Fixed", "wont_fix": "Won't fix",
}

type reportView struct {
	Title       string
	ScanID      string
	Target      string
	TargetURL   string
	TargetHost  string
	ScanTypes   string
	Started     string
	Completed   string
	Duration    string
	RiskScore   int
	Total       int
	Suppressed  int
	Hidden      int
	Chart       reportChart
	Counts      []reportCount
	HasGroups   bool
	ScannersRun string
	Skipped     []Skipped
	// DataSources is the offline advisory data the scan used, and
	// DataWarnings the stale ones' warnings.
	DataSources      []ScanDataSource
	DataWarnings     []string
	CoverageWarnings []string
	// Partial says why the result is partial (the scan's coverage).
	Partial     []string
	Compliance  []reportTagCount
	GeneratedAt string
	Version     string
}

type reportCount struct {
	Severity string
	Label    string
	Color    string
	Count    int
}

type reportChart struct {
	Width, Height int
	Bars          []reportBar
}

type reportBar struct {
	Label                      string
	Color                      string
	Count                      int
	Y, TextY, BarX, BarW, NumX int
}

// reportGroup opens one severity's section.
type reportGroup struct {
	Severity string
	Label    string
	Color    string
	Count    int
}

type reportFinding struct {
	Color        string
	N            int
	Title        string
	Description  string
	Scanner      string
	ScanType     string
	RuleID       string
	CWE          string
	Seen         string
	Location     string
	Fingerprint  string
	Tags         []string
	Triage       string
	TriageNote   string
	TriageBy     string
	TriageAt     string
	Hidden       bool
	SuppressedBy string
}

type reportTagCount struct {
	Tag   string
	Count int
}

const reportTimeLayout = "2006-01-02 15:04:05 UTC"

// Tally is what the report's header says about the findings. A stored
// scan's report takes it from the scan's facet counts, so the page is
// written while the findings are read, never held.
type Tally struct {
	total, suppressed, hidden int
	bySeverity                map[finding.Severity]int
	// extra lists severities outside the five, in order of appearance.
	extra []finding.Severity
	tags  map[string]int
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{bySeverity: map[finding.Severity]int{}, tags: map[string]int{}}
}

// Add counts n findings of one severity, suppression, verdict and tags.
func (t *Tally) Add(sev finding.Severity, suppressed, hidden bool, tags []string, n int) {
	t.total += n
	if suppressed {
		t.suppressed += n
	}
	if hidden {
		t.hidden += n
	}
	t.Severity(sev)
	t.bySeverity[sev] += n
	for _, tag := range tags {
		t.tags[tag] += n
	}
}

// Severity makes a severity outside the five known in the order it
// appears, so the groups follow the canonical order.
func (t *Tally) Severity(sev finding.Severity) {
	if !sev.Valid() && !slices.Contains(t.extra, sev) {
		t.extra = append(t.extra, sev)
	}
}

// severities lists the report's groups in order: the five, then others.
func (t *Tally) severities() []finding.Severity {
	return append(slices.Clone(finding.Severities), t.extra...)
}

// reportHeader fills everything of the view that is not a finding.
func reportHeader(sc *Scan, t *Tally, generatedAt time.Time) reportView {
	v := reportView{
		DataSources:      sc.DataSources,
		DataWarnings:     DataWarnings(sc.DataSources),
		CoverageWarnings: sc.CoverageWarnings,
		Partial:          sc.Coverage.PartialReasons(),
		Title:            "Security scan report: " + sc.TargetPath,
		ScanID:           sc.ID,
		Target:           sc.TargetPath,
		ScanTypes:        strings.Join(sc.ScanTypes, ", "),
		Started:          sc.StartedAt.UTC().Format(reportTimeLayout),
		Completed:        "not completed",
		Duration:         "unknown",
		RiskScore:        sc.RiskScore,
		Total:            t.total,
		Suppressed:       t.suppressed,
		Hidden:           t.hidden,
		HasGroups:        t.total > 0,
		ScannersRun:      strings.Join(sc.ScannersRun, ", "),
		Skipped:          sc.Skipped,
		GeneratedAt:      generatedAt.UTC().Format(reportTimeLayout),
		Version:          sc.Version,
	}
	v.TargetURL, v.TargetHost = sc.TargetURL, sc.TargetHost
	if sc.CompletedAt != nil {
		v.Completed = sc.CompletedAt.UTC().Format(reportTimeLayout)
		v.Duration = reportDuration(sc.CompletedAt.Sub(sc.StartedAt))
	}
	for _, sev := range t.severities() {
		label, color := reportSeverityLabels[sev], reportSeverityColors[sev]
		if label == "" {
			// A severity outside the five still gets shown, after the rest,
			// rather than dropped from a security report.
			label, color = string(sev), reportSeverityColors[finding.Info]
		}
		v.Counts = append(v.Counts, reportCount{Severity: string(sev), Label: label, Color: color, Count: t.bySeverity[sev]})
	}
	v.Chart = reportBuildChart(v.Counts)
	for tag, n := range t.tags {
		v.Compliance = append(v.Compliance, reportTagCount{Tag: tag, Count: n})
	}
	sort.Slice(v.Compliance, func(i, j int) bool { return v.Compliance[i].Tag < v.Compliance[j].Tag })
	return v
}

// WriteHTML writes the report page: the header, then for each severity
// group in order the findings that group yields (in canonical order).
// Bidi controls in the data are shown as "[U+202E]", as the console does.
func WriteHTML(w io.Writer, sc Scan, t *Tally, generatedAt time.Time, group func(sev finding.Severity) iter.Seq2[Row, error]) error {
	bw := &finding.BidiWriter{W: w}
	if err := writeHTML(bw, sc, t, generatedAt, group); err != nil {
		return err
	}
	return bw.Flush()
}

func writeHTML(w io.Writer, sc Scan, t *Tally, generatedAt time.Time, group func(sev finding.Severity) iter.Seq2[Row, error]) error {
	v := reportHeader(&sc, t, generatedAt)
	if err := reportTemplate.ExecuteTemplate(w, "head", v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	n := 0
	var buf []byte
	var tags [][]byte
	for _, c := range v.Counts {
		if c.Count == 0 {
			continue
		}
		if err := reportTemplate.ExecuteTemplate(w, "group-start", reportGroup{Severity: c.Severity, Label: c.Label, Color: c.Color, Count: c.Count}); err != nil {
			return fmt.Errorf("render report: %w", err)
		}
		for row, err := range group(finding.Severity(c.Severity)) {
			if err != nil {
				return err
			}
			n++
			raw, ok := row.Raw(tags)
			if ok {
				tags = raw.Tags
				buf, ok = appendReportFindingRaw(buf[:0], &raw, row.Triage, row.Seen, n, c.Color)
			}
			if !ok {
				f, err := row.Finding()
				if err != nil {
					return err
				}
				rf := reportFindingView(&sc, f, row.Triage, row.Seen, n, c.Color)
				buf = appendReportFinding(buf[:0], &rf)
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		if err := reportTemplate.ExecuteTemplate(w, "group-end", nil); err != nil {
			return fmt.Errorf("render report: %w", err)
		}
	}
	if err := reportTemplate.ExecuteTemplate(w, "foot", v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}

func reportFindingView(sc *Scan, f finding.Finding, state *Triage, seen *Seen, n int, color string) reportFinding {
	rf := reportFinding{
		Color: color, N: n, Title: f.Title, Description: f.Description, Scanner: f.Scanner, ScanType: f.ScanType,
		RuleID: f.RuleID, CWE: string(f.CWE), Seen: seen.reportText(), Location: reportLocation(sc, f), Fingerprint: f.Fingerprint,
		Tags: f.ComplianceTags, Triage: reportTriageLabels["new"], SuppressedBy: SuppressedBy(f.Metadata),
	}
	if state != nil {
		rf.Triage = reportTriageLabels[state.Status]
		if rf.Triage == "" {
			rf.Triage = state.Status
		}
		rf.TriageNote, rf.TriageBy = state.Note, state.UpdatedBy
		rf.TriageAt = state.UpdatedAt.UTC().Format(reportTimeLayout)
		rf.Hidden = HiddenVerdict(state.Status)
	}
	return rf
}

// RenderHTML renders the report of findings held in memory; the page is
// the one WriteHTML streams. Everything in it comes from the scan, the
// findings and generatedAt, so with SVC_FAKE_NOW pinning generatedAt two
// renders are byte-identical.
func RenderHTML(sc Scan, findings []Decoded, generatedAt time.Time) ([]byte, error) {
	t := NewTally()
	for _, f := range findings {
		t.Add(f.F.Severity, SuppressedBy(f.F.Metadata) != "", f.State != nil && HiddenVerdict(f.State.Status), f.F.ComplianceTags, 1)
	}
	var buf strings.Builder
	err := WriteHTML(&buf, sc, t, generatedAt, func(sev finding.Severity) iter.Seq2[Row, error] {
		return func(yield func(Row, error) bool) {
			for i := range findings {
				if findings[i].F.Severity == sev && !yield(Row{Stored: &findings[i], Triage: findings[i].State}, nil) {
					return
				}
			}
		}
	})
	return []byte(buf.String()), err
}

// reportBuildChart lays out one horizontal bar per severity in SVG user
// units; the longest bar spans the plot width and the others scale to it.
func reportBuildChart(counts []reportCount) reportChart {
	const labelW, plotW, numW, rowH, barH = 64, 200, 40, 26, 18
	ch := reportChart{Width: labelW + plotW + numW, Height: rowH*len(counts) + 4}
	max := 0
	for _, c := range counts {
		if c.Count > max {
			max = c.Count
		}
	}
	for i, c := range counts {
		w := 0
		if max > 0 {
			w = (c.Count*plotW + max/2) / max
		}
		if c.Count > 0 && w < 2 {
			w = 2 // a non-zero count never disappears
		}
		y := i*rowH + 4
		ch.Bars = append(ch.Bars, reportBar{Label: c.Label, Color: c.Color, Count: c.Count,
			Y: y, TextY: y + barH - 5, BarX: labelW, BarW: w, NumX: labelW + w + 6})
	}
	return ch
}

func reportDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "unknown"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

func reportLocation(sc *Scan, f finding.Finding) string {
	switch {
	case f.FilePath != "" && f.Line > 0:
		return f.FilePath + ":" + strconv.Itoa(f.Line)
	case f.FilePath != "":
		return f.FilePath
	case f.ScanType == typeDAST && sc.TargetURL != "":
		return sc.TargetURL
	case f.ScanType == typeNetwork && sc.TargetHost != "":
		return sc.TargetHost
	}
	return sc.TargetPath
}
