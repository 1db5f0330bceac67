package ui

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/auth"
	"scand/finding"
	"scand/store"
)

// flashes are the fixed confirmations a redirect may ask a page to show;
// the query names one, it never carries text.
var flashes = map[string]string{
	"triage": "Verdict saved.", "comment": "Comment added.", "comment-deleted": "Comment deleted.",
	"cancelled": "Scan cancelled.", "deleted": "Scan deleted.", "revoked": "Key revoked.",
	"updated": "Webhook saved.", "enabled": "Webhook enabled.", "disabled": "Webhook disabled.",
	"tested": "Test delivery queued; it appears in the log below once sent.", "webhook-deleted": "Webhook deleted.",
	"read": "Notification marked read.", "all-read": "All notifications marked read.", "started": "Scan queued.",
	"schedule-created": "Schedule created.", "schedule-saved": "Schedule saved.", "schedule-enabled": "Schedule enabled.",
	"schedule-disabled": "Schedule disabled: it starts no scan until enabled again.", "schedule-deleted": "Schedule deleted; the scans it started are kept.",
}

func flash(r *http.Request) string { return flashes[r.URL.Query().Get("done")] }

// severityRow is one severity of the overview's breakdown.
type severityRow struct {
	Severity   string
	Live       int
	Suppressed int
	Hidden     int
}

type overviewView struct {
	Severities  []severityRow
	Live        int
	Suppressed  int
	Hidden      int
	ScanCounts  map[string]int
	Statuses    []string
	Trend       trendChart
	Latest      []store.Scan
	Unavailable []ScannerState
	Available   int
	Scanners    int
	Unread      []store.Notification
	UnreadCount int
	Advisory    []AdvisoryDB
	Stale       int
	// Expiring counts acceptances that end within a week.
	Expiring int
}

var scanStatuses = []string{store.StatusPending, store.StatusRunning, store.StatusCompleted, store.StatusFailed, store.StatusCancelled}

func (c *Console) overview(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx := r.Context()
	classes, err := c.cfg.Data.CurrentFindings(ctx, c.cfg.HiddenTriage)
	if err != nil {
		return err
	}
	v := overviewView{Statuses: scanStatuses}
	if v.Expiring, err = c.cfg.Data.ExpiringVerdicts(ctx, c.cfg.Now().Add(7*24*time.Hour)); err != nil {
		return err
	}
	bySev := map[string]*severityRow{}
	for _, s := range finding.Severities {
		row := &severityRow{Severity: string(s)}
		bySev[string(s)] = row
		v.Severities = append(v.Severities, *row)
	}
	for _, cc := range classes {
		row := bySev[cc.Severity]
		if row == nil {
			continue
		}
		switch cc.Class {
		case store.FindingSuppressed:
			row.Suppressed += cc.Count
			v.Suppressed += cc.Count
		case store.FindingHidden:
			row.Hidden += cc.Count
			v.Hidden += cc.Count
		default:
			row.Live += cc.Count
			v.Live += cc.Count
		}
	}
	for i := range v.Severities {
		v.Severities[i] = *bySev[v.Severities[i].Severity]
	}
	if v.ScanCounts, err = c.cfg.Data.ScanCounts(ctx); err != nil {
		return err
	}
	days, err := c.trend(r, trendDays)
	if err != nil {
		return err
	}
	v.Trend = buildTrend(days)
	if v.Latest, _, err = c.cfg.Data.Scans(ctx, store.ScanFilter{Limit: 10}); err != nil {
		return err
	}
	for _, s := range c.scannerStates(ctx) {
		v.Scanners++
		if s.Available {
			v.Available++
		} else {
			v.Unavailable = append(v.Unavailable, s)
		}
	}
	v.Advisory = c.advisoryData(ctx)
	for _, a := range v.Advisory {
		if a.Stale {
			v.Stale++
		}
	}
	if rq.Can("GET /notifications") {
		if v.Unread, err = c.cfg.Data.Notifications(ctx, true, 5); err != nil {
			return err
		}
		if v.UnreadCount, err = c.cfg.Data.UnreadNotifications(ctx); err != nil {
			return err
		}
	}
	c.render(w, r, rq, http.StatusOK, "overview", "Overview", "overview", v)
	return nil
}

