// Package review is the reviewer's side of the API: the audit trail every
// state change appends to (and GET /audit that reads it), verdicts set in
// bulk, and the expiry of acceptances. The api package mounts its routes
// and calls its Recorder from every handler that changes state; the
// console reaches the same functions through api's console actions.
package review

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/auth"
	"scand/store"
	"scand/store/audit"
)

type ctxKey int

const ctxRequest ctxKey = iota

type requestMeta struct{ id, client string }

// WithRequest keeps the request id and the client address on ctx for the
// audit records of the changes the request makes.
func WithRequest(ctx context.Context, id, client string) context.Context {
	return context.WithValue(ctx, ctxRequest, requestMeta{id: id, client: client})
}

// ClientAddress is the address part of a request's RemoteAddr.
func ClientAddress(remoteAddr string) string {
	if i := strings.LastIndexByte(remoteAddr, ':'); i > 0 {
		return strings.Trim(remoteAddr[:i], "[]")
	}
	return remoteAddr
}

// ActorOf is the audit actor of a principal: a DB key by id and name,
// SVC_API_KEY, or dev mode.
func ActorOf(p auth.Principal) audit.Actor {
	switch p.Source {
	case auth.SourceDB:
		return audit.Actor{Kind: audit.ActorKey, ID: p.ID, Name: p.Name}
	case auth.SourceEnv:
		return audit.Actor{Kind: audit.ActorEnv, ID: auth.SourceEnv, Name: "SVC_API_KEY"}
	}
	return audit.Actor{Kind: audit.ActorDev, ID: auth.DevKeyID, Name: "dev mode"}
}

// DisplayName is how a principal signs what it does (a verdict's
// updated_by, a comment's author): a key's name with its id, so two keys
// of one name stay apart.
func DisplayName(p auth.Principal) string {
	if p.Source == auth.SourceDB && p.Name != "" {
		return p.Name + " (" + p.ID + ")"
	}
	return p.ID
}

// Recorder appends the audit records of changes made through the API and
// the console.
type Recorder struct {
	Store *store.Store
	Log   *slog.Logger
}

// RecordOf is the record of a change p made during the request ctx
// carries.
func RecordOf(ctx context.Context, p auth.Principal, action, objectType, objectID string, changes audit.Changes) audit.Record {
	meta, _ := ctx.Value(ctxRequest).(requestMeta)
	return audit.Record{Actor: ActorOf(p), Action: action, ObjectType: objectType, ObjectID: objectID, Changes: changes,
		RequestID: meta.id, Client: meta.client}
}

// Record appends the record of a change that has already been made. The
// change stands whatever happens here: a failure to record is logged as
// an error (an operator must see a gap in the trail), never turned into a
// failed request the client would retry.
func (r *Recorder) Record(ctx context.Context, p auth.Principal, action, objectType, objectID string, changes audit.Changes) {
	rec := RecordOf(ctx, p, action, objectType, objectID, changes)
	if _, err := r.Store.AppendAudit(context.WithoutCancel(ctx), rec); err != nil {
		r.Log.ErrorContext(ctx, "audit record not written", "action", action, "object_type", objectType, "object_id", objectID,
			"request_id", rec.RequestID, "error", err.Error())
	}
}

// Sink is the store's audit sink: one JSON log line per record, for
// journald. The record carries no secret (the store refuses fields that
// name one), so it is logged whole.
func Sink(log *slog.Logger) func(audit.Record) {
	return func(rec audit.Record) {
		log.Info("audit", "audit_id", rec.Seq, "at", rec.At.Format(time.RFC3339Nano), "actor_kind", rec.Actor.Kind, "actor_id", rec.Actor.ID,
			"actor_name", rec.Actor.Name, "action", rec.Action, "object_type", rec.ObjectType, "object_id", rec.ObjectID,
			"changes", rec.Changes, "request_id", rec.RequestID, "client", rec.Client)
	}
}

