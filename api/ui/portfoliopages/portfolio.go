package portfoliopages

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"scand/api/portfolio"
	"scand/api/review"
	"scand/api/ui"
	"scand/finding"
	"scand/finding/versions"
	"scand/store"
	"scand/store/targets"
)

// The portfolio pages (issue 25): every target, and the findings of every
// target's latest scan, with the filters and keyset paging of GET
// /targets and GET /findings.

const portfolioPageSize = 50

type targetRow struct {
	targets.TargetSummary
	Risk int
}

type targetListView struct {
	Kinds           []string
	Kind, Label     string
	Text            string
	Overdue         bool
	Targets         []targetRow
	NextURL, TopURL string
	LabelInvalid    bool
	SLAEnabled      bool
}

func (c pages) slaQuery() targets.SLA {
	now := c.Config().Now
	if c.Config().SLANow != nil {
		now = c.Config().SLANow
	}
	return targets.SLA{Cutoffs: c.Config().SLA.Cutoffs(now())}
}

// labelFilter reads "key=value"; ok is false for anything else.
func labelFilter(v string) (map[string]string, bool) {
	if v == "" {
		return nil, true
	}
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return nil, false
	}
	return map[string]string{k: val}, true
}

func (c pages) targetList(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	qs := r.URL.Query()
	v := targetListView{Kinds: targets.Kinds, Kind: qs.Get("kind"), Label: qs.Get("label"), Text: qs.Get("text"), Overdue: qs.Get("overdue") == "1",
		SLAEnabled: c.Config().SLA.Enabled()}
	if v.Kind != "" && !contains(targets.Kinds, v.Kind) {
		v.Kind = ""
	}
	labels, ok := labelFilter(v.Label)
	v.LabelInvalid = !ok
	q := targets.TargetQuery{Kind: v.Kind, Labels: labels, Text: v.Text, Overdue: v.Overdue, Hidden: c.Config().HiddenTriage, SLA: c.slaQuery(),
		Limit: portfolioPageSize}
	if after, err := strconv.ParseInt(qs.Get("after"), 10, 64); err == nil && after > 0 {
		q.After = after
		v.TopURL = targetListURL(v, 0)
	}
	ts, err := c.Config().Data.Targets(r.Context(), q)
	if err != nil {
		return err
	}
	for _, t := range ts {
		v.Targets = append(v.Targets, targetRow{TargetSummary: t, Risk: t.Open.RiskScore()})
	}
	if len(ts) == portfolioPageSize {
		v.NextURL = targetListURL(v, ts[len(ts)-1].ID)
	}
	c.Render(w, r, rq, http.StatusOK, "targets", "Targets", "targets", v)
	return nil
}

func targetListURL(v targetListView, after int64) string {
	vals := url.Values{}
	for k, val := range map[string]string{"kind": v.Kind, "label": v.Label, "text": v.Text} {
		if val != "" {
			vals.Set(k, val)
		}
	}
	if v.Overdue {
		vals.Set("overdue", "1")
	}
	if after > 0 {
		vals.Set("after", strconv.FormatInt(after, 10))
	}
	return "/ui/targets?" + vals.Encode()
}

type portfolioRow struct {
	TargetID            int64
	TargetName          string
	Fingerprint         string
	Severity            string
	Title, FilePath     string
	RuleID              string
	Line                int
	Verdict             string
	FirstSeen, LastSeen time.Time
	DueAt               *time.Time
	Overdue             bool
	ScanID              string
	// Advisory: a dependency finding, whose rule id names a vulnerability.
	Advisory bool
}

type portfolioView struct {
	Severities            []string
	Sorts                 []string
	Severity, Sort, Label string
	Target, Advisory      string
	Overdue               bool
	Total                 int
	Rows                  []portfolioRow
	NextURL, TopURL       string
	Invalid               string
	Flash                 string
	// Statuses are the verdicts the bulk form offers; FilterValues are
	// the filter it posts along.
	Statuses     []string
	FilterValues url.Values
}

