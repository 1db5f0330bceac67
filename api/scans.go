package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"scand/store/audit"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/api/portfolio"
	"scand/auth"
	"scand/finding"
	"scand/finding/report"
	"scand/scan"
	"scand/scan/reportdata"
	"scand/scan/request"
	"scand/sse"
	"scand/store"
	"scand/store/findings"
)

// ScanView is the SPEC.md Scan resource.
type ScanView struct {
	ID              string                 `json:"id"`
	TargetPath      string                 `json:"target_path"`
	ScanTypes       []string               `json:"scan_types"`
	TargetURL       *string                `json:"target_url"`
	TargetHost      *string                `json:"target_host"`
	Status          string                 `json:"status"`
	StartedAt       time.Time              `json:"started_at"`
	CompletedAt     *time.Time             `json:"completed_at"`
	ScannersRun     []string               `json:"scanners_run"`
	ScannersSkipped []store.SkippedScanner `json:"scanners_skipped" doc:"What the scan left out, and why: a scanner (not installed, no database, failed, nothing to scan), a part of one (\"osv-scanner (PyPI)\", \"kics (kics-scan comments)\"), or the paths the tree's .scand.toml ignores (\".scand.toml [ignore] paths\")"`
	Error           *string                `json:"error" doc:"why the scan failed; null unless status is failed"`
	ScheduleID      *string                `json:"schedule_id" doc:"the schedule that started the scan; null for scans started through POST /scans"`
	TargetImage     *TargetImageView       `json:"target_image" doc:"the container image scanned (target_path is then its archive); null for other scans"`
	TargetRepo      *TargetRepoView        `json:"target_repo" doc:"the git repository scanned (target_path is then its URL); null for other scans"`
	Source          string                 `json:"source" doc:"scan: run by this daemon; import: computed elsewhere and sent with POST /scans/import (target_path is then its label); reevaluation: the stored components of based_on_scan matched against newer advisory data (POST /reevaluations)"`
	Commit          *string                `json:"commit" doc:"git commit an imported scan names, or the HEAD a directory scan of a git work tree read; null otherwise"`
	BasedOnScan     *string                `json:"based_on_scan" doc:"for a reevaluation, the scan whose stored components were matched; null otherwise"`
	coverageView
}

func scanView(sc store.Scan) ScanView {
	v := ScanView{ID: sc.ID, TargetPath: sc.TargetPath, ScanTypes: sc.ScanTypes, TargetURL: sc.TargetURL, TargetHost: sc.TargetHost,
		Status: sc.Status, StartedAt: sc.StartedAt, CompletedAt: sc.CompletedAt, ScannersRun: sc.ScannersRun, ScannersSkipped: sc.ScannersSkipped,
		coverageView: coverageOf(sc)}
	if sc.Error != "" {
		e := sc.Error
		v.Error = &e
	}
	if sc.ScheduleID != "" {
		id := sc.ScheduleID
		v.ScheduleID = &id
	}
	v.Source = sc.Source
	if sc.BasedOnScan != "" {
		b := sc.BasedOnScan
		v.BasedOnScan = &b
	}
	if sc.Commit != "" {
		c := sc.Commit
		v.Commit = &c
	}
	return v
}

// StartScanRequest is the body of POST /scans.
type StartScanRequest struct {
	TargetPath string    `json:"target_path,omitempty" doc:"absolute path of an existing directory; give exactly one of target_path, target_image, target_repo"`
	ScanTypes  *[]string `json:"scan_types,omitempty" doc:"default [\"code\",\"dependency\"]"`
	TargetURL  *string   `json:"target_url,omitempty" doc:"http(s) URL, required for dast"`
	TargetHost *string   `json:"target_host,omitempty" doc:"hostname, IP or CIDR, required for network"`
	// Image and repository targets (scantargets.go).
	TargetImage *TargetImageRequest `json:"target_image,omitempty" doc:"a container image to unpack and scan instead of a directory"`
	TargetRepo  *TargetRepoRequest  `json:"target_repo,omitempty" doc:"a git repository to clone and scan instead of a directory"`
}

