// Package monitor is what an operator watches scand through: GET /metrics
// in the Prometheus text format, the counters the rest of the daemon
// feeds (HTTP requests, scanner runs, webhook deliveries, ...) and the
// online backup route. Every value /metrics shows is a counter kept in
// memory or a stored aggregate read at scrape time (store/ops); no scrape
// runs a query that grows with the number of findings.
package monitor

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/auth"
	"scand/metrics"
	"scand/scan/vulndb"
	"scand/sse"
	"scand/store"
)

// Modes of SVC_METRICS.
const (
	ModeOff    = "off"    // no /metrics route
	ModePublic = "public" // anyone who reaches the listener
	ModeKey    = "key"    // a key with read scope, or SVC_METRICS_KEY
)

// Config wires a Monitor.
type Config struct {
	Registry *metrics.Registry
	Store    *store.Store
	Auth     *auth.Authenticator
	Log      *slog.Logger
	Now      func() time.Time
	// Version and SchemaVersion go into scand_build_info.
	Version string
	// Mode is SVC_METRICS; ScrapeKey is SVC_METRICS_KEY ("" for none).
	Mode      string
	ScrapeKey string
	// BackupDir is where POST /admin/backup writes (SVC_BACKUP_DIR).
	BackupDir string
	// VulnDB lists the advisory databases the tools read now; nil for none.
	VulnDB func(ctx context.Context) []vulndb.Info
	// Running is how many scans run now; nil reads 0.
	Running func() int
}

// Monitor holds the in-memory counters. Its exported counters are fed by
// other packages (api's middleware, and whatever main.go wires); a nil
// *Monitor's counters are nil and count nothing.
type Monitor struct {
	cfg     Config
	started time.Time

	// HTTPRequests counts API requests by route pattern, method and status
	// class (2xx...); HTTPDuration is their latency by route and method.
	HTTPRequests *metrics.Counter
	HTTPDuration *metrics.Histogram
	// RateLimited counts requests refused with 429, by limiter.
	RateLimited *metrics.Counter
	// AuthFailures counts refused credentials, by reason.
	AuthFailures *metrics.Counter

	scannerRuns      *metrics.Counter
	scannerDuration  *metrics.Histogram
	scansFinished    *metrics.Counter
	findingsIngested *metrics.Counter
	deliveries       *metrics.Counter
	notifications    *metrics.Counter
	scheduleRuns     *metrics.Counter

	mu sync.Mutex
	// starts are the start times of running scanners (scan id + name), for
	// the duration of a failed run, whose event carries none.
	starts map[string]time.Time
	// inventory caches VulnDB's answer: reading an OSV zip's directory is
	// too slow for every scrape, and the data changes a few times a day.
	inventory   []vulndb.Info
	inventoryAt time.Time
}

// maxTrackedStarts bounds starts: a scan that never ends its scanners
// (a crash between events) must not grow it without limit.
const maxTrackedStarts = 10000

// inventoryTTL is how long an advisory data listing is reused.
const inventoryTTL = time.Minute

// New registers every family on cfg.Registry and returns the Monitor.
func New(cfg Config) *Monitor {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeKey // never open by omission
	}
	if cfg.Registry == nil {
		cfg.Registry = metrics.New()
	}
	r := cfg.Registry
	m := &Monitor{cfg: cfg, started: cfg.Now(), starts: map[string]time.Time{}}
	m.HTTPRequests = r.Counter("scand_http_requests_total", "API requests answered, by route pattern (not the raw path), method and status class.", "route", "method", "code")
	m.HTTPDuration = r.Histogram("scand_http_request_duration_seconds", "Time to answer an API request, by route pattern and method (streams: until the stream ends).", metrics.DurationBuckets(), "route", "method")
	m.RateLimited = r.Counter("scand_rate_limited_total", "Requests refused with 429 by a rate limiter.", "limiter")
	m.AuthFailures = r.Counter("scand_auth_failures_total", "Requests refused with 401: a missing, invalid or revoked API key or event token.", "reason")
	m.scannerRuns = r.Counter("scand_scanner_runs_total", "Scanner runs by scanner and outcome (ok, failed, skipped: not installed or not needed).", "scanner", "outcome")
	m.scannerDuration = r.Histogram("scand_scanner_run_duration_seconds", "Duration of scanner runs that ran (ok or failed), by scanner.", metrics.LongDurationBuckets(), "scanner")
	m.scansFinished = r.Counter("scand_scans_finished_total", "Scans that ended, by outcome (completed, failed, cancelled).", "outcome")
	m.findingsIngested = r.Counter("scand_findings_ingested_total", "Findings stored by completed scans and imports.")
	m.deliveries = r.Counter("scand_webhook_deliveries_total", "Webhook delivery attempts by outcome (succeeded; retry: failed, tried again later; failed: given up).", "outcome")
	m.notifications = r.Counter("scand_notifications_total", "Notifications stored, by severity.", "severity")
	m.scheduleRuns = r.Counter("scand_schedule_runs_total", "Schedule runs by outcome (started, skipped, failed).", "outcome")
	m.registerCollected(r)
	return m
}

