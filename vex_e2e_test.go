package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// End-to-end tests of VEX (issue 27, docs/vex.md) on the built binary
// with the real, offline trivy and osv-scanner that .ci/install-scanners.sh
// installs (their databases come from testdata/wrappers/vulndb). In CI a
// missing tool or ajv fails; elsewhere the test is skipped.

// vexTools returns the environment the daemon and trivy need.
func vexTools(t *testing.T) map[string]string {
	t.Helper()
	_, err := exec.LookPath("trivy")
	cache := os.Getenv("SVC_TRIVY_CACHE")
	if err != nil || cache == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but trivy or SVC_TRIVY_CACHE is missing (run .ci/install-scanners.sh and source its environment)")
		}
		t.Skip("trivy and SVC_TRIVY_CACHE are needed (.ci/install-scanners.sh)")
	}
	env := map[string]string{"SVC_TRIVY_CACHE": cache, "HOME": t.TempDir(), "SVC_INSTANCE_NAME": "ACME Product Security"}
	for _, k := range []string{"SVC_OSV_DB", "SVC_GOVULN_DB"} {
		if v := os.Getenv(k); v != "" {
			env[k] = v
		}
	}
	return env
}

// vexTree copies the fixture with two vulnerable npm dependencies
// (lodash 4.17.15, minimist 1.2.0) into a fresh directory.
func vexTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "webapp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "wrappers", "tree", "webapp", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type vexFinding struct {
	Fingerprint string `json:"fingerprint"`
	RuleID      string `json:"rule_id"`
	Metadata    struct {
		AdvisoryID string `json:"advisory_id"`
		Package    string `json:"package"`
		Version    string `json:"version"`
	} `json:"metadata"`
	State *struct {
		Status, Note, Justification string
		UpdatedBy                   string `json:"updated_by"`
	} `json:"state"`
}

// vexFindings maps a scan's dependency findings by "package advisory".
func vexFindings(t *testing.T, base, scanID string) map[string]vexFinding {
	t.Helper()
	var fs []vexFinding
	if code := apiCall(t, "GET", base+"/api/v1/scans/"+scanID+"/findings?scan_type=dependency&limit=1000", nil, &fs); code != 200 {
		t.Fatalf("findings: %d", code)
	}
	out := map[string]vexFinding{}
	for _, f := range fs {
		if f.Metadata.AdvisoryID != "" {
			out[f.Metadata.Package+" "+f.Metadata.AdvisoryID] = f
		}
	}
	return out
}

