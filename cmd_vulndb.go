package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"scand/scan/vulndb"
)

// runVulnDBCommand is `scand vulndb import|list` and `scand status`: the
// offline advisory data, without the daemon. They share the daemon's
// configuration (SVC_VULNDB_DIR, SVC_DB, SVC_VULNDB_MAX_AGE_DAYS and the
// tools' own variables) and may run while it serves: imports take the
// directory's lock, and each database is swapped in atomically.
//
//	scand vulndb import [-sha256 HEX] FILE... [CHECKSUMS...]
//	scand vulndb list [-json]
//	scand status [-json]
func runVulnDBCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := args[0]
	args = args[1:]
	if cmd == "vulndb" {
		if len(args) == 0 {
			fmt.Fprintln(stderr, "usage: scand vulndb import [-sha256 HEX] FILE... [FILE.sha256...] | scand vulndb list [-json]")
			return &usageError{"scand vulndb: missing subcommand (import, list)"}
		}
		cmd, args = "vulndb "+args[0], args[1:]
	}
	fs := flag.NewFlagSet("scand "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dirFlag := fs.String("vulndb-dir", "", "directory of imported advisory databases (env SVC_VULNDB_DIR; default vulndb/ beside SVC_DB)")
	dbFlag := fs.String("db", "", "SQLite database file whose directory holds vulndb/ by default (env SVC_DB)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	sumFlag := fs.String("sha256", "", "expected sha256 of the (single) archive")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err.Error()}
	}
	dir := firstNonEmpty(*dirFlag, getenv("SVC_VULNDB_DIR"))
	if dir == "" {
		dir = vulndb.DefaultDir(firstNonEmpty(*dbFlag, getenv("SVC_DB"), "scand.db"))
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	maxAge := 7 * 24 * time.Hour
	if v := strings.TrimSpace(getenv("SVC_VULNDB_MAX_AGE_DAYS")); v != "" {
		var days int
		if _, err := fmt.Sscan(v, &days); err != nil || days < 1 || days > 3650 {
			return &usageError{fmt.Sprintf("SVC_VULNDB_MAX_AGE_DAYS: must be an integer from 1 to 3650, got %q", v)}
		}
		maxAge = time.Duration(days) * 24 * time.Hour
	}
	switch cmd {
	case "vulndb import":
		return vulndbImport(ctx, dir, fs.Args(), *sumFlag, stdout)
	case "vulndb list", "status":
		inv := vulndb.Inventory(ctx, vulndb.Locations{Getenv: getenv, Dir: dir})
		for i := range inv {
			inv[i] = inv[i].WithAge(time.Now(), maxAge)
		}
		if cmd == "status" {
			return printStatus(ctx, getenv, dir, inv, maxAge, *asJSON, stdout) // cmd_status.go
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"vulndb_dir": dir, "max_age_days": int(maxAge / (24 * time.Hour)), "databases": inv})
		}
		printInventory(stdout, dir, inv, int(maxAge/(24*time.Hour)))
		return nil
	}
	return &usageError{fmt.Sprintf("scand %s: unknown command (vulndb import, vulndb list, status)", cmd)}
}

// vulndbImport imports each archive argument; arguments that are checksum
// files (*.sha256, *.sha256sum, SHA256SUMS) give the expected sha256 of
// the archive they name.
func vulndbImport(ctx context.Context, dir string, args []string, sum string, stdout io.Writer) error {
	var archives []string
	checksums := map[string]string{}
	for _, a := range args {
		base := filepath.Base(a)
		if strings.HasSuffix(base, ".sha256") || strings.HasSuffix(base, ".sha256sum") || strings.EqualFold(base, "SHA256SUMS") {
			data, err := readCapped(a, 1<<20)
			if err != nil {
				return err
			}
			parsed, err := vulndb.ParseChecksums(data)
			if err != nil {
				return &usageError{a + ": " + err.Error()}
			}
			for name, h := range parsed {
				if name == "" {
					// A bare hash in all.zip.sha256 is the sum of all.zip.
					name = strings.TrimSuffix(strings.TrimSuffix(base, ".sha256sum"), ".sha256")
				}
				checksums[name] = h
			}
			continue
		}
		archives = append(archives, a)
	}
	if len(archives) == 0 {
		return &usageError{"scand vulndb import: no archive given (OSV <ecosystem>/all.zip, the Go vulndb zip, a Trivy db.tar.gz)"}
	}
	if sum != "" && len(archives) != 1 {
		return &usageError{"scand vulndb import: -sha256 applies to exactly one archive"}
	}
	im := vulndb.Importer{Dir: dir}
	for _, a := range archives {
		want := sum
		if want == "" && len(checksums) > 0 {
			h, ok := checksums[filepath.Base(a)]
			if !ok {
				return &usageError{fmt.Sprintf("scand vulndb import: the checksum files given have no sha256 for %s", filepath.Base(a))}
			}
			want = h
		}
		info, err := im.Import(ctx, vulndb.Archive{Path: a, SHA256: want})
		if err != nil {
			return fmt.Errorf("import %s: %w", a, err)
		}
		built := "build date unknown"
		if info.BuiltAt != nil {
			built = "built " + info.BuiltAt.UTC().Format(time.RFC3339)
		}
		verified := ""
		if want != "" {
			verified = ", sha256 verified"
		}
		fmt.Fprintf(stdout, "imported %s: %s (%s%s) -> %s\n", a, info.Name, built, verified, info.Path)
	}
	// The daemon notices the new data itself (SVC_REEVALUATE_POLL, or at
	// its next start) and re-evaluates the stored SBOMs against it.
	fmt.Fprintln(stdout, "a scand daemon using "+dir+" re-evaluates the stored SBOMs against the new data (see docs/reevaluation.md)")
	return nil
}

func printInventory(out io.Writer, dir string, inv []vulndb.Info, maxAgeDays int) {
	fmt.Fprintf(out, "Advisory databases (imports go to %s; stale after %d days):\n", dir, maxAgeDays)
	if len(inv) == 0 {
		fmt.Fprintln(out, "  none: set SVC_OSV_DB, SVC_GOVULN_DB, SVC_TRIVY_CACHE or run `scand vulndb import FILE...`")
		return
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTOOL\tBUILT\tAGE\tSOURCE\tPATH")
	for _, i := range inv {
		built, age := "unknown", "unknown"
		if i.BuiltAt != nil {
			built = i.BuiltAt.UTC().Format("2006-01-02")
		}
		if i.AgeDays != nil {
			age = fmt.Sprintf("%.1f days", *i.AgeDays)
			if i.Stale {
				age += " (STALE)"
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", i.Name, i.Tool, built, age, i.Source, i.Path)
	}
	tw.Flush()
	for _, i := range inv {
		if warning := i.Warning(maxAgeDays); warning != "" {
			fmt.Fprintln(out, "  warning: "+warning)
		}
	}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func readCapped(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
