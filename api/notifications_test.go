package api

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"scand/store"
)

func seedNotifications(t *testing.T, st *store.Store, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		got, err := st.CreateNotification(context.Background(), store.Notification{Severity: "high", Title: "t" + strconv.Itoa(i), Body: "b", ScanID: "s"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = got.ID
	}
	return ids
}

func TestNotificationListLimitsAndFilter(t *testing.T) {
	env := newWebhookTestEnv(t)
	ids := seedNotifications(t, env.st, 230)
	cases := []struct {
		query  string
		status int
		count  int
	}{
		{"", 200, 50},
		{"?limit=10", 200, 10},
		{"?limit=200", 200, 200},
		{"?limit=201", 200, 200},
		{"?limit=100000", 200, 200},
		{"?limit=0", 422, 0},
		{"?limit=-5", 422, 0},
		{"?limit=ten", 422, 0},
		{"?unread_only=maybe", 422, 0},
		{"?unread_only=true&limit=500", 200, 200},
	}
	for _, tc := range cases {
		rec := env.do(t, "read", "GET", "/api/v1/notifications"+tc.query, nil)
		if rec.Code != tc.status {
			t.Errorf("%s: status %d, want %d (%s)", tc.query, rec.Code, tc.status, rec.Body)
			continue
		}
		if tc.status != 200 {
			continue
		}
		list := decodeJSON[[]NotificationView](t, rec)
		if len(list) != tc.count {
			t.Errorf("%s: %d notifications, want %d", tc.query, len(list), tc.count)
		}
		if list[0].ID != ids[len(ids)-1] {
			t.Errorf("%s: first is %s, want the newest %s", tc.query, list[0].ID, ids[len(ids)-1])
		}
	}

	// Read a few; unread_only and the count follow.
	for _, id := range ids[225:] {
		if rec := env.do(t, "write", "PATCH", "/api/v1/notifications/"+id+"/read", nil); rec.Code != 200 {
			t.Fatalf("mark read: %d", rec.Code)
		}
	}
	unread := decodeJSON[[]NotificationView](t, env.do(t, "read", "GET", "/api/v1/notifications?unread_only=true&limit=3", nil))
	if len(unread) != 3 || unread[0].ID != ids[224] || unread[0].ReadAt != nil {
		t.Errorf("unread_only list starts %+v, want %s unread", unread[0], ids[224])
	}
	if c := decodeJSON[UnreadCount](t, env.do(t, "read", "GET", "/api/v1/notifications/unread-count", nil)); c.Count != 225 {
		t.Errorf("unread-count = %d, want 225", c.Count)
	}
}

func TestNotificationMarkReadEndpoints(t *testing.T) {
	env := newWebhookTestEnv(t)
	ids := seedNotifications(t, env.st, 4)
	rec := env.do(t, "write", "PATCH", "/api/v1/notifications/"+ids[1]+"/read", nil)
	n := decodeJSON[NotificationView](t, rec)
	if rec.Code != 200 || n.ID != ids[1] || n.ReadAt == nil || n.Severity != "high" || n.ScanID != "s" {
		t.Fatalf("mark read = %d %+v", rec.Code, n)
	}
	again := decodeJSON[NotificationView](t, env.do(t, "write", "PATCH", "/api/v1/notifications/"+ids[1]+"/read", nil))
	if again.ReadAt == nil || !again.ReadAt.Equal(*n.ReadAt) {
		t.Errorf("second mark moved read_at: %v then %v", n.ReadAt, again.ReadAt)
	}
	if rec := env.do(t, "write", "PATCH", "/api/v1/notifications/nope/read", nil); rec.Code != http.StatusNotFound {
		t.Errorf("unknown id = %d, want 404", rec.Code)
	}
	first := decodeJSON[MarkedRead](t, env.do(t, "write", "PATCH", "/api/v1/notifications/read-all", nil))
	second := decodeJSON[MarkedRead](t, env.do(t, "write", "PATCH", "/api/v1/notifications/read-all", nil))
	if first.MarkedRead != 3 || second.MarkedRead != 0 {
		t.Errorf("read-all = %d then %d, want 3 then 0", first.MarkedRead, second.MarkedRead)
	}
	if c := decodeJSON[UnreadCount](t, env.do(t, "read", "GET", "/api/v1/notifications/unread-count", nil)); c.Count != 0 {
		t.Errorf("unread-count after read-all = %d", c.Count)
	}
}

func TestNotificationScopes(t *testing.T) {
	env := newWebhookTestEnv(t)
	id := seedNotifications(t, env.st, 1)[0]
	cases := []struct {
		scope, method, path string
		want                int
	}{
		{"read", "GET", "/notifications", 200},
		{"read", "GET", "/notifications/unread-count", 200},
		{"read", "PATCH", "/notifications/" + id + "/read", 403},
		{"read", "PATCH", "/notifications/read-all", 403},
		{"write", "PATCH", "/notifications/" + id + "/read", 200},
		{"write", "PATCH", "/notifications/read-all", 200},
		{"", "GET", "/notifications", 401},
	}
	for _, tc := range cases {
		for _, prefix := range []string{"/api/v1", "/api"} {
			if rec := env.do(t, tc.scope, tc.method, prefix+tc.path, nil); rec.Code != tc.want {
				t.Errorf("%q key: %s %s%s = %d, want %d", tc.scope, tc.method, prefix, tc.path, rec.Code, tc.want)
			}
		}
		if tc.scope == "read" && tc.method == "PATCH" {
			if c, _ := env.st.UnreadNotificationCount(context.Background()); c != 1 {
				t.Fatalf("a refused %s %s still marked the notification read", tc.method, tc.path)
			}
		}
	}
}
