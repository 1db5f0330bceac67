// Package importscan stores scans computed elsewhere: `scand scan
// --server` runs the scanners in CI and sends the result (POST
// /scans/import), which is stored as a completed scan (source "import")
// through the same ingest as the daemon's own scans and announced like
// one by the orchestrator. The body is decoded and checked while it is
// stored, never held whole.
package importscan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"scand/finding"
	"scand/scan"
	"scand/scan/request"
	"scand/store"
)

// An imported scan goes through the daemon's ingest (dedup per file,
// canonical order, counts, risk score) and is announced like one of its
// own (scan.start, then scan.complete: webhooks, notifications, change
// alerts). The findings are attacker-controlled input: every field is
// checked, and nothing is taken on trust that the daemon can compute
// (ids, compliance tags, counts).

// Importer stores imported scans.
type Importer struct {
	Store *store.Store
	// Scans stamps, logs and announces an imported scan: the orchestrator
	// stays the one publisher of scan lifecycle events.
	Scans *scan.Orchestrator
}

// Request is what an import says about the scan.
type Request struct {
	// Target is the label the scan is filed under (a repository URL, a
	// path on the CI machine): target_path of the stored scan, so change
	// alerts compare it with the previous import of the same label.
	Target    string
	Commit    string
	ScanTypes []string
	CreatedBy string
}

// Import limits: each bounds what one field of hostile input can cost.
const (
	importMaxTarget      = 1000
	importMaxName        = 200
	importMaxText        = 64 << 10
	importMaxTitle       = 2000
	importMaxPath        = 4096
	importMaxRule        = 500
	importMaxMetadata    = 64 << 10
	importMaxScannerList = 200
)

var (
	importCommit      = regexp.MustCompile(`^[0-9a-f]{4,64}$`)
	importFingerprint = regexp.MustCompile(`^[0-9a-f]{64}$`)
	importCWE         = regexp.MustCompile(`^CWE-[0-9]{1,6}$`)
)

// CheckRequest validates an import's scan fields; locations are relative
// to the request body.
func CheckRequest(r Request) []request.Problem {
	var probs []request.Problem
	add := func(typ, msg string, input any, loc ...any) {
		probs = append(probs, request.Problem{Loc: loc, Type: typ, Msg: msg, Input: input})
	}
	if msg := checkLabel(r.Target, importMaxTarget); msg != "" {
		add("value_error", "target "+msg, r.Target, "target")
	}
	if r.Commit != "" && !importCommit.MatchString(r.Commit) {
		add("value_error", "commit must be a hexadecimal git commit id (4 to 64 lower-case digits)", r.Commit, "commit")
	}
	if len(r.ScanTypes) == 0 {
		add("too_short", "scan_types must not be empty", r.ScanTypes, "scan_types")
	}
	for i, t := range r.ScanTypes {
		if !slices.Contains(scan.ScanTypes, t) {
			add("enum", "Input should be one of "+strings.Join(scan.ScanTypes, ", "), t, "scan_types", i)
		}
	}
	return probs
}

// CheckScannerNames validates scanners_run (field "scanners_run").
func CheckScannerNames(field string, names []string) []request.Problem {
	var probs []request.Problem
	if len(names) > importMaxScannerList {
		probs = append(probs, request.Problem{Loc: []any{field}, Type: "too_long", Msg: fmt.Sprintf("at most %d scanners", importMaxScannerList)})
	}
	for i, n := range names {
		if msg := checkLabel(n, importMaxName); msg != "" {
			probs = append(probs, request.Problem{Loc: []any{field, i}, Type: "value_error", Msg: "scanner name " + msg, Input: n})
		}
	}
	return probs
}

// CheckSkipped validates scanners_skipped.
func CheckSkipped(skipped []store.SkippedScanner) []request.Problem {
	var probs []request.Problem
	if len(skipped) > importMaxScannerList {
		probs = append(probs, request.Problem{Loc: []any{"scanners_skipped"}, Type: "too_long", Msg: fmt.Sprintf("at most %d scanners", importMaxScannerList)})
	}
	for i, s := range skipped {
		if msg := checkLabel(s.Name, importMaxName); msg != "" {
			probs = append(probs, request.Problem{Loc: []any{"scanners_skipped", i, "name"}, Type: "value_error", Msg: "name " + msg, Input: s.Name})
		}
		if len(s.Reason) > 1000 || !utf8.ValidString(s.Reason) {
			probs = append(probs, request.Problem{Loc: []any{"scanners_skipped", i, "reason"}, Type: "value_error", Msg: "reason must be valid UTF-8 of at most 1000 bytes"})
		}
		if len(s.InstallHint) > 2000 || !utf8.ValidString(s.InstallHint) {
			probs = append(probs, request.Problem{Loc: []any{"scanners_skipped", i, "install_hint"}, Type: "value_error", Msg: "install_hint must be valid UTF-8 of at most 2000 bytes"})
		}
	}
	return probs
}

