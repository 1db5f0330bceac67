package review

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"scand/finding"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/api/portfolio"
	"scand/auth"
	"scand/scan/reportdata"
	"scand/store"
	"scand/store/audit"
	"scand/store/targets"
	"scand/vex"
)

// Deps is what the review routes need, wired by the api package.
type Deps struct {
	Store *store.Store
	Log   *slog.Logger
	// Now is the clock expires_at is checked against (SVC_FAKE_NOW).
	Now func() time.Time
	// SLA and SLANow give a finding's fix deadline and whether it passed.
	SLA    finding.SLAPolicy
	SLANow func() time.Time
	// Principal is the authenticated caller of a request.
	Principal func(context.Context) auth.Principal
	// FindingsQuery reads the filters of GET /findings (across targets)
	// from a request's query: a bulk verdict by findings_query selects
	// what that list shows.
	FindingsQuery func(*http.Request) (targets.FindingsQuery, error)
}

// Service serves the review routes.
type Service struct {
	Deps
	Recorder *Recorder
}

// New returns the service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.SLANow == nil {
		d.SLANow = d.Now
	}
	return &Service{Deps: d, Recorder: &Recorder{Store: d.Store, Log: d.Log}}
}

// Routes are the review routes for the route table.
func (s *Service) Routes() []openapi.Route {
	return slices.Concat(s.auditRoutes(), s.triageRoutes(), s.ruleRoutes(), s.linkRoutes(), s.detailRoutes())
}

// MaxNoteChars caps a verdict's note (as a comment's text).
const MaxNoteChars = 10000

// Verdict is the verdict part of a triage request, single or bulk.
type Verdict struct {
	Status    string  `json:"status"`
	Note      *string `json:"note,omitempty"`
	UpdatedBy *string `json:"updated_by,omitempty" doc:"defaults to the caller's key name and id"`
	ExpiresAt *string `json:"expires_at,omitempty" doc:"RFC 3339 time or YYYY-MM-DD (00:00 UTC) in the future; only with accepted_risk or wont_fix: at that time the finding returns to new"`
	// Justification is the OpenVEX reason a false positive is one; VEX
	// exports write vex.DefaultJustification when it is absent.
	Justification *string `json:"justification,omitempty" doc:"only with false_positive: component_not_present, vulnerable_code_not_present, vulnerable_code_not_in_execute_path, vulnerable_code_cannot_be_controlled_by_adversary or inline_mitigations_already_exist; VEX exports write vulnerable_code_not_in_execute_path when absent (docs/vex.md)"`
}

// State validates v for p at now and returns the state to store (its
// Fingerprint unset); problems go to val.
func (v Verdict) State(p auth.Principal, now time.Time, val *httpio.Validation) store.TriageState {
	st := store.TriageState{Status: v.Status, UpdatedBy: DisplayName(p)}
	if !slices.Contains(store.TriageStatuses, v.Status) {
		val.Add("enum", "status must be one of "+strings.Join(store.TriageStatuses, ", "), v.Status, "body", "status")
	}
	if v.Note != nil {
		st.Note = *v.Note
		if utf8.RuneCountInString(st.Note) > MaxNoteChars {
			val.Add("string_too_long", "note must be at most 10000 characters", nil, "body", "note")
		}
	}
	if v.UpdatedBy != nil && strings.TrimSpace(*v.UpdatedBy) != "" {
		st.UpdatedBy = strings.TrimSpace(*v.UpdatedBy)
		if utf8.RuneCountInString(st.UpdatedBy) > 200 {
			val.Add("string_too_long", "updated_by must be at most 200 characters", nil, "body", "updated_by")
		}
	}
	if v.Justification != nil && strings.TrimSpace(*v.Justification) != "" {
		j := strings.TrimSpace(*v.Justification)
		switch {
		case !vex.IsJustification(j):
			val.Add("enum", "justification must be one of "+strings.Join(vex.Justifications, ", "), j, "body", "justification")
		case v.Status != "false_positive":
			val.Add("value_error", "justification is only allowed with status false_positive", j, "body", "justification")
		default:
			st.Justification = j
		}
	}
	if v.ExpiresAt != nil && strings.TrimSpace(*v.ExpiresAt) != "" {
		raw := strings.TrimSpace(*v.ExpiresAt)
		t, err := ParseExpiry(raw)
		switch {
		case err != nil:
			val.Add("datetime_parsing", "expires_at must be an RFC 3339 time or a YYYY-MM-DD date", raw, "body", "expires_at")
		case !store.CanExpire(v.Status):
			val.Add("value_error", "expires_at is only allowed with status accepted_risk or wont_fix", raw, "body", "expires_at")
		case !t.After(now):
			val.Add("value_error", "expires_at must be in the future (now is "+now.UTC().Format(time.RFC3339)+")", raw, "body", "expires_at")
		default:
			st.ExpiresAt = &t
		}
	}
	return st
}