// Registry is the registry the Monitor writes into.
func (m *Monitor) Registry() *metrics.Registry {
	if m == nil {
		return nil
	}
	return m.cfg.Registry
}

// Delivery counts a webhook delivery attempt (hook.Config.Observe).
func (m *Monitor) Delivery(outcome string) {
	if m != nil {
		m.deliveries.Inc(outcome)
	}
}

// Notification counts a stored notification (notify.Config.Created).
func (m *Monitor) Notification(severity string) {
	if m != nil {
		m.notifications.Inc(severity)
	}
}

// ScheduleRun counts a schedule run (schedule.Options.Ran).
func (m *Monitor) ScheduleRun(outcome string) {
	if m != nil {
		m.scheduleRuns.Inc(outcome)
	}
}

// Sink counts scan and scanner events from the bus; it only touches
// memory, so it never slows the publisher.
func (m *Monitor) Sink(_ context.Context, ev sse.Event) error {
	if m == nil {
		return nil
	}
	switch d := ev.Data.(type) {
	case sse.ScannerStartData:
		m.mu.Lock()
		if len(m.starts) < maxTrackedStarts {
			m.starts[d.ScanID+"\x00"+d.Name] = ev.At
		}
		m.mu.Unlock()
	case sse.ScannerCompleteData:
		m.forget(d.ScanID, d.Name)
		m.scannerRuns.Inc(d.Name, "ok")
		m.scannerDuration.Observe(d.DurationS, d.Name)
	case sse.ScannerFailedData:
		start, ok := m.forget(d.ScanID, d.Name)
		m.scannerRuns.Inc(d.Name, "failed")
		if ok && !ev.At.IsZero() {
			m.scannerDuration.Observe(ev.At.Sub(start).Seconds(), d.Name)
		}
	case sse.ScannerSkippedData:
		m.forget(d.ScanID, d.Name)
		m.scannerRuns.Inc(d.Name, "skipped")
	case sse.ScanCompleteData:
		m.scansFinished.Inc("completed")
		m.findingsIngested.Add(float64(d.FindingsCount))
	case sse.ScanFailedData:
		m.scansFinished.Inc("failed")
		m.forgetScan(d.ScanID)
	case sse.ScanCancelledData:
		m.scansFinished.Inc("cancelled")
		m.forgetScan(d.ScanID)
	}
	return nil
}

func (m *Monitor) forget(scanID, name string) (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := scanID + "\x00" + name
	t, ok := m.starts[k]
	delete(m.starts, k)
	return t, ok && !t.IsZero()
}

func (m *Monitor) forgetScan(scanID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.starts {
		if strings.HasPrefix(k, scanID+"\x00") {
			delete(m.starts, k)
		}
	}
}

