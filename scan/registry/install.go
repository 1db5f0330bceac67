package registry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"scand/scan"
	"scand/scan/proc"
)

// Installing a scanner's tool through the system package manager (POST
// /dashboard/install/{scanner}): a fixed recipe, never a shell, never a
// name taken from the request.

// installTimeout bounds one package-manager run.
const installTimeout = 10 * time.Minute

// Install outcomes that are not a run.
var (
	ErrInstalled = errors.New("already installed")
	ErrNoRecipe  = errors.New("no install recipe")
)

// Recipe returns the program and arguments that install a scanner's tool;
// ok is false when there is none on this system.
type Recipe func(name string) (program string, args []string, ok bool)

// InstallRun is what running a recipe did.
type InstallRun struct {
	Command   string
	ExitCode  int
	Output    []byte
	Installed bool
	Duration  time.Duration
}

// Install runs the scanner's recipe unless the scanner is available. The
// run is not stopped when ctx ends (a package manager killed half-way can
// leave the system's package database broken), only by the timeout. A
// missing package manager is ErrNoRecipe; the error's text says what to
// install by hand.
func Install(ctx context.Context, runner *proc.Runner, sc scan.Scanner, recipe Recipe, probeTimeout time.Duration) (InstallRun, error) {
	probeCtx, cancel := context.WithTimeout(ctx, probeTimeout)
	version, hint, ok := sc.Available(probeCtx)
	cancel()
	name := sc.Name()
	if ok {
		detail := "Scanner " + name + " is already installed"
		if version != "" {
			detail += " (version " + version + ")"
		}
		return InstallRun{}, fmt.Errorf("%w: %s", ErrInstalled, detail)
	}
	byHand := ""
	if hint != "" {
		byHand = "; install it by hand: " + hint
	}
	var program string
	var args []string
	if recipe != nil {
		program, args, ok = recipe(name)
	}
	if !ok || runner == nil {
		return InstallRun{}, fmt.Errorf("%w: No install recipe for %s on this system%s", ErrNoRecipe, name, byHand)
	}
	run := InstallRun{Command: CommandLine(program, args)}
	res, err := runner.Run(context.WithoutCancel(ctx), proc.Cmd{Program: program, Args: args, Timeout: installTimeout,
		Env: []string{"DEBIAN_FRONTEND=noninteractive"}})
	if errors.Is(err, proc.ErrNotInstalled) {
		return run, fmt.Errorf("%w: The package manager %s needed to install %s is not on this system%s", ErrNoRecipe, program, name, byHand)
	}
	timedOut := errors.Is(err, proc.ErrTimeout)
	if err != nil && !timedOut {
		return run, err
	}
	run.ExitCode, run.Duration = res.ExitCode, res.Duration
	run.Output = append(append([]byte(nil), res.Stdout...), res.Stderr...)
	if timedOut {
		run.Output = append(run.Output, "\n[scand: install timed out after "+installTimeout.String()+" and was stopped]\n"...)
		run.ExitCode = -1
	}
	// Wrappers cache availability; one that can forget it reports the
	// fresh state right after the install.
	if f, ok := sc.(interface{ InvalidateAvailability() }); ok {
		f.InvalidateAvailability()
	}
	probeCtx, cancel = context.WithTimeout(ctx, probeTimeout)
	_, _, run.Installed = sc.Available(probeCtx)
	cancel()
	return run, nil
}

// CommandLine shows a command as one would type it; arguments with spaces
// or quotes are quoted. It is for display only: the command itself never
// passes through a shell.
func CommandLine(program string, args []string) string {
	parts := make([]string, 0, len(args)+1)
	for _, a := range append([]string{program}, args...) {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
