// Package httpio is the HTTP conventions of SPEC.md that every handler
// shares: the error a handler returns for a client mistake (rendered by
// the server as {"detail": ...} or a 422's field list), JSON responses,
// strict JSON body decoding, query parameters, opaque keyset cursors and
// streamed bodies. It holds no handler and knows no route.
package httpio

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"scand/api/openapi"
)

// Error is what a handler returns for a client error; the server renders
// it with its status and header.
type Error struct {
	Status int
	Detail string
	// Fields, when set, make a 422's {"detail": [...]} body.
	Fields []openapi.ValidationError
	Header map[string]string
}

func (e *Error) Error() string {
	if e.Detail != "" {
		return e.Detail
	}
	return http.StatusText(e.Status)
}

// Status is an error with a status and its detail.
func Status(status int, detail string) *Error {
	return &Error{Status: status, Detail: detail}
}

// NotFound is a 404.
func NotFound(detail string) *Error { return Status(http.StatusNotFound, detail) }

// Conflict is a 409.
func Conflict(detail string) *Error { return Status(http.StatusConflict, detail) }

// Invalid builds a 422 for one field. loc is e.g. ("body", "target_path").
func Invalid(typ, msg string, input any, loc ...any) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Fields: []openapi.ValidationError{{Type: typ, Loc: loc, Msg: msg, Input: input}}}
}

// Validation collects several field errors into one 422.
type Validation struct{ fields []openapi.ValidationError }

// Add records one field error.
func (v *Validation) Add(typ, msg string, input any, loc ...any) {
	v.fields = append(v.fields, openapi.ValidationError{Type: typ, Loc: loc, Msg: msg, Input: input})
}

// Err is the 422 of the recorded errors; nil when there are none.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &Error{Status: http.StatusUnprocessableEntity, Fields: v.fields}
}

// HTTPStatus and Problems let the web console show an API error as the
// API would have answered it.
func (e *Error) HTTPStatus() int { return e.Status }

func (e *Error) Problems() []string {
	var out []string
	for _, f := range e.Fields {
		var loc []string
		for _, l := range f.Loc {
			if l == "body" || l == "query" {
				continue
			}
			loc = append(loc, fmt.Sprint(l))
		}
		msg := f.Msg
		if len(loc) > 0 {
			msg = strings.Join(loc, ".") + ": " + msg
		}
		out = append(out, msg)
	}
	return out
}

// FieldProblems groups the problems by the request field they are about
// (the first name in loc after "body"), so a console form can show each
// message next to its field.
func (e *Error) FieldProblems() map[string][]string {
	if len(e.Fields) == 0 {
		return nil
	}
	out := map[string][]string{}
	for _, f := range e.Fields {
		field := ""
		for _, l := range f.Loc {
			if name, ok := l.(string); ok && name != "body" && name != "query" {
				field = name
				break
			}
		}
		out[field] = append(out[field], f.Msg)
	}
	return out
}

// WriteJSON writes v as the response body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
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
