package scanpages

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"scand/api/ui"
	"scand/finding"
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

func (c pages) findingDetail(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	ctx := r.Context()
	fp := r.PathValue("fp")
	if !finding.IsFingerprint(fp) {
		return ui.NotFound("A finding fingerprint is 64 lowercase hex characters.")
	}
	v := findingView{Fingerprint: fp, Statuses: store.TriageStatuses, Current: "new", Flash: ui.Flash(r)}
	f, sc, err := c.Config().Data.Finding(ctx, fp, r.URL.Query().Get("scan"))
	switch {
	case err == nil:
		v.Finding, v.Scan, v.State = &f, &sc, f.State
		if age, ok, err := c.Config().Data.FindingAge(ctx, sc.ID, fp); err != nil {
			return err
		} else if ok {
			v.Age = &age
		}
	case errors.Is(err, store.ErrNotFound):
		// No stored scan has it (any more), but a verdict or comments
		// may: those outlive the scans and are still worth showing.
		known, err := c.Config().Data.FingerprintKnown(ctx, fp)
		if err != nil {
			return err
		}
		if !known {
			return ui.NotFound("No finding, verdict or comment has this fingerprint.")
		}
		if v.State, err = c.Config().Data.TriageState(ctx, fp); err != nil {
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
		v.Suppressed = ui.SuppressedBy(v.Finding.Finding)
		for k, val := range v.Finding.Metadata {
			if val == nil {
				continue
			}
			v.Meta = append(v.Meta, metaEntry{Key: k, Value: ui.MetaText(val)})
		}
		sort.Slice(v.Meta, func(i, j int) bool { return v.Meta[i].Key < v.Meta[j].Key })
	}
	if v.History, err = c.Config().Data.TriageHistory(ctx, fp); err != nil {
		return err
	}
	if v.Comments, err = c.Config().Data.Comments(ctx, fp); err != nil {
		return err
	}
	if v.Scans, err = c.Config().Data.ScansWithFingerprint(ctx, fp, scansShown); err != nil {
		return err
	}
	title := "Finding " + ui.Short(fp)
	if v.Finding != nil {
		title = v.Finding.Title
	}
	c.Render(w, r, rq, http.StatusOK, "finding", title, "scans", v)
	return nil
}

// findingBack is the finding page a form was on, keeping the scan it was
// opened from.
func findingBack(r *http.Request) string {
	return ui.FindingURL(r.PathValue("fp"), r.PostForm.Get("scan"))
}

func withDone(u, done string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + url.Values{"done": {done}}.Encode()
}

func (c pages) setTriage(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	back := findingBack(r)
	f := r.PostForm
	if _, err := c.Config().Actions.SetTriage(r.Context(), rq.P, r.PathValue("fp"), f.Get("status"), f.Get("note"), f.Get("expires_at")); err != nil {
		return ui.WithBack(err, back)
	}
	return ui.Redirect(w, r, withDone(back, "triage")+"#triage")
}

func (c pages) addComment(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	back := findingBack(r)
	if _, err := c.Config().Actions.AddComment(r.Context(), rq.P, r.PathValue("fp"), r.PostForm.Get("text")); err != nil {
		return ui.WithBack(err, back)
	}
	return ui.Redirect(w, r, withDone(back, "comment")+"#comments")
}

func (c pages) deleteComment(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	back := findingBack(r)
	if err := c.Config().Actions.DeleteComment(r.Context(), rq.P, r.PathValue("fp"), r.PathValue("cid")); err != nil {
		return ui.WithBack(err, back)
	}
	return ui.Redirect(w, r, withDone(back, "comment-deleted")+"#comments")
}
