package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

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

// httpError is what handlers return; writeError renders it.
type httpError struct {
	status int
	detail string
	fields []ValidationError
	header map[string]string
}

func (e *httpError) Error() string {
	if e.detail != "" {
		return e.detail
	}
	return http.StatusText(e.status)
}

func errStatus(status int, detail string) *httpError {
	return &httpError{status: status, detail: detail}
}
func errNotFound(detail string) *httpError { return errStatus(http.StatusNotFound, detail) }
func errConflict(detail string) *httpError { return errStatus(http.StatusConflict, detail) }

// invalid builds a 422 for one field. loc is e.g. ("body", "target_path").
func invalid(typ, msg string, input any, loc ...any) *httpError {
	return &httpError{status: http.StatusUnprocessableEntity, fields: []ValidationError{{Type: typ, Loc: loc, Msg: msg, Input: input}}}
}

// validation collects several field errors into one 422.
type validation struct{ fields []ValidationError }

func (v *validation) add(typ, msg string, input any, loc ...any) {
	v.fields = append(v.fields, ValidationError{Type: typ, Loc: loc, Msg: msg, Input: input})
}

func (v *validation) err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &httpError{status: http.StatusUnprocessableEntity, fields: v.fields}
}

// diskFullDetail answers any request whose write met a full disk: the
// client cannot fix it, but must not retry blindly either.
const diskFullDetail = "Insufficient storage: the disk holding scand's database is full, so this change was not saved. Reads still work; retry after the operator frees space."

// writeError renders err. Anything that is not an *httpError is an
// internal error: the client gets a generic 500 and the log gets the cause.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	switch {
	case errors.As(err, &he):
	case store.IsDiskFull(err):
		s.log.ErrorContext(r.Context(), "database disk full", "request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err.Error())
		he = errStatus(http.StatusInsufficientStorage, diskFullDetail)
	default:
		s.log.ErrorContext(r.Context(), "internal error", "request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err.Error())
		he = errStatus(http.StatusInternalServerError, "Internal server error")
	}
	for k, v := range he.header {
		w.Header().Set(k, v)
	}
	if he.status == http.StatusUnprocessableEntity {
		writeJSON(w, he.status, ValidationBody{Detail: he.fields})
		return
	}
	writeJSON(w, he.status, ErrorBody{Detail: he.Error()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"detail":"Internal server error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
