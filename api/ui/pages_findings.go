package ui

import (
	"errors"
	"net/http"
	"net/url"
	"scand/finding"
	"sort"
	"strings"

	"scand/store"
	"scand/store/targets"
)

type metaEntry struct {
	Key   string
	Value string
}

type findingView struct {
	Fingerprint string
	Finding     *store.FindingWithState
	Scan        *store.Scan
	State       *store.TriageState
	History     []store.TriageState
	Comments    []store.Comment
	Scans       []store.Scan
	Meta        []metaEntry
	Age         *targets.Age
	Suppressed  string
	Statuses    []string
	Current     string
	// Expires is the verdict's expiry date for the form ("" for none).
	Expires string
	Flash   string
}

// scansShown caps the "appeared in" list; a finding present in every
// nightly scan for years would otherwise make the page unbounded.
const scansShown = 50

func (c *Console) findingDetail(w http.ResponseWriter, r *http.Request, rq *request) error {
	ctx := r.Context()
	fp := r.PathValue("fp")
	if !finding.IsFingerprint(fp) {
		return notFound("A finding fingerprint is 64 lowercase hex characters.")
	}
	v := findingView{Fingerprint: fp, Statuses: store.TriageStatuses, Current: "new", Flash: flash(r)}
	f, sc, err := c.cfg.Data.Finding(ctx, fp, r.URL.Query().Get("scan"))
	switch {
	case err == nil:
		v.Finding, v.Scan, v.State = &f, &sc, f.State
		if age, ok, err := c.cfg.Data.FindingAge(ctx, sc.ID, fp); err != nil {
			return err
		} else if ok {
			v.Age = &age
		}
	case errors.Is(err, store.ErrNotFound):
		// No stored scan has it (any more), but a verdict or comments
		// may: those outlive the scans and are still worth showing.
		known, err := c.cfg.Data.FingerprintKnown(ctx, fp)
		if err != nil {
			return err
		}
		if !known {
			return notFound("No finding, verdict or comment has this fingerprint.")
		}
		if v.State, err = c.cfg.Data.TriageState(ctx, fp); err != nil {
			return err
		}
	default:
		return err
	}
	if v.State != nil {
		v.Current = v.State.Status
	}
	v.Expires = expiryValue(v.State)
	if v.Finding != nil {
		v.Suppressed = suppressedBy(v.Finding.Finding)
		for k, val := range v.Finding.Metadata {
			if val == nil {
				continue
			}
			v.Meta = append(v.Meta, metaEntry{Key: k, Value: metaText(val)})
		}
		sort.Slice(v.Meta, func(i, j int) bool { return v.Meta[i].Key < v.Meta[j].Key })
	}
	if v.History, err = c.cfg.Data.TriageHistory(ctx, fp); err != nil {
		return err
	}
	if v.Comments, err = c.cfg.Data.Comments(ctx, fp); err != nil {
		return err
	}
	if v.Scans, err = c.cfg.Data.ScansWithFingerprint(ctx, fp, scansShown); err != nil {
		return err
	}
	title := "Finding " + short(fp)
	if v.Finding != nil {
		title = v.Finding.Title
	}
	c.render(w, r, rq, http.StatusOK, "finding", title, "scans", v)
	return nil
}

// findingBack is the finding page a form was on, keeping the scan it was
// opened from.
func findingBack(r *http.Request) string {
	return findingURL(r.PathValue("fp"), r.PostForm.Get("scan"))
}

func withDone(u, done string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + url.Values{"done": {done}}.Encode()
}

func (c *Console) setTriage(w http.ResponseWriter, r *http.Request, rq *request) error {
	back := findingBack(r)
	f := r.PostForm
	if _, err := c.cfg.Actions.SetTriage(r.Context(), rq.p, r.PathValue("fp"), f.Get("status"), f.Get("note"), f.Get("expires_at")); err != nil {
		return withBack(err, back)
	}
	return redirect(w, r, withDone(back, "triage")+"#triage")
}

func (c *Console) addComment(w http.ResponseWriter, r *http.Request, rq *request) error {
	back := findingBack(r)
	if _, err := c.cfg.Actions.AddComment(r.Context(), rq.p, r.PathValue("fp"), r.PostForm.Get("text")); err != nil {
		return withBack(err, back)
	}
	return redirect(w, r, withDone(back, "comment")+"#comments")
}

func (c *Console) deleteComment(w http.ResponseWriter, r *http.Request, rq *request) error {
	back := findingBack(r)
	if err := c.cfg.Actions.DeleteComment(r.Context(), rq.p, r.PathValue("fp"), r.PathValue("cid")); err != nil {
		return withBack(err, back)
	}
	return redirect(w, r, withDone(back, "comment-deleted")+"#comments")
}
