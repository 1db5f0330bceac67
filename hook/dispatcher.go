package hook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"scand/sse"
	"scand/store"
)

// Defaults of the Dispatcher's tunables (SPEC.md Limits where it says).
const (
	DefaultTimeout     = 10 * time.Second
	DefaultBackoffBase = time.Second
	DefaultBackoffCap  = 5 * time.Minute
	DefaultMaxAge      = 30 * time.Minute
	DefaultStopTimeout = 5 * time.Second
	DefaultQueueSize   = 4096
)

// maxResponseDrain is how much of a receiver's answer is read (and thrown
// away) so the connection can be reused; the rest is cut off.
const maxResponseDrain = 64 << 10

// Config is what New needs.
type Config struct {
	Store *store.Store
	Log   *slog.Logger
	Now   func() time.Time
	// AllowPrivate permits loopback and private receivers.
	AllowPrivate bool
	// Observe, when set, is told the outcome of every delivery attempt
	// (OutcomeSucceeded, OutcomeRetry, OutcomeFailed) for /metrics.
	Observe func(outcome string)
}

// Outcomes of one delivery attempt, as Config.Observe receives them.
const (
	OutcomeSucceeded = "succeeded" // the receiver answered 2xx
	OutcomeRetry     = "retry"     // failed, another attempt is scheduled
	OutcomeFailed    = "failed"    // given up: policy refusal or too old
)

// Dispatcher owns the delivery queue: it turns events into committed
// delivery rows, runs one worker per subscription that has work, and
// sends, signs and retries.
//
// The exported duration fields may be changed between New and Start (tests
// shorten them); they are read-only afterwards.
type Dispatcher struct {
	// Timeout bounds one HTTP attempt, connect to last byte.
	Timeout time.Duration
	// BackoffBase and BackoffCap shape the full-jitter exponential backoff:
	// attempt n waits a uniform random time in [0, min(cap, base*2^(n-1))).
	BackoffBase time.Duration
	BackoffCap  time.Duration
	// MaxAge is the age after which a failing delivery is given up.
	MaxAge time.Duration
	// StopTimeout bounds Stop.
	StopTimeout time.Duration
	// RetryAfterError is how long a worker waits after a database error.
	RetryAfterError time.Duration
	// QueueSize bounds the events accepted by Sink and not yet persisted.
	QueueSize int

	store  *store.Store
	queue  *store.DeliveryQueue
	log    *slog.Logger
	now    func() time.Time
	policy AddressPolicy
	// observe counts attempt outcomes for /metrics; nil counts nothing.
	observe func(outcome string)
	client  *http.Client
	jitter  func() float64
	// dialOverride rewrites the address dialled (after the URL is chosen,
	// before the address policy runs); only in-package tests set it.
	dialOverride func(addr string) string

	// writeMu lets one dispatcher write transaction at a time ask SQLite
	// for its single write lock. Fifty workers contending inside SQLite
	// back off in its busy handler (sleeps of 1 to 100 ms); queueing on a
	// Go mutex instead hands the lock over in microseconds.
	writeMu sync.Mutex

	mu       sync.Mutex
	started  bool
	stopping bool
	workers  map[string]*worker
	wg       sync.WaitGroup
	ctx      context.Context
	cancel   context.CancelFunc
	events   chan queuedEvent
	quit     chan struct{}
	enqDone  chan struct{}
	claims   chan claimCall
}

// claimCall is a worker's request to the commit loop.
type claimCall struct {
	req   store.ClaimRequest
	reply chan claimReply
}

type claimReply struct {
	claim store.DeliveryClaim
	err   error
}

// maxClaimBatch bounds one group-commit transaction.
const maxClaimBatch = 64

type queuedEvent struct {
	name    string
	payload []byte
}

type worker struct {
	webhookID string
	wake      chan struct{}
	// kicked (guarded by Dispatcher.mu) records work announced while the
	// worker was busy, so it does not exit on a stale "queue empty".
	kicked bool
}