// ScanSummary is the body of GET /scans/{id}/summary.
type ScanSummary struct {
	ScanID          string                 `json:"scan_id"`
	Status          string                 `json:"status"`
	Total           int                    `json:"total"`
	SeverityCounts  sse.SeverityCounts     `json:"severity_counts"`
	RiskScore       int                    `json:"risk_score"`
	ScannersRun     []string               `json:"scanners_run"`
	ScannersSkipped []store.SkippedScanner `json:"scanners_skipped" doc:"What the scan left out, and why: a scanner (not installed, no database, failed, nothing to scan), a part of one (\"osv-scanner (PyPI)\", \"kics (kics-scan comments)\"), or the paths the tree's .scand.toml ignores (\".scand.toml [ignore] paths\")"`
	StartedAt       time.Time              `json:"started_at"`
	CompletedAt     *time.Time             `json:"completed_at"`
	DurationS       *float64               `json:"duration_s" doc:"completed_at minus started_at: the scanners and storing the findings"`
	Suppressed      int                    `json:"suppressed" doc:"Findings suppressed inline (scand:ignore, a tool's own #nosec) or by .scand.toml [ignore] rules; severity_counts and risk_score leave them out, total includes them"`
	// VulnDB and Warnings: the offline advisory data the scan used (issue
	// 16, additive); see vulndb.go.
	VulnDB   []store.ScanDataSource `json:"vulndb" doc:"Offline advisory data the dependency scanners read: build date and age at scan time"`
	Warnings []string               `json:"warnings" doc:"Why the result may be incomplete, e.g. advisory data older than SVC_VULNDB_MAX_AGE_DAYS"`
	coverageView
}

// CompareResult is the body of GET /scans/compare.
type CompareResult struct {
	ScanA     string                   `json:"scan_a"`
	ScanB     string                   `json:"scan_b"`
	New       []store.FindingWithState `json:"new"`
	Fixed     []store.FindingWithState `json:"fixed"`
	Unchanged []store.FindingWithState `json:"unchanged"`
	// NotCompared are the findings of a scanner that failed, ran partly
	// or could not run in either scan: neither new nor fixed (issue 23).
	NotCompared        []store.FindingWithState `json:"not_compared" doc:"findings of a scanner that failed, ran partly or could not run in either scan: neither new nor fixed"`
	NotComparedReasons []report.NotCompared     `json:"not_compared_reasons" doc:"per scanner whose findings were not compared: why, and how many"`
}

// EventToken is the body of POST /scans/{id}/event-token.
type EventToken struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Page sizes of GET /scans/{id}/findings.
const (
	findingsDefaultLimit = 500
	findingsMaxLimit     = 5000
)

var (
	defaultScanTypes = []string{scan.TypeCode, scan.TypeDependency}
	zero             = 0
	maxListLimit     = 500
)

// Response headers of the paged lists.
var (
	headerTotal      = Header{Name: "X-Total-Count", Type: "integer", Description: "How many items the filters select in all (from stored counts, not by counting rows)"}
	headerNextCursor = Header{Name: "X-Next-Cursor", Type: "string", Description: "Opaque cursor of the next page; absent on the last page"}
	headerLink       = Header{Name: "Link", Type: "string", Description: `RFC 8288 link to the next page (rel="next"), absent on the last page`}
)

var idParam = []Param{{Name: "id", In: "path", Type: "string", Required: true, Description: "scan id"}}

