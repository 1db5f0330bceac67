package finding

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"
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
//  3. Then findings of different scanners that the equivalence table
//     calls the same problem (EquivalenceKeys: Dockerfile rules and KICS
//     queries, secrets and git-hygiene on the same file, secrets and
//     bandit/gosec hard-coded credential rules on the same line) merge the
//     same way, whatever their CWEs and titles.
//
// Before all of these, known vulnerabilities of one package version in one
// file that are aliases of each other (GO-2021-0113 and CVE-2021-38561)
// become one finding carrying every id (mergeAdvisories), whichever tools
// reported them.
func Dedup(fs []Finding) []Finding {
	return dedupOwned(slices.Clone(fs))
}

// dedupOwned is Dedup on a slice the caller hands over (it is reordered and
// reused), which spares Prepare a copy of every finding.
func dedupOwned(work []Finding) []Finding {
	if len(work) == 0 {
		return []Finding{}
	}
	Sort(work)
	work = mergeAdvisories(work)
	work = collapseSameFingerprint(work)
	return mergeEquivalent(mergeAcrossScanners(work))
}

// mergeEquivalent is step 3 of Dedup on findings in canonical order: each
// finding merges into the first kept finding that shares an equivalence
// key with it (and its suppression state), unless that group already holds
// its scanner.
func mergeEquivalent(kept []Finding) []Finding {
	type keyState struct {
		key        string
		suppressed bool
	}
	primaryOf := map[keyState]int{}
	groupScanners := map[int][]string{}
	acc := map[int]*absorbed{}
	dropped := make([]bool, len(kept))
	any := false
	for i := range kept {
		f := &kept[i]
		keys := EquivalenceKeys(*f)
		if len(keys) == 0 {
			continue
		}
		sup := IsSuppressed(*f)
		own := append([]string{f.Scanner}, metaStrings(f.Metadata[MetaAlsoReportedBy])...)
		target := -1
		for _, k := range keys {
			p, ok := primaryOf[keyState{k, sup}]
			if !ok {
				continue
			}
			if !slices.ContainsFunc(own, func(s string) bool { return slices.Contains(groupScanners[p], s) }) {
				target = p
				break
			}
		}
		if target < 0 {
			for _, k := range keys {
				if _, taken := primaryOf[keyState{k, sup}]; !taken {
					primaryOf[keyState{k, sup}] = i
				}
			}
			groupScanners[i] = own
			continue
		}
		any = true
		keep, drop := target, i
		if kept[target].Line == 0 && f.Line > 0 && kept[target].Severity == f.Severity {
			// Equally severe: keep the one that says which line it is
			// (secrets' key line over git-hygiene's whole-file finding).
			keep, drop = i, target
			for k, p := range primaryOf {
				if p == target {
					primaryOf[k] = i
				}
			}
			acc[i], groupScanners[i] = acc[target], groupScanners[target]
			delete(acc, target)
			delete(groupScanners, target)
		}
		d := &kept[drop]
		dropped[drop] = true
		groupScanners[keep] = append(groupScanners[keep], own...)
		a := acc[keep]
		if a == nil {
			a = &absorbed{}
			acc[keep] = a
		}
		a.scanners = append(a.scanners, d.Scanner)
		a.scanners = append(a.scanners, metaStrings(d.Metadata[MetaAlsoReportedBy])...)
		a.fingerprints = append(a.fingerprints, metaStrings(d.Metadata[MetaMergedFingerprints])...)
		if d.Fingerprint != "" {
			a.fingerprints = append(a.fingerprints, d.Fingerprint)
		}
	}
	if !any {
		return kept
	}
	for p, a := range acc {
		applyAbsorbed(&kept[p], a)
	}
	out := kept[:0]
	for i := range kept {
		if !dropped[i] {
			out = append(out, kept[i])
		}
	}
	clear(kept[len(out):])
	return out
}

// absorbed accumulates what a kept finding takes over from dropped ones.
type absorbed struct {
	lines        []int
	scanners     []string
	fingerprints []string
}

func collapseSameFingerprint(work []Finding) []Finding {
	// Pass 1 picks each fingerprint group's winner; pass 2 keeps winners in
	// place, so the result stays in canonical order without a second sort.
	const none = -1
	firstOf := make(map[string]int32, len(work))
	group := make([]int32, len(work))  // index of the group's first member
	winner := make([]int32, len(work)) // per first member: current winner
	for i := range work {
		f := &work[i]
		group[i] = none
		if f.Fingerprint == "" {
			continue
		}
		g, seen := firstOf[f.Fingerprint]
		if !seen {
			firstOf[f.Fingerprint] = int32(i)
			group[i], winner[i] = int32(i), int32(i)
			continue
		}
		group[i] = g
		cur := &work[winner[g]]
		curSup, fSup := IsSuppressed(*cur), IsSuppressed(*f)
		switch {
		case curSup && !fSup:
			winner[g] = int32(i)
		case curSup == fSup && compareCanonical(cur, f) == 0 && !sameUnorderedFields(cur, f) &&
			tieBreakKey(f) < tieBreakKey(cur):
			// Identical in every ordered field but not in the rest: pick by
			// content, not by input position, so the result stays
			// order-independent.
			winner[g] = int32(i)
		}
	}

	acc := map[int32]*absorbed{}     // by group
	keptAt := make([]int, len(work)) // by group: the winner's index in kept
	kept := work[:0]                 // in place: the write index never passes the read index
	for i := range work {
		g := group[i]
		if g == none || winner[g] == int32(i) {
			if g != none {
				keptAt[g] = len(kept)
			}
			kept = append(kept, work[i])
			continue
		}
		drop := &work[i]
		a := acc[g]
		if a == nil {
			a = &absorbed{}
			acc[g] = a
		}
		a.lines = append(a.lines, drop.Line)
		a.lines = append(a.lines, metaInts(drop.Metadata[MetaAlsoAtLines])...)
		a.scanners = append(a.scanners, metaStrings(drop.Metadata[MetaAlsoReportedBy])...)
		a.fingerprints = append(a.fingerprints, metaStrings(drop.Metadata[MetaMergedFingerprints])...)
	}
	for g, a := range acc {
		applyAbsorbed(&kept[keptAt[g]], a)
	}
	clear(work[len(kept):])
	return kept
}

