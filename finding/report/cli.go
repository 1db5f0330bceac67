package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"scand/finding"
	"scand/finding/excerpt"
)

// The command line's formats: JSON for programs, markdown for a pull
// request comment, text for a terminal. All three read the rows twice at
// most (Summarize, then the listing) and hold no more than the text
// listing's one line per finding.

// SkippedIdle is the reason of a scanner a command-line scan did not run
// because the tree holds no file it reads.
const SkippedIdle = "nothing to scan"

// splitSkipped separates the idle scanners (names only) from the others.
func splitSkipped(all []Skipped) (idle []string, others []Skipped) {
	for _, s := range all {
		if s.Reason == SkippedIdle {
			idle = append(idle, s.Name)
		} else {
			others = append(others, s)
		}
	}
	return idle, others
}

// Run is what the command line's formats say about one scan or diff.
type Run struct {
	Scan
	// Base and Head name the revisions of a diff; "" for a scan.
	Base, Head string
	Summary    Summary
	// Warnings are why the result may be incomplete.
	Warnings []string
	// BaseCoverage is what a diff's base scan examined (Coverage is the
	// head's); Problems are the coverage failures that fail the run (exit
	// 3); NotCompared are the scanners whose findings a diff could not
	// compare (scancoverage.go).
	BaseCoverage *finding.ScanCoverage
	Problems     []string
	NotCompared  []NotCompared
	// Show hides findings below this severity from the text and markdown
	// listings (their counts stay); "" shows every finding. JSON and SARIF
	// list everything, and the gate never looks at it.
	Show finding.Severity
	// LinkBase makes the markdown report's file links absolute: the URL
	// of the scanned tree's root at the scanned commit, ending in "/"
	// ("https://github.com/o/r/blob/<commit>/"); "" keeps them relative.
	LinkBase string
}

// shown reports whether the text and markdown listings show f (Run.Show).
func (r *Run) shown(f *finding.Finding) bool {
	return r.Show == "" || f.Severity.Rank() >= r.Show.Rank()
}

// hiddenNote says how many findings Run.Show left out of a listing.
func (r *Run) hiddenNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s below %s not listed (--show %s; the counts above include them)", plural(n, "finding"), r.Show, r.Show)
}

// FixedVersion is the version that fixes a vulnerable dependency, when a
// scanner knows one.
func FixedVersion(f *finding.Finding) string {
	v, _ := f.Metadata[finding.MetaFixedVersion].(string)
	return strings.TrimSpace(v)
}

// diffRank puts a diff's new findings first and its fixed ones last.
func diffRank(status string) int {
	switch status {
	case DiffNew:
		return 0
	case DiffUnchanged, "":
		return 1
	case DiffFixed:
		return 3
	}
	return 2
}

func (r *Run) mode() string {
	if r.Base != "" {
		return "diff"
	}
	return "scan"
}

type jsonSummary struct {
	Findings       int            `json:"findings"`
	Gating         int            `json:"gating"`
	SeverityCounts map[string]int `json:"severity_counts"`
	Suppressed     int            `json:"suppressed"`
	Baselined      int            `json:"baselined"`
	Hidden         int            `json:"hidden_by_verdict"`
	New            *int           `json:"new,omitempty"`
	Unchanged      *int           `json:"unchanged,omitempty"`
	Fixed          *int           `json:"fixed,omitempty"`
	NotCompared    *int           `json:"not_compared,omitempty"`
}

type jsonHead struct {
	coverageHead
	Version         string      `json:"scand"`
	Mode            string      `json:"mode"`
	Target          string      `json:"target"`
	Base            string      `json:"base,omitempty"`
	Head            string      `json:"head,omitempty"`
	ScanTypes       []string    `json:"scan_types"`
	FailOn          string      `json:"fail_on"`
	ScannersRun     []string    `json:"scanners_run"`
	ScannersSkipped []Skipped   `json:"scanners_skipped"`
	Warnings        []string    `json:"warnings"`
	Summary         jsonSummary `json:"summary"`
	Findings        []struct{}  `json:"findings"`
}

