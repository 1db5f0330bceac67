package store

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A scratch database is a private SQLite file an ingest uses as an
// external sorter: findings go in as they arrive, come out deduplicated
// and in canonical order, and the file is deleted afterwards. SQLite's
// sorter spills to disk, so ordering a million findings needs a bounded
// amount of memory, and the scratch file has no journal, no fsync and no
// other user, so filling it never touches the daemon's write lock.

// scratchPrefix starts every scratch file name, beside the database so it
// lives on the same file system (and in the same protection) as the data.
func (s *Store) scratchPattern() (dir, prefix string) {
	if s.path == "" || s.path == ":memory:" || strings.HasPrefix(s.path, "file:") {
		return os.TempDir(), "scand-ingest-"
	}
	return filepath.Dir(s.path), "." + filepath.Base(s.path) + ".ingest-"
}

type scratch struct {
	db   *sql.DB
	path string
}

func (s *Store) openScratch() (*scratch, error) {
	dir, prefix := s.scratchPattern()
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
	return &scratch{db: db, path: p}, nil
}

func (sc *scratch) close() {
	if sc == nil {
		return
	}
	sc.db.Close()
	os.Remove(sc.path)
}

// removeStaleScratch deletes scratch files a crash left behind. A live
// ingest writes its file continuously, so only files untouched for a
// while go: another process that opens the same database (the CLI, a
// backup script) must not pull a running daemon's scratch away.
func (s *Store) removeStaleScratch() {
	dir, prefix := s.scratchPattern()
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