// ParseExpiry reads an RFC 3339 time or a date (its 00:00 UTC).
func ParseExpiry(raw string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, raw); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.DateOnly, raw)
	return t.UTC(), err
}

// VerdictChanges are the audit fields of a verdict.
func VerdictChanges(before *store.TriageState, after store.TriageState) audit.Changes {
	ch := audit.Changes{}
	var bStatus, bNote, bExp any = "new", "", nil
	if before != nil {
		bStatus, bNote = before.Status, before.Note
		if before.ExpiresAt != nil {
			bExp = *before.ExpiresAt
		}
	}
	var aExp any
	if after.ExpiresAt != nil {
		aExp = *after.ExpiresAt
	}
	ch["status"] = audit.Change{Before: bStatus, After: after.Status}
	if bNote != after.Note {
		ch["note"] = audit.Change{Before: bNote, After: after.Note}
	}
	if bExp != aExp {
		ch["expires_at"] = audit.Change{Before: bExp, After: aExp}
	}
	bJust := ""
	if before != nil {
		bJust = before.Justification
	}
	if bJust != after.Justification {
		ch["justification"] = audit.Change{Before: bJust, After: after.Justification}
	}
	return ch
}

// BulkFilter selects findings of one scan as its findings list filters
// do (values inside a field OR-combined, fields AND-combined), or, with
// FindingsQuery instead of ScanID, what GET /findings selects across
// targets.
type BulkFilter struct {
	ScanID        string   `json:"scan_id,omitempty" doc:"the scan whose findings the other fields filter; or give findings_query"`
	FindingsQuery string   `json:"findings_query,omitempty" doc:"the query string of GET /api/v1/findings (e.g. severity=high&label=team=web&verdict=new): every finding that list selects across targets; its paging and sort are ignored; only with no other filter field"`
	Severity      []string `json:"severity,omitempty"`
	ScanType      []string `json:"scan_type,omitempty"`
	Scanner       []string `json:"scanner,omitempty"`
	Compliance    []string `json:"compliance,omitempty"`
	Triage        []string `json:"triage,omitempty" doc:"verdicts; new also matches findings without one"`
	Suppressed    *bool    `json:"suppressed,omitempty"`
	Q             string   `json:"q,omitempty" doc:"substring of the title, file path or rule id (ASCII case-insensitive)"`
}

// BulkTriageRequest is the body of POST /findings/triage.
type BulkTriageRequest struct {
	Fingerprints []string    `json:"fingerprints,omitempty" doc:"the findings to set; or give filter"`
	Filter       *BulkFilter `json:"filter,omitempty" doc:"every finding matching it; or give fingerprints"`
	Verdict
	// ExpectedCount is the number of findings the client showed the
	// reviewer; a different number now is a 409.
	ExpectedCount *int `json:"expected_count,omitempty" doc:"how many findings the reviewer confirmed; when the matching set has another size now the answer is 409 with matching_count"`
	DryRun        bool `json:"dry_run,omitempty" doc:"count the matching findings and change nothing"`
}

// BulkTriageResult is the answer of POST /findings/triage.
type BulkTriageResult struct {
	MatchingCount int        `json:"matching_count"`
	Updated       int        `json:"updated"`
	Status        string     `json:"status"`
	ExpiresAt     *time.Time `json:"expires_at,omitempty"`
	DryRun        bool       `json:"dry_run"`
	AuditID       int64      `json:"audit_id,omitempty"`
}

