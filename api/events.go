package api

import (
	"context"
	"net/http"
	"time"

	"scand/scan"
	"scand/sse"
	"scand/store"
)

// defaultKeepAlive is SPEC.md's SSE keepalive interval.
const defaultKeepAlive = 15 * time.Second

// handleEvents streams a scan's events: the replay buffer first, then live
// events, ending after the terminal event. A scan that finished before
// its buffer expired gets one synthesized terminal event from the stored
// state, so a client never waits forever on a finished scan.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	sub := s.Bus.Subscribe(id)
	defer sub.Close()
	sc, err := s.loadScan(r.Context(), id)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if store.TerminalStatus(sc.Status) && !s.Bus.Known(id) {
		sse.WriteEvent(w, scan.TerminalEvent(sc))
		rc.Flush()
		return nil
	}
	rc.Flush()
	keepAlive := s.KeepAlive
	if keepAlive <= 0 {
		keepAlive = defaultKeepAlive
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.streams, cancel)
	defer stop()
	sse.Stream(ctx, w, rc.Flush, sub, keepAlive)
	return nil
}
