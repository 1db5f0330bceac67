package portfolio

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/auth"
	"scand/finding/versions"
	"scand/store"
	"scand/store/targets"
)

// maxInventoryRows caps the component rows one inventory query reads, so
// an unfiltered query over a large portfolio answers in bounded time and
// memory; the answer says when it was cut.
const maxInventoryRows = 200000

func (h Handlers) inventoryRoutes() []openapi.Route {
	return []openapi.Route{
		{Method: "GET", Path: "/components", Scope: auth.ScopeRead, Tag: "portfolio",
			Summary: "Components across the latest SBOM of each target, with the targets that hold each; version ranges per ecosystem",
			Params: []openapi.Param{
				{Name: "name", In: "query", Type: "string", Description: "package name, exact, case-insensitive"},
				{Name: "purl", In: "query", Type: "string", Description: "package URL; its version part, if any, is ignored (use version)"},
				{Name: "ecosystem", In: "query", Type: "string", Description: "npm, pypi, maven, golang, cargo, deb, rpm, ..."},
				{Name: "version", In: "query", Type: "string", Description: "exact version or range: <2.17.1, >=1.0,<2 (comma: and), !=1.2; ordered by the ecosystem's rules (semver, PEP 440, Maven, dpkg, rpm)"},
				{Name: "target", In: "query", Type: "string", Description: "target ids, comma-separated"},
				{Name: "limit", In: "query", Type: "integer", Description: "components per answer (default 100, at most 1000)"},
			},
			Response: ComponentList{}, Errors: []int{422}, Handler: h.listComponents},
		{Method: "GET", Path: "/vulnerabilities/{id}", Scope: auth.ScopeRead, Tag: "portfolio",
			Summary: "Targets a vulnerability (CVE, GHSA or any alias) affects in their latest scan: packages, versions, fixed versions, verdicts",
			Params: []openapi.Param{{Name: "id", In: "path", Type: "string", Required: true},
				{Name: "limit", In: "query", Type: "integer", Description: "findings listed (default 100, at most 1000); targets and packages always cover every finding, and GET /findings?advisory= pages through all of them"}},
			Response: Vulnerability{}, Errors: []int{404, 422}, Handler: h.getVulnerability},
	}
}

// ComponentList is the inventory's answer.
type ComponentList struct {
	Items []ComponentView `json:"items"`
	// Truncated is true when more components matched than limit (or the
	// inventory's row cap was reached).
	Truncated bool `json:"truncated"`
}

// ComponentView is one component (name, version, ecosystem, purl) and
// the targets whose latest SBOM holds it.
type ComponentView struct {
	Name      string          `json:"name"`
	Version   string          `json:"version"`
	Ecosystem string          `json:"ecosystem"`
	PURL      string          `json:"purl"`
	Targets   []TargetRefView `json:"targets"`
}

// TargetRefView names a target and the scan something was seen in.
type TargetRefView struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	ScanID string `json:"scan_id"`
}