// CountChanged is the 409 body when the matching set changed size.
type CountChanged struct {
	Detail        string `json:"detail"`
	MatchingCount int    `json:"matching_count"`
	ExpectedCount int    `json:"expected_count"`
}

// CountChangedError is the 409 of a bulk verdict whose set changed.
type CountChangedError struct{ Body CountChanged }

func (e *CountChangedError) Error() string { return e.Body.Detail }

// HTTPStatus lets the console show it as the API answers it.
func (e *CountChangedError) HTTPStatus() int { return http.StatusConflict }

func (s *Service) triageRoutes() []openapi.Route {
	return []openapi.Route{{Method: "POST", Path: "/findings/triage", Scope: auth.ScopeWrite, Tag: "triage",
		Summary: "Set one verdict on listed fingerprints or on every finding matching a filter (at most 10,000; one transaction, one history entry per finding, one audit record)",
		Request: BulkTriageRequest{}, Response: BulkTriageResult{}, Errors: []int{404, 409, 422},
		ErrorBodies: map[int]any{409: CountChanged{}}, Handler: s.handleBulkTriage}}
}

func (s *Service) handleBulkTriage(w http.ResponseWriter, r *http.Request) error {
	var req BulkTriageRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	res, err := s.BulkTriage(r.Context(), s.Principal(r.Context()), req)
	var changed *CountChangedError
	if errors.As(err, &changed) {
		httpio.WriteJSON(w, http.StatusConflict, changed.Body)
		return nil
	}
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, res)
	return nil
}

// BulkTriage resolves the request's findings and sets the verdict on all
// of them (API and console).
func (s *Service) BulkTriage(ctx context.Context, p auth.Principal, req BulkTriageRequest) (BulkTriageResult, error) {
	var val httpio.Validation
	st := req.Verdict.State(p, s.Now(), &val)
	switch {
	case req.Filter == nil && len(req.Fingerprints) == 0:
		val.Add("missing", "give fingerprints or filter", nil, "body")
	case req.Filter != nil && len(req.Fingerprints) > 0:
		val.Add("value_error", "give fingerprints or filter, not both", nil, "body")
	case len(req.Fingerprints) > store.MaxBulkTriage:
		val.Add("too_long", "at most "+strconv.Itoa(store.MaxBulkTriage)+" fingerprints in one request; narrow the selection", len(req.Fingerprints), "body", "fingerprints")
	case req.Filter != nil && req.Filter.ScanID == "" && req.Filter.FindingsQuery == "":
		val.Add("missing", "filter.scan_id or filter.findings_query is required", nil, "body", "filter", "scan_id")
	case req.Filter != nil && req.Filter.FindingsQuery != "" && !req.Filter.acrossOnly():
		val.Add("value_error", "filter.findings_query carries the whole filter: give no scan_id or other field with it", nil, "body", "filter", "findings_query")
	}
	if req.ExpectedCount != nil && *req.ExpectedCount < 0 {
		val.Add("greater_than_equal", "expected_count must be at least 0", *req.ExpectedCount, "body", "expected_count")
	}
	for i, fp := range req.Fingerprints {
		if !finding.IsFingerprint(fp) {
			val.Add("string_pattern_mismatch", "a fingerprint is 64 lowercase hex characters", fp, "body", "fingerprints", i)
		}
		if i > 100 && val.Err() != nil {
			break // enough to show what is wrong
		}
	}
	if err := val.Err(); err != nil {
		return BulkTriageResult{}, err
	}
	fps, err := s.resolve(ctx, req)
	if err != nil {
		return BulkTriageResult{}, err
	}
	res := BulkTriageResult{MatchingCount: len(fps), Status: st.Status, ExpiresAt: st.ExpiresAt, DryRun: req.DryRun}
	if len(fps) > store.MaxBulkTriage {
		return res, httpio.Invalid("too_long", "more than "+strconv.Itoa(store.MaxBulkTriage)+" findings match; narrow the filter (one verdict covers at most "+
			strconv.Itoa(store.MaxBulkTriage)+")", nil, "body", "filter")
	}
	if req.ExpectedCount != nil && *req.ExpectedCount != len(fps) {
		return res, &CountChangedError{Body: CountChanged{MatchingCount: len(fps), ExpectedCount: *req.ExpectedCount,
			Detail: "The selection changed: " + strconv.Itoa(len(fps)) + " findings match now, not " + strconv.Itoa(*req.ExpectedCount) + "; review and confirm again"}}
	}
	if req.DryRun || len(fps) == 0 {
		return res, nil
	}
	changes := audit.Changes{"status": {After: st.Status}, "count": {After: len(fps)}}
	if st.Note != "" {
		changes["note"] = audit.Change{After: st.Note}
	}
	if st.ExpiresAt != nil {
		changes["expires_at"] = audit.Change{After: *st.ExpiresAt}
	}
	if st.Justification != "" {
		changes["justification"] = audit.Change{After: st.Justification}
	}
	if req.Filter != nil {
		changes["filter"] = audit.Change{After: *req.Filter}
	} else {
		changes["fingerprints"] = audit.Change{After: fps}
	}
	object := ""
	if req.Filter != nil {
		object = req.Filter.ScanID // "" across targets
	}
	rec := RecordOf(ctx, p, "finding.triage_bulk", "findings", object, changes)
	_, stored, err := s.Store.SetVerdicts(ctx, fps, st, &rec)
	if err != nil {
		return res, err
	}
	res.Updated, res.AuditID = len(fps), stored.Seq
	return res, nil
}