func severityMap(c finding.SeverityCount) map[string]int {
	return map[string]int{"critical": c.Critical, "high": c.High, "medium": c.Medium, "low": c.Low, "info": c.Info}
}

// WriteJSON writes the run as one JSON object: what was scanned, the
// summary, then every finding in the API's shape (with its "state") plus
// diff_status, baselined, suppressed_by, triage and gating.
func WriteJSON(w io.Writer, run Run, g Gate, rows iter.Seq2[Row, error]) error {
	s := run.Summary
	head := jsonHead{Version: run.Version, Mode: run.mode(), Target: run.TargetPath, Base: run.Base, Head: run.Head,
		ScanTypes: run.ScanTypes, FailOn: s.FailOn, ScannersRun: run.ScannersRun, ScannersSkipped: run.Skipped, Warnings: run.Warnings,
		Summary: jsonSummary{Findings: s.Findings, Gating: s.Gating, SeverityCounts: severityMap(s.Live), Suppressed: s.Suppressed,
			Baselined: s.Baselined, Hidden: s.Hidden}, Findings: []struct{}{}}
	if run.Base != "" {
		head.Summary.New, head.Summary.Unchanged, head.Summary.Fixed = &s.New, &s.Unchanged, &s.Fixed
		head.Summary.NotCompared = &s.NotCompared
		head.NotCompared = run.NotCompared
		if head.NotCompared == nil {
			head.NotCompared = []NotCompared{}
		}
	}
	head.Verdict, head.PartialReasons = verdictOf(&run)
	head.Partial = len(head.PartialReasons) > 0
	if head.PartialReasons == nil {
		head.PartialReasons = []string{}
	}
	head.Coverage, head.BaseCoverage = run.Coverage, run.BaseCoverage
	if head.Warnings == nil {
		head.Warnings = []string{}
	}
	if head.ScannersRun == nil {
		head.ScannersRun = []string{}
	}
	if head.ScannersSkipped == nil {
		head.ScannersSkipped = []Skipped{}
	}
	b, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return err
	}
	empty := []byte(`"findings": []` + "\n}")
	if !bytes.HasSuffix(b, empty) {
		return fmt.Errorf("unexpected JSON layout")
	}
	if _, err := w.Write(b[:len(b)-len(empty)]); err != nil {
		return err
	}
	io.WriteString(w, `"findings": [`)
	n := 0
	var buf []byte
	for r, err := range rows {
		if err != nil {
			return err
		}
		f, err := r.Finding()
		if err != nil {
			return err
		}
		buf = buf[:0]
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, "\n    "...)
		at := len(buf)
		if buf, err = r.AppendJSON(buf); err != nil {
			return err
		}
		if len(buf) <= at || buf[len(buf)-1] != '}' {
			return fmt.Errorf("finding %s: not a JSON object", f.ID)
		}
		buf = buf[:len(buf)-1]
		buf = append(buf, `,"diff_status":`...)
		if r.Diff == "" {
			buf = append(buf, "null"...)
		} else {
			buf = finding.AppendJSONString(buf, r.Diff)
		}
		buf = append(buf, `,"baselined":`...)
		buf = strconv.AppendBool(buf, r.Baselined)
		buf = append(buf, `,"suppressed_by":`...)
		if by := SuppressedBy(f.Metadata); by != "" {
			buf = finding.AppendJSONString(buf, by)
		} else {
			buf = append(buf, "null"...)
		}
		buf = append(buf, `,"triage":`...)
		buf = finding.AppendJSONString(buf, triageStatus(&r))
		buf = append(buf, `,"gating":`...)
		buf = strconv.AppendBool(buf, g.Gates(&f, &r))
		buf = append(buf, '}')
		if _, err := w.Write(buf); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		io.WriteString(w, "\n  ")
	}
	_, err = io.WriteString(w, "]\n}\n")
	return err
}

