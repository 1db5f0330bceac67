// Package ops holds the SQL of operating the daemon rather than of its
// data: the online backup and its verification, and the few cheap
// aggregates /metrics reads at each scrape. Every statement here reads;
// none grows with the number of findings except the verification's row
// counts, which run on a backup, never on a scrape.
package ops

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	_ "modernc.org/sqlite" // Verify opens files of its own
)

// ErrExists means the backup's destination already exists: a backup never
// overwrites a file (it may be the previous good one).
var ErrExists = errors.New("destination exists")

// Backup writes a consistent copy of the database db reads into dest with
// VACUUM INTO: one read transaction, so it is a snapshot of one moment
// while the daemon and its scans keep writing (WAL readers do not block
// writers), and never a copy of a file that is being written. The copy is
// written beside dest under a temporary name, synced, and renamed into
// place only when it is complete, so dest is either absent or whole.
func Backup(ctx context.Context, db *sql.DB, dest string) error {
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("backup to %s: %w", dest, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	tmp := filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".partial-"+randomSuffix())
	defer os.Remove(tmp)
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "VACUUM INTO ?", tmp)
	conn.Close()
	if err != nil {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("backup to %s: %w", dest, err)
	}
	// Link, not rename: it fails rather than replace a dest created
	// meanwhile.
	if err := os.Link(tmp, dest); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("backup to %s: %w", dest, ErrExists)
		}
		// A file system without hard links (vfat, some network mounts):
		// rename, after checking again that nothing took the name.
		if _, serr := os.Lstat(dest); serr == nil {
			return fmt.Errorf("backup to %s: %w", dest, ErrExists)
		}
		if err := os.Rename(tmp, dest); err != nil {
			return fmt.Errorf("backup to %s: %w", dest, err)
		}
	}
	return syncDir(filepath.Dir(dest))
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	d.Sync() // not every file system syncs directories; the data is synced
	return nil
}

// Summary is what a verified backup holds.
type Summary struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	// Integrity is SQLite's integrity_check answer: "ok" or the first
	// problems it found.
	Integrity string `json:"integrity"`
	// SchemaVersion is the newest migration recorded in the file.
	SchemaVersion int `json:"schema_version"`
	// Migrations are the applied migrations, version -> checksum.
	Migrations map[int]string `json:"-"`
	// Tables are the row counts of every table, by name.
	Tables []TableCount `json:"tables"`
}

// TableCount is one table's row count.
type TableCount struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
}

// Rows is the row count of table, or -1 when the backup has no such table.
func (s Summary) Rows(table string) int64 {
	for _, t := range s.Tables {
		if t.Name == table {
			return t.Rows
		}
	}
	return -1
}

// ErrNotADatabase means a file is not a scand database: not SQLite, or
// without a schema_migrations table.
var ErrNotADatabase = errors.New("not a scand database")

// ErrDamaged means integrity_check found problems.
var ErrDamaged = errors.New("database file is damaged")

// Verify opens path read-only (immutable: nothing, not even a -shm file,
// is written beside it), runs integrity_check, reads the recorded schema
// migrations and counts the rows of every table. A damaged file returns
// its Summary with ErrDamaged.
func Verify(ctx context.Context, path string) (Summary, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Summary{}, err
	}
	if !st.Mode().IsRegular() {
		return Summary{}, fmt.Errorf("%s: %w (not a regular file)", path, ErrNotADatabase)
	}
	sum := Summary{Path: path, Bytes: st.Size(), Migrations: map[int]string{}}
	abs, err := filepath.Abs(path)
	if err != nil {
		return sum, err
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro&immutable=1"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return sum, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").Scan(&n); err != nil {
		return sum, fmt.Errorf("%s: %w: %v", path, ErrNotADatabase, err)
	}
	if n == 0 {
		return sum, fmt.Errorf("%s: %w (no schema_migrations table)", path, ErrNotADatabase)
	}
	rows, err := db.QueryContext(ctx, "SELECT version, checksum FROM schema_migrations")
	if err != nil {
		return sum, err
	}
	for rows.Next() {
		var v int
		var c string
		if err := rows.Scan(&v, &c); err != nil {
			rows.Close()
			return sum, err
		}
		sum.Migrations[v] = c
		sum.SchemaVersion = max(sum.SchemaVersion, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return sum, err
	}
	var names []string
	rows, err = db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
	if err != nil {
		return sum, err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return sum, err
		}
		names = append(names, name)
	}
	rows.Close()
	sort.Strings(names)
	for _, name := range names {
		var c int64
		// The name comes from the file's own catalogue: quote it as an
		// identifier, a hostile file must not inject SQL.
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(name)).Scan(&c); err != nil {
			return sum, fmt.Errorf("count %s: %w", name, err)
		}
		sum.Tables = append(sum.Tables, TableCount{Name: name, Rows: c})
	}
	integrity, err := integrityCheck(ctx, db)
	if err != nil {
		return sum, err
	}
	sum.Integrity = integrity
	if integrity != "ok" {
		return sum, fmt.Errorf("%s: %w: %s", path, ErrDamaged, integrity)
	}
	return sum, nil
}

// integrityCheck returns "ok" or up to ten problems joined by "; ".
func integrityCheck(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check(10)")
	if err != nil {
		return "", fmt.Errorf("integrity_check: %w", err)
	}
	defer rows.Close()
	var out string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		if out != "" {
			out += "; "
		}
		out += line
	}
	return out, rows.Err()
}

func quoteIdent(s string) string {
	q := `"`
	for _, r := range s {
		if r == '"' {
			q += `""`
			continue
		}
		q += string(r)
	}
	return q + `"`
}
