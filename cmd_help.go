package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// topUsage is `scand help`.
const topUsage = `scand: a self-hosted security-scan daemon, and the same scanners from the command line.

Usage:
  scand [flags]                 run the daemon (flags: scand serve -h)
  scand serve [flags]           the same
  scand scan [flags] [PATH]     scan a tree (or -image, -repo) and report; exit 1 when findings gate
  scand diff [flags] [PATH] -base REF [-head REF]
                                scan two git revisions; report new, fixed and unchanged findings
  scand baseline [flags] [PATH] write the findings to a baseline file to commit (.scand/baseline.json)
  scand status [-json]          scanners available here, and the offline advisory databases
  scand config check [FILE]     validate a .scand.toml
  scand vulndb import|list      offline advisory databases
  scand backup FILE             consistent, verified copy of the database while the daemon runs
  scand restore FILE            put a backup in place (daemon stopped; the old file is kept aside)
  scand version, --version      print the release
  scand help [COMMAND]          this text, or a command's flags

Exit codes of scan, diff and baseline: 0 nothing at or above -fail-on, 1 at least
one finding gates, 2 usage or configuration error, 3 the scan could not run or a
scanner that was asked for failed (the report is written first).
`

// commandUsage prints a command's synopsis, what it does, and every flag.
func commandUsage(fs *flag.FlagSet, synopsis, what string) func() {
	return func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: %s\n\n%s\nFlags may come before or after PATH; -flag and --flag are the same.\n\nFlags:\n", synopsis, wrap(what, 78))
		fs.PrintDefaults()
	}
}

// wrap breaks text into lines of at most width.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String() + "\n"
}

// runHelp is `scand help [COMMAND]`.
func runHelp(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, topUsage)
		return nil
	}
	switch args[0] {
	case "scan", "diff", "baseline", "status", "vulndb", "serve", "backup", "restore":
		// The command's own -h prints its flags.
		return errHelpFor(args[0])
	case "config":
		return errHelpFor("config")
	}
	fmt.Fprint(stderr, topUsage)
	return &usageError{fmt.Sprintf("scand help: unknown command %q", args[0])}
}

// helpRequest asks run to show a command's usage.
type helpRequest struct{ cmd string }

func (h *helpRequest) Error() string { return "help for " + h.cmd }

func errHelpFor(cmd string) error { return &helpRequest{cmd} }
