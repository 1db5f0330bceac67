package api

import (
	"context"
	"iter"
	"sort"

	"scand/finding"
	"scand/finding/report"
	"scand/store"
)

// uncomparedSet is which findings of a compare of scan a with scan b are
// not compared: those of a scanner that failed, ran partly or could not
// run in either scan (finding.NotComparedReason). A row's scanner comes
// from its scan's finding blocks (ord ranges per severity and scanner),
// so no finding is decoded for it.
type uncomparedSet struct {
	why            map[string]string
	aBlocks, bBlks []store.Block
	counts         map[string]int
}

func (s *Server) notCompared(ctx context.Context, a, b store.Scan) (*uncomparedSet, error) {
	u := &uncomparedSet{why: map[string]string{}, counts: map[string]int{}}
	for _, c := range []*finding.ScanCoverage{a.Coverage, b.Coverage} {
		if c == nil {
			continue
		}
		for _, sc := range c.Scanners {
			if reason := finding.NotComparedReason(a.Coverage, b.Coverage, sc.Scanner); reason != "" {
				u.why[sc.Scanner] = reason
			}
		}
	}
	if len(u.why) == 0 {
		return u, nil
	}
	var err error
	if u.aBlocks, err = s.Store.ScanBlocks(ctx, a); err != nil {
		return nil, err
	}
	if u.bBlks, err = s.Store.ScanBlocks(ctx, b); err != nil {
		return nil, err
	}
	return u, nil
}

// has reports whether a compare row is not compared.
func (u *uncomparedSet) has(row store.CompareRow) bool {
	if len(u.why) == 0 {
		return false
	}
	blocks := u.bBlks
	if row.Set == store.CompareFixed {
		blocks = u.aBlocks
	}
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].Last >= row.Ord })
	if i == len(blocks) || blocks[i].First > row.Ord {
		return false
	}
	return u.why[blocks[i].Scanner] != ""
}

// rows are the not-compared rows of a compare, counted by scanner.
func (u *uncomparedSet) rows(all iter.Seq2[store.CompareRow, error]) iter.Seq2[store.CompareRow, error] {
	return func(yield func(store.CompareRow, error) bool) {
		if len(u.why) == 0 {
			return
		}
		for row, err := range all {
			if err != nil {
				yield(row, err)
				return
			}
			if !u.has(row) {
				continue
			}
			blocks := u.bBlks
			if row.Set == store.CompareFixed {
				blocks = u.aBlocks
			}
			i := sort.Search(len(blocks), func(i int) bool { return blocks[i].Last >= row.Ord })
			u.counts[blocks[i].Scanner]++
			if !yield(row, nil) {
				return
			}
		}
	}
}

// reasons lists each not-compared scanner with its reason and count.
func (u *uncomparedSet) reasons() []report.NotCompared {
	out := []report.NotCompared{}
	for name, why := range u.why {
		out = append(out, report.NotCompared{Scanner: name, Reason: why})
	}
	return report.CountNotCompared(out, u.counts)
}

// coverageView is what a scan and its summary say it examined (issue 23,
// additive fields).
type coverageView struct {
	Partial        bool                  `json:"partial" doc:"true when the scan did not examine everything it was asked to: a scanner failed or ran partly, an asked-for scan type ran nothing able to find what it is about; partial_reasons says why"`
	PartialReasons []string              `json:"partial_reasons" doc:"why the result is partial; empty when it is not"`
	Coverage       *finding.ScanCoverage `json:"coverage" doc:"per scan type and per scanner: ran, partial, failed, not_installed, not_needed or disabled, with the reason, and the files a partial scanner skipped; null until the scan completes and for scans stored before coverage was recorded"`
}

func coverageOf(sc store.Scan) coverageView {
	v := coverageView{PartialReasons: []string{}, Coverage: sc.Coverage}
	if sc.Coverage != nil {
		v.Partial = sc.Coverage.Partial
		v.PartialReasons = append(v.PartialReasons, sc.Coverage.Reasons...)
	}
	return v
}