// AuditPage is one page of GET /audit; next_cursor is empty at the end.
type AuditPage struct {
	Records    []audit.Record `json:"records"`
	NextCursor string         `json:"next_cursor"`
}

func (s *Service) auditRoutes() []openapi.Route {
	str := func(name, desc string) openapi.Param {
		return openapi.Param{Name: name, In: "query", Type: "string", Description: desc}
	}
	return []openapi.Route{{Method: "GET", Path: "/audit", Scope: auth.ScopeAdmin, Tag: "audit",
		Summary: "The audit log, newest first: every state change with its actor, fields before and after, request id and client (append-only: no route edits it)",
		Params: []openapi.Param{
			str("actor", "a key id or key name, \"env\", \"dev\" or \"system\""),
			str("action", "an action (finding.triage) or every action under a prefix ending in a dot (webhook.)"),
			str("object_type", "scan, finding, key, webhook, schedule, vulndb, target, ..."),
			str("object_id", "the object's id (a scan id, a fingerprint, a key id, ...)"),
			str("since", "RFC 3339 time: records at or after it"),
			str("until", "RFC 3339 time: records before it"),
			str("cursor", "next_cursor of the previous page"),
			{Name: "limit", In: "query", Type: "integer", Default: 100, Description: "page size, 1 to 1000"},
		},
		Response: AuditPage{}, Errors: []int{422}, Handler: s.handleAudit}}
}

func (s *Service) handleAudit(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	aq := audit.Query{Actor: q.Get("actor"), Action: q.Get("action"), ObjectType: q.Get("object_type"), ObjectID: q.Get("object_id"), After: q.Get("cursor")}
	var v httpio.Validation
	for _, bound := range []struct {
		name string
		dst  **time.Time
	}{{"since", &aq.Since}, {"until", &aq.Until}} {
		if raw := q.Get(bound.name); raw != "" {
			t, err := time.Parse(time.RFC3339, raw)
			if err != nil {
				v.Add("datetime_parsing", "Input should be an RFC 3339 time", raw, "query", bound.name)
				continue
			}
			*bound.dst = &t
		}
	}
	limit, err := httpio.QueryInt(r, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	aq.Limit = limit
	page, err := s.Store.AuditRecords(r.Context(), aq)
	if err == audit.ErrBadCursor {
		return httpio.Invalid("value_error", "cursor is not a cursor this list returned", aq.After, "query", "cursor")
	}
	if err != nil {
		return err
	}
	if page.Next != "" {
		httpio.SetNextLink(w, r, page.Next)
	}
	httpio.WriteJSON(w, http.StatusOK, AuditPage{Records: page.Records, NextCursor: page.Next})
	return nil
}

// Diff is the audit changes between two API views of an object (nil
// before for a creation, nil after for a deletion): every top-level JSON
// field whose value differs. Fields that name a secret are left out, and
// URLs keep only their scheme and host: a chat webhook's path is its
// credential.
func Diff(before, after any) audit.Changes {
	b, a := fieldsOf(before), fieldsOf(after)
	ch := audit.Changes{}
	for _, m := range []map[string]any{b, a} {
		for name := range m {
			if _, done := ch[name]; done || audit.SecretField(name) {
				continue
			}
			bv, av := b[name], a[name]
			if reflect.DeepEqual(bv, av) {
				continue
			}
			if name == "url" || strings.HasSuffix(name, "_url") {
				bv, av = redactURL(bv), redactURL(av)
			}
			ch[name] = audit.Change{Before: bv, After: av}
		}
	}
	return ch
}

func fieldsOf(v any) map[string]any {
	if v == nil {
		return map[string]any{}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return map[string]any{}
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// redactURL keeps a URL's scheme and host; the rest is marked as hidden.
func redactURL(v any) any {
	s, ok := v.(string)
	if !ok || s == "" {
		return v
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "[redacted]"
	}
	out := u.Scheme + "://" + u.Host
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		out += "/[redacted]"
	}
	return out
}
