package reportdata

import (
	"testing"

	"scand/store"
)

// TestUncomparedSkipsTheSecondPassWithoutRows: a scanner not compared
// because it could not run in either scan has no rows, so Rows reads
// nothing (a second pass over two 1M-finding scans for no row) while its
// reason is still listed; one with rows is read.
func TestUncomparedSkipsTheSecondPassWithoutRows(t *testing.T) {
	blocks := []store.Block{{First: 0, Last: 9, Severity: "high", Scanner: "secrets"}}
	for _, tc := range []struct {
		scanner string
		reads   bool
	}{{"gosec", false}, {"secrets", true}} {
		u := &Uncompared{why: map[string]string{tc.scanner: "not installed"}, aBlocks: blocks, bBlocks: blocks, counts: map[string]int{}}
		u.rows = u.holdsRows()
		read := 0
		all := func(yield func(store.CompareRow, error) bool) {
			for ord := 0; ord < 10; ord++ {
				read++
				if !yield(store.CompareRow{Set: store.CompareUnchanged, FindingRow: store.FindingRow{Ord: ord}}, nil) {
					return
				}
			}
		}
		got := 0
		for _, err := range u.Rows(all) {
			if err != nil {
				t.Fatal(err)
			}
			got++
		}
		if (read > 0) != tc.reads || (got == 10) != tc.reads {
			t.Errorf("not compared %s: read %d rows, yielded %d; want a read: %v", tc.scanner, read, got, tc.reads)
		}
		if r := u.Reasons(); len(r) != 1 || r[0].Scanner != tc.scanner {
			t.Errorf("reasons %+v, want %s listed", r, tc.scanner)
		}
	}
}
