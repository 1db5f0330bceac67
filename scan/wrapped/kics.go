package wrapped

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"scand/finding"
	"scand/scan"
	"scand/scan/tree"
)

// kicsQueriesDir is SVC_KICS_QUERIES, else assets/queries beside the binary.
func kicsQueriesDir(c *call) string {
	return c.folderSetting("SVC_KICS_QUERIES", func(program string) string {
		return filepath.Join(filepath.Dir(program), "assets", "queries")
	})
}

func kicsQueriesReady(c *call) (string, bool) {
	q := kicsQueriesDir(c)
	if q == "" {
		return "set SVC_KICS_QUERIES to the assets/queries folder of the KICS release you installed", false
	}
	if !filepath.IsAbs(q) {
		return fmt.Sprintf("SVC_KICS_QUERIES=%s must be an absolute path", q), false
	}
	for _, d := range []string{q, kicsLibraries(q)} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Sprintf("KICS query library %s is missing: copy the assets/ folder of the KICS module (queries/ and libraries/) there, or set SVC_KICS_QUERIES", d), false
		}
	}
	return "", true
}

func kicsLibraries(queries string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(queries)), "libraries")
}

type kicsReport struct {
	Queries []struct {
		QueryName   string `json:"query_name"`
		QueryID     string `json:"query_id"`
		QueryURL    string `json:"query_url"`
		Severity    string `json:"severity"`
		Platform    string `json:"platform"`
		CWE         string `json:"cwe"`
		Category    string `json:"category"`
		Description string `json:"description"`
		Files       []struct {
			FileName      string `json:"file_name"`
			Line          int    `json:"line"`
			ResourceType  string `json:"resource_type"`
			ResourceName  string `json:"resource_name"`
			IssueType     string `json:"issue_type"`
			SearchKey     string `json:"search_key"`
			ExpectedValue string `json:"expected_value"`
			ActualValue   string `json:"actual_value"`
		} `json:"files"`
	} `json:"queries"`
}

// kicsParse turns a KICS JSON report into findings relative to root.
func kicsParse(root string, out []byte) ([]finding.Finding, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, errors.New("kics report is empty")
	}
	var rep kicsReport
	if err := decodeJSON("kics", out, &rep); err != nil {
		return nil, err
	}
	var fs []finding.Finding
	for _, q := range rep.Queries {
		if q.QueryID == "" {
			continue
		}
		for _, f := range q.Files {
			desc := strings.TrimSpace(q.Description)
			if f.ExpectedValue != "" || f.ActualValue != "" {
				desc += fmt.Sprintf("\nExpected: %s\nActual: %s", f.ExpectedValue, f.ActualValue)
			}
			line := f.Line
			if line < 0 {
				line = 0
			}
			meta := map[string]any{
				"query_name": q.QueryName,
				"platform":   q.Platform,
				"category":   q.Category,
				"query_url":  q.QueryURL,
				"issue_type": f.IssueType,
				"search_key": f.SearchKey,
			}
			if f.ResourceType != "" {
				meta["resource_type"] = f.ResourceType
				meta["resource_name"] = f.ResourceName
			}
			fs = append(fs, finding.Finding{
				Scanner:     "kics",
				ScanType:    scan.TypeIaC,
				Severity:    severityOf(q.Severity, finding.Info),
				Title:       q.QueryName,
				Description: desc,
				FilePath:    relPath(root, root, f.FileName),
				Line:        line,
				RuleID:      q.QueryID,
				CWE:         cweOf(q.CWE),
				Metadata:    meta,
			})
		}
	}
	return fs, nil
}

