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

// ageStreamAfter is how many rows a read takes by batch lookups before,
// when it reads its scan densely and in canonical order with many rows
// left, it reads the rest of the scan's ages in one ordered pass
// (store.OrderedAgesOfScan): each batch looks its fingerprints up at
// random places of finding_age, half of an export's time at 1M rows.
const ageStreamAfter = 10 * ageBatch

// AgedRows yields the rows of scan sc with their sightings (finding_age,
// kept when old scans are deleted; none when st is nil), and their
// excerpts when look is not nil, looked up ageBatch rows at a time (one
// query each, not one per row); a long read of the whole scan takes its
// ages in one ordered pass instead. Every finding shape and report of a
// stored scan reads its age and excerpt here.
func AgedRows(ctx context.Context, st *store.Store, sc store.Scan, look *excerpts.Lookup, rows iter.Seq2[store.FindingRow, error]) iter.Seq2[Aged, error] {
	return func(yield func(Aged, error) bool) {
		batch := make([]store.FindingRow, 0, ageBatch)
		fps := make([]string, 0, ageBatch)
		var ordered *targets.OrderedAges
		defer func() { ordered.Close() }()
		read, firstOrd, lastOrd, inOrder, tried := 0, -1, -1, true, st == nil
		flush := func() bool {
			if len(batch) == 0 {
				return true
			}
			if ordered != nil && !inOrder {
				ordered.Close() // not canonical order: back to lookups
				ordered = nil
			}
			var ages map[string]targets.Age
			if st != nil && ordered == nil {
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
				if ordered != nil {
					age, ok := ordered.Get(int64(batch[i].Ord))
					if err := ordered.Err(); err != nil {
						yield(Aged{}, err)
						return false
					}
					seen = SeenOf(sc, age, ok)
				} else if st != nil {
					age, ok := ages[fps[i]]
					seen = SeenOf(sc, age, ok)
				}
				if !yield(Aged{Row: batch[i], Seen: seen, Excerpt: kept[fps[i]]}, nil) {
					return false
				}
			}
			read += len(batch)
			lastOrd = batch[len(batch)-1].Ord
			batch, fps = batch[:0], fps[:0]
			if !tried && read >= ageStreamAfter {
				tried = true
				dense := 4*read >= lastOrd-firstOrd+1
				if inOrder && dense && sc.FindingsCount-lastOrd > ageStreamAfter {
					// A scratch file that cannot be had leaves the lookups.
					ordered, _ = st.OrderedAgesOfScan(ctx, sc, lastOrd)
				}
			}
			return true
		}
		prev := -1
		for row, err := range rows {
			if err != nil {
				yield(Aged{}, err)
				return
			}
			if firstOrd < 0 {
				firstOrd = row.Ord
			}
			if row.Ord <= prev {
				inOrder = false
			}
			prev = row.Ord
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