func (s *Server) scanRoutes() []Route {
	findingFilters := append([]Param{
		{Name: "severity", In: "query", Type: "string", Description: "comma-separated severities (OR within the filter)"},
		{Name: "scan_type", In: "query", Type: "string", Description: "comma-separated scan types"},
		{Name: "scanner", In: "query", Type: "string", Description: "comma-separated scanner ids"},
		{Name: "compliance", In: "query", Type: "string", Description: "comma-separated compliance tags such as OWASP-A03"},
		{Name: "triage", In: "query", Type: "string", Description: "comma-separated triage statuses; new also matches findings without a verdict"},
		{Name: "suppressed", In: "query", Type: "boolean", Description: "true: only findings suppressed inline (scand:ignore); false: only the others"},
		{Name: "limit", In: "query", Type: "integer", Minimum: &zero, Default: findingsDefaultLimit,
			Description: "page size; absent or 0 = " + strconv.Itoa(findingsDefaultLimit) + ", values above " + strconv.Itoa(findingsMaxLimit) + " are capped (format=ndjson: absent = everything)"},
		{Name: "cursor", In: "query", Type: "string", Description: "X-Next-Cursor of the previous page (keyset paging: every page costs the same)"},
		{Name: "offset", In: "query", Type: "integer", Minimum: &zero, Default: 0, Description: "skip this many selected findings (after cursor); costs reading them"},
		{Name: "sort", In: "query", Type: "string", Enum: findings.FindingSorts, Default: findings.SortSeverity,
			Description: "severity: the canonical order (most severe first); first_seen: oldest first (age on the scan's target); file (path, line), scanner, rule: ascending. Ties keep the canonical order; a cursor is only valid with the sort it came from"},
		{Name: "format", In: "query", Type: "string", Enum: []string{"json", "ndjson"}, Default: "json",
			Description: "json: one page as an array; ndjson: one FindingWithState per line, streamed, every selected finding unless limit is given"},
	}, idParam...)
	return []Route{
		{Method: "POST", Path: "/scans", Scope: auth.ScopeWrite, RateLimited: true, Tag: "scans", Summary: "Start a scan (returns at once with status pending)", Request: StartScanRequest{}, Response: ScanView{}, Errors: []int{403}, Handler: s.handleStartScan},
		{Method: "GET", Path: "/scans", Scope: auth.ScopeRead, Tag: "scans", Summary: "List scans, newest first", Response: []ScanView{}, Errors: []int{422},
			Headers: []Header{headerNextCursor, headerLink}, Params: []Param{
				{Name: "limit", In: "query", Type: "integer", Default: 50, Minimum: &zero, Maximum: &maxListLimit},
				{Name: "cursor", In: "query", Type: "string", Description: "X-Next-Cursor of the previous page (keyset paging)"},
				{Name: "offset", In: "query", Type: "integer", Default: 0, Minimum: &zero},
				{Name: "status", In: "query", Type: "string", Description: "comma-separated statuses: pending, running, completed, failed, cancelled"},
				{Name: "target_path", In: "query", Type: "string", Description: "only scans of this exact target path"},
			}, Handler: s.handleListScans},
		{Method: "GET", Path: "/scans/compare", Scope: auth.ScopeRead, Tag: "scans", Summary: "Compare two scans by fingerprint", Response: CompareResult{}, Errors: []int{404, 422}, Params: []Param{
			{Name: "scan_a", In: "query", Type: "string", Required: true, Description: "the baseline (older) scan"},
			{Name: "scan_b", In: "query", Type: "string", Required: true, Description: "the scan compared with it"},
		}, Handler: s.handleCompare},
		{Method: "GET", Path: "/scans/{id}", Scope: auth.ScopeRead, Tag: "scans", Summary: "Get a scan", Response: ScanView{}, Params: idParam, Errors: []int{404}, Handler: s.handleGetScan},
		{Method: "DELETE", Path: "/scans/{id}", Scope: auth.ScopeWrite, Tag: "scans", Summary: "Delete a finished scan and its findings (triage is kept)", Status: http.StatusNoContent, Params: idParam, Errors: []int{404, 409}, Handler: s.handleDeleteScan},
		{Method: "POST", Path: "/scans/{id}/cancel", Scope: auth.ScopeWrite, Tag: "scans", Summary: "Cancel a pending or running scan", Response: ScanView{}, Params: idParam, Errors: []int{404, 409}, Handler: s.handleCancelScan},
		{Method: "GET", Path: "/scans/{id}/findings", Scope: auth.ScopeRead, Tag: "findings", Summary: "Findings of a scan in canonical order or sorted by first_seen, file, scanner or rule, with triage state and age, one page at a time (or all as NDJSON)",
			Response: []ScanFinding{}, ContentTypes: []string{"application/x-ndjson"}, Headers: []Header{headerTotal, headerNextCursor, headerLink},
			Params: findingFilters, Errors: []int{404, 422}, Handler: s.handleFindings},
		{Method: "GET", Path: "/scans/{id}/summary", Scope: auth.ScopeRead, Tag: "scans", Summary: "Severity counts, risk score, scanners and timing", Response: ScanSummary{}, Params: idParam, Errors: []int{404}, Handler: s.handleSummary},
		{Method: "POST", Path: "/scans/{id}/event-token", Scope: auth.ScopeRead, Tag: "events", Summary: "Mint a 5-minute token for this scan's event stream", Response: EventToken{}, Params: idParam, Errors: []int{404}, Handler: s.handleEventToken},
		{Method: "GET", Path: "/scans/{id}/events", Scope: auth.ScopeRead, EventToken: true, Tag: "events", Summary: "Server-sent event stream of a scan (replays the buffer, ends after the terminal event)", ContentTypes: []string{"text/event-stream"}, Params: append([]Param{{Name: "event_token", In: "query", Type: "string", Description: "token from POST /scans/{id}/event-token, instead of a key"}}, idParam...), Errors: []int{404}, Handler: s.handleEvents},
	}
}

