package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// advisoryRecords are the OSV records of testdata/wrappers/vulndb/osv/npm
// a dataset holds.
func advisoryRecords(t *testing.T, ids ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join("testdata", "wrappers", "vulndb", "osv", "npm", id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		out[id+".json"] = b
	}
	return out
}

// osvZipOf writes an OSV all.zip of records.
func osvZipOf(t *testing.T, recs map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range recs {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "all.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// trivyDBGenerator finds tools/trivydb's generator (.ci/install-scanners.sh
// builds it beside the tools' bin folder), else builds it from the module
// cache without the network. bbolt stays out of scand's module either way.
func trivyDBGenerator(t *testing.T, trivy string) string {
	t.Helper()
	if p := os.Getenv("SCAND_TRIVYDB_GEN"); p != "" {
		return p
	}
	if real, err := filepath.EvalSymlinks(trivy); err == nil {
		for _, p := range []string{filepath.Join(filepath.Dir(trivy), "..", "trivydb-gen"), filepath.Join(filepath.Dir(real), "..", "trivydb-gen"),
			filepath.Join(filepath.Dir(real), "..", "..", "trivydb-gen")} {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
	}
	out := filepath.Join(t.TempDir(), "trivydb-gen")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = filepath.Join("tools", "trivydb")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("no Trivy DB generator (set SCAND_TRIVYDB_GEN, or run .ci/install-scanners.sh): go build tools/trivydb: %v\n%s", err, b)
	}
	return out
}

// trivyTarballOf builds a Trivy db.tar.gz of records with the generator.
func trivyTarballOf(t *testing.T, gen string, recs map[string][]byte, at time.Time) string {
	t.Helper()
	src := t.TempDir()
	for name, b := range recs {
		if err := os.WriteFile(filepath.Join(src, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	if b, err := exec.Command(gen, "-out", out, "-now", at.UTC().Format(time.RFC3339), src).CombinedOutput(); err != nil {
		t.Fatalf("trivydb-gen: %v\n%s", err, b)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range []string{"trivy.db", "metadata.json"} {
		b, err := os.ReadFile(filepath.Join(out, "db", name))
		if err != nil {
			t.Fatal(err)
		}
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "db.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// upload imports an archive through POST /vulndb/import.
func (d *scheduleDaemon) upload(t *testing.T, archive, name string) {
	t.Helper()
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", d.base+"/api/v1/vulndb/import?name="+name, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("import %s: %d %s", name, resp.StatusCode, raw)
	}
}

type reevalJSON struct {
	ID              string         `json:"id"`
	Trigger         string         `json:"trigger"`
	Status          string         `json:"status"`
	TargetsTotal    int            `json:"targets_total"`
	TargetsByStatus map[string]int `json:"targets_by_status"`
	NewMatches      int            `json:"new_matches"`
	Announced       bool           `json:"announced"`
	Targets         []struct {
		TargetID   int64  `json:"target_id"`
		BaseScanID string `json:"base_scan_id"`
		ScanID     string `json:"scan_id"`
		Status     string `json:"status"`
		Note       string `json:"note"`
	} `json:"targets"`
}

// settledReevaluations waits until n runs exist and all have ended and
// announced.
func (d *scheduleDaemon) settledReevaluations(t *testing.T, n int) []reevalJSON {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var runs []reevalJSON
		d.call(t, "GET", "/api/v1/reevaluations?limit=200", "", &runs)
		done := len(runs) >= n
		for _, r := range runs {
			if r.Status == "pending" || r.Status == "running" || !r.Announced {
				done = false
			}
		}
		if done {
			return runs
		}
		if time.Now().After(deadline) {
			t.Fatalf("re-evaluations did not settle: %+v\n%s", runs, d.p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestBinaryReevaluationAfterImport is issue 27's first bar on the built
// daemon with the real osv-scanner and trivy: a tree is scanned with a
// first advisory dataset (lodash's advisories), the tree is deleted, and a
// second dataset adding an advisory for the minimist version the stored
// SBOM holds is imported (OSV zip and Trivy DB, two imports). Exactly one
// advisory.new_matches delivery reaches a loopback receiver, naming the
// target and the advisory, and the finding is on the target in a scan
// with source reevaluation. An import on the command line while the
// daemon runs is noticed too, and announces nothing new.
func TestBinaryReevaluationAfterImport(t *testing.T) {
	osvScanner := requireTool(t, "osv-scanner", "osv-scanner (.ci/install-scanners.sh)")
	trivy := requireTool(t, "trivy", "trivy (.ci/install-scanners.sh)")
	_ = osvScanner
	gen := trivyDBGenerator(t, trivy)
	built := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	first := advisoryRecords(t, "GHSA-35jh-r3h4-6jhm", "GHSA-p6mc-m468-83gw")
	second := advisoryRecords(t, "GHSA-35jh-r3h4-6jhm", "GHSA-p6mc-m468-83gw", "GHSA-xvch-5gv4-984h")
	osv1, trivy1 := osvZipOf(t, first), trivyTarballOf(t, gen, first, built)
	osv2, trivy2 := osvZipOf(t, second), trivyTarballOf(t, gen, second, built.Add(time.Minute))

	root := t.TempDir()
	tree := filepath.Join(root, "webapp")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile(filepath.Join("testdata", "wrappers", "tree", "webapp", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "package-lock.json"), lock, 0o644); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var deliveries []map[string]any
	var events []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		mu.Lock()
		deliveries = append(deliveries, body)
		events = append(events, r.Header.Get("X-Svc-Event"))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	received := func() ([]map[string]any, []string) {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]any(nil), deliveries...), append([]string(nil), events...)
	}

	vulnDir := filepath.Join(t.TempDir(), "vulndb")
	db := filepath.Join(t.TempDir(), "scand.db")
	env := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": db, "SVC_SCAN_ROOTS": root, "HOME": t.TempDir(),
		"SVC_VULNDB_DIR": vulnDir, "SVC_WEBHOOK_ALLOW_PRIVATE": "1", "SVC_REEVALUATE_POLL": "1"}
	d := startScheduleDaemon(t, env)
	if code := d.call(t, "POST", "/api/v1/webhooks", fmt.Sprintf(`{"name":"advisories","url":%q,"event_filter":["advisory.new_matches","scan.complete"]}`, recv.URL), nil); code != 201 {
		t.Fatalf("create webhook: %d", code)
	}
	d.upload(t, osv1, "all.zip")
	d.upload(t, trivy1, "db.tar.gz")
	d.settledReevaluations(t, 2) // over no target yet

	var sc struct {
		ID string `json:"id"`
	}
	if code := d.call(t, "POST", "/api/v1/scans", fmt.Sprintf(`{"target_path":%q,"scan_types":["dependency"]}`, tree), &sc); code != 200 {
		t.Fatalf("start scan: %d", code)
	}
	var base scanResult
	deadline := time.Now().Add(2 * time.Minute)
	for {
		d.call(t, "GET", "/api/v1/scans/"+sc.ID, "", &base)
		if base.Status == "completed" {
			break
		}
		if base.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("scan: %+v\n%s", base, d.p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, tool := range []string{"osv-scanner", "trivy"} {
		if !strings.Contains(strings.Join(base.ScannersRun, ","), tool) {
			t.Fatalf("the first scan did not run %s: %+v", tool, base)
		}
	}
	baseIDs := advisoryIDsOf(t, d, sc.ID)
	if !baseIDs["GHSA-35jh-r3h4-6jhm"] || baseIDs["GHSA-xvch-5gv4-984h"] {
		t.Fatalf("first scan's advisories: %v", baseIDs)
	}
	// The scan's own scan.complete is delivered; the re-evaluation's are not.
	waitFor(t, 30*time.Second, func() bool { _, ev := received(); return len(ev) == 1 })

	if err := os.RemoveAll(tree); err != nil {
		t.Fatal(err)
	}
	d.upload(t, osv2, "all.zip")
	d.upload(t, trivy2, "db.tar.gz")
	runs := d.settledReevaluations(t, 4)
	time.Sleep(2 * time.Second) // a second delivery, if any, would have been queued by now
	got, evs := received()
	var matches []map[string]any
	for i, ev := range evs {
		if ev == "advisory.new_matches" {
			matches = append(matches, got[i])
		}
	}
	if len(matches) != 1 || len(evs) != 2 {
		t.Fatalf("deliveries after the second import: %v (want one advisory.new_matches and no more scan.complete)\nruns: %+v", evs, runs)
	}
	data, _ := matches[0]["data"].(map[string]any)
	raw, _ := json.Marshal(data)
	for _, want := range []string{`"target_name":"` + tree + `"`, "GHSA-xvch-5gv4-984h", "CVE-2021-44906", `"package":"minimist"`, `"version":"1.2.0"`, `"severity":"critical"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("advisory.new_matches lacks %s: %s", want, raw)
		}
	}
	if strings.Contains(string(raw), "GHSA-35jh-r3h4-6jhm") {
		t.Errorf("advisory.new_matches lists an advisory the previous scan had: %s", raw)
	}
	if data["count"] != float64(1) {
		t.Errorf("count: %v", data["count"])
	}

	// The finding is on the target, in the scan the re-evaluation made.
	targets, _ := data["targets"].([]any)
	target, _ := targets[0].(map[string]any)
	var findings struct {
		Items []struct {
			ScanID   string         `json:"scan_id"`
			RuleID   string         `json:"rule_id"`
			Metadata map[string]any `json:"metadata"`
		} `json:"items"`
	}
	if code := d.call(t, "GET", fmt.Sprintf("/api/v1/findings?target=%v&limit=100", target["target_id"]), "", &findings); code != 200 {
		t.Fatalf("target findings: %d", code)
	}
	found := false
	for _, f := range findings.Items {
		if f.Metadata["advisory_id"] == "GHSA-xvch-5gv4-984h" || f.Metadata["advisory_id"] == "CVE-2021-44906" {
			found = true
			// Each import re-evaluated the target's latest scan: the chain
			// of based_on_scan leads back to the scan of the tree.
			var s scanResult
			d.call(t, "GET", "/api/v1/scans/"+f.ScanID, "", &s)
			if s.Source != "reevaluation" || strings.Join(s.ScannersRun, ",") != "osv-scanner,trivy" || s.Partial {
				t.Errorf("finding's scan: source %q, scanners run %v, partial %v; want a reevaluation both tools completed", s.Source, s.ScannersRun, s.Partial)
			}
			if by := fmt.Sprint(f.Metadata["also_reported_by"]); f.Metadata["scanner"] == nil && !strings.Contains(by, "trivy") && !strings.Contains(by, "osv-scanner") {
				t.Errorf("the new advisory was matched by one tool only: %v", f.Metadata)
			}
			for hops := 0; s.Source == "reevaluation" && hops < 5; hops++ {
				next := s.BasedOnScan
				s = scanResult{}
				d.call(t, "GET", "/api/v1/scans/"+next, "", &s)
				s.ID = next
			}
			if s.ID != sc.ID {
				t.Errorf("based_on_scan leads to %q, not the scan of the tree %s", s.ID, sc.ID)
			}
		}
	}
	if !found {
		t.Fatalf("the newly matched advisory is not among the target's findings: %+v", findings.Items)
	}
	var detail reevalJSON
	for _, r := range runs {
		if r.NewMatches == 1 {
			d.call(t, "GET", "/api/v1/reevaluations/"+r.ID, "", &detail)
		}
	}
	if len(detail.Targets) != 1 || detail.Targets[0].BaseScanID != sc.ID || detail.Targets[0].Status != "completed" {
		t.Fatalf("re-evaluation detail: %+v", detail)
	}

	// `scand vulndb import` on the command line, while the daemon runs:
	// noticed, re-evaluated, nothing new to announce.
	cmd := exec.Command(buildScand(t), "vulndb", "import", osv2)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SVC_VULNDB_DIR=" + vulnDir, "HOME=" + env["HOME"]}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scand vulndb import: %v\n%s", err, b)
	}
	runs = d.settledReevaluations(t, 5)
	if runs[0].Trigger != "import" || runs[0].NewMatches != 0 || runs[0].TargetsTotal != 1 {
		t.Fatalf("run after the command-line import: %+v", runs[0])
	}
	time.Sleep(time.Second)
	if _, evs := received(); len(evs) != 2 {
		t.Fatalf("a re-evaluation with nothing new was announced: %v", evs)
	}
}

type scanResult struct {
	ID          string   `json:"id"`
	Status      string   `json:"status"`
	ScannersRun []string `json:"scanners_run"`
	Source      string   `json:"source"`
	BasedOnScan string   `json:"based_on_scan"`
	Partial     bool     `json:"partial"`
}

// advisoryIDsOf are the advisory ids (with aliases) of a scan's findings.
func advisoryIDsOf(t *testing.T, d *scheduleDaemon, scanID string) map[string]bool {
	t.Helper()
	var fs []struct {
		RuleID   string         `json:"rule_id"`
		Metadata map[string]any `json:"metadata"`
	}
	d.call(t, "GET", "/api/v1/scans/"+scanID+"/findings", "", &fs)
	ids := map[string]bool{}
	for _, f := range fs {
		ids[f.RuleID] = true
		if as, ok := f.Metadata["aliases"].([]any); ok {
			for _, a := range as {
				ids[fmt.Sprint(a)] = true
			}
		}
	}
	return ids
}

func waitFor(t *testing.T, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
