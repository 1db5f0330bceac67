package ui

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// PageSet is a group of console pages kept in a package of its own; it
// returns its routes for the console c (see Config.Pages).
type PageSet func(c *Console) []Route

// Config returns the console's configuration for its page packages.
func (c *Console) Config() Config { return c.cfg }

// ScannerStates is every scanner's availability, from a Short-lived cache.
func (c *Console) ScannerStates(ctx context.Context) []ScannerState { return c.scannerStates(ctx) }

// AdvisoryData is the offline advisory databases' age, from a Short-lived
// cache.
func (c *Console) AdvisoryData(ctx context.Context) []AdvisoryDB { return c.advisoryData(ctx) }

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
	"target-saved": "Target saved.",
}

// Flash is the confirmation the redirect that led here asked for.
func Flash(r *http.Request) string { return flashes[r.URL.Query().Get("done")] }

// PtrString is *p, or "" for nil.
func PtrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// Plural is the "s" of a count that needs one.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// SplitValues accepts repeated parameters and comma-separated lists alike.
func SplitValues(vals []string) []string {
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

// FormErrors are a rejected form's messages by the field they are about;
// "" holds the ones about the form as a whole.
type FormErrors map[string][]string

// FormErrorsOf turns an Actions error the person can fix by changing the
// form (a 422, or a target outside the scan roots) into messages by
// field, with the status to answer. ok is false for any other error.
func FormErrorsOf(err error) (FormErrors, int, bool) {
	var se statusError
	if !errors.As(err, &se) {
		return nil, 0, false
	}
	status := se.HTTPStatus()
	if status != http.StatusUnprocessableEntity && status != http.StatusForbidden {
		return nil, 0, false
	}
	out := FormErrors{}
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
