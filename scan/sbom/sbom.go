// Package sbom writes the SBOM of a scan's captured components as
// CycloneDX 1.5 or SPDX 2.3 JSON.
package sbom

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"scand/scan/components"
	"scand/scan/spdx"
)

// SBOM rendering: pure functions from discovered components to CycloneDX
// 1.5 and SPDX 2.3 JSON. The output is byte-deterministic for the same
// input (sorted components, ids and serial numbers derived from content,
// the timestamp taken from meta), so two renderings of one scan diff clean.

// Meta is what an SBOM says about the scan that produced it.
type Meta struct {
	ScanID      string
	TargetPath  string
	Timestamp   time.Time
	ToolVersion string
}

// sbomTargetName is the name the target goes by: the base of its path.
func sbomTargetName(meta Meta) string {
	base := path.Base(filepath.ToSlash(meta.TargetPath))
	if base == "/" || base == "." || base == "" {
		return "target"
	}
	return base
}

// sbomSorted returns a sorted copy, so callers may pass components in any
// order and the rendering does not depend on it.
func sbomSorted(comps []components.Component) []components.Component {
	out := append([]components.Component(nil), comps...)
	slices.SortStableFunc(out, components.Compare)
	return out
}

// sbomGraph assigns every component a unique reference and resolves
// DependsOn purls to references, preferring the component declared in the
// same file (two lockfiles of a monorepo may both lock lodash@4.17.21).
type sbomGraph struct {
	refs     []string
	deps     [][]string // per component, resolved references, sorted
	rootDeps []int      // components the target itself depends on
}

func sbomBuildGraph(comps []components.Component, refOf func(i int, base string, n int) string) sbomGraph {
	g := sbomGraph{refs: make([]string, len(comps)), deps: make([][]string, len(comps))}
	used := map[string]int{}
	type key struct{ purl, source string }
	bySource := map[key]int{}
	byPURL := map[string]int{}
	for i, c := range comps {
		base := c.PURL
		if base == "" {
			base = c.Ecosystem + ":" + c.Name + "@" + c.Version
		}
		used[base]++
		g.refs[i] = refOf(i, base, used[base])
		bySource[key{c.PURL, c.Source}] = i
		if _, ok := byPURL[c.PURL]; !ok {
			byPURL[c.PURL] = i
		}
	}
	hasParent := make([]bool, len(comps))
	for i, c := range comps {
		seen := map[string]bool{}
		for _, p := range c.DependsOn {
			j, ok := bySource[key{p, c.Source}]
			if !ok {
				if j, ok = byPURL[p]; !ok {
					continue
				}
			}
			if j == i || seen[g.refs[j]] {
				continue
			}
			seen[g.refs[j]] = true
			g.deps[i] = append(g.deps[i], g.refs[j])
			hasParent[j] = true
		}
		sort.Strings(g.deps[i])
	}
	// The target depends on what it declares, and on anything whose parent
	// is unknown, so that no component floats unattached in the graph.
	for i, c := range comps {
		if c.Scope == components.ScopeDirect || c.Scope == "" || !hasParent[i] {
			g.rootDeps = append(g.rootDeps, i)
		}
	}
	return g
}

