// Package webhookapi serves /webhooks: subscriptions, their delivery
// queue and test deliveries. The api package mounts its routes; the
// console changes subscriptions through the same exported functions, so
// both validate, log and audit alike.
package webhookapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/api/review"
	"scand/auth"
	"scand/hook"
	"scand/store"
	"scand/store/audit"
)

// Handlers holds what the webhook routes need.
type Handlers struct {
	Store *store.Store
	// Hooks is the delivery dispatcher; nil refuses test deliveries.
	Hooks *hook.Dispatcher
	Log   *slog.Logger
	// Audit records every change (api/review).
	Audit *review.Recorder
	// Principal is the authenticated caller of a request.
	Principal func(context.Context) auth.Principal
}

// WebhookView is a subscription as clients see it: never the secret.
type WebhookView struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	EventFilter []string  `json:"event_filter"`
	Enabled     bool      `json:"enabled"`
	CreatedAt   time.Time `json:"created_at"`
}

// WebhookCreated is returned once, at creation: the only time the secret
// leaves the server.
type WebhookCreated struct {
	WebhookView
	Secret string `json:"secret" doc:"32-character HMAC key for X-Svc-Signature; shown only here"`
}

// CreateWebhookRequest is the body of POST /webhooks.
type CreateWebhookRequest struct {
	Name        string   `json:"name" doc:"1 to 200 characters"`
	URL         string   `json:"url" doc:"absolute http or https URL without credentials"`
	EventFilter []string `json:"event_filter" doc:"non-empty subset of scan.complete, scan.failed, scanner.failed, webhook.test, scan.new_findings, finding.acceptance_expired, finding.sla_breached, advisory.new_matches"`
	Enabled     *bool    `json:"enabled,omitempty" doc:"default true"`
}

// UpdateWebhookRequest is the body of PATCH /webhooks/{id}; absent or
// null fields are left unchanged. The secret cannot be changed.
type UpdateWebhookRequest struct {
	Name        *string   `json:"name,omitempty"`
	URL         *string   `json:"url,omitempty"`
	EventFilter *[]string `json:"event_filter,omitempty"`
	Enabled     *bool     `json:"enabled,omitempty"`
}

