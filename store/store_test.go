package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// storeClock is a settable clock so stored timestamps are exact.
type storeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *storeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *storeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func openTestStoreAt(t *testing.T, path string, clock *storeClock) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, clock.Now)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenAppliesEmbeddedMigrationsOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scand.db")
	clock := &storeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s := openTestStoreAt(t, path, clock)
	want, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("no embedded migrations")
	}
	for i := 0; i < 2; i++ {
		rows, err := s.db.QueryContext(ctx, "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
		if err != nil {
			t.Fatal(err)
		}
		var got []migration
		for rows.Next() {
			var m migration
			var applied string
			if err := rows.Scan(&m.version, &m.name, &m.checksum, &applied); err != nil {
				t.Fatal(err)
			}
			if applied != "2026-01-02T03:04:05.000000Z" {
				t.Errorf("applied_at = %q, want the store clock's time", applied)
			}
			got = append(got, m)
		}
		rows.Close()
		if len(got) != len(want) {
			t.Fatalf("round %d: %d migrations recorded, want %d", i, len(got), len(want))
		}
		for j, m := range want {
			body, _ := migrationFiles.ReadFile("migrations/" + m.name)
			sum := sha256.Sum256(body)
			if got[j].version != m.version || got[j].name != m.name || got[j].checksum != hex.EncodeToString(sum[:]) {
				t.Fatalf("recorded %+v, want version %d name %s sha256 of the file", got[j], m.version, m.name)
			}
		}
		// Reopening must be a no-op, not a second application.
		s.Close()
		clock.Set(clock.Now().Add(time.Hour))
		s = openTestStoreAt(t, path, clock)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestOpenRefusesIncompatibleDatabase(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		tamper string
		want   string
	}{
		{"newer schema version", "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, '9999_future.sql', 'x', '2030-01-01T00:00:00.000000Z')", "newer than this binary"},
		{"edited applied migration", "UPDATE schema_migrations SET checksum = '" + strings.Repeat("0", 64) + "' WHERE version = 1", "was edited"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "scand.db")
			clock := &storeClock{t: time.Now()}
			s, err := Open(ctx, path, clock.Now)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.ExecContext(ctx, c.tamper); err != nil {
				t.Fatal(err)
			}
			s.Close()
			s, err = Open(ctx, path, clock.Now)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the database")
			}
			if !errors.Is(err, ErrIncompatibleSchema) {
				t.Fatalf("error %q is not ErrIncompatibleSchema", err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refusing to start") {
				t.Fatalf("error %q does not say %q and refusing to start", err, c.want)
			}
		})
	}
}

// TestPragmasOnEveryConnection guards the DSN: foreign keys and the busy
// timeout are per connection in SQLite, so a pool that set them only on
// its first connection would silently lose cascades under load.
func TestPragmasOnEveryConnection(t *testing.T) {
	ctx := context.Background()
	s := openTestStoreAt(t, filepath.Join(t.TempDir(), "scand.db"), &storeClock{t: time.Now()})
	const n = 4
	for i := 0; i < n; i++ {
		conn, err := s.db.Conn(ctx) // held open, so each is a distinct connection
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var fk, busy int
		var journal string
		if err := conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journal); err != nil {
			t.Fatal(err)
		}
		if fk != 1 || busy < 1000 || journal != "wal" {
			t.Fatalf("connection %d: foreign_keys=%d busy_timeout=%d journal_mode=%s", i, fk, busy, journal)
		}
	}
}

func TestPingFailsOnClosedStore(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Ping(context.Background()); err == nil {
		t.Fatal("Ping succeeded on a closed store")
	}
}

func TestOpenFailsOnUnwritablePath(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "missing-dir", "scand.db"), nil)
	if err == nil {
		t.Fatal("Open succeeded in a directory that does not exist")
	}
}
