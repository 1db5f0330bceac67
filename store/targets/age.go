package targets

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"scand/store/sqlbase"
)

// ageBatch is how many fingerprints one write transaction of RecordSightings
// upserts: a few milliseconds of writer time, so a 100k-finding scan never
// holds the writer for long.
const ageBatch = 5000

// RecordSightings folds a completed scan's fingerprints into finding_age
// of its target: first_seen keeps the earliest completion time, last_seen
// the latest (min and max, so scans completing in any order agree). It
// walks the scan's finding_fps in fingerprint order in short write
// transactions and holds none of the scan in memory, then marks the scan
// aged. A scan that is not completed (or deleted meanwhile) is only
// marked. A scan another call is folding now is left to it.
func (s *Targets) RecordSightings(ctx context.Context, seq int64) error {
	if !s.claimAging(seq) {
		return nil
	}
	defer s.releaseAging(seq)
	var targetID sql.NullInt64
	var completed sql.NullString
	var status string
	err := s.w.QueryRowContext(ctx, "SELECT target_id, completed_at, status FROM scans WHERE seq = ?", seq).Scan(&targetID, &completed, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if status == "completed" && targetID.Valid && completed.Valid {
		last := ""
		for {
			var n int
			err := sqlbase.InTx(ctx, s.w, func(tx *sql.Tx) error {
				var hi sql.NullString
				if err := tx.QueryRowContext(ctx, `SELECT max(fingerprint), count(*) FROM (SELECT fingerprint FROM finding_fps
					WHERE scan_seq = ? AND fingerprint > ? ORDER BY fingerprint LIMIT ?)`, seq, last, ageBatch).Scan(&hi, &n); err != nil {
					return err
				}
				if n == 0 {
					return nil
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO finding_age (target_id, fingerprint, first_seen, last_seen)
					SELECT ?, fingerprint, ?, ? FROM finding_fps WHERE scan_seq = ? AND fingerprint > ? AND fingerprint <= ? GROUP BY fingerprint
					ON CONFLICT (target_id, fingerprint) DO UPDATE SET first_seen = min(first_seen, excluded.first_seen),
						last_seen = max(last_seen, excluded.last_seen)`,
					targetID.Int64, completed.String, completed.String, seq, last, hi.String); err != nil {
					return err
				}
				last = hi.String
				return nil
			})
			if err != nil {
				return err
			}
			if n < ageBatch {
				break
			}
		}
	}
	if targetID.Valid {
		if err := s.repairLatest(ctx, targetID.Int64, seq); err != nil {
			return err
		}
	}
	_, err = s.w.ExecContext(ctx, "UPDATE scans SET aged = 1 WHERE seq = ?", seq)
	return err
}

// claimAging reports whether the caller may fold scan seq's sightings
// (no other call is folding them), and if so records that it does.
func (s *Targets) claimAging(seq int64) bool {
	s.agingMu.Lock()
	defer s.agingMu.Unlock()
	if s.aging[seq] {
		return false
	}
	if s.aging == nil {
		s.aging = map[int64]bool{}
	}
	s.aging[seq] = true
	return true
}

func (s *Targets) releaseAging(seq int64) {
	s.agingMu.Lock()
	defer s.agingMu.Unlock()
	delete(s.aging, seq)
}

// repairLatest marks a target for the batched rewrite of its
// latest_findings when scan seq is its latest and the rows do not match
// the scan's findings (an older schema's backfill writes the rows of a
// scan already completed, after the trigger ran), then runs the rewrites
// due.
func (s *Targets) repairLatest(ctx context.Context, targetID, seq int64) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE targets SET latest_stale = 1 WHERE id = ?1 AND latest_seq = ?2
		AND (SELECT count(*) FROM latest_findings WHERE target_id = ?1)
			<> (SELECT count(*) FROM findings WHERE k BETWEEN ?2 << 32 AND (?2 << 32) + 4294967295)`, targetID, seq); err != nil {
		return err
	}
	return s.RefreshStaleLatest(ctx)
}

// latestBatch is how many latest_findings rows one write transaction of
// the batched rewrite removes or adds.
const latestBatch = 5000

// RefreshStaleLatest rewrites, in short write transactions, the
// latest_findings rows of every target marked latest_stale (migration
// 0022: its latest scan changed between large scans): rows of other
// scans go, the latest scan's rows come in canonical order, and the mark
// is cleared once the rows are those of the scan that is latest then.
// Readers skip rows of other scans meanwhile.
func (s *Targets) RefreshStaleLatest(ctx context.Context) error {
	rows, err := s.w.QueryContext(ctx, "SELECT id FROM targets WHERE latest_stale = 1 ORDER BY id")
	ids, err := sqlbase.Collect(rows, err, func(r sqlbase.Row) (int64, error) {
		var v int64
		return v, r.Scan(&v)
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		for done := false; !done; {
			err := sqlbase.InTx(ctx, s.w, func(tx *sql.Tx) error {
				var latest int64
				if err := tx.QueryRowContext(ctx, "SELECT coalesce(latest_seq, 0) FROM targets WHERE id = ?", id).Scan(&latest); err != nil {
					return err
				}
				lo, hi := latest<<32, latest<<32+(1<<32-1)
				// Two ranges of k, not "k NOT BETWEEN": that one reads every row
				// of the target in its index, the rows already rewritten too, in
				// each of a large scan's batches.
				for _, stale := range []string{
					"SELECT k FROM latest_findings WHERE target_id = ?1 AND k < ?2 ORDER BY k LIMIT ?4",
					"SELECT k FROM latest_findings WHERE target_id = ?1 AND k > ?3 ORDER BY k LIMIT ?4",
				} {
					if _, err := tx.ExecContext(ctx, "DELETE FROM latest_advisories WHERE k IN ("+stale+")", id, lo, hi, latestBatch); err != nil {
						return err
					}
					res, err := tx.ExecContext(ctx, "DELETE FROM latest_findings WHERE k IN ("+stale+")", id, lo, hi, latestBatch)
					if err != nil {
						return err
					}
					if n, _ := res.RowsAffected(); n > 0 {
						return nil
					}
				}
				var last int64
				if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(k), ?) FROM latest_findings WHERE target_id = ? AND k BETWEEN ? AND ?",
					lo-1, id, lo, hi).Scan(&last); err != nil {
					return err
				}
				// The batch's keys are picked first: given "k > last" beside the
				// view's own range on findings.k, SQLite seeks to the range's
				// start and steps over every row already copied, in each batch;
				// a list of keys is looked up one by one.
				res, err := tx.ExecContext(ctx, `INSERT INTO latest_findings SELECT * FROM latest_finding_rows
					WHERE target_id = ? AND k IN (SELECT k FROM findings WHERE k > ? AND k <= ? ORDER BY k LIMIT ?) ORDER BY k`,
					id, last, hi, latestBatch)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n > 0 {
					_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO latest_advisories
						SELECT * FROM latest_advisory_rows WHERE target_id = ? AND k > ?`, id, last)
					return err
				}
				done = true
				_, err = tx.ExecContext(ctx, "UPDATE targets SET latest_stale = 0 WHERE id = ?", id)
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// RecoverSightings records the sightings of every completed scan whose
// ingest stopped between completing it and aging it (a crash), and of
// scans whose findings were moved in by an older schema's backfill, then
// the batched latest_findings rewrites due (RefreshStaleLatest).
func (s *Targets) RecoverSightings(ctx context.Context) error {
	rows, err := s.w.QueryContext(ctx, "SELECT seq FROM scans WHERE aged = 0 AND status = 'completed' ORDER BY seq")
	seqs, err := sqlbase.Collect(rows, err, func(r sqlbase.Row) (int64, error) {
		var v int64
		return v, r.Scan(&v)
	})
	if err != nil {
		return err
	}
	for _, seq := range seqs {
		if err := s.RecordSightings(ctx, seq); err != nil {
			return err
		}
	}
	return s.RefreshStaleLatest(ctx)
}

// MarkUnaged makes RecoverSightings redo a scan (its fingerprints were
// rewritten).
func (s *Targets) MarkUnaged(ctx context.Context, seq int64) error {
	_, err := s.w.ExecContext(ctx, "UPDATE scans SET aged = 0 WHERE seq = ?", seq)
	return err
}

// Age is a fingerprint's first and last sighting on one target.
type Age struct {
	FirstSeen, LastSeen time.Time
}

// AgesOf returns the ages of fingerprints on one target, by fingerprint;
// a fingerprint never recorded there is absent. It reads through the
// lookup pool, so a caller may hold an open stream of findings.
func (s *Targets) AgesOf(ctx context.Context, targetID int64, fingerprints []string) (map[string]Age, error) {
	out := map[string]Age{}
	for len(fingerprints) > 0 {
		n := min(len(fingerprints), 500)
		args := append([]any{targetID}, sqlbase.AnySlice(fingerprints[:n])...)
		fingerprints = fingerprints[n:]
		rows, err := s.lookup.QueryContext(ctx, "SELECT fingerprint, first_seen, last_seen FROM finding_age WHERE target_id = ? AND fingerprint IN ("+
			sqlbase.Placeholders(n)+")", args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var fp, first, last string
			if err := rows.Scan(&fp, &first, &last); err != nil {
				rows.Close()
				return nil, err
			}
			out[fp] = Age{FirstSeen: sqlbase.ParseTime(first), LastSeen: sqlbase.ParseTime(last)}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AgesOfScan is AgesOf for the target of scan scanID.
func (s *Targets) AgesOfScan(ctx context.Context, scanID string, fingerprints []string) (map[string]Age, error) {
	var targetID sql.NullInt64
	err := s.lookup.QueryRowContext(ctx, "SELECT target_id FROM scans WHERE id = ?", scanID).Scan(&targetID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !targetID.Valid) {
		return map[string]Age{}, nil
	}
	if err != nil {
		return nil, err
	}
	return s.AgesOf(ctx, targetID.Int64, fingerprints)
}
