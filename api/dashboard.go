package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"scand/api/httpio"
	"scand/api/pdf"
	"scand/auth"
	"scand/finding/report"
	"scand/scan"
	"scand/scan/registry"
	"scand/scan/tree"
	"scand/scan/vulndb"
	"scand/sse"
	"scand/store"
)

// ScannerStatus is one scanner of the registry as the dashboard shows it.
type ScannerStatus struct {
	Name        string  `json:"name"`
	ScanType    string  `json:"scan_type"`
	Available   bool    `json:"available"`
	Version     *string `json:"version" doc:"Tool version when available and known, else null"`
	InstallHint string  `json:"install_hint" doc:"How to install the tool by hand; empty when available"`
	Installable bool    `json:"installable" doc:"A fixed install recipe exists on this system (POST /dashboard/install/{scanner})"`
}

// DashboardStatus is the body of GET /dashboard/status.
type DashboardStatus struct {
	Scanners  []ScannerStatus `json:"scanners" doc:"Every scanner, in registry (run) order"`
	Available int             `json:"available"`
	Total     int             `json:"total"`
	// VulnDB is additive (issue 16): the offline advisory databases and
	// their age, as GET /vulndb lists them.
	VulnDB []vulndb.Info `json:"vulndb" doc:"Offline advisory databases the dependency scanners read, with build date, age and staleness"`
}