// CheckCoverage validates an import's coverage: its scanner entries are
// kept (settleImported recomputes the rest), each bounded like
// scanners_skipped.
func CheckCoverage(c *finding.ScanCoverage) []request.Problem {
	if c == nil {
		return nil
	}
	var probs []request.Problem
	if len(c.Scanners) > importMaxScannerList || len(c.Types) > importMaxScannerList {
		probs = append(probs, request.Problem{Loc: []any{"coverage"}, Type: "too_long", Msg: fmt.Sprintf("at most %d scanners and scan types", importMaxScannerList)})
	}
	statuses := []string{finding.CoverageRan, finding.CoveragePartial, finding.CoverageFailed, finding.CoverageNotInstalled, finding.CoverageNotNeeded, finding.CoverageDisabled}
	for i, s := range c.Scanners {
		loc := func(f string) []any { return []any{"coverage", "scanners", i, f} }
		if msg := checkLabel(s.Scanner, importMaxName); msg != "" {
			probs = append(probs, request.Problem{Loc: loc("scanner"), Type: "value_error", Msg: "scanner " + msg, Input: s.Scanner})
		}
		if msg := checkLabel(s.ScanType, importMaxName); msg != "" {
			probs = append(probs, request.Problem{Loc: loc("scan_type"), Type: "value_error", Msg: "scan_type " + msg, Input: s.ScanType})
		}
		if !slices.Contains(statuses, s.Status) {
			probs = append(probs, request.Problem{Loc: loc("status"), Type: "enum", Msg: "status must be one of " + strings.Join(statuses, ", "), Input: s.Status})
		}
		if len(s.Reason) > 1000 || !utf8.ValidString(s.Reason) || len(s.Hint) > 2000 || !utf8.ValidString(s.Hint) {
			probs = append(probs, request.Problem{Loc: loc("reason"), Type: "value_error", Msg: "reason and hint must be valid UTF-8 of at most 1000 and 2000 bytes"})
		}
		if s.SkippedCount < 0 || len(s.SkippedPaths) > finding.CoverageMaxPaths {
			probs = append(probs, request.Problem{Loc: loc("skipped_paths"), Type: "value_error", Msg: fmt.Sprintf("skipped_count must not be negative and skipped_paths hold at most %d paths", finding.CoverageMaxPaths)})
		}
		for _, p := range s.SkippedPaths {
			if len(p) > 1000 || !utf8.ValidString(p) {
				probs = append(probs, request.Problem{Loc: loc("skipped_paths"), Type: "value_error", Msg: "a path must be valid UTF-8 of at most 1000 bytes"})
				break
			}
		}
	}
	return probs
}

// settleImported keeps an import's scanner entries and recomputes the
// type statuses, partial reasons and notes from them, so what an import
// claims about the result follows from what it says each scanner did.
func settleImported(c *finding.ScanCoverage, types []string) *finding.ScanCoverage {
	if c == nil {
		return nil
	}
	explicit := len(c.Types) > 0 && c.Types[0].Explicit
	out := &finding.ScanCoverage{Scanners: c.Scanners}
	if out.Scanners == nil {
		out.Scanners = []finding.ScannerCoverage{}
	}
	out.Settle(types, explicit)
	return out
}

// checkLabel says what is wrong with a one-line name ("" when nothing).
func checkLabel(s string, max int) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "must not be empty"
	case len(s) > max:
		return fmt.Sprintf("must be at most %d bytes", max)
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "must not contain control characters"
	}
	return ""
}

