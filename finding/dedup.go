package finding

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Metadata keys Dedup maintains. Each holds a sorted, duplicate-free list.
const (
	// MetaAlsoReportedBy ([]string) names the other scanners whose finding
	// of the same issue was merged into this one.
	MetaAlsoReportedBy = "also_reported_by"
	// MetaMergedFingerprints ([]string) keeps the fingerprints of the merged
	// findings, so a triage verdict set on one of them can still be found
	// when another scanner's finding becomes the kept one in a later scan.
	MetaMergedFingerprints = "merged_fingerprints"
	// MetaAlsoAtLines ([]int) lists the other lines where the same scanner
	// reported the same rule on an identical line (same fingerprint), so
	// collapsing them never hides where else the problem is.
	MetaAlsoAtLines = "also_at_lines"
)

// Dedup removes duplicate findings and returns them in canonical order
// (see Sort). The result does not depend on the order of fs.
//
//  1. Exact duplicates, i.e. same fingerprint (which implies same scanner,
//     rule, file, line context and CWE), collapse to one. An unsuppressed
//     occurrence is kept over a suppressed one, so a suppression comment at
//     one copy never hides another copy; otherwise the canonically first
//     one is kept. The other copies' lines go to metadata also_at_lines.
//     Findings without a fingerprint never collapse.
//  2. Findings of different scanners that describe the same issue merge
//     into the canonically first one, which is the most severe (ties: the
//     one sorting first). The other scanners' names go to metadata
//     also_reported_by and their fingerprints to merged_fingerprints.
//     "The same issue" means the same suppression state (merging must never
//     hide an unsuppressed finding behind a suppressed one) and:
//     - at a precise location (line > 0): the same file_path and line, and
//     the same non-empty CWE or the same normalized title;
//     - at a coarse location (line 0, e.g. DAST, network, or a whole
//     manifest/lockfile): the same file_path, the same non-empty CWE and
//     the same normalized title, because "same CWE in the same lockfile"
//     alone would merge unrelated vulnerabilities.
//     A finding merges only with a kept finding, never through a chain,
//     and a merged group holds at most one finding per scanner: two rules
//     of one scanner are two findings.
func Dedup(fs []Finding) []Finding {
	work := slices.Clone(fs)
	if work == nil {
		return []Finding{}
	}
	Sort(work)
	work = collapseSameFingerprint(work)
	return mergeAcrossScanners(work)
}

// absorbed accumulates what a kept finding takes over from dropped ones.
type absorbed struct {
	lines        []int
	scanners     []string
	fingerprints []string
}

func collapseSameFingerprint(work []Finding) []Finding {
	byFP := make(map[string]int, len(work))
	acc := map[int]*absorbed{}
	keep := func(k int) *absorbed {
		a := acc[k]
		if a == nil {
			a = &absorbed{}
			acc[k] = a
		}
		return a
	}
	reordered := false
	kept := work[:0] // in place: the write index never passes the read index
	for i := range work {
		f := work[i]
		k, seen := byFP[f.Fingerprint]
		if f.Fingerprint == "" || !seen {
			if f.Fingerprint != "" {
				byFP[f.Fingerprint] = len(kept)
			}
			kept = append(kept, f)
			continue
		}
		cur := &kept[k]
		drop := &f
		curSup, fSup := IsSuppressed(*cur), IsSuppressed(f)
		switch {
		case curSup && !fSup:
			drop = cur
			reordered = true
		case curSup == fSup && compareCanonical(cur, &f) == 0 && tieBreakKey(&f) < tieBreakKey(cur):
			// Identical in every ordered field: pick by content, not by
			// input position, so the result stays order-independent.
			drop = cur
		}
		a := keep(k)
		a.lines = append(a.lines, drop.Line)
		a.lines = append(a.lines, metaInts(drop.Metadata[MetaAlsoAtLines])...)
		a.scanners = append(a.scanners, metaStrings(drop.Metadata[MetaAlsoReportedBy])...)
		a.fingerprints = append(a.fingerprints, metaStrings(drop.Metadata[MetaMergedFingerprints])...)
		if drop == cur {
			*cur = f
		}
	}
	for k, a := range acc {
		applyAbsorbed(&kept[k], a)
	}
	if reordered {
		Sort(kept)
	}
	return kept
}

// mergeKey identifies which kept findings another finding may merge into.
type mergeKey struct {
	path       string
	line       int
	suppressed bool
	kind       byte // 'c': same CWE, 't': same title, 'b': both (coarse location)
	value      string
}