func (s *Server) handleStartScan(w http.ResponseWriter, r *http.Request) error {
	var req StartScanRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	// The answer is the scan as stored, pending: read before it is queued,
	// so it never shows part of what preparing the target learns.
	var v ScanView
	_, err := s.createAndQueueScan(r.Context(), PrincipalFrom(r.Context()), req, func(sc store.Scan) (err error) {
		v, err = s.scanViewOf(r.Context(), sc)
		return err
	})
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, v)
	return nil
}

// startScan validates and confines a scan request, stores the scan and
// queues it. The API and the web console both start scans through it.
func (s *Server) startScan(ctx context.Context, p auth.Principal, req StartScanRequest) (store.Scan, error) {
	return s.createAndQueueScan(ctx, p, req, nil)
}

// createAndQueueScan is startScan with beforeQueue called on the stored
// scan before the orchestrator may pick it up.
func (s *Server) createAndQueueScan(ctx context.Context, p auth.Principal, req StartScanRequest, beforeQueue func(store.Scan) error) (store.Scan, error) {
	types := defaultScanTypes
	if req.ScanTypes != nil {
		types = *req.ScanTypes
	}
	img, repo := requestTarget(req)
	checked, probs, err := s.targetPolicy().Check(request.Request{TargetPath: req.TargetPath, ScanTypes: types, TargetURL: req.TargetURL, TargetHost: req.TargetHost,
		TargetImage: img, TargetRepo: repo})
	if len(probs) > 0 {
		return store.Scan{}, problemsError("body", probs)
	}
	if errors.Is(err, request.ErrOutsideRoots) {
		return store.Scan{}, httpio.Status(http.StatusForbidden, err.Error())
	}
	sc, err := s.createScan(ctx, store.Scan{ID: store.NewID(), TargetPath: checked.ScanPath, ScanTypes: checked.ScanTypes,
		TargetURL: checked.TargetURL, TargetHost: checked.TargetHost, StartedAt: s.Now().UTC().Truncate(time.Microsecond), CreatedBy: p.ID,
		DefaultTypes: req.ScanTypes == nil}, checked.Target)
	if err != nil {
		return store.Scan{}, err
	}
	s.audit(ctx, p, "scan.start", "scan", sc.ID, audit.Changes{"status": {After: sc.Status}, "target_path": {After: sc.TargetPath},
		"scan_types": {After: sc.ScanTypes}, "target_url": {After: sc.TargetURL}, "target_host": {After: sc.TargetHost}})
	var viewErr error
	if beforeQueue != nil {
		viewErr = beforeQueue(sc)
	}
	// Queued even when the view could not be read: the scan is stored and
	// must run; the caller reports the read error.
	s.Scans.Submit(sc.ID)
	return sc, viewErr
}

// targetPolicy is the confinement of every scan target (SVC_SCAN_ROOTS,
// SVC_NMAP_MAX_HOSTS), shared with the scheduler.
func (s *Server) targetPolicy() request.TargetPolicy {
	return request.TargetPolicy{Roots: s.ScanRoots, MaxHosts: s.MaxHosts, Targets: s.Targets, GitAllow: s.Git.Allow, RefuseAddress: s.Git.RefuseAddress}
}

// problemsError renders field problems as one 422, each loc under prefix.
func problemsError(prefix string, probs []request.Problem) error {
	var v httpio.Validation
	for _, p := range probs {
		v.Add(p.Type, p.Msg, p.Input, append([]any{prefix}, p.Loc...)...)
	}
	return v.Err()
}

var scanStatuses = []string{store.StatusPending, store.StatusRunning, store.StatusCompleted, store.StatusFailed, store.StatusCancelled}

