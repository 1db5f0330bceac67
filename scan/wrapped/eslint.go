package wrapped

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"scand/finding"
	"scand/scan"
)

// eslintPackages are the npm packages the eslint scanner runs with, at the
// versions it was tested with: ESLint 9 (flat config) and the three
// security rule sets, plus the TypeScript parser (and TypeScript itself,
// which the parser loads).
var eslintPackages = []string{
	"eslint@9.39.5", "eslint-plugin-security@4.1.0", "eslint-plugin-no-unsanitized@4.1.5",
	"@microsoft/eslint-plugin-sdl@1.1.0", "@typescript-eslint/parser@8.73.0", "typescript@5.9.3",
}

// eslintOwnRules is scand's own rule set (plugin "scand"): the injection
// classes no pinned plugin finds without drowning them (SQL and NoSQL
// injection, SSRF, open redirect, path traversal, XXE, node:vm, log
// injection). Plain JavaScript that requires nothing; written next to the
// generated configuration for each run.
//
//go:embed eslint_rules.cjs
var eslintOwnRules string

// eslintOwnRulesFile is its name in the run's private folder.
const eslintOwnRulesFile = "scand-rules.cjs"

// eslintRule is one rule the scanner enables: its severity and CWE.
type eslintRule struct {
	id       string
	severity finding.Severity
	cwe      finding.CWE
}