func mergeKeys(f *Finding, suppressed bool) []mergeKey {
	title := normalizeTitle(f.Title)
	line := max(f.Line, 0)
	base := mergeKey{path: f.FilePath, line: line, suppressed: suppressed}
	if line == 0 {
		if f.CWE == "" || title == "" {
			return nil
		}
		base.kind, base.value = 'b', string(f.CWE)+"\x00"+title
		return []mergeKey{base}
	}
	keys := make([]mergeKey, 0, 2)
	if f.CWE != "" {
		k := base
		k.kind, k.value = 'c', string(f.CWE)
		keys = append(keys, k)
	}
	if title != "" {
		k := base
		k.kind, k.value = 't', title
		keys = append(keys, k)
	}
	return keys
}

func mergeAcrossScanners(kept []Finding) []Finding {
	primaries := make(map[mergeKey][]int, len(kept))
	groupScanners := map[int][]string{}
	acc := map[int]*absorbed{}
	dropped := make([]bool, len(kept))
	for i := range kept {
		f := &kept[i]
		own := append([]string{f.Scanner}, metaStrings(f.Metadata[MetaAlsoReportedBy])...)
		keys := mergeKeys(f, IsSuppressed(*f))
		target := -1
		for _, k := range keys {
			for _, p := range primaries[k] {
				if target >= 0 && p >= target {
					break // lists ascend; an earlier group already won
				}
				if disjoint(groupScanners[p], own) {
					target = p
					break
				}
			}
		}
		if target < 0 {
			for _, k := range keys {
				primaries[k] = append(primaries[k], i)
			}
			groupScanners[i] = own
			continue
		}
		dropped[i] = true
		groupScanners[target] = append(groupScanners[target], own...)
		a := acc[target]
		if a == nil {
			a = &absorbed{}
			acc[target] = a
		}
		a.scanners = append(a.scanners, own...)
		a.fingerprints = append(a.fingerprints, metaStrings(f.Metadata[MetaMergedFingerprints])...)
		if f.Fingerprint != "" {
			a.fingerprints = append(a.fingerprints, f.Fingerprint)
		}
	}
	for p, a := range acc {
		applyAbsorbed(&kept[p], a)
	}
	out := make([]Finding, 0, len(kept))
	for i := range kept {
		if !dropped[i] {
			out = append(out, kept[i])
		}
	}
	return out
}

// applyAbsorbed writes the union of f's own lists and a's into a copy of
// f's metadata (the input's maps are never modified), leaving out f's own
// line, scanner and fingerprint.
func applyAbsorbed(f *Finding, a *absorbed) {
	md := make(map[string]any, len(f.Metadata)+3)
	maps.Copy(md, f.Metadata)

	lines := append(metaInts(md[MetaAlsoAtLines]), a.lines...)
	lines = slices.DeleteFunc(lines, func(l int) bool { return l == f.Line })
	if len(lines) > 0 {
		slices.Sort(lines)
		md[MetaAlsoAtLines] = slices.Compact(lines)
	}
	setStringSet(md, MetaAlsoReportedBy, append(metaStrings(md[MetaAlsoReportedBy]), a.scanners...), f.Scanner)
	setStringSet(md, MetaMergedFingerprints, append(metaStrings(md[MetaMergedFingerprints]), a.fingerprints...), f.Fingerprint)
	f.Metadata = md
}

func setStringSet(md map[string]any, key string, vals []string, exclude string) {
	vals = slices.DeleteFunc(vals, func(s string) bool { return s == exclude })
	if len(vals) == 0 {
		return
	}
	slices.Sort(vals)
	md[key] = slices.Compact(vals)
}

func disjoint(a, b []string) bool {
	for _, x := range b {
		if slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// normalizeTitle compares titles the way a reader would: case, spacing and
// a trailing full stop do not make two titles different.
func normalizeTitle(t string) string {
	return strings.TrimRight(strings.Join(strings.Fields(strings.ToLower(t)), " "), ".")
}

// tieBreakKey orders findings that are equal in every canonical field by the
// content the canonical order does not look at.
func tieBreakKey(f *Finding) string {
	b, err := json.Marshal(struct {
		M any
		T []string
		S string
		X string
	}{f.Metadata, f.ComplianceTags, f.ScanID, f.Snippet})
	if err != nil {
		return ""
	}
	return string(b)
}

// metaStrings reads a string list from metadata, whether it was built in
// this process ([]string) or decoded from JSON ([]any).
func metaStrings(v any) []string {
	switch t := v.(type) {
	case []string:
		return slices.Clone(t)
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// metaInts reads an int list from metadata ([]int, or []any of JSON numbers).
func metaInts(v any) []int {
	switch t := v.(type) {
	case []int:
		return slices.Clone(t)
	case []any:
		out := make([]int, 0, len(t))
		for _, e := range t {
			switch n := e.(type) {
			case float64:
				out = append(out, int(n))
			case int:
				out = append(out, n)
			case json.Number:
				if i, err := n.Int64(); err == nil {
					out = append(out, int(i))
				}
			}
		}
		return out
	}
	return nil
}
