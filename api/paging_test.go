package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/api/httpio"
	"scand/auth"
	"scand/finding"
	"scand/scan"
	"scand/store"
)

// streamScanner reports findings through ScanStream from several
// goroutines, as the built-in secrets scanner does, and can fail after
// reporting some of them.
type streamScanner struct {
	name    string
	n       int
	failAt  int // fail after this many findings (0: never)
	scanned *int
	mu      *sync.Mutex
}

func (s streamScanner) Name() string                                     { return s.name }
func (s streamScanner) Type() string                                     { return scan.TypeCode }
func (s streamScanner) Available(context.Context) (string, string, bool) { return "1", "", true }
func (s streamScanner) Scan(context.Context, scan.Target) ([]finding.Finding, error) {
	return nil, errors.New("Scan called although ScanStream exists")
}

func (s streamScanner) ScanStream(ctx context.Context, t scan.Target, emit func(finding.Finding) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < s.n; i += 4 {
				if s.failAt > 0 && i >= s.failAt {
					errs <- errors.New("tool crashed half-way")
					return
				}
				sev := finding.Severities[i%5]
				f := finding.Finding{Severity: sev, Title: "issue " + strconv.Itoa(i%7), RuleID: "S" + strconv.Itoa(i%3),
					FilePath: fmt.Sprintf("f%d.go", i%11), Line: i + 1, CWE: []finding.CWE{"CWE-79", "CWE-89", "CWE-798"}[i%3],
					Snippet: fmt.Sprintf("v%d := input()", i)}
				if i%10 == 0 {
					f.Snippet += " // scand:ignore"
				}
				if err := emit(f); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func pagingHarness(t *testing.T, scanners ...scan.Scanner) (*scanHarness, ScanView) {
	h := newScanHarness(t, scanners, nil)
	v := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"code"}})
	h.waitStatus(v.ID, "completed")
	return h, v
}

func decodeFindings(t *testing.T, out []byte) []store.FindingWithState {
	t.Helper()
	var fs []store.FindingWithState
	if err := json.Unmarshal(out, &fs); err != nil {
		t.Fatalf("findings page is not a JSON array: %v: %.200s", err, out)
	}
	return fs
}

func TestFindingsPagingByCursor(t *testing.T) {
	h, v := pagingHarness(t, streamScanner{name: "stream", n: 230})
	base := "/api/v1/scans/" + v.ID + "/findings"
	code, all, hdr := h.do("GET", base+"?format=ndjson", nil)
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/x-ndjson") || hdr.Get("X-Total-Count") != "230" {
		t.Fatalf("ndjson: %d %v", code, hdr)
	}
	var want []string
	sc := bufio.NewScanner(bytes.NewReader(all))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var f store.FindingWithState
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("ndjson line %q: %v", sc.Text(), err)
		}
		want = append(want, f.Fingerprint)
	}
	if len(want) != 230 {
		t.Fatalf("ndjson has %d lines, want 230", len(want))
	}

	// The default page is the whole (small) scan, in the same order.
	code, out, hdr := h.do("GET", base, nil)
	if fs := decodeFindings(t, out); code != 200 || len(fs) != 230 || fs[0].Fingerprint != want[0] || hdr.Get("X-Next-Cursor") != "" {
		t.Fatalf("default page: %d, %d findings, next %q", code, len(fs), hdr.Get("X-Next-Cursor"))
	}

	var got []string
	path := base + "?limit=40"
	pages := 0
	for {
		code, out, hdr := h.do("GET", path, nil)
		if code != 200 || hdr.Get("X-Total-Count") != "230" {
			t.Fatalf("page %d: %d total %q: %s", pages, code, hdr.Get("X-Total-Count"), out)
		}
		for _, f := range decodeFindings(t, out) {
			got = append(got, f.Fingerprint)
		}
		pages++
		next := hdr.Get("X-Next-Cursor")
		if next == "" {
			break
		}
		if link := hdr.Get("Link"); !strings.Contains(link, `rel="next"`) || !strings.Contains(link, "cursor=") {
			t.Errorf("Link header %q", link)
		}
		path = base + "?limit=40&cursor=" + next
	}
	if pages != 6 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%d pages, %d findings; cursor pages differ from the export", pages, len(got))
	}

	// offset keeps working, after a cursor too.
	_, out, _ = h.do("GET", base+"?limit=3&offset=100", nil)
	if fs := decodeFindings(t, out); len(fs) != 3 || fs[0].Fingerprint != want[100] {
		t.Errorf("offset page starts at %v", fs)
	}
	// A huge limit is capped, not refused.
	if code, _, _ := h.do("GET", base+"?limit=99999999", nil); code != 200 {
		t.Errorf("limit above the maximum: %d", code)
	}
	for _, bad := range []string{"?cursor=bogus", "?cursor=" + httpio.EncodeCursor("findings", 999, 1), "?cursor=" + httpio.EncodeCursor("scans", 0, 5),
		"?format=xml", "?suppressed=maybe", "?triage=ignored", "?limit=-1"} {
		if code, out, _ := h.do("GET", base+bad, nil); code != 422 {
			t.Errorf("%s: %d %s, want 422", bad, code, out)
		}
	}
}