// eslintRules is the rule set, in priority order: when several rules
// report the same line with the same CWE (no-eval and
// security/detect-eval-with-expression on one eval, the two innerHTML
// rules), the first one here is the finding and the others are listed in
// metadata.also_rules.
//
//	rule                                          severity  CWE
//	scand/sql-injection                           high      CWE-89   SQL built from request input by concatenation or template literal
//	scand/nosql-injection                         high      CWE-943  $where built from strings; a request value as a query filter value
//	scand/ssrf                                    high      CWE-918  HTTP client called with a URL from the request
//	scand/path-traversal                          high      CWE-22   res.sendFile/download, fs calls with a path from the request or an archive entry
//	scand/xxe                                     high      CWE-611  libxmljs parseXml with noent: true
//	scand/vm-code                                 high      CWE-94   vm.runInContext & co. with request input or non-literal code
//	scand/open-redirect                           medium    CWE-601  res.redirect/location to a location from the request
//	scand/log-injection                           low       CWE-117  request input logged as is
//	security/detect-eval-with-expression          high      CWE-95   eval of a non-literal
//	no-eval, no-implied-eval, no-new-func         high      CWE-95   eval, setTimeout("..."), new Function
//	security/detect-child-process                 high      CWE-78   child_process.exec with a non-literal command
//	no-unsanitized/property, no-unsanitized/method high     CWE-79   innerHTML/outerHTML, insertAdjacentHTML, document.write with unsanitized input
//	@microsoft/sdl/no-inner-html, no-document-write, no-html-method   high CWE-79
//	security/detect-disable-mustache-escape       high      CWE-79   escapeMarkup = false
//	@microsoft/sdl/no-angular-bypass-sanitizer, no-angularjs-bypass-sce, no-msapp-exec-unsafe, no-winjs-html-unsafe  high CWE-79
//	@microsoft/sdl/no-electron-node-integration   high      CWE-94   nodeIntegration: true
//	security/detect-bidi-characters               high      CWE-451  Trojan Source bidirectional controls
//	security/detect-non-literal-require           medium    CWE-829  require of a non-literal
//	security/detect-non-literal-regexp            medium    CWE-1333 RegExp built from a non-literal (ReDoS)
//	security/detect-unsafe-regex                  medium    CWE-1333 catastrophic-backtracking regex
//	security/detect-no-csrf-before-method-override medium   CWE-352  csrf() before methodOverride()
//	security/detect-buffer-noassert               medium    CWE-125  Buffer read/write with noAssert
//	security/detect-pseudoRandomBytes             medium    CWE-338  crypto.pseudoRandomBytes
//	@microsoft/sdl/no-postmessage-star-origin     medium    CWE-345  postMessage(..., "*")
//	@microsoft/sdl/no-document-domain             medium    CWE-346  writes to document.domain
//	security/detect-possible-timing-attacks       low       CWE-208  secret compared with ==
//	security/detect-non-literal-fs-filename       low       CWE-22   fs calls with a non-literal path (see below)
//	security/detect-new-buffer, @microsoft/sdl/no-unsafe-alloc  low  CWE-908  uninitialized Buffer
//	@microsoft/sdl/no-insecure-url                low       CWE-319  http:// and ftp:// URLs in code
//
// Downgraded: security/detect-non-literal-fs-filename flags every fs call
// whose path is not a literal; on clean file-handling code (json-server,
// http-server) it was 7 to 8 rows per 1,000 lines, nearly all paths from
// configuration or the command line. The paths that come from a request
// or an archive entry are scand/path-traversal's (high); the rest stay
// visible at low.
//
// Left out on purpose: security/detect-object-injection, which flags every
// obj[variable] and buries real findings under thousands of false ones;
// @microsoft/sdl/no-insecure-random, which crashes ESLint 9 (and with it
// the whole run) on any require() of a non-literal, one line a hostile
// tree could add.
var eslintRules = []eslintRule{
	{"scand/sql-injection", finding.High, "CWE-89"},
	{"scand/nosql-injection", finding.High, "CWE-943"},
	{"scand/ssrf", finding.High, "CWE-918"},
	{"scand/path-traversal", finding.High, "CWE-22"},
	{"scand/xxe", finding.High, "CWE-611"},
	{"scand/vm-code", finding.High, "CWE-94"},
	{"scand/open-redirect", finding.Medium, "CWE-601"},
	{"scand/log-injection", finding.Low, "CWE-117"},
	{"security/detect-eval-with-expression", finding.High, "CWE-95"},
	{"no-eval", finding.High, "CWE-95"},
	{"no-implied-eval", finding.High, "CWE-95"},
	{"no-new-func", finding.High, "CWE-95"},
	{"security/detect-child-process", finding.High, "CWE-78"},
	{"no-unsanitized/property", finding.High, "CWE-79"},
	{"no-unsanitized/method", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-inner-html", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-document-write", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-html-method", finding.High, "CWE-79"},
	{"security/detect-disable-mustache-escape", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-angular-bypass-sanitizer", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-angularjs-bypass-sce", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-msapp-exec-unsafe", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-winjs-html-unsafe", finding.High, "CWE-79"},
	{"@microsoft/sdl/no-electron-node-integration", finding.High, "CWE-94"},
	{"security/detect-bidi-characters", finding.High, "CWE-451"},
	{"security/detect-non-literal-require", finding.Medium, "CWE-829"},
	{"security/detect-non-literal-regexp", finding.Medium, "CWE-1333"},
	{"security/detect-unsafe-regex", finding.Medium, "CWE-1333"},
	{"security/detect-no-csrf-before-method-override", finding.Medium, "CWE-352"},
	{"security/detect-buffer-noassert", finding.Medium, "CWE-125"},
	{"security/detect-pseudoRandomBytes", finding.Medium, "CWE-338"},
	{"@microsoft/sdl/no-postmessage-star-origin", finding.Medium, "CWE-345"},
	{"@microsoft/sdl/no-document-domain", finding.Medium, "CWE-346"},
	{"security/detect-possible-timing-attacks", finding.Low, "CWE-208"},
	{"security/detect-non-literal-fs-filename", finding.Low, "CWE-22"},
	{"security/detect-new-buffer", finding.Low, "CWE-908"},
	{"@microsoft/sdl/no-unsafe-alloc", finding.Low, "CWE-908"},
	{"@microsoft/sdl/no-insecure-url", finding.Low, "CWE-319"},
}

// eslintIgnores are never linted: dependency trees (as everywhere in
// scand) and bundled or minified output, whose code is someone else's.
var eslintIgnores = []string{
	"**/node_modules/**", "**/bower_components/**", "**/jspm_packages/**", "**/vendor/**", "**/.git/**",
	"**/dist/**", "**/build/**", "**/coverage/**", "**/*.min.js", "**/*.bundle.js", "**/*.chunk.js",
}

// eslintModulesDir is where the rule sets are loaded from: SVC_ESLINT_MODULES
// (a node_modules folder), else the node_modules folder the eslint program
// itself lives in (<dir>/node_modules/.bin/eslint → <dir>/node_modules).
// Never the scanned tree: a project's own plugins are code it could make
// scand run.
func eslintModulesDir(c *call) string {
	return c.folderSetting("SVC_ESLINT_MODULES", func(program string) string {
		// .../node_modules/eslint/bin/eslint.js
		return filepath.Dir(filepath.Dir(filepath.Dir(program)))
	})
}

func eslintReady(c *call) (string, bool) {
	dir := eslintModulesDir(c)
	if dir == "" || !filepath.IsAbs(dir) {
		return "set SVC_ESLINT_MODULES to the absolute node_modules folder holding eslint and its plugins (" + strings.Join(eslintPackages, " ") + ")", false
	}
	for _, p := range []string{"eslint-plugin-security", "eslint-plugin-no-unsanitized", "@microsoft/eslint-plugin-sdl", "@typescript-eslint/parser", "typescript"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p), "package.json")); err != nil {
			return fmt.Sprintf("%s is missing from %s: npm install --prefix <dir> %s", p, dir, strings.Join(eslintPackages, " ")), false
		}
	}
	return "", true
}