// DashboardScanCounts counts scans per status.
type DashboardScanCounts struct {
	Pending   int `json:"pending"`
	Running   int `json:"running"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Cancelled int `json:"cancelled"`
}

// DashboardTriageCounts counts current findings per triage status; a
// finding without a verdict counts as new.
type DashboardTriageCounts struct {
	New           int `json:"new"`
	Triaged       int `json:"triaged"`
	FalsePositive int `json:"false_positive"`
	AcceptedRisk  int `json:"accepted_risk"`
	Fixed         int `json:"fixed"`
	WontFix       int `json:"wont_fix"`
}

// DashboardScannerCounts is how many registry scanners can run here.
type DashboardScannerCounts struct {
	Available int `json:"available"`
	Total     int `json:"total"`
}

// DashboardStats is the body of GET /dashboard/stats.
type DashboardStats struct {
	TotalScans    int                 `json:"total_scans"`
	ScansByStatus DashboardScanCounts `json:"scans_by_status"`
	Targets       int                 `json:"targets" doc:"Distinct targets (path, URL, host) with a completed scan"`
	TotalFindings int                 `json:"total_findings" doc:"Findings of the latest completed scan of each target"`
	// The severity counts cover the same findings as total_findings.
	FindingsBySeverity sse.SeverityCounts     `json:"findings_by_severity" doc:"Findings of the latest completed scan of each target, by severity"`
	VisibleBySeverity  sse.SeverityCounts     `json:"visible_findings_by_severity" doc:"The same without the default-hidden triage verdicts (false_positive, accepted_risk, wont_fix)"`
	TriageByStatus     DashboardTriageCounts  `json:"triage_by_status" doc:"The same findings by triage status; no verdict counts as new"`
	Scanners           DashboardScannerCounts `json:"scanners"`
	ExpiringVerdicts   int                    `json:"expiring_acceptances" doc:"accepted_risk and wont_fix verdicts that expire within the next 7 days (the finding then counts as new again)"`
}

// ExpiringSoon is how far ahead the dashboard counts expiring acceptances.
const ExpiringSoon = 7 * 24 * time.Hour

// TrendDay is one UTC day of GET /dashboard/trends.
type TrendDay struct {
	Date               string             `json:"date" doc:"UTC date, YYYY-MM-DD"`
	ScansStarted       int                `json:"scans_started"`
	RiskScore          *int               `json:"risk_score" doc:"Risk score of the scan completed last that day; null if none completed"`
	FindingsBySeverity sse.SeverityCounts `json:"findings_by_severity" doc:"Findings of the scans completed that day"`
}

// DashboardTrends is the body of GET /dashboard/trends.
type DashboardTrends struct {
	Days int        `json:"days"`
	From string     `json:"from" doc:"First day of the series (UTC date)"`
	To   string     `json:"to" doc:"Last day of the series: today (UTC date)"`
	Data []TrendDay `json:"data" doc:"One entry per day, oldest first, with no gaps"`
}

// BrowseEntry and BrowseListing are GET /dashboard/browse's (tree.Browse).
type (
	BrowseEntry   = tree.BrowseEntry
	BrowseListing = tree.BrowseListing
)

// ScannerInstallResult is the body of POST /dashboard/install/{scanner}.
type ScannerInstallResult struct {
	Scanner   string `json:"scanner"`
	Command   string `json:"command" doc:"The fixed recipe that ran"`
	ExitCode  int    `json:"exit_code" doc:"-1 when the command timed out"`
	Output    string `json:"output" doc:"Tail of the combined stdout and stderr, at most 4 KiB"`
	Installed bool   `json:"installed" doc:"The scanner reports itself available after the run"`
}

const (
	// dashboardBrowseMax caps one listing; a picker needs no more, and a
	// huge directory must not become a huge response.
	dashboardBrowseMax = 500
	// dashboardInstallOutputMax is the tail of the install output returned.
	dashboardInstallOutputMax = 4 << 10
	// dashboardProbeTimeout bounds the availability probes of one request.
	dashboardProbeTimeout = 20 * time.Second
)

func (s *Server) dashboardRoutes() []Route {
	minDays, maxDays := 1, 365
	// Installs are serialized: package managers hold a global lock anyway,
	// and a second request should hear "busy" at once, not wait ten minutes.
	var installing sync.Mutex
	return []Route{
		{Method: "GET", Path: "/dashboard/status", Scope: auth.ScopeRead, Tag: "dashboard",
			Summary:  "Every scanner in registry order: availability, version, install hint, whether it can be installed from here",
			Response: DashboardStatus{}, Handler: s.handleDashboardStatus},
		{Method: "GET", Path: "/dashboard/stats", Scope: auth.ScopeRead, Tag: "dashboard",
			Summary:  "Aggregate counts: scans by status, current findings by severity and triage status, scanners available",
			Response: DashboardStats{}, Handler: s.handleDashboardStats},
		{Method: "GET", Path: "/dashboard/trends", Scope: auth.ScopeRead, Tag: "dashboard",
			Summary: "Per UTC day, ending today: scans started, risk score, findings by severity",
			Params: []Param{{Name: "days", In: "query", Type: "integer", Default: 30, Minimum: &minDays, Maximum: &maxDays,
				Description: "Length of the series in days, ending today"}},
			Response: DashboardTrends{}, Errors: []int{422}, Handler: s.handleDashboardTrends},
		{Method: "GET", Path: "/dashboard/browse", Scope: auth.ScopeRead, Tag: "dashboard",
			Summary: "List a directory to pick a scan target, confined to SVC_SCAN_ROOTS when set",
			Params: []Param{{Name: "path", In: "query", Type: "string",
				Description: "Absolute directory; default: the first scan root, or / when browsing is not confined"}},
			Response: BrowseListing{}, Errors: []int{404, 422}, Handler: s.handleDashboardBrowse},
		{Method: "POST", Path: "/dashboard/install/{scanner}", Scope: auth.ScopeWrite, Tag: "dashboard",
			Summary:  "Run the scanner's fixed install recipe through the system package manager",
			Params:   []Param{{Name: "scanner", In: "path", Type: "string", Required: true, Description: "Scanner name"}},
			Response: ScannerInstallResult{}, Errors: []int{404, 409, 501},
			Handler: func(w http.ResponseWriter, r *http.Request) error {
				return s.handleDashboardInstall(w, r, &installing)
			}},
	}
}

func (s *Server) installRecipe(name string) (string, []string, bool) {
	if s.InstallRecipe == nil {
		return "", nil, false
	}
	return s.InstallRecipe(name)
}

func (s *Server) handleDashboardStatus(w http.ResponseWriter, r *http.Request) error {
	body := s.scannerStatus(r.Context())
	body.VulnDB = s.vulndbInventory(r.Context())
	httpio.WriteJSON(w, http.StatusOK, body)
	return nil
}

// scannerStatus probes every scanner of the registry, in registry order;
// the dashboard route and the console's overview show it.
func (s *Server) scannerStatus(ctx context.Context) DashboardStatus {
	probeCtx, cancel := context.WithTimeout(ctx, dashboardProbeTimeout)
	defer cancel()
	probes := scan.ProbeAll(probeCtx, s.log, s.Scanners)
	body := DashboardStatus{Scanners: make([]ScannerStatus, 0, len(s.Scanners)), Total: len(s.Scanners)}
	for i, sc := range s.Scanners {
		p := probes[i]
		st := ScannerStatus{Name: sc.Name(), ScanType: sc.Type(), Available: p.OK}
		if p.OK {
			body.Available++
			if p.Version != "" {
				v := p.Version
				st.Version = &v
			}
		} else {
			st.InstallHint = p.Hint
		}
		_, _, st.Installable = s.installRecipe(sc.Name())
		body.Scanners = append(body.Scanners, st)
	}
	return body
}

func (s *Server) handleDashboardStats(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	byStatus, err := s.Store.ScanCountsByStatus(ctx)
	if err != nil {
		return err
	}
	current, err := s.Store.CurrentFindingCounts(ctx)
	if err != nil {
		return err
	}
	var body DashboardStats
	body.ScansByStatus = DashboardScanCounts{
		Pending: byStatus[store.StatusPending], Running: byStatus[store.StatusRunning], Completed: byStatus[store.StatusCompleted],
		Failed: byStatus[store.StatusFailed], Cancelled: byStatus[store.StatusCancelled],
	}
	for _, n := range byStatus {
		body.TotalScans += n
	}
	body.Targets = current.Targets
	for _, c := range current.Counts {
		body.TotalFindings += c.Count
		body.FindingsBySeverity.Add(c.Severity, c.Count)
		if !report.HiddenVerdict(c.Status) {
			body.VisibleBySeverity.Add(c.Severity, c.Count)
		}
		t := &body.TriageByStatus
		if n := map[string]*int{"new": &t.New, "triaged": &t.Triaged, "false_positive": &t.FalsePositive, "accepted_risk": &t.AcceptedRisk,
			"fixed": &t.Fixed, "wont_fix": &t.WontFix}[c.Status]; n != nil {
			*n += c.Count
		}
	}
	if body.ExpiringVerdicts, err = s.Store.ExpiringVerdicts(ctx, s.Now().Add(ExpiringSoon)); err != nil {
		return err
	}
	body.Scanners.Total = len(s.Scanners)
	probeCtx, cancel := context.WithTimeout(ctx, dashboardProbeTimeout)
	defer cancel()
	for _, p := range scan.ProbeAll(probeCtx, s.log, s.Scanners) {
		if p.OK {
			body.Scanners.Available++
		}
	}
	httpio.WriteJSON(w, http.StatusOK, body)
	return nil
}

func (s *Server) handleDashboardTrends(w http.ResponseWriter, r *http.Request) error {
	days, err := httpio.QueryInt(r, "days", 30, 1, 365)
	if err != nil {
		return err
	}
	series, err := s.dashboardTrends(r.Context(), days, s.Now())
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, series)
	return nil
}

// dashboardTrends builds a continuous series of days UTC days ending on
// now's UTC date; days without activity are present with zeros so a chart
// never has to guess about gaps.
func (s *Server) dashboardTrends(ctx context.Context, days int, now time.Time) (DashboardTrends, error) {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := today.AddDate(0, 0, -(days - 1))
	activity, err := s.Store.DailyActivity(ctx, from, today.AddDate(0, 0, 1))
	if err != nil {
		return DashboardTrends{}, err
	}
	byDay := map[string]store.DayActivity{}
	for _, a := range activity {
		byDay[a.Day] = a
	}
	out := DashboardTrends{Days: days, From: from.Format(time.DateOnly), To: today.Format(time.DateOnly), Data: make([]TrendDay, 0, days)}
	for d := from; !d.After(today); d = d.AddDate(0, 0, 1) {
		key := d.Format(time.DateOnly)
		a := byDay[key]
		td := TrendDay{Date: key, ScansStarted: a.ScansStarted, RiskScore: a.RiskScore}
		for sev, n := range a.FindingsBySeverity {
			td.FindingsBySeverity.Add(sev, n)
		}
		out.Data = append(out.Data, td)
	}
	return out, nil
}

// handleDashboardBrowse lists a directory for the scan-target picker,
// confined to the scan roots (tree.Browse).
func (s *Server) handleDashboardBrowse(w http.ResponseWriter, r *http.Request) error {
	body, err := s.browse(r.URL.Query().Get("path"))
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, body)
	return nil
}

// browse lists one directory for a scan-target picker (the console's
// picker too), with tree.Browse's errors as HTTP ones.
func (s *Server) browse(raw string) (BrowseListing, error) {
	l, err := tree.Browse(s.ScanRoots, raw)
	var be *tree.BrowseError
	if !errors.As(err, &be) {
		return l, err
	}
	switch be.Kind {
	case tree.BrowseInvalid:
		return l, httpio.Invalid("value_error", be.Msg, raw, "query", "path")
	case tree.BrowseForbidden:
		return l, httpio.Status(http.StatusForbidden, be.Msg)
	}
	return l, httpio.NotFound(be.Msg)
}

func (s *Server) handleDashboardInstall(w http.ResponseWriter, r *http.Request, installing *sync.Mutex) error {
	name := r.PathValue("scanner")
	i := slices.IndexFunc(s.Scanners, func(c scan.Scanner) bool { return c.Name() == name })
	if i < 0 {
		return httpio.NotFound("Unknown scanner: " + name)
	}
	if !installing.TryLock() {
		return httpio.Conflict("Another scanner install is running; try again when it has finished")
	}
	defer installing.Unlock()
	principal := PrincipalFrom(r.Context())
	s.log.InfoContext(r.Context(), "scanner install started", "request_id", requestID(r.Context()), "scanner", name, "by", principal.ID)
	run, err := registry.Install(r.Context(), s.Runner, s.Scanners[i], s.InstallRecipe, dashboardProbeTimeout)
	switch {
	case errors.Is(err, registry.ErrInstalled):
		return httpio.Conflict(strings.TrimPrefix(err.Error(), registry.ErrInstalled.Error()+": "))
	case errors.Is(err, registry.ErrNoRecipe):
		return httpio.Status(http.StatusNotImplemented, strings.TrimPrefix(err.Error(), registry.ErrNoRecipe.Error()+": "))
	case err != nil:
		return err
	}
	s.log.InfoContext(r.Context(), "scanner install finished", "request_id", requestID(r.Context()), "scanner", name, "command", run.Command,
		"exit_code", run.ExitCode, "installed", run.Installed, "duration_ms", run.Duration.Milliseconds())
	httpio.WriteJSON(w, http.StatusOK, ScannerInstallResult{Scanner: name, Command: run.Command, ExitCode: run.ExitCode,
		Output: pdf.OutputTail(run.Output, dashboardInstallOutputMax), Installed: run.Installed})
	return nil
}
