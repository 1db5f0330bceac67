// Package audit is the audit log table: one appended row per state change
// (who, what, the fields before and after, when, from which request). The
// table has no update path at all (a trigger refuses UPDATE) and rows go
// only by age (SVC_AUDIT_RETENTION_DAYS). store embeds a Log, so these
// are *store.Store's methods.
package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"scand/store/sqlbase"
)

// Actor kinds: a DB-issued key, SVC_API_KEY, dev mode (no credential
// configured), or scand itself (schedules, expiry).
const (
	ActorKey    = "key"
	ActorEnv    = "env"
	ActorDev    = "dev"
	ActorSystem = "system"
)

// Actor is who made a change. For a key both its id and its name are
// kept: the name is what a reviewer recognizes, the id what stays unique
// after a key is renamed or reissued under the same name.
type Actor struct {
	Kind string `json:"kind" doc:"key, env, dev or system"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

// System is the actor of changes scand makes on its own.
func System(what string) Actor { return Actor{Kind: ActorSystem, ID: "system", Name: what} }

// Change is one field before and after; nil is "absent".
type Change struct {
	Before any `json:"before"`
	After  any `json:"after"`
}

// Changes are the fields a change touched, by name.
type Changes map[string]Change

// Record is one audit row.
type Record struct {
	Seq        int64     `json:"id"`
	At         time.Time `json:"at"`
	Actor      Actor     `json:"actor"`
	Action     string    `json:"action" doc:"for example scan.start, finding.triage, key.revoke"`
	ObjectType string    `json:"object_type"`
	ObjectID   string    `json:"object_id"`
	Changes    Changes   `json:"changes"`
	RequestID  string    `json:"request_id"`
	Client     string    `json:"client" doc:"client address of the request; empty for system changes"`
}

// ErrSecretField means a change named a field that holds a secret: the
// caller is wrong, and nothing is written.
var ErrSecretField = errors.New("audit: a change names a secret field")

// SecretField reports whether a field name is one whose value must never
// be kept: webhook secrets, plaintext keys, key hashes, tokens, passwords.
func SecretField(name string) bool {
	n := strings.ToLower(name)
	if n == "key" || n == "api_key" {
		return true
	}
	for _, bad := range []string{"secret", "hash", "token", "password", "credential"} {
		if strings.Contains(n, bad) {
			return true
		}
	}
	return false
}

// Log is the audit table.
type Log struct {
	db, w *sql.DB
	now   func() time.Time
	sink  func(Record)
}

// New reads through db, writes through the writer w and stamps times
// with now.
func New(db, w *sql.DB, now func() time.Time) *Log { return &Log{db: db, w: w, now: now} }

// SetAuditSink sets the function every appended record is handed to after
// its transaction commits (main.go logs one JSON line per record for
// journald). Set it once, before the daemon serves.
func (l *Log) SetAuditSink(fn func(Record)) { l.sink = fn }

// AppendAudit appends one record in its own transaction.
func (l *Log) AppendAudit(ctx context.Context, r Record) (Record, error) {
	err := sqlbase.InTx(ctx, l.w, func(tx *sql.Tx) error {
		var err error
		r, err = l.AppendAuditTx(ctx, tx, r)
		return err
	})
	if err != nil {
		return r, err
	}
	l.Emit(r)
	return r, nil
}

// AppendAuditTx appends a record inside the caller's transaction, so a
// change and its record commit together; the caller hands the result to
// Emit after the commit.
func (l *Log) AppendAuditTx(ctx context.Context, tx *sql.Tx, r Record) (Record, error) {
	for field := range r.Changes {
		if SecretField(field) {
			return r, fmt.Errorf("%w: %q", ErrSecretField, field)
		}
	}
	switch r.Actor.Kind {
	case ActorKey, ActorEnv, ActorDev, ActorSystem:
	default:
		return r, fmt.Errorf("audit: unknown actor kind %q", r.Actor.Kind)
	}
	if r.Changes == nil {
		r.Changes = Changes{}
	}
	r.At = l.now().UTC().Truncate(time.Microsecond)
	changes, err := json.Marshal(r.Changes)
	if err != nil {
		return r, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO audit_log (at, actor_kind, actor_id, actor_name, action, object_type, object_id, changes, request_id, client)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, sqlbase.FormatTime(r.At), r.Actor.Kind, r.Actor.ID, r.Actor.Name, r.Action,
		r.ObjectType, r.ObjectID, string(changes), r.RequestID, r.Client)
	if err != nil {
		return r, err
	}
	r.Seq, err = res.LastInsertId()
	return r, err
}

// Emit hands a committed record to the sink.
func (l *Log) Emit(r Record) {
	if l.sink != nil {
		l.sink(r)
	}
}

// Query filters and pages the audit log, newest first.
type Query struct {
	// Actor matches the actor's key id or name exactly.
	Actor string
	// Action matches exactly, or every action under a prefix ending in "."
	// ("webhook." is every webhook change).
	Action     string
	ObjectType string
	ObjectID   string
	Since      *time.Time
	Until      *time.Time
	// After is the cursor of the previous page ("" for the first).
	After string
	Limit int
}

// ErrBadCursor means After is not a cursor this log handed out.
var ErrBadCursor = errors.New("invalid cursor")

// Page is one page of records and the cursor of the next ("" at the end).
type Page struct {
	Records []Record
	Next    string
}

// AuditRecords returns one page of the log, newest first.
func (l *Log) AuditRecords(ctx context.Context, q Query) (Page, error) {
	where, args := []string{"1 = 1"}, []any{}
	if q.After != "" {
		seq, err := strconv.ParseInt(q.After, 10, 64)
		if err != nil || seq <= 0 {
			return Page{}, ErrBadCursor
		}
		where, args = append(where, "seq < ?"), append(args, seq)
	}
	if q.Actor != "" {
		where, args = append(where, "(actor_id = ? OR actor_name = ?)"), append(args, q.Actor, q.Actor)
	}
	if q.Action != "" {
		if prefix, ok := strings.CutSuffix(q.Action, "."); ok {
			where, args = append(where, "action >= ? AND action < ?"), append(args, prefix+".", prefix+"/")
		} else {
			where, args = append(where, "action = ?"), append(args, q.Action)
		}
	}
	if q.ObjectType != "" {
		where, args = append(where, "object_type = ?"), append(args, q.ObjectType)
	}
	if q.ObjectID != "" {
		where, args = append(where, "object_id = ?"), append(args, q.ObjectID)
	}
	if q.Since != nil {
		where, args = append(where, "at >= ?"), append(args, sqlbase.FormatTime(*q.Since))
	}
	if q.Until != nil {
		where, args = append(where, "at < ?"), append(args, sqlbase.FormatTime(*q.Until))
	}
	limit := q.Limit
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	rows, err := l.db.QueryContext(ctx, `SELECT seq, at, actor_kind, actor_id, actor_name, action, object_type, object_id, changes, request_id, client
		FROM audit_log WHERE `+strings.Join(where, " AND ")+` ORDER BY seq DESC LIMIT ?`, append(args, limit+1)...)
	recs, err := sqlbase.Collect(rows, err, scanRecord)
	if err != nil {
		return Page{}, err
	}
	var p Page
	if len(recs) > limit {
		recs = recs[:limit]
		p.Next = strconv.FormatInt(recs[limit-1].Seq, 10)
	}
	p.Records = recs
	return p, nil
}

func scanRecord(row sqlbase.Row) (Record, error) {
	var r Record
	var at, changes string
	if err := row.Scan(&r.Seq, &at, &r.Actor.Kind, &r.Actor.ID, &r.Actor.Name, &r.Action, &r.ObjectType, &r.ObjectID, &changes, &r.RequestID, &r.Client); err != nil {
		return r, err
	}
	r.At = sqlbase.ParseTime(at)
	if err := json.Unmarshal([]byte(changes), &r.Changes); err != nil {
		return r, fmt.Errorf("audit record %d: %w", r.Seq, err)
	}
	return r, nil
}

// PurgeAudit deletes records older than before, in bounded batches so a
// large first purge never holds the writer for long, and returns how many
// went. It is the only delete of the table.
func (l *Log) PurgeAudit(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		res, err := l.w.ExecContext(ctx, `DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log WHERE at < ? ORDER BY at LIMIT 5000)`,
			sqlbase.FormatTime(before))
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += n
		if n < 5000 || ctx.Err() != nil {
			return total, ctx.Err()
		}
	}
}