// Kics wraps KICS, the infrastructure-as-code analyzer (Terraform,
// Kubernetes, Dockerfile, CloudFormation, Ansible, ...; scan type iac).
//
// Run: `kics scan -p <paths> -q <queries> --libraries-path <libraries>
// --report-formats json -o <tempdir> --output-name results --no-progress
// --disable-secrets --ignore-on-exit results --no-color --silent`, run in
// the target. <paths> are only the files KICS can analyse and the folders
// that hold nothing else (kicsInputs), not the whole target: KICS reads
// and tries every platform's parser on whatever it is handed, which on a
// JavaScript project is most of the run. The query library is SVC_KICS_QUERIES (its sibling
// libraries/ folder is used too), else the assets/queries folder beside the
// kics binary. Secrets detection is off: the built-in secrets scanner owns
// it, and KICS would put the secret's value into actual_value. With
// --ignore-on-exit results, findings exit 0; KICS's own codes for results
// (20 info … 60 critical) are accepted too in case an operator's config
// overrides it; anything else (126 = bad arguments or assets) is a crash.
//
// A kics built with `go install` never calls home; a release binary checks
// GitHub for a newer version once per run (20 s timeout, then it carries on).
//
// Severity: KICS's as is (CRITICAL, HIGH, MEDIUM, LOW; INFO and TRACE →
// info). CWE: the query's cwe. rule_id: the query id (a UUID, stable across
// KICS releases; the title carries the query name).
func Kics(cfg scan.Config) scan.Scanner {
	return newCLI(cfg, tool{name: "kics", scanType: scan.TypeIaC,
		reportFile: "results.json",
		reads:      kicsReads,
		args: func(c *call) ([]string, error) {
			q := kicsQueriesDir(c)
			// KICS reads kics.config from the scanned path when no --config
			// is given, and it may exclude every severity: an empty one of
			// scand's own keeps the tree from configuring the scan.
			conf := filepath.Join(c.outDir, "scand-kics.json")
			if err := os.WriteFile(conf, []byte("{}\n"), 0o600); err != nil {
				return nil, err
			}
			paths, hidden := kicsInputs(c)
			c.skipped = append(c.skipped, hidden...)
			if len(paths) == 0 {
				return nil, errNothingToScan
			}
			return []string{"scan", "-p", strings.Join(paths, ","), "-q", q, "--libraries-path", kicsLibraries(q), "--config", conf,
				"--report-formats", "json", "-o", c.outDir, "--output-name", "results",
				"--no-progress", "--disable-secrets", "--ignore-on-exit", "results", "--no-color", "--silent"}, nil
		},
		exits:       exits{report: []int{0, 20, 30, 40, 50, 60}},
		parse:       func(c *call, report []byte) ([]finding.Finding, error) { return kicsParse(c.root, report) },
		ready:       kicsQueriesReady,
		version:     probeVersion(`(?:Keeping Infrastructure as Code Secure|KICS|kics)\s+v?(\d+\.\d+\.\d+\S*|development)`, "version"),
		installHint: "go install github.com/Checkmarx/kics/v2/cmd/console@v2.2.0 and rename it to kics, then copy the module's assets/ folder beside it or to SVC_KICS_QUERIES (…/assets/queries); or set SVC_KICS_PATH",
	})
}

// kicsReads tells the files KICS analyzes: its platforms' extensions and
// Dockerfiles, less the package managers' manifests and tool settings that
// share an extension with IaC but that no KICS platform reads (package.json,
// lockfiles, tsconfig.json, ...); a JavaScript project has many of them.
func kicsReads(rel string) bool {
	name := strings.ToLower(filepath.Base(rel))
	switch name {
	case "package.json", "package-lock.json", "npm-shrinkwrap.json", "composer.json", "composer.lock", "pnpm-lock.yaml",
		"pnpm-workspace.yaml", ".yarnrc.yml", "jsconfig.json", "angular.json", "lerna.json", "nx.json", "renovate.json",
		"bower.json", ".eslintrc.json", ".prettierrc.json", ".babelrc.json", "babel.config.json", "vercel.json", "turbo.json":
		return false
	}
	if strings.HasPrefix(name, "tsconfig") && strings.HasSuffix(name, ".json") {
		return false
	}
	switch filepath.Ext(name) {
	case ".tf", ".tfvars", ".hcl", ".yaml", ".yml", ".json", ".bicep", ".proto", ".tpl", ".cfg", ".conf", ".ini":
		return true
	}
	return strings.HasPrefix(name, "dockerfile") || strings.HasSuffix(name, ".dockerfile")
}

