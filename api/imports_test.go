package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"scand/sse"
	"scand/store"
)

func importFinding(fp, severity, rule string) map[string]any {
	return map[string]any{"id": "client-id", "scan_id": "client-scan", "scanner": "secrets", "scan_type": "code", "severity": severity,
		"title": "Key in " + rule, "description": "d", "file_path": "src/app.py", "line": 3, "rule_id": rule, "cwe": "CWE-798",
		"fingerprint": fp, "compliance_tags": []string{"forged"}, "metadata": map[string]any{"suppressed_by": nil}, "state": nil}
}

func fp(n int) string { return fmt.Sprintf("%064x", n) }

// orderedJSON encodes an import with its members in the order the route
// reads them (encoding/json would sort a map's keys).
func orderedJSON(body map[string]any) string {
	var parts []string
	for _, k := range []string{"target", "commit", "scan_types", "scanners_run", "findings", "scanners_skipped", "components", "extra"} {
		if v, ok := body[k]; ok {
			b, _ := json.Marshal(v)
			parts = append(parts, fmt.Sprintf("%q:%s", k, b))
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func TestImportStoresACompletedScanAndAnswersVerdicts(t *testing.T) {
	h := newScanHarness(t, nil, nil)
	var events []string
	h.bus.AddSink("test", func(_ context.Context, ev sse.Event) error { events = append(events, ev.Name); return nil })
	body := map[string]any{"target": "https://git.example/shop.git", "commit": "0123abcd", "scan_types": []string{"code"},
		"findings": []any{importFinding(fp(1), "high", "generic-api-key"), importFinding(fp(2), "critical", "aws-access-key-id"),
			importFinding(fp(2), "critical", "aws-access-key-id")},
		"scanners_run": []string{"secrets"}, "scanners_skipped": []any{map[string]any{"name": "bandit", "reason": "not installed", "install_hint": "apt-get install bandit"}}}
	code, out, _ := h.do("POST", "/api/v1/scans/import", orderedJSON(body))
	if code != 201 {
		t.Fatalf("import: %d %s", code, out)
	}
	var res ImportScanResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	sc := res.Scan
	if sc.Status != "completed" || sc.Source != "import" || sc.Commit == nil || *sc.Commit != "0123abcd" || sc.TargetPath != "https://git.example/shop.git" {
		t.Errorf("scan %+v", sc)
	}
	if len(sc.ScannersRun) != 1 || len(sc.ScannersSkipped) != 1 || sc.ScannersSkipped[0].InstallHint != "apt-get install bandit" {
		t.Errorf("scanners %v %v", sc.ScannersRun, sc.ScannersSkipped)
	}
	if len(res.Verdicts) != 0 {
		t.Errorf("verdicts of a first import: %v", res.Verdicts)
	}
	// The same ingest as a daemon scan: duplicate fingerprints of one file
	// fold, ids and compliance tags are the daemon's.
	fs, err := h.store.FindingsByScan(context.Background(), sc.ID, store.FindingQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].Severity != "critical" || fs[0].ID == "client-id" || fs[0].ScanID != sc.ID || strings.Contains(strings.Join(fs[0].ComplianceTags, ","), "forged") {
		t.Fatalf("stored findings %+v", fs)
	}
	if strings.Join(events, ",") != "scan.start,scan.complete" {
		t.Errorf("events %v, want scan.start then scan.complete", events)
	}
	// It sent no components: its summary says why its SBOM is empty.
	code, out, _ = h.do("GET", "/api/v1/scans/"+sc.ID+"/summary", nil)
	if code != 200 || !strings.Contains(string(out), "no SBOM: the import sent no components") {
		t.Errorf("summary of an import without components: %d %s", code, out)
	}

	// A verdict recorded on the daemon comes back with the next import.
	code, out, _ = h.do("PATCH", "/api/v1/findings/"+fp(2)+"/state", map[string]any{"status": "false_positive", "note": "test key"})
	if code != 200 {
		t.Fatalf("triage: %d %s", code, out)
	}
	code, out, _ = h.do("POST", "/api/v1/scans/import", orderedJSON(body))
	if code != 201 {
		t.Fatalf("second import: %d %s", code, out)
	}
	res = ImportScanResult{}
	json.Unmarshal(out, &res)
	if len(res.Verdicts) != 1 || res.Verdicts[0].Fingerprint != fp(2) || res.Verdicts[0].Status != "false_positive" || res.Verdicts[0].Note != "test key" {
		t.Errorf("verdicts %+v", res.Verdicts)
	}
}

func TestImportValidation(t *testing.T) {
	h := newScanHarness(t, nil, nil)
	good := func() map[string]any {
		return map[string]any{"target": "repo", "scan_types": []string{"code"}, "findings": []any{importFinding(fp(1), "high", "r")}}
	}
	with := func(mod func(map[string]any)) string {
		b := good()
		mod(b)
		return orderedJSON(b)
	}
	badFinding := func(k string, v any) string {
		return with(func(b map[string]any) {
			f := importFinding(fp(1), "high", "r")
			f[k] = v
			b["findings"] = []any{importFinding(fp(3), "low", "ok"), f}
		})
	}
	badComponent := func(k string, v any) string {
		return with(func(b map[string]any) {
			c := map[string]any{"name": "lodash", "version": "4.17.21", "ecosystem": "npm", "purl": "pkg:npm/lodash@4.17.21"}
			c[k] = v
			b["components"] = []any{map[string]any{"name": "ok", "purl": "pkg:npm/ok"}, c}
		})
	}
	cases := []struct {
		name, body, loc string
	}{
		{"not an object", `[1]`, "body"},
		{"no findings", `{"target":"repo","scan_types":["code"]}`, "body.findings"},
		{"findings before target", `{"findings":[],"scan_types":["code"],"target":"repo"}`, "body.target"},
		{"empty target", with(func(b map[string]any) { b["target"] = "" }), "body.target"},
		{"control character in target", with(func(b map[string]any) { b["target"] = "a\nb" }), "body.target"},
		{"bad commit", with(func(b map[string]any) { b["commit"] = "HEAD" }), "body.commit"},
		{"unknown scan type", with(func(b map[string]any) { b["scan_types"] = []string{"sast"} }), "body.scan_types.0"},
		{"unknown member", with(func(b map[string]any) { b["extra"] = 1 }), "body.extra"},
		{"target after findings", `{"scan_types":["code"],"findings":[],"target":"x"}`, "body.target"},
		{"severity", badFinding("severity", "urgent"), "body.findings.1.severity"},
		{"scan type outside the import's", badFinding("scan_type", "iac"), "body.findings.1.scan_type"},
		{"absolute path", badFinding("file_path", "/etc/passwd"), "body.findings.1.file_path"},
		{"dot-dot path", badFinding("file_path", "a/../../x"), "body.findings.1.file_path"},
		{"fingerprint", badFinding("fingerprint", "abc"), "body.findings.1.fingerprint"},
		{"negative line", badFinding("line", -1), "body.findings.1.line"},
		{"cwe", badFinding("cwe", "798; drop"), "body.findings.1.cwe"},
		{"structured suppression", badFinding("metadata", map[string]any{"suppressed_by": map[string]any{"x": 1}}), "body.findings.1.metadata"},
		{"unknown finding field", badFinding("evil", true), "body.findings.1"},
		{"wrong type", badFinding("line", "three"), "body.findings.1.line"},
		{"bad skipped entry", with(func(b map[string]any) { b["scanners_skipped"] = []any{map[string]any{"name": ""}} }), "body.scanners_skipped.0.name"},
		{"trailing data", with(func(map[string]any) {}) + `{}`, "body"},
		{"components not an array", with(func(b map[string]any) { b["components"] = map[string]any{} }), "body.components"},
		{"component without a name", badComponent("name", ""), "body.components.1.name"},
		{"component purl", badComponent("purl", "javascript:alert(1)"), "body.components.1.purl"},
		{"component purl with a space", badComponent("purl", "pkg:npm/a b"), "body.components.1.purl"},
		{"component scope", badComponent("scope", "optional"), "body.components.1.scope"},
		{"component source outside", badComponent("source", "../../etc/passwd"), "body.components.1.source"},
		{"component dependency", badComponent("depends_on", []string{"not a purl"}), "body.components.1.depends_on"},
		{"component control character", badComponent("version", "1.0\n"), "body.components.1.version"},
		{"unknown component field", badComponent("evil", true), "body.components.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := h.do("POST", "/api/v1/scans/import", tc.body)
			if code != 422 {
				t.Fatalf("status %d, want 422: %s", code, out)
			}
			var v ValidationBody
			if err := json.Unmarshal(out, &v); err != nil || len(v.Detail) == 0 {
				t.Fatalf("not a validation body: %s", out)
			}
			var locs []string
			for _, d := range v.Detail {
				var parts []string
				for _, p := range d.Loc {
					parts = append(parts, fmt.Sprint(p))
				}
				locs = append(locs, strings.Join(parts, "."))
			}
			if locs[0] != tc.loc {
				t.Errorf("loc %v, want %s (%s)", locs, tc.loc, out)
			}
		})
	}
	// Nothing of the refused imports is left behind.
	code, out, _ := h.do("GET", "/api/v1/scans", nil)
	var scans []ScanView
	json.Unmarshal(out, &scans)
	if code != 200 || len(scans) != 0 {
		t.Errorf("scans after refused imports: %d %s", code, out)
	}
}

// An import's components are the scan's SBOM, before or after its
// findings; more than the cap is refused whole.
func TestImportKeepsComponents(t *testing.T) {
	h := newScanHarness(t, nil, nil)
	comps := `[{"name":"lodash","version":"4.17.21","ecosystem":"npm","purl":"pkg:npm/lodash@4.17.21","scope":"direct","source":"package-lock.json","line":7,"licenses":["MIT"]},` +
		`{"name":"express","version":"","ecosystem":"npm","purl":"pkg:npm/express","source":"package.json","declared_range":"^4.18.2"}]`
	body := `{"target":"repo","scan_types":["dependency"],"components":` + comps + `,"findings":[]}`
	code, out, _ := h.do("POST", "/api/v1/scans/import", body)
	if code != 201 {
		t.Fatalf("import: %d %s", code, out)
	}
	var res ImportScanResult
	json.Unmarshal(out, &res)
	code, out, _ = h.do("GET", "/api/v1/scans/"+res.Scan.ID+"/sbom", nil)
	if code != 200 || !strings.Contains(string(out), `"purl": "pkg:npm/lodash@4.17.21"`) && !strings.Contains(string(out), `"purl":"pkg:npm/lodash@4.17.21"`) {
		t.Errorf("SBOM: %d %s", code, out)
	}
	code, out, _ = h.do("GET", "/api/v1/scans/"+res.Scan.ID+"/summary", nil)
	if code != 200 || !strings.Contains(string(out), "versions unknown for 1 components") || strings.Contains(string(out), "no SBOM") {
		t.Errorf("summary: %d %s", code, out)
	}

	many := strings.Repeat(`{"name":"a"},`, 100_000) + `{"name":"a"}`
	code, out, _ = h.do("POST", "/api/v1/scans/import", `{"target":"repo2","scan_types":["dependency"],"findings":[],"components":[`+many+`]}`)
	if code != 422 || !strings.Contains(string(out), "at most 100000 components") {
		t.Errorf("100,001 components: %d %.300s", code, out)
	}
	code, out, _ = h.do("GET", "/api/v1/scans", nil)
	var scans []ScanView
	json.Unmarshal(out, &scans)
	if code != 200 || len(scans) != 1 {
		t.Errorf("scans after the refused import: %d %d", code, len(scans))
	}
}

func TestImportBodyCapAndScope(t *testing.T) {
	h := newScanHarness(t, nil, func(d *Deps) { d.Auth.EnvKey = "k" })
	code, _, _ := h.do("POST", "/api/v1/scans/import", `{"target":"x","scan_types":["code"],"findings":[]}`)
	if code != 401 {
		t.Errorf("without a key: %d, want 401", code)
	}
	big := `{"target":"x","scan_types":["code"],"findings":[` + strings.Repeat(`{"scanner":"s","scan_type":"code","severity":"low","title":"`+strings.Repeat("x", 1900)+`","description":"","file_path":"a","line":1,"rule_id":"r","cwe":null,"fingerprint":"`+fp(1)+`","metadata":{}},`, importMaxBody/2000+10)
	code, out, _ := h.do("POST", "/api/v1/scans/import", big, "X-API-Key", "k")
	if code != 413 {
		t.Errorf("oversized body: %d %.200s", code, out)
	}
	time.Sleep(10 * time.Millisecond)
	code, out, _ = h.do("GET", "/api/v1/scans", nil, "X-API-Key", "k")
	if code != 200 || strings.TrimSpace(string(out)) != "[]" {
		t.Errorf("an aborted import left a scan: %s", out)
	}
}