// resolve returns the distinct fingerprints the request names, at most
// MaxBulkTriage+1 of them (one more says "too many").
func (s *Service) resolve(ctx context.Context, req BulkTriageRequest) ([]string, error) {
	if req.Filter == nil {
		seen := map[string]bool{}
		var out []string
		for _, fp := range req.Fingerprints {
			if !seen[fp] {
				seen[fp] = true
				out = append(out, fp)
			}
		}
		unknown, err := s.Store.UnknownFingerprints(ctx, out)
		if err != nil {
			return nil, err
		}
		if len(unknown) > 0 {
			return nil, httpio.NotFound("Finding not found: " + unknown[0])
		}
		return out, nil
	}
	f := req.Filter
	if f.FindingsQuery != "" {
		return s.resolveAcross(ctx, f.FindingsQuery)
	}
	q := store.ConsoleFindingQuery{Severities: f.Severity, ScanTypes: f.ScanType, Scanners: f.Scanner, Compliance: f.Compliance,
		Triage: f.Triage, Suppressed: f.Suppressed, Text: f.Q, After: -1, Before: -1, Limit: 1}
	fps, err := s.Store.MatchingFingerprints(ctx, f.ScanID, q, store.MaxBulkTriage)
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpio.NotFound("Scan not found")
	}
	return fps, err
}

// acrossOnly reports whether findings_query is the filter's only field.
func (f BulkFilter) acrossOnly() bool {
	return f.ScanID == "" && len(f.Severity) == 0 && len(f.ScanType) == 0 && len(f.Scanner) == 0 && len(f.Compliance) == 0 &&
		len(f.Triage) == 0 && f.Suppressed == nil && f.Q == ""
}

// resolveAcross returns the fingerprints GET /findings?raw selects across
// targets, read by that route's own parser so both mean the same; a bad
// parameter is reported at filter.findings_query.
func (s *Service) resolveAcross(ctx context.Context, raw string) ([]string, error) {
	vals, err := url.ParseQuery(strings.TrimPrefix(raw, "?"))
	if err != nil || s.FindingsQuery == nil {
		return nil, httpio.Invalid("value_error", "findings_query must be a URL query string (name=value&...)", raw, "body", "filter", "findings_query")
	}
	r := (&http.Request{URL: &url.URL{RawQuery: vals.Encode()}}).WithContext(ctx)
	q, err := s.FindingsQuery(r)
	var he *httpio.Error
	if errors.As(err, &he) && len(he.Fields) > 0 {
		for i, f := range he.Fields {
			he.Fields[i].Loc = []any{"body", "filter", "findings_query"}
			if len(f.Loc) > 1 {
				he.Fields[i].Loc = append(he.Fields[i].Loc, f.Loc[1:]...)
			}
		}
		return nil, he
	}
	if err != nil {
		return nil, err
	}
	return s.Store.PortfolioFingerprints(ctx, q, store.MaxBulkTriage)
}

