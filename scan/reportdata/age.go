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
// copied and held meanwhile: two batches of a few hundred kilobytes at
// most.
const ageBatch = 500

// firstAgeBatch is the size of a read's first batch; each next one
// doubles up to ageBatch. A page (500 rows at most) is then three
// batches, so its lookups overlap its reading and writing out instead
// of waiting between them: in one batch, the ages alone were half of a
// page's time at 1M findings.
const firstAgeBatch = 100

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
// (store.OrderedAgesOfScan): a batch looks its fingerprints up at random
// places of finding_age, half of an export's time at 1M rows.
const ageStreamAfter = 10 * ageBatch

// AgedRows yields the rows of scan sc with their sightings (finding_age,
// kept when old scans are deleted; none when st is nil), and their
// excerpts when look is not nil, looked up ageBatch rows at a time (one
// query each, not one per row); a long read of the whole scan takes its
// ages in one ordered pass instead. A batch is looked up on a second
// goroutine while the one before it is yielded and the one after it
// read: the lookups and the inflating of excerpts were half of a SARIF
// report's time, on one core of two. Every finding shape and report of
// a stored scan reads its age and excerpt here.
func AgedRows(ctx context.Context, st *store.Store, sc store.Scan, look *excerpts.Lookup, rows iter.Seq2[store.FindingRow, error]) iter.Seq2[Aged, error] {
	return func(yield func(Aged, error) bool) {
		l := &ager{ctx: ctx, st: st, sc: sc, look: look, firstOrd: -1, tried: st == nil}
		defer l.close()
		var bufs [2]agedBatch
		cur, pending := &bufs[0], (*agedBatch)(nil)
		// emit waits for b's lookups and yields its rows.
		emit := func(b *agedBatch) bool {
			<-b.done
			if b.err != nil {
				yield(Aged{}, b.err)
				return false
			}
			for i := range b.rows {
				if !yield(Aged{Row: b.rows[i], Seen: b.seen[i], Excerpt: b.kept[i]}, nil) {
					return false
				}
			}
			return true
		}
		// send starts cur's lookups once pending's are over (they read the
		// ordered ages in turn), then yields pending meanwhile.
		send := func() bool {
			if pending != nil {
				<-pending.done
			}
			l.start(cur)
			if pending != nil && !emit(pending) {
				<-cur.done
				return false
			}
			if pending == nil {
				pending, cur = cur, &bufs[1]
			} else {
				pending, cur = cur, pending
			}
			cur.rows, cur.fps, cur.unordered = cur.rows[:0], cur.fps[:0], false
			return true
		}
		prev, limit := -1, firstAgeBatch
		for row, err := range rows {
			if err != nil {
				if pending != nil {
					<-pending.done
				}
				yield(Aged{}, err)
				return
			}
			if l.firstOrd < 0 {
				l.firstOrd = row.Ord
			}
			if row.Ord <= prev {
				cur.unordered = true
			}
			prev = row.Ord
			// The slot's buffers from an earlier batch are reused.
			if len(cur.rows) < cap(cur.rows) {
				cur.rows = cur.rows[:len(cur.rows)+1]
			} else {
				cur.rows = append(cur.rows, store.FindingRow{})
			}
			row.CopyTo(&cur.rows[len(cur.rows)-1])
			cur.fps = append(cur.fps, row.Fingerprint)
			if len(cur.rows) == limit {
				if !send() {
					return
				}
				limit = min(2*limit, ageBatch)
			}
		}
		if len(cur.rows) > 0 && !send() {
			return
		}
		if pending != nil {
			emit(pending)
		}
	}
}

// agedBatch is a batch of rows and, once done is closed, their sightings
// and excerpts (or err).
type agedBatch struct {
	rows []store.FindingRow
	fps  []string
	// unordered: a row of this batch came out of canonical order.
	unordered bool
	seen      []*report.Seen
	kept      []*excerpt.Excerpt
	err       error
	done      chan struct{}
}

// ager looks batches up one at a time, in the order they are read.
type ager struct {
	ctx  context.Context
	st   *store.Store
	sc   store.Scan
	look *excerpts.Lookup
	// ages is the ordered pass once a long read switched to it.
	ages                    *targets.OrderedAges
	read, firstOrd, lastOrd int
	tried, unordered        bool
}

func (l *ager) start(b *agedBatch) {
	b.done = make(chan struct{})
	go func() {
		defer close(b.done)
		b.err = l.lookUp(b)
	}()
}

func (l *ager) lookUp(b *agedBatch) error {
	if b.unordered && !l.unordered { // not canonical order: back to lookups
		l.unordered = true
		l.ages.Close()
		l.ages = nil
	}
	var ageOf map[string]targets.Age
	if l.st != nil && l.ages == nil {
		var err error
		if ageOf, err = l.st.AgesOfScan(l.ctx, l.sc.ID, b.fps); err != nil {
			return err
		}
	}
	var keptOf map[string]*excerpt.Excerpt
	if l.look != nil {
		keptOf = l.look.GetMany(l.ctx, b.fps)
	}
	b.seen, b.kept = b.seen[:0], b.kept[:0]
	for i := range b.rows {
		var seen *report.Seen
		if l.ages != nil {
			age, ok := l.ages.Get(int64(b.rows[i].Ord))
			seen = SeenOf(l.sc, age, ok)
		} else if l.st != nil {
			age, ok := ageOf[b.fps[i]]
			seen = SeenOf(l.sc, age, ok)
		}
		b.seen = append(b.seen, seen)
		b.kept = append(b.kept, keptOf[b.fps[i]])
	}
	if err := l.ages.Err(); err != nil {
		return err
	}
	l.read += len(b.rows)
	l.lastOrd = b.rows[len(b.rows)-1].Ord
	if !l.tried && l.read >= ageStreamAfter {
		l.tried = true
		dense := 4*l.read >= l.lastOrd-l.firstOrd+1
		if !l.unordered && dense && l.sc.FindingsCount-l.lastOrd > ageStreamAfter {
			// A scratch file that cannot be had leaves the lookups.
			l.ages, _ = l.st.OrderedAgesOfScan(l.ctx, l.sc, l.lastOrd)
		}
	}
	return nil
}

func (l *ager) close() { l.ages.Close() }

// SeenOf is a finding's sighting on scan sc's target given its
// finding_age row (ok false when there is none). A completed scan counts
// among the sightings even while they are still being written (they are
// folded in after the scan completes): its completion widens the row, as
// the fold will, and stands alone when there is no row yet. A scan not
// completed has seen nothing yet.
func SeenOf(sc store.Scan, age targets.Age, ok bool) *report.Seen {
	completed := sc.Status == store.StatusCompleted && sc.CompletedAt != nil
	if !ok {
		if !completed {
			return nil
		}
		age = targets.Age{FirstSeen: *sc.CompletedAt, LastSeen: *sc.CompletedAt}
	}
	seen := &report.Seen{First: age.FirstSeen, Last: age.LastSeen}
	if completed && sc.CompletedAt.Before(seen.First) {
		seen.First = *sc.CompletedAt
	}
	if completed && sc.CompletedAt.After(seen.Last) {
		seen.Last = *sc.CompletedAt
	}
	return seen
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
