package excerpts

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"

	"scand/finding/excerpt"
	"scand/store/scratch"
)

// spoolBatch is how many excerpts one insert into the scratch file, and
// one write transaction of Commit, carries.
const spoolBatch = 2000

// Spool collects a scan's excerpts in a scratch file while the scan cuts
// them, and Commit writes them in fingerprint order. Written as they came,
// each batch landed on random pages of finding_excerpts' key (a
// fingerprint is a hash) and every commit rewrote hundreds of pages: a
// million excerpts took longer than the scan. In key order the rows are
// appended. Add may be called from several goroutines; Commit and Close
// once, after the last Add.
type Spool struct {
	x    *Excerpts
	seq  int64
	file *scratch.File
	mu   sync.Mutex // one insert into the scratch file at a time

	// recent are the windows compressed last, by a hash of their
	// encoding: findings next to each other in a file, or in copies of
	// one file, often show the same window, and compressing it again is
	// most of what an excerpt costs.
	recentMu sync.Mutex
	seed     maphash.Seed
	recent   map[uint64]recentBody
}

type recentBody struct {
	raw  []byte
	hash int64
	body string
}

// recentBodies bounds Spool.recent (about 1 MB).
const recentBodies = 1024

// NewSpool opens a spool for scan scanSeq, its scratch file beside the
// database at dbPath.
func (x *Excerpts) NewSpool(ctx context.Context, dbPath string, scanSeq int64) (*Spool, error) {
	f, err := scratch.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	// A small page cache (it also bounds SQLite's sorter before it spills
	// to the file): the ingest's own scratch file is open beside it.
	if _, err := f.DB.ExecContext(ctx, "PRAGMA cache_size = -2048; CREATE TABLE excerpts (fp INTEGER NOT NULL, hash INTEGER NOT NULL, body TEXT NOT NULL)"); err != nil {
		f.Close()
		return nil, fmt.Errorf("excerpt spool: %w", err)
	}
	return &Spool{x: x, seq: scanSeq, file: f, seed: maphash.MakeSeed(), recent: map[uint64]recentBody{}}, nil
}

// encode compresses and hashes an item's window, or takes both from
// recent.
func (sp *Spool) encode(it Item) (storedRow, bool) {
	fp, ok := fpKey(it.Fingerprint)
	if !ok || it.Excerpt == nil {
		return storedRow{}, false
	}
	raw := excerpt.Encode(it.Excerpt)
	key := maphash.Bytes(sp.seed, raw)
	sp.recentMu.Lock()
	r, hit := sp.recent[key]
	sp.recentMu.Unlock()
	if hit && bytes.Equal(r.raw, raw) {
		return storedRow{FP: fp, Hash: r.hash, Body: r.body}, true
	}
	row := encodeRaw(fp, raw)
	sp.recentMu.Lock()
	if len(sp.recent) >= recentBodies {
		clear(sp.recent)
	}
	sp.recent[key] = recentBody{raw: raw, hash: row.Hash, body: row.Body}
	sp.recentMu.Unlock()
	return row, true
}

// Add encodes and compresses items on the caller's goroutine (so several
// scanner workers share the work) and keeps them in the scratch file.
func (sp *Spool) Add(ctx context.Context, items []Item) error {
	args := make([]any, 0, 3*len(items))
	for _, it := range items {
		if r, ok := sp.encode(it); ok {
			args = append(args, r.FP, r.Hash, r.Body)
		}
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for len(args) > 0 {
		n := min(len(args)/3, spoolBatch)
		q := "INSERT INTO excerpts (fp, hash, body) VALUES " + strings.TrimSuffix(strings.Repeat("(?,?,?),", n), ",")
		if _, err := sp.file.DB.ExecContext(ctx, q, args[:3*n]...); err != nil {
			return fmt.Errorf("excerpt spool: %w", err)
		}
		args = args[3*n:]
	}
	return nil
}

// Commit writes the spooled excerpts to the database in fingerprint order,
// in short write transactions of spoolBatch rows. SQLite's sorter orders
// them on disk, so a million excerpts need a bounded amount of memory. Of
// two excerpts of one finding the first spooled is kept.
func (sp *Spool) Commit(ctx context.Context) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	rows, err := sp.file.DB.QueryContext(ctx, "SELECT fp, hash, body FROM excerpts ORDER BY fp, rowid")
	if err != nil {
		return fmt.Errorf("excerpt spool: %w", err)
	}
	defer rows.Close()
	batch := make([]storedRow, 0, spoolBatch)
	for rows.Next() {
		var r storedRow
		if err := rows.Scan(&r.FP, &r.Hash, &r.Body); err != nil {
			return fmt.Errorf("excerpt spool: %w", err)
		}
		if batch = append(batch, r); len(batch) == spoolBatch {
			if err := sp.x.putRows(ctx, sp.seq, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("excerpt spool: %w", err)
	}
	return sp.x.putRows(ctx, sp.seq, batch)
}

// Close removes the scratch file.
func (sp *Spool) Close() { sp.file.Close() }
