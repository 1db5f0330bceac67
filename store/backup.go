package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"syscall"

	"scand/store/ops"
	"scand/store/sqlbase"
)

// BackupSummary is what a verified backup holds (ops.Summary).
type BackupSummary = ops.Summary

// ErrBackupExists means a backup's destination already exists.
var ErrBackupExists = ops.ErrExists

// Backup writes a consistent copy of the live database to dest while the
// daemon keeps running and writing (SQLite's VACUUM INTO on a read
// snapshot, never a file copy), then verifies the copy.
func (s *Store) Backup(ctx context.Context, dest string) (BackupSummary, error) {
	if err := ops.Backup(ctx, s.db, dest); err != nil {
		return BackupSummary{}, err
	}
	return ops.Verify(ctx, dest)
}

// BackupFile is Backup for a process that does not own the database
// (`scand backup` beside a running daemon): it opens dbPath without the
// store (no migration, no lock: the daemon may hold it) and runs only the
// VACUUM INTO, which reads.
func BackupFile(ctx context.Context, dbPath, dest string) (BackupSummary, error) {
	if _, err := os.Stat(dbPath); err != nil {
		return BackupSummary{}, fmt.Errorf("database %s: %w", dbPath, err)
	}
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return BackupSummary{}, err
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "_pragma=busy_timeout(10000)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return BackupSummary{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := ops.Backup(ctx, db, dest); err != nil {
		return BackupSummary{}, err
	}
	return ops.Verify(ctx, dest)
}

// VerifyBackup checks a backup before anything is replaced with it: a
// SQLite file with scand's schema, integrity_check ok, and a schema this
// binary knows (not newer, no edited migration).
func VerifyBackup(ctx context.Context, path string) (BackupSummary, error) {
	sum, err := ops.Verify(ctx, path)
	if err != nil {
		return sum, err
	}
	ms, err := loadMigrations()
	if err != nil {
		return sum, err
	}
	if err := checkApplied(sum.Migrations, ms); err != nil {
		return sum, err
	}
	return sum, nil
}

// Restored says what Restore did.
type Restored struct {
	Backup BackupSummary `json:"backup"`
	// Aside is where the replaced database now is ("" when there was
	// none); its WAL, if any, moved beside it with the same name + "-wal".
	Aside string `json:"aside"`
}

// Restore replaces the database at dbPath with the backup at backupPath.
// The caller must hold the database's lock (Lock), so no daemon runs on
// it. The backup is verified first; the replaced file and its WAL and
// shared-memory files are renamed aside (suffix), never deleted; the
// backup is copied to a temporary file beside the database, synced and
// renamed into place, so a crash leaves either the old or the new file.
func Restore(ctx context.Context, dbPath, backupPath, suffix string) (Restored, error) {
	sum, err := VerifyBackup(ctx, backupPath)
	if err != nil {
		return Restored{Backup: sum}, fmt.Errorf("backup %s not restored: %w", backupPath, err)
	}
	out := Restored{Backup: sum}
	dir := filepath.Dir(dbPath)
	tmp := filepath.Join(dir, "."+filepath.Base(dbPath)+".restoring")
	if err := copyFile(backupPath, tmp); err != nil {
		os.Remove(tmp)
		return out, fmt.Errorf("copy %s beside the database: %w", backupPath, err)
	}
	// The copy is checked again where it will live: a full disk or a bad
	// medium must not be found by the daemon.
	if _, err := ops.Verify(ctx, tmp); err != nil {
		os.Remove(tmp)
		return out, fmt.Errorf("the copy of %s beside the database does not verify: %w", backupPath, err)
	}
	if fi, err := os.Stat(dbPath); err == nil {
		// The restored file gets the replaced one's owner and mode: run as
		// root, restore must not leave a file the daemon's user cannot
		// write. (Chown fails harmlessly for anyone else.)
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			os.Chown(tmp, int(st.Uid), int(st.Gid))
		}
		os.Chmod(tmp, fi.Mode().Perm())
		out.Aside = dbPath + suffix
		if _, err := os.Lstat(out.Aside); err == nil {
			os.Remove(tmp)
			return out, fmt.Errorf("%s already exists; not overwriting it", out.Aside)
		}
		// The WAL first: a database renamed without its WAL would lose
		// the transactions only the WAL holds.
		for _, ext := range []string{"-wal", "-shm"} {
			if err := os.Rename(dbPath+ext, out.Aside+ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
				os.Remove(tmp)
				return out, fmt.Errorf("move %s aside: %w", dbPath+ext, err)
			}
		}
		if err := os.Rename(dbPath, out.Aside); err != nil {
			os.Remove(tmp)
			return out, fmt.Errorf("move %s aside: %w", dbPath, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		os.Remove(tmp)
		return out, err
	}
	if err := os.Rename(tmp, dbPath); err != nil {
		return out, fmt.Errorf("put the backup in place (the old database is at %s): %w", out.Aside, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return out, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// FileStats are the database's files and the room left for them.
type FileStats struct {
	DBBytes, WALBytes int64
	// FreeBytes is what an unprivileged process may still write on the
	// database's file system; -1 when it cannot be asked.
	FreeBytes int64
}

// FileStats reads the sizes of the database and its WAL and the free
// space of their file system: two stats and a statfs, no query.
func (s *Store) FileStats() FileStats {
	st := FileStats{FreeBytes: -1}
	if fi, err := os.Stat(s.path); err == nil {
		st.DBBytes = fi.Size()
	}
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		st.WALBytes = fi.Size()
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(s.path), &fs); err == nil {
		st.FreeBytes = int64(fs.Bavail) * int64(fs.Bsize)
	}
	return st
}

// OpsStats are the stored aggregates /metrics reads (ops.Stats).
type OpsStats = ops.Stats

// OpsStats reads the scan and delivery queue aggregates for /metrics.
func (s *Store) OpsStats(ctx context.Context) (OpsStats, error) {
	return ops.ReadStats(ctx, s.db, sqlbase.ParseTime)
}
