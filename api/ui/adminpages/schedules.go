package adminpages

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"scand/api/ui"
	"scand/store"
)

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
	Errors           ui.FormErrors
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

func (c pages) newScheduleForm() scheduleForm {
	return scheduleForm{ScanTypes: c.Config().ScanTypes, Selected: c.Config().DefaultScanTypes, Timezone: "UTC", KeepLast: "0", Enabled: true,
		Severities: ui.SeverityNames, Zones: commonZones}
}

func (c pages) storedScheduleForm(sc store.Schedule) scheduleForm {
	f := c.newScheduleForm()
	f.ID, f.Name, f.TargetPath, f.Selected, f.Cron, f.Timezone = sc.ID, sc.Name, sc.TargetPath, sc.ScanTypes, sc.Cron, sc.Timezone
	f.TargetURL, f.TargetHost, f.AlertMinSeverity, f.KeepLast, f.Enabled = ui.PtrString(sc.TargetURL), ui.PtrString(sc.TargetHost), sc.AlertMinSeverity,
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
			base.Errors = ui.FormErrors{"keep_last": {"keep_last must be a whole number: 0 (no limit) or more"}}
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

func (c pages) renderSchedules(w http.ResponseWriter, r *http.Request, rq *ui.Request, status int, form scheduleForm) error {
	ctx := r.Context()
	list, err := c.Config().Data.Schedules(ctx)
	if err != nil {
		return err
	}
	last, err := c.Config().Data.LatestScheduleRuns(ctx)
	if err != nil {
		return err
	}
	form.BrowseURL = ui.BrowsePurpose{For: "schedule"}.Browse(form.TargetPath)
	v := schedulesView{Form: form, Flash: ui.Flash(r)}
	for _, sc := range list {
		row := scheduleRow{Schedule: sc}
		if run, ok := last[sc.ID]; ok {
			row.Last = &run
		}
		v.Schedules = append(v.Schedules, row)
	}
	c.Render(w, r, rq, status, "schedules", "Schedules", "schedules", v)
	return nil
}

func (c pages) schedules(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	form := c.newScheduleForm()
	// The directory picker sends the chosen path back here.
	form.TargetPath = r.URL.Query().Get("target_path")
	return c.renderSchedules(w, r, rq, http.StatusOK, form)
}

func (c pages) createSchedule(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	form, keep, ok := postedScheduleForm(c.newScheduleForm(), r.PostForm)
	if !ok {
		return c.renderSchedules(w, r, rq, http.StatusUnprocessableEntity, form)
	}
	sc, err := c.Config().Actions.CreateSchedule(r.Context(), rq.P, ui.ScheduleInput{Name: form.Name, TargetPath: form.TargetPath, ScanTypes: form.Selected,
		TargetURL: form.TargetURL, TargetHost: form.TargetHost, Cron: form.Cron, Timezone: form.Timezone, AlertMinSeverity: form.AlertMinSeverity,
		KeepLast: keep, Enabled: form.Enabled})
	if err != nil {
		errs, status, ok := ui.FormErrorsOf(err)
		if !ok {
			return ui.WithBack(err, "/ui/schedules")
		}
		form.Errors = errs
		return c.renderSchedules(w, r, rq, status, form)
	}
	return ui.Redirect(w, r, ui.ScheduleURL(sc.ID)+"?done=schedule-created")
}

type scheduleView struct {
	Schedule store.Schedule
	Runs     []store.ScheduleRun
	Form     scheduleForm
	Flash    string
}

// runsShown is the run history the page lists (the API's default page).
const runsShown = 50

func (c pages) renderSchedule(w http.ResponseWriter, r *http.Request, rq *ui.Request, status int, sc store.Schedule, form scheduleForm) error {
	runs, err := c.Config().Data.ScheduleRuns(r.Context(), sc.ID, runsShown)
	if err != nil {
		return err
	}
	form.BrowseURL = ui.BrowsePurpose{For: "schedule", ID: sc.ID}.Browse(form.TargetPath)
	c.Render(w, r, rq, status, "schedule", "Schedule "+sc.Name, "schedules", scheduleView{Schedule: sc, Runs: runs, Form: form, Flash: ui.Flash(r)})
	return nil
}

func (c pages) loadSchedule(r *http.Request) (store.Schedule, error) {
	sc, err := c.Config().Data.Schedule(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return sc, ui.NotFound("No schedule has this id; it may have been deleted.")
	}
	return sc, err
}

func (c pages) scheduleDetail(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
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
func (c pages) editSchedule(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	sc, err := c.loadSchedule(r)
	if err != nil {
		return err
	}
	stored := c.storedScheduleForm(sc)
	form, keep, ok := postedScheduleForm(stored, r.PostForm)
	if !ok {
		return c.renderSchedule(w, r, rq, http.StatusUnprocessableEntity, sc, form)
	}
	var edit ui.ScheduleEdit
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
	if _, err := c.Config().Actions.UpdateSchedule(r.Context(), rq.P, sc.ID, edit); err != nil {
		errs, status, ok := ui.FormErrorsOf(err)
		if !ok {
			return ui.WithBack(err, ui.ScheduleURL(sc.ID))
		}
		form.Errors = errs
		return c.renderSchedule(w, r, rq, status, sc, form)
	}
	return ui.Redirect(w, r, ui.ScheduleURL(sc.ID)+"?done=schedule-saved")
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

func (c pages) toggleSchedule(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	enabled := r.PostForm.Get("enabled") == "1"
	if _, err := c.Config().Actions.UpdateSchedule(r.Context(), rq.P, id, ui.ScheduleEdit{Enabled: &enabled}); err != nil {
		return ui.WithBack(err, ui.ScheduleURL(id))
	}
	done := "schedule-disabled"
	if enabled {
		done = "schedule-enabled"
	}
	return ui.Redirect(w, r, ui.ScheduleURL(id)+"?done="+done)
}

func (c pages) deleteSchedule(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	if err := c.Config().Actions.DeleteSchedule(r.Context(), rq.P, id); err != nil {
		return ui.WithBack(err, ui.ScheduleURL(id))
	}
	return ui.Redirect(w, r, "/ui/schedules?done=schedule-deleted")
}
