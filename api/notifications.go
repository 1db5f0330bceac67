package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"time"

	"scand/api/httpio"
	"scand/auth"
	"scand/store"
)

// NotificationView is one in-app notification.
type NotificationView struct {
	ID        string     `json:"id"`
	Severity  string     `json:"severity" doc:"critical, high, medium, low or info"`
	Title     string     `json:"title"`
	Body      string     `json:"body"`
	ScanID    string     `json:"scan_id"`
	CreatedAt time.Time  `json:"created_at"`
	ReadAt    *time.Time `json:"read_at"`
}

// UnreadCount is the answer to GET /notifications/unread-count.
type UnreadCount struct {
	Count int `json:"count"`
}

// MarkedRead is the answer to PATCH /notifications/read-all.
type MarkedRead struct {
	MarkedRead int `json:"marked_read"`
}

// SPEC.md Limits: default 50, silently capped at 200.
const (
	notificationsDefaultLimit = 50
	notificationsMaxLimit     = 200
)

func (s *Server) notificationRoutes() []Route {
	one := 1
	return []Route{
		{Method: "GET", Path: "/notifications", Scope: auth.ScopeRead, Tag: "notifications", Summary: "List notifications, newest first",
			Params: []Param{
				{Name: "unread_only", In: "query", Type: "boolean", Default: false, Description: "only notifications not yet read"},
				{Name: "limit", In: "query", Type: "integer", Default: notificationsDefaultLimit, Minimum: &one, Description: "at most this many; values above 200 are capped at 200"},
			},
			Response: []NotificationView{}, Errors: []int{422}, Handler: s.handleListNotifications},
		{Method: "GET", Path: "/notifications/unread-count", Scope: auth.ScopeRead, Tag: "notifications", Summary: "Number of unread notifications", Response: UnreadCount{}, Handler: s.handleUnreadCount},
		{Method: "PATCH", Path: "/notifications/{id}/read", Scope: auth.ScopeWrite, Tag: "notifications", Summary: "Mark one notification read",
			Params: []Param{{Name: "id", In: "path", Type: "string", Required: true, Description: "notification id"}}, Response: NotificationView{}, Errors: []int{404}, Handler: s.handleMarkNotificationRead},
		{Method: "PATCH", Path: "/notifications/read-all", Scope: auth.ScopeWrite, Tag: "notifications", Summary: "Mark every unread notification read", Response: MarkedRead{}, Handler: s.handleMarkAllNotificationsRead},
	}
}

func notificationView(n store.Notification) NotificationView {
	return NotificationView{ID: n.ID, Severity: n.Severity, Title: n.Title, Body: n.Body, ScanID: n.ScanID, CreatedAt: n.CreatedAt, ReadAt: n.ReadAt}
}

func (s *Server) handleListNotifications(w http.ResponseWriter, r *http.Request) error {
	unreadOnly, err := httpio.QueryBool(r, "unread_only")
	if err != nil {
		return err
	}
	limit, err := httpio.QueryInt(r, "limit", notificationsDefaultLimit, 1, math.MaxInt32)
	if err != nil {
		return err
	}
	limit = min(limit, notificationsMaxLimit)
	ns, err := s.Store.Notifications(r.Context(), unreadOnly, limit)
	if err != nil {
		return err
	}
	out := make([]NotificationView, 0, len(ns))
	for _, n := range ns {
		out = append(out, notificationView(n))
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleUnreadCount(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Store.UnreadNotificationCount(r.Context())
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, UnreadCount{Count: n})
	return nil
}

func (s *Server) handleMarkNotificationRead(w http.ResponseWriter, r *http.Request) error {
	n, err := s.markNotificationRead(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, notificationView(n))
	return nil
}

// markNotificationRead marks one notification read (API and console).
func (s *Server) markNotificationRead(ctx context.Context, id string) (store.Notification, error) {
	n, err := s.Store.MarkNotificationRead(ctx, id, s.Now())
	if errors.Is(err, store.ErrNotFound) {
		return n, httpio.NotFound("Notification not found")
	}
	return n, err
}

func (s *Server) handleMarkAllNotificationsRead(w http.ResponseWriter, r *http.Request) error {
	n, err := s.Store.MarkAllNotificationsRead(r.Context(), s.Now())
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, MarkedRead{MarkedRead: n})
	return nil
}
