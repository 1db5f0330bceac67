// Package webhooks is the webhook tables: the subscriptions and their
// persisted delivery queue, which the dispatcher (package hook) claims
// from. store embeds a Queue, so these are *store.Store's methods.
package webhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"scand/store/sqlbase"
)

// Webhook delivery statuses (SPEC.md "Webhook delivery status").
const (
	DeliveryPending    = "pending"
	DeliveryDelivering = "delivering"
	DeliverySucceeded  = "succeeded"
	DeliveryFailed     = "failed"
)

// Webhook is a stored subscription. Secret never leaves the server except
// in the creation response.
type Webhook struct {
	ID          string
	Name        string
	URL         string
	Secret      string
	EventFilter []string
	Enabled     bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// WebhookPatch names the fields a PATCH may change; nil leaves a field
// alone. There is deliberately no Secret: rotation is delete and recreate.
type WebhookPatch struct {
	Name        *string
	URL         *string
	EventFilter *[]string
	Enabled     *bool
}

// Queue is the webhook subscriptions and their delivery queue.
type Queue struct {
	db, w *sql.DB
	now   func() time.Time
}

// New reads through db, writes through the writer w and stamps times
// with now.
func New(db, w *sql.DB, now func() time.Time) *Queue { return &Queue{db: db, w: w, now: now} }

func (s *Queue) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return sqlbase.InTx(ctx, s.w, fn)
}

// Delivery is one row of the persisted delivery queue.
type Delivery struct {
	ID            string
	WebhookID     string
	Event         string
	Payload       json.RawMessage
	Status        string
	Attempt       int
	NextAttemptAt time.Time
	ResponseCode  *int
	ResponseNote  string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

const webhookColumns = "id, name, url, secret, event_filter, enabled, created_at, updated_at"

func scanWebhook(row sqlbase.Row) (Webhook, error) {
	var w Webhook
	var filter, created, updated string
	var enabled int
	if err := row.Scan(&w.ID, &w.Name, &w.URL, &w.Secret, &filter, &enabled, &created, &updated); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return w, sqlbase.ErrNotFound
		}
		return w, err
	}
	if err := json.Unmarshal([]byte(filter), &w.EventFilter); err != nil {
		return w, err
	}
	w.Enabled = enabled != 0
	w.CreatedAt = sqlbase.ParseTime(created)
	w.UpdatedAt = sqlbase.ParseTime(updated)
	return w, nil
}

// CreateWebhook stores a new subscription; timestamps are set here.
func (s *Queue) CreateWebhook(ctx context.Context, w Webhook) (Webhook, error) {
	w.CreatedAt = s.now().UTC().Truncate(time.Microsecond)
	w.UpdatedAt = w.CreatedAt
	filter, err := json.Marshal(w.EventFilter)
	if err != nil {
		return w, err
	}
	_, err = s.w.ExecContext(ctx, "INSERT INTO webhooks ("+webhookColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		w.ID, w.Name, w.URL, w.Secret, string(filter), sqlbase.BoolInt(w.Enabled), sqlbase.FormatTime(w.CreatedAt), sqlbase.FormatTime(w.UpdatedAt))
	return w, err
}

// WebhookByID returns one subscription.
func (s *Queue) WebhookByID(ctx context.Context, id string) (Webhook, error) {
	return scanWebhook(s.db.QueryRowContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ?", id))
}

// Webhooks lists every subscription, oldest first.
func (s *Queue) Webhooks(ctx context.Context) ([]Webhook, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+webhookColumns+" FROM webhooks ORDER BY created_at, id")
	return sqlbase.Collect(rows, err, scanWebhook)
}

// UpdateWebhook applies p and returns the row as stored afterwards.
func (s *Queue) UpdateWebhook(ctx context.Context, id string, p WebhookPatch) (Webhook, error) {
	var out Webhook
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		w, err := scanWebhook(tx.QueryRowContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ?", id))
		if err != nil {
			return err
		}
		if p.Name != nil {
			w.Name = *p.Name
		}
		if p.URL != nil {
			w.URL = *p.URL
		}
		if p.EventFilter != nil {
			w.EventFilter = *p.EventFilter
		}
		if p.Enabled != nil {
			w.Enabled = *p.Enabled
		}
		w.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
		filter, err := json.Marshal(w.EventFilter)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE webhooks SET name = ?, url = ?, event_filter = ?, enabled = ?, updated_at = ? WHERE id = ?",
			w.Name, w.URL, string(filter), sqlbase.BoolInt(w.Enabled), sqlbase.FormatTime(w.UpdatedAt), id); err != nil {
			return err
		}
		out = w
		return nil
	})
	return out, err
}

