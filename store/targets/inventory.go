package targets

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"scand/store/sqlbase"
)

// ComponentQuery selects components of the latest SBOM of each target:
// the components captured by its latest completed scan that read a tree.
type ComponentQuery struct {
	// Name matches the package name exactly, case-insensitively.
	Name string
	// PURL matches the package URL without its version (pkg:npm/lodash
	// matches pkg:npm/lodash@4.17.20).
	PURL      string
	Ecosystem string
	TargetIDs []int64
}

// ComponentRow is one component in one target's latest SBOM.
type ComponentRow struct {
	TargetID                       int64
	TargetName, TargetKind, ScanID string
	Name, Version, Ecosystem, PURL string
}

// InventoryComponents calls yield for each component q selects, in target
// then SBOM order; the version-range test is the caller's (it needs each
// ecosystem's ordering). yield returning false stops. A name or purl is
// looked up in scan_components' indexes, once per target.
func (s *Targets) InventoryComponents(ctx context.Context, q ComponentQuery, yield func(ComponentRow) bool) error {
	var where []string
	var args []any
	// SQLite would rather read each SBOM whole by the primary key than
	// look the package up: the index is named.
	indexed := ""
	switch {
	case q.PURL != "":
		indexed = " INDEXED BY scan_components_purl"
	case q.Name != "":
		indexed = " INDEXED BY scan_components_name"
	}
	if q.Name != "" {
		where = append(where, "c.name_lc = lower(?)")
		args = append(args, q.Name)
	}
	if q.PURL != "" {
		where = append(where, "c.purl_base = ?")
		args = append(args, q.PURL)
	}
	if q.Ecosystem != "" {
		where = append(where, "lower(c.ecosystem) = lower(?)")
		args = append(args, q.Ecosystem)
	}
	targetFilter := ""
	var targetArgs []any
	if len(q.TargetIDs) > 0 {
		targetFilter = " WHERE t.id IN (" + sqlbase.Placeholders(len(q.TargetIDs)) + ")"
		for _, id := range q.TargetIDs {
			targetArgs = append(targetArgs, id)
		}
	}
	cond := ""
	if len(where) > 0 {
		cond = " AND " + strings.Join(where, " AND ")
	}
	// The latest SBOM of each target is one entry of the partial index
	// scans_target_sbom (reading scans rows would read their SBOMs);
	// MATERIALIZED computes it once per target, not once per join.
	rows, err := s.db.QueryContext(ctx, `WITH sbom AS MATERIALIZED (SELECT t.id, t.name, t.kind,
			(SELECT max(seq) FROM scans s INDEXED BY scans_target_sbom
				WHERE s.target_id = t.id AND s.components IS NOT NULL AND s.status = 'completed' AND s.hidden = 0) AS seq
			FROM targets t`+targetFilter+`)
		SELECT b.id, b.name, b.kind, s.id, c.name, c.version, c.ecosystem, c.purl
		FROM sbom b JOIN scans s ON s.seq = b.seq JOIN scan_components c`+indexed+` ON c.scan_seq = b.seq`+cond+` ORDER BY b.id, c.idx`,
		append(targetArgs, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c ComponentRow
		if err := rows.Scan(&c.TargetID, &c.TargetName, &c.TargetKind, &c.ScanID, &c.Name, &c.Version, &c.Ecosystem, &c.PURL); err != nil {
			return err
		}
		if !yield(c) {
			return nil
		}
	}
	return rows.Err()
}

// AffectedRow is one finding of a target's latest completed scan that
// reports a vulnerability.
type AffectedRow struct {
	TargetID                       int64
	TargetName, TargetKind, ScanID string
	Fingerprint, Severity          string
	RuleID, Package, Version       string
	Ecosystem, FixedVersion        string
	Aliases                        []string // shared between rows: read only
	Verdict                        string   // "new" when none
}

// EachVulnerabilityFinding streams the first limit (all when negative)
// dependency findings of every target's latest completed scan whose rule
// id or any alias is id (case-insensitive), in target order. They are
// read from latest_advisories alone, whose key (advisory, target_id, k)
// is that order: a page stops after limit rows.
func (s *Targets) EachVulnerabilityFinding(ctx context.Context, id string, limit int, fn func(AffectedRow) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT t.id, t.name, t.kind, s.id, la.fingerprint, la.severity,
			la.rule_id, la.package, la.version, la.ecosystem, la.fixed_version, la.aliases, coalesce(ts.status, 'new')
		FROM latest_advisories la JOIN targets t ON t.id = la.target_id
		JOIN scans s ON s.seq = t.latest_seq
		LEFT JOIN triage_states ts ON ts.fingerprint = la.fingerprint
		WHERE la.advisory = upper(?1) AND `+latestAdvisoryRows+`
		ORDER BY la.target_id, la.k LIMIT ?2`, id, limit)
	if err != nil {
		return err
	}
	defer rows.Close()
	// One advisory's findings mostly carry the same alias list: each
	// distinct list is decoded once (decoding was most of the answer's
	// time at thousands of findings).
	decoded := map[string][]string{}
	for rows.Next() {
		var a AffectedRow
		var aliases string
		if err := rows.Scan(&a.TargetID, &a.TargetName, &a.TargetKind, &a.ScanID, &a.Fingerprint, &a.Severity, &a.RuleID, &a.Package, &a.Version,
			&a.Ecosystem, &a.FixedVersion, &aliases, &a.Verdict); err != nil {
			return err
		}
		list, ok := decoded[aliases]
		if !ok {
			list = decodeAliases(aliases)
			decoded[aliases] = list
		}
		a.Aliases = list
		if err := fn(a); err != nil {
			return err
		}
	}
	return rows.Err()
}

func decodeAliases(s string) []string {
	out := []string{}
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// VulnerabilityDigest is what every target's latest completed scan
// reports of one advisory: per target and per package sums over all its
// findings, the distinct alias lists, and the first findings in target
// order. The sums are made in SQL, so an advisory in thousands of
// findings costs a few aggregate passes, not thousands of decoded rows.
type VulnerabilityDigest struct {
	Total    int
	Targets  []AffectedTarget
	Packages []AffectedPackage
	// AliasLists are the distinct (rule id, aliases) of the findings.
	AliasLists [][]string
	Findings   []AffectedRow
}

// AffectedTarget is a target whose latest scan reports the advisory;
// Open leaves out findings whose verdict is one of the hidden ones.
type AffectedTarget struct {
	TargetID                       int64
	TargetName, TargetKind, ScanID string
	Findings, Open                 int
}

// AffectedPackage is a package version the advisory is reported in, the
// fixed versions the scanners gave and the targets holding it.
type AffectedPackage struct {
	Ecosystem, Name, Version string
	FixedVersions            []string
	TargetIDs                []int64
}

// latestAdvisoryRows keeps to rows of each target's latest scan, as
// latestRows does for latest_findings.
const latestAdvisoryRows = "la.k >> 32 = t.latest_seq"

// Vulnerability sums up advisory id (any alias, case-insensitive) over
// every target's latest completed scan, listing at most limit findings.
// Each pass reads the advisory's rows of latest_advisories in an order
// the grouping follows (no finding row, no sort of the rows).
func (s *Targets) Vulnerability(ctx context.Context, id string, hidden []string, limit int) (VulnerabilityDigest, error) {
	var d VulnerabilityDigest
	args := []any{id}
	open := "1"
	if len(hidden) > 0 {
		open = "CASE WHEN coalesce(ts.status, 'new') IN (" + sqlbase.Placeholders(len(hidden)) + ") THEN 0 ELSE 1 END"
		args = append(args, sqlbase.AnySlice(hidden)...)
	}
	// Placeholders are numbered ?1 for the id, then positional: the
	// hidden list follows it in args.
	rows, err := s.db.QueryContext(ctx, `SELECT t.id, t.name, t.kind, (SELECT id FROM scans WHERE seq = t.latest_seq), count(*), sum(`+open+`)
		FROM latest_advisories la JOIN targets t ON t.id = la.target_id LEFT JOIN triage_states ts ON ts.fingerprint = la.fingerprint
		WHERE la.advisory = upper(?1) AND `+latestAdvisoryRows+`
		GROUP BY la.target_id ORDER BY la.target_id`, args...)
	d.Targets, err = sqlbase.Collect(rows, err, func(r sqlbase.Row) (AffectedTarget, error) {
		var a AffectedTarget
		err := r.Scan(&a.TargetID, &a.TargetName, &a.TargetKind, &a.ScanID, &a.Findings, &a.Open)
		d.Total += a.Findings
		return a, err
	})
	if err != nil || d.Total == 0 {
		return d, err
	}
	// The package index is in group order and covers the columns; it is
	// named so that statistics (ANALYZE) cannot turn the plan into a
	// sort of the key range.
	rows, err = s.db.QueryContext(ctx, `SELECT la.ecosystem, la.package, la.version,
			json_group_array(DISTINCT la.fixed_version) FILTER (WHERE la.fixed_version <> ''),
			json_group_array(DISTINCT la.target_id),
			json_group_array(DISTINCT la.rule_id || char(1) || la.aliases)
		FROM latest_advisories la INDEXED BY latest_advisories_package JOIN targets t ON t.id = la.target_id
		WHERE la.advisory = upper(?1) AND `+latestAdvisoryRows+`
		GROUP BY la.ecosystem, la.package, la.version ORDER BY min(la.target_id), min(la.k)`, id)
	seenLists := map[string]bool{}
	d.Packages, err = sqlbase.Collect(rows, err, func(r sqlbase.Row) (AffectedPackage, error) {
		var p AffectedPackage
		var fixed, targetIDs, aliasLists string
		err := r.Scan(&p.Ecosystem, &p.Name, &p.Version, &fixed, &targetIDs, &aliasLists)
		// Each entry is the rule id, \x01, then the JSON alias list.
		for _, entry := range decodeAliases(aliasLists) {
			if seenLists[entry] {
				continue
			}
			seenLists[entry] = true
			rule, list, _ := strings.Cut(entry, "\x01")
			d.AliasLists = append(d.AliasLists, append([]string{rule}, decodeAliases(list)...))
		}
		p.FixedVersions = decodeAliases(fixed)
		p.TargetIDs = []int64{}
		_ = json.Unmarshal([]byte(targetIDs), &p.TargetIDs)
		slices.Sort(p.TargetIDs)
		return p, err
	})
	if err != nil {
		return d, err
	}
	err = s.EachVulnerabilityFinding(ctx, id, limit, func(a AffectedRow) error {
		d.Findings = append(d.Findings, a)
		return nil
	})
	return d, err
}
