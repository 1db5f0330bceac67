package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestTextHandlerLines(t *testing.T) {
	var buf lockedBuffer
	log := newLogger(&buf, slog.LevelInfo, "text")
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.FixedZone("CET", 3600))
	rec := func(level slog.Level, msg string, attrs ...slog.Attr) {
		r := slog.NewRecord(at, level, msg, 0)
		r.AddAttrs(attrs...)
		if err := log.With("logger", "scand.test").Handler().Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	rec(slog.LevelInfo, "scand listening", slog.String("addr", "127.0.0.1:8000"), slog.Int("n", 3))
	rec(levelCritical, "cannot open database", slog.Any("error", errors.New("disk I/O error")))
	// Hostile values: a forged second line, quotes, '=' and an empty value.
	rec(slog.LevelWarn, "bad\nINFO forged", slog.String("path", "/x\n2026-01-01T00:00:00.000Z INFO forged"),
		slog.String("q", `a"b`), slog.String("kv", "a=b"), slog.String("empty", ""),
		slog.Group("req", slog.String("method", "GET")))
	log.Debug("not shown at info")
	log.WithGroup("g").Info("grouped", "k", "v")

	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		`2026-01-02T02:04:05.678Z INFO  [scand.test] scand listening addr=127.0.0.1:8000 n=3`,
		`2026-01-02T02:04:05.678Z CRITICAL [scand.test] cannot open database error="disk I/O error"`,
		`2026-01-02T02:04:05.678Z WARN  [scand.test] "bad\nINFO forged" path="/x\n2026-01-01T00:00:00.000Z INFO forged" q="a\"b" kv="a=b" empty="" req.method=GET`,
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4 (debug suppressed, nothing split):\n%s", len(lines), buf.String())
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], w)
		}
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  grouped g\.k=v$`).MatchString(lines[3]) {
		t.Errorf("grouped line %q", lines[3])
	}
}

// TestRunTextLogFormat: SVC_LOG_FORMAT=text makes the daemon's own lines
// readable text, access lines included, and never JSON.
func TestRunTextLogFormat(t *testing.T) {
	env := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": filepath.Join(t.TempDir(), "scand.db"), "SVC_LOG_FORMAT": "text"}
	var stderr lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		done <- run(ctx, nil, envMap(env), io.Discard, &stderr)
		close(exited)
	}()
	var addr string
	deadline := time.Now().Add(30 * time.Second)
	for addr == "" && time.Now().Before(deadline) {
		if m := regexp.MustCompile(`\[scand\] scand listening addr=(\S+)`).FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		select {
		case <-exited:
			t.Fatalf("run exited:\n%s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if addr == "" {
		t.Fatalf("no text listening line:\n%s", stderr.String())
	}
	waitReady(t, addr)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := stderr.String()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "{") {
			t.Errorf("JSON line in text mode: %s", line)
		}
	}
	if !regexp.MustCompile(`(?m)^\S+ INFO  \[scand\.access\] request request_id=\S+ method=GET path=/ready status=200 latency_ms=\S+$`).MatchString(out) {
		t.Errorf("no readable access line for GET /ready:\n%s", out)
	}
}
