package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/store/sqlbase"
)

// fullStore opens a migrated database whose connections may grow it by
// only spare pages, so SQLite itself answers SQLITE_FULL: the same error a
// full disk gives, without needing one.
func fullStore(t *testing.T, clock *storeClock, spare int) *Store {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scand.db")
	s, err := Open(ctx, path, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = open(ctx, path, clock.Now, []string{fmt.Sprintf("max_page_count(%d)", pages+spare)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestWriteHealthFollowsAFullDatabase(t *testing.T) {
	ctx := context.Background()
	clock := &storeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s := fullStore(t, clock, 60)
	if _, err := s.CreateAPIKey(ctx, APIKey{ID: "k1", Name: "n", Prefix: "p", Hash: "h", Scopes: []string{"read"}}); err != nil {
		t.Fatal(err)
	}
	if st := s.WriteHealth(ctx); !st.OK() {
		t.Fatalf("fresh store not writable: %+v", st)
	}

	// Fill it: 8 KiB comments until SQLite refuses.
	text := strings.Repeat("x", 8<<10)
	var ids []string
	var fillErr error
	for i := 0; i < 1000 && fillErr == nil; i++ {
		var c Comment
		c, fillErr = s.AddComment(ctx, Comment{Fingerprint: "fp", Text: text, Author: "t"})
		if fillErr == nil {
			ids = append(ids, c.ID)
		}
	}
	if fillErr == nil || !IsDiskFull(fillErr) {
		t.Fatalf("filling the database ended with %v, want SQLITE_FULL", fillErr)
	}
	if len(ids) == 0 {
		t.Fatal("not a single comment fitted: the test proves nothing")
	}
	// The failing insert alone marks the store unwritable, before any probe.
	seen := s.health.Known()
	if seen.Kind != "disk_full" || seen.Detail == "" {
		t.Fatalf("after SQLITE_FULL the store remembers %+v, want disk_full with a detail", seen)
	}
	// A small in-place write still fits; it must not make the store look
	// writable while inserts fail.
	if err := s.TouchAPIKey(ctx, "k1"); err != nil {
		t.Fatalf("in-place update on a full database: %v", err)
	}
	clock.Set(clock.Now().Add(2 * sqlbase.RetryInterval))
	st := s.WriteHealth(ctx)
	if st.OK() || st.Kind != "disk_full" || !strings.Contains(st.Detail, "full") {
		t.Fatalf("full database reports %+v, want disk_full", st)
	}

	// Free space: delete what filled it. The next probe clears the state.
	for _, id := range ids {
		if err := s.DeleteComment(ctx, "fp", id); err != nil {
			t.Fatal(err)
		}
	}
	if st := s.WriteHealth(ctx); st.OK() {
		t.Fatal("recovered before the retry interval: the probe is not rate-limited")
	}
	clock.Set(clock.Now().Add(2 * sqlbase.RetryInterval))
	if st := s.WriteHealth(ctx); !st.OK() {
		t.Fatalf("after freeing space the store reports %+v, want writable", st)
	}
	if _, err := s.AddComment(ctx, Comment{Fingerprint: "fp", Text: text, Author: "t"}); err != nil {
		t.Fatalf("write after recovery: %v", err)
	}
	// The probe leaves no trace.
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = 0").Scan(&n); err != nil || n != 0 {
		t.Fatalf("probe rows left behind: %d, %v", n, err)
	}
}

// TestWriteHealthReadOnlyDatabase uses query_only rather than file modes,
// which root (CI) writes through anyway; SQLite answers SQLITE_READONLY
// either way.
func TestWriteHealthReadOnlyDatabase(t *testing.T) {
	ctx := context.Background()
	clock := &storeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	path := filepath.Join(t.TempDir(), "scand.db")
	s, err := Open(ctx, path, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := open(ctx, path, clock.Now, []string{"query_only(1)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	st := ro.WriteHealth(ctx)
	if st.OK() || st.Kind != "read_only" {
		t.Fatalf("read-only database reports %+v, want read_only", st)
	}
}

// TestWriteProbeCommitsThroughTheWAL: the probe's last step is a real
// commit (a WAL frame), yet it changes nothing a reader can see.
func TestWriteProbeCommitsThroughTheWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "scand.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var before, after int
	s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&before)
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	if err := s.probeWrite(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path + "-wal")
	if err != nil || st.Size() == 0 {
		t.Fatalf("the probe wrote nothing to the WAL (%v, %v)", st, err)
	}
	s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&after)
	if after != before {
		t.Fatalf("user_version %d after the probe, was %d", after, before)
	}
}
