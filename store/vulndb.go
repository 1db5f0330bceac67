package store

import (
	"context"
	"database/sql"

	"scand/finding/report"
	"scand/store/sqlbase"
)

// ScanDataSource is one offline database a scan's scanners read, as it
// was when the scan ran: what the report writers show, stored.
type ScanDataSource = report.ScanDataSource

// SetScanDataSources records the databases a scan used, replacing what
// was recorded for it before.
func (s *Store) SetScanDataSources(ctx context.Context, scanID string, sources []ScanDataSource) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM scan_data_sources WHERE scan_id = ?", scanID); err != nil {
		return err
	}
	for _, d := range sources {
		var built sql.NullString
		if d.BuiltAt != nil {
			built = sql.NullString{String: sqlbase.FormatTime(*d.BuiltAt), Valid: true}
		}
		var age sql.NullFloat64
		if d.AgeDays != nil {
			age = sql.NullFloat64{Float64: *d.AgeDays, Valid: true}
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO scan_data_sources
			(scan_id, name, tool, path, source, built_at, age_days, stale, warning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			scanID, d.Name, d.Tool, d.Path, d.Source, built, age, d.Stale, d.Warning); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// ScanDataSources returns what SetScanDataSources recorded for a scan, by
// name; an empty slice for a scan that used no offline database.
func (s *Store) ScanDataSources(ctx context.Context, scanID string) ([]ScanDataSource, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, tool, path, source, built_at, age_days, stale, warning
		FROM scan_data_sources WHERE scan_id = ? ORDER BY name`, scanID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ScanDataSource{}
	for rows.Next() {
		var d ScanDataSource
		var built sql.NullString
		var age sql.NullFloat64
		if err := rows.Scan(&d.Name, &d.Tool, &d.Path, &d.Source, &built, &age, &d.Stale, &d.Warning); err != nil {
			return nil, err
		}
		d.BuiltAt = sqlbase.ParseNullTime(built)
		if age.Valid {
			a := age.Float64
			d.AgeDays = &a
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
