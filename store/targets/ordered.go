package targets

import (
	"context"
	"database/sql"
	"errors"

	"scand/store/scratch"
	"scand/store/sqlbase"
)

// OrderedAges are the sightings of one scan's findings, read in
// canonical order beside a stream of the scan's rows. AgesOf looks each
// fingerprint up in finding_age at a random place (a fingerprint is a
// hash): a million of them took half of an export's time. Here
// finding_fps and finding_age are read together in fingerprint order,
// each front to back, and a scratch file holds the result by ord.
type OrderedAges = scratch.Sorted[Age]

// OrderedAgesOf reads the ages of the findings of scan seq whose ord is
// above after into a scratch file beside the database at dbPath
// (scratch.CopyFrom: no pool connection is held, so a caller holding a
// stream of rows may call it); nil when the scan has no target. Close
// removes the file.
func (s *Targets) OrderedAgesOf(ctx context.Context, dbPath string, seq, after int64) (*OrderedAges, error) {
	var targetID sql.NullInt64
	err := s.lookup.QueryRowContext(ctx, "SELECT target_id FROM scans WHERE seq = ?", seq).Scan(&targetID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !targetID.Valid) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := scratch.CopyFrom(ctx, dbPath, "CREATE TABLE ages (ord INTEGER PRIMARY KEY, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL)",
		`INSERT INTO ages SELECT p.ord, a.first_seen, a.last_seen FROM live.finding_fps p
		JOIN live.finding_age a ON a.target_id = ? AND a.fingerprint = p.fingerprint
		WHERE p.scan_seq = ? AND p.ord > ? ORDER BY p.ord`, targetID.Int64, seq, after)
	if err != nil {
		return nil, err
	}
	return scratch.ReadSorted(ctx, f, "SELECT ord, first_seen, last_seen FROM ages ORDER BY ord", func(r *sql.Rows) (int64, Age, error) {
		var ord int64
		var first, last string
		err := r.Scan(&ord, &first, &last)
		return ord, Age{FirstSeen: sqlbase.ParseTime(first), LastSeen: sqlbase.ParseTime(last)}, err
	})
}
