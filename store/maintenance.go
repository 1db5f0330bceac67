package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"scand/finding"
	"scand/store/findingjson"
	"scand/store/findings"
	"scand/store/scans"
	"scand/store/scratch"
	"scand/store/sqlbase"
)

// Background upkeep: the findings of deleted, cancelled and failed scans
// are removed in short batches, freed pages go back to the file system
// (auto_vacuum = INCREMENTAL, set at Open) and the WAL is checkpointed, so
// the database file shrinks back after a large scan is deleted and the WAL
// never grows without bound.

// Batches aim at purgeTargetTx per write transaction, so other writers
// wait at most about that long for the single writer connection.
const (
	purgeTargetTx   = 80 * time.Millisecond
	purgeFirstBatch = 2000
	purgeMaxBatch   = 50000
	vacuumPages     = 4096
	// purgeVacuumAt is the free-page count at which a purge gives space
	// back between its batches.
	purgeVacuumAt = 4096
	// MaintenanceInterval is how often RunMaintenance looks for work
	// without being woken.
	MaintenanceInterval = time.Minute
)

func (s *Store) wakePurger() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// RunMaintenance runs the background upkeep until ctx ends. Errors are
// reported through logf (nil: dropped) and retried on the next round.
func (s *Store) RunMaintenance(ctx context.Context, interval time.Duration, logf func(msg string, err error)) {
	if interval <= 0 {
		interval = MaintenanceInterval
	}
	if logf == nil {
		logf = func(string, error) {}
	}
	ctx = sqlbase.FreeingSpace(ctx)
	t := time.NewTicker(interval)
	defer t.Stop()
	go s.checkpointLoop(ctx, time.Second, logf)
	batch := purgeFirstBatch
	for {
		for ctx.Err() == nil {
			more, err := s.purgeStep(ctx, &batch)
			if err == nil && more {
				// Give space back while purging, not only after: a large
				// scan's pages are freed a batch at a time.
				err = s.vacuumStep(ctx, purgeVacuumAt)
			}
			if err != nil {
				if ctx.Err() == nil {
					logf("purge of deleted findings failed", err)
				}
				break
			}
			if !more {
				break
			}
		}
		if err := s.RecoverSightings(ctx); err != nil && ctx.Err() == nil {
			logf("recording finding age failed", err)
		}
		if err := s.reclaim(ctx); err != nil && ctx.Err() == nil {
			logf("space reclaim failed", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

// checkpointLoop copies the WAL back into the database every period from
// a reader connection. A PASSIVE checkpoint takes no write lock and waits
// for nobody, so writers keep writing while it runs; done here, it keeps
// the WAL short without a writer paying for it at commit.
func (s *Store) checkpointLoop(ctx context.Context, period time.Duration, logf func(string, error)) {
	t := time.NewTicker(period)
	defer t.Stop()
	var lastLog, lastDone int64 = -1, -1
	quiet := 0 // periods since the WAL last changed
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var busy, walFrames, checkpointed int64
		if err := s.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &walFrames, &checkpointed); err != nil {
			if ctx.Err() == nil {
				logf("WAL checkpoint failed", err)
			}
			continue
		}
		if walFrames != lastLog || checkpointed != lastDone {
			lastLog, lastDone, quiet = walFrames, checkpointed, 0
			continue
		}
		quiet++
		if quiet == int(idleRelease/period) {
			s.releaseMemory(ctx)
		}
	}
}

// idleRelease is how long the database must go unwritten before the
// daemon gives back the memory a burst of work left behind.
const idleRelease = 30 * time.Second

// releaseMemory returns the page caches and the Go heap a large ingest or
// export grew to the operating system: otherwise an idle daemon keeps
// ~100 MB after a 100k-finding scan, until the connections are closed.
// The caches refill from the OS page cache when work comes back.
func (s *Store) releaseMemory(ctx context.Context) {
	_, _ = s.w.ExecContext(ctx, "PRAGMA shrink_memory")
	_, _ = s.db.ExecContext(ctx, "PRAGMA shrink_memory")
	debug.FreeOSMemory()
}

// Purge removes every pending purge at once; tests and the CLI use it,
// the daemon runs RunMaintenance.
func (s *Store) Purge(ctx context.Context) error {
	batch := purgeFirstBatch
	for {
		more, err := s.purgeStep(ctx, &batch)
		if err != nil || !more {
			return err
		}
	}
}

// purgeStep deletes one batch of the oldest pending purge and reports
// whether work remains.
func (s *Store) purgeStep(ctx context.Context, batch *int) (bool, error) {
	var seq int64
	var hidden int
	err := s.w.QueryRowContext(ctx, "SELECT seq, hidden FROM scans WHERE purge = 1 ORDER BY seq LIMIT 1").Scan(&seq, &hidden)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	start := time.Now()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		// Rows go newest first (the fingerprint index, written last, then
		// findings from the highest key down): a scan's rows were appended,
		// so the pages freed first are the file's last ones, and giving
		// them back is a truncation instead of moving live pages.
		var first sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT min(fingerprint) FROM (SELECT fingerprint FROM finding_fps WHERE scan_seq = ?
			ORDER BY fingerprint DESC LIMIT ?)`, seq, *batch).Scan(&first); err != nil {
			return err
		}
		if first.Valid {
			_, err := tx.ExecContext(ctx, "DELETE FROM finding_fps WHERE scan_seq = ? AND fingerprint >= ?", seq, first.String)
			return err
		}
		lo, hi := findings.Key(seq, 0), findings.Key(seq, 0xffffffff)
		var from sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT min(k) FROM (SELECT k FROM findings NOT INDEXED WHERE k BETWEEN ? AND ? ORDER BY k DESC LIMIT ?)`,
			lo, hi, *batch).Scan(&from); err != nil {
			return err
		}
		if from.Valid {
			_, err := tx.ExecContext(ctx, "DELETE FROM findings WHERE k BETWEEN ? AND ?", from.Int64, hi)
			return err
		}
		for _, q := range []string{"DELETE FROM finding_counts WHERE scan_seq = ?", "DELETE FROM finding_blocks WHERE scan_seq = ?",
			"DELETE FROM finding_rules WHERE scan_seq = ?", "DELETE FROM finding_texts WHERE scan_seq = ?", "DELETE FROM finding_excerpts WHERE scan_seq = ?"} {
			if _, err := tx.ExecContext(ctx, q, seq); err != nil {
				return err
			}
		}
		if hidden == 1 {
			_, err = tx.ExecContext(ctx, "DELETE FROM scans WHERE seq = ?", seq)
		} else {
			_, err = tx.ExecContext(ctx, "UPDATE scans SET purge = 0 WHERE seq = ?", seq)
		}
		return err
	})
	switch d := time.Since(start); {
	case d < purgeTargetTx/2 && *batch < purgeMaxBatch:
		*batch = min(*batch*2, purgeMaxBatch)
	case d > purgeTargetTx*2 && *batch > 100:
		*batch /= 2
	}
	return err == nil, err
}