func vexGet(t *testing.T, url, file string) []byte {
	t.Helper()
	resp, err := (&http.Client{Timeout: time.Minute}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, buf.String())
	}
	if cd := resp.Header.Get("Content-Disposition"); file != "" && !strings.HasPrefix(cd, "attachment;") {
		t.Errorf("GET %s: Content-Disposition %q", url, cd)
	}
	if file != "" {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// trivyVulns runs trivy offline (the scanner's own flags) and returns
// "package advisory" of every vulnerability it reports; the error output
// when it fails.
func trivyVulns(t *testing.T, args ...string) (map[string]bool, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	full := append([]string{args[0], "--scanners", "vuln", "--format", "json", "--quiet", "--cache-dir", os.Getenv("SVC_TRIVY_CACHE"),
		"--skip-db-update", "--skip-java-db-update", "--offline-scan", "--skip-version-check", "--disable-telemetry",
		"--config", os.DevNull, "--ignorefile", os.DevNull}, args[1:]...)
	cmd := exec.CommandContext(ctx, "trivy", full...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, stderr.String() + err.Error()
	}
	var rep struct {
		Results []struct {
			Vulnerabilities []struct{ VulnerabilityID, PkgName string }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("trivy %v: %v\n%s", args, err, stdout.String())
	}
	out := map[string]bool{}
	for _, r := range rep.Results {
		for _, v := range r.Vulnerabilities {
			out[v.PkgName+" "+v.VulnerabilityID] = true
		}
	}
	return out, ""
}

// validateVEX checks a document against the official schema with ajv
// (testdata/schemas); CI=true makes a missing ajv a failure.
func validateVEX(t *testing.T, format, file string) {
	t.Helper()
	if _, err := exec.LookPath("ajv"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but ajv is not installed (npm i -g ajv-cli ajv-formats)")
		}
		t.Log("ajv not installed: VEX schema validation skipped")
		return
	}
	s, _ := filepath.Abs("testdata/schemas")
	args := []string{"validate", "--spec=draft2020", "--strict=false", "-c", "ajv-formats", "-s", filepath.Join(s, "openvex-0.2.0.schema.json"), "-d", file}
	if format == "cyclonedx" {
		args = []string{"validate", "--spec=draft7", "--strict=false", "-c", "ajv-formats", "-s", filepath.Join(s, "cyclonedx", "bom-1.5.schema.json"),
			"-r", filepath.Join(s, "cyclonedx", "spdx.schema.json"), "-r", filepath.Join(s, "cyclonedx", "jsf-0.82.schema.json"), "-d", file}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ajv", args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " valid") {
		t.Fatalf("%s VEX does not validate against its schema: %v\n%s", format, err, out)
	}
}

// TestVEXRoundTripWithTrivy: a reviewer marks one of minimist's two
// advisories false_positive in scand; trivy, given scand's OpenVEX and
// CycloneDX VEX with the same offline data, no longer reports that one
// and still reports the other and lodash's. trivy fs reads OpenVEX;
// CycloneDX VEX it reads only beside a CycloneDX SBOM (trivy sbom), so
// that format goes through scand's own SBOM of the scan, which the VEX's
// BOM-Links point into.
func TestVEXRoundTripWithTrivy(t *testing.T) {
	env := vexTools(t)
	tree := vexTree(t)
	base := daemon(t, env)
	before, errOut := trivyVulns(t, "fs", tree)
	const marked, other = "minimist CVE-2021-44906", "lodash CVE-2021-23337"
	if !before[marked] || !before[other] || !before["minimist CVE-2020-7598"] {
		t.Fatalf("trivy without VEX reports %v (%s); the fixture needs both advisories", before, errOut)
	}
	id := daemonScan(t, base, tree, []string{"dependency"})
	fs := vexFindings(t, base, id)
	f, ok := fs[marked]
	if !ok {
		t.Fatalf("scand found no %s: %v", marked, fs)
	}
	var st map[string]any
	if code := apiCall(t, "PATCH", base+"/api/v1/findings/"+f.Fingerprint+"/state",
		map[string]any{"status": "false_positive", "note": "only the build tool uses minimist", "justification": "vulnerable_code_not_in_execute_path"}, &st); code != 200 {
		t.Fatalf("set verdict: %d %v", code, st)
	}
	if code := apiCall(t, "PATCH", base+"/api/v1/findings/"+f.Fingerprint+"/state", map[string]any{"status": "accepted_risk", "justification": "component_not_present"}, nil); code != 422 {
		t.Errorf("a justification on accepted_risk: %d, want 422", code)
	}
	dir := t.TempDir()
	ov, cdx, bom := filepath.Join(dir, "scand.openvex.json"), filepath.Join(dir, "scand.cdx-vex.json"), filepath.Join(dir, "sbom.cdx.json")
	doc := vexGet(t, base+"/api/v1/scans/"+id+"/vex?format=openvex", ov)
	vexGet(t, base+"/api/v1/scans/"+id+"/vex?format=cyclonedx", cdx)
	vexGet(t, base+"/api/v1/scans/"+id+"/sbom?format=cyclonedx", bom)
	if !bytes.Contains(doc, []byte(`"author": "ACME Product Security"`)) || !bytes.Contains(doc, []byte(`"pkg:npm/minimist@1.2.0"`)) ||
		bytes.Contains(doc, []byte("lodash")) {
		t.Fatalf("OpenVEX of the scan:\n%s", doc)
	}
	validateVEX(t, "openvex", ov)
	validateVEX(t, "cyclonedx", cdx)

	// The target's document says the same as its latest scan's.
	var targets struct {
		Items []struct {
			ID  int64  `json:"id"`
			Key string `json:"key"`
		} `json:"items"`
	}
	apiCall(t, "GET", base+"/api/v1/targets", nil, &targets)
	if len(targets.Items) != 1 {
		t.Fatalf("targets %+v", targets)
	}
	tdoc := vexGet(t, fmt.Sprintf("%s/api/v1/targets/%d/vex", base, targets.Items[0].ID), "")
	if !bytes.Contains(tdoc, []byte(`"name": "CVE-2021-44906"`)) || !bytes.Contains(tdoc, []byte(`"vulnerable_code_not_in_execute_path"`)) {
		t.Errorf("target VEX:\n%s", tdoc)
	}

	check := func(name string, got map[string]bool, errOut string) {
		t.Helper()
		if got == nil {
			t.Fatalf("%s: trivy failed: %s", name, errOut)
		}
		if got[marked] {
			t.Errorf("%s: trivy still reports %s: %v", name, marked, got)
		}
		if !got[other] || !got["minimist CVE-2020-7598"] {
			t.Errorf("%s: trivy lost advisories nobody marked: %v", name, got)
		}
	}
	got, errOut := trivyVulns(t, "fs", "--vex", ov, tree)
	check("trivy fs --vex OpenVEX", got, errOut)
	got, errOut = trivyVulns(t, "sbom", "--vex", ov, bom)
	check("trivy sbom --vex OpenVEX", got, errOut)
	got, errOut = trivyVulns(t, "fs", "--vex", cdx, tree)
	if got == nil && strings.Contains(errOut, "CycloneDX VEX can be used with CycloneDX SBOM") {
		t.Logf("trivy fs refuses CycloneDX VEX (%s); reading it beside scand's SBOM with trivy sbom", strings.TrimSpace(errOut))
		got, errOut = trivyVulns(t, "sbom", "--vex", cdx, bom)
	}
	check("trivy --vex CycloneDX", got, errOut)
	if before["lodash CVE-2020-8203"] && !got["lodash CVE-2020-8203"] {
		t.Errorf("CycloneDX VEX hid lodash CVE-2020-8203")
	}
}

// vendorVEX is a vendor's OpenVEX document about the fixture: by alias
// (GHSA id of CVE-2021-23337), for any version and with qualifiers,
// for another version (matches nothing now), an affected statement
// (recorded, never applied), one for a minimist version only a later
// scan has, and one about a finding a reviewer has decided on (kept).
const vendorVEX = `{
  "@context": "https://openvex.dev/ns/v0.2.0",
  "@id": "https://vendor.example/vex/2026-001",
  "author": "Vendor PSIRT",
  "timestamp": "2026-02-01T00:00:00Z",
  "version": 1,
  "statements": [
    {"vulnerability": {"name": "GHSA-35jh-r3h4-6jhm"}, "products": [{"@id": "pkg:npm/lodash@4.17.15"}],
     "status": "not_affected", "justification": "vulnerable_code_not_present", "impact_statement": "template() is compiled out"},
    {"vulnerability": {"name": "CVE-2020-7598"}, "products": [{"@id": "https://vendor.example/app", "subcomponents": [{"@id": "pkg:npm/minimist?repository_url=https://registry.npmjs.org"}]}],
     "status": "not_affected", "impact_statement": "arguments never come from users"},
    {"vulnerability": {"name": "CVE-2020-8203"}, "products": [{"identifiers": {"purl": "pkg:npm/lodash@4.17.21"}}],
     "status": "not_affected", "justification": "component_not_present"},
    {"vulnerability": {"name": "CVE-2021-44906"}, "products": [{"@id": "pkg:npm/minimist@1.2.0"}],
     "status": "affected", "action_statement": "upgrade to 1.2.6"},
    {"vulnerability": {"name": "CVE-2021-44906", "aliases": ["GHSA-xvch-5gv4-984h"]}, "products": [{"@id": "pkg:npm/minimist@1.2.5"}],
     "status": "not_affected", "justification": "inline_mitigations_already_exist"},
    {"vulnerability": {"name": "CVE-2020-8203"}, "products": [{"@id": "pkg:npm/lodash@4.17.15"}],
     "status": "not_affected", "justification": "component_not_present"}
  ]
}`

func vexPost(t *testing.T, base string, body []byte, out any) int {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/v1/vex", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if out != nil {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			t.Fatalf("POST /vex: %d %v: %s", resp.StatusCode, err, buf.String())
		}
	}
	return resp.StatusCode
}