// trendChart is the overview's 30-day chart in SVG user units: a bar per
// day for the scans started, a line through the risk score of the days
// that completed a scan.
type trendChart struct {
	Width, Height int
	PlotTop       int
	PlotBottom    int
	Bars          []trendBar
	Line          string
	Points        []trendPoint
	MaxScans      int
	Days          []TrendDay
	FirstLabel    string
	LastLabel     string
}

type trendBar struct {
	X, Y, W, H int
	Title      string
}

type trendPoint struct {
	X, Y  int
	Title string
}

// trendDays is the overview's window, as the API's trends default.
const trendDays = 30

// trend is one entry per UTC day ending today, days without activity
// present with zeros, as the API's /dashboard/trends series is.
func (c *Console) trend(r *http.Request, days int) ([]TrendDay, error) {
	now := c.cfg.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := today.AddDate(0, 0, -(days - 1))
	activity, err := c.cfg.Data.Activity(r.Context(), from, today.AddDate(0, 0, 1))
	if err != nil {
		return nil, err
	}
	byDay := map[string]store.ConsoleDay{}
	for _, a := range activity {
		byDay[a.Day] = a
	}
	out := make([]TrendDay, 0, days)
	for d := from; !d.After(today); d = d.AddDate(0, 0, 1) {
		key := d.Format(time.DateOnly)
		a := byDay[key]
		out = append(out, TrendDay{Date: key, ScansStarted: a.ScansStarted, RiskScore: a.RiskScore, Findings: a.Findings})
	}
	return out, nil
}

func buildTrend(days []TrendDay) trendChart {
	const width, height, left, right, top, bottom = 640, 170, 36, 8, 10, 140
	ch := trendChart{Width: width, Height: height, PlotTop: top, PlotBottom: bottom, Days: days}
	if len(days) == 0 {
		return ch
	}
	ch.FirstLabel, ch.LastLabel = days[0].Date, days[len(days)-1].Date
	for _, d := range days {
		ch.MaxScans = max(ch.MaxScans, d.ScansStarted)
	}
	slot := (width - left - right) / len(days)
	plot := bottom - top
	var line []string
	for i, d := range days {
		x := left + i*slot
		h := 0
		if ch.MaxScans > 0 {
			h = d.ScansStarted * plot / ch.MaxScans
		}
		if d.ScansStarted > 0 && h < 2 {
			h = 2
		}
		ch.Bars = append(ch.Bars, trendBar{X: x + 1, Y: bottom - h, W: max(slot-2, 1), H: h,
			Title: d.Date + ": " + strconv.Itoa(d.ScansStarted) + " scans started, " + strconv.Itoa(d.Findings) + " findings in completed scans"})
		if d.RiskScore != nil {
			px, py := x+slot/2, bottom-*d.RiskScore*plot/100
			line = append(line, strconv.Itoa(px)+","+strconv.Itoa(py))
			ch.Points = append(ch.Points, trendPoint{X: px, Y: py, Title: d.Date + ": risk score " + strconv.Itoa(*d.RiskScore)})
		}
	}
	ch.Line = strings.Join(line, " ")
	return ch
}

// startForm is the start-scan form, pre-filled from the query (the
// directory picker sends the chosen path and kind back here).
type startForm struct {
	Kind       string
	Kinds      []string
	TargetPath string
	ScanTypes  []string
	Selected   []string
	TargetURL  string
	TargetHost string
}

var targetKinds = []string{KindDirectory, KindImage, KindRepository}

// targetKind keeps a kind the form offers; anything else is a directory.
func targetKind(k string) string {
	if slices.Contains(targetKinds, k) {
		return k
	}
	return KindDirectory
}

type scanListView struct {
	Scans    []store.Scan
	Total    int
	Statuses []string
	Selected []string
	Target   string
	Targets  []string
	Page     int
	Pages    int
	PrevURL  string
	NextURL  string
	FirstURL string
	LastURL  string
	// FilterValues are the list's filters, which the page jump keeps.
	FilterValues url.Values
	Form         startForm
	Flash        string
}

const scansPerPage = 50