// New returns a dispatcher; nothing runs until Start.
func New(cfg Config) *Dispatcher {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	d := &Dispatcher{
		Timeout:         DefaultTimeout,
		BackoffBase:     DefaultBackoffBase,
		BackoffCap:      DefaultBackoffCap,
		MaxAge:          DefaultMaxAge,
		StopTimeout:     DefaultStopTimeout,
		RetryAfterError: time.Second,
		QueueSize:       DefaultQueueSize,
		store:           cfg.Store,
		log:             cfg.Log,
		now:             cfg.Now,
		policy:          AddressPolicy{AllowPrivate: cfg.AllowPrivate},
		observe:         cfg.Observe,
		jitter:          rand.Float64,
		workers:         map[string]*worker{},
	}
	d.client = d.newClient()
	return d
}

func (d *Dispatcher) newClient() *http.Client {
	dialer := &net.Dialer{Timeout: DefaultTimeout, KeepAlive: 30 * time.Second, Control: d.policy.control}
	tr := &http.Transport{
		// No proxy: a proxy would make the connection, and the address
		// policy would check the proxy instead of the receiver.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if d.dialOverride != nil {
				addr = d.dialOverride(addr)
			}
			return dialer.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: DefaultTimeout,
		DisableCompression:  true,
	}
	return &http.Client{
		Transport: tr,
		// A redirect is an answer, not an acknowledgement: following it
		// would also let a receiver bounce the signed body elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Start resets deliveries a crash left in delivering back to pending,
// then starts a worker for every subscription with work. ctx only bounds
// the startup queries; Stop ends the workers.
func (d *Dispatcher) Start(ctx context.Context) error {
	d.mu.Lock()
	if d.started {
		d.mu.Unlock()
		return errors.New("webhook dispatcher already started")
	}
	// Reset before any worker exists: a worker would otherwise see the
	// stale row as in flight and wait behind it.
	n, err := d.store.ResetStaleDeliveries(ctx, d.now())
	if err != nil {
		d.mu.Unlock()
		return err
	}
	if n > 0 {
		d.log.Warn("webhook deliveries interrupted by the previous run were put back in the queue", "count", n)
	}
	if d.queue, err = d.store.PrepareDeliveryQueue(ctx); err != nil {
		d.mu.Unlock()
		return err
	}
	d.ctx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	d.events = make(chan queuedEvent, max(d.QueueSize, 1))
	d.quit = make(chan struct{})
	d.enqDone = make(chan struct{})
	d.claims = make(chan claimCall)
	d.started = true
	d.wg.Add(1)
	d.mu.Unlock()

	go d.enqueueLoop()
	go d.commitLoop()
	ids, err := d.store.WebhooksWithPendingDeliveries(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		d.Kick(id)
	}
	return nil
}

// Stop persists events still buffered, cancels in-flight attempts (they go
// back to pending and are sent again after a restart) and waits for the
// workers, at most StopTimeout in all.
func (d *Dispatcher) Stop() {
	d.mu.Lock()
	if !d.started || d.stopping {
		d.mu.Unlock()
		return
	}
	d.stopping = true
	d.mu.Unlock()
	deadline := time.NewTimer(d.StopTimeout)
	defer deadline.Stop()

	close(d.quit)
	select {
	case <-d.enqDone:
	case <-deadline.C:
		d.log.Error("webhook dispatcher: buffered events not persisted before the stop timeout")
	}
	d.cancel()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		d.queue.Close()
	case <-deadline.C:
		// The statements stay open: a straggler may still be using them.
		d.log.Error("webhook dispatcher: workers still running at the stop timeout")
	}
}

// Sink is the bus side effect. It never blocks and never touches the
// network or the database: it hands the event to the enqueue loop, which
// commits the delivery rows in publication order.
func (d *Dispatcher) Sink(_ context.Context, ev sse.Event) error {
	if !IsEvent(ev.Name) {
		return nil
	}
	payload, err := compactJSON(ev.Data)
	if err != nil {
		return err
	}
	d.mu.Lock()
	events, quit := d.events, d.quit
	stopping := d.stopping
	d.mu.Unlock()
	if events == nil {
		return errors.New("webhook dispatcher not started; event not queued")
	}
	if stopping {
		return errors.New("webhook dispatcher stopping; event not queued")
	}
	select {
	case events <- queuedEvent{name: ev.Name, payload: payload}:
		return nil
	case <-quit:
		return errors.New("webhook dispatcher stopping; event not queued")
	default:
		return errors.New("webhook event queue full; event not delivered to webhooks")
	}
}

