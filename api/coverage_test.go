package api

import (
	"encoding/json"
	"strings"
	"testing"

	"scand/scan"
)

// A tree whose package.json has no lockfile and nothing installed: the
// scan carries the coverage warning (summary, HTML report, SARIF-backed
// run), and the SBOM lists the components with no version and the range
// as a property.
func TestScanWarnsVersionsUnknown(t *testing.T) {
	h := newScanHarness(t, []scan.Scanner{dataScanner{}}, nil)
	tree := writeTree(t, map[string]string{
		"package.json":                      `{"dependencies": {"express": "^4.17.1", "qs": "~6.11.0"}, "devDependencies": {"mocha": "^10.2.0"}}`,
		"node_modules/qs/package.json":      `{"name": "qs", "version": "6.11.2"}`,
		"node_modules/express/package.json": `{"name": "express", "version": "^4"}`,
	})
	v := h.startScan(map[string]any{"target_path": tree, "scan_types": []string{"dependency"}})
	h.waitStatus(v.ID, "completed")

	const want = "versions unknown for 2 components: no lockfile"
	_, out, _ := h.do("GET", "/api/v1/scans/"+v.ID+"/summary", nil)
	var sum ScanSummary
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range sum.Warnings {
		if strings.HasPrefix(w, want) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("summary warnings = %q, want one starting %q", sum.Warnings, want)
	}
	if _, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/report", nil); !strings.Contains(string(out), want) {
		t.Error("HTML report lacks the coverage warning")
	}

	_, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/sbom?format=cyclonedx", nil)
	var bom struct {
		Components []struct {
			Name       string `json:"name"`
			Version    string `json:"version"`
			PURL       string `json:"purl"`
			Properties []struct{ Name, Value string }
		} `json:"components"`
	}
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatalf("sbom: %v: %s", err, out)
	}
	got := map[string]string{}
	for _, c := range bom.Components {
		rng := ""
		for _, p := range c.Properties {
			if p.Name == "scand:declared_range" {
				rng = p.Value
			}
		}
		got[c.Name] = c.Version + " " + c.PURL + " " + rng
	}
	for name, w := range map[string]string{
		"express": " pkg:npm/express ^4.17.1", // what is installed is a range: no version
		"qs":      "6.11.2 pkg:npm/qs@6.11.2 ~6.11.0",
		"mocha":   " pkg:npm/mocha ^10.2.0",
	} {
		if got[name] != w {
			t.Errorf("%s: version, purl, range = %q, want %q", name, got[name], w)
		}
	}
}
