// Package vexapi serves VEX (issue 27): the OpenVEX or CycloneDX VEX
// document of a scan's or a target's verdicts, the import of vendor (or
// another scand's) VEX documents, and the list of imported statements.
// Its routes join api's route table (api/server.go routeTable); the work
// is vex/vexops's.
package vexapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/api/review"
	"scand/auth"
	"scand/store"
	vexdb "scand/store/vex"
	"scand/vex"
	"scand/vex/vexops"
)

// Handlers holds what the routes need.
type Handlers struct {
	Store *store.Store
	// Author is the instance's name (SVC_INSTANCE_NAME), the author of
	// every document scand writes.
	Author      string
	ToolVersion string
	// Now stamps documents; the output clock (SVC_FAKE_NOW) when set.
	Now       func() time.Time
	Principal func(context.Context) auth.Principal
}

// MaxBody caps an imported document (vex.MaxDocumentBytes, 10 MiB).
const MaxBody = vex.MaxDocumentBytes

// StatementList is a page of imported statements.
type StatementList struct {
	Items      []vexdb.Statement `json:"items"`
	NextCursor *string           `json:"next_cursor"`
}

// Routes returns the VEX routes.
func (h Handlers) Routes() []openapi.Route {
	format := openapi.Param{Name: "format", In: "query", Type: "string", Enum: vex.Formats, Default: vex.FormatOpenVEX,
		Description: "openvex (OpenVEX 0.2.0) or cyclonedx (CycloneDX 1.5 VEX whose affects refs link into GET /scans/{id}/sbom)"}
	types := []string{"application/json", "application/vnd.cyclonedx+json"}
	return []openapi.Route{
		{Method: "GET", Path: "/scans/{id}/vex", Scope: auth.ScopeRead, Tag: "vex",
			Summary:      "VEX document of a completed scan's dependency findings with a verdict: false_positive → not_affected, accepted_risk/wont_fix → affected, fixed (also for findings with a verdict the target's previous scan had and this one no longer reports), triaged → under_investigation",
			Params:       []openapi.Param{format, {Name: "id", In: "path", Type: "string", Required: true, Description: "scan id"}},
			ContentTypes: types, Errors: []int{404, 409, 422}, Handler: h.scanVEX},
		{Method: "GET", Path: "/targets/{id}/vex", Scope: auth.ScopeRead, Tag: "vex",
			Summary:      "VEX document of a target: its latest completed scan's, as GET /scans/{id}/vex",
			Params:       []openapi.Param{format, {Name: "id", In: "path", Type: "integer", Required: true, Description: "target id"}},
			ContentTypes: types, Errors: []int{404, 409, 422}, Handler: h.targetVEX},
		{Method: "POST", Path: "/vex", Scope: auth.ScopeWrite, Tag: "vex",
			Summary:    "Import an OpenVEX or CycloneDX VEX document (told apart by content; at most 10 MiB): not_affected statements become false_positive verdicts (actor vex:<author>) on matching findings now and at later scans; other statuses are kept and listed, never applied",
			RawRequest: "application/json", MaxBody: MaxBody, Response: vexops.ImportResult{}, Errors: []int{413, 422}, Handler: h.importVEX},
		{Method: "GET", Path: "/vex/statements", Scope: auth.ScopeRead, Tag: "vex",
			Summary: "Imported VEX statements, newest first (keyset-paged)",
			Params: []openapi.Param{
				{Name: "status", In: "query", Type: "string", Enum: vex.Statuses},
				{Name: "vulnerability", In: "query", Type: "string", Description: "vulnerability name or alias"},
				{Name: "document", In: "query", Type: "integer", Description: "id of an imported document"},
				{Name: "limit", In: "query", Type: "integer", Description: "page size (default 100, at most 500)"},
				{Name: "cursor", In: "query", Type: "string", Description: "next_cursor of the previous page"}},
			Response: StatementList{}, Errors: []int{422}, Handler: h.listStatements},
	}
}

func queryFormat(r *http.Request) (string, error) {
	f := r.URL.Query().Get("format")
	switch f {
	case "":
		return vex.FormatOpenVEX, nil
	case vex.FormatOpenVEX, vex.FormatCycloneDX:
		return f, nil
	}
	return "", httpio.Invalid("enum", "format must be openvex or cyclonedx", f, "query", "format")
}

