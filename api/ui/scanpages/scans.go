package scanpages

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/api/ui"
	"scand/finding"
	"scand/store"
	"scand/store/findings"
	"scand/store/targets"
)

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
	Unavailable []ui.ScannerState
	Available   int
	Scanners    int
	Unread      []store.Notification
	UnreadCount int
	Advisory    []ui.AdvisoryDB
	Stale       int
	// Expiring counts acceptances that end within a week.
	Expiring int
}

var scanStatuses = []string{store.StatusPending, store.StatusRunning, store.StatusCompleted, store.StatusFailed, store.StatusCancelled}

func (c pages) overview(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	ctx := r.Context()
	classes, err := c.Config().Data.CurrentFindings(ctx, c.Config().HiddenTriage)
	if err != nil {
		return err
	}
	v := overviewView{Statuses: scanStatuses}
	if v.Expiring, err = c.Config().Data.ExpiringVerdicts(ctx, c.Config().Now().Add(7*24*time.Hour)); err != nil {
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
	if v.ScanCounts, err = c.Config().Data.ScanCounts(ctx); err != nil {
		return err
	}
	days, err := c.trend(r, trendDays)
	if err != nil {
		return err
	}
	v.Trend = buildTrend(days)
	if v.Latest, _, err = c.Config().Data.Scans(ctx, store.ScanFilter{Limit: 10}); err != nil {
		return err
	}
	for _, s := range c.ScannerStates(ctx) {
		v.Scanners++
		if s.Available {
			v.Available++
		} else {
			v.Unavailable = append(v.Unavailable, s)
		}
	}
	v.Advisory = c.AdvisoryData(ctx)
	for _, a := range v.Advisory {
		if a.Stale {
			v.Stale++
		}
	}
	if rq.Can("GET /notifications") {
		if v.Unread, err = c.Config().Data.Notifications(ctx, true, 5); err != nil {
			return err
		}
		if v.UnreadCount, err = c.Config().Data.UnreadNotifications(ctx); err != nil {
			return err
		}
	}
	c.Render(w, r, rq, http.StatusOK, "overview", "Overview", "overview", v)
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
	Days          []ui.TrendDay
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
func (c pages) trend(r *http.Request, days int) ([]ui.TrendDay, error) {
	now := c.Config().Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := today.AddDate(0, 0, -(days - 1))
	activity, err := c.Config().Data.Activity(r.Context(), from, today.AddDate(0, 0, 1))
	if err != nil {
		return nil, err
	}
	byDay := map[string]store.ConsoleDay{}
	for _, a := range activity {
		byDay[a.Day] = a
	}
	out := make([]ui.TrendDay, 0, days)
	for d := from; !d.After(today); d = d.AddDate(0, 0, 1) {
		key := d.Format(time.DateOnly)
		a := byDay[key]
		out = append(out, ui.TrendDay{Date: key, ScansStarted: a.ScansStarted, RiskScore: a.RiskScore, Findings: a.Findings})
	}
	return out, nil
}

func buildTrend(days []ui.TrendDay) trendChart {
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

var targetKinds = []string{ui.KindDirectory, ui.KindImage, ui.KindRepository}

// targetKind keeps a kind the form offers; anything else is a directory.
func targetKind(k string) string {
	if slices.Contains(targetKinds, k) {
		return k
	}
	return ui.KindDirectory
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

func (c pages) scanList(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	q := r.URL.Query()
	v := scanListView{Statuses: scanStatuses, Target: q.Get("target"), Flash: ui.Flash(r)}
	for _, s := range ui.SplitValues(q["status"]) {
		if slices.Contains(scanStatuses, s) && !slices.Contains(v.Selected, s) {
			v.Selected = append(v.Selected, s)
		}
	}
	v.Page = 1
	if p := q.Get("page"); p != "" && p != "last" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return &ui.PageError{Status: http.StatusUnprocessableEntity, Back: "/ui/scans",
				Msgs: []string{"This page link is not valid (page=" + strconv.Quote(p) + "): a page is a number from 1."}}
		}
		v.Page = n
	}
	var err error
	v.Scans, v.Total, err = c.Config().Data.Scans(r.Context(), store.ScanFilter{Statuses: v.Selected, TargetPath: v.Target,
		Limit: scansPerPage, Offset: (v.Page - 1) * scansPerPage})
	if err != nil {
		return err
	}
	v.Pages = max(1, (v.Total+scansPerPage-1)/scansPerPage)
	if q.Get("page") == "last" && v.Pages > 1 {
		v.Page = v.Pages
		if v.Scans, v.Total, err = c.Config().Data.Scans(r.Context(), store.ScanFilter{Statuses: v.Selected, TargetPath: v.Target,
			Limit: scansPerPage, Offset: (v.Page - 1) * scansPerPage}); err != nil {
			return err
		}
	}
	if v.Page > v.Pages {
		return &ui.PageError{Status: http.StatusUnprocessableEntity, Back: "/ui/scans",
			Msgs: []string{fmt.Sprintf("There is no page %d: the scans fill %d page%s.", v.Page, v.Pages, ui.Plural(v.Pages))}}
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
	if v.Targets, err = c.Config().Data.ScanTargets(r.Context()); err != nil {
		return err
	}
	v.Form = startForm{Kind: targetKind(q.Get("kind")), Kinds: targetKinds, TargetPath: q.Get("target_path"), ScanTypes: c.Config().ScanTypes, Selected: c.Config().DefaultScanTypes}
	c.Render(w, r, rq, http.StatusOK, "scans", "Scans", "scans", v)
	return nil
}

func (c pages) startScan(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	f := r.PostForm
	in := ui.ScanRequest{Kind: targetKind(f.Get("target_kind")), Target: strings.TrimSpace(f.Get("target_path")), ScanTypes: f["scan_types"],
		TargetURL: strings.TrimSpace(f.Get("target_url")), TargetHost: strings.TrimSpace(f.Get("target_host"))}
	if in.Kind == ui.KindRepository {
		in.RepoRef = strings.TrimSpace(f.Get("repo_ref"))
		in.RepoHistory, in.RepoSubmodules = f.Get("repo_history") != "", f.Get("repo_submodules") != ""
	}
	if in.ScanTypes == nil {
		in.ScanTypes = []string{}
	}
	sc, err := c.Config().Actions.StartScan(r.Context(), rq.P, r.RemoteAddr, in)
	if err != nil {
		return ui.WithBack(err, "/ui/scans?"+url.Values{"target_path": {in.Target}, "kind": {in.Kind}}.Encode()+"#start")
	}
	return ui.Redirect(w, r, ui.ScanURL(sc.ID))
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
	// Sort is one of findings.FindingSorts; "" is the canonical order.
	Sort string
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
	if ff.Sort != "" {
		v.Set("sort", ff.Sort)
	}
	return v
}

var pageSizes = []int{25, 50, 100, 200}

const (
	defaultPageSize = 50
	maxSearchChars  = 200
)

// parseFindingFilter reads the table's filters, keeping only values that
// can match (a stray value is dropped rather than echoed back).
func (c pages) parseFindingFilter(q url.Values) findingFilter {
	keep := func(vals []string, allowed []string) []string {
		var out []string
		for _, v := range ui.SplitValues(vals) {
			if (allowed == nil || slices.Contains(allowed, v)) && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	ff := findingFilter{
		Severities: keep(q["severity"], ui.SeverityNames),
		ScanTypes:  keep(q["scan_type"], c.Config().ScanTypes),
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
	if s := q.Get("sort"); s != findings.SortSeverity && slices.Contains(findings.FindingSorts, s) {
		ff.Sort = s
	}
	if r := []rune(ff.Text); len(r) > maxSearchChars {
		ff.Text = string(r[:maxSearchChars])
	}
	if r := []rune(ff.Compliance); len(r) > maxSearchChars {
		ff.Compliance = string(r[:maxSearchChars])
	}
	return ff
}

func (ff findingFilter) query(after, before string) ui.FindingQuery {
	fq := ui.FindingQuery{Severities: ff.Severities, ScanTypes: ff.ScanTypes, Scanners: ff.Scanners, Triage: ff.Triage,
		Text: ff.Text, After: after, Before: before, Limit: ff.Limit, Sort: ff.Sort}
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
	Details   ui.ScanDetails
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
	// TargetRecord is the target the scan belongs to; nil for a scan
	// stored without one.
	TargetRecord *targets.Target
	// Sorts are the orders the findings can be listed in; Ages the first
	// sightings of the page's findings on the scan's target.
	Sorts []sortChoice
	Ages  *findingAges
}

type sortChoice struct{ Value, Label string }

// sortChoices name the orders of findings.FindingSorts for people; the
// canonical one is the empty value, so its links stay as they were.
var sortChoices = []sortChoice{{"", "Severity (most severe first)"}, {findings.SortFirstSeen, "Age (oldest first)"},
	{findings.SortFile, "File and line"}, {findings.SortScanner, "Scanner"}, {findings.SortRule, "Rule"}}

// findingAges is a page's first sightings by fingerprint.
type findingAges struct{ FirstSeen map[string]time.Time }

// Refresh reloads a running scan's page every few seconds for a browser
// without script; with script, the event stream updates it instead.
func (v scanDetailView) Refresh() bool { return v.Active }

func (c pages) scanDetail(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	ctx := r.Context()
	sc, err := c.Config().Data.Scan(ctx, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return ui.NotFound("No scan has this id; it may have been deleted.")
	}
	if err != nil {
		return err
	}
	q := r.URL.Query()
	v := scanDetailView{Scan: sc, Active: !store.TerminalStatus(sc.Status), Filter: c.parseFindingFilter(q),
		ScanTypes: sc.ScanTypes, Scanners: sc.ScannersRun, Statuses: store.TriageStatuses, Severities: ui.SeverityNames, PageSizes: pageSizes, Flash: ui.Flash(r),
		Sorts: sortChoices}
	if sc.CompletedAt != nil {
		v.Duration = sc.CompletedAt.Sub(sc.StartedAt).Round(time.Second).String()
	}
	// Live counts, as the API's summary gives them: suppressed findings
	// are counted apart and left out of the risk score.
	for _, s := range ui.SeverityNames {
		v.Counts = append(v.Counts, sevCount{Severity: s, Count: sc.LiveCounts[s]})
	}
	if v.Details, err = c.Config().Actions.ScanDetails(ctx, sc); err != nil {
		return err
	}
	if t, err := c.Config().Data.TargetOfScan(ctx, sc.ID); err == nil {
		v.TargetRecord = &t
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if v.Active {
		if v.Events, err = c.Config().Actions.EventStream(ctx, rq.P, sc.ID); err != nil {
			return err
		}
		for _, s := range c.ScannerStates(ctx) {
			if slices.Contains(sc.ScanTypes, s.ScanType) {
				v.Expected++
			}
		}
	}
	if prev, err := c.Config().Data.PreviousScan(ctx, sc.ID); err == nil {
		v.Previous = &prev
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if v.Active {
		// Findings are stored when the scan completes.
		c.Render(w, r, rq, http.StatusOK, "scan", "Scan "+ui.Short(sc.ID), "scans", v)
		return nil
	}
	fq, err := c.pageQuery(sc, v.Filter, q)
	if err != nil {
		return err
	}
	page, err := c.Config().Data.Findings(ctx, sc.ID, fq)
	if errors.Is(err, ui.ErrBadCursor) {
		return badPageLink(sc, v.Filter, "a cursor")
	}
	if err != nil {
		return err
	}
	if total := page.Total; q.Get("page") == "last" && !page.More {
		// With an exact count the last page is the last numbered one, so
		// "Last" and "page N of N" show the same rows: the tail of the
		// last fq.Limit rows just read, without reading them again.
		if total < 0 {
			total = sc.FindingsCount
		}
		if n := (total + fq.Limit - 1) / fq.Limit; n > 1 {
			if cut := len(page.Findings) - (total - (n-1)*fq.Limit); cut > 0 && cut < len(page.Findings) {
				page.Findings, page.Cursors = page.Findings[cut:], page.Cursors[cut:]
				page.Prev = page.Cursors[0]
			}
			fq.Page = n
		}
	}
	v.PageNo = fq.Page
	v.Findings, v.Total, v.More = page.Findings, page.Total, page.More
	v.Ages = &findingAges{FirstSeen: page.FirstSeen}
	v.Filtered = page.Total >= 0
	if !v.Filtered {
		v.Total = sc.FindingsCount
	}
	base := ui.ScanURL(sc.ID)
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
	if flash := ui.BulkFlash(r); flash != "" {
		v.Flash = flash
	}
	if q.Get("after") != "" || q.Get("before") != "" || q.Get("page") != "" {
		v.FirstURL = link("", "")
	}
	if !page.More || v.Total > 0 {
		v.Pages = max(1, (v.Total+v.Filter.Limit-1)/v.Filter.Limit)
	}
	if v.Pages > 0 && v.PageNo > v.Pages {
		return &ui.PageError{Status: http.StatusUnprocessableEntity, Back: link("", ""),
			Msgs: []string{fmt.Sprintf("There is no page %d: the findings that match fill %d page%s.", v.PageNo, v.Pages, ui.Plural(v.Pages))}}
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
	c.Render(w, r, rq, http.StatusOK, "scan", "Scan "+ui.Short(sc.ID), "scans", v)
	return nil
}

func (c pages) cancelScan(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	if _, err := c.Config().Actions.CancelScan(r.Context(), rq.P, id); err != nil {
		return ui.WithBack(err, ui.ScanURL(id))
	}
	return ui.Redirect(w, r, ui.ScanURL(id)+"?done=cancelled")
}

func (c pages) deleteScan(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	if err := c.Config().Actions.DeleteScan(r.Context(), rq.P, id); err != nil {
		return ui.WithBack(err, ui.ScanURL(id))
	}
	return ui.Redirect(w, r, "/ui/scans?done=deleted")
}

// export proxies a download route of the API. The console never lets the
// API accept its cookie; it serves the same bytes itself, as an
// attachment under the console's own security headers.
func (c pages) export(apiRoute string) ui.Handler {
	return c.exportBack(apiRoute, ui.ScanURL)
}

// exportBack is export whose error page links back to back(id) (a
// target's VEX: the target's page).
func (c pages) exportBack(apiRoute string, back func(id string) string) ui.Handler {
	return func(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
		return ui.WithBack(c.Config().Actions.Export(&downloadWriter{ResponseWriter: w}, r, rq.P, apiRoute), back(r.PathValue("id")))
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
		h.Set("Content-Security-Policy", ui.ContentSecurityPolicy)
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

type browseEntry struct {
	ui.ListingEntry
	BrowseURL string
	// ChooseURL is "" when the entry cannot be chosen (a file, unless an
	// image archive is wanted).
	ChooseURL string
}

type browseView struct {
	Listing     ui.Listing
	Image       bool
	ChooseLabel string
	HereURL     string
	ParentURL   string
	Entries     []browseEntry
}

func (c pages) browse(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	bp := ui.BrowsePurposeOf(r.URL.Query())
	l, err := c.Config().Actions.Browse(r.Context(), rq.P, r.URL.Query().Get("path"))
	if err != nil {
		return ui.WithBack(err, bp.Browse(""))
	}
	v := browseView{Listing: l, Image: bp.For == "image", HereURL: bp.Choose(l.Path), ChooseLabel: "Scan this"}
	switch bp.For {
	case "image":
		v.ChooseLabel = "Scan this image"
	case "schedule":
		v.ChooseLabel = "Use this"
	}
	if l.Parent != "" {
		v.ParentURL = bp.Browse(l.Parent)
	}
	for _, e := range l.Entries {
		be := browseEntry{ListingEntry: e}
		if e.Dir {
			be.BrowseURL = bp.Browse(e.Path)
		}
		// An OCI layout is a directory, an archive a file: both can be
		// chosen as an image.
		if e.Dir || v.Image {
			be.ChooseURL = bp.Choose(e.Path)
		}
		v.Entries = append(v.Entries, be)
	}
	c.Render(w, r, rq, http.StatusOK, "browse", "Choose a scan target", "scans", v)
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

func (c pages) compare(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	ctx := r.Context()
	q := r.URL.Query()
	v := compareView{Kinds: []string{store.ConsoleCompareNew, store.ConsoleCompareFixed, store.ConsoleCompareUnchanged, store.ConsoleCompareNotCompared}, Kind: q.Get("show")}
	if !slices.Contains(v.Kinds, v.Kind) {
		v.Kind = store.ConsoleCompareNew
	}
	var err error
	if v.Choices, _, err = c.Config().Data.Scans(ctx, store.ScanFilter{Statuses: []string{store.StatusCompleted}, Limit: 200}); err != nil {
		return err
	}
	load := func(id string) (*store.Scan, error) {
		if id == "" {
			return nil, nil
		}
		sc, err := c.Config().Data.Scan(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, ui.NotFound("No scan has the id " + id + ".")
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
		if prev, err := c.Config().Data.PreviousScan(ctx, v.B.ID); err == nil {
			v.A = &prev
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	if v.A != nil && v.B != nil {
		v.TargetsDiffer = v.A.TargetPath != v.B.TargetPath || ui.PtrString(v.A.TargetURL) != ui.PtrString(v.B.TargetURL) || ui.PtrString(v.A.TargetHost) != ui.PtrString(v.B.TargetHost)
		page, err := c.Config().Data.Compare(ctx, v.A.ID, v.B.ID, v.Kind, q.Get("after"), compareRows)
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
	c.Render(w, r, rq, http.StatusOK, "compare", "Compare scans", "compare", v)
	return nil
}
