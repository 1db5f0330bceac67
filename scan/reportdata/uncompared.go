package reportdata

import (
	"context"
	"iter"
	"sort"

	"scand/finding"
	"scand/finding/report"
	"scand/store"
)

// Uncompared is which findings of a compare of scan a with scan b are not
// compared: those of a scanner that failed, ran partly or could not run
// in either scan (finding.NotComparedReason). A row's scanner comes from
// its scan's finding blocks (ord ranges per severity and scanner), so no
// finding is decoded to know it.
type Uncompared struct {
	why              map[string]string
	aBlocks, bBlocks []store.Block
	counts           map[string]int
	// rows is set when either scan holds a finding of a scanner in why:
	// a scanner that could not run (not installed) has none, and its
	// reason alone needs no second pass over both scans.
	rows bool
}

// NotCompared reads what Uncompared needs of two completed scans.
func NotCompared(ctx context.Context, st *store.Store, a, b store.Scan) (*Uncompared, error) {
	u := &Uncompared{why: map[string]string{}, counts: map[string]int{}}
	names, _ := finding.NotComparedScanners(a.Coverage, b.Coverage)
	for _, name := range names {
		u.why[name] = finding.NotComparedReason(a.Coverage, b.Coverage, name)
	}
	if len(u.why) == 0 {
		return u, nil
	}
	var err error
	if u.aBlocks, err = st.ScanBlocks(ctx, a); err != nil {
		return nil, err
	}
	if u.bBlocks, err = st.ScanBlocks(ctx, b); err != nil {
		return nil, err
	}
	u.rows = u.holdsRows()
	return u, nil
}

// holdsRows reports whether a block of either scan is of a scanner in why.
func (u *Uncompared) holdsRows() bool {
	for _, blocks := range [][]store.Block{u.aBlocks, u.bBlocks} {
		for _, bl := range blocks {
			if u.why[bl.Scanner] != "" {
				return true
			}
		}
	}
	return false
}

// scannerOf is the scanner of a compare row ("" when no block holds it).
func (u *Uncompared) scannerOf(row store.CompareRow) string {
	blocks := u.bBlocks
	if row.Set == store.CompareFixed {
		blocks = u.aBlocks
	}
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].Last >= row.Ord })
	if i == len(blocks) || blocks[i].First > row.Ord {
		return ""
	}
	return blocks[i].Scanner
}

// Has reports whether a compare row is not compared.
func (u *Uncompared) Has(row store.CompareRow) bool {
	return u.rows && u.why[u.scannerOf(row)] != ""
}

// Rows are the not-compared rows of a compare, counted by scanner for
// Reasons.
func (u *Uncompared) Rows(all iter.Seq2[store.CompareRow, error]) iter.Seq2[store.CompareRow, error] {
	return func(yield func(store.CompareRow, error) bool) {
		if !u.rows {
			return
		}
		for row, err := range all {
			if err != nil {
				yield(row, err)
				return
			}
			if !u.Has(row) {
				continue
			}
			u.counts[u.scannerOf(row)]++
			if !yield(row, nil) {
				return
			}
		}
	}
}

// Reasons lists each not-compared scanner with its reason and the count
// Rows saw.
func (u *Uncompared) Reasons() []report.NotCompared {
	out := []report.NotCompared{}
	for name, why := range u.why {
		out = append(out, report.NotCompared{Scanner: name, Reason: why})
	}
	return report.CountNotCompared(out, u.counts)
}