// eslintConfig is the flat configuration scand supplies. The plugins are
// required from modulesDir by absolute path, scand's own rules from
// ownRules (the file written from eslintOwnRules); nothing is looked up
// from the scanned tree.
func eslintConfig(modulesDir, ownRules string) string {
	q := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	rules := map[string]string{}
	for _, r := range eslintRules {
		rules[r.id] = "warn"
	}
	return `"use strict";
// Written by scand for one scan; the scanned project's configuration,
// plugins and inline directives are never used.
const { createRequire } = require("node:module");
const req = createRequire(` + q(modulesDir+string(filepath.Separator)) + `);
const security = req("eslint-plugin-security");
const noUnsanitized = req("eslint-plugin-no-unsanitized");
const sdl = req("@microsoft/eslint-plugin-sdl");
const tsParser = req("@typescript-eslint/parser");
const scand = require(` + q(ownRules) + `);
module.exports = [
  { ignores: ` + q(eslintIgnores) + ` },
  { files: ["**/*.js", "**/*.mjs", "**/*.cjs", "**/*.jsx"],
    languageOptions: { ecmaVersion: "latest", sourceType: "script", parserOptions: { ecmaFeatures: { jsx: true } } } },
  { files: ["**/*.mjs"], languageOptions: { sourceType: "module" } },
  { files: ["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"], languageOptions: { parser: tsParser, sourceType: "module" } },
  { files: ["**/*.{js,mjs,cjs,jsx,ts,tsx,mts,cts}"],
    plugins: { scand, security, "no-unsanitized": noUnsanitized, "@microsoft/sdl": sdl },
    linterOptions: { reportUnusedDisableDirectives: "off" },
    rules: ` + q(rules) + ` },
];
`
}

type eslintReport []struct {
	FilePath string `json:"filePath"`
	Messages []struct {
		RuleID  *string `json:"ruleId"`
		Message string  `json:"message"`
		Line    int     `json:"line"`
		Column  int     `json:"column"`
		Fatal   bool    `json:"fatal"`
	} `json:"messages"`
}

// eslintParse turns ESLint's JSON report into findings relative to root.
// Rules that report one line with the same CWE become one finding (see
// eslintRules). Parse errors are not findings; the files ESLint could
// not parse are returned, each once.
func eslintParse(root string, out []byte) ([]finding.Finding, []string, error) {
	var rep eslintReport
	if err := decodeJSON("eslint", out, &rep); err != nil {
		return nil, nil, err
	}
	priority := map[string]int{}
	for i, r := range eslintRules {
		priority[r.id] = i
	}
	type key struct {
		file string
		line int
		cwe  finding.CWE
	}
	byKey := map[key]int{}
	var fs []finding.Finding
	var unparsed []string
	for _, file := range rep {
		rel := relPath(root, root, file.FilePath)
		for _, m := range file.Messages {
			if m.Fatal || m.RuleID == nil {
				if len(unparsed) == 0 || unparsed[len(unparsed)-1] != rel {
					unparsed = append(unparsed, rel)
				}
				continue
			}
			p, known := priority[*m.RuleID]
			if !known {
				continue // not a rule scand enabled
			}
			r := eslintRules[p]
			k := key{rel, m.Line, r.cwe}
			if i, dup := byKey[k]; dup {
				prev := &fs[i]
				if priority[prev.RuleID] > p {
					prev.Metadata["also_rules"] = append(prev.Metadata["also_rules"].([]string), prev.RuleID)
					prev.RuleID, prev.Severity = r.id, r.severity
					prev.Title = "ESLint " + r.id + ": " + strings.TrimSpace(m.Message)
					prev.Description = strings.TrimSpace(m.Message)
				} else {
					prev.Metadata["also_rules"] = append(prev.Metadata["also_rules"].([]string), r.id)
				}
				continue
			}
			byKey[k] = len(fs)
			fs = append(fs, finding.Finding{
				Scanner:     "eslint",
				ScanType:    scan.TypeCode,
				Severity:    r.severity,
				Title:       "ESLint " + r.id + ": " + strings.TrimSpace(m.Message),
				Description: strings.TrimSpace(m.Message),
				FilePath:    rel,
				Line:        m.Line,
				RuleID:      r.id,
				CWE:         r.cwe,
				Metadata:    map[string]any{"column": m.Column, "also_rules": []string{}},
			})
		}
	}
	for i := range fs {
		also := fs[i].Metadata["also_rules"].([]string)
		if len(also) == 0 {
			delete(fs[i].Metadata, "also_rules")
		} else {
			slices.Sort(also)
		}
	}
	slices.SortStableFunc(fs, func(a, b finding.Finding) int {
		return cmp.Or(strings.Compare(a.FilePath, b.FilePath), cmp.Compare(a.Line, b.Line), strings.Compare(a.RuleID, b.RuleID))
	})
	return fs, unparsed, nil
}

