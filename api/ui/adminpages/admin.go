package adminpages

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"scand/api/ui"
	"scand/auth"
	"scand/store"
)

// keyRow is an API key as the keys page shows it: never the hash.
type keyRow struct {
	ID       string
	Name     string
	Prefix   string
	Scopes   []string
	Created  time.Time
	LastUsed *time.Time
	Revoked  *time.Time
	Self     bool
}

// createdKey is the one-time display of a new key's plaintext.
type createdKey struct {
	Name   string
	Key    string
	Scopes []string
	// EndsDevMode: this is the first key, so dev mode is over and the
	// next page asks for a sign-in.
	EndsDevMode bool
}

type keysView struct {
	Keys    []keyRow
	Created *createdKey
	Scopes  []string
	Flash   string
}

func (c pages) keyRows(r *http.Request, rq *ui.Request) ([]keyRow, error) {
	keys, err := c.Config().Data.APIKeys(r.Context())
	if err != nil {
		return nil, err
	}
	rows := make([]keyRow, 0, len(keys))
	for _, k := range keys {
		rows = append(rows, keyRow{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: k.Scopes, Created: k.CreatedAt,
			LastUsed: k.LastUsedAt, Revoked: k.RevokedAt, Self: rq.P.Source == auth.SourceDB && rq.P.ID == k.ID})
	}
	// Newest first: the key just issued is the one people look for.
	slices.Reverse(rows)
	return rows, nil
}

func allScopeNames() []string {
	out := make([]string, len(auth.AllScopes))
	for i, s := range auth.AllScopes {
		out[i] = string(s)
	}
	return out
}

func (c pages) keys(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	rows, err := c.keyRows(r, rq)
	if err != nil {
		return err
	}
	c.Render(w, r, rq, http.StatusOK, "keys", "API keys", "keys", keysView{Keys: rows, Scopes: allScopeNames(), Flash: ui.Flash(r)})
	return nil
}

func (c pages) createKey(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	f := r.PostForm
	scopes := f["scopes"]
	if scopes == nil {
		scopes = []string{}
	}
	k, plaintext, err := c.Config().Actions.CreateKey(r.Context(), rq.P, f.Get("name"), scopes)
	if err != nil {
		return ui.WithBack(err, "/ui/keys")
	}
	rows, err := c.keyRows(r, rq)
	if err != nil {
		return err
	}
	// The plaintext is rendered into this one response (no-store, like
	// every page) and exists nowhere else: no redirect could show it.
	v := keysView{Keys: rows, Scopes: allScopeNames(), Created: &createdKey{Name: k.Name, Key: plaintext, Scopes: k.Scopes, EndsDevMode: rq.Dev}}
	c.Render(w, r, rq, http.StatusCreated, "keys", "API keys", "keys", v)
	return nil
}

func (c pages) revokeKey(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	if err := c.Config().Actions.RevokeKey(r.Context(), rq.P, r.PathValue("id")); err != nil {
		return ui.WithBack(err, "/ui/keys")
	}
	return ui.Redirect(w, r, "/ui/keys?done=revoked")
}

// webhookRow is a subscription as the pages show it: never the secret.
type webhookRow struct {
	ID          string
	Name        string
	URL         string
	EventFilter []string
	Enabled     bool
	Created     time.Time
}

func webhookRowOf(wh store.Webhook) webhookRow {
	return webhookRow{ID: wh.ID, Name: wh.Name, URL: wh.URL, EventFilter: wh.EventFilter, Enabled: wh.Enabled, Created: wh.CreatedAt}
}

type createdWebhook struct {
	Name   string
	ID     string
	Secret string
}

type webhooksView struct {
	Webhooks []webhookRow
	Events   []string
	Created  *createdWebhook
	Flash    string
}

func (c pages) webhookRows(r *http.Request) ([]webhookRow, error) {
	whs, err := c.Config().Data.Webhooks(r.Context())
	if err != nil {
		return nil, err
	}
	rows := make([]webhookRow, 0, len(whs))
	for _, wh := range whs {
		rows = append(rows, webhookRowOf(wh))
	}
	return rows, nil
}

func (c pages) webhooks(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	rows, err := c.webhookRows(r)
	if err != nil {
		return err
	}
	c.Render(w, r, rq, http.StatusOK, "webhooks", "Webhooks", "webhooks", webhooksView{Webhooks: rows, Events: c.Config().WebhookEvents, Flash: ui.Flash(r)})
	return nil
}

func (c pages) createWebhook(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	f := r.PostForm
	events := f["event_filter"]
	if events == nil {
		events = []string{}
	}
	wh, secret, err := c.Config().Actions.CreateWebhook(r.Context(), rq.P, ui.WebhookInput{Name: f.Get("name"), URL: strings.TrimSpace(f.Get("url")),
		EventFilter: events, Enabled: f.Get("enabled") != ""})
	if err != nil {
		return ui.WithBack(err, "/ui/webhooks")
	}
	rows, err := c.webhookRows(r)
	if err != nil {
		return err
	}
	v := webhooksView{Webhooks: rows, Events: c.Config().WebhookEvents, Created: &createdWebhook{Name: wh.Name, ID: wh.ID, Secret: secret}}
	c.Render(w, r, rq, http.StatusCreated, "webhooks", "Webhooks", "webhooks", v)
	return nil
}