func triageStatus(r *Row) string {
	if r.Triage == nil {
		return "new"
	}
	return r.Triage.Status
}

// MarkdownMarker starts every markdown report, so a pipeline can find its
// earlier comment on a pull request and update it in place.
const MarkdownMarker = "<!-- scand:report -->"

// MarkdownMaxRows caps the findings table of a markdown report: a comment
// is for people, and the full list is in the other formats.
const MarkdownMaxRows = 50

// WriteMarkdown writes a pull-request comment: the marker line, the
// verdict, counts by severity, then a table of the live findings (in a
// diff: the new ones) with file:line links relative to the repository
// root, capped at MarkdownMaxRows with "and N more".
func WriteMarkdown(w io.Writer, run Run, g Gate, rows iter.Seq2[Row, error]) error {
	s := run.Summary
	var b strings.Builder
	b.WriteString(MarkdownMarker + "\n")
	verdict, partial := verdictOf(&run)
	if len(partial) > 0 && verdict == "passed" {
		verdict = "passed, partial"
	}
	what := plural(s.Findings, "finding")
	if run.Base != "" {
		what = plural(s.New, "new finding") + ", " + strconv.Itoa(s.Fixed) + " fixed, " + strconv.Itoa(s.Unchanged) + " unchanged"
		if s.NotCompared > 0 {
			what += ", " + strconv.Itoa(s.NotCompared) + " not compared"
		}
	}
	fmt.Fprintf(&b, "### scand %s: %s, %d gating (fail on %s)\n\n", verdict, what, s.Gating, s.FailOn)
	if len(partial) > 0 {
		fmt.Fprintf(&b, "**Partial result:** %s\n\n", mdText(strings.Join(partial, "; ")))
	}
	if run.Base != "" {
		fmt.Fprintf(&b, "Changes from `%s` to `%s`.\n\n", mdCode(run.Base), mdCode(run.Head))
	}
	b.WriteString("| Critical | High | Medium | Low | Info |\n|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d |\n\n", s.Live.Critical, s.Live.High, s.Live.Medium, s.Live.Low, s.Live.Info)
	if s.Suppressed+s.Baselined+s.Hidden > 0 {
		fmt.Fprintf(&b, "Not counted: %d suppressed, %d in the baseline, %d with a verdict (false positive, accepted risk, won't fix).\n\n",
			s.Suppressed, s.Baselined, s.Hidden)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()
	listed, more, hidden := 0, 0, 0
	var code strings.Builder // excerpts of the new findings listed
	excerpts := 0
	for r, err := range rows {
		if err != nil {
			return err
		}
		f, err := r.Finding()
		if err != nil {
			return err
		}
		if !Live(&f, &r) || (r.Diff != "" && r.Diff != DiffNew) {
			continue
		}
		if !run.shown(&f) {
			hidden++
			continue
		}
		if listed == MarkdownMaxRows {
			more++
			continue
		}
		if listed == 0 {
			b.WriteString("| Severity | Finding | Location | Rule |\n|---|---|---|---|\n")
		}
		listed++
		gate := ""
		if g.Gates(&f, &r) {
			gate = " **(gating)**"
		}
		title := mdText(f.Title)
		if fix := FixedVersion(&f); fix != "" {
			title += " (fixed in `" + mdCode(fix) + "`)"
		}
		fmt.Fprintf(&b, "| %s%s | %s | %s | `%s` |\n", f.Severity, gate, title, mdLocation(&f, run.LinkBase), mdCode(f.RuleID))
		if r.Diff == DiffNew && r.Excerpt != nil && excerpts < MarkdownMaxExcerpts {
			excerpts++
			fmt.Fprintf(&code, "\n%s %s\n\n", mdLocation(&f, run.LinkBase), title)
			code.WriteString(mdExcerpt(r.Excerpt, f.Line))
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n…and %d more.\n", more)
	}
	if excerpts > 0 {
		b.WriteString("\n<details><summary>Code of the new findings</summary>\n")
		b.WriteString(code.String())
		b.WriteString("\n</details>\n")
	}
	if listed == 0 && hidden == 0 {
		b.WriteString("No live finding.\n")
	}
	if note := run.hiddenNote(hidden); note != "" {
		fmt.Fprintf(&b, "\n%s.\n", mdText(note))
	}
	idle, skipped := splitSkipped(run.Skipped)
	if len(idle) > 0 {
		fmt.Fprintf(&b, "\nNot needed here (no file they read): %s.\n", mdText(strings.Join(idle, ", ")))
	}
	if len(skipped) > 0 {
		b.WriteString("\n<details><summary>Scanners not run</summary>\n\n")
		for _, sk := range skipped {
			fmt.Fprintf(&b, "- %s: %s", mdText(sk.Name), mdText(sk.Reason))
			if sk.InstallHint != "" {
				fmt.Fprintf(&b, " (%s)", mdText(sk.InstallHint))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n</details>\n")
	}
	if lines := coverageLines(&run); len(lines) > 0 {
		b.WriteString("\n<details><summary>Coverage</summary>\n\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", mdText(l))
		}
		b.WriteString("\n</details>\n")
	}
	for _, warn := range run.Warnings {
		fmt.Fprintf(&b, "\n> **Warning:** %s\n", mdText(warn))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MarkdownMaxExcerpts caps the code excerpts a markdown report shows.
const MarkdownMaxExcerpts = 10

// mdExcerpt is an excerpt as a fenced code block, each line numbered and
// the finding's marked with ">". The stored lines are already capped,
// redacted and bidi-defused; the fence is longer than any run of
// backticks or tildes in them, so no line can close it early, and
// nothing inside a fence is read as markdown or HTML.
func mdExcerpt(ex *excerpt.Excerpt, line int) string {
	fence := 3
	for _, l := range ex.Lines {
		run := 0
		for _, r := range l {
			if r == '~' {
				run++
				fence = max(fence, run+1)
			} else {
				run = 0
			}
		}
	}
	var b strings.Builder
	b.WriteString(strings.Repeat("~", fence) + "\n")
	width := len(strconv.Itoa(ex.StartLine + len(ex.Lines) - 1))
	for i, l := range ex.Lines {
		n := ex.StartLine + i
		mark := " "
		if n == line {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s %*d | %s\n", mark, width, n, Printable(l, 300))
	}
	b.WriteString(strings.Repeat("~", fence) + "\n")
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// mdText makes scanned-tree text inert in a markdown table cell: HTML and
// markdown syntax are escaped, line breaks and controls dropped, length
// capped. GitHub and GitLab render HTML in comments, so "<" must never
// reach them raw.
func mdText(s string) string {
	s = Printable(s, 300)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '|', '\\', '`', '*', '_', '[', ']', '#', '~', '!', '(', ')':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode is text for a `code span`: backticks cannot end it early.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", "\\|").Replace(Printable(s, 200))
}

// mdLocation is a finding's file:line as a link (the #L anchor GitHub,
// GitLab and Gitea share): under base when it is set, else relative to the
// repository root; its target when it has no file.
func mdLocation(f *finding.Finding, base string) string {
	if f.FilePath == "" {
		return "—"
	}
	label := f.FilePath
	anchor := ""
	if f.Line > 0 {
		label += ":" + strconv.Itoa(f.Line)
		anchor = "#L" + strconv.Itoa(f.Line)
	}
	if strings.Contains(f.FilePath, ":") {
		return mdText(label) // an image layer path is no file of the repository
	}
	segs := strings.Split(f.FilePath, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "[" + mdText(label) + "](" + mdLinkBase(base) + strings.Join(segs, "/") + anchor + ")"
}

// mdLinkBase is base when it can sit in a markdown link destination as
// it is (an http(s) URL without spaces, parentheses or angle brackets,
// ending in "/"), else "": a relative link is better than a broken one.
func mdLinkBase(base string) string {
	if base == "" || strings.ContainsAny(base, " \t\r\n()<>\"'`\\") || !strings.HasSuffix(base, "/") {
		return ""
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return ""
	}
	return base
}

// Printable makes text from a scanned tree safe to print: control
// characters (terminal escapes), Unicode bidirectional overrides and
// invalid UTF-8 become visible escapes, and it is cut at max runes.
func Printable(s string, max int) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || isBidi(r) {
			clean = false
			break
		}
	}
	if clean && utf8.RuneCountInString(s) <= max {
		return s
	}
	var b strings.Builder
	n := 0
	for i, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == utf8.RuneError && len(s[i:]) > 0:
			b.WriteString("\uFFFD")
		case r == '\n' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || isBidi(r):
			fmt.Fprintf(&b, "[U+%04X]", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isBidi(r rune) bool { return finding.IsBidiControl(r) }

// textColor is the ANSI colour of a severity in a terminal.
func textColor(sev finding.Severity) string {
	switch sev {
	case finding.Critical:
		return "\x1b[1;31m"
	case finding.High:
		return "\x1b[31m"
	case finding.Medium:
		return "\x1b[33m"
	case finding.Low:
		return "\x1b[34m"
	case finding.Info:
		return "\x1b[2m"
	}
	return ""
}

type textLine struct {
	diff     int    // diffRank
	status   string // the diff status, which names its section
	file     string
	line     int
	sev      finding.Severity
	rule     string
	title    string
	tags     string
	ord      int
	location string
}

// WriteText writes a terminal summary: the verdict and counts by
// severity, the scanners that did not run, then the findings grouped by
// file (line, severity, rule, title, and why a finding does not count).
// color adds ANSI colours; the caller decides (a terminal, no NO_COLOR).
func WriteText(w io.Writer, run Run, g Gate, rows iter.Seq2[Row, error], color bool) error {
	paint := func(sev finding.Severity, s string) string {
		if !color {
			return s
		}
		c := textColor(sev)
		if c == "" {
			return s
		}
		return c + s + "\x1b[0m"
	}
	var lines []textLine
	ord, hidden := 0, 0
	for r, err := range rows {
		if err != nil {
			return err
		}
		f, err := r.Finding()
		if err != nil {
			return err
		}
		if !run.shown(&f) {
			hidden++
			continue
		}
		var tags []string
		switch {
		case r.Diff == DiffFixed:
			tags = append(tags, "fixed")
		case r.Diff == DiffNew:
			tags = append(tags, "new")
		case r.Diff == DiffNotCompared:
			tags = append(tags, "not compared")
		}
		if by := SuppressedBy(f.Metadata); by != "" {
			tags = append(tags, "suppressed: "+by)
		}
		if r.Baselined {
			tags = append(tags, "baselined")
		}
		switch {
		case r.Triage != nil && r.Triage.Status == "false_positive" && strings.HasPrefix(r.Triage.UpdatedBy, "vex:"):
			// Set by a VEX statement (scand scan --vex, or the daemon's).
			tags = append(tags, "suppressed by VEX: "+strings.TrimPrefix(r.Triage.UpdatedBy, "vex:"))
		case r.Triage != nil && r.Triage.Status != "new":
			tags = append(tags, "verdict: "+r.Triage.Status)
		}
		if g.Gates(&f, &r) {
			tags = append(tags, "GATING")
		}
		tl := textLine{diff: diffRank(r.Diff), status: r.Diff, file: f.FilePath, line: f.Line, sev: f.Severity, rule: f.RuleID, title: f.Title, ord: ord}
		if fix := FixedVersion(&f); fix != "" {
			tl.title += " (fixed in " + fix + ")"
		}
		if len(tags) > 0 {
			tl.tags = " [" + strings.Join(tags, "; ") + "]"
		}
		if tl.file == "" {
			tl.location = run.TargetURL + run.TargetHost
		}
		lines = append(lines, tl)
		ord++
	}
	s := run.Summary
	var b bytes.Buffer
	verdict, partial := verdictOf(&run)
	verdict = strings.ToUpper(verdict)
	if verdict == "PASSED" {
		verdict = "passed"
	}
	if len(partial) > 0 && verdict != "FAILED" {
		verdict += ", partial: " + strings.Join(partial, "; ")
	}
	target := Printable(run.TargetPath, 300)
	if run.Base != "" {
		fmt.Fprintf(&b, "scand diff %s: %s..%s\n", target, Printable(run.Base, 80), Printable(run.Head, 80))
		fmt.Fprintf(&b, "%s, %d fixed, %d unchanged", plural(s.New, "new finding"), s.Fixed, s.Unchanged)
		if s.NotCompared > 0 {
			fmt.Fprintf(&b, ", %d not compared", s.NotCompared)
		}
		b.WriteByte('\n')
	} else {
		fmt.Fprintf(&b, "scand scan %s: %s\n", target, plural(s.Findings, "finding"))
	}
	fmt.Fprintf(&b, "live: %s %d, %s %d, %s %d, %s %d, %s %d",
		paint(finding.Critical, "critical"), s.Live.Critical, paint(finding.High, "high"), s.Live.High,
		paint(finding.Medium, "medium"), s.Live.Medium, paint(finding.Low, "low"), s.Live.Low, paint(finding.Info, "info"), s.Live.Info)
	fmt.Fprintf(&b, "; not counted: %d suppressed, %d baselined, %d by verdict\n", s.Suppressed, s.Baselined, s.Hidden)
	fmt.Fprintf(&b, "scanners run: %s\n", Printable(strings.Join(run.ScannersRun, ", "), 2000))
	idle, skipped := splitSkipped(run.Skipped)
	if len(idle) > 0 {
		fmt.Fprintf(&b, "not needed here (no file they read): %s\n", Printable(strings.Join(idle, ", "), 2000))
	}
	for _, sk := range skipped {
		fmt.Fprintf(&b, "skipped: %s: %s", Printable(sk.Name, 100), Printable(sk.Reason, 300))
		if sk.InstallHint != "" {
			fmt.Fprintf(&b, " (%s)", Printable(sk.InstallHint, 600))
		}
		b.WriteByte('\n')
	}
	for _, l := range coverageLines(&run) {
		fmt.Fprintf(&b, "%s\n", Printable(l, 1000))
	}
	for _, warn := range run.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", Printable(warn, 600))
	}
	if note := run.hiddenNote(hidden); note != "" {
		fmt.Fprintf(&b, "%s\n", note)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	// A diff lists what the change introduced first: that is what the
	// reader acts on.
	sort.SliceStable(lines, func(i, j int) bool {
		if lines[i].diff != lines[j].diff {
			return lines[i].diff < lines[j].diff
		}
		if lines[i].status != lines[j].status {
			return lines[i].status < lines[j].status
		}
		if lines[i].file != lines[j].file {
			return lines[i].file < lines[j].file
		}
		if lines[i].line != lines[j].line {
			return lines[i].line < lines[j].line
		}
		return lines[i].ord < lines[j].ord
	})
	prev, section := "\x00", "\x00"
	for _, l := range lines {
		b.Reset()
		if run.Base != "" && l.status != section {
			section, prev = l.status, "\x00"
			fmt.Fprintf(&b, "\n== %s ==\n", Printable(strings.ReplaceAll(l.status, "_", " "), 40))
		}
		if l.file != prev {
			prev = l.file
			name := l.file
			if name == "" {
				name = "(no file) " + l.location
			}
			fmt.Fprintf(&b, "\n%s\n", Printable(name, 1000))
		}
		sev := fmt.Sprintf("%-8s", l.sev)
		fmt.Fprintf(&b, "  %5d  %s %s  %s%s\n", l.line, paint(l.sev, sev), Printable(l.rule, 120), Printable(l.title, 300), Printable(l.tags, 400))
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\nresult: %s (%d gating at fail-on %s)\n", Printable(verdict, 2000), s.Gating, s.FailOn)
	return err
}