// registerCollected registers the families read at scrape time.
func (m *Monitor) registerCollected(r *metrics.Registry) {
	st := m.cfg.Store
	r.Gauge("scand_build_info", "Always 1: the release, Go version and the newest database schema this binary knows.", func(ctx context.Context, emit metrics.Emit) {
		emit(1, m.cfg.Version, runtime.Version(), strconv.Itoa(store.SchemaVersion()))
	}, "version", "go_version", "schema_version")
	r.Gauge("scand_process_start_time_seconds", "When the daemon started, in seconds since the Unix epoch.", func(ctx context.Context, emit metrics.Emit) {
		emit(float64(m.started.UnixNano()) / 1e9)
	})
	// One read of the stored aggregates serves the families below.
	stats := m.statsOnce()
	r.Gauge("scand_scans", "Scans kept (not deleted), by status and source (scan: run here; import: sent by scand scan --server).", func(ctx context.Context, emit metrics.Emit) {
		s, ok := stats(ctx)
		if !ok {
			return
		}
		for _, c := range s.Scans {
			emit(float64(c.N), c.Status, c.Source)
		}
	}, "status", "source")
	r.Gauge("scand_scan_queue_depth", "Scans waiting to run (status pending).", func(ctx context.Context, emit metrics.Emit) {
		if s, ok := stats(ctx); ok {
			emit(float64(s.QueuedScans))
		}
	})
	r.Gauge("scand_scan_queue_oldest_age_seconds", "How long the longest-waiting pending scan has waited; 0 when none waits.", func(ctx context.Context, emit metrics.Emit) {
		if s, ok := stats(ctx); ok {
			emit(ageSeconds(m.cfg.Now(), s.OldestQueued))
		}
	})
	r.Gauge("scand_scans_running", "Scans running now.", func(ctx context.Context, emit metrics.Emit) {
		n := 0
		if m.cfg.Running != nil {
			n = m.cfg.Running()
		}
		emit(float64(n))
	})
	r.Gauge("scand_webhook_deliveries_pending", "Webhook deliveries not yet delivered or given up.", func(ctx context.Context, emit metrics.Emit) {
		if s, ok := stats(ctx); ok {
			emit(float64(s.PendingDeliveries))
		}
	})
	r.Gauge("scand_webhook_oldest_pending_age_seconds", "Age of the oldest webhook delivery not yet delivered or given up; 0 when none.", func(ctx context.Context, emit metrics.Emit) {
		if s, ok := stats(ctx); ok {
			emit(ageSeconds(m.cfg.Now(), s.OldestPendingDelivery))
		}
	})
	r.Gauge("scand_database_size_bytes", "Size of the SQLite database file.", func(ctx context.Context, emit metrics.Emit) {
		if st != nil {
			emit(float64(st.FileStats().DBBytes))
		}
	})
	r.Gauge("scand_database_wal_size_bytes", "Size of the database's write-ahead log.", func(ctx context.Context, emit metrics.Emit) {
		if st != nil {
			emit(float64(st.FileStats().WALBytes))
		}
	})
	r.Gauge("scand_database_filesystem_free_bytes", "Free space an unprivileged process may use on the database's file system.", func(ctx context.Context, emit metrics.Emit) {
		if st == nil {
			return
		}
		if free := st.FileStats().FreeBytes; free >= 0 {
			emit(float64(free))
		}
	})
	r.Gauge("scand_database_schema_version", "The newest migration recorded in the database.", func(ctx context.Context, emit metrics.Emit) {
		if st == nil {
			return
		}
		if v, err := st.DatabaseSchemaVersion(ctx); err == nil {
			emit(float64(v))
		}
	})
	r.Gauge("scand_advisory_data_last_import_timestamp_seconds", "When `scand vulndb import` last installed each offline advisory database (absent for data scand did not import).", func(ctx context.Context, emit metrics.Emit) {
		for _, i := range m.advisoryData(ctx) {
			if i.ImportedAt != nil {
				emit(float64(i.ImportedAt.Unix()), i.Name, i.Tool)
			}
		}
	}, "database", "tool")
	r.Gauge("scand_advisory_data_age_seconds", "Age of each offline advisory database the tools read (now minus its build date; absent when unknown).", func(ctx context.Context, emit metrics.Emit) {
		now := m.cfg.Now()
		for _, i := range m.advisoryData(ctx) {
			if i.BuiltAt != nil {
				emit(now.Sub(*i.BuiltAt).Seconds(), i.Name, i.Tool)
			}
		}
	}, "database", "tool")
	registerRuntime(r)
}

// statsOnce returns a reader of the store's aggregates that one scrape
// runs once, whichever family asks first.
func (m *Monitor) statsOnce() func(context.Context) (store.OpsStats, bool) {
	type result struct {
		stats store.OpsStats
		ok    bool
	}
	type key struct{}
	return func(ctx context.Context) (store.OpsStats, bool) {
		if m.cfg.Store == nil {
			return store.OpsStats{}, false
		}
		r := metrics.Once(ctx, key{}, func() result {
			s, err := m.cfg.Store.OpsStats(ctx)
			if err != nil {
				m.cfg.Log.Warn("metrics: stored aggregates not read", "error", err.Error())
			}
			return result{s, err == nil}
		})
		return r.stats, r.ok
	}
}

