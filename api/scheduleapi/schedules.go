// Package scheduleapi serves /schedules: scans of a target on a cron
// expression and the history of their runs. The api package mounts its
// routes; the console changes schedules through the same exported
// functions, so both validate, log and audit alike.
package scheduleapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/api/review"
	"scand/auth"
	"scand/scan/request"
	"scand/scan/schedule"
	"scand/store"
)

// Handlers holds what the schedule routes need.
type Handlers struct {
	Store *store.Store
	// Schedules creates, edits and deletes schedules on the scheduler's
	// clock and wakes it.
	Schedules *schedule.Scheduler
	Log       *slog.Logger
	// Audit records every change (api/review).
	Audit *review.Recorder
	// Principal is the authenticated caller of a request.
	Principal func(context.Context) auth.Principal
}

// ScheduleView is a schedule as clients see it.
type ScheduleView struct {
	ID               string     `json:"id"`
	Name             string     `json:"name"`
	TargetPath       string     `json:"target_path"`
	ScanTypes        []string   `json:"scan_types"`
	TargetURL        *string    `json:"target_url"`
	TargetHost       *string    `json:"target_host"`
	Cron             string     `json:"cron" doc:"five fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly"`
	Timezone         string     `json:"timezone" doc:"IANA zone the cron fields are read in"`
	Enabled          bool       `json:"enabled"`
	AlertMinSeverity *string    `json:"alert_min_severity" doc:"a new finding at or above this severity makes a notification; null means SVC_ALERT_MIN_SEVERITY"`
	KeepLast         *int       `json:"keep_last" doc:"retention keeps this many of the schedule's newest completed scans; null means no limit"`
	NextRunAt        *time.Time `json:"next_run_at" doc:"next run time (RFC 3339, UTC); null while disabled"`
	LastRunAt        *time.Time `json:"last_run_at" doc:"when the schedule last came due; null before its first run"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
}

// CreateScheduleRequest is the body of POST /schedules.
type CreateScheduleRequest struct {
	Name             string   `json:"name" doc:"1 to 200 characters"`
	TargetPath       string   `json:"target_path" doc:"absolute path of an existing directory, as for POST /scans"`
	ScanTypes        []string `json:"scan_types" doc:"non-empty list of scan types"`
	TargetURL        *string  `json:"target_url,omitempty" doc:"http(s) URL, required for dast"`
	TargetHost       *string  `json:"target_host,omitempty" doc:"hostname, IP or CIDR, required for network"`
	Cron             string   `json:"cron" doc:"five fields with *, lists, ranges, steps and month/day names, or @hourly, @daily, @weekly, @monthly"`
	Timezone         *string  `json:"timezone,omitempty" doc:"IANA zone name; default UTC"`
	Enabled          *bool    `json:"enabled,omitempty" doc:"default true"`
	AlertMinSeverity *string  `json:"alert_min_severity,omitempty" doc:"critical, high, medium, low or info; absent or empty means SVC_ALERT_MIN_SEVERITY"`
	KeepLast         *int     `json:"keep_last,omitempty" doc:"0 to 100000; absent or 0 means no per-schedule limit"`
}

// UpdateScheduleRequest is the body of PATCH /schedules/{id}; absent or
// null fields are left unchanged.
type UpdateScheduleRequest struct {
	Name             *string   `json:"name,omitempty"`
	TargetPath       *string   `json:"target_path,omitempty"`
	ScanTypes        *[]string `json:"scan_types,omitempty"`
	TargetURL        *string   `json:"target_url,omitempty" doc:"empty string removes it"`
	TargetHost       *string   `json:"target_host,omitempty" doc:"empty string removes it"`
	Cron             *string   `json:"cron,omitempty"`
	Timezone         *string   `json:"timezone,omitempty"`
	Enabled          *bool     `json:"enabled,omitempty" doc:"enabling computes the next run from now; missed run times are not caught up"`
	AlertMinSeverity *string   `json:"alert_min_severity,omitempty" doc:"empty string means SVC_ALERT_MIN_SEVERITY"`
	KeepLast         *int      `json:"keep_last,omitempty" doc:"0 removes the limit"`
}

// ScheduleRunView is one time a schedule came due.
type ScheduleRunView struct {
	ID           string    `json:"id"`
	ScheduleID   string    `json:"schedule_id"`
	ScheduledFor time.Time `json:"scheduled_for" doc:"the run time that came due (after downtime, the first one missed)"`
	CreatedAt    time.Time `json:"created_at" doc:"when the scheduler acted on it"`
	Outcome      string    `json:"outcome" doc:"started; skipped (its previous scan was still pending or running); failed (the target no longer passes the checks of POST /scans, see reason)"`
	Reason       string    `json:"reason" doc:"why a run was skipped or failed; empty when started"`
	ScanID       *string   `json:"scan_id" doc:"the scan it started; null when it started none"`
	Status       *string   `json:"status" doc:"that scan's current status; null when there is no scan or it was deleted"`
}

// maxRunsLimit caps GET /schedules/{id}/runs?limit.
const maxRunsLimit = 500

// Routes is the schedule part of the route table.
func (s *Handlers) Routes() []openapi.Route {
	scheduleID := []openapi.Param{{Name: "id", In: "path", Type: "string", Required: true, Description: "schedule id"}}
	zero, maxRuns := 0, maxRunsLimit
	return []openapi.Route{
		{Method: "POST", Path: "/schedules", Scope: auth.ScopeAdmin, Tag: "schedules", Summary: "Create a schedule: a scan of a target on a cron expression", Request: CreateScheduleRequest{}, Response: ScheduleView{}, Status: http.StatusCreated, Errors: []int{403}, Handler: s.handleCreateSchedule},
		{Method: "GET", Path: "/schedules", Scope: auth.ScopeAdmin, Tag: "schedules", Summary: "List schedules in creation order", Response: []ScheduleView{}, Handler: s.handleListSchedules},
		{Method: "GET", Path: "/schedules/{id}", Scope: auth.ScopeAdmin, Tag: "schedules", Summary: "One schedule with its next run time", Params: scheduleID, Response: ScheduleView{}, Errors: []int{404}, Handler: s.handleGetSchedule},
		{Method: "PATCH", Path: "/schedules/{id}", Scope: auth.ScopeAdmin, Tag: "schedules", Summary: "Edit a schedule (a new cron, timezone or enabling recomputes next_run_at)", Params: scheduleID, Request: UpdateScheduleRequest{}, Response: ScheduleView{}, Errors: []int{403, 404}, Handler: s.handleUpdateSchedule},
		{Method: "DELETE", Path: "/schedules/{id}", Scope: auth.ScopeAdmin, Tag: "schedules", Summary: "Delete a schedule and its run history (the scans it started are kept)", Params: scheduleID, Status: http.StatusNoContent, Errors: []int{404}, Handler: s.handleDeleteSchedule},
		{Method: "GET", Path: "/schedules/{id}/runs", Scope: auth.ScopeAdmin, Tag: "schedules", Summary: "Runs of a schedule, newest first: the scan each started and its status, or why none started", Response: []ScheduleRunView{},
			Params: append([]openapi.Param{{Name: "limit", In: "query", Type: "integer", Default: 50, Minimum: &zero, Maximum: &maxRuns}}, scheduleID...), Errors: []int{404, 422}, Handler: s.handleScheduleRuns},
	}
}

func scheduleView(sc store.Schedule) ScheduleView {
	v := ScheduleView{ID: sc.ID, Name: sc.Name, TargetPath: sc.TargetPath, ScanTypes: sc.ScanTypes, TargetURL: sc.TargetURL, TargetHost: sc.TargetHost,
		Cron: sc.Cron, Timezone: sc.Timezone, Enabled: sc.Enabled, NextRunAt: sc.NextRunAt, LastRunAt: sc.LastRunAt, CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt}
	if v.ScanTypes == nil {
		v.ScanTypes = []string{}
	}
	if sc.AlertMinSeverity != "" {
		sev := sc.AlertMinSeverity
		v.AlertMinSeverity = &sev
	}
	if sc.KeepLast > 0 {
		keep := sc.KeepLast
		v.KeepLast = &keep
	}
	return v
}

// scheduleError maps the scheduler's errors to HTTP ones.
func scheduleError(err error) error {
	var ve *schedule.ValidationError
	switch {
	case errors.As(err, &ve):
		// The 422 shape of api's problemsError, which this package
		// cannot import: field problems under "body".
		var v httpio.Validation
		for _, p := range ve.Problems {
			v.Add(p.Type, p.Msg, p.Input, append([]any{"body"}, p.Loc...)...)
		}
		return v.Err()
	case errors.Is(err, request.ErrOutsideRoots):
		return httpio.Status(http.StatusForbidden, err.Error())
	case errors.Is(err, store.ErrNotFound):
		return httpio.NotFound("Schedule not found")
	}
	return err
}

func (s *Handlers) handleCreateSchedule(w http.ResponseWriter, r *http.Request) error {
	var req CreateScheduleRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	sc, err := s.Create(r.Context(), s.Principal(r.Context()), req)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusCreated, scheduleView(sc))
	return nil
}

// Create validates and stores a schedule. The API and the web
// console both create schedules through it.
func (s *Handlers) Create(ctx context.Context, p auth.Principal, req CreateScheduleRequest) (store.Schedule, error) {
	var v httpio.Validation
	if req.Name == "" {
		v.Add("missing", "Field required", nil, "body", "name")
	}
	if req.ScanTypes == nil {
		v.Add("missing", "Field required", nil, "body", "scan_types")
	}
	if req.Cron == "" {
		v.Add("missing", "Field required", nil, "body", "cron")
	}
	if err := v.Err(); err != nil {
		return store.Schedule{}, err
	}
	spec := schedule.Spec{Name: req.Name, TargetPath: req.TargetPath, ScanTypes: req.ScanTypes, TargetURL: req.TargetURL, TargetHost: req.TargetHost,
		Cron: req.Cron, Enabled: true}
	if req.Timezone != nil {
		spec.Timezone = *req.Timezone
	}
	if req.Enabled != nil {
		spec.Enabled = *req.Enabled
	}
	if req.AlertMinSeverity != nil {
		spec.AlertMinSeverity = *req.AlertMinSeverity
	}
	if req.KeepLast != nil {
		spec.KeepLast = *req.KeepLast
	}
	sc, err := s.Schedules.Create(ctx, spec, p.ID)
	if err != nil {
		return sc, scheduleError(err)
	}
	s.Log.InfoContext(ctx, "schedule created", "schedule_id", sc.ID, "cron", sc.Cron, "timezone", sc.Timezone, "by", p.ID)
	s.Audit.Record(ctx, p, "schedule.create", "schedule", sc.ID, review.Diff(nil, scheduleView(sc)))
	return sc, nil
}

func (s *Handlers) handleListSchedules(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Store.Schedules(r.Context())
	if err != nil {
		return err
	}
	out := make([]ScheduleView, 0, len(list))
	for _, sc := range list {
		out = append(out, scheduleView(sc))
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Handlers) handleGetSchedule(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.Store.ScheduleByID(r.Context(), r.PathValue("id"))
	if err != nil {
		return scheduleError(err)
	}
	httpio.WriteJSON(w, http.StatusOK, scheduleView(sc))
	return nil
}

func (s *Handlers) handleUpdateSchedule(w http.ResponseWriter, r *http.Request) error {
	var req UpdateScheduleRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	sc, err := s.Update(r.Context(), s.Principal(r.Context()), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, scheduleView(sc))
	return nil
}

// Update applies an edit to a schedule; the API and the web
// console both edit schedules through it.
func (s *Handlers) Update(ctx context.Context, p auth.Principal, id string, req UpdateScheduleRequest) (store.Schedule, error) {
	old, err := s.Store.ScheduleByID(ctx, id)
	if err != nil {
		return old, scheduleError(err)
	}
	sc, err := s.Schedules.Update(ctx, id, func(spec *schedule.Spec) {
		set(&spec.Name, req.Name)
		set(&spec.TargetPath, req.TargetPath)
		set(&spec.ScanTypes, req.ScanTypes)
		set(&spec.Cron, req.Cron)
		set(&spec.Timezone, req.Timezone)
		set(&spec.Enabled, req.Enabled)
		set(&spec.AlertMinSeverity, req.AlertMinSeverity)
		set(&spec.KeepLast, req.KeepLast)
		if req.TargetURL != nil {
			spec.TargetURL = req.TargetURL
		}
		if req.TargetHost != nil {
			spec.TargetHost = req.TargetHost
		}
	})
	if err != nil {
		return sc, scheduleError(err)
	}
	s.Log.InfoContext(ctx, "schedule updated", "schedule_id", sc.ID, "enabled", sc.Enabled, "by", p.ID)
	before, after := scheduleView(old), scheduleView(sc)
	// The next run moves with the clock: only an edit is worth a record.
	before.NextRunAt, before.LastRunAt, before.UpdatedAt = after.NextRunAt, after.LastRunAt, after.UpdatedAt
	s.Audit.Record(ctx, p, "schedule.update", "schedule", sc.ID, review.Diff(before, after))
	return sc, nil
}

// set copies *v into *dst when the request carried the field.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func (s *Handlers) handleDeleteSchedule(w http.ResponseWriter, r *http.Request) error {
	if err := s.Delete(r.Context(), s.Principal(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Delete removes a schedule and its run history; the API and the
// web console both delete schedules through it.
func (s *Handlers) Delete(ctx context.Context, p auth.Principal, id string) error {
	old, err := s.Store.ScheduleByID(ctx, id)
	if err != nil {
		return scheduleError(err)
	}
	if err := s.Schedules.Delete(ctx, id); err != nil {
		return scheduleError(err)
	}
	s.Audit.Record(ctx, p, "schedule.delete", "schedule", id, review.Diff(scheduleView(old), nil))
	s.Log.InfoContext(ctx, "schedule deleted", "schedule_id", id, "by", p.ID)
	return nil
}

func (s *Handlers) handleScheduleRuns(w http.ResponseWriter, r *http.Request) error {
	limit, err := httpio.QueryInt(r, "limit", 50, 0, maxRunsLimit)
	if err != nil {
		return err
	}
	if _, err := s.Store.ScheduleByID(r.Context(), r.PathValue("id")); err != nil {
		return scheduleError(err)
	}
	runs, err := s.Store.ScheduleRuns(r.Context(), r.PathValue("id"), limit)
	if err != nil {
		return err
	}
	out := make([]ScheduleRunView, 0, len(runs))
	for _, run := range runs {
		v := ScheduleRunView{ID: run.ID, ScheduleID: run.ScheduleID, ScheduledFor: run.ScheduledFor, CreatedAt: run.CreatedAt, Outcome: run.Outcome, Reason: run.Reason}
		if run.ScanID != "" {
			id := run.ScanID
			v.ScanID = &id
		}
		if run.ScanStatus != "" {
			st := run.ScanStatus
			v.Status = &st
		}
		out = append(out, v)
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}
