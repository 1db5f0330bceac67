package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/auth"
	"scand/finding"
	"scand/scan"
	"scand/sse"
	"scand/store"
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
	ScannersSkipped []store.SkippedScanner `json:"scanners_skipped"`
	Error           *string                `json:"error" doc:"why the scan failed; null unless status is failed"`
	ScheduleID      *string                `json:"schedule_id" doc:"the schedule that started the scan; null for scans started through POST /scans"`
	TargetImage     *TargetImageView       `json:"target_image" doc:"the container image scanned (target_path is then its archive); null for other scans"`
	TargetRepo      *TargetRepoView        `json:"target_repo" doc:"the git repository scanned (target_path is then its URL); null for other scans"`
}

func scanView(sc store.Scan) ScanView {
	v := ScanView{ID: sc.ID, TargetPath: sc.TargetPath, ScanTypes: sc.ScanTypes, TargetURL: sc.TargetURL, TargetHost: sc.TargetHost,
		Status: sc.Status, StartedAt: sc.StartedAt, CompletedAt: sc.CompletedAt, ScannersRun: sc.ScannersRun, ScannersSkipped: sc.ScannersSkipped}
	if sc.Error != "" {
		e := sc.Error
		v.Error = &e
	}
	if sc.ScheduleID != "" {
		id := sc.ScheduleID
		v.ScheduleID = &id
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
	ScannersSkipped []store.SkippedScanner `json:"scanners_skipped"`
	StartedAt       time.Time              `json:"started_at"`
	CompletedAt     *time.Time             `json:"completed_at"`
	DurationS       *float64               `json:"duration_s"`
}

// CompareResult is the body of GET /scans/compare.
type CompareResult struct {
	ScanA     string                   `json:"scan_a"`
	ScanB     string                   `json:"scan_b"`
	New       []store.FindingWithState `json:"new"`
	Fixed     []store.FindingWithState `json:"fixed"`
	Unchanged []store.FindingWithState `json:"unchanged"`
}

// EventToken is the body of POST /scans/{id}/event-token.
type EventToken struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

var (
	defaultScanTypes = []string{scan.TypeCode, scan.TypeDependency}
	zero             = 0
	maxListLimit     = 500
	maxFindingsLimit = 100000
)

var idParam = []Param{{Name: "id", In: "path", Type: "string", Required: true, Description: "scan id"}}

func (s *Server) scanRoutes() []Route {
	findingFilters := append([]Param{
		{Name: "severity", In: "query", Type: "string", Description: "comma-separated severities (OR within the filter)"},
		{Name: "scan_type", In: "query", Type: "string", Description: "comma-separated scan types"},
		{Name: "compliance", In: "query", Type: "string", Description: "comma-separated compliance tags such as OWASP-A03"},
		{Name: "limit", In: "query", Type: "integer", Minimum: &zero, Maximum: &maxFindingsLimit, Description: "0 or absent = all"},
		{Name: "offset", In: "query", Type: "integer", Minimum: &zero, Default: 0},
	}, idParam...)
	return []Route{
		{Method: "POST", Path: "/scans", Scope: auth.ScopeWrite, RateLimited: true, Tag: "scans", Summary: "Start a scan (returns at once with status pending)", Request: StartScanRequest{}, Response: ScanView{}, Errors: []int{403}, Handler: s.handleStartScan},
		{Method: "GET", Path: "/scans", Scope: auth.ScopeRead, Tag: "scans", Summary: "List scans, newest first", Response: []ScanView{}, Errors: []int{422}, Params: []Param{
			{Name: "limit", In: "query", Type: "integer", Default: 50, Minimum: &zero, Maximum: &maxListLimit},
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
		{Method: "GET", Path: "/scans/{id}/findings", Scope: auth.ScopeRead, Tag: "findings", Summary: "Findings of a scan in canonical order, with triage state", Response: []store.FindingWithState{}, Params: findingFilters, Errors: []int{404, 422}, Handler: s.handleFindings},
		{Method: "GET", Path: "/scans/{id}/summary", Scope: auth.ScopeRead, Tag: "scans", Summary: "Severity counts, risk score, scanners and timing", Response: ScanSummary{}, Params: idParam, Errors: []int{404}, Handler: s.handleSummary},
		{Method: "POST", Path: "/scans/{id}/event-token", Scope: auth.ScopeRead, Tag: "events", Summary: "Mint a 5-minute token for this scan's event stream", Response: EventToken{}, Params: idParam, Errors: []int{404}, Handler: s.handleEventToken},
		{Method: "GET", Path: "/scans/{id}/events", Scope: auth.ScopeRead, EventToken: true, Tag: "events", Summary: "Server-sent event stream of a scan (replays the buffer, ends after the terminal event)", ContentTypes: []string{"text/event-stream"}, Params: append([]Param{{Name: "event_token", In: "query", Type: "string", Description: "token from POST /scans/{id}/event-token, instead of a key"}}, idParam...), Errors: []int{404}, Handler: s.handleEvents},
	}
}

func (s *Server) handleStartScan(w http.ResponseWriter, r *http.Request) error {
	var req StartScanRequest
	if err := decodeBody(r, &req); err != nil {
		return err
	}
	sc, err := s.startScan(r.Context(), PrincipalFrom(r.Context()), req)
	if err != nil {
		return err
	}
	v, err := s.scanViewOf(r.Context(), sc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// startScan validates and confines a scan request, stores the scan and
// queues it. The API and the web console both start scans through it.
func (s *Server) startScan(ctx context.Context, p auth.Principal, req StartScanRequest) (store.Scan, error) {
	types := defaultScanTypes
	if req.ScanTypes != nil {
		types = *req.ScanTypes
	}
	img, repo := requestTarget(req)
	checked, probs, err := s.targetPolicy().Check(scan.Request{TargetPath: req.TargetPath, ScanTypes: types, TargetURL: req.TargetURL, TargetHost: req.TargetHost,
		TargetImage: img, TargetRepo: repo})
	if len(probs) > 0 {
		return store.Scan{}, problemsError("body", probs)
	}
	if errors.Is(err, scan.ErrOutsideRoots) {
		return store.Scan{}, errStatus(http.StatusForbidden, err.Error())
	}
	sc, err := s.createScan(ctx, store.Scan{ID: store.NewID(), TargetPath: checked.TargetPath, ScanTypes: checked.ScanTypes,
		TargetURL: checked.TargetURL, TargetHost: checked.TargetHost, StartedAt: s.Now().UTC().Truncate(time.Microsecond), CreatedBy: p.ID}, checked.Target)
	if err != nil {
		return store.Scan{}, err
	}
	s.Scans.Submit(sc.ID)
	return sc, nil
}

// targetPolicy is the confinement of every scan target (SVC_SCAN_ROOTS,
// SVC_NMAP_MAX_HOSTS), shared with the scheduler.
func (s *Server) targetPolicy() scan.TargetPolicy {
	return scan.TargetPolicy{Roots: s.ScanRoots, MaxHosts: s.MaxHosts, GitAllow: s.Git.Allow, RefuseAddress: s.Git.RefuseAddress}
}

// problemsError renders field problems as one 422, each loc under prefix.
func problemsError(prefix string, probs []scan.Problem) error {
	var v validation
	for _, p := range probs {
		v.add(p.Type, p.Msg, p.Input, append([]any{prefix}, p.Loc...)...)
	}
	return v.err()
}

func splitCSV(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var scanStatuses = []string{store.StatusPending, store.StatusRunning, store.StatusCompleted, store.StatusFailed, store.StatusCancelled}

func (s *Server) handleListScans(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit", 50, 0, maxListLimit)
	if err != nil {
		return err
	}
	offset, err := queryInt(r, "offset", 0, 0, 1<<31-1)
	if err != nil {
		return err
	}
	statuses := splitCSV(r.URL.Query().Get("status"))
	for _, st := range statuses {
		if !slices.Contains(scanStatuses, st) {
			return invalid("enum", "status must be one of "+strings.Join(scanStatuses, ", "), st, "query", "status")
		}
	}
	if limit == 0 {
		writeJSON(w, http.StatusOK, []ScanView{})
		return nil
	}
	scans, err := s.Store.Scans(r.Context(), store.ScanFilter{Statuses: statuses, TargetPath: r.URL.Query().Get("target_path"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	out, err := s.scanViews(r.Context(), scans)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// loadScan returns the scan named by the {id} path value or a 404.
func (s *Server) loadScan(ctx context.Context, id string) (store.Scan, error) {
	sc, err := s.Store.ScanByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return sc, errNotFound("Scan not found")
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
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) handleDeleteScan(w http.ResponseWriter, r *http.Request) error {
	if err := s.deleteScan(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteScan deletes a finished scan (API and console).
func (s *Server) deleteScan(ctx context.Context, id string) error {
	err := s.Store.DeleteScan(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errNotFound("Scan not found")
	case errors.Is(err, store.ErrConflict):
		return errConflict("Scan is pending or running; cancel it before deleting")
	}
	return err
}

func (s *Server) handleCancelScan(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.cancelScan(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	v, err := s.scanViewOf(r.Context(), sc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// cancelScan cancels a pending or running scan (API and console).
func (s *Server) cancelScan(ctx context.Context, id string) (store.Scan, error) {
	sc, err := s.Scans.Cancel(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return sc, errNotFound("Scan not found")
	case errors.Is(err, store.ErrConflict):
		return sc, errConflict("Scan already finished; only pending or running scans can be cancelled")
	}
	return sc, err
}

func (s *Server) handleFindings(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.loadScan(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	q := r.URL.Query()
	f := store.FindingFilter{Severities: splitCSV(q.Get("severity")), ScanTypes: splitCSV(q.Get("scan_type")), Compliance: splitCSV(q.Get("compliance"))}
	for _, sv := range f.Severities {
		if !finding.Severity(sv).Valid() {
			return invalid("enum", "severity must be one of critical, high, medium, low, info", sv, "query", "severity")
		}
	}
	for _, t := range f.ScanTypes {
		if !slices.Contains(scan.ScanTypes, t) {
			return invalid("enum", "scan_type must be one of "+strings.Join(scan.ScanTypes, ", "), t, "query", "scan_type")
		}
	}
	var err error
	if f.Limit, err = queryInt(r, "limit", 0, 0, maxFindingsLimit); err != nil {
		return err
	}
	if f.Offset, err = queryInt(r, "offset", 0, 0, 1<<31-1); err != nil {
		return err
	}
	body, err := s.Store.AppendFindingsJSON(r.Context(), make([]byte, 0, 64<<10), r.PathValue("id"), f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return nil
}

func (s *Server) handleSummary(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.loadScan(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, summaryOf(sc))
	return nil
}

func summaryOf(sc store.Scan) ScanSummary {
	c := sc.SeverityCounts
	sum := ScanSummary{ScanID: sc.ID, Status: sc.Status, Total: sc.FindingsCount, RiskScore: sc.RiskScore,
		SeverityCounts: sse.SeverityCounts{Critical: c["critical"], High: c["high"], Medium: c["medium"], Low: c["low"], Info: c["info"]},
		ScannersRun:    sc.ScannersRun, ScannersSkipped: sc.ScannersSkipped, StartedAt: sc.StartedAt, CompletedAt: sc.CompletedAt}
	if sc.CompletedAt != nil {
		d := float64(sc.CompletedAt.Sub(sc.StartedAt).Milliseconds()) / 1000
		sum.DurationS = &d
	}
	return sum
}

func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v validation
	for _, name := range []string{"scan_a", "scan_b"} {
		if q.Get(name) == "" {
			v.add("missing", "Field required", nil, "query", name)
		}
	}
	if err := v.err(); err != nil {
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
	fa, err := s.Store.FindingsByScan(r.Context(), a.ID, store.FindingFilter{})
	if err != nil {
		return err
	}
	fb, err := s.Store.FindingsByScan(r.Context(), b.ID, store.FindingFilter{})
	if err != nil {
		return err
	}
	inA := map[string]bool{}
	for _, f := range fa {
		inA[f.Fingerprint] = true
	}
	inB := map[string]bool{}
	res := CompareResult{ScanA: a.ID, ScanB: b.ID, New: []store.FindingWithState{}, Fixed: []store.FindingWithState{}, Unchanged: []store.FindingWithState{}}
	for _, f := range fb {
		inB[f.Fingerprint] = true
		if inA[f.Fingerprint] {
			res.Unchanged = append(res.Unchanged, f)
		} else {
			res.New = append(res.New, f)
		}
	}
	for _, f := range fa {
		if !inB[f.Fingerprint] {
			res.Fixed = append(res.Fixed, f)
		}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func (s *Server) handleEventToken(w http.ResponseWriter, r *http.Request) error {
	tok, err := s.mintEventToken(r.Context(), PrincipalFrom(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, tok)
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