// mergeLocation groups the findings that may merge. A precise location
// (line > 0) is the file and line; a coarse one (line 0) also holds the CWE
// and normalized title, since only equal ones merge there, so that thousands
// of unlocated network findings do not share one bucket.
type mergeLocation struct {
	path       string
	line       int
	suppressed bool
	cwe        CWE
	title      string
}

func mergeAcrossScanners(kept []Finding) []Finding {
	// Group primaries at one location form a chain in creation
	// (= canonical) order: first/last per location, next per primary.
	type chain struct{ first, last int32 }
	chains := make(map[mergeLocation]chain, len(kept))
	next := make([]int32, len(kept))
	// Normalized titles are only needed where findings meet, so they are
	// computed on first use.
	titles := make([]string, len(kept))
	titled := make([]bool, len(kept))
	title := func(i int) string {
		if !titled[i] {
			titles[i], titled[i] = normalizeTitle(kept[i].Title), true
		}
		return titles[i]
	}
	// Scanners already in each group beyond the primary's own scanner
	// (its also_reported_by and what it absorbed); nil for most.
	groupExtra := make([][]string, len(kept))
	acc := map[int]*absorbed{}
	dropped := make([]bool, len(kept))
	inGroup := func(p int, scanner string) bool {
		return kept[p].Scanner == scanner || slices.Contains(groupExtra[p], scanner)
	}
	for i := range kept {
		f := &kept[i]
		loc := mergeLocation{path: f.FilePath, line: max(f.Line, 0), suppressed: IsSuppressed(*f)}
		if loc.line == 0 {
			if f.CWE == "" || title(i) == "" {
				continue // a coarse location needs both to merge
			}
			loc.cwe, loc.title = f.CWE, title(i)
		}
		ownExtra := metaStrings(f.Metadata[MetaAlsoReportedBy])
		c, seen := chains[loc]
		target := -1
		if seen {
			for p := int(c.first); p >= 0; p = int(next[p]) {
				sameIssue := loc.line == 0 || // location key holds CWE and title
					(f.CWE != "" && f.CWE == kept[p].CWE) || (title(i) != "" && title(i) == title(p))
				if sameIssue && !inGroup(p, f.Scanner) &&
					!slices.ContainsFunc(ownExtra, func(s string) bool { return inGroup(p, s) }) {
					target = p
					break
				}
			}
		}
		if target < 0 {
			next[i] = -1
			if seen {
				next[c.last] = int32(i)
				chains[loc] = chain{c.first, int32(i)}
			} else {
				chains[loc] = chain{int32(i), int32(i)}
			}
			groupExtra[i] = ownExtra
			continue
		}
		dropped[i] = true
		groupExtra[target] = append(append(groupExtra[target], f.Scanner), ownExtra...)
		a := acc[target]
		if a == nil {
			a = &absorbed{}
			acc[target] = a
		}
		a.scanners = append(append(a.scanners, f.Scanner), ownExtra...)
		a.fingerprints = append(a.fingerprints, metaStrings(f.Metadata[MetaMergedFingerprints])...)
		if f.Fingerprint != "" {
			a.fingerprints = append(a.fingerprints, f.Fingerprint)
		}
	}
	for p, a := range acc {
		applyAbsorbed(&kept[p], a)
	}
	out := kept[:0] // in place: the write index never passes the read index
	for i := range kept {
		if !dropped[i] {
			out = append(out, kept[i])
		}
	}
	clear(kept[len(out):]) // drop references held by the tail
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

// normalizeTitle compares titles the way a reader would: case, spacing and
// a trailing full stop do not make two titles different.
func normalizeTitle(t string) string {
	var b strings.Builder
	b.Grow(len(t))
	pendingSpace := false
	for _, r := range t {
		if unicode.IsSpace(r) {
			pendingSpace = b.Len() > 0
			continue
		}
		if pendingSpace {
			b.WriteByte(' ')
			pendingSpace = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return strings.TrimRight(b.String(), ".")
}

// sameUnorderedFields reports whether two findings also agree on what the
// canonical order does not compare, in which case either may be kept.
func sameUnorderedFields(a, b *Finding) bool {
	if a.ScanID != b.ScanID || a.Snippet != b.Snippet || !slices.Equal(a.ComplianceTags, b.ComplianceTags) ||
		len(a.Metadata) != len(b.Metadata) {
		return false
	}
	for k, av := range a.Metadata {
		bv, ok := b.Metadata[k]
		if !ok {
			return false
		}
		switch x := av.(type) {
		case nil, string, bool, int, int64, float64:
			if av != bv {
				return false
			}
		default:
			if !reflect.DeepEqual(x, bv) {
				return false
			}
		}
	}
	return true
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