func (h Handlers) scanVEX(w http.ResponseWriter, r *http.Request) error {
	format, err := queryFormat(r)
	if err != nil {
		return err
	}
	sc, err := h.Store.ScanByID(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Scan not found")
	}
	if err != nil {
		return err
	}
	if sc.Status != store.StatusCompleted {
		return httpio.Conflict("Scan is " + sc.Status + "; its VEX is available once it has completed")
	}
	return h.write(w, r, format, sc, "scan", "scand-"+sc.ID)
}

func (h Handlers) targetVEX(w http.ResponseWriter, r *http.Request) error {
	format, err := queryFormat(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return httpio.NotFound("Target not found")
	}
	if _, err := h.Store.TargetByID(r.Context(), id); errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Target not found")
	} else if err != nil {
		return err
	}
	sc, err := h.Store.LatestCompletedScanOfTarget(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return httpio.Conflict("The target has no completed scan yet")
	}
	if err != nil {
		return err
	}
	return h.write(w, r, format, sc, "target", "scand-target-"+strconv.FormatInt(id, 10))
}

func (h Handlers) write(w http.ResponseWriter, r *http.Request, format string, sc store.Scan, scope, name string) error {
	ctype := "application/json"
	if format == vex.FormatCycloneDX {
		ctype = "application/vnd.cyclonedx+json; version=1.5"
	}
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.`+format+`.vex.json"`)
	// The document streams from the findings: a failure once it started
	// cuts the connection, so no client takes a truncated document for a
	// whole one.
	sw := httpio.StartStream(w, ctype)
	if _, err := vexops.Export(r.Context(), h.Store, sw, format, sc, scope, vexops.Options{Author: h.Author, ToolVersion: h.ToolVersion, Now: h.Now}); err != nil {
		return sw.Fail(err)
	}
	return sw.Finish()
}

func (h Handlers) importVEX(w http.ResponseWriter, r *http.Request) error {
	raw, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return httpio.Status(http.StatusRequestEntityTooLarge, "VEX document too large (limit "+strconv.Itoa(MaxBody)+" bytes); split it into several documents")
	case err != nil:
		return httpio.Status(http.StatusBadRequest, "Could not read request body")
	}
	doc, err := vex.Parse(raw)
	if errors.Is(err, vex.ErrTooLarge) {
		return httpio.Status(http.StatusRequestEntityTooLarge, "VEX document too large (limit "+strconv.Itoa(MaxBody)+" bytes); split it into several documents")
	}
	if probs, ok := vex.IsProblems(err); ok {
		var v httpio.Validation
		for _, p := range probs.Problems {
			v.Add(p.Type, p.Msg, p.Input, append([]any{"body"}, p.Loc...)...)
		}
		return v.Err()
	}
	if err != nil {
		return err
	}
	ctx := r.Context()
	p := h.Principal(ctx)
	rec := review.RecordOf(ctx, p, "vex.import", "vex_document", "", nil)
	res, err := vexops.Import(ctx, h.Store, doc, review.DisplayName(p), rec)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, res)
	return nil
}

func (h Handlers) listStatements(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := httpio.QueryInt(r, "limit", 100, 1, 500)
	if err != nil {
		return err
	}
	sq := vexdb.StatementQuery{Status: q.Get("status"), Vulnerability: q.Get("vulnerability"), After: q.Get("cursor"), Limit: limit}
	if sq.Status != "" && !contains(vex.Statuses, sq.Status) {
		return httpio.Invalid("enum", "status must be one of not_affected, affected, fixed, under_investigation", sq.Status, "query", "status")
	}
	if d := q.Get("document"); d != "" {
		if sq.Document, err = strconv.ParseInt(d, 10, 64); err != nil || sq.Document <= 0 {
			return httpio.Invalid("int_parsing", "document must be a positive integer", d, "query", "document")
		}
	}
	items, next, err := h.Store.VEXStatements(r.Context(), sq)
	if errors.Is(err, vexdb.ErrBadCursor) {
		return httpio.Invalid("value_error", "cursor is not one this list handed out", sq.After, "query", "cursor")
	}
	if err != nil {
		return err
	}
	out := StatementList{Items: items}
	if next != "" {
		out.NextCursor = &next
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