// kicsDocumentKey finds, in JSON or YAML, a key that some KICS platform's
// documents have at their top or in their resources: Kubernetes, Helm,
// Knative and Crossplane (apiVersion, kind), CloudFormation and CDK
// output (AWSTemplateFormatVersion, Resources, AWS:: types), ARM
// ($schema, contentVersion, Microsoft. types), Google Deployment Manager
// (resources, imports), OpenAPI (openapi, swagger), Docker Compose
// (services), Ansible (hosts, tasks, handlers, roles, "- name:" task
// lists, inventories' children), GitHub workflows (jobs, steps), Pulumi
// (runtime), Serverless (service, provider, functions), Terraform JSON
// (resource, variable, module, provider). Translation catalogues, fixtures
// and settings files have none, and KICS spent most of a JavaScript
// project's scan parsing them for nothing.
var kicsDocumentKey = regexp.MustCompile(`(?m)(?:^[ \t]*-?[ \t]*|[{,][ \t\r\n]*)["']?(?:apiVersion|kind|AWSTemplateFormatVersion|Resources|resources|\$schema|contentVersion|imports|openapi|swagger|services|hosts|tasks|handlers|roles|children|jobs|steps|runtime|service|provider|functions|resource|variable|module|data|output|locals|terraform)["']?[ \t]*:|^[ \t]*-[ \t]+name[ \t]*:|AWS::|Microsoft\.`)

// kicsMayBeIaC reports whether a file KICS reads by its name is worth
// handing over: JSON and YAML only when they hold a key of a KICS
// platform (kicsDocumentKey), everything else always.
func kicsMayBeIaC(rel string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(rel)) {
	case ".json", ".yaml", ".yml":
		return kicsDocumentKey.Match(data)
	}
	return true
}

// kicsMaxPathBytes caps the -p list: one argument may not exceed 128 KiB
// on Linux. A tree with more IaC files than fit is handed over whole.
const kicsMaxPathBytes = 100 << 10

// kicsInputs lists the files of the target KICS can analyse (kicsReads;
// dependency trees, .git and [ignore] paths left out), as absolute paths
// for -p, and the files whose kics-scan comments hide results. A path
// holding a comma cannot be listed (-p is comma-separated), nor can a
// list too long for one argument: then the whole target is handed over,
// as before.
func kicsInputs(c *call) (paths []string, hidden []scan.SkippedPart) {
	var commented []string
	size, whole := 0, false
	_ = tree.Walk{Ignore: ignoreFunc(c.ignore)}.Files(c.runCtx(), c.root, func(abs, rel string) error {
		if !kicsReads(rel) {
			return nil
		}
		// KICS skips files over 5 MB (its --max-file-size default).
		data, err := tree.ReadCapped(abs, 5<<20)
		if err == nil {
			if !kicsMayBeIaC(rel, data) {
				return nil
			}
			if bytes.Contains(data, []byte(kicsCommentMarker)) {
				commented = append(commented, rel)
			}
		}
		size += len(abs) + 1
		if strings.ContainsAny(abs, ",\"") || size > kicsMaxPathBytes {
			whole = true
		}
		paths = append(paths, abs)
		return nil
	})
	if whole {
		paths = []string{c.root}
	}
	if len(commented) > 0 {
		hidden = []scan.SkippedPart{{Part: "kics-scan comments", Reason: "results hidden by the files' own kics-scan directives",
			Hint: fileList(commented) + ": KICS drops what a \"# kics-scan ignore\", \"ignore-line\", \"ignore-block\" or \"disable=\" comment covers; review those comments, or record the decision in .scand.toml or a triage verdict instead"}}
	}
	return paths, hidden
}

// kicsCommentMarker starts KICS's in-file directives ("# kics-scan
// ignore", "ignore-line", "ignore-block", "disable=<query ids>"), which
// drop results without a trace and cannot be turned off: the files that
// carry one are recorded as partly skipped, so the scan says where KICS
// was told to look away.
const kicsCommentMarker = "kics-scan "
