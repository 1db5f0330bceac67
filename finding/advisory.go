package finding

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Metadata keys of a known vulnerability of a dependency (osv-scanner,
// govulncheck, trivy, and imported scans of them).
const (
	// MetaPackage (string) and MetaVersion (string) are the installed
	// package and version the advisory affects.
	MetaPackage = "package"
	MetaVersion = "version"
	// MetaAliases ([]string) lists every id the vulnerability is known by
	// (rule_id included), sorted: the OSV record's aliases, GHSA/CVE/GO
	// ids, and the ids of the other tools' findings merged into this one.
	MetaAliases = "aliases"
	// MetaAdvisoryID (string) is the id the fingerprint is built from,
	// chosen from MetaAliases by CanonicalAdvisoryID.
	MetaAdvisoryID = "advisory_id"
	// MetaFixedVersion (string) is the lowest version that fixes it, when
	// a tool knows one.
	MetaFixedVersion = "fixed_version"
)

// advisoryScanner is the scanner field of a vulnerability's fingerprint:
// the fingerprint names the vulnerability, not the tool that found it.
const advisoryScanner = "advisory"

// Advisory is what identifies a finding as a known vulnerability of one
// installed package version.
type Advisory struct {
	Package, Version string
	IDs              []string // rule_id and aliases, sorted, without duplicates
}

// AdvisoryOf returns f's advisory when f reports a known vulnerability of
// a dependency: metadata package and version are set and metadata aliases
// is present (the tools that match advisories always write it, empty or
// not). ok is false for every other finding.
func AdvisoryOf(f Finding) (Advisory, bool) {
	pkg, _ := f.Metadata[MetaPackage].(string)
	ver, _ := f.Metadata[MetaVersion].(string)
	_, hasAliases := f.Metadata[MetaAliases]
	if pkg == "" || ver == "" || !hasAliases || f.RuleID == "" {
		return Advisory{}, false
	}
	ids := append(metaStrings(f.Metadata[MetaAliases]), f.RuleID)
	ids = slices.DeleteFunc(ids, func(s string) bool { return strings.TrimSpace(s) == "" })
	slices.Sort(ids)
	return Advisory{Package: pkg, Version: ver, IDs: slices.Compact(ids)}, true
}

// AdvisoryKey is the group Dedup merges advisories in: one file, one
// package, one version ("v1.2.3" and "1.2.3" are one version, and package
// names are compared without case). "" for a finding that is no advisory.
func AdvisoryKey(f Finding) string {
	a, ok := AdvisoryOf(f)
	if !ok {
		return ""
	}
	return f.FilePath + "\x00" + strings.ToLower(a.Package) + "\x00" + normalizeVersion(a.Version)
}

func normalizeVersion(v string) string {
	return strings.TrimPrefix(strings.TrimSpace(v), "v")
}

// CanonicalAdvisoryID picks the id a vulnerability is fingerprinted by
// from the ids it is known by. Every tool must pick the same id from what
// it knows, and the tools know different subsets (Trivy keys by CVE and
// knows the GHSA, the Go database by GO id with CVE and GHSA as aliases),
// so the choice goes by kind, most widely shared first: the lowest CVE,
// else the lowest GHSA, else the lowest GO id, else the lowest id.
func CanonicalAdvisoryID(ids []string) string {
	best, bestRank := "", 99
	for _, id := range ids {
		r := advisoryRank(id)
		if best == "" || r < bestRank || r == bestRank && advisoryLess(id, best) {
			best, bestRank = id, r
		}
	}
	return best
}

func advisoryRank(id string) int {
	switch u := strings.ToUpper(id); {
	case strings.HasPrefix(u, "CVE-"):
		return 0
	case strings.HasPrefix(u, "GHSA-"):
		return 1
	case strings.HasPrefix(u, "GO-"):
		return 2
	}
	return 3
}

// advisoryLess orders ids of one kind with their numbers compared as
// numbers (CVE-2021-9999 before CVE-2021-10000).
func advisoryLess(a, b string) bool {
	pa, pb := strings.Split(a, "-"), strings.Split(b, "-")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		if ea == nil && eb == nil {
			if na != nb {
				return na < nb
			}
			continue
		}
		if c := cmp.Compare(pa[i], pb[i]); c != 0 {
			return c < 0
		}
	}
	return len(pa) < len(pb)
}

// advisoryFingerprint is the fingerprint of a vulnerability of one package
// version in one file: Fingerprint with scanner "advisory", the canonical
// id as rule id and "<package>@<version>" as line context, so it is the
// same whichever tool (or set of tools) reported it.
func advisoryFingerprint(filePath string, a Advisory) string {
	return Fingerprint(advisoryScanner, CanonicalAdvisoryID(a.IDs), filePath,
		strings.ToLower(a.Package)+"@"+normalizeVersion(a.Version), "")
}