// ESLint wraps ESLint 9 with the security rule sets eslint-plugin-security,
// eslint-plugin-no-unsanitized and @microsoft/eslint-plugin-sdl, scand's own
// rules (eslintOwnRules), and @typescript-eslint/parser for TypeScript
// (scan type code).
//
// Run, in the target: `eslint -c <private dir>/eslint.config.cjs
// --no-inline-config --format json --output-file <private dir>/report.json
// --no-error-on-unmatched-pattern --no-warn-ignored .` with
// ESLINT_USE_FLAT_CONFIG=true. The configuration is scand's own, written
// to a private temporary directory for the run: -c keeps ESLint from
// loading the project's eslint.config.* (which is code), the plugins are
// required by absolute path from the install folder (eslintModulesDir),
// never from the project's node_modules, and --no-inline-config makes
// `// eslint-disable` comments in a hostile tree powerless. ESLint itself
// never reaches the network. No cache file is written into the target.
// Exit 0 = clean, 1 = findings, 2 = crash (bad configuration, a plugin
// that failed to load).
//
// Severity and CWE per rule: the table of eslintRules. Files ESLint cannot
// parse make its coverage partial, with their count and first paths.
func ESLint(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "eslint", scanType: scan.TypeCode,
		env:        []string{"ESLINT_USE_FLAT_CONFIG=true"},
		reads:      eslintReads,
		reportFile: "report.json",
		args: func(c *call) ([]string, error) {
			conf := filepath.Join(c.outDir, "eslint.config.cjs")
			own := filepath.Join(c.outDir, eslintOwnRulesFile)
			if err := os.WriteFile(own, []byte(eslintOwnRules), 0o600); err != nil {
				return nil, fmt.Errorf("eslint: write scand's rules: %w", err)
			}
			if err := os.WriteFile(conf, []byte(eslintConfig(eslintModulesDir(c), own)), 0o600); err != nil {
				return nil, fmt.Errorf("eslint: write configuration: %w", err)
			}
			args := []string{"-c", conf, "--no-inline-config", "--format", "json", "--output-file", filepath.Join(c.outDir, "report.json"),
				"--no-error-on-unmatched-pattern", "--no-warn-ignored"}
			// --ignore-pattern reads gitignore syntax, "!" included.
			for _, p := range c.excludePatterns(true) {
				args = append(args, "--ignore-pattern", p)
			}
			return append(args, "."), nil
		},
		exits: exits{report: []int{0, 1}},
		parse: func(c *call, out []byte) ([]finding.Finding, error) {
			fs, unparsed, err := eslintParse(c.root, out)
			if err == nil && len(unparsed) > 0 {
				c.skipped = append(c.skipped, skippedFiles("unparsable files", fmt.Sprintf("%d file(s) ESLint could not parse were not analyzed", len(unparsed)),
					"fix the syntax, or list them under [ignore] paths in .scand.toml", unparsed))
			}
			return fs, err
		},
		ready:       eslintReady,
		version:     probeVersion(`v?(\d+\.\d+\.\d+)`, "--version"),
		installHint: "npm install --prefix <dir> " + strings.Join(eslintPackages, " ") + " (from an npm mirror or a copied <dir>), then put <dir>/node_modules/.bin on PATH or set SVC_ESLINT_PATH=<dir>/node_modules/.bin/eslint; node must be on PATH",
	})
}

// eslintReads tells the files the configuration lints.
func eslintReads(rel string) bool {
	return slices.Contains([]string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"}, filepath.Ext(rel))
}
