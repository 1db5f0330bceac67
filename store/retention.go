package store

import (
	"context"
	"time"

	"scand/store/sqlbase"
)

// RetentionCandidates returns up to limit ids of completed scans that
// retention may delete, oldest first: those completed before cutoff (when
// cutoff is set, from SVC_RETENTION_DAYS) and those beyond their
// schedule's keep_last newest completed scans. The newest completed scan
// of each target (path, url, host) and set of scan types is never a
// candidate: it is what the target looks like now and the baseline of the
// next change alert.
func (s *Store) RetentionCandidates(ctx context.Context, cutoff *time.Time, limit int) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `WITH ranked AS (
			SELECT c.id, c.seq, c.completed_at, c.schedule_id,
				row_number() OVER (PARTITION BY c.target_path, c.target_url, c.target_host, c.types_key
					ORDER BY c.completed_at DESC, c.seq DESC) AS target_rank,
				row_number() OVER (PARTITION BY c.schedule_id ORDER BY c.completed_at DESC, c.seq DESC) AS schedule_rank
			FROM (SELECT s.*, `+scanTypesKey("s")+` AS types_key FROM scans s WHERE s.status = 'completed' AND s.hidden = 0) c
		)
		SELECT r.id FROM ranked r LEFT JOIN schedules sch ON sch.id = r.schedule_id
		WHERE r.target_rank > 1
			AND ((? IS NOT NULL AND r.completed_at < ?) OR (sch.keep_last > 0 AND r.schedule_rank > sch.keep_last))
		ORDER BY r.seq LIMIT ?`, sqlbase.NullTime(cutoff), sqlbase.NullTime(cutoff), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