// DeleteWebhook removes a subscription and its whole delivery history.
// The deliveries are deleted explicitly rather than left to the foreign
// key cascade, so the outcome does not hang on a connection pragma.
func (s *Queue) DeleteWebhook(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM webhook_deliveries WHERE webhook_id = ?", id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM webhooks WHERE id = ?", id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return sqlbase.ErrNotFound
		}
		return nil
	})
}

const deliveryColumns = "id, webhook_id, event, payload, status, attempt, next_attempt_at, response_code, response_note, created_at, updated_at"

func scanDelivery(row sqlbase.Row) (Delivery, error) {
	var d Delivery
	var payload, next, created, updated string
	var code sql.NullInt64
	if err := row.Scan(&d.ID, &d.WebhookID, &d.Event, &payload, &d.Status, &d.Attempt, &next, &code, &d.ResponseNote, &created, &updated); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return d, sqlbase.ErrNotFound
		}
		return d, err
	}
	d.Payload = json.RawMessage(payload)
	d.NextAttemptAt = sqlbase.ParseTime(next)
	if code.Valid {
		c := int(code.Int64)
		d.ResponseCode = &c
	}
	d.CreatedAt = sqlbase.ParseTime(created)
	d.UpdatedAt = sqlbase.ParseTime(updated)
	return d, nil
}

const insertDeliverySQL = "INSERT INTO webhook_deliveries (id, webhook_id, event, payload, status, attempt, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)"

func insertDelivery(ctx context.Context, ins stmtRunner, webhookID, event string, payload []byte, at time.Time) (Delivery, error) {
	d := Delivery{ID: sqlbase.NewID(), WebhookID: webhookID, Event: event, Payload: payload, Status: DeliveryPending,
		NextAttemptAt: at, CreatedAt: at, UpdatedAt: at}
	ts := sqlbase.FormatTime(at)
	_, err := ins.ExecContext(ctx, d.ID, webhookID, event, string(payload), ts, ts, ts)
	return d, err
}

// EnqueueEvent commits one pending delivery for every enabled subscription
// whose event_filter holds event, in a single transaction, and returns the
// new rows (none when nothing matches).
func (s *Queue) EnqueueEvent(ctx context.Context, event string, payload []byte, at time.Time) ([]Delivery, error) {
	at = at.UTC().Truncate(time.Microsecond)
	var out []Delivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, `SELECT id FROM webhooks
			WHERE enabled = 1 AND EXISTS (SELECT 1 FROM json_each(webhooks.event_filter) WHERE json_each.value = ?)
			ORDER BY created_at, id`, event)
		ids, err := sqlbase.Collect(rows, err, sqlbase.ScanString)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		// One event fans out to many subscriptions: parse the insert once.
		ins, err := tx.PrepareContext(ctx, insertDeliverySQL)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, id := range ids {
			d, err := insertDelivery(ctx, ins, id, event, payload, at)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return nil
	})
	return out, err
}

// EnqueueDelivery commits one pending delivery for a single subscription,
// whatever its filter (the synthetic test event). ErrNotFound if the
// subscription does not exist, ErrConflict if it is disabled.
func (s *Queue) EnqueueDelivery(ctx context.Context, webhookID, event string, payload []byte, at time.Time) (Delivery, error) {
	at = at.UTC().Truncate(time.Microsecond)
	var out Delivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var enabled int
		err := tx.QueryRowContext(ctx, "SELECT enabled FROM webhooks WHERE id = ?", webhookID).Scan(&enabled)
		if errors.Is(err, sql.ErrNoRows) {
			return sqlbase.ErrNotFound
		}
		if err != nil {
			return err
		}
		if enabled == 0 {
			return sqlbase.ErrConflict
		}
		out, err = insertDelivery(ctx, rawStmt{tx, insertDeliverySQL}, webhookID, event, payload, at)
		return err
	})
	return out, err
}

// DeliveryOutcome is how one attempt ended. Status is DeliveryPending
// (retry at NextAttemptAt), DeliverySucceeded or DeliveryFailed.
type DeliveryOutcome struct {
	ID            string
	Status        string
	ResponseCode  *int
	ResponseNote  string
	NextAttemptAt time.Time
}

// DeliveryClaim is what ClaimDelivery found at the head of a
// subscription's queue.
type DeliveryClaim struct {
	// Delivery is set (and now in status delivering) when one was claimed.
	Delivery *Delivery
	// Webhook is the subscription as stored at claim time, so an edited
	// url takes effect from the next attempt on.
	Webhook Webhook
	// WaitUntil is set when the head of the queue is pending but not yet
	// due: nothing behind it may overtake it.
	WaitUntil time.Time
	// Busy means the head is already delivering (another claimant, or a
	// stale row awaiting the startup reset).
	Busy bool
	// Paused means the subscription is disabled; its rows wait.
	Paused bool
	// Gone means the subscription no longer exists.
	Gone bool
}