func (c pages) portfolioFindings(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	qs := r.URL.Query()
	v := portfolioView{Severities: ui.SeverityNames, Sorts: []string{"severity", "first_seen", "target", "file"}, Severity: qs.Get("severity"),
		Sort: qs.Get("sort"), Label: qs.Get("label"), Target: qs.Get("target"), Advisory: strings.TrimSpace(qs.Get("advisory")), Overdue: qs.Get("overdue") == "1"}
	if !contains(v.Sorts, v.Sort) {
		v.Sort = "severity"
	}
	q := targets.FindingsQuery{Hidden: c.Config().HiddenTriage, SLA: c.slaQuery(), Sort: v.Sort, Overdue: v.Overdue, Advisory: v.Advisory, Limit: portfolioPageSize}
	if v.Severity != "" {
		if !finding.Severity(v.Severity).Valid() {
			v.Invalid, v.Severity = "Unknown severity "+strconv.Quote(v.Severity)+".", ""
		} else {
			q.Severities = []string{v.Severity}
		}
	}
	if v.Target != "" {
		if id, err := strconv.ParseInt(v.Target, 10, 64); err == nil && id > 0 {
			q.TargetIDs = []int64{id}
		} else {
			v.Invalid, v.Target = "A target is chosen by its id.", ""
		}
	}
	labels, ok := labelFilter(v.Label)
	if !ok {
		v.Invalid, v.Label = "A label filter is key=value.", ""
	}
	q.Targets.Labels = labels
	if cur := qs.Get("cursor"); cur != "" {
		if after, err := portfolio.DecodeCursor(cur, v.Sort); err == nil {
			q.After = &after
			v.TopURL = portfolioURL(v, "")
		} else {
			v.Invalid = "That page link has expired; showing the first page."
		}
	}
	rows, total, err := c.Config().Data.PortfolioFindings(r.Context(), q)
	if err != nil {
		return err
	}
	v.Total = total
	now := c.Config().Now()
	if c.Config().SLANow != nil {
		now = c.Config().SLANow()
	}
	for _, pf := range rows {
		f, err := pf.Row.Decode()
		if err != nil {
			return err
		}
		row := portfolioRow{TargetID: pf.TargetID, TargetName: pf.TargetName, Fingerprint: f.Fingerprint, Severity: string(f.Severity), Title: f.Title,
			FilePath: f.FilePath, Line: f.Line, RuleID: f.RuleID, Verdict: "new", FirstSeen: pf.FirstSeen, LastSeen: pf.LastSeen, ScanID: pf.ScanID,
			Advisory: f.ScanType == "dependency"}
		if f.State != nil {
			row.Verdict = f.State.Status
		}
		if due, ok := c.Config().SLA.DueAt(f.Severity, pf.FirstSeen); ok {
			row.DueAt, row.Overdue = &due, now.After(due)
		}
		v.Rows = append(v.Rows, row)
	}
	if len(rows) == portfolioPageSize {
		v.NextURL = portfolioURL(v, portfolio.EncodeCursor(rows[len(rows)-1].Cursor, v.Sort))
	}
	v.Flash = ui.BulkFlash(r)
	v.Statuses = store.TriageStatuses
	v.FilterValues = v.filterValues()
	c.Render(w, r, rq, http.StatusOK, "portfolio", "Findings across targets", "findings", v)
	return nil
}

func portfolioURL(v portfolioView, cursor string) string {
	vals := v.filterValues()
	if cursor != "" {
		vals.Set("cursor", cursor)
	}
	return "/ui/findings?" + vals.Encode()
}

// filterValues is the page's filter and sort as GET /findings reads them:
// the list, its page links and a bulk verdict on every matching finding
// all select with the same query.
func (v portfolioView) filterValues() url.Values {
	vals := url.Values{"sort": {v.Sort}}
	for k, val := range map[string]string{"severity": v.Severity, "label": v.Label, "target": v.Target, "advisory": v.Advisory} {
		if val != "" {
			vals.Set(k, val)
		}
	}
	if v.Overdue {
		vals.Set("overdue", "1")
	}
	return vals
}

// portfolioTriage sets one verdict on the ticked rows or on every finding
// the page's filter selects across targets (POST /findings/triage with
// filter.findings_query), after a confirmation that names the count.
func (c pages) portfolioTriage(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	f := r.PostForm
	v := portfolioView{Severity: f.Get("severity"), Sort: f.Get("sort"), Label: f.Get("label"), Target: f.Get("target"),
		Advisory: strings.TrimSpace(f.Get("advisory")), Overdue: f.Get("overdue") == "1"}
	if v.Sort == "" {
		v.Sort = "severity"
	}
	filter := v.filterValues()
	back := "/ui/findings?" + filter.Encode()
	req, keep, err := ui.BulkForm(f, func() (*review.BulkFilter, url.Values) {
		return &review.BulkFilter{FindingsQuery: filter.Encode()}, filter
	})
	if err != nil {
		return ui.WithBack(err, back)
	}
	// Ticked rows too come back to the list as it was filtered.
	for k, vals := range filter {
		keep[k] = vals
	}
	return c.BulkTriage(w, r, rq, req, keep, "/ui/findings/triage", back, "findings")
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

type componentsView struct {
	Name, PURL, Version string
	Searched            bool
	Invalid             string
	List                portfolio.ComponentList
}

// components is the inventory search: which targets' latest SBOM holds a
// package, optionally in a version range.
func (c pages) components(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	qs := r.URL.Query()
	v := componentsView{Name: strings.TrimSpace(qs.Get("name")), PURL: strings.TrimSpace(qs.Get("purl")), Version: strings.TrimSpace(qs.Get("version"))}
	v.Searched = v.Name != "" || v.PURL != ""
	q := targets.ComponentQuery{Name: v.Name}
	if v.PURL != "" {
		base, _, _ := strings.Cut(v.PURL, "?")
		base, _, _ = strings.Cut(base, "#")
		if i := strings.LastIndex(base, "@"); i > strings.LastIndex(base, "/") {
			base = base[:i]
		}
		q.PURL = base
	}
	var constraint *versions.Constraint
	if v.Version != "" {
		cons, err := versions.ParseConstraint(v.Version)
		if err != nil {
			v.Invalid, v.Searched = "Version: "+err.Error(), false
		} else {
			constraint = &cons
		}
	}
	if v.Searched {
		var err error
		if v.List, err = c.Config().Data.Components(r.Context(), q, constraint, portfolioPageSize*4); err != nil {
			return err
		}
	}
	c.Render(w, r, rq, http.StatusOK, "components", "Components", "components", v)
	return nil
}

// vulnerability lists the targets a vulnerability (any alias) affects.
func (c pages) vulnerability(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := strings.TrimSpace(r.PathValue("id"))
	v, found, err := c.Config().Data.Vulnerability(r.Context(), id, c.Config().HiddenTriage)
	if err != nil {
		return err
	}
	if !found {
		return ui.NotFound("No target's latest scan reports " + id + ".")
	}
	c.Render(w, r, rq, http.StatusOK, "vulnerability", id, "findings", v)
	return nil
}
