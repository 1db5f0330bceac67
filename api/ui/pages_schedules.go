package ui

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"scand/store"
)

// formErrors are a rejected form's messages by the field they are about;
// "" holds the ones about the form as a whole.
type formErrors map[string][]string

// formErrorsOf turns an Actions error the person can fix by changing the
// form (a 422, or a target outside the scan roots) into messages by
// field, with the status to answer. ok is false for any other error.
func formErrorsOf(err error) (formErrors, int, bool) {
	var se statusError
	if !errors.As(err, &se) {
		return nil, 0, false
	}
	status := se.HTTPStatus()
	if status != http.StatusUnprocessableEntity && status != http.StatusForbidden {
		return nil, 0, false
	}
	out := formErrors{}
	var fp fieldProblemsError
	if errors.As(err, &fp) {
		for field, msgs := range fp.FieldProblems() {
			out[field] = append(out[field], msgs...)
		}
	}
	if len(out) == 0 {
		out[""] = []string{se.Error()}
	}
	return out, status, true
}

// scheduleForm is the create and edit form of a schedule, as submitted or
// as stored.
type scheduleForm struct {
	// ID is "" on the create form.
	ID               string
	Name             string
	TargetPath       string
	ScanTypes        []string
	Selected         []string
	TargetURL        string
	TargetHost       string
	Cron             string
	Timezone         string
	AlertMinSeverity string
	KeepLast         string
	Enabled          bool
	Errors           formErrors
	// Severities and Zones are the choices the form offers.
	Severities []string
	Zones      []string
	// BrowseURL opens the directory picker, which sends its choice back
	// to this form.
	BrowseURL string
}

// Invalid reports whether a field was refused (for aria-invalid).
func (f scheduleForm) Invalid(field string) bool { return len(f.Errors[field]) > 0 }

