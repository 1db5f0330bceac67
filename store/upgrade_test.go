package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fileSum is the sha256 of a file, "" when it does not exist.
func fileSum(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// rawExec runs statements on a database behind the store's back.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestOpenRefusesNewerDatabaseUntouched: a database a newer binary
// migrated (a migration from the future is recorded) is refused with both
// versions named, and the file is byte for byte what it was, although it
// has auto_vacuum off, which makes Open rewrite the whole file (VACUUM)
// when it accepts a database.
func TestOpenRefusesNewerDatabaseUntouched(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scand.db")
	s, err := Open(ctx, path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, APIKey{ID: "kept", Name: "kept", Prefix: "p", Hash: "h", Scopes: []string{"read"}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	rawExec(t, path, "PRAGMA auto_vacuum = NONE", "VACUUM",
		"INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, '9999_future.sql', 'x', '2030-01-01T00:00:00.000000Z')")
	before, beforeWAL := fileSum(t, path), fileSum(t, path+"-wal")

	s, err = Open(ctx, path, time.Now)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a database from the future")
	}
	latest := SchemaVersion()
	if !errors.Is(err, ErrIncompatibleSchema) || !strings.Contains(err.Error(), "9999") ||
		!strings.Contains(err.Error(), fmt.Sprint(latest)) || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("error %q must be ErrIncompatibleSchema naming 9999 and %d", err, latest)
	}
	if after := fileSum(t, path); after != before {
		t.Fatalf("refused database changed: sha256 %s before, %s after", before, after)
	}
	if after := fileSum(t, path+"-wal"); after != beforeWAL && after != "" {
		t.Fatalf("refused database's WAL gained frames: %s before, %s after", beforeWAL, after)
	}
}

// TestFailedMigrationLeavesDatabaseAsItWas adds two migrations to the
// embedded ones, the second of which fails: neither stays applied, the
// file is unchanged, and the database opens again with its data.
func TestFailedMigrationLeavesDatabaseAsItWas(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scand.db")
	s, err := Open(ctx, path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.CreateAPIKey(ctx, APIKey{ID: "kept", Name: "kept", Prefix: "p", Hash: "h", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := fileSum(t, path)

	extra := []migration{
		newMigration(9001, "9001_good.sql", "CREATE TABLE upgrade_probe (x INTEGER); ALTER TABLE api_keys ADD COLUMN upgrade_probe TEXT;"),
		newMigration(9002, "9002_bad.sql", "INSERT INTO no_such_table VALUES (1);"),
	}
	s, err = open(ctx, path, time.Now, nil, extra)
	if err == nil {
		s.Close()
		t.Fatal("a failing migration was accepted")
	}
	if !strings.Contains(err.Error(), "9002_bad.sql") || !strings.Contains(err.Error(), "unchanged") {
		t.Fatalf("error %q must name the failing migration and say the database is unchanged", err)
	}
	if after := fileSum(t, path); after != before {
		t.Fatalf("database file changed by a failed migration: %s before, %s after", before, after)
	}
	s = openTestStoreAt(t, path, &storeClock{t: time.Now()})
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version >= 9000").Scan(&n); err != nil || n != 0 {
		t.Fatalf("migrations from the failed start recorded: %d (%v)", n, err)
	}
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'upgrade_probe'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the good migration of the failed start left its table: %d (%v)", n, err)
	}
	if _, err := s.db.ExecContext(ctx, "SELECT upgrade_probe FROM api_keys"); err == nil {
		t.Fatal("the good migration of the failed start left its column")
	}
	keys, err := s.APIKeys(ctx)
	if err != nil || len(keys) != 1 || keys[0].ID != key.ID {
		t.Fatalf("keys after the failed migration: %+v (%v), want the one key %s", keys, err, key.ID)
	}
}

// fixtureTables are the tables of the previous release's schema whose
// rows must all survive an upgrade. The old "targets" table is not one:
// it was an aggregate of scans that 0016 replaces with target records,
// checked apart (every scan gets a target).
var fixtureTables = []string{"scans", "findings", "finding_fps", "finding_texts", "triage_states", "triage_history",
	"finding_comments", "api_keys", "webhooks", "webhook_deliveries", "schedules", "schedule_runs",
	"scan_status_counts", "scan_data_sources", "scan_targets", "tagsets", "tagset_tags", "finding_counts"}

// tableRows reads every row of table (its columns as of the old schema,
// in rowid or primary key order) as text.
func tableRows(t *testing.T, db *sql.DB, table string, cols []string) []string {
	t.Helper()
	q := "SELECT " + strings.Join(cols, ", ") + " FROM " + table + " ORDER BY " + strings.Join(cols, ", ")
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%q", vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func columns(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		t.Fatalf("fixture has no table %s", table)
	}
	return cols
}

// TestUpgradeFromPreviousRelease opens a copy of a database the previous
// release wrote (testdata/upgrade/make-fixture.sh says how it was made):
// every row of every table of the old schema is still there after the
// upgrade, column for column, and the schema is this binary's.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "upgrade", "scand-0.11.0-805e91b.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scand.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	old, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	before := map[string][]string{}
	cols := map[string][]string{}
	for _, table := range fixtureTables {
		cols[table] = columns(t, old, table)
		before[table] = tableRows(t, old, table, cols[table])
	}
	old.Close()
	for _, table := range []string{"scans", "findings", "triage_states", "finding_comments", "api_keys", "webhooks", "webhook_deliveries", "schedules"} {
		if len(before[table]) == 0 {
			t.Fatalf("fixture has no %s rows: it would prove nothing", table)
		}
	}

	s := openTestStoreAt(t, path, &storeClock{t: time.Now()})
	v, err := s.DatabaseSchemaVersion(ctx)
	if err != nil || v != SchemaVersion() {
		t.Fatalf("schema version after the upgrade %d (%v), want %d", v, err, SchemaVersion())
	}
	for _, table := range fixtureTables {
		after := tableRows(t, s.db, table, cols[table])
		if strings.Join(after, "\n") != strings.Join(before[table], "\n") {
			t.Errorf("%s changed by the upgrade:\nbefore %d rows\n%s\nafter %d rows\n%s", table, len(before[table]),
				strings.Join(before[table], "\n"), len(after), strings.Join(after, "\n"))
		}
	}
	var orphans int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM scans WHERE target_id IS NULL").Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("%d scans without a target after the upgrade (%v)", orphans, err)
	}
	var ok string
	if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check after the upgrade: %q (%v)", ok, err)
	}
}
