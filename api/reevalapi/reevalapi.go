// Package reevalapi serves /reevaluations (issue 27): re-evaluating the
// stored SBOMs of targets against the advisory data imported now, on
// demand, and the runs an import started. scan/reevaluate does the work.
package reevalapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/api/review"
	"scand/auth"
	"scand/scan/reevaluate"
	"scand/store"
	"scand/store/audit"
)

// Handlers holds what the routes need.
type Handlers struct {
	Store  *store.Store
	Engine *reevaluate.Engine
	Log    *slog.Logger
	Audit  *review.Recorder
	// Principal is the authenticated caller of a request.
	Principal func(context.Context) auth.Principal
}

// StartRequest is the body of POST /reevaluations; it may be absent.
type StartRequest struct {
	Targets []int64 `json:"targets,omitempty" doc:"ids of the targets to re-evaluate (at most 10000); absent or empty: every target with a completed scan"`
}

// View is a re-evaluation as clients see it.
type View struct {
	ID              string         `json:"id"`
	Trigger         string         `json:"trigger" doc:"import (after an advisory-data import) or manual (POST /reevaluations)"`
	Status          string         `json:"status" doc:"pending, running, completed, failed or cancelled"`
	CreatedBy       string         `json:"created_by"`
	CreatedAt       time.Time      `json:"created_at"`
	StartedAt       *time.Time     `json:"started_at"`
	CompletedAt     *time.Time     `json:"completed_at"`
	Error           string         `json:"error"`
	TargetsTotal    int            `json:"targets_total"`
	TargetsByStatus map[string]int `json:"targets_by_status" doc:"pending, completed, skipped (nothing to match), failed, cancelled"`
	NewMatches      int            `json:"new_matches" doc:"advisories matched that the targets' previous latest scans did not have"`
	Announced       bool           `json:"announced" doc:"the run's advisory.new_matches event went out (or there was nothing new to send)"`
}

// TargetView is one target of a run.
type TargetView struct {
	Position   int                   `json:"position"`
	TargetID   int64                 `json:"target_id"`
	TargetName string                `json:"target_name"`
	BaseScanID string                `json:"base_scan_id" doc:"the scan whose stored components were matched"`
	ScanID     string                `json:"scan_id" doc:"the scan the re-evaluation made (source reevaluation); its events stream at /scans/{scan_id}/events"`
	Status     string                `json:"status"`
	Note       string                `json:"note"`
	NewMatches []store.AdvisoryMatch `json:"new_matches"`
}

// DetailView is one run with its targets.
type DetailView struct {
	View
	Targets []TargetView `json:"targets"`
}

const maxTargets = 10000

// Routes are the /reevaluations routes.
func (h *Handlers) Routes() []openapi.Route {
	id := []openapi.Param{{Name: "id", In: "path", Type: "string", Required: true, Description: "re-evaluation id"}}
	zero, maxLimit := 0, 200
	return []openapi.Route{
		{Method: "POST", Path: "/reevaluations", Scope: auth.ScopeWrite, Tag: "reevaluations",
			Summary: "Re-evaluate the stored SBOM of each target's latest completed scan against the advisory data imported now (osv-scanner and trivy, offline); one scan per target, source reevaluation",
			Request: StartRequest{}, Response: View{}, Status: http.StatusAccepted, Errors: []int{422, 503}, Handler: h.handleStart},
		{Method: "GET", Path: "/reevaluations", Scope: auth.ScopeRead, Tag: "reevaluations", Summary: "Re-evaluations, newest first",
			Params: []openapi.Param{{Name: "limit", In: "query", Type: "integer", Default: 50, Minimum: &zero, Maximum: &maxLimit},
				{Name: "before", In: "query", Type: "string", Description: "list the runs created before this run id (paging)"}},
			Response: []View{}, Errors: []int{422}, Handler: h.handleList},
		{Method: "GET", Path: "/reevaluations/{id}", Scope: auth.ScopeRead, Tag: "reevaluations", Summary: "One re-evaluation with its targets, their scans and the advisories newly matched",
			Params: id, Response: DetailView{}, Errors: []int{404}, Handler: h.handleGet},
		{Method: "DELETE", Path: "/reevaluations/{id}", Scope: auth.ScopeWrite, Tag: "reevaluations", Summary: "Cancel a pending or running re-evaluation (same as POST /reevaluations/{id}/cancel)",
			Params: id, Response: View{}, Errors: []int{404, 409}, Handler: h.handleCancel},
		{Method: "POST", Path: "/reevaluations/{id}/cancel", Scope: auth.ScopeWrite, Tag: "reevaluations", Summary: "Cancel a pending or running re-evaluation: its current target's scan is cancelled, no further target is taken",
			Params: id, Response: View{}, Errors: []int{404, 409}, Handler: h.handleCancel},
	}
}