// vacuumStep returns up to vacuumPages free pages to the file system when
// at least threshold pages are free.
func (s *Store) vacuumStep(ctx context.Context, threshold int) error {
	var free int
	if err := s.w.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
		return err
	}
	if free < max(threshold, 1) {
		return nil
	}
	_, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", min(free, vacuumPages)))
	return err
}

// reclaim returns free pages to the file system in bounded steps and
// checkpoints the WAL. PASSIVE checkpoints never wait for readers, so this
// never stalls a writer; journal_size_limit then cuts the WAL file back
// when it restarts.
func (s *Store) reclaim(ctx context.Context) error {
	for ctx.Err() == nil {
		var free int
		if err := s.w.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
			return err
		}
		if free == 0 {
			break
		}
		if _, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA incremental_vacuum(%d)", min(free, vacuumPages))); err != nil {
			return err
		}
	}
	_, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	return err
}

// Reclaim runs one space-reclaim round now (tests, benchmarks).
func (s *Store) Reclaim(ctx context.Context) error { return s.reclaim(ctx) }

// backfill moves findings stored by the 0001 schema (findings_v1) into
// the current tables through the ingest writer, one scan at a time, then
// drops the old table. It runs once, inside Open, before anything reads.
func (s *Store) backfill(ctx context.Context) error {
	var n int
	if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'findings_v1'").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	rows, err := s.w.QueryContext(ctx, "SELECT DISTINCT scan_id FROM findings_v1")
	ids, err := sqlbase.Collect(rows, err, sqlbase.ScanString)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := s.backfillScan(ctx, id); err != nil {
			return fmt.Errorf("move the findings of scan %s to the 0002 schema: %w", id, err)
		}
	}
	_, err = s.w.ExecContext(ctx, "DROP TABLE findings_v1")
	return err
}

