package scanpages

// The reviewer's pages: one verdict on many findings (selected rows or
// every finding matching the table's filters, always through a page that
// names the count first) and the audit log.

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"scand/api/review"
	"scand/api/ui"
	"scand/store"
	"scand/store/audit"
)

// bulkRequest reads the bulk form: the checked rows (mode "selected") or
// the table's filters (mode "all"), and the verdict.
func (c pages) bulkRequest(r *http.Request, scanID string) (review.BulkTriageRequest, url.Values, error) {
	return ui.BulkForm(r.PostForm, func() (*review.BulkFilter, url.Values) {
		ff := c.parseFindingFilter(r.PostForm)
		q := ff.query("", "")
		return &review.BulkFilter{ScanID: scanID, Severity: q.Severities, ScanType: q.ScanTypes, Scanner: q.Scanners,
			Compliance: q.Compliance, Triage: q.Triage, Suppressed: q.Suppressed, Q: q.Text}, ff.values()
	})
}

// bulkTriage sets one verdict on the scan's selected or matching findings.
func (c pages) bulkTriage(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	scanID := r.PathValue("id")
	req, keep, err := c.bulkRequest(r, scanID)
	back := ui.ScanURL(scanID) + "#findings"
	if req.Filter != nil {
		if vals := c.parseFindingFilter(r.PostForm).values(); len(vals) > 0 {
			back = ui.ScanURL(scanID) + "?" + vals.Encode() + "#findings"
		}
	}
	if err != nil {
		return ui.WithBack(err, back)
	}
	return c.BulkTriage(w, r, rq, req, keep, ui.ScanURL(scanID)+"/triage", back, "scans")
}

type auditView struct {
	Records    []audit.Record
	Actor      string
	Action     string
	ObjectType string
	ObjectID   string
	NextURL    string
	FirstURL   string
}

// auditLog lists the audit log, newest first, as GET /audit pages it.
func (c pages) auditLog(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	q := r.URL.Query()
	v := auditView{Actor: strings.TrimSpace(q.Get("actor")), Action: strings.TrimSpace(q.Get("action")),
		ObjectType: strings.TrimSpace(q.Get("object_type")), ObjectID: strings.TrimSpace(q.Get("object_id"))}
	page, err := c.Config().Actions.AuditLog(r.Context(), audit.Query{Actor: v.Actor, Action: v.Action, ObjectType: v.ObjectType,
		ObjectID: v.ObjectID, After: q.Get("after"), Limit: 100})
	if errors.Is(err, audit.ErrBadCursor) {
		return &ui.PageError{Status: http.StatusUnprocessableEntity, Back: "/ui/audit",
			Msgs: []string{"This page link is not one the audit log handed out (the after= value is invalid). Start again from the newest records."}}
	}
	if err != nil {
		return err
	}
	v.Records = page.Records
	vals := url.Values{}
	for k, val := range map[string]string{"actor": v.Actor, "action": v.Action, "object_type": v.ObjectType, "object_id": v.ObjectID} {
		if val != "" {
			vals.Set(k, val)
		}
	}
	if q.Get("after") != "" {
		v.FirstURL = "/ui/audit?" + vals.Encode()
	}
	if page.Next != "" {
		vals.Set("after", page.Next)
		v.NextURL = "/ui/audit?" + vals.Encode()
	}
	c.Render(w, r, rq, http.StatusOK, "audit", "Audit log", "audit", v)
	return nil
}

// expiryValue is the date an expiring verdict shows in the form.
func expiryValue(st *store.TriageState) string {
	if st == nil || st.ExpiresAt == nil {
		return ""
	}
	return st.ExpiresAt.UTC().Format(time.DateOnly)
}

// pageQuery is the findings query of a scan page's URL: a cursor (after,
// before), a page number or "last". A page number that is not one is
// refused with a message, never read as page 1; so is a cursor, which
// the data layer judges (ui.ErrBadCursor).
func (c pages) pageQuery(sc store.Scan, ff findingFilter, q url.Values) (ui.FindingQuery, error) {
	fq := ff.query(q.Get("after"), q.Get("before"))
	switch pageNo := q.Get("page"); {
	case pageNo == "":
	case pageNo == "last":
		fq.After, fq.Before, fq.Last = "", "", true
	default:
		n, err := strconv.Atoi(pageNo)
		if err != nil || n < 1 {
			return ui.FindingQuery{}, badPageLink(sc, ff, "page="+strconv.Quote(pageNo))
		}
		if n > 1 {
			fq.After, fq.Before, fq.Page = "", "", n
		}
	}
	return fq, nil
}

// badPageLink refuses a page link the console did not hand out, with a
// way back to the first page of the same filters and order.
func badPageLink(sc store.Scan, ff findingFilter, what string) error {
	first := ui.ScanURL(sc.ID)
	if vals := ff.values(); len(vals) > 0 {
		first += "?" + vals.Encode()
	}
	return &ui.PageError{Status: http.StatusUnprocessableEntity, Back: first + "#findings",
		Msgs: []string{"This page link is not valid (" + what + "); it may come from an older version of the page or another sort order. Go back to the first page of the findings."}}
}

type ruleGroupsView struct {
	Scan   store.Scan
	Groups []ruleGroupRow
}

type ruleGroupRow struct {
	store.RuleGroup
	// URL is the scan's findings table filtered to the rule.
	URL string
}

// ruleGroups lists a scan's findings by rule, each with one link to its
// rows.
func (c pages) ruleGroups(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	sc, err := c.Config().Data.Scan(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return ui.NotFound("No scan has this id; it may have been deleted.")
	}
	if err != nil {
		return err
	}
	groups, err := c.Config().Data.RuleGroups(r.Context(), sc)
	if err != nil {
		return err
	}
	v := ruleGroupsView{Scan: sc}
	for _, g := range groups {
		q := url.Values{"scanner": {g.Scanner}, "q": {g.RuleID}}
		v.Groups = append(v.Groups, ruleGroupRow{RuleGroup: g, URL: ui.ScanURL(sc.ID) + "?" + q.Encode() + "#findings"})
	}
	c.Render(w, r, rq, http.StatusOK, "rules", "Findings by rule", "scans", v)
	return nil
}
