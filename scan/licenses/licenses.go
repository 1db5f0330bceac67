// Package licenses is the built-in `licenses` scanner (scan type
// dependency): the license policy applied to the components
// scan/components discovers. The policy table is the comment below.
package licenses

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"scand/finding"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/spdx"
)

// licensesScanner is the built-in `licenses` scanner: it discovers the
// target's components (components.Discover, offline) and reports the ones
// whose license carries obligations or cannot be determined.
//
// Policy. A component's license is classified from its SPDX expression:
// for "A OR B" the project may pick, so the least restrictive option
// counts; for "A AND B" both apply, so the most restrictive counts; several
// license entries on one package are alternatives (OR). "GPL-2.0 WITH
// Classpath-exception-2.0" and similar linking exceptions count as weak
// copyleft. A license name that is not an SPDX id is classified by its
// wording ("GNU Lesser General Public License" is weak copyleft, "BSD
// License" permissive); wording that names no known family is unknown.
//
//	rule                       | when                                               | runtime | dev-only
//	---------------------------+----------------------------------------------------+---------+---------
//	license-network-copyleft   | AGPL-*, SSPL-1.0: obligations triggered by users   | high    | low
//	                           | reaching the software over a network, so they bite |         |
//	                           | SaaS that never distributes a binary               |         |
//	license-strong-copyleft    | GPL-*, EUPL-*, OSL-*, CC-BY-SA-*, ...: distributing| high    | low
//	                           | the combined work requires releasing its source    |         |
//	license-source-available   | BUSL-1.1, Elastic-2.0, CC-BY-NC-*, PolyForm-*: not | medium  | info
//	                           | open source; use is restricted by the licensor     |         |
//	license-unknown            | a license scand cannot classify (custom text,      | medium  | info
//	                           | "SEE LICENSE IN ...", npm's UNLICENSED)            |         |
//	license-missing            | the package's own metadata is on disk and declares | medium  | info
//	                           | no license (no license = all rights reserved)      |         |
//	license-weak-copyleft      | LGPL-*, MPL-*, EPL-*, CDDL-*, GPL with a linking   | low     | info
//	                           | exception: file- or library-level obligations      |         |
//	license-data-unavailable   | one per manifest: its components have no metadata  | info    | info
//	                           | on disk (nothing installed or vendored), so their  |         |
//	                           | licenses were not checked                          |         |
//	dependency-versions-       | one per manifest without a lockfile (package.json  | info    | info
//	unresolved                 | alone): its components are version ranges, so no   |         |
//	                           | advisory can be matched to them                    |         |
//
// "dev-only" means the lockfile marks the component as a development
// dependency (npm dev, Pipfile develop, poetry dev group, Maven test scope):
// it does not ship, so its license obligations rarely reach users.
// Permissive licenses (MIT, Apache-2.0, BSD-*, ISC, ...) raise nothing.
// No rule has a CWE: a license is a legal, not a software, weakness.
type licensesScanner struct {
	scan.Builtin
	cfg scan.Config
}

// New returns the built-in `licenses` scanner.
func New(cfg scan.Config) scan.Scanner {
	return &licensesScanner{Builtin: scan.NewBuiltin("licenses", scan.TypeDependency), cfg: cfg}
}

// Supplementary: licenses finds license obligations, not vulnerable
// dependencies; a dependency scan where only it ran examined nothing for
// vulnerabilities (scan.Supplementary).
func (s *licensesScanner) Supplementary() bool { return true }

func (s *licensesScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	comps, err := components.Discover(ctx, t.Path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if comps == nil {
			return nil, err
		}
		// Some files could not be parsed; the rest still count. The
		// error names files, never their content.
		s.cfg.Log().Warn("licenses: some manifests were skipped", "error", err.Error())
	}
	return licenseFindings(comps), nil
}

// licenseClass orders license kinds by how restrictive they are; the
// expression evaluation takes min over OR and max over AND.
type licenseClass int

const (
	licenseClassPermissive licenseClass = iota
	licenseClassWeak
	licenseClassUnknown
	licenseClassSourceAvailable
	licenseClassStrong
	licenseClassNetwork
)

