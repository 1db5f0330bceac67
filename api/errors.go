package api

import (
	"errors"
	"net/http"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/store"
)

// The error bodies of SPEC.md, documented by api/openapi.
type (
	ErrorBody       = openapi.ErrorBody
	ValidationError = openapi.ValidationError
	ValidationBody  = openapi.ValidationBody
	RateLimitBody   = openapi.RateLimitBody
)

// diskFullDetail answers any request whose write met a full disk: the
// client cannot fix it, but must not retry blindly either.
const diskFullDetail = "Insufficient storage: the disk holding scand's database is full, so this change was not saved. Reads still work; retry after the operator frees space."

// writeError renders err. Anything that is not an *httpio.Error is an
// internal error: the client gets a generic 500 and the log gets the cause.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpio.Error
	switch {
	case errors.As(err, &he):
	case store.IsDiskFull(err):
		s.log.ErrorContext(r.Context(), "database disk full", "request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err.Error())
		he = httpio.Status(http.StatusInsufficientStorage, diskFullDetail)
	default:
		s.log.ErrorContext(r.Context(), "internal error", "request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err.Error())
		he = httpio.Status(http.StatusInternalServerError, "Internal server error")
	}
	for k, v := range he.Header {
		w.Header().Set(k, v)
	}
	if he.Status == http.StatusUnprocessableEntity {
		httpio.WriteJSON(w, he.Status, ValidationBody{Detail: he.Fields})
		return
	}
	httpio.WriteJSON(w, he.Status, ErrorBody{Detail: he.Error()})
}
