package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func openWebhookTestStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "webhooks.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newTestWebhook(t *testing.T, st *Store, filter ...string) Webhook {
	t.Helper()
	w, err := st.CreateWebhook(context.Background(), Webhook{ID: NewID(), Name: "n", URL: "https://r.example/", Secret: "s3cr3t", EventFilter: filter, Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWebhookCRUD(t *testing.T) {
	ctx := context.Background()
	st := openWebhookTestStore(t)
	w := newTestWebhook(t, st, "scan.complete", "scan.failed")
	got, err := st.WebhookByID(ctx, w.ID)
	if err != nil || got.Secret != "s3cr3t" || len(got.EventFilter) != 2 || !got.Enabled || got.CreatedAt.IsZero() {
		t.Fatalf("WebhookByID = %+v, %v", got, err)
	}
	name, off, filter := "renamed", false, []string{"webhook.test"}
	upd, err := st.UpdateWebhook(ctx, w.ID, WebhookPatch{Name: &name, Enabled: &off, EventFilter: &filter})
	if err != nil || upd.Name != "renamed" || upd.Enabled || upd.URL != w.URL || upd.Secret != w.Secret || len(upd.EventFilter) != 1 {
		t.Fatalf("UpdateWebhook = %+v, %v", upd, err)
	}
	if _, err := st.UpdateWebhook(ctx, "nope", WebhookPatch{Name: &name}); !errors.Is(err, ErrNotFound) {
		t.Errorf("UpdateWebhook(unknown) = %v", err)
	}
	if _, err := st.EnqueueDelivery(ctx, w.ID, "webhook.test", []byte(`{}`), time.Now()); !errors.Is(err, ErrConflict) {
		t.Errorf("EnqueueDelivery(disabled) = %v, want ErrConflict", err)
	}
	on := true
	st.UpdateWebhook(ctx, w.ID, WebhookPatch{Enabled: &on})
	if _, err := st.EnqueueDelivery(ctx, w.ID, "webhook.test", []byte(`{}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteWebhook(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	if ds, _ := st.DeliveriesByWebhook(ctx, w.ID, 100); len(ds) != 0 {
		t.Errorf("%d deliveries survive their webhook", len(ds))
	}
	var n int
	st.db.QueryRow("SELECT count(*) FROM webhook_deliveries").Scan(&n)
	if n != 0 {
		t.Errorf("%d delivery rows left in the table", n)
	}
	if err := st.DeleteWebhook(ctx, w.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete = %v, want ErrNotFound", err)
	}
}

func TestDeliveryEnqueueMatchesFilterAndEnabled(t *testing.T) {
	ctx := context.Background()
	st := openWebhookTestStore(t)
	a := newTestWebhook(t, st, "scan.complete")
	b := newTestWebhook(t, st, "scan.complete", "scan.failed")
	c := newTestWebhook(t, st, "scan.complete")
	off := false
	st.UpdateWebhook(ctx, c.ID, WebhookPatch{Enabled: &off})
	// A filter value that merely contains the event name must not match.
	newTestWebhook(t, st, "scan.completed")

	ds, err := st.EnqueueEvent(ctx, "scan.complete", []byte(`{"scan_id":"x"}`), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, d := range ds {
		got[d.WebhookID] = true
		if d.Status != DeliveryPending || d.Attempt != 0 {
			t.Errorf("new delivery %+v", d)
		}
	}
	if len(ds) != 2 || !got[a.ID] || !got[b.ID] {
		t.Errorf("scan.complete queued for %v, want %s and %s only", got, a.ID, b.ID)
	}
	if ds, _ := st.EnqueueEvent(ctx, "scan.failed", []byte(`{}`), time.Now()); len(ds) != 1 || ds[0].WebhookID != b.ID {
		t.Errorf("scan.failed queued %+v", ds)
	}
}

func TestDeliveryClaimIsOrderedAndGuarded(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		t.Run(map[bool]string{false: "ClaimDelivery", true: "DeliveryQueue"}[prepared], func(t *testing.T) {
			testDeliveryClaim(t, prepared)
		})
	}
}

func testDeliveryClaim(t *testing.T, prepared bool) {
	ctx := context.Background()
	st := openWebhookTestStore(t)
	claim := st.ClaimDelivery
	if prepared {
		q, err := st.PrepareDeliveryQueue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		claim = q.Claim
	}
	w := newTestWebhook(t, st, "scan.complete")
	other := newTestWebhook(t, st, "scan.complete")
	now := time.Now()
	var ids []string
	for i := 0; i < 3; i++ {
		ds, err := st.EnqueueEvent(ctx, "scan.complete", []byte(`{}`), now)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.WebhookID == w.ID {
				ids = append(ids, d.ID)
			}
		}
	}
	c, err := claim(ctx, w.ID, nil, now)
	if err != nil || c.Delivery == nil || c.Delivery.ID != ids[0] || c.Delivery.Status != DeliveryDelivering || c.Delivery.Attempt != 1 {
		t.Fatalf("first claim = %+v, %v; want %s delivering, attempt 1", c.Delivery, err, ids[0])
	}
	if c.Webhook.Secret == "" {
		t.Error("claim does not carry the webhook to send with")
	}
	// The head is in flight: nothing behind it may be claimed.
	if c2, _ := claim(ctx, w.ID, nil, now); c2.Delivery != nil || !c2.Busy {
		t.Fatalf("second claim while the head is delivering = %+v", c2)
	}
	// Another subscription is not held up by it.
	if c3, _ := claim(ctx, other.ID, nil, now); c3.Delivery == nil {
		t.Fatal("other subscription blocked")
	}
	// Retry later: the head waits, and so does everything behind it.
	later := now.Add(time.Minute)
	c, err = claim(ctx, w.ID, &DeliveryOutcome{ID: ids[0], Status: DeliveryPending, ResponseNote: "HTTP 500", NextAttemptAt: later}, now)
	if err != nil || c.Delivery != nil || !c.WaitUntil.Equal(later.UTC().Truncate(time.Microsecond)) {
		t.Fatalf("claim before the retry is due = %+v, %v; want WaitUntil %s", c, err, later)
	}
	c, _ = claim(ctx, w.ID, nil, later)
	if c.Delivery == nil || c.Delivery.ID != ids[0] || c.Delivery.Attempt != 2 {
		t.Fatalf("claim when due = %+v", c.Delivery)
	}
	code := 200
	c, _ = claim(ctx, w.ID, &DeliveryOutcome{ID: ids[0], Status: DeliverySucceeded, ResponseCode: &code}, later)
	if c.Delivery == nil || c.Delivery.ID != ids[1] {
		t.Fatalf("finish-and-claim = %+v, want %s", c.Delivery, ids[1])
	}
	if d, _ := st.DeliveryByID(ctx, ids[0]); d.Status != DeliverySucceeded || d.ResponseCode == nil || *d.ResponseCode != 200 {
		t.Errorf("finished row = %+v", d)
	}
	// A crash leaves ids[1] delivering; the startup reset frees it.
	if n, err := st.ResetStaleDeliveries(ctx, later); err != nil || n != 2 {
		t.Fatalf("ResetStaleDeliveries = %d, %v; want 2 (one per subscription)", n, err)
	}
	c, _ = claim(ctx, w.ID, nil, later)
	if c.Delivery == nil || c.Delivery.ID != ids[1] || c.Delivery.Attempt != 2 {
		t.Fatalf("claim after reset = %+v", c.Delivery)
	}
	// An outcome for a row that is no longer delivering is ignored.
	st.ResetStaleDeliveries(ctx, later)
	if err := st.FinishDelivery(ctx, DeliveryOutcome{ID: ids[0], Status: DeliveryFailed}, later); err != nil {
		t.Fatal(err)
	}
	if d, _ := st.DeliveryByID(ctx, ids[0]); d.Status != DeliverySucceeded {
		t.Errorf("a terminal row was overwritten: %s", d.Status)
	}
	off := false
	st.UpdateWebhook(ctx, w.ID, WebhookPatch{Enabled: &off})
	if c, _ := claim(ctx, w.ID, nil, later); !c.Paused || c.Delivery != nil {
		t.Errorf("claim on a disabled webhook = %+v, want paused", c)
	}
	st.DeleteWebhook(ctx, w.ID)
	if c, _ := claim(ctx, w.ID, nil, later); !c.Gone {
		t.Errorf("claim on a deleted webhook = %+v, want gone", c)
	}
}

func TestDeliveriesListNewestFirstLimited(t *testing.T) {
	ctx := context.Background()
	st := openWebhookTestStore(t)
	w := newTestWebhook(t, st, "webhook.test")
	var last string
	for i := 0; i < 105; i++ {
		d, err := st.EnqueueDelivery(ctx, w.ID, "webhook.test", []byte(`{}`), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		last = d.ID
	}
	ds, err := st.DeliveriesByWebhook(ctx, w.ID, 100)
	if err != nil || len(ds) != 100 || ds[0].ID != last {
		t.Fatalf("got %d rows, first %s; want 100, first %s", len(ds), ds[0].ID, last)
	}
	if ids, _ := st.WebhooksWithPendingDeliveries(ctx); len(ids) != 1 || ids[0] != w.ID {
		t.Errorf("WebhooksWithPendingDeliveries = %v", ids)
	}
}

func TestDeliveryClaimBatchIsPerSubscription(t *testing.T) {
	ctx := context.Background()
	st := openWebhookTestStore(t)
	a := newTestWebhook(t, st, "scan.complete")
	b := newTestWebhook(t, st, "scan.complete")
	q, err := st.PrepareDeliveryQueue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	now := time.Now()
	first, _ := st.EnqueueEvent(ctx, "scan.complete", []byte(`{}`), now)
	second, _ := st.EnqueueEvent(ctx, "scan.complete", []byte(`{}`), now)
	head := map[string]string{}
	next := map[string]string{}
	for i := range first {
		head[first[i].WebhookID] = first[i].ID
		next[second[i].WebhookID] = second[i].ID
	}
	cs, err := q.ClaimBatch(ctx, []ClaimRequest{{WebhookID: a.ID}, {WebhookID: b.ID}}, now)
	if err != nil || cs[0].Delivery == nil || cs[1].Delivery == nil || cs[0].Delivery.ID != head[a.ID] || cs[1].Delivery.ID != head[b.ID] {
		t.Fatalf("batch claim = %+v, %v; want each subscription's head", cs, err)
	}
	code := 204
	cs, err = q.ClaimBatch(ctx, []ClaimRequest{
		{WebhookID: a.ID, Done: &DeliveryOutcome{ID: head[a.ID], Status: DeliverySucceeded, ResponseCode: &code}},
		{WebhookID: b.ID, Done: &DeliveryOutcome{ID: head[b.ID], Status: DeliveryPending, NextAttemptAt: now.Add(time.Hour)}},
	}, now)
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].Delivery == nil || cs[0].Delivery.ID != next[a.ID] {
		t.Errorf("a: %+v, want its second delivery claimed", cs[0].Delivery)
	}
	if cs[1].Delivery != nil || cs[1].WaitUntil.IsZero() {
		t.Errorf("b: %+v, want nothing claimed behind its retrying head", cs[1])
	}
}