func (s *Server) handleListScans(w http.ResponseWriter, r *http.Request) error {
	limit, err := httpio.QueryInt(r, "limit", 50, 0, maxListLimit)
	if err != nil {
		return err
	}
	offset, err := httpio.QueryInt(r, "offset", 0, 0, 1<<31-1)
	if err != nil {
		return err
	}
	statuses := httpio.SplitCSV(r.URL.Query().Get("status"))
	for _, st := range statuses {
		if !slices.Contains(scanStatuses, st) {
			return httpio.Invalid("enum", "status must be one of "+strings.Join(scanStatuses, ", "), st, "query", "status")
		}
	}
	var before int64
	if c := r.URL.Query().Get("cursor"); c != "" {
		if before, err = httpio.DecodeCursor(c, "scans", 0); err != nil {
			return err
		}
	}
	if limit == 0 {
		httpio.WriteJSON(w, http.StatusOK, []ScanView{})
		return nil
	}
	scans, err := s.Store.Scans(r.Context(), store.ScanFilter{Statuses: statuses, TargetPath: r.URL.Query().Get("target_path"),
		Limit: limit + 1, Offset: offset, Before: before})
	if err != nil {
		return err
	}
	if len(scans) > limit {
		scans = scans[:limit]
		httpio.SetNextLink(w, r, httpio.EncodeCursor("scans", 0, scans[limit-1].Seq))
	}
	out, err := s.scanViews(r.Context(), scans)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

// loadScan returns the scan named by the {id} path value or a 404.
func (s *Server) loadScan(ctx context.Context, id string) (store.Scan, error) {
	sc, err := s.Store.ScanByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return sc, httpio.NotFound("Scan not found")
	}
	return sc, err
}