func (d *Dispatcher) enqueueLoop() {
	defer close(d.enqDone)
	for {
		select {
		case ev := <-d.events:
			d.persist(d.ctx, ev)
		case <-d.quit:
			// Whatever the bus handed over before the stop is still
			// committed, so a clean shutdown loses nothing.
			for {
				select {
				case ev := <-d.events:
					d.persist(d.ctx, ev)
				default:
					return
				}
			}
		}
	}
}

func (d *Dispatcher) persist(ctx context.Context, ev queuedEvent) {
	if _, err := d.enqueue(ctx, ev.name, ev.payload); err != nil {
		d.log.Error("webhook deliveries not queued", "event", ev.name, "error", err.Error())
	}
}

// Enqueue commits a delivery for every enabled subscription whose filter
// holds event, then wakes their workers. Events outside Events are
// ignored.
func (d *Dispatcher) Enqueue(ctx context.Context, event string, data any) ([]store.Delivery, error) {
	if !IsEvent(event) {
		return nil, nil
	}
	payload, err := compactJSON(data)
	if err != nil {
		return nil, err
	}
	return d.enqueue(ctx, event, payload)
}

func (d *Dispatcher) enqueue(ctx context.Context, event string, payload []byte) ([]store.Delivery, error) {
	d.writeMu.Lock()
	ds, err := d.store.EnqueueEvent(ctx, event, payload, d.now())
	d.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	for _, dl := range ds {
		d.Kick(dl.WebhookID)
	}
	return ds, nil
}

// TestMessage is the text of the synthetic webhook.test event.
const TestMessage = "Test delivery from scand. If you can read this, the receiver is reachable and can verify the signature."

// Test queues a webhook.test delivery for one subscription through the
// normal path. store.ErrNotFound for an unknown subscription,
// store.ErrConflict for a disabled one (it would never be sent).
func (d *Dispatcher) Test(ctx context.Context, webhookID string) (store.Delivery, error) {
	payload, err := compactJSON(sse.WebhookTestData{WebhookID: webhookID, Message: TestMessage})
	if err != nil {
		return store.Delivery{}, err
	}
	d.writeMu.Lock()
	dl, err := d.store.EnqueueDelivery(ctx, webhookID, sse.WebhookTest, payload, d.now())
	d.writeMu.Unlock()
	if err != nil {
		return dl, err
	}
	d.Kick(webhookID)
	return dl, nil
}

// Kick makes sure a worker runs for webhookID: call it after committing a
// delivery or re-enabling a subscription. Before Start it does nothing;
// Start picks up all pending work itself.
func (d *Dispatcher) Kick(webhookID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.started || d.stopping {
		return
	}
	if w := d.workers[webhookID]; w != nil {
		w.kicked = true
		select {
		case w.wake <- struct{}{}:
		default:
		}
		return
	}
	w := &worker{webhookID: webhookID, wake: make(chan struct{}, 1)}
	d.workers[webhookID] = w
	d.wg.Add(1)
	go d.work(w)
}

// Workers returns how many subscription workers are running.
func (d *Dispatcher) Workers() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.workers)
}

// work delivers one subscription's queue, oldest first, one at a time,
// and exits when the queue is empty.
func (d *Dispatcher) work(w *worker) {
	defer d.wg.Done()
	var done *store.DeliveryOutcome
	for {
		if d.ctx.Err() != nil {
			d.recordOnStop(done)
			d.retire(w, true)
			return
		}
		d.mu.Lock()
		w.kicked = false
		d.mu.Unlock()
		c, err := d.claim(w.webhookID, done)
		if err != nil {
			if d.ctx.Err() == nil {
				d.log.Error("webhook queue: claim failed", "webhook_id", w.webhookID, "error", err.Error())
			}
			// done is kept so the outcome is recorded on the next try.
			d.sleep(w, d.RetryAfterError)
			continue
		}
		done = nil
		switch {
		case c.Delivery != nil:
			out := d.attempt(d.ctx, c.Webhook, *c.Delivery)
			done = &out
			d.observeOutcome(out)
		case c.Busy:
			d.sleep(w, d.RetryAfterError)
		case !c.WaitUntil.IsZero():
			d.sleep(w, c.WaitUntil.Sub(d.now()))
		default: // empty, paused (Kick on re-enable restarts it) or gone
			if d.retire(w, false) {
				return
			}
		}
	}
}

