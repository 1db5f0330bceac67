package api

import (
	"context"
	"encoding/json"
	"time"

	"scand/store"
)

// FindingAge is the age of a finding on its scan's target.
type FindingAge struct {
	FirstSeen *time.Time `json:"first_seen" doc:"completion of the first completed scan of this scan's target that reported the fingerprint (kept when that scan is deleted); null before the scan completes"`
	LastSeen  *time.Time `json:"last_seen" doc:"completion of the latest completed scan of the target that reported it"`
}

// ScanFinding is a row of GET /scans/{id}/findings: the finding, its
// triage state and its age.
type ScanFinding struct {
	store.FindingWithState
	FindingAge
}

// ageBatch is how many rows of a findings answer share one finding_age
// lookup.
const ageBatch = 500

// findingAgeWriter renders a scan's finding rows with first_seen and
// last_seen spliced in: the first and last completed scan of the scan's
// target in which the fingerprint appeared (finding_age, kept when old
// scans are deleted). A completed scan whose ages are still being
// written gives its own completion time; a scan that has not completed
// gives null, as its findings were not seen by a completed scan yet. Rows
// are buffered up to ageBatch so one query serves a batch.
type findingAgeWriter struct {
	ctx  context.Context
	st   *store.Store
	scan store.Scan
	rows [][]byte
	fps  []string
	// emit receives each finished row, in order.
	emit func([]byte) error
}

func (a *findingAgeWriter) add(row store.FindingRow) error {
	b, err := row.AppendJSON(nil)
	if err != nil {
		return err
	}
	a.rows, a.fps = append(a.rows, b), append(a.fps, row.Fingerprint)
	if len(a.rows) >= ageBatch {
		return a.flush()
	}
	return nil
}

func (a *findingAgeWriter) flush() error {
	if len(a.rows) == 0 {
		return nil
	}
	ages, err := a.st.AgesOfScan(a.ctx, a.scan.ID, a.fps)
	if err != nil {
		return err
	}
	for i, b := range a.rows {
		var first, last *time.Time
		if age, ok := ages[a.fps[i]]; ok {
			first, last = &age.FirstSeen, &age.LastSeen
		} else if a.scan.Status == store.StatusCompleted {
			first, last = a.scan.CompletedAt, a.scan.CompletedAt
		}
		tail, err := json.Marshal(FindingAge{FirstSeen: first, LastSeen: last})
		if err != nil {
			return err
		}
		b = append(append(b[:len(b)-1], ','), tail[1:]...)
		if err := a.emit(b); err != nil {
			return err
		}
	}
	a.rows, a.fps = a.rows[:0], a.fps[:0]
	return nil
}
