package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestNotificationsReadAndList(t *testing.T) {
	ctx := context.Background()
	st := openWebhookTestStore(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < 5; i++ {
		n, err := st.CreateNotification(ctx, Notification{Severity: "high", Title: "t", Body: "b", ScanID: "s", CreatedAt: base})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	// Same created_at on purpose: arrival order still decides.
	list, _ := st.Notifications(ctx, false, 3)
	if len(list) != 3 || list[0].ID != ids[4] || list[2].ID != ids[2] {
		t.Fatalf("newest-first list wrong: %v", list)
	}
	readAt := base.Add(time.Hour)
	n, err := st.MarkNotificationRead(ctx, ids[0], readAt)
	if err != nil || n.ReadAt == nil || !n.ReadAt.Equal(readAt) {
		t.Fatalf("MarkNotificationRead = %+v, %v", n, err)
	}
	again, _ := st.MarkNotificationRead(ctx, ids[0], readAt.Add(time.Hour))
	if !again.ReadAt.Equal(readAt) {
		t.Errorf("re-reading moved read_at to %s", again.ReadAt)
	}
	if _, err := st.MarkNotificationRead(ctx, "nope", readAt); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if c, _ := st.UnreadNotificationCount(ctx); c != 4 {
		t.Errorf("unread = %d, want 4", c)
	}
	if unread, _ := st.Notifications(ctx, true, 50); len(unread) != 4 {
		t.Errorf("unread_only list has %d", len(unread))
	}
	if m, _ := st.MarkAllNotificationsRead(ctx, readAt); m != 4 {
		t.Errorf("read-all marked %d, want 4", m)
	}
	if m, _ := st.MarkAllNotificationsRead(ctx, readAt); m != 0 {
		t.Errorf("second read-all marked %d, want 0", m)
	}
}

func TestNotificationsPruneKeepsUnread(t *testing.T) {
	ctx := context.Background()
	st := openWebhookTestStore(t)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	mk := func(age time.Duration, read bool) string {
		n, err := st.CreateNotification(ctx, Notification{Severity: "info", Title: "t", Body: "b", CreatedAt: now.Add(-age)})
		if err != nil {
			t.Fatal(err)
		}
		if read {
			st.MarkNotificationRead(ctx, n.ID, now)
		}
		return n.ID
	}
	oldRead := mk(31*24*time.Hour, true)
	oldUnread := mk(90*24*time.Hour, false)
	newRead := mk(29*24*time.Hour, true)
	n, err := st.PruneReadNotifications(ctx, now.Add(-30*24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v; want 1", n, err)
	}
	left := map[string]bool{}
	all, _ := st.Notifications(ctx, false, 200)
	for _, x := range all {
		left[x.ID] = true
	}
	if left[oldRead] || !left[oldUnread] || !left[newRead] {
		t.Errorf("after prune: old read kept=%v, old unread kept=%v, recent read kept=%v", left[oldRead], left[oldUnread], left[newRead])
	}
}
