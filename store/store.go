// Package store is the only package in scand that speaks SQL: every query
// the daemon runs lives under store/, so a reviewer reads one tree to know
// what the daemon does with its data. *Store is the one handle. It opens
// the database (migrations, the 0001 backfill), ingests findings, and
// keeps triage, keys, schedules, notifications and the other small tables
// here, one file per table group; the table groups with a package of their
// own are embedded in it, so their methods are the Store's:
//
//	store/scans        the scans table: a scan's lifecycle and the listings
//	store/findings     reads of the findings tables: the planner behind
//	                   FindingRows, Compare, the console's pages
//	store/webhooks     webhook subscriptions and their delivery queue
//	store/ops          the online backup and its verification, and the
//	                   aggregates /metrics reads
//	store/audit        the append-only audit log of every state change
//	store/targets      targets as records, per-target finding age
//	store/vex          imported VEX documents and statements
//	store/reevals      re-evaluations of stored SBOMs against new advisory data
//
// and it builds on:
//
//	store/scratch      the ingest's external sorter, a private SQLite file
//	store/findingjson  a finding row's stored body (no SQL)
//	store/sqlbase      the connections, write health, free-space guard and
//	                   lock file, the encodings and errors every table shares
//	                   (no table's SQL)
//
// store/rpmdb reads a scanned image's rpmdb.sqlite. Nothing under store/
// imports store, and the subpackages import one another downward only
// (findings over scans, everything over sqlbase); the tree imports only
// finding of scand's packages.
package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"scand/store/audit"
	"scand/store/excerpts"
	"scand/store/findings"
	"scand/store/reevals"
	"scand/store/scans"
	"scand/store/scratch"
	"scand/store/sqlbase"
	"scand/store/targets"
	vexdb "scand/store/vex"
	"scand/store/webhooks"
)

// ErrNotFound means the row a caller asked for does not exist.
var ErrNotFound = sqlbase.ErrNotFound

// ErrIncompatibleSchema means the database was written by a newer binary
// or its applied migrations were edited. Restarting cannot fix either, so
// main.go treats it as a configuration error (exit code 2).
var ErrIncompatibleSchema = errors.New("incompatible database schema")

// ErrConflict means the row exists but is in a state that forbids the
// change (for example deleting a running scan).
var ErrConflict = sqlbase.ErrConflict

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Store is scand's database handle. The table groups that live in
// subpackages of store/ are embedded: their methods are the Store's.
type Store struct {
	*scans.Table
	*findings.Reader
	*webhooks.Queue
	*audit.Log
	*targets.Targets
	*excerpts.Excerpts
	*vexdb.Statements
	*reevals.Runs

	// db serves reads; several connections read concurrently under WAL.
	db *sql.DB
	// w is the one writer connection. Every write queues for it in Go
	// instead of spinning on SQLite's busy handler, and the write
	// transactions are kept short, so no caller ever sees SQLITE_BUSY.
	w    *sql.DB
	now  func() time.Time
	path string
	// wake starts the background purger early (a scan was deleted,
	// cancelled or failed).
	wake chan struct{}
	// health records storage failures seen on any connection (readiness,
	// 507 on a full disk).
	health *sqlbase.Health
	// lookup is sqlbase.Pools.Lookup: point reads beside an open stream.
	lookup *sql.DB
	// planVEX plans the VEX verdicts of a scan about to complete (SetVEXPlanner).
	planVEX func(ctx context.Context, sc Scan) VEXVerdicts
}

// VEXVerdicts are the verdicts VEX statements set: a document's as it
// is imported, the stored ones' on a scan about to complete.
type VEXVerdicts struct {
	Groups []VerdictGroup
	// Statements[i] is the statement Groups[i] comes from: its applied
	// count grows by how many findings the group set.
	Statements []int64
	// Audit, when not nil, is appended in the same transaction.
	Audit *audit.Record
}

// SetVEXPlanner sets the function that plans, right before each scan
// completes (daemon scans, imports, the CLI), the verdicts the stored VEX
// statements set on its findings. They are set in the transaction that
// completes the scan: a reader (a CI gate polling for completion) never
// sees the scan completed without them. Set it once, before use.
func (s *Store) SetVEXPlanner(fn func(ctx context.Context, sc Scan) VEXVerdicts) { s.planVEX = fn }

