package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunnerExitCodeIsNotAnError(t *testing.T) {
	r := NewRunner(10 * time.Second)
	res, err := r.Run(context.Background(), Cmd{Program: "sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" {
		t.Fatalf("got %+v", res)
	}
}

func TestRunnerNotInstalled(t *testing.T) {
	_, err := NewRunner(time.Second).Run(context.Background(), Cmd{Program: "scand-no-such-tool"})
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("err = %v, want ErrNotInstalled", err)
	}
}

func TestRunnerTimeoutKillsWholeGroup(t *testing.T) {
	r := NewRunner(300 * time.Millisecond)
	r.KillGrace = 200 * time.Millisecond
	marker := "7777.31"
	start := time.Now()
	// The child ignores SIGTERM, so only the SIGKILL escalation ends it.
	_, err := r.Run(context.Background(), Cmd{Program: "sh", Args: []string{"-c", "trap '' TERM; sleep " + marker + " & sleep " + marker + "; wait"}})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %s", d)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), marker) {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes of the group survived", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunnerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := NewRunner(time.Minute).Run(ctx, Cmd{Program: "sleep", Args: []string{"30"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRunnerCapsOutput(t *testing.T) {
	r := NewRunner(10 * time.Second)
	r.MaxStdout = 1000
	res, err := r.Run(context.Background(), Cmd{Program: "sh", Args: []string{"-c", "head -c 5000000 /dev/zero"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 1000 || !res.Truncated {
		t.Fatalf("kept %d bytes, truncated=%v", len(res.Stdout), res.Truncated)
	}
}

func TestRunnerDoesNotLeakDaemonSecrets(t *testing.T) {
	t.Setenv("SVC_API_KEY", "super-secret")
	t.Setenv("SVC_EVENT_TOKEN_SECRET", "also-secret")
	res, err := NewRunner(time.Second).Run(context.Background(), Cmd{Program: "env", Env: []string{"EXTRA=1"}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if strings.Contains(out, "secret") || !strings.Contains(out, "EXTRA=1") || !strings.Contains(out, "PATH=") {
		t.Fatalf("child environment: %s", out)
	}
}

func TestRunnerReturnsWhenAnEscapedGrandchildHoldsStdout(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not installed")
	}
	r := NewRunner(10 * time.Second)
	r.KillGrace = 300 * time.Millisecond
	marker := "7778.13"
	start := time.Now()
	// The grandchild leaves the process group and keeps stdout open.
	res, err := r.Run(context.Background(), Cmd{Program: "sh", Args: []string{"-c", "setsid sleep " + marker + " & echo started"}})
	defer exec.Command("pkill", "-f", "sleep "+marker).Run()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run blocked %s on a pipe held by an escaped grandchild", d)
	}
	if err != nil || !strings.Contains(string(res.Stdout), "started") {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// TestRunWithDoneContextStartsNothing: a context already cancelled fails
// the run before anything starts (a fast tool raced the cancellation and
// could pass for a successful run). The program here cannot be started
// at all, so only a run that never tries reports the cancellation.
func TestRunWithDoneContextStartsNothing(t *testing.T) {
	notExecutable := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(notExecutable, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(10 * time.Second)
	r.LookPath = func(string) (string, error) { return notExecutable, nil }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Run(ctx, Cmd{Program: "tool"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("run with a cancelled context: %v, want context.Canceled before any start", err)
	}
}
