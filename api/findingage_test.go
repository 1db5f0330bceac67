package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

// TestReportsCarryAge: every finding shape and report of a stored scan
// says when the finding was first and last seen on its target, and its
// fix deadline: the canonical and sorted lists, one finding, the HTML
// report (the PDF prints it) and SARIF.
func TestReportsCarryAge(t *testing.T) {
	sla, err := finding.ParseSLA("high:30")
	if err != nil {
		t.Fatal(err)
	}
	h := newScanHarness(t, lifecycleRegistry(), func(d *Deps) { d.SLA = sla })
	dir := writeTree(t, map[string]string{"a.txt": "VULN a\n"})
	var ids []string
	var completed []time.Time
	for i := 0; i < 2; i++ {
		if i > 0 {
			// Reports print sightings to the second: keep the two apart.
			time.Sleep(1100 * time.Millisecond)
		}
		v := h.startScan(map[string]any{"target_path": dir, "scan_types": []string{"code"}})
		done := h.waitStatus(v.ID, "completed")
		ids, completed = append(ids, v.ID), append(completed, *done.CompletedAt)
	}
	if completed[1].Sub(completed[0]) < time.Second {
		t.Fatalf("second scan completed at %v, not after %v", completed[1], completed[0])
	}
	type aged struct {
		Fingerprint string     `json:"fingerprint"`
		FirstSeen   *time.Time `json:"first_seen"`
		LastSeen    *time.Time `json:"last_seen"`
		DueAt       *time.Time `json:"due_at"`
		Overdue     *bool      `json:"overdue"`
	}
	check := func(where string, a aged) {
		t.Helper()
		if a.FirstSeen == nil || a.LastSeen == nil || !a.FirstSeen.Equal(completed[0]) || !a.LastSeen.Equal(completed[1]) {
			t.Errorf("%s: first_seen %v last_seen %v, want %v and %v", where, a.FirstSeen, a.LastSeen, completed[0], completed[1])
		}
		if want := completed[0].Add(30 * 24 * time.Hour); a.DueAt == nil || !a.DueAt.Equal(want) || a.Overdue == nil || *a.Overdue {
			t.Errorf("%s: due_at %v overdue %v, want %v and false", where, a.DueAt, a.Overdue, want)
		}
	}
	var fp string
	for _, q := range []string{"", "?sort=first_seen", "?sort=file", "?format=ndjson", "?sort=rule&format=ndjson"} {
		code, out, _ := h.do("GET", "/api/v1/scans/"+ids[1]+"/findings"+q, nil)
		if code != 200 {
			t.Fatalf("findings%s: %d %s", q, code, out)
		}
		var rows []aged
		if strings.Contains(q, "ndjson") {
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var a aged
				if err := json.Unmarshal([]byte(line), &a); err != nil {
					t.Fatalf("findings%s: %v in %q", q, err, line)
				}
				rows = append(rows, a)
			}
		} else if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatalf("findings%s: %v", q, err)
		}
		if len(rows) == 0 {
			t.Fatalf("findings%s: no rows", q)
		}
		for _, a := range rows {
			check("findings"+q, a)
		}
		fp = rows[0].Fingerprint
	}
	code, out, _ := h.do("GET", "/api/v1/findings/"+fp+"?scan="+ids[1], nil)
	var one aged
	if code != 200 || json.Unmarshal(out, &one) != nil {
		t.Fatalf("one finding: %d %s", code, out)
	}
	check("GET /findings/{fingerprint}", one)

	code, out, _ = h.do("GET", "/api/v1/scans/"+ids[1]+"/report?format=sarif", nil)
	if code != 200 {
		t.Fatalf("sarif: %d %s", code, out)
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	results := 0
	for _, run := range doc.Runs {
		for _, r := range run.Results {
			results++
			if r.Properties["firstSeen"] != completed[0].UTC().Format(time.RFC3339) || r.Properties["lastSeen"] != completed[1].UTC().Format(time.RFC3339) {
				t.Errorf("SARIF result properties %v: want firstSeen %s, lastSeen %s", r.Properties, completed[0].UTC().Format(time.RFC3339), completed[1].UTC().Format(time.RFC3339))
			}
		}
	}
	if results == 0 {
		t.Fatalf("SARIF without results: %s", out)
	}

	code, out, _ = h.do("GET", "/api/v1/scans/"+ids[1]+"/report?format=html", nil)
	const layout = "2006-01-02 15:04:05 UTC"
	want := "<dt>Seen</dt><dd>first " + completed[0].UTC().Format(layout) + ", last " + completed[1].UTC().Format(layout) + "</dd>"
	if code != 200 || !strings.Contains(string(out), want) {
		t.Errorf("HTML report: %d, want %q in it", code, want)
	}
}

// TestStreamsBesideLookupsNeverDeadlock: many clients reading pages,
// NDJSON and reports of one scan at once, each holding a reader
// connection while it looks up ages and excerpts beside the stream, all
// finish. With the lookups on the reader pool, eight such requests held
// all eight connections and waited for a ninth forever.
func TestStreamsBesideLookupsNeverDeadlock(t *testing.T) {
	h := newScanHarness(t, nil, nil)
	ctx := context.Background()
	id := store.NewID()
	if _, err := h.store.CreateScan(ctx, store.Scan{ID: id, TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	h.store.MarkScanRunning(ctx, id)
	if err := h.store.CompleteScan(ctx, id, store.ScanResult{Findings: finding.Prepare(id, syntheticFindings(1500), nil, store.NewID)}); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/findings", "/findings?format=ndjson", "/report?format=sarif", "/report?format=html", "/findings?sort=first_seen"}
	client := &http.Client{Timeout: 60 * time.Second}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for c := 0; c < 24; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < 4; i++ {
				resp, err := client.Get(h.srv.URL + "/api/v1/scans/" + id + paths[(c+i)%len(paths)])
				if err != nil {
					errs <- err
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					errs <- fmt.Errorf("%s: %d %v", paths[(c+i)%len(paths)], resp.StatusCode, err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