// Open opens (creating if needed) the SQLite file at path and applies
// pending migrations. now supplies every timestamp the store writes.
func Open(ctx context.Context, path string, now func() time.Time) (*Store, error) {
	return open(ctx, path, now, nil, nil)
}

// open is Open with extra per-connection pragmas (tests cap the page
// count to make SQLite report a full database) and migrations added to
// the embedded ones (tests add one that fails, or one from the future).
func open(ctx context.Context, path string, now func() time.Time, pragmas []string, extra []migration) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	p, err := sqlbase.Open(path, pragmas, now)
	if err != nil {
		return nil, err
	}
	db, w, health := p.Read, p.Write, p.Health
	s := &Store{Queue: webhooks.New(db, w, now), Log: audit.New(db, w, now), db: db, w: w, now: now, path: path, wake: make(chan struct{}, 1), health: health}
	s.Table = scans.New(db, w, now, s.wakePurger)
	s.Reader = findings.New(db, s.Table)
	s.lookup = p.Lookup
	s.Targets = targets.New(db, p.Lookup, w, now)
	s.Excerpts = excerpts.New(db, p.Lookup, w)
	s.Statements = vexdb.New(db, w, now)
	s.Runs = reevals.New(db, w, now)
	if err := s.open(ctx, extra); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) open(ctx context.Context, extra []migration) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	if len(extra) > 0 {
		ms = append(ms, extra...)
		sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	}
	// Refuse a newer or edited database before anything writes to it: the
	// vacuum below rewrites the whole file, and a migration would mix two
	// releases' schemas.
	applied, err := s.appliedMigrations(ctx, s.db)
	if err != nil {
		return err
	}
	if err := checkApplied(applied, ms); err != nil {
		return err
	}
	if pending(applied, ms) {
		if err := s.migrate(ctx, ms); err != nil {
			return err
		}
	}
	if err := s.ensureIncrementalVacuum(ctx); err != nil {
		return err
	}
	scratch.RemoveStale(s.path)
	if err := s.backfill(ctx); err != nil {
		return err
	}
	return s.RecoverSightings(ctx)
}

// ensureIncrementalVacuum makes freed pages return to the file system. A
// database created by an older release has auto_vacuum off, which only a
// full VACUUM can change: that runs once, at startup, after the schema
// check and the migrations and before anything else uses the file.
func (s *Store) ensureIncrementalVacuum(ctx context.Context) error {
	var mode int
	if err := s.w.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil {
		return fmt.Errorf("read auto_vacuum: %w", err)
	}
	const incremental = 2
	if mode == incremental {
		return nil
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
		return fmt.Errorf("set auto_vacuum: %w", err)
	}
	if _, err := s.w.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("convert the database to incremental auto-vacuum: %w", err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return errors.Join(s.db.Close(), s.lookup.Close(), s.w.Close()) }

// Ping proves the database is openable and answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	return s.db.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n)
}

type migration struct {
	version  int
	name     string
	body     string
	checksum string
}

func newMigration(version int, name, body string) migration {
	sum := sha256.Sum256([]byte(body))
	return migration{version: version, name: name, body: body, checksum: hex.EncodeToString(sum[:])}
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration %q: name must be NNNN_description.sql", name)
		}
		body, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, newMigration(v, name, string(body)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	// Versions are unique and positive but may have gaps: features on
	// separate branches reserve their numbers (0002 scale, 0003 schedules,
	// ...) and a branch is built without the others' files.
	for i, m := range out {
		if m.version < 1 || (i > 0 && m.version == out[i-1].version) {
			return nil, fmt.Errorf("migration %s: versions must be unique and start at 1", m.name)
		}
	}
	return out, nil
}

// SchemaVersion is the newest schema this binary knows: the version of
// its last embedded migration.
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// DatabaseSchemaVersion is the newest migration recorded in the database.
func (s *Store) DatabaseSchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v)
	return v, err
}

// queryer is a connection pool or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// appliedMigrations reads the recorded migrations (version -> checksum)
// without writing: an empty map for a new database.
func (s *Store) appliedMigrations(ctx context.Context, q queryer) (map[int]string, error) {
	applied := map[int]string{}
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").Scan(&n); err != nil {
		return nil, fmt.Errorf("read the database schema: %w", err)
	}
	if n == 0 {
		return applied, nil
	}
	rows, err := q.QueryContext(ctx, "SELECT version, checksum FROM schema_migrations")
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			return nil, err
		}
		applied[v] = sum
	}
	return applied, rows.Err()
}