func (c *Console) scanList(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	v := scanListView{Statuses: scanStatuses, Target: q.Get("target"), Flash: flash(r)}
	for _, s := range splitValues(q["status"]) {
		if slices.Contains(scanStatuses, s) && !slices.Contains(v.Selected, s) {
			v.Selected = append(v.Selected, s)
		}
	}
	v.Page = 1
	if p := q.Get("page"); p != "" && p != "last" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return &pageError{status: http.StatusUnprocessableEntity, back: "/ui/scans",
				msgs: []string{"This page link is not valid (page=" + strconv.Quote(p) + "): a page is a number from 1."}}
		}
		v.Page = n
	}
	var err error
	v.Scans, v.Total, err = c.cfg.Data.Scans(r.Context(), store.ScanFilter{Statuses: v.Selected, TargetPath: v.Target,
		Limit: scansPerPage, Offset: (v.Page - 1) * scansPerPage})
	if err != nil {
		return err
	}
	v.Pages = max(1, (v.Total+scansPerPage-1)/scansPerPage)
	if q.Get("page") == "last" && v.Pages > 1 {
		v.Page = v.Pages
		if v.Scans, v.Total, err = c.cfg.Data.Scans(r.Context(), store.ScanFilter{Statuses: v.Selected, TargetPath: v.Target,
			Limit: scansPerPage, Offset: (v.Page - 1) * scansPerPage}); err != nil {
			return err
		}
	}
	if v.Page > v.Pages {
		return &pageError{status: http.StatusUnprocessableEntity, back: "/ui/scans",
			msgs: []string{fmt.Sprintf("There is no page %d: the scans fill %d page%s.", v.Page, v.Pages, plural(v.Pages))}}
	}
	link := func(page int) string {
		vals := url.Values{"status": v.Selected, "page": {strconv.Itoa(page)}}
		if v.Target != "" {
			vals.Set("target", v.Target)
		}
		return "/ui/scans?" + vals.Encode()
	}
	if v.Page > 1 {
		v.PrevURL = link(v.Page - 1)
	}
	if v.Page < v.Pages {
		v.NextURL = link(v.Page + 1)
		v.LastURL = link(v.Pages)
	}
	if v.Page > 1 {
		v.FirstURL = link(1)
	}
	v.FilterValues = url.Values{"status": v.Selected}
	if v.Target != "" {
		v.FilterValues.Set("target", v.Target)
	}
	if v.Targets, err = c.cfg.Data.ScanTargets(r.Context()); err != nil {
		return err
	}
	v.Form = startForm{Kind: targetKind(q.Get("kind")), Kinds: targetKinds, TargetPath: q.Get("target_path"), ScanTypes: c.cfg.ScanTypes, Selected: c.cfg.DefaultScanTypes}
	c.render(w, r, rq, http.StatusOK, "scans", "Scans", "scans", v)
	return nil
}