func (m *Monitor) advisoryData(ctx context.Context) []vulndb.Info {
	if m.cfg.VulnDB == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inventoryAt.IsZero() || time.Since(m.inventoryAt) > inventoryTTL {
		m.inventory, m.inventoryAt = m.cfg.VulnDB(ctx), time.Now()
	}
	return m.inventory
}

func ageSeconds(now, since time.Time) float64 {
	if since.IsZero() || now.Before(since) {
		return 0
	}
	return now.Sub(since).Seconds()
}

// registerRuntime registers Go runtime and process basics. runtime/metrics
// reads them without stopping the world.
func registerRuntime(r *metrics.Registry) {
	read := func(name string) (rtmetrics.Sample, bool) {
		s := []rtmetrics.Sample{{Name: name}}
		rtmetrics.Read(s)
		return s[0], s[0].Value.Kind() != rtmetrics.KindBad
	}
	gauge := func(name, help, sample string) {
		r.Gauge(name, help, func(ctx context.Context, emit metrics.Emit) {
			if s, ok := read(sample); ok && s.Value.Kind() == rtmetrics.KindUint64 {
				emit(float64(s.Value.Uint64()))
			}
		})
	}
	gauge("scand_go_goroutines", "Goroutines that exist now.", "/sched/goroutines:goroutines")
	gauge("scand_go_heap_objects_bytes", "Bytes of live and not yet swept heap objects.", "/memory/classes/heap/objects:bytes")
	gauge("scand_go_memory_total_bytes", "All memory the Go runtime has mapped (heap, stacks, runtime structures).", "/memory/classes/total:bytes")
	r.CounterFunc("scand_go_gc_cycles_total", "Completed garbage collection cycles.", func(ctx context.Context, emit metrics.Emit) {
		if s, ok := read("/gc/cycles/total:gc-cycles"); ok && s.Value.Kind() == rtmetrics.KindUint64 {
			emit(float64(s.Value.Uint64()))
		}
	})
	r.CounterFunc("scand_process_cpu_seconds_total", "User and system CPU time the daemon used.", func(ctx context.Context, emit metrics.Emit) {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			emit(float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9)
		}
	})
	r.Gauge("scand_process_resident_memory_bytes", "Resident set size of the daemon (Linux /proc/self/statm).", func(ctx context.Context, emit metrics.Emit) {
		b, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			return
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return
		}
		if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			emit(float64(pages * int64(os.Getpagesize())))
		}
	})
	r.Gauge("scand_process_open_fds", "Open file descriptors of the daemon.", func(ctx context.Context, emit metrics.Emit) {
		if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
			emit(float64(len(ents)))
		}
	})
}

// Routes are GET /metrics (unless SVC_METRICS=off) and
// POST /admin/backup.
func (m *Monitor) Routes() []openapi.Route {
	var rs []openapi.Route
	if m.cfg.Mode != ModeOff {
		summary := "Prometheus metrics (text exposition format 0.0.4)"
		switch m.cfg.Mode {
		case ModeKey:
			summary += "; needs an API key with read scope or SVC_METRICS_KEY as a Bearer token"
		case ModePublic:
			summary += "; public (SVC_METRICS=public)"
		}
		rs = append(rs, openapi.Route{Method: "GET", Path: "/metrics", Public: true, Tag: "meta", Summary: summary,
			ContentTypes: []string{"text/plain"}, Errors: []int{401, 403}, Handler: m.handleMetrics})
	}
	rs = append(rs, openapi.Route{Method: "POST", Path: "/admin/backup", Scope: auth.ScopeAdmin, Tag: "admin",
		Summary: "Write a consistent, verified copy of the database into SVC_BACKUP_DIR while scans keep running",
		Request: BackupRequest{}, Response: BackupView{}, Status: http.StatusCreated, Errors: []int{409, 422, 507},
		Handler: m.handleBackup})
	return rs
}

// scrapeTimeout bounds a scrape: a collector that cannot answer in time
// (a database busy with a long transaction) is left out, not waited for.
const scrapeTimeout = 5 * time.Second

func (m *Monitor) handleMetrics(w http.ResponseWriter, r *http.Request) error {
	if m.cfg.Mode == ModeKey {
		if err := m.authorizeScrape(r); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), scrapeTimeout)
	defer cancel()
	w.Header().Set("Content-Type", metrics.ContentType)
	w.Header().Set("Cache-Control", "no-store")
	return m.cfg.Registry.Write(ctx, w)
}