// The statements of one claim, in the order claimIn runs them.
const (
	claimFinish = iota
	claimWebhook
	claimNext
	claimHead
	claimStatements
)

var claimQueries = [claimStatements]string{
	// Guarded by delivering: a row deleted with its webhook, or already
	// reset, is left as it is.
	claimFinish: `UPDATE webhook_deliveries SET status = ?, response_code = ?, response_note = ?, next_attempt_at = ?, updated_at = ?
		WHERE id = ? AND status = 'delivering'`,
	claimWebhook: "SELECT " + webhookColumns + " FROM webhooks WHERE id = ?",
	// The head of the subscription's queue is its oldest unfinished row;
	// it is claimed only if it is pending and due. One statement, so the
	// common case costs a single round trip.
	// ?1 webhook id, ?2 now.
	claimNext: `UPDATE webhook_deliveries SET status = 'delivering', attempt = attempt + 1, updated_at = ?2
		WHERE seq = ` + queueHeadSeq + ` AND status = 'pending' AND next_attempt_at <= ?2 RETURNING ` + deliveryColumns,
	claimHead: `SELECT status, next_attempt_at FROM webhook_deliveries WHERE seq = ` + queueHeadSeq,
}

// queueHeadSeq finds the oldest unfinished row of subscription ?1 with two
// probes of the (webhook_id, status, seq) index. "status IN (...) ORDER
// BY seq LIMIT 1" would sort every pending row instead: quadratic work
// while a dead receiver's backlog drains.
const queueHeadSeq = `(SELECT min(seq) FROM (
		SELECT min(seq) AS seq FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'pending'
		UNION ALL
		SELECT min(seq) FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'delivering'))`

// stmtRunner is what claimIn needs of a statement: a *sql.Stmt bound to
// the transaction, or rawStmt.
type stmtRunner interface {
	ExecContext(ctx context.Context, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, args ...any) *sql.Row
}

type rawStmt struct {
	tx    *sql.Tx
	query string
}

func (r rawStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	return r.tx.ExecContext(ctx, r.query, args...)
}

func (r rawStmt) QueryRowContext(ctx context.Context, args ...any) *sql.Row {
	return r.tx.QueryRowContext(ctx, r.query, args...)
}

// ClaimDelivery records the outcome of the previous attempt (when done is
// not nil) and claims the next delivery of webhookID in one transaction:
// one write per delivery instead of two keeps the single SQLite writer
// from becoming the bottleneck. The claim is an update guarded by
// status='pending' on the oldest unfinished row of the subscription, so
// deliveries leave strictly in created_at order and never twice at once.
// A DeliveryQueue does the same with statements prepared once.
func (s *Queue) ClaimDelivery(ctx context.Context, webhookID string, done *DeliveryOutcome, now time.Time) (DeliveryClaim, error) {
	var c DeliveryClaim
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		c, err = claimIn(ctx, func(i int) stmtRunner { return rawStmt{tx, claimQueries[i]} }, webhookID, done, now)
		return err
	})
	return c, err
}

// DeliveryQueue runs ClaimDelivery with prepared statements: parsing the
// SQL was a fifth of the dispatcher's CPU time under load.
type DeliveryQueue struct {
	s     *Queue
	stmts [claimStatements]*sql.Stmt
}

// PrepareDeliveryQueue prepares the claim statements; Close releases them.
func (s *Queue) PrepareDeliveryQueue(ctx context.Context) (*DeliveryQueue, error) {
	q := &DeliveryQueue{s: s}
	for i, query := range claimQueries {
		st, err := s.w.PrepareContext(ctx, query)
		if err != nil {
			q.Close()
			return nil, err
		}
		q.stmts[i] = st
	}
	return q, nil
}

