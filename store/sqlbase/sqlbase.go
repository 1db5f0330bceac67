// Package sqlbase is what every table group of store/ stands on, and holds
// no table's SQL: the two connection pools on the database file (readers
// and the one writer) with the pragmas every connection gets, the driver
// wrapper that feeds each failure to the write health, the free-space
// guard, the writer transaction, the database's lock file, and the
// encodings and sentinel errors every table shares.
package sqlbase

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrNotFound means the row a caller asked for does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict means the row exists but is in a state that forbids the
// change (for example deleting a running scan).
var ErrConflict = errors.New("conflict")

// Pools are the connections on one database file.
type Pools struct {
	// Read serves reads; several connections read concurrently under WAL.
	Read *sql.DB
	// Lookup serves the point reads a caller makes while it holds a Read
	// connection (ages and excerpts looked up beside a stream of
	// findings). Taking a second Read connection there deadlocks once
	// every Read connection is held by such a caller; a Lookup query
	// holds its connection for one short statement and waits for nothing
	// else, so it always finishes.
	Lookup *sql.DB
	// Write is the one writer connection. Every write queues for it in Go
	// instead of spinning on SQLite's busy handler, and the write
	// transactions are kept short, so no caller ever sees SQLITE_BUSY.
	Write *sql.DB
	// Health records storage failures seen on any connection (readiness,
	// 507 on a full disk).
	Health *Health
}

// Open opens the pools on the SQLite file at path; pragmas are extra
// per-connection pragmas (tests cap the page count to make SQLite report a
// full database). now is the clock of the write health.
func Open(path string, pragmas []string, now func() time.Time) (Pools, error) {
	health := NewHealth(now)
	readers, err := newObservedConnector(DSN(path, readerCacheKiB, pragmas...), health, nil)
	if err != nil {
		return Pools{}, fmt.Errorf("open database %s: %w", path, err)
	}
	db := sql.OpenDB(readers)
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	lookups, err := newObservedConnector(DSN(path, lookupCacheKiB, pragmas...), health, nil)
	if err != nil {
		db.Close()
		return Pools{}, fmt.Errorf("open database %s: %w", path, err)
	}
	lookup := sql.OpenDB(lookups)
	lookup.SetMaxOpenConns(2)
	lookup.SetMaxIdleConns(2)
	lookup.SetConnMaxIdleTime(time.Minute)
	writer, err := newObservedConnector(DSN(path, WriterCacheKiB, pragmas...), health, newSpaceGuard(path))
	if err != nil {
		db.Close()
		lookup.Close()
		return Pools{}, fmt.Errorf("open database %s: %w", path, err)
	}
	w := sql.OpenDB(writer)
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	// A connection's page cache and its allocator's arenas stay with it:
	// closing it after a minute of idleness is what gives an idle daemon
	// its memory back (reopening costs about a millisecond).
	w.SetConnMaxIdleTime(time.Minute)
	return Pools{Read: db, Lookup: lookup, Write: w, Health: health}, nil
}

// Page cache per connection. Readers mostly walk ranges once (the OS
// page cache serves re-reads), so a small cache each keeps eight busy
// readers well inside the daemon's memory budget; the writer keeps the
// right edge of every B-tree it appends to.
const (
	readerCacheKiB = 4 << 10
	lookupCacheKiB = 1 << 10
	WriterCacheKiB = 16 << 10
)

// DSN sets the pragmas on every connection the pool opens, not just the
// first: foreign keys and busy_timeout are per-connection in SQLite.
func DSN(path string, cacheKiB int, pragmas ...string) string {
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "cache_size(-"+strconv.Itoa(cacheKiB)+")")
	// After a checkpoint resets the WAL, its file is cut back to this size:
	// one large ingest must not leave a gigabyte-sized WAL behind.
	q.Add("_pragma", "journal_size_limit(67108864)")
	// The daemon checkpoints from a reader connection every second
	// (RunMaintenance), so a writer rarely pays for a checkpoint inside its
	// transaction; this is the backstop when nothing runs maintenance.
	q.Add("_pragma", "wal_autocheckpoint(16384)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// InTx runs fn in a write transaction on the writer connection w.
func InTx(ctx context.Context, w *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Row is what a table's row decoder reads: a *sql.Row or *sql.Rows.
type Row interface{ Scan(...any) error }

// Collect decodes every row of a query with decode and closes rows; err
// is the query's. The list is empty, never nil, when there is no row, so
// an API answer is [] rather than null.
func Collect[T any](rows *sql.Rows, err error, decode func(Row) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := decode(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ScanString decodes a one-column row of text, for Collect.
func ScanString(r Row) (string, error) {
	var v string
	err := r.Scan(&v)
	return v, err
}

// TimeLayout is fixed-width so that text order equals time order in SQL.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// FormatTime is a timestamp as every table stores it.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a stored timestamp; the zero time when it is not one.
func ParseTime(s string) time.Time {
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// NullTime is FormatTime of an optional timestamp (NULL for nil).
func NullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return FormatTime(*t)
}

// ParseNullTime is ParseTime of an optional timestamp.
func ParseNullTime(s sql.NullString) *time.Time {
	if !s.Valid {
		return nil
	}
	t := ParseTime(s.String)
	return &t
}

// NewID returns an RFC 9562 version 7 UUID: a millisecond timestamp then
// random bits. Time-ordered ids make index inserts append instead of
// touching random pages, which matters for 100k-finding scans.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	ms := uint64(time.Now().UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// MustJSON is a JSON column's value; v is always encodable.
func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Placeholders is n comma-separated "?" for an IN list.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// AnySlice is v as statement arguments.
func AnySlice(v []string) []any {
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = s
	}
	return out
}

// BoolInt is a boolean column's value.
func BoolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ExpectOne turns an update that matched no row into ErrConflict.
func ExpectOne(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrConflict
	}
	return nil
}
