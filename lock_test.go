package main

import (
	"database/sql"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"scand/store"
)

// scanStatus reads one scan's status and error behind the daemons' backs.
func scanStatus(t *testing.T, db, id string) (status, errText string) {
	t.Helper()
	conn, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRow("SELECT status, error FROM scans WHERE id = ?", id).Scan(&status, &errText); err != nil {
		t.Fatal(err)
	}
	return status, errText
}

// TestBinaryOneProcessPerDatabase starts two real daemons on one SVC_DB.
// The second must exit 2 naming the database and the first one's pid, and
// must not run restart recovery: a scan the first daemon has running stays
// running. The lock goes with the holder, on SIGKILL as on a clean stop.
func TestBinaryOneProcessPerDatabase(t *testing.T) {
	for _, stop := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(stop.String(), func(t *testing.T) {
			env := baseEnv(t)
			db := env["SVC_DB"]
			first := startScand(t, env)
			waitReady(t, listenAddr(t, first.stderr.String, first.exited))

			// A scan the first daemon is "running": recovery by a second
			// process would fail it as interrupted by restart.
			if err := tamperDB(db, `INSERT INTO scans (id, target_path, scan_types, status, started_at)
				VALUES ('running-scan', '/srv', '["code"]', 'running', '2026-01-01T00:00:00.000000Z')`); err != nil {
				t.Fatal(err)
			}

			second := startScand(t, env)
			if code := second.wait(t, 30*time.Second); code != 2 {
				t.Fatalf("second daemon on %s: exit code %d, want 2:\n%s", db, code, second.stderr.String())
			}
			msg := second.stderr.String()
			pid := strconv.Itoa(first.cmd.Process.Pid)
			if !strings.Contains(msg, db) || !strings.Contains(msg, "pid "+pid) || !strings.Contains(msg, "CRITICAL") {
				t.Fatalf("second daemon's message must name %s and pid %s:\n%s", db, pid, msg)
			}
			if strings.Contains(msg, "scand listening") {
				t.Fatal("second daemon listened before refusing")
			}
			if status, errText := scanStatus(t, db, "running-scan"); status != "running" {
				t.Fatalf("second daemon touched the database: running scan is now %s (%q)", status, errText)
			}
			lockFile, err := store.LockPath(db)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(lockFile); err != nil || strings.TrimSpace(string(b)) != pid {
				t.Fatalf("lock file %s holds %q (%v), want the holder's pid %s", lockFile, b, err, pid)
			}

			first.cmd.Process.Signal(stop)
			first.wait(t, 30*time.Second)
			// The holder is gone: a new daemon starts and now owns recovery.
			third := startScand(t, env)
			waitReady(t, listenAddr(t, third.stderr.String, third.exited))
			if status, errText := scanStatus(t, db, "running-scan"); status != "failed" || errText != "interrupted by restart" {
				t.Errorf("after the holder stopped, restart recovery gave %s %q, want failed \"interrupted by restart\"", status, errText)
			}
			third.cmd.Process.Signal(syscall.SIGTERM)
			if code := third.wait(t, 30*time.Second); code != 0 {
				t.Fatalf("third daemon exit code %d:\n%s", code, third.stderr.String())
			}
		})
	}
}