// splitValues accepts repeated parameters and comma-separated lists alike.
func splitValues(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (c *Console) startScan(w http.ResponseWriter, r *http.Request, rq *request) error {
	f := r.PostForm
	in := ScanRequest{Kind: targetKind(f.Get("target_kind")), Target: strings.TrimSpace(f.Get("target_path")), ScanTypes: f["scan_types"],
		TargetURL: strings.TrimSpace(f.Get("target_url")), TargetHost: strings.TrimSpace(f.Get("target_host"))}
	if in.Kind == KindRepository {
		in.RepoRef = strings.TrimSpace(f.Get("repo_ref"))
		in.RepoHistory, in.RepoSubmodules = f.Get("repo_history") != "", f.Get("repo_submodules") != ""
	}
	if in.ScanTypes == nil {
		in.ScanTypes = []string{}
	}
	sc, err := c.cfg.Actions.StartScan(r.Context(), rq.p, r.RemoteAddr, in)
	if err != nil {
		return withBack(err, "/ui/scans?"+url.Values{"target_path": {in.Target}, "kind": {in.Kind}}.Encode()+"#start")
	}
	return redirect(w, r, scanURL(sc.ID))
}

// findingFilter is the findings table's filter form as the page shows it.
type findingFilter struct {
	Severities []string
	ScanTypes  []string
	Scanners   []string
	Triage     []string
	Suppressed string // "", "only", "exclude"
	Compliance string
	Text       string
	Limit      int
}

func (ff findingFilter) values() url.Values {
	v := url.Values{}
	for k, vals := range map[string][]string{"severity": ff.Severities, "scan_type": ff.ScanTypes, "scanner": ff.Scanners, "triage": ff.Triage} {
		if len(vals) > 0 {
			v[k] = vals
		}
	}
	if ff.Suppressed != "" {
		v.Set("suppressed", ff.Suppressed)
	}
	if ff.Compliance != "" {
		v.Set("compliance", ff.Compliance)
	}
	if ff.Text != "" {
		v.Set("q", ff.Text)
	}
	if ff.Limit != defaultPageSize {
		v.Set("limit", strconv.Itoa(ff.Limit))
	}
	return v
}

var pageSizes = []int{25, 50, 100, 200}

const (
	defaultPageSize = 50
	maxSearchChars  = 200
)

var severityNames = []string{"critical", "high", "medium", "low", "info"}

// parseFindingFilter reads the table's filters, keeping only values that
// can match (a stray value is dropped rather than echoed back).
func (c *Console) parseFindingFilter(q url.Values) findingFilter {
	keep := func(vals []string, allowed []string) []string {
		var out []string
		for _, v := range splitValues(vals) {
			if (allowed == nil || slices.Contains(allowed, v)) && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	ff := findingFilter{
		Severities: keep(q["severity"], severityNames),
		ScanTypes:  keep(q["scan_type"], c.cfg.ScanTypes),
		Scanners:   keep(q["scanner"], nil),
		Triage:     keep(q["triage"], store.TriageStatuses),
		Compliance: strings.TrimSpace(q.Get("compliance")),
		Text:       strings.TrimSpace(q.Get("q")),
		Limit:      defaultPageSize,
	}
	if len(ff.Scanners) > 20 {
		ff.Scanners = ff.Scanners[:20]
	}
	if s := q.Get("suppressed"); s == "only" || s == "exclude" {
		ff.Suppressed = s
	}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && slices.Contains(pageSizes, n) {
		ff.Limit = n
	}
	if r := []rune(ff.Text); len(r) > maxSearchChars {
		ff.Text = string(r[:maxSearchChars])
	}
	if r := []rune(ff.Compliance); len(r) > maxSearchChars {
		ff.Compliance = string(r[:maxSearchChars])
	}
	return ff
}

func (ff findingFilter) query(after, before string) FindingQuery {
	fq := FindingQuery{Severities: ff.Severities, ScanTypes: ff.ScanTypes, Scanners: ff.Scanners, Triage: ff.Triage,
		Text: ff.Text, After: after, Before: before, Limit: ff.Limit}
	if ff.Compliance != "" {
		fq.Compliance = []string{ff.Compliance}
	}
	switch ff.Suppressed {
	case "only":
		t := true
		fq.Suppressed = &t
	case "exclude":
		f := false
		fq.Suppressed = &f
	}
	return fq
}

type sevCount struct {
	Severity string
	Count    int
}

type scanDetailView struct {
	Scan      store.Scan
	Details   ScanDetails
	Active    bool
	Events    string
	Expected  int
	Duration  string
	Counts    []sevCount
	Previous  *store.Scan
	Filter    findingFilter
	Findings  []store.FindingWithState
	Total     int
	More      bool
	Filtered  bool
	FirstURL  string
	PrevURL   string
	NextURL   string
	FilterURL string
	// FilterValues are the table's filters, which the bulk form carries.
	FilterValues url.Values
	// PageNo is the page jumped to (0 when paging by cursor); Pages the
	// number of pages when the count is exact (0 when it is not).
	PageNo     int
	Pages      int
	LastURL    string
	ScanTypes  []string
	Scanners   []string
	Statuses   []string
	Severities []string
	PageSizes  []int
	Flash      string
}

// refresh reloads a running scan's page every few seconds for a browser
// without script; with script, the event stream updates it instead.
func (v scanDetailView) refresh() bool { return v.Active }

func (c *Console) scanDetail(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx := r.Context()
	sc, err := c.cfg.Data.Scan(ctx, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return notFound("No scan has this id; it may have been deleted.")
	}
	if err != nil {
		return err
	}
	q := r.URL.Query()
	v := scanDetailView{Scan: sc, Active: !store.TerminalStatus(sc.Status), Filter: c.parseFindingFilter(q),
		ScanTypes: sc.ScanTypes, Scanners: sc.ScannersRun, Statuses: store.TriageStatuses, Severities: severityNames, PageSizes: pageSizes, Flash: flash(r)}
	if sc.CompletedAt != nil {
		v.Duration = sc.CompletedAt.Sub(sc.StartedAt).Round(time.Second).String()
	}
	// Live counts, as the API's summary gives them: suppressed findings
	// are counted apart and left out of the risk score.
	for _, s := range severityNames {
		v.Counts = append(v.Counts, sevCount{Severity: s, Count: sc.LiveCounts[s]})
	}
	if v.Details, err = c.cfg.Actions.ScanDetails(ctx, sc); err != nil {
		return err
	}
	if v.Active {
		if v.Events, err = c.cfg.Actions.EventStream(ctx, rq.p, sc.ID); err != nil {
			return err
		}
		for _, s := range c.scannerStates(ctx) {
			if slices.Contains(sc.ScanTypes, s.ScanType) {
				v.Expected++
			}
		}
	}
	if prev, err := c.cfg.Data.PreviousScan(ctx, sc.ID); err == nil {
		v.Previous = &prev
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if v.Active {
		// Findings are stored when the scan completes.
		c.render(w, r, rq, http.StatusOK, "scan", "Scan "+short(sc.ID), "scans", v)
		return nil
	}
	fq, err := c.pageQuery(sc, v.Filter, q)
	if err != nil {
		return err
	}
	page, err := c.cfg.Data.Findings(ctx, sc.ID, fq)
	if err != nil {
		return err
	}
	if total := page.Total; q.Get("page") == "last" && !page.More {
		// With an exact count the last page is the last numbered one, so
		// "Last" and "page N of N" show the same rows.
		if total < 0 {
			total = sc.FindingsCount
		}
		if n := (total + fq.Limit - 1) / fq.Limit; n > 1 {
			fq.After, fq.Before, fq.Page = "", "", n
			if page, err = c.cfg.Data.Findings(ctx, sc.ID, fq); err != nil {
				return err
			}
		}
	}
	v.PageNo = fq.Page
	v.Findings, v.Total, v.More = page.Findings, page.Total, page.More
	v.Filtered = page.Total >= 0
	if !v.Filtered {
		v.Total = sc.FindingsCount
	}
	base := scanURL(sc.ID)
	link := func(k, cursor string) string {
		vals := v.Filter.values()
		if k != "" {
			vals.Set(k, cursor)
		}
		if len(vals) == 0 {
			return base + "#findings"
		}
		return base + "?" + vals.Encode() + "#findings"
	}
	v.FilterURL = base
	v.FilterValues = v.Filter.values()
	if r.URL.Query().Get("done") == "bulk" {
		v.Flash = bulkFlash(r)
	}
	if q.Get("after") != "" || q.Get("before") != "" || q.Get("page") != "" {
		v.FirstURL = link("", "")
	}
	if !page.More || v.Total > 0 {
		v.Pages = max(1, (v.Total+v.Filter.Limit-1)/v.Filter.Limit)
	}
	if v.Pages > 0 && v.PageNo > v.Pages {
		return &pageError{status: http.StatusUnprocessableEntity, back: link("", ""),
			msgs: []string{fmt.Sprintf("There is no page %d: the findings that match fill %d page%s.", v.PageNo, v.Pages, plural(v.Pages))}}
	}
	if page.Next != "" || v.PageNo > 0 && v.PageNo < v.Pages {
		v.LastURL = link("page", "last")
	}
	if page.Prev != "" {
		v.PrevURL = link("before", page.Prev)
	}
	if page.Next != "" {
		v.NextURL = link("after", page.Next)
	}
	c.render(w, r, rq, http.StatusOK, "scan", "Scan "+short(sc.ID), "scans", v)
	return nil
}

func (c *Console) cancelScan(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PathValue("id")
	if _, err := c.cfg.Actions.CancelScan(r.Context(), rq.p, id); err != nil {
		return withBack(err, scanURL(id))
	}
	return redirect(w, r, scanURL(id)+"?done=cancelled")
}

func (c *Console) deleteScan(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PathValue("id")
	if err := c.cfg.Actions.DeleteScan(r.Context(), rq.p, id); err != nil {
		return withBack(err, scanURL(id))
	}
	return redirect(w, r, "/ui/scans?done=deleted")
}

// export proxies a download route of the API. The console never lets the
// API accept its cookie; it serves the same bytes itself, as an
// attachment under the console's own security headers.
func (c *Console) export(apiRoute string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rq *request) error {
		return withBack(c.cfg.Actions.Export(&downloadWriter{ResponseWriter: w}, r, rq.p, apiRoute), scanURL(r.PathValue("id")))
	}
}

// downloadWriter makes every proxied response an attachment with the
// console's headers: the HTML report keeps its own stricter styling needs
// out of the console's origin by being saved, not rendered.
type downloadWriter struct {
	http.ResponseWriter
	wrote bool
}

func (d *downloadWriter) WriteHeader(code int) {
	if !d.wrote {
		d.wrote = true
		h := d.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		if cd := h.Get("Content-Disposition"); cd == "" {
			h.Set("Content-Disposition", "attachment")
		} else if strings.HasPrefix(cd, "inline") {
			h.Set("Content-Disposition", "attachment"+strings.TrimPrefix(cd, "inline"))
		}
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *downloadWriter) Write(b []byte) (int, error) {
	if !d.wrote {
		d.WriteHeader(http.StatusOK)
	}
	return d.ResponseWriter.Write(b)
}

// browsePurpose is what the target picker chooses for: a directory to
// scan (""), an image archive or layout to scan ("image"), or a schedule's
// directory ("schedule", with ID set when editing one).
type browsePurpose struct {
	For string
	ID  string
}

func browsePurposeOf(q url.Values) browsePurpose {
	switch q.Get("for") {
	case "image":
		return browsePurpose{For: "image"}
	case "schedule":
		return browsePurpose{For: "schedule", ID: q.Get("id")}
	}
	return browsePurpose{}
}

// browse is the picker's own URL for another directory.
func (bp browsePurpose) browse(p string) string {
	vals := url.Values{"path": {p}}
	if bp.For != "" {
		vals.Set("for", bp.For)
	}
	if bp.ID != "" {
		vals.Set("id", bp.ID)
	}
	return "/ui/browse?" + vals.Encode()
}

// choose is where choosing p leads: back to the form, filled in.
func (bp browsePurpose) choose(p string) string {
	switch {
	case bp.For == "schedule" && bp.ID != "":
		return scheduleURL(bp.ID) + "?" + url.Values{"target_path": {p}}.Encode() + "#edit"
	case bp.For == "schedule":
		return "/ui/schedules?" + url.Values{"target_path": {p}}.Encode() + "#new"
	case bp.For == "image":
		return "/ui/scans?" + url.Values{"kind": {KindImage}, "target_path": {p}}.Encode() + "#start"
	}
	return "/ui/scans?" + url.Values{"target_path": {p}}.Encode() + "#start"
}

type browseEntry struct {
	ListingEntry
	BrowseURL string
	// ChooseURL is "" when the entry cannot be chosen (a file, unless an
	// image archive is wanted).
	ChooseURL string
}

type browseView struct {
	Listing     Listing
	Image       bool
	ChooseLabel string
	HereURL     string
	ParentURL   string
	Entries     []browseEntry
}

func (c *Console) browse(w http.ResponseWriter, r *http.Request, rq *request) error {
	bp := browsePurposeOf(r.URL.Query())
	l, err := c.cfg.Actions.Browse(r.Context(), rq.p, r.URL.Query().Get("path"))
	if err != nil {
		return withBack(err, bp.browse(""))
	}
	v := browseView{Listing: l, Image: bp.For == "image", HereURL: bp.choose(l.Path), ChooseLabel: "Scan this"}
	switch bp.For {
	case "image":
		v.ChooseLabel = "Scan this image"
	case "schedule":
		v.ChooseLabel = "Use this"
	}
	if l.Parent != "" {
		v.ParentURL = bp.browse(l.Parent)
	}
	for _, e := range l.Entries {
		be := browseEntry{ListingEntry: e}
		if e.Dir {
			be.BrowseURL = bp.browse(e.Path)
		}
		// An OCI layout is a directory, an archive a file: both can be
		// chosen as an image.
		if e.Dir || v.Image {
			be.ChooseURL = bp.choose(e.Path)
		}
		v.Entries = append(v.Entries, be)
	}
	c.render(w, r, rq, http.StatusOK, "browse", "Choose a scan target", "scans", v)
	return nil
}

type compareView struct {
	A, B          *store.Scan
	Kind          string
	Kinds         []string
	Counts        map[string]int
	Findings      []store.FindingWithState
	NextURL       string
	KindURLs      map[string]string
	Choices       []store.Scan
	TargetsDiffer bool
	Scanned       string
	// NotCompared says why each scanner's findings are not compared.
	NotCompared []string
}

const compareRows = 100

func (c *Console) compare(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx := r.Context()
	q := r.URL.Query()
	v := compareView{Kinds: []string{store.ConsoleCompareNew, store.ConsoleCompareFixed, store.ConsoleCompareUnchanged, store.ConsoleCompareNotCompared}, Kind: q.Get("show")}
	if !slices.Contains(v.Kinds, v.Kind) {
		v.Kind = store.ConsoleCompareNew
	}
	var err error
	if v.Choices, _, err = c.cfg.Data.Scans(ctx, store.ScanFilter{Statuses: []string{store.StatusCompleted}, Limit: 200}); err != nil {
		return err
	}
	load := func(id string) (*store.Scan, error) {
		if id == "" {
			return nil, nil
		}
		sc, err := c.cfg.Data.Scan(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, notFound("No scan has the id " + id + ".")
		}
		return &sc, err
	}
	if v.B, err = load(q.Get("b")); err != nil {
		return err
	}
	if v.A, err = load(q.Get("a")); err != nil {
		return err
	}
	if v.A == nil && v.B != nil {
		// The natural question: what changed since the previous scan of
		// the same target?
		if prev, err := c.cfg.Data.PreviousScan(ctx, v.B.ID); err == nil {
			v.A = &prev
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	if v.A != nil && v.B != nil {
		v.TargetsDiffer = v.A.TargetPath != v.B.TargetPath || ptrString(v.A.TargetURL) != ptrString(v.B.TargetURL) || ptrString(v.A.TargetHost) != ptrString(v.B.TargetHost)
		page, err := c.cfg.Data.Compare(ctx, v.A.ID, v.B.ID, v.Kind, q.Get("after"), compareRows)
		if err != nil {
			return err
		}
		v.Counts, v.Findings, v.NotCompared = page.Counts, page.Findings, page.NotCompared
		link := func(kind, after string) string {
			vals := url.Values{"a": {v.A.ID}, "b": {v.B.ID}, "show": {kind}}
			if after != "" {
				vals.Set("after", after)
			}
			return "/ui/compare?" + vals.Encode() + "#results"
		}
		v.KindURLs = map[string]string{}
		for _, k := range v.Kinds {
			v.KindURLs[k] = link(k, "")
		}
		if page.Next != "" {
			v.NextURL = link(v.Kind, page.Next)
		}
		// New and unchanged rows come from the newer scan, fixed ones from
		// the older: finding links open the occurrence the row is.
		v.Scanned = v.B.ID
		if v.Kind == store.ConsoleCompareFixed {
			v.Scanned = v.A.ID
		}
	}
	c.render(w, r, rq, http.StatusOK, "compare", "Compare scans", "compare", v)
	return nil
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// principalLabel names a caller for people.
func principalLabel(p auth.Principal) string {
	switch p.Source {
	case auth.SourceEnv:
		return "environment key (SVC_API_KEY)"
	case auth.SourceDev:
		return "dev mode"
	}
	return "key " + p.ID
}