// licenseRules gives, per class, the rule id, the severity for a runtime
// and for a dev-only component, and for a recognized license what its
// findings call it (the title's "<kind> license <id>") and what it obliges
// (the description goes on with it after "<component> (<purl>) is under
// <id>"). Read-only.
var licenseRules = map[licenseClass]struct {
	rule         string
	runtime, dev finding.Severity
	kind, terms  string
}{
	licenseClassNetwork: {"license-network-copyleft", finding.High, finding.Low, "Network copyleft",
		". Its copyleft is triggered when users interact with the software over a network, not only on " +
			"distribution: a SaaS built on it must offer its complete corresponding source under the same license " +
			"(SSPL extends that to the whole service stack). Get legal review or replace it."},
	licenseClassStrong: {"license-strong-copyleft", finding.High, finding.Low, "Strong copyleft",
		". Distributing a work that includes or links it requires releasing the whole work's source under a " +
			"compatible copyleft license. Get legal review before shipping it."},
	licenseClassSourceAvailable: {"license-source-available", finding.Medium, finding.Info, "Source-available",
		", which is not an open-source license: the licensor restricts use (typically commercial or competing " +
			"hosted use). Check the terms against how the product uses it."},
	licenseClassUnknown: {"license-unknown", finding.Medium, finding.Info, "", ""},
	licenseClassWeak: {"license-weak-copyleft", finding.Low, finding.Info, "Weak copyleft",
		". Changes to the component itself must be released under the same license, and for LGPL users must " +
			"be able to replace the library; using it unmodified is usually fine."},
}

// licenseLinkingExceptions turn a GPL into a library-friendly license:
// code linking against it is not bound by the copyleft.
var licenseLinkingExceptions = map[string]bool{
	"Classpath-exception-2.0": true, "GCC-exception-2.0": true, "GCC-exception-3.1": true,
	"GPL-3.0-linking-exception": true, "GPL-3.0-linking-source-exception": true,
	"OCaml-LGPL-linking-exception": true, "Universal-FOSS-exception-1.0": true,
	"FLTK-exception": true, "WxWindows-exception-3.1": true, "eCos-exception-2.0": true,
	"mif-exception": true, "Linux-syscall-note": true, "LLVM-exception": true,
	"Font-exception-2.0": true, "GNAT-exception": true, "Qt-LGPL-exception-1.1": true,
}

