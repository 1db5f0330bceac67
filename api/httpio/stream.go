package httpio

import (
	"bufio"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
)

// Streamed responses: the body is written while rows are read from the
// store, through a 64 KiB buffer, so a million-finding export costs a
// buffer, not the export, in memory. Everything that can fail with a
// clean error status (validation, 404, 409) is checked before the first
// byte; a failure after that cuts the connection (StreamAborted), so a
// client never takes a truncated body for a complete one.

const streamBufferSize = 64 << 10

// StreamAborted wraps a failure after the response started. The server
// logs it and aborts the connection instead of writing an error body.
type StreamAborted struct{ Cause error }

func (e StreamAborted) Error() string { return "response aborted mid-stream: " + e.Cause.Error() }
func (e StreamAborted) Unwrap() error { return e.Cause }

// StreamWriter is a buffered body writer that turns every later failure
// into StreamAborted.
type StreamWriter struct {
	*bufio.Writer
}

// StartStream sends the status and content type; the body follows through
// the returned writer.
func StartStream(w http.ResponseWriter, contentType string) *StreamWriter {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	return &StreamWriter{bufio.NewWriterSize(w, streamBufferSize)}
}

// Fail returns the error a handler returns for a failure mid-stream.
func (sw *StreamWriter) Fail(err error) error { return StreamAborted{Cause: err} }

// Finish flushes the rest of the body.
func (sw *StreamWriter) Finish() error {
	if err := sw.Flush(); err != nil {
		return StreamAborted{Cause: err}
	}
	return nil
}

// EncodeCursor is the cursor of position pos in a list of kind within
// scope. Cursors are opaque to clients: base64url of
// "<kind>:<scan seq>:<position>", so a cursor of one scan (or list) is
// refused on another.
func EncodeCursor(kind string, scope, pos int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + strconv.FormatInt(scope, 10) + ":" + strconv.FormatInt(pos, 10)))
}

// DecodeCursor reads a cursor EncodeCursor made for kind and scope; any
// other is a 422.
func DecodeCursor(raw, kind string, scope int64) (int64, error) {
	bad := Invalid("value_error", "cursor is not a cursor this list returned", raw, "query", "cursor")
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return 0, bad
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 3 || parts[0] != kind || parts[1] != strconv.FormatInt(scope, 10) {
		return 0, bad
	}
	pos, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || pos < 0 {
		return 0, bad
	}
	return pos, nil
}

// SetNextLink sets X-Next-Cursor and an RFC 8288 Link to the next page.
func SetNextLink(w http.ResponseWriter, r *http.Request, cursor string) {
	w.Header().Set("X-Next-Cursor", cursor)
	u := *r.URL
	q := u.Query()
	q.Del("offset")
	q.Set("cursor", cursor)
	u.RawQuery = q.Encode()
	w.Header().Set("Link", "<"+u.RequestURI()+`>; rel="next"`)
}

// QueryOptionalBool reads a boolean query parameter that may be absent
// (nil); anything but a boolean is a 422.
func QueryOptionalBool(r *http.Request, name string) (*bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return nil, nil
	}
	switch strings.ToLower(v) {
	case "true", "1", "yes":
		t := true
		return &t, nil
	case "false", "0", "no":
		f := false
		return &f, nil
	}
	return nil, Invalid("bool_parsing", "Input should be a valid boolean", v, "query", name)
}
