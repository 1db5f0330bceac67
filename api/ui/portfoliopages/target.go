package portfoliopages

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"scand/api/ui"
	"scand/store"
	"scand/store/targets"
)

// targetScansShown is a page of a target's scans.
const targetScansShown = 25

// targetForm is the edit form of a target's name and labels: one
// key=value a line.
type targetForm struct {
	Name   string
	Labels string
	Errors ui.FormErrors
}

func (f targetForm) Invalid(field string) bool { return len(f.Errors[field]) > 0 }

type targetView struct {
	Target targets.TargetSummary
	Risk   int
	// LabelList is the labels sorted by key.
	LabelList       []string
	Scans           []store.Scan
	NextURL, TopURL string
	FindingsURL     string
	OverdueURL      string
	SLAEnabled      bool
	Form            targetForm
	Flash           string
}

func targetURL(id int64) string { return "/ui/targets/" + strconv.FormatInt(id, 10) }

func targetID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, ui.NotFound("There is no target with this id.")
	}
	return id, nil
}

func sortedLabels(labels map[string]string) []string {
	out := make([]string, 0, len(labels))
	for k, v := range labels {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// targetDetail is one target: what it is, its open findings, its scans
// (keyset-paged by arrival, newest first) and, for write keys, the form
// that names and labels it.
func (c pages) targetDetail(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id, err := targetID(r)
	if err != nil {
		return err
	}
	return c.renderTarget(w, r, rq, id, http.StatusOK, nil)
}

// renderTarget shows the target page; form is the edit form as posted
// (nil: as stored).
func (c pages) renderTarget(w http.ResponseWriter, r *http.Request, rq *ui.Request, id int64, status int, form *targetForm) error {
	ctx := r.Context()
	t, err := c.Config().Data.Target(ctx, id, c.Config().HiddenTriage, c.slaQuery())
	if errors.Is(err, store.ErrNotFound) {
		return ui.NotFound("There is no target with this id.")
	}
	if err != nil {
		return err
	}
	v := targetView{Target: t, Risk: t.Open.RiskScore(), LabelList: sortedLabels(t.Labels), SLAEnabled: c.Config().SLA.Enabled(), Flash: ui.Flash(r),
		FindingsURL: "/ui/findings?" + url.Values{"target": {strconv.FormatInt(id, 10)}}.Encode()}
	v.OverdueURL = v.FindingsURL + "&overdue=1"
	if form != nil {
		v.Form = *form
	} else {
		v.Form = targetForm{Name: t.Name, Labels: strings.Join(v.LabelList, "\n")}
	}
	var before int64
	if b := r.URL.Query().Get("before"); b != "" {
		if before, err = strconv.ParseInt(b, 10, 64); err != nil || before <= 0 {
			return &ui.PageError{Status: http.StatusUnprocessableEntity, Back: targetURL(id),
				Msgs: []string{"The page link is not valid (it may have been cut short). Start again from the newest scans."}}
		}
		v.TopURL = targetURL(id) + "#scans"
	}
	scans, err := c.Config().Data.TargetScans(ctx, id, before, targetScansShown+1)
	if err != nil {
		return err
	}
	if len(scans) > targetScansShown {
		scans = scans[:targetScansShown]
		v.NextURL = targetURL(id) + "?" + url.Values{"before": {strconv.FormatInt(scans[len(scans)-1].Seq, 10)}}.Encode() + "#scans"
	}
	v.Scans = scans
	c.Render(w, r, rq, status, "target", "Target "+t.Name, "targets", v)
	return nil
}

// parseLabelLines reads the form's labels: one key=value a line, blank
// lines ignored.
func parseLabelLines(text string) (map[string]string, []string) {
	labels := map[string]string{}
	var problems []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			problems = append(problems, fmt.Sprintf("Line %d is not key=value.", i+1))
			continue
		}
		if _, dup := labels[k]; dup {
			problems = append(problems, fmt.Sprintf("Line %d repeats the key %q.", i+1, k))
			continue
		}
		labels[k] = strings.TrimSpace(v)
	}
	return labels, problems
}

// editTarget saves the name and labels through the API's own validation;
// a rejected form comes back filled in, with the problems beside it.
func (c pages) editTarget(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id, err := targetID(r)
	if err != nil {
		return err
	}
	form := targetForm{Name: strings.TrimSpace(r.PostForm.Get("name")), Labels: r.PostForm.Get("labels")}
	labels, problems := parseLabelLines(form.Labels)
	if len(problems) > 0 {
		form.Errors = ui.FormErrors{"labels": problems}
		return c.renderTarget(w, r, rq, id, http.StatusUnprocessableEntity, &form)
	}
	var name *string
	if form.Name != "" {
		name = &form.Name
	}
	if err := c.Config().Actions.UpdateTarget(r.Context(), rq.P, id, name, labels); err != nil {
		errs, status, ok := ui.FormErrorsOf(err)
		if !ok {
			return ui.WithBack(err, targetURL(id))
		}
		form.Errors = errs
		return c.renderTarget(w, r, rq, id, status, &form)
	}
	return ui.Redirect(w, r, targetURL(id)+"?done=target-saved")
}