// setAdvisory writes the ids, the canonical id and the fingerprint of a
// into f (whose metadata f owns).
func setAdvisory(f *Finding, a Advisory) {
	f.Metadata[MetaAliases] = a.IDs
	f.Metadata[MetaAdvisoryID] = CanonicalAdvisoryID(a.IDs)
	f.Fingerprint = advisoryFingerprint(f.FilePath, a)
}

// mergeAdvisories is the first step of Dedup on findings in canonical
// order: in each AdvisoryKey group, findings whose ids overlap (directly
// or through a third finding: GO-2021-0113 lists CVE-2021-38561, which
// Trivy reports) are one vulnerability and become one finding. The kept
// one is the first unsuppressed one (the most severe), else the first;
// it takes the union of the ids (fingerprint and canonical id recomputed
// from it), a fixed version if it had none, and the others' scanners and
// fingerprints in also_reported_by and merged_fingerprints.
func mergeAdvisories(work []Finding) []Finding {
	type member struct {
		idx int
		adv Advisory
	}
	groups := map[string][]member{}
	var keys []string
	for i := range work {
		k := AdvisoryKey(work[i])
		if k == "" {
			continue
		}
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		a, _ := AdvisoryOf(work[i])
		groups[k] = append(groups[k], member{i, a})
	}
	dropped := make([]bool, len(work))
	any := false
	for _, k := range keys {
		ms := groups[k]
		if len(ms) < 2 {
			continue
		}
		// Union-find over the members, joined by shared ids.
		parent := make([]int, len(ms))
		for i := range parent {
			parent[i] = i
		}
		var find func(int) int
		find = func(i int) int {
			for parent[i] != i {
				parent[i] = parent[parent[i]]
				i = parent[i]
			}
			return i
		}
		owner := map[string]int{}
		for i, m := range ms {
			for _, id := range m.adv.IDs {
				id = strings.ToUpper(id)
				if j, ok := owner[id]; ok {
					if ri, rj := find(i), find(j); ri != rj {
						parent[max(ri, rj)] = min(ri, rj)
					}
				} else {
					owner[id] = i
				}
			}
		}
		sets := map[int][]int{}
		var roots []int
		for i := range ms {
			r := find(i)
			if _, ok := sets[r]; !ok {
				roots = append(roots, r)
			}
			sets[r] = append(sets[r], i)
		}
		for _, r := range roots {
			set := sets[r]
			if len(set) < 2 {
				continue
			}
			any = true
			keep := set[0] // members are in canonical order
			for _, i := range set {
				if !IsSuppressed(work[ms[i].idx]) {
					keep = i
					break
				}
			}
			kf := &work[ms[keep].idx]
			ids := slices.Clone(ms[keep].adv.IDs)
			a := &absorbed{fingerprints: []string{kf.Fingerprint}}
			fixed, _ := kf.Metadata[MetaFixedVersion].(string)
			for _, i := range set {
				if i == keep {
					continue
				}
				d := &work[ms[i].idx]
				dropped[ms[i].idx] = true
				ids = append(ids, ms[i].adv.IDs...)
				if d.Line > 0 {
					a.lines = append(a.lines, d.Line)
				}
				a.lines = append(a.lines, metaInts(d.Metadata[MetaAlsoAtLines])...)
				a.scanners = append(append(a.scanners, d.Scanner), metaStrings(d.Metadata[MetaAlsoReportedBy])...)
				a.fingerprints = append(append(a.fingerprints, d.Fingerprint), metaStrings(d.Metadata[MetaMergedFingerprints])...)
				if fixed == "" {
					fixed, _ = d.Metadata[MetaFixedVersion].(string)
				}
			}
			slices.Sort(ids)
			// The fingerprint first: applyAbsorbed leaves the kept
			// finding's own one out of merged_fingerprints.
			kf.Metadata = maps.Clone(kf.Metadata)
			setAdvisory(kf, Advisory{Package: ms[keep].adv.Package, Version: ms[keep].adv.Version, IDs: slices.Compact(ids)})
			if fixed != "" {
				kf.Metadata[MetaFixedVersion] = fixed
			}
			applyAbsorbed(kf, a)
		}
	}
	if !any {
		return work
	}
	out := work[:0]
	for i := range work {
		if !dropped[i] {
			out = append(out, work[i])
		}
	}
	clear(work[len(out):])
	Sort(out) // a new fingerprint may break a tie differently
	return out
}
