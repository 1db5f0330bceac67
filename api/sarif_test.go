package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/store"
)

const sarifGoldenPath = "../testdata/sarif/report.golden.sarif.json"

func sarifFetch(t *testing.T) ([]byte, reportFixture) {
	t.Helper()
	fx := loadReportFixture(t)
	env := newReportTestEnv(t, func(d *Deps) { d.Scanners = fx.registry() })
	env.seedFixture(t, fx)
	rec := env.do(t, "GET", "/api/v1/scans/"+fx.Scan.ID+"/report?format=sarif")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes(), fx
}

func TestSARIFGolden(t *testing.T) {
	body, _ := sarifFetch(t)
	reportGolden(t, sarifGoldenPath, body)
	again, _ := sarifFetch(t)
	if string(again) != string(body) {
		t.Error("two SARIF renders of the same scan differ")
	}
}

// The SARIF shapes the mapping test reads back.
type (
	sarifText struct {
		Text string `json:"text"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifRelationship struct {
		Target struct {
			ID            string `json:"id"`
			Index         int    `json:"index"`
			ToolComponent struct {
				Name string `json:"name"`
			} `json:"toolComponent"`
		} `json:"target"`
	}
	sarifRuleProps struct {
		SecuritySeverity string   `json:"security-severity"`
		Tags             []string `json:"tags"`
	}
	sarifLocation struct {
		PhysicalLocation *struct {
			ArtifactLocation struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			} `json:"artifactLocation"`
			Region *struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Status        string `json:"status"`
		Justification string `json:"justification"`
	}
	sarifResultProps struct {
		Severity     string `json:"severity"`
		TriageStatus string `json:"triageStatus"`
		FindingID    string `json:"findingId"`
	}
)

// sarifDoc is the subset of SARIF the mapping test reads back.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name                string `json:"name"`
				Version             string `json:"version"`
				InformationURI      string `json:"informationUri"`
				SupportedTaxonomies []struct {
					Name  string `json:"name"`
					Index int    `json:"index"`
				} `json:"supportedTaxonomies"`
				Rules []struct {
					ID                   string              `json:"id"`
					ShortDescription     sarifText           `json:"shortDescription"`
					FullDescription      sarifText           `json:"fullDescription"`
					Help                 sarifText           `json:"help"`
					DefaultConfiguration sarifRuleConfig     `json:"defaultConfiguration"`
					Relationships        []sarifRelationship `json:"relationships"`
					Properties           sarifRuleProps      `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]json.RawMessage `json:"originalUriBaseIds"`
		Taxonomies         []struct {
			Name string `json:"name"`
			Taxa []struct {
				ID string `json:"id"`
			} `json:"taxa"`
		} `json:"taxonomies"`
		Results []struct {
			RuleID              string `json:"ruleId"`
			RuleIndex           int    `json:"ruleIndex"`
			Level               string `json:"level"`
			Message             sarifText
			Locations           []sarifLocation    `json:"locations"`
			PartialFingerprints map[string]string  `json:"partialFingerprints"`
			Suppressions        []sarifSuppression `json:"suppressions"`
			Properties          sarifResultProps   `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

func TestSARIFMapping(t *testing.T) {
	body, fx := sarifFetch(t)
	var doc sarifDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.1.0" || !strings.Contains(doc.Schema, "sarif-schema-2.1.0") {
		t.Errorf("version %q schema %q", doc.Version, doc.Schema)
	}

	t.Run("one run per scanner that ran, in registry order; none for skipped", func(t *testing.T) {
		var names []string
		for _, r := range doc.Runs {
			names = append(names, r.Tool.Driver.Name)
		}
		if strings.Join(names, ",") != strings.Join(fx.Scan.ScannersRun, ",") {
			t.Errorf("runs %v, want %v", names, fx.Scan.ScannersRun)
		}
	})

	runs := map[string]int{}
	for i, r := range doc.Runs {
		runs[r.Tool.Driver.Name] = i
	}
	t.Run("tool metadata", func(t *testing.T) {
		cases := []struct{ run, version, uri string }{
			{"bandit", "1.7.10", "https://bandit.readthedocs.io/"},
			{"osv-scanner", "1.9.2", "https://google.github.io/osv-scanner/"},
			{"secrets", "0.11.0", ""},
		}
		for _, tc := range cases {
			d := doc.Runs[runs[tc.run]].Tool.Driver
			if d.Version != tc.version || d.InformationURI != tc.uri {
				t.Errorf("%s: version %q uri %q, want %q %q", tc.run, d.Version, d.InformationURI, tc.version, tc.uri)
			}
		}
		if res := doc.Runs[runs["osv-scanner"]].Results; res == nil || len(res) != 0 {
			t.Errorf("a scanner that found nothing must have an empty results array, got %v", res)
		}
	})

	t.Run("rules", func(t *testing.T) {
		bandit := doc.Runs[runs["bandit"]]
		if len(bandit.Tool.Driver.Rules) != 1 {
			t.Fatalf("bandit rules %d, want one B602 shared by two findings", len(bandit.Tool.Driver.Rules))
		}
		rule := bandit.Tool.Driver.Rules[0]
		// Level from the worst finding (high), texts from the first.
		if rule.ID != "B602" || rule.DefaultConfiguration.Level != "error" || rule.Properties.SecuritySeverity != "8.0" {
			t.Errorf("rule %+v", rule)
		}
		if !strings.HasPrefix(rule.FullDescription.Text, "subprocess.Popen") || !strings.Contains(rule.Help.Text, "CWE-78") || !strings.Contains(rule.Help.Text, "PCI-DSS-6.5.1") {
			t.Errorf("rule texts %q / %q", rule.FullDescription.Text, rule.Help.Text)
		}
		if len(rule.Relationships) != 1 || rule.Relationships[0].Target.ID != "78" || rule.Relationships[0].Target.ToolComponent.Name != "CWE" {
			t.Fatalf("relationships %+v", rule.Relationships)
		}
		tax := bandit.Taxonomies
		if len(tax) != 1 || tax[0].Name != "CWE" || tax[0].Taxa[rule.Relationships[0].Target.Index].ID != "78" {
			t.Errorf("taxonomies %+v do not hold the related taxon", tax)
		}
		if st := bandit.Tool.Driver.SupportedTaxonomies; len(st) != 1 || st[0].Name != "CWE" {
			t.Errorf("supportedTaxonomies %+v", st)
		}
		if gh := doc.Runs[runs["git-hygiene"]]; len(gh.Taxonomies) != 0 {
			t.Errorf("a run without CWEs declares taxonomies %+v", gh.Taxonomies)
		}
		if _, ok := bandit.OriginalURIBaseIDs["SRCROOT"]; !ok {
			t.Error("no SRCROOT in originalUriBaseIds")
		}
		if strings.Contains(string(body), fx.Scan.TargetPath) {
			t.Error("the absolute target path leaks into the SARIF")
		}
	})

	t.Run("results", func(t *testing.T) {
		byID := map[string]struct {
			run, idx int
		}{}
		for ri, r := range doc.Runs {
			for i, res := range r.Results {
				byID[res.Properties.FindingID] = struct{ run, idx int }{ri, i}
			}
		}
		cases := []struct {
			id, level, uri string
			line           int // 0: no region
			suppressions   string
		}{
			{"f-01", "error", "config/settings.py", 12, ""},
			{"f-02", "error", "app/run.py", 40, "external"},                 // accepted_risk
			{"f-03", "error", "tests/fixtures/db%20seed.py", 3, "inSource"}, // suppressed_by
			{"f-04", "warning", "app/other.py", 7, ""},                      // medium
			{"f-05", "warning", "Dockerfile", 1, "external"},                // false_positive
			{"f-06", "note", ".gitignore", 0, ""},                           // low, line 0
			{"f-07", "note", "go.mod", 0, ""},                               // info, triaged fixed: not hidden
		}
		for _, tc := range cases {
			pos, ok := byID[tc.id]
			if !ok {
				t.Errorf("%s: no result", tc.id)
				continue
			}
			run := doc.Runs[pos.run]
			res := run.Results[pos.idx]
			if res.Level != tc.level {
				t.Errorf("%s: level %q, want %q", tc.id, res.Level, tc.level)
			}
			if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
				t.Errorf("%s: ruleIndex %d points at %q, not %q", tc.id, res.RuleIndex, run.Tool.Driver.Rules[res.RuleIndex].ID, res.RuleID)
			}
			loc := res.Locations[0].PhysicalLocation
			if loc.ArtifactLocation.URI != tc.uri || loc.ArtifactLocation.URIBaseID != "SRCROOT" {
				t.Errorf("%s: location %+v, want %s under SRCROOT", tc.id, loc.ArtifactLocation, tc.uri)
			}
			if (tc.line == 0) != (loc.Region == nil) || (loc.Region != nil && loc.Region.StartLine != tc.line) {
				t.Errorf("%s: region %+v, want line %d", tc.id, loc.Region, tc.line)
			}
			var kinds []string
			for _, s := range res.Suppressions {
				kinds = append(kinds, s.Kind)
				if s.Status != "accepted" || s.Justification == "" {
					t.Errorf("%s: suppression %+v", tc.id, s)
				}
			}
			if res.Suppressions == nil || strings.Join(kinds, ",") != tc.suppressions {
				t.Errorf("%s: suppressions %v, want [%s]", tc.id, res.Suppressions, tc.suppressions)
			}
			var fp string
			for _, f := range fx.Findings {
				if f.ID == tc.id {
					fp = f.Fingerprint
				}
			}
			if res.PartialFingerprints["scand/v1"] != fp {
				t.Errorf("%s: partialFingerprints %v", tc.id, res.PartialFingerprints)
			}
		}
		f02 := doc.Runs[byID["f-02"].run].Results[byID["f-02"].idx]
		if j := f02.Suppressions[0].Justification; j != "Triaged as accepted_risk by alice: Arguments are constants; tracked in SEC-214." {
			t.Errorf("justification %q", j)
		}
		f04 := doc.Runs[byID["f-04"].run].Results[byID["f-04"].idx]
		if !strings.Contains(f04.Message.Text, "subprocess.run is called") {
			t.Errorf("a finding whose description differs from its rule's must carry it in the message: %q", f04.Message.Text)
		}
	})
}

// TestSARIFSchema validates the golden file with the official SARIF 2.1.0
// schema kept in testdata/schemas, through testdata/sarif/validate.sh
// (ajv). A missing schema is a failure, never a skip: it ships with the
// repository.
func TestSARIFSchema(t *testing.T) {
	abs, err := filepath.Abs("../testdata/schemas")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(abs, "sarif-2.1.0.draft7.schema.json")); err != nil {
		t.Fatalf("the SARIF schema is part of the repository: %v", err)
	}
	r := proc.NewRunner(2 * time.Minute)
	if _, err := r.Run(context.Background(), proc.Cmd{Program: "ajv", Args: []string{"help"}}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but ajv is not installed (npm i -g ajv-cli ajv-formats)")
		}
		t.Skip("ajv not installed (npm i -g ajv-cli ajv-formats)")
	}
	script, _ := filepath.Abs("../testdata/sarif/validate.sh")
	res, err := r.Run(context.Background(), proc.Cmd{Program: "sh", Args: []string{script, abs}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("validate.sh: exit %d, %v\n%s%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	if !strings.Contains(string(res.Stdout)+string(res.Stderr), "valid") {
		t.Errorf("validate.sh printed no verdict: %s%s", res.Stdout, res.Stderr)
	}
}

// A SARIF run names the version the scan recorded for the tool when it
// ran it, not the one installed when the report is asked for; a scan
// recorded before versions were falls back to asking the tool now.
func TestSARIFToolVersionIsTheScansOwn(t *testing.T) {
	env := newReportTestEnv(t, func(d *Deps) {
		d.Scanners = []scan.Scanner{
			&reportTestScanner{name: "bandit", typ: "code", version: "1.8.0", available: reportAlways},
			&reportTestScanner{name: "secrets", typ: "code", version: "0.12.0", available: reportAlways},
		}
	})
	ctx := context.Background()
	id := store.NewID()
	started := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := env.st.CreateScan(ctx, store.Scan{ID: id, TargetPath: "/src", ScanTypes: []string{"code"}, StartedAt: started, CreatedBy: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := env.st.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	coverage := &finding.ScanCoverage{Scanners: []finding.ScannerCoverage{
		{Scanner: "bandit", ScanType: "code", Status: finding.CoverageRan, Version: "1.7.5"},
		{Scanner: "secrets", ScanType: "code", Status: finding.CoverageRan}, // recorded without one
	}}
	env.clock.t = started.Add(time.Minute)
	if err := env.st.CompleteScan(ctx, id, store.ScanResult{ScannersRun: []string{"bandit", "secrets"}, Coverage: coverage}); err != nil {
		t.Fatal(err)
	}
	rec := env.do(t, "GET", "/api/v1/scans/"+id+"/report?format=sarif")
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	var doc sarifDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range doc.Runs {
		got[r.Tool.Driver.Name] = r.Tool.Driver.Version
	}
	if got["bandit"] != "1.7.5" || got["secrets"] != "0.12.0" {
		t.Errorf("driver versions %v, want bandit 1.7.5 (recorded) and secrets 0.12.0 (probed)", got)
	}
}
