package finding

import (
	"cmp"
	"slices"
	"strings"
)

// Sort puts fs in the canonical order of SPEC.md: severity rank descending,
// then scanner, rule_id, file_path, line and title ascending. Fingerprint,
// cwe, description, scan_type and id break the remaining ties (and the raw
// severity string orders two unknown severities), so the order is total over
// every field a client can see except metadata; findings equal in all of
// those keep their input order (the sort is stable).
func Sort(fs []Finding) {
	if len(fs) < 2 {
		return
	}
	// Sorting indices and permuting once is much cheaper than moving the
	// ~250-byte Finding structs through every comparison and swap.
	idx := make([]int32, len(fs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		if c := compareCanonical(&fs[a], &fs[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	// Apply the permutation in place, one cycle at a time, so sorting never
	// needs a second copy of the findings.
	for start := range idx {
		if int(idx[start]) == start {
			continue
		}
		held := fs[start]
		at := start
		for {
			from := int(idx[at])
			idx[at] = int32(at)
			if from == start {
				fs[at] = held
				break
			}
			fs[at] = fs[from]
			at = from
		}
	}
}

// compareCanonical is the canonical order as a three-way comparison.
func compareCanonical(a, b *Finding) int {
	if c := cmp.Compare(b.Severity.Rank(), a.Severity.Rank()); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Severity), string(b.Severity)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Scanner, b.Scanner); c != 0 {
		return c
	}
	if c := strings.Compare(a.RuleID, b.RuleID); c != 0 {
		return c
	}
	if c := strings.Compare(a.FilePath, b.FilePath); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	if c := strings.Compare(a.Title, b.Title); c != 0 {
		return c
	}
	if c := strings.Compare(a.Fingerprint, b.Fingerprint); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.CWE), string(b.CWE)); c != 0 {
		return c
	}
	if c := strings.Compare(a.Description, b.Description); c != 0 {
		return c
	}
	if c := strings.Compare(a.ScanType, b.ScanType); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}
