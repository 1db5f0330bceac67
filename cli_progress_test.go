package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHeartbeatTicksWhileRunning: a running scanner is named on every
// tick, a finished one no more, and nothing is printed after close.
func TestHeartbeatTicksWhileRunning(t *testing.T) {
	var out lockedBuffer
	h := newHeartbeat(&out, 40*time.Millisecond)
	h.started("kics")
	h.started("trivy")
	time.Sleep(100 * time.Millisecond)
	h.finished("trivy")
	time.Sleep(100 * time.Millisecond)
	h.close()
	got := out.String()
	closedAt := len(got)
	time.Sleep(100 * time.Millisecond)
	if len(out.String()) != closedAt {
		t.Errorf("printed after close: %q", out.String()[closedAt:])
	}
	kics, trivy := strings.Count(got, "scand: kics: still running after "), strings.Count(got, "scand: trivy: still running after ")
	if kics < 3 || trivy < 1 || trivy > 3 {
		t.Errorf("kics named %d times, trivy %d; want kics on every tick, trivy only while it ran:\n%s", kics, trivy, got)
	}
}

// TestCLISaysLongScannersAreAlive runs a scanner that takes 11 s through
// the built binary: stderr names it with its elapsed time after 10 s,
// and -quiet keeps stderr free of it.
func TestCLISaysLongScannersAreAlive(t *testing.T) {
	tree := t.TempDir()
	writeFiles(t, tree, map[string]string{"go.mod": "module example.com/slow\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"})
	empty, err := filepath.Abs("testdata/wrappers/gosec/empty.json")
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(t.TempDir(), "gosec")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nif [ \"$1\" = -version ]; then echo 'Version: 2.29.0'; exit 0; fi\nsleep 11\ncat '"+empty+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SVC_GOSEC_PATH": slow}
	for _, quiet := range []bool{false, true} {
		t.Run(map[bool]string{false: "progress", true: "quiet"}[quiet], func(t *testing.T) {
			t.Parallel()
			args := []string{"scan", tree, "--scanners", "gosec"}
			if quiet {
				args = append(args, "-quiet")
			}
			r := scandCLI(t, tree, env, args...).want(t, 0)
			alive := strings.Contains(r.stderr, "scand: gosec: still running after 10s")
			if alive == quiet {
				t.Errorf("quiet=%v: stderr:\n%s", quiet, r.stderr)
			}
		})
	}
}