// commonZones are offered as suggestions; any IANA name is accepted.
var commonZones = []string{"UTC", "Europe/London", "Europe/Berlin", "Europe/Paris", "America/New_York", "America/Chicago",
	"America/Los_Angeles", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Singapore", "Asia/Tokyo", "Australia/Sydney"}

func (c *Console) newScheduleForm() scheduleForm {
	return scheduleForm{ScanTypes: c.cfg.ScanTypes, Selected: c.cfg.DefaultScanTypes, Timezone: "UTC", KeepLast: "0", Enabled: true,
		Severities: severityNames, Zones: commonZones}
}

func (c *Console) storedScheduleForm(sc store.Schedule) scheduleForm {
	f := c.newScheduleForm()
	f.ID, f.Name, f.TargetPath, f.Selected, f.Cron, f.Timezone = sc.ID, sc.Name, sc.TargetPath, sc.ScanTypes, sc.Cron, sc.Timezone
	f.TargetURL, f.TargetHost, f.AlertMinSeverity, f.KeepLast, f.Enabled = ptrString(sc.TargetURL), ptrString(sc.TargetHost), sc.AlertMinSeverity,
		strconv.Itoa(sc.KeepLast), sc.Enabled
	return f
}

// postedScheduleForm reads a submitted form over base. keep_last must be
// a whole number to reach the API's validation at all; anything else is
// refused here with the API's wording.
func postedScheduleForm(base scheduleForm, f url.Values) (scheduleForm, int, bool) {
	base.Name, base.TargetPath = f.Get("name"), strings.TrimSpace(f.Get("target_path"))
	base.Selected = f["scan_types"]
	if base.Selected == nil {
		base.Selected = []string{}
	}
	base.TargetURL, base.TargetHost = strings.TrimSpace(f.Get("target_url")), strings.TrimSpace(f.Get("target_host"))
	base.Cron, base.Timezone = f.Get("cron"), strings.TrimSpace(f.Get("timezone"))
	base.AlertMinSeverity, base.Enabled = f.Get("alert_min_severity"), f.Get("enabled") != ""
	base.KeepLast = strings.TrimSpace(f.Get("keep_last"))
	keep := 0
	if base.KeepLast != "" {
		n, err := strconv.Atoi(base.KeepLast)
		if err != nil {
			base.Errors = formErrors{"keep_last": {"keep_last must be a whole number: 0 (no limit) or more"}}
			return base, 0, false
		}
		keep = n
	}
	return base, keep, true
}

type scheduleRow struct {
	store.Schedule
	Last *store.ScheduleRun
}

type schedulesView struct {
	Schedules []scheduleRow
	Form      scheduleForm
	Flash     string
}

func (c *Console) renderSchedules(w http.ResponseWriter, r *http.Request, rq *request, status int, form scheduleForm) error {
	ctx := r.Context()
	list, err := c.cfg.Data.Schedules(ctx)
	if err != nil {
		return err
	}
	last, err := c.cfg.Data.LatestScheduleRuns(ctx)
	if err != nil {
		return err
	}
	form.BrowseURL = browsePurpose{For: "schedule"}.browse(form.TargetPath)
	v := schedulesView{Form: form, Flash: flash(r)}
	for _, sc := range list {
		row := scheduleRow{Schedule: sc}
		if run, ok := last[sc.ID]; ok {
			row.Last = &run
		}
		v.Schedules = append(v.Schedules, row)
	}
	c.render(w, r, rq, status, "schedules", "Schedules", "schedules", v)
	return nil
}

func (c *Console) schedules(w http.ResponseWriter, r *http.Request, rq *request) error {
	form := c.newScheduleForm()
	// The directory picker sends the chosen path back here.
	form.TargetPath = r.URL.Query().Get("target_path")
	return c.renderSchedules(w, r, rq, http.StatusOK, form)
}

func (c *Console) createSchedule(w http.ResponseWriter, r *http.Request, rq *request) error {
	form, keep, ok := postedScheduleForm(c.newScheduleForm(), r.PostForm)
	if !ok {
		return c.renderSchedules(w, r, rq, http.StatusUnprocessableEntity, form)
	}
	sc, err := c.cfg.Actions.CreateSchedule(r.Context(), rq.p, ScheduleInput{Name: form.Name, TargetPath: form.TargetPath, ScanTypes: form.Selected,
		TargetURL: form.TargetURL, TargetHost: form.TargetHost, Cron: form.Cron, Timezone: form.Timezone, AlertMinSeverity: form.AlertMinSeverity,
		KeepLast: keep, Enabled: form.Enabled})
	if err != nil {
		errs, status, ok := formErrorsOf(err)
		if !ok {
			return withBack(err, "/ui/schedules")
		}
		form.Errors = errs
		return c.renderSchedules(w, r, rq, status, form)
	}
	return redirect(w, r, scheduleURL(sc.ID)+"?done=schedule-created")
}

type scheduleView struct {
	Schedule store.Schedule
	Runs     []store.ScheduleRun
	Form     scheduleForm
	Flash    string
}

// runsShown is the run history the page lists (the API's default page).
const runsShown = 50

func (c *Console) renderSchedule(w http.ResponseWriter, r *http.Request, rq *request, status int, sc store.Schedule, form scheduleForm) error {
	runs, err := c.cfg.Data.ScheduleRuns(r.Context(), sc.ID, runsShown)
	if err != nil {
		return err
	}
	form.BrowseURL = browsePurpose{For: "schedule", ID: sc.ID}.browse(form.TargetPath)
	c.render(w, r, rq, status, "schedule", "Schedule "+sc.Name, "schedules", scheduleView{Schedule: sc, Runs: runs, Form: form, Flash: flash(r)})
	return nil
}

func (c *Console) loadSchedule(r *http.Request) (store.Schedule, error) {
	sc, err := c.cfg.Data.Schedule(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return sc, notFound("No schedule has this id; it may have been deleted.")
	}
	return sc, err
}

func (c *Console) scheduleDetail(w http.ResponseWriter, r *http.Request, rq *request) error {
	sc, err := c.loadSchedule(r)
	if err != nil {
		return err
	}
	form := c.storedScheduleForm(sc)
	if p := r.URL.Query().Get("target_path"); p != "" {
		form.TargetPath = p
	}
	return c.renderSchedule(w, r, rq, http.StatusOK, sc, form)
}

// editSchedule sends the fields the form changed, as a PATCH would: an
// unchanged target is not checked again, so a schedule whose tree has
// gone can still be renamed or disabled.
func (c *Console) editSchedule(w http.ResponseWriter, r *http.Request, rq *request) error {
	sc, err := c.loadSchedule(r)
	if err != nil {
		return err
	}
	stored := c.storedScheduleForm(sc)
	form, keep, ok := postedScheduleForm(stored, r.PostForm)
	if !ok {
		return c.renderSchedule(w, r, rq, http.StatusUnprocessableEntity, sc, form)
	}
	var edit ScheduleEdit
	changed := func(posted, was string) *string {
		if posted == was {
			return nil
		}
		return &posted
	}
	edit.Name, edit.TargetPath, edit.TargetURL = changed(form.Name, stored.Name), changed(form.TargetPath, stored.TargetPath), changed(form.TargetURL, stored.TargetURL)
	edit.TargetHost, edit.Cron, edit.Timezone = changed(form.TargetHost, stored.TargetHost), changed(form.Cron, stored.Cron), changed(form.Timezone, stored.Timezone)
	edit.AlertMinSeverity = changed(form.AlertMinSeverity, stored.AlertMinSeverity)
	if !sameSet(form.Selected, stored.Selected) {
		types := form.Selected
		edit.ScanTypes = &types
	}
	if keep != sc.KeepLast {
		edit.KeepLast = &keep
	}
	if form.Enabled != sc.Enabled {
		enabled := form.Enabled
		edit.Enabled = &enabled
	}
	if _, err := c.cfg.Actions.UpdateSchedule(r.Context(), rq.p, sc.ID, edit); err != nil {
		errs, status, ok := formErrorsOf(err)
		if !ok {
			return withBack(err, scheduleURL(sc.ID))
		}
		form.Errors = errs
		return c.renderSchedule(w, r, rq, status, sc, form)
	}
	return redirect(w, r, scheduleURL(sc.ID)+"?done=schedule-saved")
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

func (c *Console) toggleSchedule(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PathValue("id")
	enabled := r.PostForm.Get("enabled") == "1"
	if _, err := c.cfg.Actions.UpdateSchedule(r.Context(), rq.p, id, ScheduleEdit{Enabled: &enabled}); err != nil {
		return withBack(err, scheduleURL(id))
	}
	done := "schedule-disabled"
	if enabled {
		done = "schedule-enabled"
	}
	return redirect(w, r, scheduleURL(id)+"?done="+done)
}

func (c *Console) deleteSchedule(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PathValue("id")
	if err := c.cfg.Actions.DeleteSchedule(r.Context(), rq.p, id); err != nil {
		return withBack(err, scheduleURL(id))
	}
	return redirect(w, r, "/ui/schedules?done=schedule-deleted")
}