// ViewOf is a run's client view.
func ViewOf(r store.Reevaluation) View {
	by := r.ByStatus
	if by == nil {
		by = map[string]int{}
	}
	return View{ID: r.ID, Trigger: r.Trigger, Status: r.Status, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, StartedAt: r.StartedAt,
		CompletedAt: r.CompletedAt, Error: r.Error, TargetsTotal: r.Targets, TargetsByStatus: by, NewMatches: r.NewMatches, Announced: r.Announced}
}

func (h *Handlers) handleStart(w http.ResponseWriter, r *http.Request) error {
	if h.Engine == nil {
		return httpio.Status(http.StatusServiceUnavailable, "Re-evaluation is not running in this process")
	}
	var req StartRequest
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return httpio.Status(http.StatusRequestEntityTooLarge, "Request body too large")
		}
		return httpio.Status(http.StatusBadRequest, "Could not read request body")
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if err := httpio.DecodeBody(r, &req); err != nil {
			return err
		}
	}
	if len(req.Targets) > maxTargets {
		return httpio.Invalid("too_long", "at most 10000 targets", len(req.Targets), "body", "targets")
	}
	for i, id := range req.Targets {
		if id <= 0 {
			return httpio.Invalid("greater_than", "target ids are positive integers", id, "body", "targets", i)
		}
	}
	p := h.Principal(r.Context())
	by := p.Name
	if by == "" {
		by = p.ID
	}
	run, err := h.Engine.Submit(r.Context(), store.ReevalTriggerManual, by, req.Targets)
	var unknown *store.UnknownTargetsError
	if errors.As(err, &unknown) {
		return httpio.Invalid("unknown_target", "no such target: "+fmtIDs(unknown.IDs), unknown.IDs, "body", "targets")
	}
	if err != nil {
		return err
	}
	h.Log.Info("re-evaluation started", "reevaluation_id", run.ID, "targets", run.Targets, "key_id", p.ID)
	h.Audit.Record(r.Context(), p, "reevaluation.start", "reevaluation", run.ID, audit.Changes{"targets": {After: run.Targets}})
	httpio.WriteJSON(w, http.StatusAccepted, ViewOf(run))
	return nil
}

func fmtIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ", ")
}

func (h *Handlers) handleList(w http.ResponseWriter, r *http.Request) error {
	limit, err := httpio.QueryInt(r, "limit", 50, 0, 200)
	if err != nil {
		return err
	}
	runs, err := h.Store.Reevaluations(r.Context(), r.URL.Query().Get("before"), limit)
	if err != nil {
		return err
	}
	out := make([]View, 0, len(runs))
	for _, run := range runs {
		out = append(out, ViewOf(run))
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) handleGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	run, err := h.Store.Reevaluation(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Re-evaluation not found")
	}
	if err != nil {
		return err
	}
	out := DetailView{View: ViewOf(run), Targets: []TargetView{}}
	after := 0
	for {
		ts, err := h.Store.ReevaluationTargets(r.Context(), id, after, 500)
		if err != nil {
			return err
		}
		for _, t := range ts {
			out.Targets = append(out.Targets, TargetView{Position: t.Position, TargetID: t.TargetID, TargetName: t.TargetName, BaseScanID: t.BaseScanID,
				ScanID: t.ScanID, Status: t.Status, Note: t.Note, NewMatches: t.NewMatches})
			after = t.Position
		}
		if len(ts) < 500 {
			break
		}
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) handleCancel(w http.ResponseWriter, r *http.Request) error {
	if h.Engine == nil {
		return httpio.Status(http.StatusServiceUnavailable, "Re-evaluation is not running in this process")
	}
	id := r.PathValue("id")
	run, err := h.Engine.Cancel(r.Context(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return httpio.NotFound("Re-evaluation not found")
	case errors.Is(err, store.ErrConflict):
		return httpio.Status(http.StatusConflict, "Re-evaluation already ended")
	case err != nil:
		return err
	}
	p := h.Principal(r.Context())
	h.Log.Info("re-evaluation cancelled", "reevaluation_id", id, "key_id", p.ID)
	h.Audit.Record(r.Context(), p, "reevaluation.cancel", "reevaluation", id, audit.Changes{"status": {After: run.Status}})
	httpio.WriteJSON(w, http.StatusOK, ViewOf(run))
	return nil
}
