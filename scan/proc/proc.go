// Package proc is the one runner that starts processes: every wrapped
// scanner, git, the PDF renderer and the install recipes run through it.
// It owns timeouts, process-group kill on cancel, output caps, the
// not-installed case and the minimal environment a child gets. It imports
// nothing of scand's, so the scan seam (scan.Config) and every caller
// depend on it, never the reverse.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// ErrNotInstalled is returned by Runner.Run when the program is not on PATH.
var ErrNotInstalled = errors.New("not installed")

// ErrTimeout is returned (wrapped) when a run exceeded its timeout.
var ErrTimeout = errors.New("timed out")

// Runner is the only place in scand that starts a process. It owns the
// per-run timeout, the process group (so a scanner's children die with it),
// the SIGTERM-then-SIGKILL escalation on cancel, and the output caps that
// keep a runaway tool from exhausting memory.
type Runner struct {
	// Timeout bounds one run; zero means no limit beyond ctx.
	Timeout time.Duration
	// KillGrace is how long a process group has between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// MaxStdout and MaxStderr cap the bytes kept; the rest is discarded and
	// Result.Truncated is set.
	MaxStdout int
	MaxStderr int
	// LookPath resolves a program name; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

// NewRunner returns a runner with scand's defaults: the given timeout, a 5 s
// kill grace, 64 MiB of stdout and 1 MiB of stderr.
func NewRunner(timeout time.Duration) *Runner {
	return &Runner{Timeout: timeout, KillGrace: 5 * time.Second, MaxStdout: 64 << 20, MaxStderr: 1 << 20}
}

// Cmd describes one process to run. Args never pass through a shell.
type Cmd struct {
	Program string
	Args    []string
	Dir     string
	// Env is appended to a minimal inherited environment (PATH, HOME, LANG,
	// TMPDIR); nil keeps just that.
	Env   []string
	Stdin []byte
	// Timeout overrides Runner.Timeout when positive.
	Timeout time.Duration
}

// Result is what a finished process left behind. A non-zero ExitCode is not
// an error by itself: many scanners exit 1 when they find something.
type Result struct {
	Stdout    []byte
	Stderr    []byte
	ExitCode  int
	Truncated bool
	Duration  time.Duration
}

// Run starts c, waits for it and returns its output. The error is non-nil
// only when the process could not be started, was cancelled, or timed out;
// in the last two cases the whole process group has been killed before Run
// returns.
func (r *Runner) Run(ctx context.Context, c Cmd) (Result, error) {
	look := r.LookPath
	if look == nil {
		look = exec.LookPath
	}
	path, err := look(c.Program)
	if err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("%s: %w", c.Program, ErrNotInstalled)
	}
	timeout := r.Timeout
	if c.Timeout > 0 {
		timeout = c.Timeout
	}
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	cmd := exec.Command(path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(baseEnv(), c.Env...)
	cmd.SysProcAttr = toolAttr()
	// A grandchild that left the process group (setsid, a daemonizing
	// tool) can hold stdout open after the tool exits; without a bound,
	// Wait would block on that pipe forever.
	cmd.WaitDelay = r.grace()
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	stdout := &cappedBuffer{max: r.MaxStdout}
	stderr := &cappedBuffer{max: r.MaxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	// A context already done starts nothing: a fast tool could otherwise
	// finish before the select below sees the cancellation, and a
	// cancelled probe would pass for a successful one.
	if err := ctx.Err(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("%s: %w", c.Program, err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", c.Program, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var waitErr error
	var stopped error
	select {
	case waitErr = <-done:
	case <-runCtx.Done():
		stopped = runCtx.Err()
		waitErr = r.killGroup(cmd.Process.Pid, done)
	}
	// The leader may have exited while children it started still hold the
	// group; they never outlive the run.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)

	res := Result{
		Stdout:    stdout.Bytes(),
		Stderr:    stderr.Bytes(),
		ExitCode:  exitCode(cmd, waitErr),
		Truncated: stdout.truncated || stderr.truncated,
		Duration:  time.Since(start),
	}
	if stopped != nil {
		if errors.Is(stopped, context.DeadlineExceeded) && ctx.Err() == nil {
			return res, fmt.Errorf("%s after %s: %w", c.Program, timeout, ErrTimeout)
		}
		return res, fmt.Errorf("%s: %w", c.Program, ctx.Err())
	}
	return res, nil
}

// killGroup sends SIGTERM to the process group, then SIGKILL if the leader
// has not exited within the grace period.
func (r *Runner) killGroup(pgid int, done <-chan error) error {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	t := time.NewTimer(r.grace())
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return <-done
	}
}

func (r *Runner) grace() time.Duration {
	if r.KillGrace <= 0 {
		return 5 * time.Second
	}
	return r.KillGrace
}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		return cmd.ProcessState.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// baseEnv passes through only what tools need to find themselves and write
// temp files, so no credential of scand's own environment (SVC_API_KEY, the
// event-token secret) reaches a third-party process.
func baseEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "GOCACHE", "GOPATH", "GOROOT", "GOFLAGS", "GOTOOLCHAIN"} {
		if v, ok := lookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// cappedBuffer keeps the first max bytes written and silently drops the
// rest, so a tool that floods its output cannot exhaust memory.
type cappedBuffer struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.max - b.buf.Len()
	if b.max <= 0 {
		room = len(p)
	}
	if room < len(p) {
		b.truncated = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	b.buf.Write(p)
	return len(p), nil
}

func (b *cappedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}
