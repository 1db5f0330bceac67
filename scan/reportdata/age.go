package reportdata

import (
	"context"
	"iter"

	"scand/finding/excerpt"
	"scand/finding/report"
	"scand/store"
	"scand/store/excerpts"
	"scand/store/targets"
)

// ageBatch is how many rows share one finding_age lookup. The rows are
// copied and held meanwhile: a few hundred kilobytes at most.
const ageBatch = 500

// Aged is a stored row with its first and last sighting on its scan's
// target, valid until the iteration continues.
type Aged struct {
	Row store.FindingRow
	// Seen is nil when no completed scan has reported the finding yet.
	Seen *report.Seen
	// Excerpt is the code kept around the finding; nil when none was kept
	// or none was asked for.
	Excerpt *excerpt.Excerpt
}

// AgedRows yields the rows of scan sc with their sightings (finding_age,
// kept when old scans are deleted; none when st is nil), and their
// excerpts when look is not nil, looked up ageBatch rows at a time (one
// query each, not one per row). Every finding shape and report of a
// stored scan reads its age and excerpt here.
func AgedRows(ctx context.Context, st *store.Store, sc store.Scan, look *excerpts.Lookup, rows iter.Seq2[store.FindingRow, error]) iter.Seq2[Aged, error] {
	return func(yield func(Aged, error) bool) {
		batch := make([]store.FindingRow, 0, ageBatch)
		fps := make([]string, 0, ageBatch)
		flush := func() bool {
			if len(batch) == 0 {
				return true
			}
			var ages map[string]targets.Age
			if st != nil {
				var err error
				if ages, err = st.AgesOfScan(ctx, sc.ID, fps); err != nil {
					yield(Aged{}, err)
					return false
				}
			}
			var kept map[string]*excerpt.Excerpt
			if look != nil {
				kept = look.GetMany(ctx, fps)
			}
			for i := range batch {
				var seen *report.Seen
				if st != nil {
					age, ok := ages[fps[i]]
					seen = SeenOf(sc, age, ok)
				}
				if !yield(Aged{Row: batch[i], Seen: seen, Excerpt: kept[fps[i]]}, nil) {
					return false
				}
			}
			batch, fps = batch[:0], fps[:0]
			return true
		}
		for row, err := range rows {
			if err != nil {
				yield(Aged{}, err)
				return
			}
			// The slot's buffers from the previous batch are reused.
			batch = batch[:len(batch)+1]
			row.CopyTo(&batch[len(batch)-1])
			fps = append(fps, row.Fingerprint)
			if len(batch) == ageBatch && !flush() {
				return
			}
		}
		flush()
	}
}

// SeenOf is a finding's sighting on scan sc's target given its
// finding_age row (ok false when there is none). A completed scan whose
// sightings are still being written counts as its own first and last
// sighting; a scan not completed has seen nothing yet.
func SeenOf(sc store.Scan, age targets.Age, ok bool) *report.Seen {
	switch {
	case ok:
		return &report.Seen{First: age.FirstSeen, Last: age.LastSeen}
	case sc.Status == store.StatusCompleted && sc.CompletedAt != nil:
		return &report.Seen{First: *sc.CompletedAt, Last: *sc.CompletedAt}
	}
	return nil
}

// AgedReportRows is ReportRows with each row's sighting on the scan's
// target and, when look is not nil, its excerpt: the daemon's reports.
func AgedReportRows(ctx context.Context, st *store.Store, sc store.Scan, look *excerpts.Lookup, rows iter.Seq2[store.FindingRow, error], mark Mark) iter.Seq2[report.Row, error] {
	return reportRows(AgedRows(ctx, st, sc, look, rows), mark)
}

// ExcerptedReportRows is ReportRows with each row's excerpt (none when
// look is nil) and no age: the CLI's reports, whose runs keep no history.
func ExcerptedReportRows(ctx context.Context, look *excerpts.Lookup, rows iter.Seq2[store.FindingRow, error], mark Mark) iter.Seq2[report.Row, error] {
	if look == nil {
		return ReportRows(rows, mark)
	}
	return reportRows(AgedRows(ctx, nil, store.Scan{}, look, rows), mark)
}
