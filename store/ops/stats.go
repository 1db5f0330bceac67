package ops

import (
	"context"
	"database/sql"
	"time"
)

// Stats are the stored aggregates /metrics reads at each scrape. Each
// query reads an index range bounded by what is waiting (pending scans,
// pending deliveries) or by the scans kept, never by the findings.
type Stats struct {
	// Scans counts visible scans by status and source (scan or import).
	Scans []ScanCount
	// QueuedScans is how many scans wait to run (status pending).
	QueuedScans int64
	// OldestQueued is when the longest-waiting pending scan was accepted;
	// zero when none waits.
	OldestQueued time.Time
	// PendingDeliveries counts webhook deliveries not yet succeeded or
	// given up (pending or being delivered).
	PendingDeliveries int64
	// OldestPendingDelivery is the oldest such delivery's creation time.
	OldestPendingDelivery time.Time
}

// ScanCount is one (status, source) pair's count of scans.
type ScanCount struct {
	Status, Source string
	N              int64
}

// ReadStats reads Stats; parse reads a stored timestamp.
func ReadStats(ctx context.Context, db *sql.DB, parse func(string) time.Time) (Stats, error) {
	var st Stats
	rows, err := db.QueryContext(ctx, "SELECT status, source, count(*) FROM scans WHERE hidden = 0 GROUP BY status, source")
	if err != nil {
		return st, err
	}
	for rows.Next() {
		var c ScanCount
		if err := rows.Scan(&c.Status, &c.Source, &c.N); err != nil {
			rows.Close()
			return st, err
		}
		st.Scans = append(st.Scans, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, err
	}
	var oldest sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT count(*), min(started_at) FROM scans WHERE status = 'pending'").Scan(&st.QueuedScans, &oldest); err != nil {
		return st, err
	}
	if oldest.Valid {
		st.OldestQueued = parse(oldest.String)
	}
	oldest = sql.NullString{}
	if err := db.QueryRowContext(ctx, "SELECT count(*), min(created_at) FROM webhook_deliveries WHERE status IN ('pending', 'delivering')").
		Scan(&st.PendingDeliveries, &oldest); err != nil {
		return st, err
	}
	if oldest.Valid {
		st.OldestPendingDelivery = parse(oldest.String)
	}
	return st, nil
}