// Close releases the prepared statements.
func (q *DeliveryQueue) Close() error {
	var first error
	for _, st := range q.stmts {
		if st != nil {
			if err := st.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// Claim is ClaimDelivery on the prepared statements.
func (q *DeliveryQueue) Claim(ctx context.Context, webhookID string, done *DeliveryOutcome, now time.Time) (DeliveryClaim, error) {
	cs, err := q.ClaimBatch(ctx, []ClaimRequest{{WebhookID: webhookID, Done: done}}, now)
	if err != nil {
		return DeliveryClaim{}, err
	}
	return cs[0], nil
}

// ClaimRequest is one subscription's part of a ClaimBatch.
type ClaimRequest struct {
	WebhookID string
	Done      *DeliveryOutcome
}

// ClaimBatch runs the claims of several subscriptions in one transaction
// (group commit): under load each commit, and each hand-over of SQLite's
// single write lock, is paid once per batch instead of once per delivery.
// Each claim keeps its own guard, so the semantics are those of Claim
// called once per request. The requests must name distinct subscriptions.
// On error nothing is recorded and every request may be retried.
func (q *DeliveryQueue) ClaimBatch(ctx context.Context, reqs []ClaimRequest, now time.Time) ([]DeliveryClaim, error) {
	out := make([]DeliveryClaim, len(reqs))
	err := q.s.inTx(ctx, func(tx *sql.Tx) error {
		var stmts [claimStatements]*sql.Stmt
		stmt := func(i int) stmtRunner {
			if stmts[i] == nil {
				stmts[i] = tx.StmtContext(ctx, q.stmts[i])
			}
			return stmts[i]
		}
		for i, r := range reqs {
			c, err := claimIn(ctx, stmt, r.WebhookID, r.Done, now)
			if err != nil {
				return err
			}
			out[i] = c
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func claimIn(ctx context.Context, stmt func(int) stmtRunner, webhookID string, done *DeliveryOutcome, now time.Time) (DeliveryClaim, error) {
	now = now.UTC().Truncate(time.Microsecond)
	ts := sqlbase.FormatTime(now)
	var c DeliveryClaim
	if done != nil {
		var code any
		if done.ResponseCode != nil {
			code = *done.ResponseCode
		}
		next := done.NextAttemptAt
		if next.IsZero() {
			next = now
		}
		if _, err := stmt(claimFinish).ExecContext(ctx, done.Status, code, done.ResponseNote, sqlbase.FormatTime(next), ts, done.ID); err != nil {
			return c, err
		}
	}
	w, err := scanWebhook(stmt(claimWebhook).QueryRowContext(ctx, webhookID))
	if errors.Is(err, sqlbase.ErrNotFound) {
		c.Gone = true
		return c, nil
	}
	if err != nil {
		return c, err
	}
	c.Webhook = w
	if !w.Enabled {
		c.Paused = true
		return c, nil
	}
	d, err := scanDelivery(stmt(claimNext).QueryRowContext(ctx, webhookID, ts))
	if err == nil {
		c.Delivery = &d
		return c, nil
	}
	if !errors.Is(err, sqlbase.ErrNotFound) {
		return c, err
	}
	// Nothing claimed: say why, so the worker knows whether to wait.
	var status, next string
	err = stmt(claimHead).QueryRowContext(ctx, webhookID).Scan(&status, &next)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c, nil
	case err != nil:
		return c, err
	case status == DeliveryDelivering:
		c.Busy = true
	default:
		c.WaitUntil = sqlbase.ParseTime(next)
	}
	return c, nil
}

// FinishDelivery records an outcome without claiming another delivery.
func (s *Queue) FinishDelivery(ctx context.Context, done DeliveryOutcome, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	next := done.NextAttemptAt
	if next.IsZero() {
		next = now
	}
	var code any
	if done.ResponseCode != nil {
		code = *done.ResponseCode
	}
	_, err := s.w.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, response_code = ?, response_note = ?, next_attempt_at = ?, updated_at = ?
		WHERE id = ? AND status = 'delivering'`,
		done.Status, code, done.ResponseNote, sqlbase.FormatTime(next), sqlbase.FormatTime(now), done.ID)
	return err
}

// ResetStaleDeliveries puts every delivering row back to pending. Called
// once at startup, before any worker runs: a row still delivering then was
// cut off by a crash and must be sent again (at-least-once).
func (s *Queue) ResetStaleDeliveries(ctx context.Context, now time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, "UPDATE webhook_deliveries SET status = 'pending', updated_at = ? WHERE status = 'delivering'",
		sqlbase.FormatTime(now.UTC()))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// WebhooksWithPendingDeliveries lists the subscriptions that have work.
func (s *Queue) WebhooksWithPendingDeliveries(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT DISTINCT webhook_id FROM webhook_deliveries WHERE status IN ('pending', 'delivering') ORDER BY webhook_id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// DeliveriesByWebhook returns the newest limit deliveries of a
// subscription, newest first.
func (s *Queue) DeliveriesByWebhook(ctx context.Context, webhookID string, limit int) ([]Delivery, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?", webhookID, limit)
	return sqlbase.Collect(rows, err, scanDelivery)
}

// DeliveryByID returns one delivery.
func (s *Queue) DeliveryByID(ctx context.Context, id string) (Delivery, error) {
	return scanDelivery(s.db.QueryRowContext(ctx, "SELECT "+deliveryColumns+" FROM webhook_deliveries WHERE id = ?", id))
}
