// Package targets is the targets table and the per-target finding age
// (finding_age): what a scan points at as a record of its own, and when
// each fingerprint was first and last seen on it. store embeds a
// *Targets, so these are *store.Store's methods.
//
// A scan gets its target when its row is inserted (a trigger of migration
// 0016), whatever inserts it; "the same target" of two scans is
// TargetOfScan of both. For the other features that compare a scan with
// its predecessor:
//
//	TargetOfScan(ctx, scanID)                          the target of a scan
//	PreviousCompletedScanOfTarget(ctx, targetID, id)   the completed scan of the
//	                                                   target that arrived last before scan id
//	LatestCompletedScanOfTarget(ctx, targetID)         what the target looks like now
package targets

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"scand/store/scans"
	"scand/store/sqlbase"
)

// Kinds of target.
const (
	KindDir    = "dir"
	KindImage  = "image"
	KindRepo   = "repo"
	KindImport = "import"
)

// Kinds lists every kind, for validation.
var Kinds = []string{KindDir, KindImage, KindRepo, KindImport}

// Target is a stored target.
type Target struct {
	ID int64
	// Kind is dir, image, repo or import; Key its canonical identity
	// (directory path, image archive path, repository URL without
	// credentials, import label).
	Kind, Key string
	// URL and Host are a DAST or network scan's target_url and
	// target_host ("" for others): part of the identity.
	URL, Host string
	// Name is what lists show; Key until someone renames it.
	Name      string
	Labels    map[string]string
	CreatedAt time.Time
	// LatestSeq is the seq of the latest completed scan; 0 before one.
	LatestSeq int64
}

// Targets is the targets and finding_age tables.
type Targets struct {
	db, w *sql.DB
	// lookup serves AgesOf, which callers use while streaming findings
	// (sqlbase.Pools.Lookup).
	lookup *sql.DB
	now    func() time.Time
	// aging holds the scans whose sightings a RecordSightings is folding
	// now: the maintenance loop finds a scan that has just completed
	// still unaged, and folding its million fingerprints a second time
	// beside the first doubled the writer's work after a large scan.
	agingMu sync.Mutex
	aging   map[int64]bool
}

// New reads through db (point reads beside a stream through lookup),
// writes through the writer w and stamps with now.
func New(db, lookup, w *sql.DB, now func() time.Time) *Targets {
	return &Targets{db: db, lookup: lookup, w: w, now: now}
}

// Columns is the select list TargetRow reads, for the alias t.
const Columns = "t.id, t.kind, t.key, t.url, t.host, t.name, t.labels, t.created_at, coalesce(t.latest_seq, 0)"

// TargetRow reads one target selected with Columns.
func TargetRow(row sqlbase.Row) (Target, error) {
	var t Target
	var labels, created string
	err := row.Scan(&t.ID, &t.Kind, &t.Key, &t.URL, &t.Host, &t.Name, &labels, &created, &t.LatestSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return t, sqlbase.ErrNotFound
	}
	if err != nil {
		return t, err
	}
	t.CreatedAt = sqlbase.ParseTime(created)
	if err := json.Unmarshal([]byte(labels), &t.Labels); err != nil {
		return t, err
	}
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	return t, nil
}

// TargetByID returns one target; ErrNotFound when there is none.
func (s *Targets) TargetByID(ctx context.Context, id int64) (Target, error) {
	return TargetRow(s.db.QueryRowContext(ctx, "SELECT "+Columns+" FROM targets t WHERE t.id = ?", id))
}

// TargetOfScan returns the target a scan points at, deleted scans
// included (their target stays); ErrNotFound for an unknown scan.
func (s *Targets) TargetOfScan(ctx context.Context, scanID string) (Target, error) {
	return TargetRow(s.db.QueryRowContext(ctx, "SELECT "+Columns+" FROM scans s JOIN targets t ON t.id = s.target_id WHERE s.id = ?", scanID))
}

// TargetsOfScans maps scan ids to their targets' ids and names, for lists
// that show which target each scan belongs to.
func (s *Targets) TargetsOfScans(ctx context.Context, scanIDs []string) (map[string]Target, error) {
	out := map[string]Target{}
	for len(scanIDs) > 0 {
		n := min(len(scanIDs), 500)
		rows, err := s.db.QueryContext(ctx, "SELECT s.id, "+Columns+" FROM scans s JOIN targets t ON t.id = s.target_id WHERE s.id IN ("+
			sqlbase.Placeholders(n)+")", sqlbase.AnySlice(scanIDs[:n])...)
		scanIDs = scanIDs[n:]
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var t Target
			var labels, created string
			if err := rows.Scan(&id, &t.ID, &t.Kind, &t.Key, &t.URL, &t.Host, &t.Name, &labels, &created, &t.LatestSeq); err != nil {
				rows.Close()
				return nil, err
			}
			t.CreatedAt = sqlbase.ParseTime(created)
			_ = json.Unmarshal([]byte(labels), &t.Labels)
			out[id] = t
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PreviousCompletedScanOfTarget returns the completed, not deleted scan
// of the target that arrived last before the scan beforeScanID (any
// scan; "" means the latest completed scan). ErrNotFound when there is
// none.
func (s *Targets) PreviousCompletedScanOfTarget(ctx context.Context, targetID int64, beforeScanID string) (scans.Scan, error) {
	before := int64(1<<63 - 1)
	if beforeScanID != "" {
		if err := s.db.QueryRowContext(ctx, "SELECT seq FROM scans WHERE id = ?", beforeScanID).Scan(&before); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return scans.Scan{}, sqlbase.ErrNotFound
			}
			return scans.Scan{}, err
		}
	}
	return scans.ScanRow(s.db.QueryRowContext(ctx, "SELECT "+scans.Columns+` FROM scans
		WHERE target_id = ? AND status = 'completed' AND seq < ? AND hidden = 0 ORDER BY seq DESC LIMIT 1`, targetID, before))
}

// LatestCompletedScanOfTarget returns the target's latest completed scan.
func (s *Targets) LatestCompletedScanOfTarget(ctx context.Context, targetID int64) (scans.Scan, error) {
	return s.PreviousCompletedScanOfTarget(ctx, targetID, "")
}

// ScansOfTarget lists a target's scans (any status, not deleted), newest
// first, those that arrived before the scan with seq before (0: from the
// newest), at most limit.
func (s *Targets) ScansOfTarget(ctx context.Context, targetID int64, before int64, limit int) ([]scans.Scan, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := s.db.QueryContext(ctx, "SELECT "+scans.Columns+` FROM scans WHERE target_id = ? AND hidden = 0 AND seq < ?
		ORDER BY seq DESC LIMIT ?`, targetID, before, max(limit, 1))
	return sqlbase.Collect(rows, err, scans.ScanRow)
}

// SetTargetLabels replaces a target's labels (and its name, when name is
// not empty) and returns the target.
func (s *Targets) SetTargetLabels(ctx context.Context, id int64, name string, labels map[string]string) (Target, error) {
	if labels == nil {
		labels = map[string]string{}
	}
	res, err := s.w.ExecContext(ctx, "UPDATE targets SET labels = ?, name = CASE WHEN ? = '' THEN name ELSE ? END WHERE id = ?",
		sqlbase.MustJSON(labels), name, name, id)
	if err != nil {
		return Target{}, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return Target{}, err
	} else if n == 0 {
		return Target{}, sqlbase.ErrNotFound
	}
	return TargetRow(s.w.QueryRowContext(ctx, "SELECT "+Columns+" FROM targets t WHERE t.id = ?", id))
}