// claim records done and claims the next delivery of webhookID through
// the commit loop.
func (d *Dispatcher) claim(webhookID string, done *store.DeliveryOutcome) (store.DeliveryClaim, error) {
	call := claimCall{req: store.ClaimRequest{WebhookID: webhookID, Done: done}, reply: make(chan claimReply, 1)}
	select {
	case d.claims <- call:
	case <-d.ctx.Done():
		return store.DeliveryClaim{}, d.ctx.Err()
	}
	// The loop answers every call it took, even while stopping, so a
	// delivery it claimed is never lost track of.
	r := <-call.reply
	return r.claim, r.err
}

// commitLoop runs the workers' claims in shared transactions: whatever
// arrived while the previous transaction ran goes into the next one.
func (d *Dispatcher) commitLoop() {
	defer d.wg.Done()
	for {
		var batch []claimCall
		select {
		case call := <-d.claims:
			batch = append(batch, call)
		case <-d.ctx.Done():
			return
		}
	more:
		for len(batch) < maxClaimBatch {
			select {
			case call := <-d.claims:
				batch = append(batch, call)
			default:
				break more
			}
		}
		reqs := make([]store.ClaimRequest, len(batch))
		for i, call := range batch {
			reqs[i] = call.req
		}
		cs, err := d.claimBatch(reqs)
		if err != nil && len(batch) > 1 && d.ctx.Err() == nil {
			// One bad request must not hold up the others: retry each
			// alone so only the faulty one sees the error.
			for i, call := range batch {
				c, err := d.claimBatch(reqs[i : i+1])
				if err != nil {
					call.reply <- claimReply{err: err}
					continue
				}
				call.reply <- claimReply{claim: c[0]}
			}
			continue
		}
		for i, call := range batch {
			if err != nil {
				call.reply <- claimReply{err: err}
				continue
			}
			call.reply <- claimReply{claim: cs[i]}
		}
	}
}

func (d *Dispatcher) claimBatch(reqs []store.ClaimRequest) ([]store.DeliveryClaim, error) {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	return d.queue.ClaimBatch(d.ctx, reqs, d.now())
}

// retire removes w unless work was announced since its last claim.
func (d *Dispatcher) retire(w *worker, force bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w.kicked && !force {
		return false
	}
	if d.workers[w.webhookID] == w {
		delete(d.workers, w.webhookID)
	}
	return true
}

func (d *Dispatcher) sleep(w *worker, dur time.Duration) {
	if dur <= 0 {
		return
	}
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.wake:
	case <-d.ctx.Done():
	}
}

// recordOnStop writes the outcome of an attempt the stop interrupted, on a
// context of its own since the dispatcher's is already cancelled.
func (d *Dispatcher) recordOnStop(done *store.DeliveryOutcome) {
	if done == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	d.writeMu.Lock()
	err := d.store.FinishDelivery(ctx, *done, d.now())
	d.writeMu.Unlock()
	if err != nil {
		// The row stays delivering; the next Start puts it back.
		d.log.Warn("webhook queue: outcome not recorded at stop", "delivery_id", done.ID, "error", err.Error())
	}
}