// checkApplied refuses a database that is newer than this binary or whose
// applied migrations were edited: running on either would silently
// corrupt data.
func checkApplied(applied map[int]string, ms []migration) error {
	known := map[int]migration{}
	latest := 0
	for _, m := range ms {
		known[m.version] = m
		latest = max(latest, m.version)
	}
	newest := 0
	for v := range applied {
		newest = max(newest, v)
	}
	if newest > latest {
		return fmt.Errorf("%w: database schema version %d is newer than this binary (knows up to %d): refusing to start; "+
			"run the newer release, or restore a backup taken before the upgrade", ErrIncompatibleSchema, newest, latest)
	}
	for v, sum := range applied {
		m, ok := known[v]
		if !ok {
			return fmt.Errorf("%w: database has schema migration %d, which this binary does not have: refusing to start", ErrIncompatibleSchema, v)
		}
		if sum != m.checksum {
			return fmt.Errorf("%w: applied migration %s was edited (checksum %s, binary has %s): refusing to start", ErrIncompatibleSchema, m.name, sum, m.checksum)
		}
	}
	return nil
}

// pending reports whether a migration of ms is not applied yet.
func pending(applied map[int]string, ms []migration) bool {
	for _, m := range ms {
		if _, ok := applied[m.version]; !ok {
			return true
		}
	}
	return false
}

// migrate applies every pending migration in one transaction: when one
// fails, none of them stays applied and the database is as it was, so
// the previous release still opens it.
func (s *Store) migrate(ctx context.Context, ms []migration) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		// Read again under the write lock: another process may have
		// migrated between the check and this transaction.
		applied, err := s.appliedMigrations(ctx, tx)
		if err != nil {
			return err
		}
		if err := checkApplied(applied, ms); err != nil {
			return err
		}
		for _, m := range ms {
			if _, ok := applied[m.version]; ok {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.body); err != nil {
				return fmt.Errorf("apply migration %s: %w (no migration of this start was applied; the database is unchanged)", m.name, err)
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
				m.version, m.name, m.checksum, sqlbase.FormatTime(s.now())); err != nil {
				return err
			}
		}
		return nil
	})
}

// inTx runs fn in a write transaction on the writer connection.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return sqlbase.InTx(ctx, s.w, fn)
}

// NewID returns an RFC 9562 version 7 UUID: a millisecond timestamp then
// random bits. Time-ordered ids make index inserts append instead of
// touching random pages, which matters for 100k-finding scans.
func NewID() string { return sqlbase.NewID() }

// LockedError means another process holds the database's lock file.
type LockedError = sqlbase.LockedError

// DBLock is the exclusive lock on a database, held for the life of the
// process that runs migrations, restart recovery and scans over it.
type DBLock = sqlbase.DBLock

// ErrLockLost means the database's lock file was removed or replaced
// and could not be locked again (DBLock.Check).
var ErrLockLost = sqlbase.ErrLockLost

// LockPath is the lock file beside the database (sqlbase.LockPath).
func LockPath(db string) (string, error) { return sqlbase.LockPath(db) }

// Lock takes the database's lock file (sqlbase.Lock); a second process
// gets a *LockedError naming the holder.
func Lock(db string) (*DBLock, error) { return sqlbase.Lock(db) }

// OrderedAgesOfScan reads the sightings of scan sc's findings past ord
// after, for a read of its rows in canonical order (targets.OrderedAges;
// nil when the scan has no target), its scratch file beside the database.
func (s *Store) OrderedAgesOfScan(ctx context.Context, sc Scan, after int) (*targets.OrderedAges, error) {
	return s.Targets.OrderedAgesOf(ctx, s.path, sc.Seq, int64(after))
}

// SpoolExcerpts opens the excerpt spool of scan scanSeq, its scratch file
// beside the database like an ingest's.
func (s *Store) SpoolExcerpts(ctx context.Context, scanSeq int64) (*excerpts.Spool, error) {
	return s.Excerpts.NewSpool(ctx, s.path, scanSeq)
}
