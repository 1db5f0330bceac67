package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"scand/api/httpio"
)

// RootInfo is the body of GET /.
type RootInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Status  string `json:"status"`
	Docs    string `json:"docs"`
	Health  string `json:"health"`
	UI      string `json:"ui" doc:"the web console"`
}

// Health is the body of GET /health.
type Health struct {
	Status string `json:"status"`
}

// ReadyChecks are the readiness probes of GET /ready.
type ReadyChecks struct {
	Database        string `json:"database" doc:"ok, unavailable (no answer to a query), or why writes fail: disk_full, read_only, io_error, corrupt"`
	ScannerRegistry string `json:"scanner_registry"`
}

// Ready is the body of GET /ready.
type Ready struct {
	Status string      `json:"status"`
	Checks ReadyChecks `json:"checks"`
	// Detail says why scand is not ready; absent when it is.
	Detail string `json:"detail,omitempty"`
}

func (s *Server) publicRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/", Public: true, Tag: "meta", Summary: "Service information", Response: RootInfo{}, Handler: s.handleRoot},
		{Method: "GET", Path: "/health", Public: true, Tag: "meta", Summary: "Liveness: 200 while the process serves", Response: Health{}, Handler: s.handleHealth},
		{Method: "GET", Path: "/ready", Public: true, Tag: "meta", Summary: "Readiness: the database answers a query and can be written, and the scanner registry is loaded", Response: Ready{}, Errors: []int{503}, ErrorBodies: map[int]any{503: Ready{}}, Handler: s.handleReady},
		{Method: "GET", Path: "/openapi.json", Public: true, Tag: "meta", Summary: "OpenAPI 3.1 document", Response: map[string]any{}, Handler: s.handleOpenAPI},
		{Method: "GET", Path: "/docs", Public: true, Tag: "meta", Summary: "Interactive API documentation (self-contained)", ContentTypes: []string{"text/html"}, Handler: s.handleDocs},
		{Method: "GET", Path: "/redoc", Public: true, Tag: "meta", Summary: "Read-only API reference (self-contained)", ContentTypes: []string{"text/html"}, Handler: s.handleRedoc},
	}
}

func (s *Server) handleRoot(w http.ResponseWriter, r *http.Request) error {
	httpio.WriteJSON(w, http.StatusOK, RootInfo{Name: "scand", Version: Version, Status: "ok", Docs: "/docs", Health: "/health", UI: consolePrefix + "/"})
	return nil
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	httpio.WriteJSON(w, http.StatusOK, Health{Status: "ok"})
	return nil
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	body := Ready{Status: "ready", Checks: ReadyChecks{Database: "ok", ScannerRegistry: "ok"}}
	var why []string
	if err := s.Store.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "readiness: database check failed", "error", err.Error())
		body.Checks.Database = "unavailable"
		why = append(why, "database: does not answer queries")
	} else if ws := s.Store.WriteHealth(ctx); !ws.OK() {
		// A database that answers reads but cannot write would fail every
		// scan and change: not ready, until a write probe succeeds again.
		s.log.WarnContext(ctx, "readiness: database cannot write", "kind", ws.Kind, "since", ws.Since)
		body.Checks.Database = ws.Kind
		why = append(why, "database: "+ws.Detail)
	}
	if s.Ready != nil && !s.Ready() {
		body.Checks.ScannerRegistry = "not_loaded"
		why = append(why, "scanner registry: not loaded")
	}
	status := http.StatusOK
	if len(why) > 0 {
		body.Status, status = "not_ready", http.StatusServiceUnavailable
		body.Detail = strings.Join(why, "; ")
	}
	httpio.WriteJSON(w, status, body)
	return nil
}
