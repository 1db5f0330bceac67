package ui

// One verdict on many findings, shared by the scan page and the findings
// across targets: a dry run names the count on a confirmation page, and
// the confirmed request carries that count, so a set that changed
// meanwhile is refused with the new count instead of set blindly.

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"scand/api/review"
)

// BulkView is the confirmation page of a bulk verdict.
type BulkView struct {
	Action    string // where the confirmation posts
	Count     int
	Status    string
	Note      string
	ExpiresAt string
	// Hidden are the form fields the confirmation posts back unchanged.
	Hidden url.Values
	Back   string
}

// BulkForm reads a bulk form: the verdict, and the ticked rows (mode
// "selected") or, from all, the filter of every matching finding (mode
// "all"). keep holds the fields the confirmation posts back to repeat the
// request; all adds the filter's own.
func BulkForm(f url.Values, all func() (*review.BulkFilter, url.Values)) (req review.BulkTriageRequest, keep url.Values, err error) {
	note, exp := f.Get("note"), f.Get("expires_at")
	req.Verdict = review.Verdict{Status: f.Get("status"), Note: &note, ExpiresAt: &exp}
	keep = url.Values{"mode": {f.Get("mode")}, "status": {req.Status}, "note": {note}, "expires_at": {exp}}
	switch f.Get("mode") {
	case "selected":
		req.Fingerprints = f["fp"]
		if len(req.Fingerprints) == 0 {
			return req, keep, &PageError{Status: http.StatusUnprocessableEntity, Msgs: []string{"No finding is selected: tick the rows to set the verdict on, or choose all matching findings."}}
		}
		keep["fp"] = req.Fingerprints
	case "all":
		var filterValues url.Values
		req.Filter, filterValues = all()
		for k, v := range filterValues {
			keep[k] = v
		}
	default:
		return req, keep, &PageError{Status: http.StatusBadRequest, Msgs: []string{"The form did not say which findings to set."}}
	}
	return req, keep, nil
}

// BulkTriage shows the confirmation that names the count, or, once
// confirmed (confirm=1 with the count as expected), sets the verdict and
// redirects to back with the number set. action is where the
// confirmation posts; nav is the menu entry the page belongs to.
func (c *Console) BulkTriage(w http.ResponseWriter, r *http.Request, rq *Request, req review.BulkTriageRequest, keep url.Values, action, back, nav string) error {
	if r.PostForm.Get("confirm") != "1" {
		req.DryRun = true
		res, err := c.cfg.Actions.BulkTriage(r.Context(), rq.P, req)
		if err != nil {
			return WithBack(err, back)
		}
		if res.MatchingCount == 0 {
			return WithBack(&PageError{Status: http.StatusUnprocessableEntity, Msgs: []string{"No finding matches: nothing to set."}}, back)
		}
		v := BulkView{Action: action, Count: res.MatchingCount, Status: req.Status, Note: PtrString(req.Note), ExpiresAt: PtrString(req.ExpiresAt), Hidden: keep, Back: back}
		c.Render(w, r, rq, http.StatusOK, "bulkconfirm", "Confirm the verdict", nav, v)
		return nil
	}
	n, err := strconv.Atoi(r.PostForm.Get("expected"))
	if err != nil || n < 0 {
		return WithBack(&PageError{Status: http.StatusBadRequest, Msgs: []string{"The confirmation lost its count; start again."}}, back)
	}
	req.ExpectedCount = &n
	res, err := c.cfg.Actions.BulkTriage(r.Context(), rq.P, req)
	if err != nil {
		return WithBack(err, back)
	}
	path, fragment, _ := strings.Cut(back, "#")
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	to := path + sep + url.Values{"done": {"bulk"}, "count": {strconv.Itoa(res.Updated)}}.Encode()
	if fragment != "" {
		to += "#" + fragment
	}
	return Redirect(w, r, to)
}

// BulkFlash is the confirmation after a bulk verdict; count is a number
// or the flash says no number.
func BulkFlash(r *http.Request) string {
	if r.URL.Query().Get("done") != "bulk" {
		return ""
	}
	if n, err := strconv.Atoi(r.URL.Query().Get("count")); err == nil && n >= 0 {
		if n == 1 {
			return "Verdict set on 1 finding."
		}
		return "Verdict set on " + strconv.Itoa(n) + " findings."
	}
	return "Verdict set."
}
