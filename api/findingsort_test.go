package api

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"scand/store"
)

// TestFindingsSortedPaging: GET /scans/{id}/findings?sort= pages every
// order with cursors and offsets, holds the same findings as the canonical
// order, streams the order as NDJSON, and refuses a cursor of another
// order or scan, an unknown sort and a forged cursor with a 422.
func TestFindingsSortedPaging(t *testing.T) {
	h, v := pagingHarness(t, streamScanner{name: "stream", n: 97})
	base := "/api/v1/scans/" + v.ID + "/findings"
	_, all, _ := h.do("GET", base+"?limit=1000", nil)
	canonical := decodeFindings(t, all)
	if len(canonical) != 97 {
		t.Fatalf("%d findings", len(canonical))
	}
	pos := map[string]int{}
	for i, f := range canonical {
		pos[f.Fingerprint] = i
	}
	orders := map[string]func(a, b store.FindingWithState) int{
		"file": func(a, b store.FindingWithState) int {
			return cmp.Or(cmp.Compare(a.FilePath, b.FilePath), cmp.Compare(a.Line, b.Line), cmp.Compare(pos[a.Fingerprint], pos[b.Fingerprint]))
		},
		"rule": func(a, b store.FindingWithState) int {
			return cmp.Or(cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(pos[a.Fingerprint], pos[b.Fingerprint]))
		},
		"scanner": func(a, b store.FindingWithState) int {
			return cmp.Or(cmp.Compare(a.Scanner, b.Scanner), cmp.Compare(pos[a.Fingerprint], pos[b.Fingerprint]))
		},
		// One scan: every finding was first seen when it completed, so
		// the canonical position decides.
		"first_seen": func(a, b store.FindingWithState) int { return cmp.Compare(pos[a.Fingerprint], pos[b.Fingerprint]) },
	}
	byFP := map[string]store.FindingWithState{}
	for _, f := range canonical {
		byFP[f.Fingerprint] = f
	}
	for sort, order := range orders {
		want := slices.Clone(canonical)
		slices.SortStableFunc(want, order)
		var got []store.FindingWithState
		path := base + "?sort=" + sort + "&limit=10"
		var lastCursor string
		for pages := 0; path != ""; pages++ {
			code, out, hdr := h.do("GET", path, nil)
			if code != 200 || hdr.Get("X-Total-Count") != "97" || pages > 10 {
				t.Fatalf("%s page %d: %d %q %s", sort, pages, code, hdr.Get("X-Total-Count"), out)
			}
			got = append(got, decodeFindings(t, out)...)
			path = ""
			if next := hdr.Get("X-Next-Cursor"); next != "" {
				path, lastCursor = base+"?sort="+sort+"&limit=10&cursor="+next, next
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d findings, want %d", sort, len(got), len(want))
		}
		for i := range got {
			if got[i].Fingerprint != want[i].Fingerprint {
				t.Fatalf("%s: row %d is %s (%s:%d), want %s (%s:%d)", sort, i, got[i].Fingerprint[:8], got[i].FilePath, got[i].Line,
					want[i].Fingerprint[:8], want[i].FilePath, want[i].Line)
			}
			if !reflect.DeepEqual(got[i], byFP[got[i].Fingerprint]) {
				t.Fatalf("%s: finding %s differs from the canonical list's", sort, got[i].Fingerprint)
			}
		}
		// An offset is the same rows as the walk.
		_, out, _ := h.do("GET", base+"?sort="+sort+"&limit=5&offset=42", nil)
		if fs := decodeFindings(t, out); len(fs) != 5 || fs[0].Fingerprint != want[42].Fingerprint {
			t.Fatalf("%s offset 42: %v", sort, fs)
		}
		// NDJSON streams the order.
		code, nd, _ := h.do("GET", base+"?sort="+sort+"&format=ndjson", nil)
		sc := bufio.NewScanner(bytes.NewReader(nd))
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			var f store.FindingWithState
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil || f.Fingerprint != want[n].Fingerprint {
				t.Fatalf("%s ndjson line %d: %v %s", sort, n, err, f.Fingerprint)
			}
			n++
		}
		if code != 200 || n != 97 {
			t.Fatalf("%s ndjson: %d, %d lines", sort, code, n)
		}
		// A cursor belongs to its order.
		other := "rule"
		if sort == "rule" {
			other = "file"
		}
		for _, bad := range []string{"?sort=" + other + "&cursor=" + lastCursor, "?cursor=" + lastCursor} {
			if code, out, _ := h.do("GET", base+bad, nil); code != 422 || !strings.Contains(string(out), "cursor") {
				t.Errorf("%s: %d %s, want 422 about the cursor", bad, code, out)
			}
		}
	}
	for _, bad := range []string{"?sort=age", "?sort=file&cursor=bogus", "?sort=file&cursor=eyJzb3J0IjoiZmlsZSJ9"} {
		if code, out, _ := h.do("GET", base+bad, nil); code != 422 {
			t.Errorf("%s: %d %s, want 422", bad, code, out)
		}
	}
	// severity is the canonical order.
	_, out, _ := h.do("GET", base+"?sort=severity&limit=1000", nil)
	if !bytes.Equal(out, all) {
		t.Error("sort=severity differs from the canonical order")
	}
}