func licenseHasPrefix(id string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// licenseClassifyID classifies one SPDX-listed id (with its exception).
func licenseClassifyID(id, exception string) licenseClass {
	id = strings.TrimSuffix(id, "+")
	var c licenseClass
	switch {
	case licenseHasPrefix(id, "AGPL-") || id == "SSPL-1.0":
		c = licenseClassNetwork
	case licenseHasPrefix(id, "LGPL", "MPL-", "EPL-", "CDDL-", "CPL-", "MS-RL", "APSL-", "IPL-", "CECILL-C", "ErlPL-", "SPL-", "NPL-", "CPAL-"):
		c = licenseClassWeak
	case licenseHasPrefix(id, "GPL-"):
		c = licenseClassStrong
		if strings.Contains(id, "classpath") || strings.Contains(id, "GCC") {
			c = licenseClassWeak // deprecated "GPL-2.0-with-classpath-exception" style ids
		}
	case licenseHasPrefix(id, "EUPL-", "OSL-", "CC-BY-SA-", "Sleepycat", "QPL-", "RPL-", "CECILL-1", "CECILL-2", "GFDL-"):
		c = licenseClassStrong
	case licenseHasPrefix(id, "BUSL-", "Elastic-", "CC-BY-NC", "CC-BY-ND", "PolyForm-", "Commons-Clause"):
		c = licenseClassSourceAvailable
	default:
		c = licenseClassPermissive
	}
	if c == licenseClassStrong && licenseLinkingExceptions[exception] {
		c = licenseClassWeak
	}
	return c
}

// licenseWords classify a license name that is not SPDX by its wording,
// the first that matches deciding. Copyleft words win over permissive
// ones: text naming both is more likely "dual MIT/GPL" wording than a
// permissive license, and reporting it errs on the side of a human look.
// Read-only.
var licenseWords = []struct {
	re    *regexp.Regexp
	class licenseClass
}{
	{regexp.MustCompile(`^unlicensed$|see licen[cs]e in|proprietary|commercial|all rights reserved|licenseref-scand-unidentified`), licenseClassUnknown},
	{regexp.MustCompile(`affero|\bagpl|server side public|\bsspl`), licenseClassNetwork},
	{regexp.MustCompile(`lesser general public|library general public|\blgpl|mozilla public|\bmpl\b|eclipse public|\bepl\b|\bcddl|common development and distribution`), licenseClassWeak},
	{regexp.MustCompile(`general public licen[cs]e|\bgpl|\beupl|european union public`), licenseClassStrong},
	{regexp.MustCompile(`business source|\bbusl|elastic licen[cs]e|commons clause|non-?commercial|polyform`), licenseClassSourceAvailable},
	{regexp.MustCompile(`\bmit\b|\bbsd\b|apache|\bisc\b|public domain|\bunlicense\b|\bzlib|python software foundation|\bpsf\b|\bcc0|wtfpl|\bboost\b|\bartistic\b|\bx11\b|\bexpat\b|postgresql|\bhpnd\b|\bunicode\b`), licenseClassPermissive},
}

// licenseClassifyText classifies a license name that is not SPDX by its
// wording (licenseWords); unknown when no wording matches.
func licenseClassifyText(s string) licenseClass {
	low := strings.ToLower(strings.TrimSpace(s))
	for _, w := range licenseWords {
		if w.re.MatchString(low) {
			return w.class
		}
	}
	return licenseClassUnknown
}

// licenseEval classifies an expression and returns the leaf that decided.
func licenseEval(e *spdx.Expr) (licenseClass, string) {
	if e.Op == "" {
		leaf := e.String()
		if !e.Known {
			return licenseClassifyText(leaf), leaf
		}
		return licenseClassifyID(e.ID, e.Exception), leaf
	}
	lc, ll := licenseEval(e.Left)
	rc, rl := licenseEval(e.Right)
	if (e.Op == "OR") == (lc <= rc) {
		return lc, ll
	}
	return rc, rl
}

// licenseClassify classifies a component's license entries (alternatives).
func licenseClassify(licenses []string) (licenseClass, string) {
	best, decisive := licenseClassNetwork+1, ""
	for _, l := range licenses {
		var c licenseClass
		var d string
		if e, ok := spdx.ParseExpr(l); ok {
			c, d = licenseEval(e)
		} else {
			c, d = licenseClassifyText(l), l
		}
		if c < best {
			best, decisive = c, d
		}
	}
	return best, decisive
}

// licenseUnavailableListCap bounds the purls listed on one
// license-data-unavailable finding; the count is always exact.
const licenseUnavailableListCap = 50

// licenseFindings applies the policy to components in their sorted order,
// so the output is deterministic.
func licenseFindings(comps []components.Component) []finding.Finding {
	out := []finding.Finding{}
	unavailable := map[string][]components.Component{}
	for _, c := range comps {
		if c.LicenseSource == "" {
			unavailable[c.Source] = append(unavailable[c.Source], c)
			continue
		}
		ref := c.Name
		if c.Version != "" {
			ref += "@" + c.Version
		}
		meta := map[string]any{
			"component":   c.Name,
			"version":     c.Version,
			"purl":        c.PURL,
			"license":     strings.Join(c.Licenses, " OR "),
			"ecosystem":   c.Ecosystem,
			"dependency":  c.Scope,
			"dev":         c.Dev,
			"declared_in": c.Source,
		}
		f := finding.Finding{
			Scanner:  "licenses",
			ScanType: scan.TypeDependency,
			FilePath: c.LicenseSource,
			Line:     c.LicenseLine,
			Metadata: meta,
		}
		if len(c.Licenses) == 0 {
			f.RuleID = "license-missing"
			f.Severity = licenseSeverity(finding.Medium, finding.Info, c.Dev)
			f.Title = "No license declared: " + ref
			f.Description = fmt.Sprintf("The metadata of %s (%s) declares no license. Without a license nobody "+
				"but the author may use, copy or distribute the code; ask the author or replace the package.%s",
				ref, c.PURL, licenseDevNote(c.Dev))
			out = append(out, f)
			continue
		}
		class, decisive := licenseClassify(c.Licenses)
		rule, ok := licenseRules[class]
		if !ok {
			continue
		}
		meta["license_class"] = strings.TrimPrefix(rule.rule, "license-")
		f.RuleID = rule.rule
		f.Severity = licenseSeverity(rule.runtime, rule.dev, c.Dev)
		f.Title, f.Description = licenseText(class, decisive, ref, c)
		out = append(out, f)
	}
	sources := slices.Sorted(maps.Keys(unavailable))
	for _, src := range sources {
		cs := unavailable[src]
		var purls []string
		for i, c := range cs {
			if i == licenseUnavailableListCap {
				break
			}
			purls = append(purls, c.PURL)
		}
		out = append(out, finding.Finding{
			Scanner:  "licenses",
			ScanType: scan.TypeDependency,
			Severity: finding.Info,
			Title:    fmt.Sprintf("License data not on disk for %d component(s) of %s", len(cs), src),
			Description: "scand reads licenses only from what is installed or vendored in the target (node_modules, " +
				"a virtualenv's site-packages, vendor/, a lockfile that records licenses) and never from a registry. " +
				"These components have none of that on disk, so their licenses were not checked. Install or vendor " +
				"the dependencies in the scanned tree to check them.",
			FilePath: src,
			RuleID:   "license-data-unavailable",
			Metadata: map[string]any{"components": len(cs), "purls": purls},
		})
	}
	return append(out, unresolvedVersionFindings(comps)...)
}

// unresolvedVersionFindings is one info finding per manifest whose
// components have only version ranges because no lockfile pins them and
// nothing installed in the tree says which version is used: no
// scanner can match their installed versions against advisories, and the
// scan should not look clean because of that.
func unresolvedVersionFindings(comps []components.Component) []finding.Finding {
	ranged := map[string][]string{}
	for _, c := range comps {
		if c.Version == "" && c.DeclaredRange != "" {
			ranged[c.Source] = append(ranged[c.Source], c.Name+"@"+c.DeclaredRange)
		}
	}
	var out []finding.Finding
	for _, src := range slices.Sorted(maps.Keys(ranged)) {
		pkgs := ranged[src]
		slices.Sort(pkgs)
		shown := pkgs
		if len(shown) > licenseUnavailableListCap {
			shown = shown[:licenseUnavailableListCap]
		}
		out = append(out, finding.Finding{
			Scanner:  "licenses",
			ScanType: scan.TypeDependency,
			Severity: finding.Info,
			Title:    fmt.Sprintf("Dependency versions unresolved: %s has no lockfile", src),
			Description: fmt.Sprintf("%s declares %d package(s) by version range, no lockfile (package-lock.json, "+
				"yarn.lock, pnpm-lock.yaml, poetry.lock, Pipfile.lock) pins them and they are not installed in the tree, so which "+
				"versions get installed, and which known vulnerabilities they have, cannot be determined; the SBOM lists them "+
				"without a version and with their ranges as a property. Commit the lockfile "+
				"(or scan a tree where the dependencies are installed) so vulnerability scanners can check them.", src, len(pkgs)),
			FilePath: src,
			RuleID:   "dependency-versions-unresolved",
			Metadata: map[string]any{"components": len(pkgs), "packages": shown},
		})
	}
	return out
}

func licenseSeverity(runtime, dev finding.Severity, isDev bool) finding.Severity {
	if isDev {
		return dev
	}
	return runtime
}

func licenseDevNote(dev bool) string {
	if dev {
		return " It is a development-only dependency, so it does not ship with the product; severity is lowered for that."
	}
	return ""
}

func licenseText(class licenseClass, lic, ref string, c components.Component) (string, string) {
	dev := licenseDevNote(c.Dev)
	if r := licenseRules[class]; r.kind != "" {
		return fmt.Sprintf("%s license %s: %s", r.kind, lic, ref),
			fmt.Sprintf("%s (%s) is under %s%s%s", ref, c.PURL, lic, r.terms, dev)
	}
	return fmt.Sprintf("Unrecognized license %q: %s", lic, ref),
		fmt.Sprintf("%s (%s) declares the license %q, which is not an SPDX id scand can classify. It may be a "+
			"custom or proprietary license (npm's UNLICENSED means not licensed for use by others). Read the "+
			"license text and record a decision.%s", ref, c.PURL, lic, dev)
}

// ReadsFile tells an image target (scan/image) which files the scanner
// reads: those component discovery reads.
func (s *licensesScanner) ReadsFile(rel string, _ []byte) bool { return components.Reads(rel) }