// TestVEXImportMarksMatchingFindings: a vendor's OpenVEX marks exactly
// the matching findings (by purl and by an alias), now and in a later
// scan; other statuses are recorded only; a malformed or oversized
// document is refused with a clear detail and changes nothing.
func TestVEXImportMarksMatchingFindings(t *testing.T) {
	env := vexTools(t)
	tree := vexTree(t)
	base := daemon(t, env)
	id := daemonScan(t, base, tree, []string{"dependency"})
	fs := vexFindings(t, base, id)
	for _, k := range []string{"lodash CVE-2021-23337", "lodash CVE-2020-8203", "minimist CVE-2020-7598", "minimist CVE-2021-44906"} {
		if _, ok := fs[k]; !ok {
			t.Fatalf("scand found no %s: %v", k, fs)
		}
	}
	// A reviewer's verdict on one finding the document also covers wins.
	if code := apiCall(t, "PATCH", base+"/api/v1/findings/"+fs["lodash CVE-2020-8203"].Fingerprint+"/state",
		map[string]any{"status": "wont_fix", "note": "reviewed"}, nil); code != 200 {
		t.Fatalf("reviewer verdict: %d", code)
	}

	var res struct {
		Applied             int `json:"applied"`
		KeptForFuture       int `json:"kept_for_future"`
		RecordedOnly        int `json:"recorded_only"`
		FindingsMarked      int `json:"findings_marked"`
		FindingsKeptVerdict int `json:"findings_kept_reviewer_verdict"`
		AuditID             int `json:"audit_id"`
		Document            struct {
			Author string `json:"author"`
		} `json:"document"`
	}
	if code := vexPost(t, base, []byte(vendorVEX), &res); code != 200 {
		t.Fatalf("import: %d %+v", code, res)
	}
	if res.Applied != 2 || res.FindingsMarked != 2 || res.RecordedOnly != 1 || res.KeptForFuture != 3 || res.FindingsKeptVerdict != 1 ||
		res.Document.Author != "Vendor PSIRT" || res.AuditID == 0 {
		t.Fatalf("import result %+v; want 2 applied (2 findings), 1 recorded only, 3 kept for future, 1 reviewer verdict kept", res)
	}
	fs = vexFindings(t, base, id)
	for k, want := range map[string]string{"lodash CVE-2021-23337": "false_positive", "minimist CVE-2020-7598": "false_positive",
		"lodash CVE-2020-8203": "wont_fix", "minimist CVE-2021-44906": ""} {
		f := fs[k]
		got := ""
		if f.State != nil {
			got = f.State.Status
		}
		if got != want {
			t.Errorf("%s: verdict %q, want %q", k, got, want)
		}
		if want == "false_positive" && (f.State.UpdatedBy != "vex:Vendor PSIRT" || f.State.Note == "") {
			t.Errorf("%s: verdict by %q note %q", k, f.State.UpdatedBy, f.State.Note)
		}
	}
	if j := fs["lodash CVE-2021-23337"].State.Justification; j != "vulnerable_code_not_present" {
		t.Errorf("justification carried: %q", j)
	}
	var hist []struct {
		Status    string `json:"status"`
		UpdatedBy string `json:"updated_by"`
	}
	apiCall(t, "GET", base+"/api/v1/findings/"+fs["minimist CVE-2020-7598"].Fingerprint+"/history", nil, &hist)
	if len(hist) != 1 || hist[0].UpdatedBy != "vex:Vendor PSIRT" {
		t.Errorf("history of a marked finding: %+v", hist)
	}
	auditCount := func(action string) int {
		var page struct {
			Records []json.RawMessage `json:"records"`
		}
		if code := apiCall(t, "GET", base+"/api/v1/audit?action="+action, nil, &page); code != 200 {
			t.Fatalf("audit: %d", code)
		}
		return len(page.Records)
	}
	if n := auditCount("vex.import"); n != 1 {
		t.Errorf("%d vex.import audit records, want 1", n)
	}
	statements := func(q string) int {
		var l struct {
			Items []json.RawMessage `json:"items"`
		}
		if code := apiCall(t, "GET", base+"/api/v1/vex/statements"+q, nil, &l); code != 200 {
			t.Fatalf("statements: %d", code)
		}
		return len(l.Items)
	}
	if n, a := statements(""), statements("?status=affected"); n != 6 || a != 1 {
		t.Errorf("listed %d statements (%d affected), want 6 (1)", n, a)
	}

	// A later scan of another tree with minimist 1.2.5: the kept
	// statement marks its finding when the scan completes.
	later := filepath.Join(t.TempDir(), "later")
	writeFiles(t, later, map[string]string{"package-lock.json": `{"name":"later","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{` +
		`"":{"name":"later","version":"1.0.0","dependencies":{"minimist":"1.2.5"}},"node_modules/minimist":{"version":"1.2.5","license":"MIT"}}}` + "\n"})
	id2 := daemonScan(t, base, later, []string{"dependency"})
	f2, ok := vexFindings(t, base, id2)["minimist CVE-2021-44906"]
	if !ok {
		t.Fatal("the later scan found no minimist CVE-2021-44906")
	}
	if f2.State == nil || f2.State.Status != "false_positive" || f2.State.UpdatedBy != "vex:Vendor PSIRT" {
		t.Errorf("the later scan's finding: %+v", f2.State)
	}
	if n := auditCount("finding.vex_applied"); n != 1 {
		t.Errorf("%d finding.vex_applied audit records, want 1", n)
	}

	// Refused documents change nothing.
	var bad struct {
		Detail []struct {
			Loc []any  `json:"loc"`
			Msg string `json:"msg"`
		} `json:"detail"`
	}
	malformed := strings.Replace(vendorVEX, `"status": "affected", "action_statement": "upgrade to 1.2.6"`, `"status": "affected"`, 1)
	if code := vexPost(t, base, []byte(malformed), &bad); code != 422 {
		t.Fatalf("malformed: %d %+v", code, bad)
	}
	if len(bad.Detail) != 1 || fmt.Sprint(bad.Detail[0].Loc) != "[body statements 3 action_statement]" || !strings.Contains(bad.Detail[0].Msg, "action_statement") {
		t.Errorf("malformed detail: %+v", bad.Detail)
	}
	big := []byte(strings.Replace(vendorVEX, `"version": 1,`, `"version": 1, "padding": "`+strings.Repeat("x", 10<<20)+`",`, 1))
	var tooBig struct{ Detail string }
	if code := vexPost(t, base, big, &tooBig); code != 413 || !strings.Contains(tooBig.Detail, "10485760") {
		t.Errorf("oversized: %d %q", code, tooBig.Detail)
	}
	if n := statements(""); n != 6 {
		t.Errorf("after refused documents %d statements, want 6", n)
	}
	if n := auditCount("vex.import"); n != 1 {
		t.Errorf("after refused documents %d vex.import audit records, want 1", n)
	}
	if f := vexFindings(t, base, id)["minimist CVE-2021-44906"]; f.State != nil {
		t.Errorf("a refused document set a verdict: %+v", f.State)
	}
}