func (s *Service) ruleRoutes() []openapi.Route {
	return []openapi.Route{{Method: "GET", Path: "/scans/{id}/rules", Scope: auth.ScopeRead, Tag: "scans",
		Summary:  "A completed scan's findings grouped by scanner and rule, most findings first (count, worst severity, a title)",
		Params:   []openapi.Param{{Name: "id", In: "path", Type: "string", Required: true, Description: "scan id"}},
		Response: []store.RuleGroup{}, Errors: []int{404}, Handler: s.handleRules}}
}

func (s *Service) handleRules(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.Store.ScanByID(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Scan not found")
	}
	if err != nil {
		return err
	}
	groups, err := s.Store.RuleGroups(r.Context(), sc)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, groups)
	return nil
}

func (s *Service) linkRoutes() []openapi.Route {
	return []openapi.Route{{Method: "GET", Path: "/findings/{fingerprint}/links", Scope: auth.ScopeRead, Tag: "triage",
		Summary:  "How a finding was matched to its old self when its file moved: linked (verdict, history and comments followed) or refused as ambiguous, with the reason",
		Params:   []openapi.Param{{Name: "fingerprint", In: "path", Type: "string", Required: true, Description: "finding fingerprint (64 hex characters)"}},
		Response: []store.FindingLink{}, Errors: []int{404}, Handler: s.handleLinks}}
}

func (s *Service) handleLinks(w http.ResponseWriter, r *http.Request) error {
	fp := r.PathValue("fingerprint")
	if !finding.IsFingerprint(fp) {
		return httpio.NotFound("Finding not found: a fingerprint is 64 lowercase hex characters")
	}
	links, err := s.Store.FindingLinks(r.Context(), fp)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, links)
	return nil
}

func (s *Service) detailRoutes() []openapi.Route {
	return []openapi.Route{{Method: "GET", Path: "/findings/{fingerprint}", Scope: auth.ScopeRead, Tag: "findings",
		Summary: "One finding with its verdict and the code kept around it at scan time (excerpt): in the scan given, else in the newest completed scan that has it",
		Params: []openapi.Param{{Name: "fingerprint", In: "path", Type: "string", Required: true, Description: "finding fingerprint (64 hex characters)"},
			{Name: "scan", In: "query", Type: "string", Description: "scan id; default: the newest completed scan with the finding"}},
		Response: Detail{}, Errors: []int{404}, Handler: s.handleDetail}}
}

// Detail is the answer of GET /findings/{fingerprint}: the finding, its
// verdict and excerpt, and its age and deadline on the target of the scan
// it was read from.
type Detail struct {
	store.FindingWithState
	portfolio.ScanAge
}

func (s *Service) handleDetail(w http.ResponseWriter, r *http.Request) error {
	fp := r.PathValue("fingerprint")
	if !finding.IsFingerprint(fp) {
		return httpio.NotFound("Finding not found: a fingerprint is 64 lowercase hex characters")
	}
	f, sc, err := s.Store.FindingOccurrence(r.Context(), fp, r.URL.Query().Get("scan"))
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Finding not found in any stored scan (or not in the scan given)")
	}
	if err != nil {
		return err
	}
	if f.Excerpt, err = s.Store.Excerpt(r.Context(), sc.Seq, fp, f.Line); err != nil {
		return err
	}
	ages, err := s.Store.AgesOfScan(r.Context(), sc.ID, []string{fp})
	if err != nil {
		return err
	}
	age, ok := ages[fp]
	httpio.WriteJSON(w, http.StatusOK, Detail{f, portfolio.ScanAgeFields(s.SLA, f.Severity, reportdata.SeenOf(sc, age, ok), s.SLANow())})
	return nil
}
