package api

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"scand/auth"
	"scand/finding/report"
	"scand/scan"
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
}

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

// BrowseEntry is one directory entry of GET /dashboard/browse.
type BrowseEntry struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Type    string `json:"type" doc:"dir, file or other (socket, device, broken symlink); a symlink has its target's type"`
	Symlink bool   `json:"symlink"`
	Size    int64  `json:"size" doc:"Bytes, for files; 0 otherwise"`
}

// BrowseListing is the body of GET /dashboard/browse.
type BrowseListing struct {
	Path      string        `json:"path" doc:"The listed directory: absolute and cleaned"`
	Parent    *string       `json:"parent" doc:"Parent directory; null at / and at a scan root"`
	Roots     []string      `json:"roots" doc:"The configured scan roots (SVC_SCAN_ROOTS); empty means browsing is not confined"`
	Entries   []BrowseEntry `json:"entries" doc:"Directories first, then the rest, each by name; hidden entries except .git are left out"`
	Truncated bool          `json:"truncated" doc:"More than the returned entries exist"`
}

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
	// dashboardInstallTimeout bounds one package-manager run.
	dashboardInstallTimeout = 10 * time.Minute
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
	writeJSON(w, http.StatusOK, body)
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
		dashboardAddSeverity(&body.FindingsBySeverity, c.Severity, c.Count)
		if !report.HiddenVerdict(c.Status) {
			dashboardAddSeverity(&body.VisibleBySeverity, c.Severity, c.Count)
		}
		t := &body.TriageByStatus
		switch c.Status {
		case "new":
			t.New += c.Count
		case "triaged":
			t.Triaged += c.Count
		case "false_positive":
			t.FalsePositive += c.Count
		case "accepted_risk":
			t.AcceptedRisk += c.Count
		case "fixed":
			t.Fixed += c.Count
		case "wont_fix":
			t.WontFix += c.Count
		}
	}
	body.Scanners.Total = len(s.Scanners)
	probeCtx, cancel := context.WithTimeout(ctx, dashboardProbeTimeout)
	defer cancel()
	for _, p := range scan.ProbeAll(probeCtx, s.log, s.Scanners) {
		if p.OK {
			body.Scanners.Available++
		}
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

func dashboardAddSeverity(c *sse.SeverityCounts, sev string, n int) {
	switch sev {
	case "critical":
		c.Critical += n
	case "high":
		c.High += n
	case "medium":
		c.Medium += n
	case "low":
		c.Low += n
	case "info":
		c.Info += n
	}
}

func (s *Server) handleDashboardTrends(w http.ResponseWriter, r *http.Request) error {
	days, err := queryInt(r, "days", 30, 1, 365)
	if err != nil {
		return err
	}
	series, err := s.dashboardTrends(r.Context(), days, s.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, series)
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
			dashboardAddSeverity(&td.FindingsBySeverity, sev, n)
		}
		out.Data = append(out.Data, td)
	}
	return out, nil
}

// dashboardRoots are the configured scan roots, cleaned.
func (s *Server) dashboardRoots() []string {
	roots := make([]string, 0, len(s.ScanRoots))
	for _, r := range s.ScanRoots {
		if r != "" {
			roots = append(roots, filepath.Clean(r))
		}
	}
	return roots
}

func dashboardWithin(p, root string) bool {
	return root == "/" || p == root || strings.HasPrefix(p, root+"/")
}

func dashboardWithinAny(p string, roots []string) bool {
	for _, root := range roots {
		if dashboardWithin(p, root) {
			return true
		}
	}
	return false
}

