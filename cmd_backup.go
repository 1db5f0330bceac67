package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"scand/store"
)

// dbFlag is the -db flag of backup and restore: SVC_DB's value, else the
// daemon's default.
func dbFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	def := "scand.db"
	if v := getenv("SVC_DB"); v != "" {
		def = v
	}
	return fs.String("db", def, "the daemon's database (env SVC_DB)")
}

// runBackupCommand is `scand backup FILE`: a consistent copy of the
// database while the daemon runs and scans write, verified, and a summary
// of what it holds.
func runBackupCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scand backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := dbFlag(fs, getenv)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	fs.Usage = commandUsage(fs, "scand backup [-db FILE] [-json] BACKUP",
		"Writes a consistent copy of the database to BACKUP (which must not exist) while the daemon keeps running: SQLite's VACUUM INTO on one read snapshot, never a file copy. The copy is verified (integrity_check, schema version, row counts) and summarised. Exit 0 when the backup verifies, 1 when it does not, 2 on a usage error.")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return &usageError{fmt.Sprintf("scand backup takes one BACKUP file, got %d arguments", len(pos))}
	}
	start := time.Now()
	sum, err := store.BackupFile(ctx, *db, pos[0])
	if errors.Is(err, store.ErrBackupExists) {
		return &usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	printBackup(stdout, "backup", sum, time.Since(start), *asJSON)
	return nil
}

// runRestoreCommand is `scand restore BACKUP`: refuses while a daemon
// holds the database, verifies the backup, keeps the replaced database
// aside and puts the backup in its place.
func runRestoreCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scand restore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := dbFlag(fs, getenv)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	fs.Usage = commandUsage(fs, "scand restore [-db FILE] [-json] BACKUP",
		"Replaces the database with BACKUP. Refuses while a daemon runs on the database (stop it first). The backup is verified before anything is touched (integrity_check, and a schema this binary knows); the replaced database and its WAL are renamed to FILE.before-restore-TIME, never deleted. Exit 0 when restored, 1 on a failure, 2 on a usage error, a running daemon or a backup that does not verify.")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return &usageError{fmt.Sprintf("scand restore takes one BACKUP file, got %d arguments", len(pos))}
	}
	lock, err := store.Lock(*db)
	if err != nil {
		var locked *store.LockedError
		if errors.As(err, &locked) {
			return &usageError{locked.Error() + "; stop the daemon before restoring (systemctl stop scand)"}
		}
		return err
	}
	defer lock.Release()
	start := time.Now()
	suffix := ".before-restore-" + time.Now().UTC().Format("20060102T150405Z")
	res, err := store.Restore(ctx, *db, pos[0], suffix)
	if err != nil {
		if res.Aside == "" {
			// Nothing was replaced: the backup is what is wrong.
			return &usageError{err.Error()}
		}
		return err
	}
	printBackup(stdout, "restored", res.Backup, time.Since(start), *asJSON)
	if !*asJSON {
		if res.Aside != "" {
			fmt.Fprintf(stdout, "the replaced database is at %s\n", res.Aside)
		}
		fmt.Fprintf(stdout, "%s now holds the backup; start the daemon\n", *db)
	}
	return nil
}

// printBackup prints what a backup holds.
func printBackup(w io.Writer, what string, sum store.BackupSummary, took time.Duration, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			store.BackupSummary
			Seconds float64 `json:"seconds"`
		}{sum, took.Seconds()})
		return
	}
	fmt.Fprintf(w, "%s: %s (%d bytes, schema version %d, integrity %s, %s)\n", what, sum.Path, sum.Bytes, sum.SchemaVersion, sum.Integrity,
		took.Round(time.Millisecond))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TABLE\tROWS\t")
	for _, t := range sum.Tables {
		fmt.Fprintf(tw, "  %s\t%d\t\n", t.Name, t.Rows)
	}
	tw.Flush()
}