// CheckFinding validates one imported finding of the given scan types;
// locations are relative to the finding.
func CheckFinding(f finding.Finding, scanTypes []string) []request.Problem {
	var probs []request.Problem
	add := func(field, msg string, input any) {
		probs = append(probs, request.Problem{Loc: []any{field}, Type: "value_error", Msg: msg, Input: input})
	}
	if msg := checkLabel(f.Scanner, importMaxName); msg != "" {
		add("scanner", "scanner "+msg, f.Scanner)
	}
	if !slices.Contains(scanTypes, f.ScanType) {
		add("scan_type", "scan_type must be one of the import's scan_types ("+strings.Join(scanTypes, ", ")+")", f.ScanType)
	}
	if !f.Severity.Valid() {
		add("severity", "severity must be critical, high, medium, low or info", string(f.Severity))
	}
	if msg := checkLabel(f.Title, importMaxTitle); msg != "" {
		add("title", "title "+msg, nil)
	}
	if len(f.Description) > importMaxText || !utf8.ValidString(f.Description) {
		add("description", fmt.Sprintf("description must be valid UTF-8 of at most %d bytes", importMaxText), nil)
	}
	if msg := checkFilePath(f.FilePath); msg != "" {
		add("file_path", msg, f.FilePath)
	}
	if f.Line < 0 {
		add("line", "line must not be negative", f.Line)
	}
	if msg := checkLabel(f.RuleID, importMaxRule); msg != "" {
		add("rule_id", "rule_id "+msg, f.RuleID)
	}
	if f.CWE != "" && !importCWE.MatchString(string(f.CWE)) {
		add("cwe", "cwe must be CWE-<number> or null", string(f.CWE))
	}
	if !importFingerprint.MatchString(f.Fingerprint) {
		add("fingerprint", "fingerprint must be 64 lower-case hexadecimal digits (scand's fingerprint)", f.Fingerprint)
	}
	if md, err := json.Marshal(f.Metadata); err != nil || len(md) > importMaxMetadata {
		add("metadata", fmt.Sprintf("metadata must be a JSON object of at most %d bytes", importMaxMetadata), nil)
	} else if v, ok := f.Metadata[finding.MetaSuppressedBy]; ok && v != nil {
		if _, isString := v.(string); !isString {
			add("metadata", "metadata.suppressed_by must be a string or null", nil)
		}
	}
	return probs
}

// checkFilePath accepts "" (no file), a relative slash path inside the
// target, or an image layer's "<digest>:/<path>".
func checkFilePath(p string) string {
	switch {
	case p == "":
		return ""
	case len(p) > importMaxPath:
		return fmt.Sprintf("file_path must be at most %d bytes", importMaxPath)
	case !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0:
		return "file_path must be valid UTF-8 without control characters"
	}
	rel := p
	if i := strings.Index(p, ":/"); i > 0 && strings.HasPrefix(p, "sha256:") {
		rel = p[i+2:]
	}
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
		return "file_path must be a clean path relative to the target (no leading /, no .. or . segments, slashes only)"
	}
	return ""
}

// prepareImported is what Ingest.Add takes for an imported finding: the
// daemon's own id, scan and compliance tags; the fingerprint and the
// suppression as sent (they need the source lines, which the sender read).
func prepareImported(scanID string, f finding.Finding) finding.Finding {
	f.ID, f.ScanID, f.Snippet = "", scanID, ""
	md := make(map[string]any, len(f.Metadata)+1)
	for k, v := range f.Metadata {
		md[k] = v
	}
	if _, ok := md[finding.MetaSuppressedBy]; !ok {
		md[finding.MetaSuppressedBy] = nil
	}
	f.Metadata = md
	f.ComplianceTags = finding.ComplianceTags(f)
	return f
}

// ErrAborted wraps what stopped an import half-way (a bad finding,
// a body cut off); the scan it started is deleted.
var ErrAborted = errors.New("import aborted")

// Tail is what an import may say after its findings: its scanners and
// coverage, and the components captured with it (nil when it sent none).
type Tail struct {
	Meta       store.IngestMeta
	Components []byte
}