// sbomUUID makes an RFC 4122 version-5 UUID from a SHA-256 content digest,
// so the same scan and components always get the same identifier and
// different ones practically never share it.
func sbomUUID(parts ...string) string {
	digest := sha256.New()
	for _, p := range parts {
		digest.Write([]byte(p))
		digest.Write([]byte{0})
	}
	// RFC 4122 URL namespace: the name below is URL-like.
	ns := []byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	h := sha1.New()
	h.Write(ns)
	h.Write([]byte("scand:sbom:" + hex.EncodeToString(digest.Sum(nil))))
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func sbomContentParts(meta Meta, comps []components.Component) []string {
	parts := []string{meta.ScanID}
	for _, c := range comps {
		parts = append(parts, c.PURL)
	}
	return parts
}

// sbomMarshal encodes with two-space indentation and without HTML
// escaping (license names and URLs contain & and <).
func sbomMarshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ---- CycloneDX 1.5 ----

type sbomCDXBOM struct {
	BOMFormat    string          `json:"bomFormat"`
	SpecVersion  string          `json:"specVersion"`
	SerialNumber string          `json:"serialNumber"`
	Version      int             `json:"version"`
	Metadata     sbomCDXMetadata `json:"metadata"`
	Components   []sbomCDXComp   `json:"components"`
	Dependencies []sbomCDXDep    `json:"dependencies"`
}

type sbomCDXMetadata struct {
	Timestamp string       `json:"timestamp"`
	Tools     sbomCDXTools `json:"tools"`
	Component sbomCDXComp  `json:"component"`
}

type sbomCDXTools struct {
	Components []sbomCDXComp `json:"components"`
}

type sbomCDXComp struct {
	Type       string             `json:"type"`
	BOMRef     string             `json:"bom-ref,omitempty"`
	Group      string             `json:"group,omitempty"`
	Name       string             `json:"name"`
	Version    string             `json:"version,omitempty"`
	Scope      string             `json:"scope,omitempty"`
	Licenses   []sbomCDXLicChoice `json:"licenses,omitempty"`
	PURL       string             `json:"purl,omitempty"`
	Properties []sbomCDXProperty  `json:"properties,omitempty"`
}

type sbomCDXLicChoice struct {
	License    *sbomCDXLicense `json:"license,omitempty"`
	Expression string          `json:"expression,omitempty"`
}

type sbomCDXLicense struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

type sbomCDXProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type sbomCDXDep struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// CycloneDXJSON renders comps as a CycloneDX 1.5 JSON BOM.
//
// Each component is a "library" whose bom-ref is its purl; a purl declared
// by two files (a monorepo's two lockfiles) gets "|<source>" appended on
// the later ones so references stay unique. Scope: CycloneDX's scope says
// whether a component is needed at run time, not whether it is direct, so
// dev-only components are "optional" and all others "required"; the
// direct/transitive distinction goes in the scand:dependency property, the
// declaring file in scand:source. Licenses: one or more SPDX ids become
// license.id entries, SPDX expressions a single expression entry, and
// anything else license.name entries (the schema allows no mix of
// expressions and names). npm scopes, Maven groupIds and Composer vendors
// go in group, as CycloneDX tools conventionally put them.
func CycloneDXJSON(meta Meta, comps []components.Component) ([]byte, error) {
	comps = sbomSorted(comps)
	g := sbomBuildGraph(comps, func(i int, base string, n int) string {
		switch n {
		case 1:
			return base
		case 2:
			return base + "|" + comps[i].Source
		}
		return fmt.Sprintf("%s|%s|%d", base, comps[i].Source, n)
	})
	name := sbomTargetName(meta)
	rootRef := "scand:target:" + name
	tool := sbomCDXComp{Type: "application", Name: "scand", Version: meta.ToolVersion}
	bom := sbomCDXBOM{
		BOMFormat:    "CycloneDX",
		SpecVersion:  "1.5",
		SerialNumber: CycloneDXSerial(meta, comps),
		Version:      1,
		Metadata: sbomCDXMetadata{
			Timestamp: meta.Timestamp.UTC().Format(time.RFC3339),
			Tools:     sbomCDXTools{Components: []sbomCDXComp{tool}},
			Component: sbomCDXComp{Type: "application", BOMRef: rootRef, Name: name},
		},
		Components:   []sbomCDXComp{},
		Dependencies: []sbomCDXDep{},
	}
	for i, c := range comps {
		group, short := sbomGroupName(c)
		cc := sbomCDXComp{
			Type:     "library",
			BOMRef:   g.refs[i],
			Group:    group,
			Name:     short,
			Version:  c.Version,
			Scope:    "required",
			Licenses: sbomCDXLicenses(c.Licenses),
			PURL:     c.PURL,
			Properties: []sbomCDXProperty{
				{Name: "scand:source", Value: c.Source},
			},
		}
		if c.Dev {
			cc.Scope = "optional"
		}
		if c.Scope != "" {
			cc.Properties = append(cc.Properties, sbomCDXProperty{Name: "scand:dependency", Value: c.Scope})
		}
		if c.DeclaredRange != "" {
			// No lockfile pins it: the range is what the manifest says;
			// version is only what is installed, if anything is.
			cc.Properties = append(cc.Properties, sbomCDXProperty{Name: "scand:declared_range", Value: c.DeclaredRange})
		}
		bom.Components = append(bom.Components, cc)
	}
	if len(g.rootDeps) > 0 {
		d := sbomCDXDep{Ref: rootRef}
		for _, i := range g.rootDeps {
			d.DependsOn = append(d.DependsOn, g.refs[i])
		}
		sort.Strings(d.DependsOn)
		bom.Dependencies = append(bom.Dependencies, d)
	}
	for i := range comps {
		if len(g.deps[i]) > 0 {
			bom.Dependencies = append(bom.Dependencies, sbomCDXDep{Ref: g.refs[i], DependsOn: g.deps[i]})
		}
	}
	return sbomMarshal(bom)
}

// CycloneDXSerial is the serialNumber CycloneDXJSON gives the BOM of
// meta and comps: a VEX document links into that BOM with it
// (urn:cdx:<serial>/1#<bom-ref>).
func CycloneDXSerial(meta Meta, comps []components.Component) string {
	return "urn:uuid:" + sbomUUID(sbomContentParts(meta, sbomSorted(comps))...)
}

// sbomGroupName splits a component name into CycloneDX group and name.
func sbomGroupName(c components.Component) (string, string) {
	switch c.Ecosystem {
	case components.EcoNPM:
		if strings.HasPrefix(c.Name, "@") {
			if i := strings.IndexByte(c.Name, '/'); i > 0 {
				return c.Name[:i], c.Name[i+1:]
			}
		}
	case components.EcoComposer:
		if i := strings.IndexByte(c.Name, '/'); i > 0 {
			return c.Name[:i], c.Name[i+1:]
		}
	case components.EcoMaven:
		if i := strings.IndexByte(c.Name, ':'); i > 0 {
			return c.Name[:i], c.Name[i+1:]
		}
	}
	return "", c.Name
}

func sbomCDXLicenses(lics []string) []sbomCDXLicChoice {
	if len(lics) == 0 {
		return nil
	}
	allIDs, allSPDX := true, true
	for _, l := range lics {
		allIDs = allIDs && spdx.IsSingleID(l)
		allSPDX = allSPDX && spdx.IsSPDX(l)
	}
	var out []sbomCDXLicChoice
	switch {
	case allIDs:
		for _, l := range lics {
			out = append(out, sbomCDXLicChoice{License: &sbomCDXLicense{ID: l}})
		}
	case allSPDX:
		out = append(out, sbomCDXLicChoice{Expression: sbomJoinOr(lics)})
	default:
		for _, l := range lics {
			if spdx.IsSingleID(l) {
				out = append(out, sbomCDXLicChoice{License: &sbomCDXLicense{ID: l}})
			} else {
				out = append(out, sbomCDXLicChoice{License: &sbomCDXLicense{Name: l}})
			}
		}
	}
	return out
}

// sbomJoinOr joins alternatives into one expression, parenthesizing
// compound ones.
func sbomJoinOr(exprs []string) string {
	if len(exprs) == 1 {
		return exprs[0]
	}
	parts := make([]string, len(exprs))
	for i, e := range exprs {
		if strings.Contains(e, " ") {
			e = "(" + e + ")"
		}
		parts[i] = e
	}
	return strings.Join(parts, " OR ")
}

// ---- SPDX 2.3 ----

type sbomSPDXDoc struct {
	SPDXVersion       string                `json:"spdxVersion"`
	DataLicense       string                `json:"dataLicense"`
	SPDXID            string                `json:"SPDXID"`
	Name              string                `json:"name"`
	DocumentNamespace string                `json:"documentNamespace"`
	CreationInfo      sbomSPDXCreation      `json:"creationInfo"`
	Packages          []sbomSPDXPackage     `json:"packages"`
	Relationships     []sbomSPDXRelation    `json:"relationships"`
	Extracted         []sbomSPDXExtractedLi `json:"hasExtractedLicensingInfos,omitempty"`
}

type sbomSPDXCreation struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type sbomSPDXPackage struct {
	SPDXID                string           `json:"SPDXID"`
	Name                  string           `json:"name"`
	VersionInfo           string           `json:"versionInfo,omitempty"`
	PrimaryPackagePurpose string           `json:"primaryPackagePurpose,omitempty"`
	DownloadLocation      string           `json:"downloadLocation"`
	FilesAnalyzed         bool             `json:"filesAnalyzed"`
	LicenseConcluded      string           `json:"licenseConcluded"`
	LicenseDeclared       string           `json:"licenseDeclared"`
	CopyrightText         string           `json:"copyrightText"`
	SourceInfo            string           `json:"sourceInfo,omitempty"`
	ExternalRefs          []sbomSPDXExtRef `json:"externalRefs,omitempty"`
}

type sbomSPDXExtRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

type sbomSPDXRelation struct {
	SPDXElementID      string `json:"spdxElementId"`
	RelationshipType   string `json:"relationshipType"`
	RelatedSPDXElement string `json:"relatedSpdxElement"`
}

type sbomSPDXExtractedLi struct {
	LicenseID     string `json:"licenseId"`
	ExtractedText string `json:"extractedText"`
	Name          string `json:"name"`
	Comment       string `json:"comment"`
}

// sbomSPDXIDChars keeps what an SPDX element id may contain.
func sbomSPDXIDChars(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// SPDXJSON renders comps as an SPDX 2.3 JSON document: one package for the
// target (DESCRIBES), one per component with its purl as a PACKAGE-MANAGER
// external reference, DEPENDS_ON from the target to what it declares (dev
// components are DEV_DEPENDENCY_OF it instead) and between components as
// their lockfiles record. licenseDeclared is the SPDX expression when the
// metadata gives one; a license name that is not on the SPDX list becomes a
// LicenseRef- with the name recorded in hasExtractedLicensingInfos; no data
// is NOASSERTION. scand does not conclude licenses, so licenseConcluded is
// always NOASSERTION.
func SPDXJSON(meta Meta, comps []components.Component) ([]byte, error) {
	comps = sbomSorted(comps)
	usedIDs := map[string]bool{}
	g := sbomBuildGraph(comps, func(i int, _ string, _ int) string {
		c := comps[i]
		base := "SPDXRef-Package-" + sbomSPDXIDChars(strings.TrimSuffix(c.Ecosystem+"-"+c.Name+"-"+c.Version, "-"))
		id := base
		for n := 2; usedIDs[id]; n++ {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		usedIDs[id] = true
		return id
	})
	name := sbomTargetName(meta)
	creator := "Tool: scand"
	if meta.ToolVersion != "" {
		creator += "-" + meta.ToolVersion
	}
	hashParts := sbomContentParts(meta, comps)
	for _, c := range comps {
		hashParts = append(hashParts, c.Source, strings.Join(c.Licenses, "\x01"))
	}
	const rootID = "SPDXRef-Target"
	doc := sbomSPDXDoc{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              name,
		DocumentNamespace: "https://scand.invalid/spdx/" + sbomSPDXIDChars(name) + "-" + sbomUUID(hashParts...),
		CreationInfo: sbomSPDXCreation{
			Created:  meta.Timestamp.UTC().Format("2006-01-02T15:04:05Z"),
			Creators: []string{creator},
		},
		Packages: []sbomSPDXPackage{{
			SPDXID:                rootID,
			Name:                  name,
			PrimaryPackagePurpose: "APPLICATION",
			DownloadLocation:      "NOASSERTION",
			LicenseConcluded:      "NOASSERTION",
			LicenseDeclared:       "NOASSERTION",
			CopyrightText:         "NOASSERTION",
		}},
		Relationships: []sbomSPDXRelation{{SPDXElementID: "SPDXRef-DOCUMENT", RelationshipType: "DESCRIBES", RelatedSPDXElement: rootID}},
	}
	extracted := map[string]sbomSPDXExtractedLi{}
	for i, c := range comps {
		p := sbomSPDXPackage{
			SPDXID:                g.refs[i],
			Name:                  c.Name,
			VersionInfo:           c.Version,
			PrimaryPackagePurpose: "LIBRARY",
			DownloadLocation:      "NOASSERTION",
			LicenseConcluded:      "NOASSERTION",
			LicenseDeclared:       sbomSPDXLicense(c.Licenses, extracted),
			CopyrightText:         "NOASSERTION",
			SourceInfo:            sbomSourceInfo(c),
		}
		if c.PURL != "" {
			p.ExternalRefs = []sbomSPDXExtRef{{ReferenceCategory: "PACKAGE-MANAGER", ReferenceType: "purl", ReferenceLocator: c.PURL}}
		}
		doc.Packages = append(doc.Packages, p)
	}
	for _, i := range g.rootDeps {
		if comps[i].Dev {
			doc.Relationships = append(doc.Relationships, sbomSPDXRelation{SPDXElementID: g.refs[i], RelationshipType: "DEV_DEPENDENCY_OF", RelatedSPDXElement: rootID})
		} else {
			doc.Relationships = append(doc.Relationships, sbomSPDXRelation{SPDXElementID: rootID, RelationshipType: "DEPENDS_ON", RelatedSPDXElement: g.refs[i]})
		}
	}
	for i := range comps {
		for _, to := range g.deps[i] {
			doc.Relationships = append(doc.Relationships, sbomSPDXRelation{SPDXElementID: g.refs[i], RelationshipType: "DEPENDS_ON", RelatedSPDXElement: to})
		}
	}
	ids := slices.Sorted(maps.Keys(extracted))
	for _, id := range ids {
		doc.Extracted = append(doc.Extracted, extracted[id])
	}
	return sbomMarshal(doc)
}

func sbomSourceInfo(c components.Component) string {
	s := "declared in " + c.Source
	if c.Line > 0 {
		s += fmt.Sprintf(" line %d", c.Line)
	}
	if c.LicenseSource != "" && len(c.Licenses) > 0 {
		s += "; license from " + c.LicenseSource
	}
	if c.DeclaredRange != "" {
		s += "; declared version range " + c.DeclaredRange + ", no lockfile pins it"
		if c.Version != "" {
			s += " (version as installed in the tree)"
		}
	}
	return s
}

// sbomSPDXLicense turns license entries (alternatives) into one SPDX
// expression, minting LicenseRefs for names off the SPDX list.
func sbomSPDXLicense(lics []string, extracted map[string]sbomSPDXExtractedLi) string {
	if len(lics) == 0 {
		return "NOASSERTION"
	}
	parts := make([]string, 0, len(lics))
	for _, l := range lics {
		if spdx.IsSPDX(l) {
			parts = append(parts, l)
			continue
		}
		ref := l
		text := l
		comment := "License as declared in the package metadata; it is not on the SPDX license list."
		if l == components.LicenseUnidentified {
			text = "The package's license file matched none of the licenses scand identifies."
			comment = "The license text is in the package's LICENSE file on disk."
		} else if !strings.HasPrefix(l, "LicenseRef-") {
			ref = "LicenseRef-" + strings.Trim(sbomSPDXIDChars(l), "-")
		}
		if _, ok := extracted[ref]; !ok {
			extracted[ref] = sbomSPDXExtractedLi{LicenseID: ref, ExtractedText: text, Name: l, Comment: comment}
		}
		parts = append(parts, ref)
	}
	return sbomJoinOr(parts)
}
