package api

import (
	"context"
	"net/http"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/metrics"
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
	Database        string `json:"database" doc:"ok, unavailable (no answer to a query), why writes fail: disk_full, read_only, io_error, corrupt, or lock_lost (the lock file was replaced and another process holds it)"`
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
	body, ok := s.readiness(r.Context())
	status := http.StatusOK
	if !ok {
		status = http.StatusServiceUnavailable
	}
	httpio.WriteJSON(w, status, body)
	return nil
}

// lockLostDetail is fixed text: a readiness detail never carries paths.
const lockLostDetail = "the database's lock file was removed or replaced and another process holds it; a second scand could open the database"

// readiness runs the checks of GET /ready; ok is false when any fails.
func (s *Server) readiness(ctx context.Context) (body Ready, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	body = Ready{Status: "ready", Checks: ReadyChecks{Database: "ok", ScannerRegistry: "ok"}}
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
	} else if s.LockCheck != nil {
		if err := s.LockCheck(); err != nil {
			s.log.WarnContext(ctx, "readiness: database lock lost", "error", err.Error())
			body.Checks.Database = "lock_lost"
			why = append(why, "database: "+lockLostDetail)
		}
	}
	if s.Ready != nil && !s.Ready() {
		body.Checks.ScannerRegistry = "not_loaded"
		why = append(why, "scanner registry: not loaded")
	}
	if len(why) > 0 {
		body.Status = "not_ready"
		body.Detail = strings.Join(why, "; ")
		return body, false
	}
	return body, true
}

// databaseStates are the values checks.database takes besides ok; each is
// a series of scand_database_failure so an alert can name the cause.
var databaseStates = []string{"unavailable", "disk_full", "read_only", "io_error", "corrupt", "lock_lost"}

// registerReadinessMetrics shows on /metrics what /ready answers and why.
func (s *Server) registerReadinessMetrics() {
	reg := s.Monitor.Registry()
	if reg == nil {
		return
	}
	// One evaluation serves the families of one scrape.
	type result struct {
		body Ready
		ok   bool
	}
	type key struct{}
	check := func(ctx context.Context) (Ready, bool) {
		r := metrics.Once(ctx, key{}, func() result {
			body, ok := s.readiness(ctx)
			return result{body, ok}
		})
		return r.body, r.ok
	}
	reg.Gauge("scand_ready", "1 when GET /ready answers 200, 0 when it answers 503.", func(ctx context.Context, emit metrics.Emit) {
		_, ok := check(ctx)
		emit(boolValue(ok))
	})
	reg.Gauge("scand_database_failure", "1 for the reason the database fails readiness (unavailable: no answer to a query; disk_full, read_only, io_error, corrupt: writes fail; lock_lost: the lock file was replaced), 0 for the others.", func(ctx context.Context, emit metrics.Emit) {
		body, _ := check(ctx)
		for _, st := range databaseStates {
			emit(boolValue(body.Checks.Database == st), st)
		}
	}, "reason")
	reg.Gauge("scand_scanner_registry_loaded", "1 when the scanner registry is loaded.", func(ctx context.Context, emit metrics.Emit) {
		body, _ := check(ctx)
		emit(boolValue(body.Checks.ScannerRegistry == "ok"))
	})
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