func (s *Store) backfillScan(ctx context.Context, id string) error {
	sc, err := scans.ScanRow(s.w.QueryRowContext(ctx, "SELECT "+scans.Columns+" FROM scans WHERE id = ?", id))
	if err != nil {
		return err
	}
	scr, err := scratch.Open(ctx, s.path)
	if err != nil {
		return err
	}
	defer scr.Close()
	sx, err := scr.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer sx.Rollback()
	w := s.newWriter(sc, writerBackfill, sx)
	defer w.closeScratchStmts()
	// Read in pages: the writer needs the writer connection between them.
	last := -1
	for {
		rows, err := s.w.QueryContext(ctx, "SELECT ord, body FROM findings_v1 WHERE scan_id = ? AND ord > ? ORDER BY ord LIMIT 5000", id, last)
		if err != nil {
			return err
		}
		var page []writeRow
		for rows.Next() {
			var body []byte
			if err := rows.Scan(&last, &body); err != nil {
				rows.Close()
				return err
			}
			r, err := backfillRow(body)
			if err != nil {
				rows.Close()
				return err
			}
			page = append(page, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		for _, r := range page {
			if err := w.add(ctx, r); err != nil {
				return err
			}
		}
	}
	if err := w.finish(ctx, flipMeta{}); err != nil {
		return err
	}
	// The findings are new rows of the current schema: Open ages them
	// after the backfill.
	return s.MarkUnaged(ctx, sc.Seq)
}

// backfillRow reads what the writer needs from a stored finding's JSON;
// the body itself is kept byte for byte.
func backfillRow(body []byte) (writeRow, error) {
	var f struct {
		Severity       string   `json:"severity"`
		Scanner        string   `json:"scanner"`
		ScanType       string   `json:"scan_type"`
		RuleID         string   `json:"rule_id"`
		CWE            *string  `json:"cwe"`
		Fingerprint    string   `json:"fingerprint"`
		ComplianceTags []string `json:"compliance_tags"`
		Metadata       struct {
			SuppressedBy any `json:"suppressed_by"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &f); err != nil {
		return writeRow{}, err
	}
	tags, err := findingjson.TagsJSON(f.ComplianceTags)
	if err != nil {
		return writeRow{}, err
	}
	r := writeRow{f: findingjson.Fields{Severity: f.Severity, Scanner: f.Scanner, ScanType: f.ScanType, RuleID: f.RuleID, Fingerprint: f.Fingerprint},
		tags: tags, body: append([]byte(nil), body...)}
	if f.CWE != nil {
		r.f.CWE = finding.CWE(*f.CWE)
	}
	switch v := f.Metadata.SuppressedBy.(type) {
	case nil:
	case string:
		r.suppressed = v != ""
	default:
		r.suppressed = true
	}
	return r, nil
}