// Import stores a scan computed elsewhere. findings yields the checked
// findings as they are read; tail is asked once they are all read (an
// import may list its scanners and components after them). On success
// the scan is completed and scan.start and scan.complete are published;
// on any error the scan is removed and nothing is published.
func (im Importer) Import(ctx context.Context, req Request, findings iter.Seq2[finding.Finding, error], tail func() Tail) (store.Scan, error) {
	bg := context.WithoutCancel(ctx)
	o := im.Scans
	sc, err := im.Store.CreateScan(bg, store.Scan{ID: store.NewID(), TargetPath: req.Target, ScanTypes: req.ScanTypes,
		StartedAt: o.Now().UTC().Truncate(time.Microsecond), CreatedBy: req.CreatedBy, Source: store.SourceImport, Commit: req.Commit})
	if err != nil {
		return sc, err
	}
	abort := func(cause error) (store.Scan, error) {
		if err := im.Store.FinishScan(bg, sc.ID, store.StatusFailed, truncate("import aborted: "+cause.Error(), 1000), nil, nil); err == nil {
			if err := im.Store.DeleteScan(bg, sc.ID); err != nil {
				o.Log().Warn("cannot remove an aborted import", "scan_id", sc.ID, "error", err.Error())
			}
		}
		return store.Scan{}, fmt.Errorf("%w: %w", ErrAborted, cause)
	}
	if err := im.Store.MarkScanRunning(bg, sc.ID); err != nil {
		return abort(err)
	}
	in, err := im.Store.BeginIngest(bg, sc.ID)
	if err != nil {
		return abort(err)
	}
	defer in.Close()
	for f, err := range findings {
		if err != nil {
			return abort(err)
		}
		if err := in.Add(prepareImported(sc.ID, f)); err != nil {
			return abort(err)
		}
	}
	t := tail()
	// Stored before the scan completes, so that the inventory's rows
	// (written by triggers from them) are there when it reads completed.
	if t.Components != nil {
		if err := im.Store.SetScanComponents(bg, sc.ID, t.Components); err != nil {
			return abort(err)
		}
	}
	sum, err := in.Finish(ctx, t.Meta)
	if err != nil {
		return abort(err)
	}
	done, err := im.Store.ScanByID(bg, sc.ID)
	if err != nil {
		return done, err
	}
	o.AnnounceImported(bg, done, sum)
	o.Log().Info("scan imported", "scan_id", sc.ID, "target_path", sc.TargetPath, "findings", sum.Findings, "created_by", req.CreatedBy)
	return done, nil
}

// truncate keeps the first n runes of s.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// Verdicts returns the triage verdicts on a completed scan's findings
// (those that have one other than new), in canonical order.
func Verdicts(ctx context.Context, st *store.Store, sc store.Scan) ([]store.TriageState, error) {
	out := []store.TriageState{}
	q := store.FindingQuery{Triage: slices.DeleteFunc(slices.Clone(store.TriageStatuses), func(s string) bool { return s == "new" })}
	for row, err := range st.FindingRows(ctx, sc, q) {
		if err != nil {
			return nil, err
		}
		if row.State != nil && row.State.Status != "new" {
			st := *row.State
			st.Fingerprint = row.Fingerprint
			out = append(out, st)
		}
	}
	return out, nil
}

// ProblemsError is an import body's problems; locations are relative to
// the body.
type ProblemsError struct{ Problems []request.Problem }

func (e *ProblemsError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%v: %s", p.Loc, p.Msg)
	}
	return b.String()
}

func problemAt(typ, msg string, input any, loc ...any) error {
	return &ProblemsError{[]request.Problem{{Loc: loc, Type: typ, Msg: msg, Input: input}}}
}

// importedFinding is one element of findings: the finding plus the fields
// of the API shape the daemon sets itself (id, scan_id and compliance_tags
// are Finding's; state is read and dropped).
type importedFinding struct {
	finding.Finding
	State json.RawMessage `json:"state"`
}