func TestFindingsNewFiltersAndSummary(t *testing.T) {
	h, v := pagingHarness(t, streamScanner{name: "stream", n: 100}, lifecycleScanner{name: "other", typ: scan.TypeCode})
	base := "/api/v1/scans/" + v.ID + "/findings"
	count := func(q string) int {
		t.Helper()
		code, out, hdr := h.do("GET", base+"?"+q, nil)
		if code != 200 {
			t.Fatalf("%s: %d %s", q, code, out)
		}
		fs := decodeFindings(t, out)
		if total, _ := strconv.Atoi(hdr.Get("X-Total-Count")); total != len(fs) {
			t.Errorf("%s: X-Total-Count %d, page %d", q, total, len(fs))
		}
		return len(fs)
	}
	if n := count("suppressed=true"); n != 10 {
		t.Errorf("suppressed=true: %d, want 10", n)
	}
	if n := count("suppressed=false"); n != 90 {
		t.Errorf("suppressed=false: %d, want 90", n)
	}
	if n := count("scanner=stream&severity=critical"); n != 20 {
		t.Errorf("scanner+severity: %d, want 20", n)
	}
	if n := count("scanner=nobody"); n != 0 {
		t.Errorf("unknown scanner: %d", n)
	}
	_, out, _ := h.do("GET", base+"?limit=2", nil)
	fp := decodeFindings(t, out)[1].Fingerprint
	if code, out, _ := h.do("PATCH", "/api/v1/findings/"+fp+"/state", map[string]any{"status": "false_positive"}); code != 200 {
		t.Fatalf("triage: %d %s", code, out)
	}
	if n := count("triage=false_positive"); n != 1 {
		t.Errorf("triage=false_positive: %d, want 1", n)
	}
	if n := count("triage=new"); n != 99 {
		t.Errorf("triage=new (no verdict counts as new): %d, want 99", n)
	}
	if n := count("triage=new,false_positive&suppressed=false"); n != 90 {
		t.Errorf("triage and suppressed: %d, want 90", n)
	}

	_, out, _ = h.do("GET", "/api/v1/scans/"+v.ID+"/summary", nil)
	var sum ScanSummary
	json.Unmarshal(out, &sum)
	live := sum.SeverityCounts
	if sum.Total != 100 || sum.Suppressed != 10 || live.Critical+live.High+live.Medium+live.Low+live.Info != 90 {
		t.Errorf("summary: %s", out)
	}
	if !strings.Contains(string(out), `"suppressed":10`) {
		t.Errorf("summary lacks the suppressed count: %s", out)
	}
}

// TestStreamScannerFailureKeepsNothing: a streaming scanner that fails
// half-way has none of its findings stored, like a failed Scan.
func TestStreamScannerFailureKeepsNothing(t *testing.T) {
	h, v := pagingHarness(t, streamScanner{name: "good", n: 20}, streamScanner{name: "broken", n: 50, failAt: 25})
	_, out, hdr := h.do("GET", "/api/v1/scans/"+v.ID+"/findings", nil)
	for _, f := range decodeFindings(t, out) {
		if f.Scanner != "good" {
			t.Fatalf("finding of the failed scanner stored: %+v", f.Finding)
		}
	}
	if hdr.Get("X-Total-Count") != "20" {
		t.Errorf("X-Total-Count %q, want 20", hdr.Get("X-Total-Count"))
	}
	_, out, _ = h.do("GET", "/api/v1/scans/"+v.ID, nil)
	if !strings.Contains(string(out), `"failed: tool crashed half-way"`) {
		t.Errorf("the failure is not recorded: %s", out)
	}
}

func TestScansPagingByCursor(t *testing.T) {
	h := newScanHarness(t, []scan.Scanner{streamScanner{name: "s", n: 1}}, nil)
	var ids []string
	for i := 0; i < 5; i++ {
		v := h.startScan(map[string]any{"target_path": t.TempDir(), "scan_types": []string{"code"}})
		h.waitStatus(v.ID, "completed")
		ids = append([]string{v.ID}, ids...) // newest first
	}
	var got []string
	path := "/api/v1/scans?limit=2"
	for {
		code, out, hdr := h.do("GET", path, nil)
		var page []ScanView
		if err := json.Unmarshal(out, &page); code != 200 || err != nil {
			t.Fatalf("%d %s", code, out)
		}
		for _, s := range page {
			got = append(got, s.ID)
		}
		next := hdr.Get("X-Next-Cursor")
		if next == "" {
			break
		}
		path = "/api/v1/scans?limit=2&cursor=" + next
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("cursor pages %v, want %v", got, ids)
	}
	// A deleted scan leaves the list at once.
	if code, _, _ := h.do("DELETE", "/api/v1/scans/"+ids[0], nil); code != 204 {
		t.Fatal("delete failed")
	}
	_, out, _ := h.do("GET", "/api/v1/scans", nil)
	if strings.Contains(string(out), ids[0]) {
		t.Error("deleted scan still listed")
	}
}

// TestStreamFailureCutsTheConnection: once a streamed body has started, a
// failure must not end it cleanly (a client would take a truncated export
// for a whole one).
func TestStreamFailureCutsTheConnection(t *testing.T) {
	route := Route{Method: "GET", Path: "/probe/stream", Scope: auth.ScopeRead, Tag: "probe", Summary: "stream then fail",
		Handler: func(w http.ResponseWriter, r *http.Request) error {
			sw := httpio.StartStream(w, "application/x-ndjson")
			sw.WriteString(strings.Repeat(`{"ok":true}`+"\n", 10000))
			sw.Flush()
			return sw.Fail(errors.New("disk on fire"))
		}}
	e := newAPIEnv(t, apiEnvOptions{TestRoutes: []Route{route}})
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/v1/probe/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Fatal("the body ended cleanly after a mid-stream failure")
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(e.logs.String(), "disk on fire") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(e.logs.String(), "disk on fire") {
		t.Error("the failure was not logged")
	}
}

var _ = context.Background