func (h Handlers) listComponents(w http.ResponseWriter, r *http.Request) error {
	qs := r.URL.Query()
	q := targets.ComponentQuery{Name: strings.TrimSpace(qs.Get("name")), Ecosystem: strings.TrimSpace(qs.Get("ecosystem"))}
	if p := strings.TrimSpace(qs.Get("purl")); p != "" {
		if !strings.HasPrefix(p, "pkg:") {
			return httpio.Invalid("value_error", "purl must start with pkg:", p, "query", "purl")
		}
		base, _, _ := strings.Cut(p, "?")
		base, _, _ = strings.Cut(base, "#")
		if i := strings.LastIndex(base, "@"); i > strings.LastIndex(base, "/") {
			base = base[:i]
		}
		q.PURL = base
	}
	for _, id := range httpio.SplitCSV(qs.Get("target")) {
		n, err := parsePositive(id)
		if err != nil {
			return httpio.Invalid("int_parsing", "target ids are positive integers", id, "query", "target")
		}
		q.TargetIDs = append(q.TargetIDs, n)
	}
	var constraint *versions.Constraint
	if v := strings.TrimSpace(qs.Get("version")); v != "" {
		c, err := versions.ParseConstraint(v)
		if err != nil {
			return httpio.Invalid("value_error", "version: "+err.Error(), v, "query", "version")
		}
		constraint = &c
	}
	limit, err := httpio.QueryInt(r, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	out, err := Inventory(r.Context(), h.Store, q, constraint, limit)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

// Inventory lists the components q selects whose version satisfies
// constraint (nil: any), grouped with the targets that hold each, at most
// limit; the API and the console share it.
func Inventory(ctx context.Context, st *store.Store, q targets.ComponentQuery, constraint *versions.Constraint, limit int) (ComponentList, error) {
	type key struct{ name, version, eco, purl string }
	index := map[key]int{}
	out := ComponentList{Items: []ComponentView{}}
	read := 0
	seen := map[[2]any]bool{}
	err := st.InventoryComponents(ctx, q, func(c targets.ComponentRow) bool {
		read++
		if read > maxInventoryRows {
			out.Truncated = true
			return false
		}
		if constraint != nil && !constraint.Matches(versions.SchemeOf(ecosystemOf(c)), c.Version) {
			return true
		}
		k := key{c.Name, c.Version, c.Ecosystem, c.PURL}
		i, ok := index[k]
		if !ok {
			if len(out.Items) >= limit {
				out.Truncated = true
				return true
			}
			i = len(out.Items)
			index[k] = i
			out.Items = append(out.Items, ComponentView{Name: c.Name, Version: c.Version, Ecosystem: c.Ecosystem, PURL: c.PURL, Targets: []TargetRefView{}})
		}
		if !seen[[2]any{i, c.TargetID}] {
			seen[[2]any{i, c.TargetID}] = true
			out.Items[i].Targets = append(out.Items[i].Targets, TargetRefView{ID: c.TargetID, Name: c.TargetName, Kind: c.TargetKind, ScanID: c.ScanID})
		}
		return true
	})
	if err != nil {
		return out, err
	}
	sort.SliceStable(out.Items, func(i, j int) bool {
		a, b := out.Items[i], out.Items[j]
		if a.Ecosystem != b.Ecosystem {
			return a.Ecosystem < b.Ecosystem
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return versions.Compare(versions.SchemeOf(a.Ecosystem), a.Version, b.Version) < 0
	})
	return out, nil
}

// ecosystemOf is a component's ecosystem, from its purl type when the
// capture gave none.
func ecosystemOf(c targets.ComponentRow) string {
	if c.Ecosystem != "" {
		return c.Ecosystem
	}
	return purlType(c.PURL)
}

func parsePositive(s string) (int64, error) {
	var n int64
	if s == "" {
		return 0, httpio.NotFound("")
	}
	for _, r := range s {
		if r < '0' || r > '9' || n > 1<<55 {
			return 0, httpio.NotFound("")
		}
		n = n*10 + int64(r-'0')
	}
	if n == 0 {
		return 0, httpio.NotFound("")
	}
	return n, nil
}

// Vulnerability is what GET /vulnerabilities/{id} answers.
type Vulnerability struct {
	ID string `json:"id" doc:"the id asked for"`
	// Aliases are every id the matching findings give the vulnerability.
	Aliases  []string          `json:"aliases"`
	Targets  []AffectedTarget  `json:"targets"`
	Packages []AffectedPackage `json:"packages"`
	// Findings are the first limit findings in target order; the rest
	// are counted, and listed by GET /findings?advisory=.
	Findings          []AffectedFindingV `json:"findings"`
	FindingsTotal     int                `json:"findings_total"`
	FindingsTruncated bool               `json:"findings_truncated"`
}

// Findings listed by GET /vulnerabilities/{id} by default and at most:
// an advisory in a base image can sit in every target, and the answer
// (and the console page) must stay small; the cross-target findings list
// pages through all of them.
const (
	vulnerabilityFindingsDefault = 100
	vulnerabilityFindingsMax     = 1000
)

// AffectedTarget is a target whose latest completed scan reports the
// vulnerability.
type AffectedTarget struct {
	TargetRefView
	Findings int `json:"findings"`
	// Open counts the findings without a hidden verdict.
	Open int `json:"open"`
}

// AffectedPackage is a package and installed version the vulnerability
// is reported in, with the fixed versions the scanners gave.
type AffectedPackage struct {
	Ecosystem     string   `json:"ecosystem"`
	Name          string   `json:"name"`
	Version       string   `json:"version"`
	FixedVersions []string `json:"fixed_versions"`
	Targets       []int64  `json:"target_ids"`
}

// AffectedFindingV is one finding reporting the vulnerability.
type AffectedFindingV struct {
	TargetID     int64  `json:"target_id"`
	ScanID       string `json:"scan_id"`
	Fingerprint  string `json:"fingerprint"`
	Severity     string `json:"severity"`
	RuleID       string `json:"rule_id"`
	Package      string `json:"package"`
	Version      string `json:"version"`
	FixedVersion string `json:"fixed_version"`
	Verdict      string `json:"verdict" doc:"the fingerprint's triage verdict; new when none"`
}

func (h Handlers) getVulnerability(w http.ResponseWriter, r *http.Request) error {
	id := strings.TrimSpace(r.PathValue("id"))
	limit := vulnerabilityFindingsDefault
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > vulnerabilityFindingsMax {
			return httpio.Invalid("int_parsing", fmt.Sprintf("limit must be a whole number from 1 to %d", vulnerabilityFindingsMax), v, "query", "limit")
		}
		limit = n
	}
	out, found, err := VulnerabilityOf(r.Context(), h.Store, id, h.Hidden, limit)
	if err != nil {
		return err
	}
	if !found {
		return httpio.NotFound("Vulnerability not found in any target's latest scan")
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

// VulnerabilityOf gathers what every target's latest scan reports of a
// vulnerability id (any alias); found is false when none does. The API
// and the console share it.
func VulnerabilityOf(ctx context.Context, st *store.Store, id string, hidden []string, limit int) (Vulnerability, bool, error) {
	if id == "" || len(id) > 200 {
		return Vulnerability{}, false, nil
	}
	d, err := st.Vulnerability(ctx, id, hidden, limit)
	if err != nil || d.Total == 0 {
		return Vulnerability{}, false, err
	}
	out := Vulnerability{ID: id, Aliases: []string{}, Targets: []AffectedTarget{}, Packages: []AffectedPackage{}, Findings: []AffectedFindingV{},
		FindingsTotal: d.Total}
	seen := map[string]bool{strings.ToUpper(id): true}
	for _, list := range d.AliasLists {
		for _, al := range list {
			if up := strings.ToUpper(al); al != "" && !seen[up] {
				seen[up] = true
				out.Aliases = append(out.Aliases, al)
			}
		}
	}
	sort.Strings(out.Aliases)
	for _, t := range d.Targets {
		out.Targets = append(out.Targets, AffectedTarget{TargetRefView: TargetRefView{ID: t.TargetID, Name: t.TargetName, Kind: t.TargetKind, ScanID: t.ScanID},
			Findings: t.Findings, Open: t.Open})
	}
	for _, p := range d.Packages {
		out.Packages = append(out.Packages, AffectedPackage{Ecosystem: p.Ecosystem, Name: p.Name, Version: p.Version, FixedVersions: p.FixedVersions, Targets: p.TargetIDs})
	}
	for _, a := range d.Findings {
		out.Findings = append(out.Findings, AffectedFindingV{TargetID: a.TargetID, ScanID: a.ScanID, Fingerprint: a.Fingerprint, Severity: a.Severity,
			RuleID: a.RuleID, Package: a.Package, Version: a.Version, FixedVersion: a.FixedVersion, Verdict: a.Verdict})
	}
	out.FindingsTruncated = out.FindingsTotal > len(out.Findings)
	return out, true, nil
}