// Read reads the body of POST /scans/import, a JSON object, and
// imports it while it reads: target, commit and scan_types must come
// before findings (checked first), each finding is checked and stored as
// it is decoded, and scanners_run, scanners_skipped, coverage and
// components may come before or after the findings. Unknown members are
// refused. A problem comes back as a *ProblemsError; a read error (an
// oversized body) as it is.
func (im Importer) Read(ctx context.Context, body io.Reader, createdBy string) (store.Scan, error) {
	sq := &squeezer{r: body}
	dec := json.NewDecoder(sq)
	dec.DisallowUnknownFields()
	// decodeProblem, except that a read error below the decoder (the body
	// cap crossed, a value too large) is what is reported: the decoder
	// may have taken it for the end of the input.
	decodeProblem := func(err error, want string, loc ...any) error {
		if sq.err != nil {
			return sq.err
		}
		return decodeProblem(err, want, loc...)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return store.Scan{}, decodeProblem(err, "a JSON object with target, scan_types and findings")
	}
	req := Request{CreatedBy: createdBy}
	var meta store.IngestMeta
	var comps []byte
	member := func(key string, afterFindings bool) error {
		var dst any
		switch key {
		case "components":
			var err error
			comps, err = readComponents(dec, decodeProblem)
			return err
		case "scanners_run":
			dst = &meta.ScannersRun
		case "scanners_skipped":
			dst = &meta.Skipped
		case "coverage":
			dst = &meta.Coverage
		case "target", "commit", "scan_types":
			if afterFindings {
				return problemAt("value_error", key+" must come before findings", nil, key)
			}
			dst = map[string]any{"target": &req.Target, "commit": &req.Commit, "scan_types": &req.ScanTypes}[key]
		default:
			return problemAt("extra_forbidden", "Extra inputs are not permitted", key, key)
		}
		if err := dec.Decode(dst); err != nil {
			return decodeProblem(err, "", key)
		}
		return nil
	}
	// rest reads what follows the findings, up to the end of the body.
	rest := func() error {
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return decodeProblem(err, "")
			}
			key, _ := t.(string)
			if err := member(key, true); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return decodeProblem(err, "")
		}
		if _, err := dec.Token(); err != io.EOF {
			return problemAt("json_invalid", "Unexpected data after the JSON object", nil)
		}
		if probs := append(CheckScannerNames("scanners_run", meta.ScannersRun), CheckSkipped(meta.Skipped)...); len(probs) > 0 {
			return &ProblemsError{probs}
		}
		if probs := CheckCoverage(meta.Coverage); len(probs) > 0 {
			return &ProblemsError{probs}
		}
		meta.Coverage = settleImported(meta.Coverage, req.ScanTypes)
		return nil
	}
	findings := func(yield func(finding.Finding, error) bool) {
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			yield(finding.Finding{}, decodeProblem(err, "an array of findings", "findings"))
			return
		}
		for i := 0; dec.More(); i++ {
			var f importedFinding
			if err := dec.Decode(&f); err != nil {
				yield(finding.Finding{}, decodeProblem(err, "", "findings", i))
				return
			}
			if probs := CheckFinding(f.Finding, req.ScanTypes); len(probs) > 0 {
				for j := range probs {
					probs[j].Loc = append([]any{"findings", i}, probs[j].Loc...)
				}
				yield(finding.Finding{}, &ProblemsError{probs})
				return
			}
			if !yield(f.Finding, nil) {
				return
			}
		}
		if _, err := dec.Token(); err != nil {
			yield(finding.Finding{}, decodeProblem(err, "", "findings"))
			return
		}
		if err := rest(); err != nil {
			yield(finding.Finding{}, err)
		}
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return store.Scan{}, decodeProblem(err, "")
		}
		key, _ := t.(string)
		if key != "findings" {
			if err := member(key, false); err != nil {
				return store.Scan{}, err
			}
			continue
		}
		probs := CheckRequest(req)
		for _, f := range []struct {
			name string
			set  bool
		}{{"target", req.Target != ""}, {"scan_types", req.ScanTypes != nil}} {
			if !f.set {
				probs = slices.DeleteFunc(probs, func(p request.Problem) bool { return len(p.Loc) > 0 && p.Loc[0] == f.name })
				probs = append(probs, request.Problem{Loc: []any{f.name}, Type: "missing",
					Msg: "Field required, before findings (the findings are stored as they are read)"})
			}
		}
		if len(probs) > 0 {
			return store.Scan{}, &ProblemsError{probs}
		}
		sc, err := im.Import(ctx, req, findings, func() Tail { return Tail{Meta: meta, Components: comps} })
		var pe *ProblemsError
		if errors.As(err, &pe) {
			return sc, pe
		}
		return sc, err
	}
	if sq.err != nil {
		return store.Scan{}, sq.err
	}
	return store.Scan{}, problemAt("missing", "Field required", nil, "findings")
}

// decodeProblem turns a decoding error at loc into a problem; a read error
// (the body too large, cut off) stays what it is.
func decodeProblem(err error, want string, loc ...any) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		for _, part := range strings.Split(typeErr.Field, ".") {
			// An embedded struct's Go name is no JSON key.
			if part != "" && !unicode.IsUpper(rune(part[0])) {
				loc = append(loc, part)
			}
		}
		return problemAt("type_error", "Input should be a valid "+typeErr.Type.String(), typeErr.Value, loc...)
	case err == nil || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &syntax):
		msg := "Input should be " + want
		if want == "" || err != nil {
			msg = "JSON decode error"
			if err != nil {
				msg += ": " + err.Error()
			}
		}
		return problemAt("json_invalid", msg, nil, loc...)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return problemAt("extra_forbidden", "Extra inputs are not permitted: "+strings.TrimPrefix(err.Error(), "json: "), nil, loc...)
	}
	return err
}
