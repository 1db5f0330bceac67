package store

import (
	"context"
	"database/sql"
	"errors"

	"scand/store/scans"
	"scand/store/sqlbase"
)

// ScanTarget is an image or repository scan's target as stored: the
// request's spec and what preparing it learned, both JSON owned by the
// scan package.
type ScanTarget struct {
	ScanID   string
	Spec     string
	Resolved string
}

// CreateScanWithTarget inserts a pending scan whose target is an image or
// a repository, with its target row, in one transaction: a scan is never
// seen without its target.
func (s *Store) CreateScanWithTarget(ctx context.Context, sc Scan, spec string) (Scan, error) {
	var out Scan
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO scan_targets (scan_id, spec) VALUES (?, ?)", sc.ID, spec); err != nil {
			return err
		}
		var err error
		out, err = scans.Insert(ctx, tx, sc)
		return err
	})
	return out, err
}

// ScanTargetSpec returns the spec of a scan's image or repository target;
// ok is false for a tree target.
func (s *Store) ScanTargetSpec(ctx context.Context, scanID string) (spec string, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT spec FROM scan_targets WHERE scan_id = ?", scanID).Scan(&spec)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return spec, err == nil, err
}

// SetScanTargetResolved records what preparing a scan's target learned.
func (s *Store) SetScanTargetResolved(ctx context.Context, scanID, resolved string) error {
	res, err := s.w.ExecContext(ctx, "UPDATE scan_targets SET resolved = ? WHERE scan_id = ?", resolved, scanID)
	if err != nil {
		return err
	}
	return sqlbase.ExpectOne(res)
}

// ScanTargetsByID returns the targets of the given scans that have one, by
// scan id.
func (s *Store) ScanTargetsByID(ctx context.Context, scanIDs []string) (map[string]ScanTarget, error) {
	out := map[string]ScanTarget{}
	for len(scanIDs) > 0 {
		n := min(len(scanIDs), 500)
		args := make([]any, n)
		for i, id := range scanIDs[:n] {
			args[i] = id
		}
		scanIDs = scanIDs[n:]
		rows, err := s.db.QueryContext(ctx, "SELECT scan_id, spec, resolved FROM scan_targets WHERE scan_id IN ("+sqlbase.Placeholders(n)+")", args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var t ScanTarget
			if err := rows.Scan(&t.ScanID, &t.Spec, &t.Resolved); err != nil {
				rows.Close()
				return nil, err
			}
			out[t.ScanID] = t
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
