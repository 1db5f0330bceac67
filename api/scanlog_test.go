package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/scan"
)

// lockedBuffer collects log lines written from the orchestrator's workers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// TestScanStartAndEndLogLines: one line when a scan starts and one when it
// ends, with what an operator needs and no credential of the target URL.
func TestScanStartAndEndLogLines(t *testing.T) {
	var logs lockedBuffer
	h := newUnstartedHarness(t, scan.OrchestratorOptions{Scanners: lifecycleRegistry(), MaxConcurrent: 1,
		Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	dir := writeTree(t, map[string]string{"a.txt": "VULN one\nVULN two\n"})
	ok := h.startScan(map[string]any{"target_path": dir, "scan_types": []string{"code"}})
	gone := writeTree(t, map[string]string{"a.txt": "VULN\n"})
	bad := h.startScan(map[string]any{"target_path": gone, "scan_types": []string{"code", "dast"},
		"target_url": "http://alice:s3cret-pass@127.0.0.1:1/app?token=t0ps3cret"})
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	if err := h.orch.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.waitTerminal(ok.ID)
	h.waitTerminal(bad.ID)

	// The end line is written after the terminal state is stored (the
	// worker logs the stored outcome), so it may trail the status a little.
	started, ended := logs.lines(t, "scan started"), logs.lines(t, "scan finished")
	for deadline := time.Now().Add(10 * time.Second); len(ended) < 2 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		started, ended = logs.lines(t, "scan started"), logs.lines(t, "scan finished")
	}
	if len(started) != 2 || len(ended) != 2 {
		t.Fatalf("%d start and %d end lines for 2 scans, want 2 each", len(started), len(ended))
	}
	byID := map[string]map[string]any{}
	for _, m := range ended {
		byID[m["scan_id"].(string)] = m
	}
	done := byID[ok.ID]
	if done == nil || done["status"] != "completed" || done["findings"] != float64(2) || done["target_path"] != dir {
		t.Fatalf("end line of the completed scan: %v", done)
	}
	if c, _ := done["severity_counts"].(map[string]any); c == nil || c["high"] != float64(2) || c["critical"] != float64(0) {
		t.Errorf("severity_counts = %v, want high 2", done["severity_counts"])
	}
	if _, ok := done["duration_ms"].(float64); !ok {
		t.Errorf("no duration_ms in %v", done)
	}
	failed := byID[bad.ID]
	if failed == nil || failed["status"] != "failed" || failed["level"] != "ERROR" || !strings.Contains(failed["error"].(string), "cannot be read at scan start") {
		t.Fatalf("end line of the failed scan: %v", failed)
	}
	if failed["target_url"] != "http://127.0.0.1:1/app" {
		t.Errorf("target_url logged as %v, want it without credentials and query", failed["target_url"])
	}
	if all := logs.b.String(); strings.Contains(all, "s3cret") || strings.Contains(all, "t0ps3cret") {
		t.Errorf("a credential of the target URL reached the log")
	}
}