// WebhookDeliveryView is one row of the delivery queue.
type WebhookDeliveryView struct {
	ID            string     `json:"id"`
	Event         string     `json:"event"`
	Status        string     `json:"status" doc:"pending, delivering, succeeded or failed"`
	Attempt       int        `json:"attempt" doc:"attempts made so far"`
	ResponseCode  *int       `json:"response_code" doc:"HTTP status of the last attempt; null when no response came"`
	ResponseNote  string     `json:"response_note" doc:"why the last attempt did not succeed (transport error, refusal, timeout)"`
	NextAttemptAt *time.Time `json:"next_attempt_at" doc:"when the next attempt is due; null once succeeded or failed"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

// WebhookTestQueued is the answer to POST /webhooks/{id}/test.
type WebhookTestQueued struct {
	DeliveryID string `json:"delivery_id"`
}

// deliveriesShown is SPEC.md's "last 100 delivery rows".
const deliveriesShown = 100

// Routes is the webhook part of the route table.
func (s *Handlers) Routes() []openapi.Route {
	id := []openapi.Param{{Name: "id", In: "path", Type: "string", Required: true, Description: "webhook id"}}
	return []openapi.Route{
		{Method: "POST", Path: "/webhooks", Scope: auth.ScopeAdmin, Tag: "webhooks", Summary: "Create a webhook subscription (the secret is returned only here)", Request: CreateWebhookRequest{}, Response: WebhookCreated{}, Status: http.StatusCreated, Handler: s.handleCreateWebhook},
		{Method: "GET", Path: "/webhooks", Scope: auth.ScopeAdmin, Tag: "webhooks", Summary: "List webhook subscriptions (no secrets)", Response: []WebhookView{}, Handler: s.handleListWebhooks},
		{Method: "GET", Path: "/webhooks/{id}", Scope: auth.ScopeAdmin, Tag: "webhooks", Summary: "One webhook subscription (no secret)", Params: id, Response: WebhookView{}, Errors: []int{404}, Handler: s.handleGetWebhook},
		{Method: "PATCH", Path: "/webhooks/{id}", Scope: auth.ScopeAdmin, Tag: "webhooks", Summary: "Edit name, url, event_filter or enabled (never the secret)", Params: id, Request: UpdateWebhookRequest{}, Response: WebhookView{}, Errors: []int{404}, Handler: s.handleUpdateWebhook},
		{Method: "DELETE", Path: "/webhooks/{id}", Scope: auth.ScopeAdmin, Tag: "webhooks", Summary: "Delete a webhook subscription and its deliveries", Params: id, Status: http.StatusNoContent, Errors: []int{404}, Handler: s.handleDeleteWebhook},
		{Method: "GET", Path: "/webhooks/{id}/deliveries", Scope: auth.ScopeAdmin, Tag: "webhooks", Summary: "Last 100 deliveries of a subscription, newest first", Params: id, Response: []WebhookDeliveryView{}, Errors: []int{404}, Handler: s.handleWebhookDeliveries},
		{Method: "POST", Path: "/webhooks/{id}/test", Scope: auth.ScopeAdmin, Tag: "webhooks", Summary: "Queue a synthetic webhook.test delivery through the normal delivery path", Params: id, Response: WebhookTestQueued{}, Status: http.StatusAccepted, Errors: []int{404, 409}, Handler: s.handleTestWebhook},
	}
}

func webhookView(w store.Webhook) WebhookView {
	filter := w.EventFilter
	if filter == nil {
		filter = []string{}
	}
	return WebhookView{ID: w.ID, Name: w.Name, URL: w.URL, EventFilter: filter, Enabled: w.Enabled, CreatedAt: w.CreatedAt}
}

func deliveryView(d store.Delivery) WebhookDeliveryView {
	v := WebhookDeliveryView{ID: d.ID, Event: d.Event, Status: d.Status, Attempt: d.Attempt, ResponseCode: d.ResponseCode,
		ResponseNote: d.ResponseNote, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	if d.Status == store.DeliveryPending || d.Status == store.DeliveryDelivering {
		next := d.NextAttemptAt
		v.NextAttemptAt = &next
	}
	return v
}

// rejectSecretField refuses a "secret" in a create or edit body: the
// server generates it and it never changes, so accepting one silently
// would leave the caller verifying signatures with the wrong key. It reads
// the body and puts back an identical one (read error included) for
// decodeBody, so the request types stay exactly what OpenAPI documents.
func rejectSecretField(r *http.Request, v *httpio.Validation, msg string) {
	raw, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), errReader{err}))
	var probe struct {
		Secret json.RawMessage `json:"secret"`
	}
	if err == nil && json.Unmarshal(raw, &probe) == nil && probe.Secret != nil {
		v.Add("extra_forbidden", msg, nil, "body", "secret")
	}
}

// errReader replays a read error (or io.EOF when there was none).
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

func validateWebhookName(v *httpio.Validation, raw string) string {
	name := strings.TrimSpace(raw)
	if n := utf8.RuneCountInString(name); n < 1 || n > 200 {
		v.Add("string_length", "name must be 1 to 200 characters", raw, "body", "name")
	}
	return name
}

func validateWebhookURL(v *httpio.Validation, raw string) {
	if err := hook.ValidateURL(raw); err != nil {
		// The input is not echoed: a rejected URL may still carry a token
		// (Slack and Discord put theirs in the path).
		v.Add("url_parsing", err.Error(), nil, "body", "url")
	}
}

func validateEventFilter(v *httpio.Validation, filter []string) []string {
	if filter == nil {
		v.Add("missing", "Field required", nil, "body", "event_filter")
		return nil
	}
	if len(filter) == 0 {
		v.Add("too_short", "event_filter must name at least one event", filter, "body", "event_filter")
		return nil
	}
	var out []string
	for i, ev := range filter {
		if !hook.IsEvent(ev) {
			v.Add("enum", "Input should be "+quotedList(hook.Events), ev, "body", "event_filter", i)
			continue
		}
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out
}

func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "'" + x + "'"
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func (s *Handlers) handleCreateWebhook(w http.ResponseWriter, r *http.Request) error {
	var v httpio.Validation
	rejectSecretField(r, &v, "secret is generated by the server and returned once in this response")
	var req CreateWebhookRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	wh, secret, err := s.Create(r.Context(), s.Principal(r.Context()), req, v)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpio.WriteJSON(w, http.StatusCreated, WebhookCreated{WebhookView: webhookView(wh), Secret: secret})
	return nil
}

// Create validates a subscription (name, URL rules, event filter),
// adds its problems to those v already holds, and stores it with a fresh
// secret. API and console share it.
func (s *Handlers) Create(ctx context.Context, p auth.Principal, req CreateWebhookRequest, v httpio.Validation) (store.Webhook, string, error) {
	name := validateWebhookName(&v, req.Name)
	validateWebhookURL(&v, req.URL)
	filter := validateEventFilter(&v, req.EventFilter)
	if err := v.Err(); err != nil {
		return store.Webhook{}, "", err
	}
	enabled := true
	if req.Enabled != nil {
		enabled = *req.Enabled
	}
	secret := hook.NewSecret()
	wh, err := s.Store.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), Name: name, URL: req.URL, Secret: secret, EventFilter: filter, Enabled: enabled})
	if err != nil {
		return store.Webhook{}, "", err
	}
	s.Log.InfoContext(ctx, "webhook created", "webhook_id", wh.ID, "event_filter", filter, "enabled", enabled, "by", p.ID)
	s.Audit.Record(ctx, p, "webhook.create", "webhook", wh.ID, review.Diff(nil, webhookView(wh)))
	return wh, secret, nil
}

func (s *Handlers) handleListWebhooks(w http.ResponseWriter, r *http.Request) error {
	whs, err := s.Store.Webhooks(r.Context())
	if err != nil {
		return err
	}
	out := make([]WebhookView, 0, len(whs))
	for _, wh := range whs {
		out = append(out, webhookView(wh))
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Handlers) webhookOr404(r *http.Request) (store.Webhook, error) {
	wh, err := s.Store.WebhookByID(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return wh, httpio.NotFound("Webhook not found")
	}
	return wh, err
}

func (s *Handlers) handleGetWebhook(w http.ResponseWriter, r *http.Request) error {
	wh, err := s.webhookOr404(r)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, webhookView(wh))
	return nil
}

func (s *Handlers) handleUpdateWebhook(w http.ResponseWriter, r *http.Request) error {
	var v httpio.Validation
	rejectSecretField(r, &v, "the secret cannot be changed; delete and recreate the webhook to rotate it")
	var req UpdateWebhookRequest
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	wh, err := s.Update(r.Context(), s.Principal(r.Context()), r.PathValue("id"), req, v)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, webhookView(wh))
	return nil
}

// Update validates and applies an edit; re-enabling a subscription
// releases the deliveries it held. API and console share it.
func (s *Handlers) Update(ctx context.Context, p auth.Principal, id string, req UpdateWebhookRequest, v httpio.Validation) (store.Webhook, error) {
	var patch store.WebhookPatch
	if req.Name != nil {
		name := validateWebhookName(&v, *req.Name)
		patch.Name = &name
	}
	if req.URL != nil {
		validateWebhookURL(&v, *req.URL)
		patch.URL = req.URL
	}
	if req.EventFilter != nil {
		filter := validateEventFilter(&v, *req.EventFilter)
		patch.EventFilter = &filter
	}
	patch.Enabled = req.Enabled
	if err := v.Err(); err != nil {
		return store.Webhook{}, err
	}
	old, err := s.Store.WebhookByID(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return old, httpio.NotFound("Webhook not found")
	}
	if err != nil {
		return old, err
	}
	wh, err := s.Store.UpdateWebhook(ctx, id, patch)
	if errors.Is(err, store.ErrNotFound) {
		return wh, httpio.NotFound("Webhook not found")
	}
	if err != nil {
		return wh, err
	}
	if wh.Enabled && s.Hooks != nil {
		// Deliveries held while it was disabled go out now.
		s.Hooks.Kick(wh.ID)
	}
	s.Log.InfoContext(ctx, "webhook updated", "webhook_id", wh.ID, "event_filter", wh.EventFilter, "enabled", wh.Enabled, "by", p.ID)
	s.Audit.Record(ctx, p, "webhook.update", "webhook", wh.ID, review.Diff(webhookView(old), webhookView(wh)))
	return wh, nil
}

func (s *Handlers) handleDeleteWebhook(w http.ResponseWriter, r *http.Request) error {
	if err := s.Delete(r.Context(), s.Principal(r.Context()), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Delete removes a subscription and its deliveries (API and console).
func (s *Handlers) Delete(ctx context.Context, p auth.Principal, id string) error {
	old, err := s.Store.WebhookByID(ctx, id)
	if err == nil {
		err = s.Store.DeleteWebhook(ctx, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return httpio.NotFound("Webhook not found")
	}
	if err != nil {
		return err
	}
	s.Log.InfoContext(ctx, "webhook deleted", "webhook_id", id, "by", p.ID)
	s.Audit.Record(ctx, p, "webhook.delete", "webhook", id, review.Diff(webhookView(old), nil))
	return nil
}

func (s *Handlers) handleWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	wh, err := s.webhookOr404(r)
	if err != nil {
		return err
	}
	ds, err := s.Store.DeliveriesByWebhook(r.Context(), wh.ID, deliveriesShown)
	if err != nil {
		return err
	}
	out := make([]WebhookDeliveryView, 0, len(ds))
	for _, d := range ds {
		out = append(out, deliveryView(d))
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Handlers) handleTestWebhook(w http.ResponseWriter, r *http.Request) error {
	d, err := s.Test(r.Context(), s.Principal(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusAccepted, WebhookTestQueued{DeliveryID: d.ID})
	return nil
}

// Test queues a webhook.test delivery through the normal delivery
// path (API and console).
func (s *Handlers) Test(ctx context.Context, p auth.Principal, id string) (store.Delivery, error) {
	if s.Hooks == nil {
		return store.Delivery{}, errors.New("webhook dispatcher not wired")
	}
	d, err := s.Hooks.Test(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return d, httpio.NotFound("Webhook not found")
	case errors.Is(err, store.ErrConflict):
		return d, httpio.Conflict("Webhook is disabled; enable it to send a test delivery")
	case err == nil:
		s.Audit.Record(ctx, p, "webhook.test", "webhook", id, audit.Changes{"delivery_id": {After: d.ID}})
	}
	return d, err
}