// authorizeScrape accepts SVC_METRICS_KEY or any API key with read scope
// (dev mode, with no key configured, lets everyone in as the API does).
func (m *Monitor) authorizeScrape(r *http.Request) error {
	key, presented := auth.KeyFromRequest(r)
	if m.cfg.ScrapeKey != "" && presented && subtle.ConstantTimeCompare([]byte(key), []byte(m.cfg.ScrapeKey)) == 1 {
		return nil
	}
	if m.cfg.Auth == nil {
		return &httpio.Error{Status: http.StatusUnauthorized, Detail: "Missing API key", Header: map[string]string{"WWW-Authenticate": "Bearer"}}
	}
	p, err := m.cfg.Auth.Authenticate(r.Context(), key, presented)
	if err == auth.ErrUnauthorized {
		reason, detail := "missing_key", "Missing API key"
		if presented {
			reason, detail = "invalid_key", "Invalid or revoked API key"
		}
		m.AuthFailures.Inc(reason)
		return &httpio.Error{Status: http.StatusUnauthorized, Detail: detail, Header: map[string]string{"WWW-Authenticate": "Bearer"}}
	}
	if err != nil {
		return err
	}
	if !p.Has(auth.ScopeRead) {
		return httpio.Status(http.StatusForbidden, "API key lacks the required scope: read")
	}
	return nil
}

// BackupRequest is the body of POST /admin/backup.
type BackupRequest struct {
	Name string `json:"name,omitempty" doc:"file name inside SVC_BACKUP_DIR: letters, digits, '.', '_', '-', at most 100 characters, not starting with '.'; default scand-YYYYMMDDTHHMMSSZ.db"`
}

// BackupView is a verified backup.
type BackupView struct {
	store.BackupSummary
	Seconds float64 `json:"seconds" doc:"time the backup and its verification took"`
}

func (m *Monitor) handleBackup(w http.ResponseWriter, r *http.Request) error {
	var req BackupRequest
	if r.ContentLength != 0 {
		if err := httpio.DecodeBody(r, &req); err != nil {
			return err
		}
	}
	name := req.Name
	if name == "" {
		name = "scand-" + m.cfg.Now().UTC().Format("20060102T150405Z") + ".db"
	}
	if !validBackupName(name) {
		return httpio.Invalid("value_error", "name must be 1 to 100 letters, digits, '.', '_' or '-', not starting with '.'", req.Name, "body", "name")
	}
	if m.cfg.BackupDir == "" {
		return httpio.Status(http.StatusConflict, "no backup directory is configured (SVC_BACKUP_DIR)")
	}
	if err := os.MkdirAll(m.cfg.BackupDir, 0o700); err != nil {
		return err
	}
	start := time.Now()
	sum, err := m.cfg.Store.Backup(r.Context(), filepath.Join(m.cfg.BackupDir, name))
	if err != nil {
		if errors.Is(err, store.ErrBackupExists) {
			return httpio.Conflict("a backup named " + name + " already exists")
		}
		return err
	}
	m.cfg.Log.Info("backup written", "path", sum.Path, "bytes", sum.Bytes, "schema_version", sum.SchemaVersion)
	httpio.WriteJSON(w, http.StatusCreated, BackupView{BackupSummary: sum, Seconds: time.Since(start).Seconds()})
	return nil
}

func validBackupName(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c == '.' || c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// ObserveRequest counts one answered API request: route is the matched
// route pattern ("unmatched" when none), never the raw path, so the
// series stay bounded whatever clients send.
func (m *Monitor) ObserveRequest(route, method string, status int, took time.Duration) {
	if m == nil {
		return
	}
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		method = "other"
	}
	class := "other"
	if status >= 100 && status <= 599 {
		class = strconv.Itoa(status/100) + "xx"
	}
	m.HTTPRequests.Inc(route, method, class)
	m.HTTPDuration.Observe(took.Seconds(), route, method)
}

// RateLimit counts a request a limiter refused.
func (m *Monitor) RateLimit(limiter string) {
	if m != nil {
		m.RateLimited.Inc(limiter)
	}
}

// AuthFailure counts a refused credential: missing_key, invalid_key,
// invalid_event_token.
func (m *Monitor) AuthFailure(reason string) {
	if m != nil {
		m.AuthFailures.Inc(reason)
	}
}