// TestVEXInTheCLIGate: scand scan --vex keeps the findings a document's
// not_affected statements match out of the gate (shown as suppressed by
// VEX), the others still gate, and --vex-out writes the verdicts.
func TestVEXInTheCLIGate(t *testing.T) {
	env := vexTools(t)
	tree := vexTree(t)
	doc := filepath.Join(t.TempDir(), "vendor.openvex.json")
	if err := os.WriteFile(doc, []byte(vendorVEX), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.cdx.json")
	r := scandCLI(t, tree, env, "scan", "--type", "dependency", "--format", "json", "--fail-on", "low", "--vex", doc, "--vex-out", out, ".")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (unmarked findings gate)\n%s", r.code, r.stderr)
	}
	var rep struct {
		Findings []struct {
			RuleID   string `json:"rule_id"`
			Gating   bool   `json:"gating"`
			Triage   string `json:"triage"`
			Metadata struct {
				AdvisoryID string `json:"advisory_id"`
			} `json:"metadata"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, r.stdout)
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		id := f.Metadata.AdvisoryID
		marked := id == "CVE-2021-23337" || id == "CVE-2020-7598" || id == "CVE-2020-8203" // no reviewer verdict here
		if id == "" {
			continue
		}
		seen[id] = true
		if marked && (f.Gating || f.Triage != "false_positive") || !marked && (!f.Gating || f.Triage != "new") {
			t.Errorf("%s: gating %v triage %s", id, f.Gating, f.Triage)
		}
	}
	if !seen["CVE-2021-23337"] || !seen["CVE-2020-7598"] || !seen["CVE-2021-44906"] {
		t.Fatalf("report lacks the fixture's advisories: %v", seen)
	}
	text := scandCLI(t, tree, env, "scan", "--type", "dependency", "--vex", doc, ".").want(t, 0)
	if !strings.Contains(text.stdout, "suppressed by VEX: Vendor PSIRT") {
		t.Errorf("text report does not show the VEX suppression:\n%s", text.stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"bomFormat": "CycloneDX"`)) || bytes.Count(b, []byte(`"state": "not_affected"`)) != 3 {
		t.Errorf("-vex-out:\n%s", b)
	}
	// The command publishes no SBOM: its refs are purls, never BOM-Links
	// into a document the user does not have.
	if bytes.Contains(b, []byte("urn:cdx:")) || !bytes.Contains(b, []byte(`"ref": "pkg:npm/`)) {
		t.Errorf("-vex-out refs are not standalone purls:\n%s", b)
	}
	validateVEX(t, "cyclonedx", out)
	scandCLI(t, tree, env, "scan", "--type", "dependency", "--vex", filepath.Join(tree, "package.json"), ".").want(t, 2)
}