type deliveryRow struct {
	ID           string
	Event        string
	Status       string
	Attempt      int
	ResponseCode *int
	ResponseNote string
	Next         *time.Time
	Created      time.Time
	Updated      time.Time
}

type webhookView struct {
	Webhook    webhookRow
	Events     []string
	Deliveries []deliveryRow
	Flash      string
}

// deliveriesShown is the API's "last 100 delivery rows".
const deliveriesShown = 100

func (c pages) webhookDetail(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	ctx := r.Context()
	wh, err := c.Config().Data.Webhook(ctx, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return ui.NotFound("No webhook has this id; it may have been deleted.")
	}
	if err != nil {
		return err
	}
	ds, err := c.Config().Data.Deliveries(ctx, wh.ID, deliveriesShown)
	if err != nil {
		return err
	}
	v := webhookView{Webhook: webhookRowOf(wh), Events: c.Config().WebhookEvents, Flash: ui.Flash(r)}
	for _, d := range ds {
		row := deliveryRow{ID: d.ID, Event: d.Event, Status: d.Status, Attempt: d.Attempt, ResponseCode: d.ResponseCode,
			ResponseNote: d.ResponseNote, Created: d.CreatedAt, Updated: d.UpdatedAt}
		if d.Status == store.DeliveryPending || d.Status == store.DeliveryDelivering {
			next := d.NextAttemptAt
			row.Next = &next
		}
		v.Deliveries = append(v.Deliveries, row)
	}
	c.Render(w, r, rq, http.StatusOK, "webhook", "Webhook "+wh.Name, "webhooks", v)
	return nil
}

func (c pages) editWebhook(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	f := r.PostForm
	name, u := f.Get("name"), strings.TrimSpace(f.Get("url"))
	events := f["event_filter"]
	if events == nil {
		events = []string{}
	}
	enabled := f.Get("enabled") != ""
	if _, err := c.Config().Actions.UpdateWebhook(r.Context(), rq.P, id, ui.WebhookEdit{Name: &name, URL: &u, EventFilter: &events, Enabled: &enabled}); err != nil {
		return ui.WithBack(err, ui.WebhookURL(id))
	}
	return ui.Redirect(w, r, ui.WebhookURL(id)+"?done=updated")
}

func (c pages) toggleWebhook(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	enabled := r.PostForm.Get("enabled") == "1"
	if _, err := c.Config().Actions.UpdateWebhook(r.Context(), rq.P, id, ui.WebhookEdit{Enabled: &enabled}); err != nil {
		return ui.WithBack(err, ui.WebhookURL(id))
	}
	done := "disabled"
	if enabled {
		done = "enabled"
	}
	return ui.Redirect(w, r, ui.WebhookURL(id)+"?done="+done)
}

func (c pages) testWebhook(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	if _, err := c.Config().Actions.TestWebhook(r.Context(), rq.P, id); err != nil {
		return ui.WithBack(err, ui.WebhookURL(id))
	}
	return ui.Redirect(w, r, ui.WebhookURL(id)+"?done=tested")
}

func (c pages) deleteWebhook(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	id := r.PathValue("id")
	if err := c.Config().Actions.DeleteWebhook(r.Context(), rq.P, id); err != nil {
		return ui.WithBack(err, ui.WebhookURL(id))
	}
	return ui.Redirect(w, r, "/ui/webhooks?done=webhook-deleted")
}

type notificationsView struct {
	Notifications []store.Notification
	UnreadOnly    bool
	Unread        int
	Flash         string
}

// notificationsShown is the API's cap on one listing.
const notificationsShown = 200

func (c pages) notifications(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	ctx := r.Context()
	v := notificationsView{UnreadOnly: r.URL.Query().Get("unread") == "1", Flash: ui.Flash(r)}
	var err error
	if v.Notifications, err = c.Config().Data.Notifications(ctx, v.UnreadOnly, notificationsShown); err != nil {
		return err
	}
	if v.Unread, err = c.Config().Data.UnreadNotifications(ctx); err != nil {
		return err
	}
	c.Render(w, r, rq, http.StatusOK, "notifications", "Notifications", "notifications", v)
	return nil
}

func (c pages) markRead(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	if err := c.Config().Actions.MarkNotificationRead(r.Context(), r.PathValue("id")); err != nil {
		return ui.WithBack(err, "/ui/notifications")
	}
	return ui.Redirect(w, r, "/ui/notifications?done=read")
}

func (c pages) markAllRead(w http.ResponseWriter, r *http.Request, rq *ui.Request) error {
	if _, err := c.Config().Actions.MarkAllNotificationsRead(r.Context()); err != nil {
		return ui.WithBack(err, "/ui/notifications")
	}
	return ui.Redirect(w, r, "/ui/notifications?done=all-read")
}