func (s *Server) handleGetScan(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.loadScan(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	v, err := s.scanViewOf(r.Context(), sc)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) handleDeleteScan(w http.ResponseWriter, r *http.Request) error {
	if err := s.deleteScan(r.Context(), PrincipalFrom(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteScan deletes a finished scan (API and console).
func (s *Server) deleteScan(ctx context.Context, p auth.Principal, id string) error {
	err := s.Store.DeleteScan(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return httpio.NotFound("Scan not found")
	case errors.Is(err, store.ErrConflict):
		return httpio.Conflict("Scan is pending or running; cancel it before deleting")
	case err == nil:
		s.audit(ctx, p, "scan.delete", "scan", id, audit.Changes{"deleted": {Before: false, After: true}})
	}
	return err
}

func (s *Server) handleCancelScan(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.cancelScan(r.Context(), PrincipalFrom(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	v, err := s.scanViewOf(r.Context(), sc)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, v)
	return nil
}

// cancelScan cancels a pending or running scan (API and console).
func (s *Server) cancelScan(ctx context.Context, p auth.Principal, id string) (store.Scan, error) {
	sc, err := s.Scans.Cancel(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return sc, httpio.NotFound("Scan not found")
	case errors.Is(err, store.ErrConflict):
		return sc, httpio.Conflict("Scan already finished; only pending or running scans can be cancelled")
	case err == nil:
		s.audit(ctx, p, "scan.cancel", "scan", id, audit.Changes{"status": {After: sc.Status}})
	}
	return sc, err
}

// findingQuery reads and validates the filters of GET /scans/{id}/findings.
func findingQuery(r *http.Request) (store.FindingQuery, error) {
	q := r.URL.Query()
	fq := store.FindingQuery{Severities: httpio.SplitCSV(q.Get("severity")), ScanTypes: httpio.SplitCSV(q.Get("scan_type")),
		Scanners: httpio.SplitCSV(q.Get("scanner")), Compliance: httpio.SplitCSV(q.Get("compliance")), Triage: httpio.SplitCSV(q.Get("triage"))}
	for _, sv := range fq.Severities {
		if !finding.Severity(sv).Valid() {
			return fq, httpio.Invalid("enum", "severity must be one of critical, high, medium, low, info", sv, "query", "severity")
		}
	}
	for _, t := range fq.ScanTypes {
		if !slices.Contains(scan.ScanTypes, t) {
			return fq, httpio.Invalid("enum", "scan_type must be one of "+strings.Join(scan.ScanTypes, ", "), t, "query", "scan_type")
		}
	}
	for _, t := range fq.Triage {
		if !slices.Contains(store.TriageStatuses, t) {
			return fq, httpio.Invalid("enum", "triage must be one of "+strings.Join(store.TriageStatuses, ", "), t, "query", "triage")
		}
	}
	var err error
	if fq.Suppressed, err = httpio.QueryOptionalBool(r, "suppressed"); err != nil {
		return fq, err
	}
	if fq.Offset, err = httpio.QueryInt(r, "offset", 0, 0, 1<<31-1); err != nil {
		return fq, err
	}
	return fq, nil
}

func (s *Server) handleFindings(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.loadScan(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	fq, err := findingQuery(r)
	if err != nil {
		return err
	}
	format := r.URL.Query().Get("format")
	if format != "" && format != "json" && format != "ndjson" {
		return httpio.Invalid("enum", "Input should be 'json' or 'ndjson'", format, "query", "format")
	}
	explicit := r.URL.Query().Get("limit") != ""
	if fq.Limit, err = httpio.QueryInt(r, "limit", 0, 0, 1<<31-1); err != nil {
		return err
	}
	switch {
	case format == "ndjson" && (!explicit || fq.Limit == 0):
		fq.Limit = 0 // the whole selection, streamed
	case fq.Limit == 0:
		fq.Limit = findingsDefaultLimit
	default:
		fq.Limit = min(fq.Limit, findingsMaxLimit)
	}
	sort, err := findingSort(r)
	if err != nil {
		return err
	}
	if sort != "" {
		return s.sortedFindings(w, r, sc, fq, sort, format == "ndjson")
	}
	if c := r.URL.Query().Get("cursor"); c != "" {
		from, err := httpio.DecodeCursor(c, "findings", sc.Seq)
		if err != nil {
			return err
		}
		fq.From = int(from)
	}
	total, err := s.Store.CountFindings(r.Context(), sc, fq)
	if err != nil {
		return err
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(total))
	if format == "ndjson" {
		return s.streamFindingsNDJSON(w, r, sc, fq)
	}
	// A page is bounded (findingsMaxLimit rows), so it is built in memory:
	// its next cursor must be known before the headers go out.
	page := fq
	page.Limit++
	buf := make([]byte, 0, 64<<10)
	buf = append(buf, '[')
	now := s.slaNow()
	n, last := 0, -1
	for aged, err := range reportdata.AgedRows(r.Context(), s.Store, sc, nil, s.Store.FindingRows(r.Context(), sc, page)) {
		if err != nil {
			return err
		}
		if n == fq.Limit {
			httpio.SetNextLink(w, r, httpio.EncodeCursor("findings", sc.Seq, int64(last+1)))
			break
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		if buf, err = s.appendAged(buf, aged, now); err != nil {
			return err
		}
		n, last = n+1, aged.Row.Ord
	}
	buf = append(buf, ']')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
	w.WriteHeader(http.StatusOK)
	w.Write(buf)
	return nil
}

func (s *Server) streamFindingsNDJSON(w http.ResponseWriter, r *http.Request, sc store.Scan, fq store.FindingQuery) error {
	sw := httpio.StartStream(w, "application/x-ndjson")
	now := s.slaNow()
	var buf []byte
	for aged, err := range reportdata.AgedRows(r.Context(), s.Store, sc, nil, s.Store.FindingRows(r.Context(), sc, fq)) {
		if err != nil {
			return sw.Fail(err)
		}
		if buf, err = s.appendAged(buf[:0], aged, now); err != nil {
			return sw.Fail(err)
		}
		if _, err := sw.Write(append(buf, '\n')); err != nil {
			return sw.Fail(err)
		}
	}
	return sw.Finish()
}

// appendAged appends a stored row as a ScanFinding: its JSON with the
// age and deadline fields spliced in.
func (s *Server) appendAged(b []byte, aged reportdata.Aged, now time.Time) ([]byte, error) {
	b, err := aged.Row.AppendJSON(b)
	if err != nil {
		return b, err
	}
	var sev finding.Severity
	if aged.Seen != nil {
		if sev, err = aged.Row.Severity(); err != nil {
			return b, err
		}
	}
	return portfolio.SpliceAge(b, portfolio.ScanAgeFields(s.SLA, sev, aged.Seen, now))
}

func (s *Server) handleSummary(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.loadScan(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	sum := summaryOf(sc)
	if sum.VulnDB, err = s.Store.ScanDataSources(r.Context(), sc.ID); err != nil {
		return err
	}
	coverage, err := reportdata.ScanCoverage(r.Context(), s.Store, sc)
	if err != nil {
		return err
	}
	sum.Warnings = append(report.DataWarnings(sum.VulnDB), coverage...)
	httpio.WriteJSON(w, http.StatusOK, sum)
	return nil
}

func summaryOf(sc store.Scan) ScanSummary {
	c := sc.LiveCounts
	sum := ScanSummary{ScanID: sc.ID, Status: sc.Status, Total: sc.FindingsCount, RiskScore: sc.RiskScore, Suppressed: sc.Suppressed,
		SeverityCounts: sse.SeverityCounts{Critical: c["critical"], High: c["high"], Medium: c["medium"], Low: c["low"], Info: c["info"]},
		ScannersRun:    sc.ScannersRun, ScannersSkipped: sc.ScannersSkipped, StartedAt: sc.StartedAt, CompletedAt: sc.CompletedAt,
		coverageView: coverageOf(sc)}
	if sc.CompletedAt != nil {
		d := float64(sc.CompletedAt.Sub(sc.StartedAt).Milliseconds()) / 1000
		sum.DurationS = &d
	}
	return sum
}

// handleCompare streams {scan_a, scan_b, new, fixed, unchanged}: the store
// merges the two scans' fingerprint indexes and the rows go straight to
// the response, each list in canonical order.
func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v httpio.Validation
	for _, name := range []string{"scan_a", "scan_b"} {
		if q.Get(name) == "" {
			v.Add("missing", "Field required", nil, "query", name)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.loadScan(r.Context(), q.Get("scan_a"))
	if err != nil {
		return err
	}
	b, err := s.loadScan(r.Context(), q.Get("scan_b"))
	if err != nil {
		return err
	}
	head, err := json.Marshal(struct {
		ScanA string `json:"scan_a"`
		ScanB string `json:"scan_b"`
	}{a.ID, b.ID})
	if err != nil {
		return err
	}
	sw := httpio.StartStream(w, "application/json")
	sw.Write(head[:len(head)-1])
	names := [...]string{store.CompareNew: "new", store.CompareFixed: "fixed", store.CompareUnchanged: "unchanged"}
	next := store.CompareNew // the next list to open
	first := true
	open := func(upTo store.CompareSet) {
		for ; next <= upTo; next++ {
			if next > store.CompareNew {
				sw.WriteByte(']')
			}
			sw.WriteString(`,"` + names[next] + `":[`)
			first = true
		}
	}
	buf := make([]byte, 0, 4096)
	uncompared, err := reportdata.NotCompared(r.Context(), s.Store, a, b)
	if err != nil {
		return sw.Fail(err)
	}
	for row, err := range s.Store.Compare(r.Context(), a, b) {
		if err != nil {
			return sw.Fail(err)
		}
		if uncompared.Has(row) {
			continue
		}
		open(row.Set)
		if !first {
			sw.WriteByte(',')
		}
		first = false
		if buf, err = row.AppendJSON(buf[:0]); err != nil {
			return sw.Fail(err)
		}
		if _, err := sw.Write(buf); err != nil {
			return sw.Fail(err)
		}
	}
	open(store.CompareUnchanged)
	sw.WriteString(`],"not_compared":[`)
	// A second pass only when a scanner did not look fully on a side.
	first = true
	for row, err := range uncompared.Rows(s.Store.Compare(r.Context(), a, b)) {
		if err != nil {
			return sw.Fail(err)
		}
		if !first {
			sw.WriteByte(',')
		}
		first = false
		if buf, err = row.AppendJSON(buf[:0]); err != nil {
			return sw.Fail(err)
		}
		if _, err := sw.Write(buf); err != nil {
			return sw.Fail(err)
		}
	}
	reasons, _ := json.Marshal(uncompared.Reasons())
	sw.WriteString(`],"not_compared_reasons":`)
	sw.Write(reasons)
	sw.WriteString("}\n")
	return sw.Finish()
}

func (s *Server) handleEventToken(w http.ResponseWriter, r *http.Request) error {
	tok, err := s.mintEventToken(r.Context(), PrincipalFrom(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpio.WriteJSON(w, http.StatusOK, tok)
	return nil
}

// mintEventToken mints p's token for one scan's event stream; the console
// embeds one in a running scan's page for its live progress.
func (s *Server) mintEventToken(ctx context.Context, p auth.Principal, scanID string) (EventToken, error) {
	sc, err := s.loadScan(ctx, scanID)
	if err != nil {
		return EventToken{}, err
	}
	tok, exp := auth.MintEventToken(s.EventSecret, sc.ID, p.ID, s.Now())
	return EventToken{Token: tok, ExpiresAt: exp}, nil
}
