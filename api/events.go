package api

import (
	"context"
	"net/http"
	"time"

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
		sse.WriteEvent(w, storedTerminalEvent(sc))
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
	for {
		ev, ok, timedOut := sub.Next(ctx, keepAlive)
		switch {
		case timedOut:
			if err := sse.WriteKeepalive(w); err != nil {
				return nil
			}
		case !ok:
			return nil // client went away
		default:
			if err := sse.WriteEvent(w, ev); err != nil {
				return nil
			}
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
		if ok && sse.IsTerminal(ev.Name) {
			return nil
		}
	}
}

func storedTerminalEvent(sc store.Scan) sse.Event {
	ev := sse.Event{Scan: sc.ID}
	switch sc.Status {
	case store.StatusCompleted:
		c := sc.SeverityCounts
		ev.Name = sse.ScanComplete
		ev.Data = sse.ScanCompleteData{ScanID: sc.ID, TargetPath: sc.TargetPath, FindingsCount: sc.FindingsCount, RiskScore: sc.RiskScore,
			SeverityCounts: sse.SeverityCounts{Critical: c["critical"], High: c["high"], Medium: c["medium"], Low: c["low"], Info: c["info"]},
			DurationS:      summaryOf(sc).durationOrZero()}
	case store.StatusFailed:
		ev.Name = sse.ScanFailed
		ev.Data = sse.ScanFailedData{ScanID: sc.ID, TargetPath: sc.TargetPath, Error: sc.Error}
	default:
		ev.Name = sse.ScanCancelled
		ev.Data = sse.ScanCancelledData{ScanID: sc.ID, TargetPath: sc.TargetPath}
	}
	return ev
}

func (s ScanSummary) durationOrZero() float64 {
	if s.DurationS == nil {
		return 0
	}
	return *s.DurationS
}