// handleDashboardBrowse lists a directory for the scan-target picker.
// With SVC_SCAN_ROOTS set the path must lie under a root twice over: as
// written (checked before touching the file system, so a probe outside
// the roots learns nothing about what exists there) and after resolving
// symlinks (so a link inside a root cannot lead out of it).
func (s *Server) handleDashboardBrowse(w http.ResponseWriter, r *http.Request) error {
	body, err := s.browse(r.URL.Query().Get("path"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// browse lists one directory for a scan-target picker, confined as
// handleDashboardBrowse describes; the console's picker uses it too.
func (s *Server) browse(raw string) (BrowseListing, error) {
	roots := s.dashboardRoots()
	if raw == "" {
		raw = "/"
		if len(roots) > 0 {
			raw = roots[0]
		}
	}
	if !filepath.IsAbs(raw) {
		return BrowseListing{}, invalid("value_error", "path must be absolute", raw, "query", "path")
	}
	p := filepath.Clean(raw)
	outside := errStatus(http.StatusForbidden, "Path is outside the configured scan roots (SVC_SCAN_ROOTS: "+strings.Join(roots, ":")+")")
	if len(roots) > 0 && !dashboardWithinAny(p, roots) {
		return BrowseListing{}, outside
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return BrowseListing{}, dashboardFSError(err, p)
	}
	var resolvedRoots []string
	if len(roots) > 0 {
		for _, root := range roots {
			if rr, err := filepath.EvalSymlinks(root); err == nil {
				resolvedRoots = append(resolvedRoots, rr)
			}
		}
		if !dashboardWithinAny(resolved, resolvedRoots) {
			return BrowseListing{}, errStatus(http.StatusForbidden, "Path resolves (through a symlink) to "+resolved+", outside the configured scan roots (SVC_SCAN_ROOTS: "+strings.Join(roots, ":")+")")
		}
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return BrowseListing{}, dashboardFSError(err, p)
	}
	if !info.IsDir() {
		return BrowseListing{}, invalid("value_error", "path is not a directory", raw, "query", "path")
	}
	dirents, err := os.ReadDir(resolved)
	if err != nil {
		return BrowseListing{}, dashboardFSError(err, p)
	}

	entries := make([]BrowseEntry, 0, min(len(dirents), dashboardBrowseMax))
	for _, d := range dirents {
		name := d.Name()
		if strings.HasPrefix(name, ".") && name != ".git" {
			continue
		}
		e := BrowseEntry{Name: name, Path: filepath.Join(p, name), Type: "other"}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			e.Symlink = true
			if target, err := os.Stat(filepath.Join(resolved, name)); err == nil {
				mode = target.Mode().Type()
			}
		}
		switch {
		case mode.IsDir():
			e.Type = "dir"
		case mode.IsRegular():
			e.Type = "file"
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if (a.Type == "dir") != (b.Type == "dir") {
			return a.Type == "dir"
		}
		if la, lb := strings.ToLower(a.Name), strings.ToLower(b.Name); la != lb {
			return la < lb
		}
		return a.Name < b.Name
	})
	body := BrowseListing{Path: p, Roots: roots, Entries: entries}
	if len(entries) > dashboardBrowseMax {
		body.Entries, body.Truncated = entries[:dashboardBrowseMax], true
	}
	// Sizes only for what is returned: one stat per kept file.
	for i := range body.Entries {
		if e := &body.Entries[i]; e.Type == "file" {
			if fi, err := os.Stat(filepath.Join(resolved, e.Name)); err == nil {
				e.Size = fi.Size()
			}
		}
	}
	atRoot := p == "/" || (len(roots) > 0 && (slices.Contains(roots, p) || slices.Contains(resolvedRoots, resolved)))
	if !atRoot {
		parent := filepath.Dir(p)
		body.Parent = &parent
	}
	return body, nil
}

// dashboardFSError maps a file-system error on a browse path to a status.
func dashboardFSError(err error, p string) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return errNotFound("Path not found: " + p)
	case errors.Is(err, fs.ErrPermission):
		return errStatus(http.StatusForbidden, "Permission denied: scand cannot read "+p)
	}
	return err
}

func (s *Server) handleDashboardInstall(w http.ResponseWriter, r *http.Request, installing *sync.Mutex) error {
	name := r.PathValue("scanner")
	var sc scan.Scanner
	for _, c := range s.Scanners {
		if c.Name() == name {
			sc = c
			break
		}
	}
	if sc == nil {
		return errNotFound("Unknown scanner: " + name)
	}
	probeCtx, cancel := context.WithTimeout(r.Context(), dashboardProbeTimeout)
	version, hint, ok := sc.Available(probeCtx)
	cancel()
	if ok {
		detail := "Scanner " + name + " is already installed"
		if version != "" {
			detail += " (version " + version + ")"
		}
		return errConflict(detail)
	}
	byHand := ""
	if hint != "" {
		byHand = "; install it by hand: " + hint
	}
	program, args, ok := s.installRecipe(name)
	if !ok || s.Runner == nil {
		return errStatus(http.StatusNotImplemented, "No install recipe for "+name+" on this system"+byHand)
	}
	if !installing.TryLock() {
		return errConflict("Another scanner install is running; try again when it has finished")
	}
	defer installing.Unlock()

	command := dashboardCommandLine(program, args)
	principal := PrincipalFrom(r.Context())
	s.log.InfoContext(r.Context(), "scanner install started", "request_id", requestID(r.Context()), "scanner", name, "command", command, "by", principal.ID)
	// A package manager killed half-way can leave the system's package
	// database broken, so a client that disconnects does not stop the run;
	// only the timeout does.
	runCtx := context.WithoutCancel(r.Context())
	res, err := s.Runner.Run(runCtx, scan.Cmd{Program: program, Args: args, Timeout: dashboardInstallTimeout,
		Env: []string{"DEBIAN_FRONTEND=noninteractive"}})
	if errors.Is(err, scan.ErrNotInstalled) {
		return errStatus(http.StatusNotImplemented, "The package manager "+program+" needed to install "+name+" is not on this system"+byHand)
	}
	timedOut := errors.Is(err, scan.ErrTimeout)
	if err != nil && !timedOut {
		return err
	}
	out := append(append([]byte(nil), res.Stdout...), res.Stderr...)
	if timedOut {
		out = append(out, "\n[scand: install timed out after "+dashboardInstallTimeout.String()+" and was stopped]\n"...)
		res.ExitCode = -1
	}
	// Wrappers cache availability; one that can forget it reports the
	// fresh state right after the install.
	if f, ok := sc.(interface{ InvalidateAvailability() }); ok {
		f.InvalidateAvailability()
	}
	probeCtx, cancel = context.WithTimeout(r.Context(), dashboardProbeTimeout)
	_, _, installed := sc.Available(probeCtx)
	cancel()
	s.log.InfoContext(r.Context(), "scanner install finished", "request_id", requestID(r.Context()), "scanner", name,
		"exit_code", res.ExitCode, "installed", installed, "duration_ms", res.Duration.Milliseconds())
	writeJSON(w, http.StatusOK, ScannerInstallResult{Scanner: name, Command: command, ExitCode: res.ExitCode,
		Output: reportOutputTail(out, dashboardInstallOutputMax), Installed: installed})
	return nil
}

// dashboardCommandLine shows a command as one would type it; arguments
// with spaces or quotes are quoted. It is for display only: the command
// itself never passes through a shell.
func dashboardCommandLine(program string, args []string) string {
	parts := make([]string, 0, len(args)+1)
	for _, a := range append([]string{program}, args...) {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