// attempt sends one delivery and says what became of it.
func (d *Dispatcher) attempt(ctx context.Context, wh store.Webhook, dl store.Delivery) store.DeliveryOutcome {
	logAttrs := []any{"webhook_id", wh.ID, "delivery_id", dl.ID, "event", dl.Event, "attempt", dl.Attempt}
	if err := ValidateURL(wh.URL); err != nil {
		return d.fail(dl, nil, "not sent: "+err.Error(), logAttrs)
	}
	u, _ := url.Parse(wh.URL)
	sentAt := d.now()
	body, err := message{DeliveryID: dl.ID, WebhookID: wh.ID, Event: dl.Event, Data: dl.Payload, DeliveredAt: sentAt}.body(u)
	if err != nil {
		return d.fail(dl, nil, "not sent: payload is not valid JSON", logAttrs)
	}
	actx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return d.fail(dl, nil, "not sent: invalid request", logAttrs)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set(HeaderEvent, dl.Event)
	h.Set(HeaderWebhookID, wh.ID)
	h.Set(HeaderDelivery, dl.ID)
	h.Set(HeaderSignature, Sign(wh.Secret, sentAt, body))

	resp, err := d.client.Do(req)
	if err != nil {
		var blocked *BlockedAddressError
		switch {
		case errors.As(err, &blocked):
			// Policy, not a transient fault: retrying cannot succeed.
			return d.fail(dl, nil, blocked.Error(), logAttrs)
		case ctx.Err() != nil:
			return store.DeliveryOutcome{ID: dl.ID, Status: store.DeliveryPending, ResponseNote: "interrupted by shutdown", NextAttemptAt: d.now()}
		case errors.Is(actx.Err(), context.DeadlineExceeded):
			return d.retry(dl, nil, "timed out after "+d.Timeout.String(), logAttrs)
		}
		return d.retry(dl, nil, transportNote(err), logAttrs)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseDrain))
	resp.Body.Close()
	code := resp.StatusCode
	if code >= 200 && code <= 299 {
		d.log.Debug("webhook delivered", append(logAttrs, "response_code", code)...)
		return store.DeliveryOutcome{ID: dl.ID, Status: store.DeliverySucceeded, ResponseCode: &code, NextAttemptAt: d.now()}
	}
	note := "HTTP " + strconv.Itoa(code) + " " + http.StatusText(code)
	if code >= 300 && code <= 399 {
		note += ": redirects are not followed"
	}
	return d.retry(dl, &code, note, logAttrs)
}

// transportNote keeps the cause of a transport error and drops the URL
// *url.Error wraps it in: a Slack or Discord URL is itself a credential.
func transportNote(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return truncate(err.Error(), 500)
}

// observeOutcome tells Config.Observe how an attempt ended; an attempt
// the shutdown interrupted did not end and is not counted.
func (d *Dispatcher) observeOutcome(out store.DeliveryOutcome) {
	if d.observe == nil {
		return
	}
	switch {
	case out.Status == store.DeliverySucceeded:
		d.observe(OutcomeSucceeded)
	case out.Status == store.DeliveryFailed:
		d.observe(OutcomeFailed)
	case out.Status == store.DeliveryPending && d.ctx.Err() == nil:
		d.observe(OutcomeRetry)
	}
}

// retry schedules another attempt, or gives up once the delivery is older
// than MaxAge.
func (d *Dispatcher) retry(dl store.Delivery, code *int, note string, logAttrs []any) store.DeliveryOutcome {
	now := d.now()
	if age := now.Sub(dl.CreatedAt); age > d.MaxAge {
		return d.fail(dl, code, note+" (gave up: delivery older than "+d.MaxAge.String()+")", logAttrs)
	}
	next := now.Add(Backoff(dl.Attempt, d.BackoffBase, d.BackoffCap, d.jitter()))
	d.log.Warn("webhook delivery will be retried", append(logAttrs, "note", note, "next_attempt_at", next)...)
	return store.DeliveryOutcome{ID: dl.ID, Status: store.DeliveryPending, ResponseCode: code, ResponseNote: note, NextAttemptAt: next}
}

func (d *Dispatcher) fail(dl store.Delivery, code *int, note string, logAttrs []any) store.DeliveryOutcome {
	d.log.Error("webhook delivery failed", append(logAttrs, "note", note)...)
	return store.DeliveryOutcome{ID: dl.ID, Status: store.DeliveryFailed, ResponseCode: code, ResponseNote: note, NextAttemptAt: d.now()}
}

// Backoff is full-jitter exponential backoff: after attempt n (1-based)
// wait r * min(ceiling, base * 2^(n-1)), r uniform in [0, 1). The jitter
// spreads retries of many deliveries that failed together.
func Backoff(attempt int, base, ceiling time.Duration, r float64) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	window := base
	for i := 1; i < attempt && window < ceiling; i++ {
		window *= 2
	}
	if window > ceiling || window <= 0 {
		window = ceiling
	}
	return time.Duration(r * float64(window))
}
