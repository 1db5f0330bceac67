package api

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"time"

	"scand/api/httpio"
	"scand/api/review"
	"scand/auth"
)

// withRequestID pins the request id from X-Request-ID (when it is a sane
// token) or generates a UUID, and echoes it on every response.
func (s *Server) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		if !validRequestID(id) {
			id = newUUID()
		}
		w.Header().Set("X-Request-ID", id)
		ctx := review.WithRequest(context.WithValue(r.Context(), ctxRequestID, id), id, review.ClientAddress(r.RemoteAddr))
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// validRequestID keeps client-chosen ids from injecting into logs or
// headers: printable ASCII without spaces, at most 128 characters.
func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// accessNote carries what inner layers learn about a request (who made
// it) out to the access log, which wraps them all.
type accessNote struct {
	keyID string
	// route is the matched route's pattern (legacy /api routes count under
	// /api/v1), for the request metrics.
	route string
}

func noteRoute(ctx context.Context, route string) {
	if note, _ := ctx.Value(ctxAccessNote).(*accessNote); note != nil {
		note.route = route
	}
}

// noteKeyID records which credential authenticated the request: a DB key's
// id (never the key), "env" for SVC_API_KEY, nothing in dev mode.
func noteKeyID(ctx context.Context, p auth.Principal) {
	note, _ := ctx.Value(ctxAccessNote).(*accessNote)
	if note == nil {
		return
	}
	switch p.Source {
	case auth.SourceDB:
		note.keyID = p.ID
	case auth.SourceEnv:
		note.keyID = auth.SourceEnv
	}
}

// withAccessLog writes one structured line per request. The query string
// is left out on purpose: it can carry an event token.
func (s *Server) withAccessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		path := r.URL.Path
		note := &accessNote{}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), ctxAccessNote, note)))
		attrs := []any{
			"request_id", requestID(r.Context()),
			"method", r.Method,
			"path", path,
			"status", rec.status,
			"latency_ms", float64(time.Since(start).Microseconds()) / 1000,
		}
		if note.keyID != "" {
			attrs = append(attrs, "key_id", note.keyID)
		}
		route := note.route
		if route == "" {
			route = "unmatched"
			if isConsolePath(path) {
				route = consolePrefix + "/"
			}
		}
		s.Monitor.ObserveRequest(route, r.Method, rec.status, time.Since(start))
		s.access.InfoContext(r.Context(), "request", attrs...)
	})
}

// withRecover turns a handler panic into a generic 500; the cause goes to
// the log, never to the client.
func (s *Server) withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "handler panic", "request_id", requestID(r.Context()), "path", r.URL.Path, "panic", v)
				httpio.WriteJSON(w, http.StatusInternalServerError, ErrorBody{Detail: "Internal server error"})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// statusWriter records the status for the access log and still lets SSE
// handlers flush and hijack through http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status = code
		w.wroteHeader = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijack not supported")
}
