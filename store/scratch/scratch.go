// Package scratch is the private SQLite file an ingest uses as an external
// sorter, and the compact records it keeps there: findings go in as they
// arrive, come out deduplicated and in canonical order, and the file is
// deleted afterwards. SQLite's sorter spills to disk, so ordering a
// million findings needs a bounded amount of memory, and the scratch file
// has no journal, no fsync and no other user, so filling it never touches
// the daemon's write lock.
package scratch

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite"
)

// Schema is the scratch file's tables: the findings as they arrive (raw),
// the files where Dedup can change something (hot) and their findings
// after it (deduped), and the fingerprint index records (fps).
const Schema = `CREATE TABLE raw (key BLOB NOT NULL, file_path TEXT NOT NULL, rec BLOB NOT NULL);
CREATE TABLE deduped (key BLOB NOT NULL, file_path TEXT NOT NULL, rec BLOB NOT NULL);
CREATE TABLE hot (file_path TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE fps (fingerprint TEXT NOT NULL, rec BLOB NOT NULL);`

// pattern names every scratch file beside the database, so it lives on
// the same file system (and in the same protection) as the data.
func pattern(dbPath string) (dir, prefix string) {
	if dbPath == "" || dbPath == ":memory:" || strings.HasPrefix(dbPath, "file:") {
		return os.TempDir(), "scand-ingest-"
	}
	return filepath.Dir(dbPath), "." + filepath.Base(dbPath) + ".ingest-"
}

// File is one open scratch file.
type File struct {
	DB   *sql.DB
	path string
}

// Open makes a new scratch file for the database at dbPath, with its
// tables (Schema).
func Open(ctx context.Context, dbPath string) (*File, error) {
	dir, prefix := pattern(dbPath)
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, prefix+hex.EncodeToString(b[:])+".tmp")
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create scratch file: %w", err)
	}
	f.Close()
	q := url.Values{}
	q.Add("_pragma", "journal_mode(OFF)")
	q.Add("_pragma", "synchronous(OFF)")
	q.Add("_pragma", "cache_size(-8192)")
	q.Add("_pragma", "temp_store(FILE)")
	db, err := sql.Open("sqlite", "file:"+p+"?"+q.Encode())
	if err != nil {
		os.Remove(p)
		return nil, err
	}
	// One connection: a transaction both reads a sorted cursor and writes
	// another table, and nothing else uses the file.
	db.SetMaxOpenConns(1)
	scr := &File{DB: db, path: p}
	if _, err := db.ExecContext(ctx, Schema); err != nil {
		scr.Close()
		return nil, fmt.Errorf("scratch schema: %w", err)
	}
	return scr, nil
}

// Close deletes the file; nil-safe.
func (sc *File) Close() {
	if sc == nil {
		return
	}
	sc.DB.Close()
	os.Remove(sc.path)
}

// RemoveStale deletes scratch files a crash left behind. A live
// ingest writes its file continuously, so only files untouched for a
// while go: another process that opens the same database (the CLI, a
// backup script) must not pull a running daemon's scratch away.
func RemoveStale(dbPath string) {
	dir, prefix := pattern(dbPath)
	if dir == os.TempDir() {
		return // shared directory: another process's files may be live
	}
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*.tmp"))
	for _, m := range matches {
		// File ages compare with the file system's clock, not the store's
		// (which tests and SVC_FAKE_NOW may pin).
		if info, err := os.Stat(m); err == nil && time.Since(info.ModTime()) > 10*time.Minute {
			os.Remove(m)
		}
	}
}

// CopyFrom opens a scratch file beside the database at dbPath and fills
// it from the database itself, attached read only as "live": create
// makes a table, fill (with args) writes it. The read is its own
// snapshot on the scratch file's connection, so it holds no connection
// of the daemon's pools, and the join, the sort and the copy run inside
// SQLite without a row crossing into Go. Close removes the file.
func CopyFrom(ctx context.Context, dbPath, create, fill string, args ...any) (*File, error) {
	f, err := Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	if err := f.copyFrom(ctx, dbPath, create, fill, args); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (sc *File) copyFrom(ctx context.Context, dbPath, create, fill string, args []any) error {
	conn, err := sc.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS live", readOnlyURI(dbPath)); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), "DETACH DATABASE live")
	if _, err := conn.ExecContext(ctx, create); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, fill, args...)
	return err
}

// readOnlyURI names the database file at path for a read-only ATTACH.
func readOnlyURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) + "?mode=ro"
}
