package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBackupWhileWritingAndRestore takes a backup while another goroutine
// keeps committing rows: the backup verifies, holds a prefix of the
// writes (a snapshot, not a torn mix), and Restore puts it in place with
// the replaced file and its WAL kept aside.
func TestBackupWhileWritingAndRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "scand.db")
	s := openTestStoreAt(t, path, &storeClock{t: time.Now()})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.CreateAPIKey(ctx, APIKey{ID: fmt.Sprintf("k%06d", i), Name: "n", Prefix: "p", Hash: fmt.Sprint(i), Scopes: []string{"read"}}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	dest := filepath.Join(dir, "backup.db")
	sum, err := s.Backup(ctx, dest)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Integrity != "ok" || sum.SchemaVersion != SchemaVersion() || sum.Rows("api_keys") < 1 {
		t.Fatalf("backup summary %+v: want integrity ok, schema %d, some keys", sum, SchemaVersion())
	}
	if _, err := s.Backup(ctx, dest); !errors.Is(err, ErrBackupExists) {
		t.Fatalf("second backup to the same file: %v, want ErrBackupExists", err)
	}
	all, err := s.APIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(all)) <= sum.Rows("api_keys") {
		t.Logf("writer committed nothing after the snapshot (%d keys): the test still checks the snapshot", len(all))
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, ".backup.db.partial-*")); len(entries) != 0 {
		t.Fatalf("temporary files left: %v", entries)
	}
	s.Close()

	res, err := Restore(ctx, path, dest, ".before-restore-test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Aside != path+".before-restore-test" {
		t.Fatalf("aside %q", res.Aside)
	}
	if _, err := os.Stat(res.Aside); err != nil {
		t.Fatalf("replaced database not kept aside: %v", err)
	}
	r := openTestStoreAt(t, path, &storeClock{t: time.Now()})
	keys, err := r.APIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(keys)) != sum.Rows("api_keys") {
		t.Fatalf("restored database has %d keys, the backup said %d", len(keys), sum.Rows("api_keys"))
	}
	// A snapshot holds a prefix of the sequential writes: k000000 ... kN-1.
	byID := map[string]bool{}
	for _, k := range keys {
		byID[k.ID] = true
	}
	for j := range keys {
		if !byID[fmt.Sprintf("k%06d", j)] {
			t.Fatalf("restored keys are not a prefix of the writes: k%06d missing", j)
		}
	}
}

// TestVerifyBackupRefuses: what Restore must not put in place.
func TestVerifyBackupRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "junk.db")
	os.WriteFile(notDB, []byte(strings.Repeat("not sqlite ", 1000)), 0o600)
	if _, err := VerifyBackup(ctx, notDB); err == nil {
		t.Fatal("a file that is not SQLite verified")
	}
	future := filepath.Join(dir, "future.db")
	s, err := Open(ctx, future, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	rawExec(t, future, "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, '9999_future.sql', 'x', '2030-01-01T00:00:00.000000Z')")
	if _, err := VerifyBackup(ctx, future); !errors.Is(err, ErrIncompatibleSchema) {
		t.Fatalf("a backup from a newer release: %v, want ErrIncompatibleSchema", err)
	}
	live := filepath.Join(dir, "live.db")
	s, err = Open(ctx, live, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := fileSum(t, live)
	if _, err := Restore(ctx, live, future, ".aside"); err == nil {
		t.Fatal("Restore put a newer release's database in place")
	}
	if fileSum(t, live) != before {
		t.Fatal("a refused restore changed the database")
	}
	if _, err := os.Stat(live + ".aside"); err == nil {
		t.Fatal("a refused restore moved the database aside")
	}
}
