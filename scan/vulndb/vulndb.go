// Package vulndb keeps the offline advisory data the dependency scanners
// read: it verifies and installs the archives each tool's project
// publishes (OSV's per-ecosystem all.zip, the Go vulnerability database
// zip, a Trivy DB db.tar.gz) into a directory scand owns, swaps them in
// atomically, records when each was built, and tells how old the data a
// tool would use is, wherever it comes from (an imported archive or a
// folder named by SVC_OSV_DB, SVC_GOVULN_DB, SVC_TRIVY_CACHE).
//
// Layout of the directory (SVC_VULNDB_DIR):
//
//	osv/osv-scalibr/<Ecosystem>/all.zip  what osv-scanner --local-db-path reads
//	govulndb -> store/govulndb-<sha>     the unpacked Go vulnerability database
//	trivy    -> store/trivy-<sha>        a Trivy cache dir (db/trivy.db, db/metadata.json)
//	manifest.json                        per database: build date, import date, sha256
//	.lock                                serializes imports (CLI and daemon)
//
// A zip is replaced by renaming a complete copy over it; a folder by
// pointing the symlink at a complete new folder (rename of a new link), so
// a scan that starts during an import sees the old data or the new, never
// half of either. The previous folder is kept until the next import.
package vulndb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Database kinds, by the tool that reads them.
const (
	ToolOSV         = "osv-scanner"
	ToolGovulncheck = "govulncheck"
	ToolTrivy       = "trivy"
)

// Folders under the directory, per tool (what the wrapped tools read when
// their own variable is unset).
const (
	DirOSV      = "osv"
	DirGoVulnDB = "govulndb"
	DirTrivy    = "trivy"
)

// Info describes one database a tool reads.
type Info struct {
	// Name is "osv/<Ecosystem>", "govulndb" or "trivy".
	Name string `json:"name"`
	Tool string `json:"tool"`
	Path string `json:"path"`
	// Source is "imported" for data under SVC_VULNDB_DIR, else the variable
	// that names the folder (SVC_OSV_DB, SVC_GOVULN_DB, SVC_TRIVY_CACHE).
	Source string `json:"source"`
	// BuiltAt is when the publisher built the data: the newest record's
	// modified time (OSV), index/db.json's modified (Go), metadata.json's
	// UpdatedAt (Trivy), never a file's or zip entry's timestamp. Null when
	// it cannot be told.
	BuiltAt *time.Time `json:"built_at"`
	// ImportedAt is when `scand vulndb import` installed it; null for data
	// scand did not import.
	ImportedAt *time.Time `json:"imported_at"`
	SHA256     string     `json:"sha256,omitempty" doc:"sha256 of the imported archive"`
	// AgeDays is the age of BuiltAt in days (one decimal) at the time of
	// asking; null when BuiltAt is unknown.
	AgeDays *float64 `json:"age_days"`
	// Stale is set when AgeDays is over SVC_VULNDB_MAX_AGE_DAYS.
	Stale bool `json:"stale"`
}

// WithAge fills AgeDays and Stale for now and the maximum age.
func (i Info) WithAge(now time.Time, maxAge time.Duration) Info {
	i.AgeDays, i.Stale = nil, false
	if i.BuiltAt != nil {
		d := now.Sub(*i.BuiltAt)
		days := float64(int64(d.Hours()/24*10)) / 10
		if days < 0 {
			days = 0
		}
		i.AgeDays = &days
		i.Stale = maxAge > 0 && d > maxAge
	}
	return i
}

// Warning is the sentence a scan records for a stale database; "" when it
// is not stale.
func (i Info) Warning(maxAgeDays int) string {
	if !i.Stale || i.AgeDays == nil {
		return ""
	}
	return fmt.Sprintf("%s data of %s is %.0f days old (built %s; SVC_VULNDB_MAX_AGE_DAYS=%d): advisories published since are not checked; import a newer archive with `scand vulndb import`",
		i.Name, i.Tool, *i.AgeDays, i.BuiltAt.UTC().Format("2006-01-02"), maxAgeDays)
}

// manifestEntry is what manifest.json records per imported database.
type manifestEntry struct {
	BuiltAt    *time.Time `json:"built_at"`
	ImportedAt time.Time  `json:"imported_at"`
	SHA256     string     `json:"sha256"`
	Archive    string     `json:"archive"`
	Size       int64      `json:"size"`
	// Folder is the store folder a symlinked database points at.
	Folder string `json:"folder,omitempty"`
}

type manifest struct {
	Version   int                      `json:"version"`
	Databases map[string]manifestEntry `json:"databases"`
}

const manifestName = "manifest.json"

// maxManifestBytes bounds the manifest read: it is scand's own file, but
// the directory may be shared.
const maxManifestBytes = 1 << 20

func readManifest(dir string) manifest {
	m := manifest{Version: 1, Databases: map[string]manifestEntry{}}
	f, err := os.Open(filepath.Join(dir, manifestName))
	if err != nil {
		return m
	}
	defer f.Close()
	var got manifest
	dec := json.NewDecoder(ioLimit(f, maxManifestBytes))
	if dec.Decode(&got) == nil && got.Databases != nil {
		m.Databases = got.Databases
	}
	return m
}

func writeManifest(dir string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, manifestName), append(b, '\n'))
}

// Locations names the folders the tools read: the variable each tool's
// folder comes from, and scand's own directory.
type Locations struct {
	// Getenv reads SVC_OSV_DB, SVC_GOVULN_DB and SVC_TRIVY_CACHE.
	Getenv func(string) string
	// Dir is SVC_VULNDB_DIR (or its default); "" for none.
	Dir string
}

// Inventory describes every database a dependency tool would read now:
// for each tool, the folder its variable names, else the imported copy
// under Dir. Tools with neither are left out.
func Inventory(ctx context.Context, loc Locations) []Info {
	var out []Info
	for _, t := range []struct{ tool, env, sub string }{
		{ToolOSV, "SVC_OSV_DB", DirOSV},
		{ToolGovulncheck, "SVC_GOVULN_DB", DirGoVulnDB},
		{ToolTrivy, "SVC_TRIVY_CACHE", DirTrivy},
	} {
		if ctx.Err() != nil {
			break
		}
		dir, source := "", t.env
		if loc.Getenv != nil {
			dir = strings.TrimPrefix(strings.TrimSpace(loc.Getenv(t.env)), "file://")
		}
		if dir == "" && loc.Dir != "" {
			dir, source = filepath.Join(loc.Dir, t.sub), "imported"
		}
		if dir == "" {
			continue
		}
		out = append(out, Describe(t.tool, dir, source, loc.Dir)...)
	}
	return out
}

// Describe returns the databases in a tool's folder with their build
// dates, read from the data itself however it was given (OSV: the newest
// record's modified; Go: index/db.json; Trivy: db/metadata.json), by the
// same readers the importer records in the manifest. For imported data the
// manifest adds the import date and checksum.
func Describe(tool, dir, source, vulnDir string) []Info {
	var m manifest
	if vulnDir != "" {
		m = readManifest(vulnDir)
	}
	fromManifest := func(i *Info) {
		if source != "imported" {
			return
		}
		if e, ok := m.Databases[i.Name]; ok {
			if e.BuiltAt != nil {
				i.BuiltAt = e.BuiltAt
			}
			at := e.ImportedAt
			i.ImportedAt, i.SHA256 = &at, e.SHA256
		}
	}
	// single describes a folder holding one database, present when its
	// data file exists, dated by the file date reads.
	single := func(name, data, dated string, date func(string) (time.Time, error)) []Info {
		if _, err := os.Stat(filepath.Join(dir, data)); err != nil {
			return nil
		}
		i := Info{Name: name, Tool: tool, Path: dir, Source: source}
		if t, err := date(filepath.Join(dir, dated)); err == nil {
			i.BuiltAt = &t
		}
		fromManifest(&i)
		return []Info{i}
	}
	switch tool {
	case ToolOSV:
		var out []Info
		zips, _ := filepath.Glob(filepath.Join(dir, "osv-scalibr", "*", "all.zip"))
		sort.Strings(zips)
		for _, z := range zips {
			eco := filepath.Base(filepath.Dir(z))
			i := Info{Name: "osv/" + eco, Tool: tool, Path: z, Source: source}
			fromManifest(&i) // an import recorded the date, read the same way
			if i.BuiltAt == nil {
				if t, ok := osvZipDate(z, vulnDir); ok {
					i.BuiltAt = &t
				}
			}
			out = append(out, i)
		}
		return out
	case ToolGovulncheck:
		return single("govulndb", "index/db.json", "index/db.json", govulnModified)
	case ToolTrivy:
		return single("trivy", "db/trivy.db", "db/metadata.json", trivyUpdatedAt)
	}
	return nil
}

// dateCacheName is the file under SVC_VULNDB_DIR that remembers the dates
// of OSV zips scand did not import (SVC_OSV_DB), by path, size and
// modification time: reading a zip's records takes seconds for a large
// ecosystem, and every scan asks.
const dateCacheName = "osv-dates.json"

// maxDateCacheEntries bounds the cache; zips beyond it are read each time.
const maxDateCacheEntries = 256

type dateCacheEntry struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	BuiltAt time.Time `json:"built_at"`
}

func readDateCache(vulnDir string) map[string]dateCacheEntry {
	m := map[string]dateCacheEntry{}
	b, err := readSmall(filepath.Join(vulnDir, dateCacheName), maxManifestBytes)
	if err == nil {
		json.Unmarshal(b, &m)
	}
	return m
}

// osvZipDate is osvZipModified of the zip at p, remembered under vulnDir
// ("" for none) while the zip's size and modification time stay the same.
// The cache is best effort: a failure to write it only costs the next read.
func osvZipDate(p, vulnDir string) (time.Time, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return time.Time{}, false
	}
	if vulnDir != "" {
		if e, ok := readDateCache(vulnDir)[p]; ok && e.Size == fi.Size() && e.ModTime.Equal(fi.ModTime()) && !e.BuiltAt.IsZero() {
			return e.BuiltAt, true
		}
	}
	t, err := osvZipModified(p)
	if err != nil {
		return time.Time{}, false
	}
	if st, err := os.Stat(vulnDir); vulnDir != "" && err == nil && st.IsDir() {
		m := readDateCache(vulnDir)
		if _, ok := m[p]; ok || len(m) < maxDateCacheEntries {
			m[p] = dateCacheEntry{Size: fi.Size(), ModTime: fi.ModTime(), BuiltAt: t}
			if b, err := json.MarshalIndent(m, "", "  "); err == nil {
				writeFileAtomic(filepath.Join(vulnDir, dateCacheName), append(b, '\n'))
			}
		}
	}
	return t, true
}

// DefaultDir is SVC_VULNDB_DIR's default: "vulndb" beside the database.
func DefaultDir(dbPath string) string {
	return filepath.Join(filepath.Dir(dbPath), "vulndb")
}

// prune removes store folders no manifest entry points at, except the most
// recently replaced one of each kind (a scan that started before the swap
// may still read it).
func prune(dir string, m manifest, previous []string) {
	entries, err := os.ReadDir(filepath.Join(dir, "store"))
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, e := range m.Databases {
		if e.Folder != "" {
			keep[e.Folder] = true
		}
	}
	for _, p := range previous {
		keep[p] = true
	}
	for _, e := range entries {
		name := e.Name()
		if keep[name] || strings.HasSuffix(name, ".tmp") && !isStale(filepath.Join(dir, "store", name)) {
			continue
		}
		os.RemoveAll(filepath.Join(dir, "store", name))
	}
}

// isStale reports a leftover temporary folder of an interrupted import.
func isStale(p string) bool {
	st, err := os.Stat(p)
	return err == nil && time.Since(st.ModTime()) > time.Hour
}

// ErrFormat is returned (wrapped) for an archive that is none of the
// published formats or fails their checks.
var ErrFormat = errors.New("not a recognised advisory database archive")

// ErrChecksum is returned for an archive whose sha256 is not the expected.
var ErrChecksum = errors.New("sha256 mismatch")

func formatErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...))
}

// ParseChecksums reads a checksum file (sha256sum's "<hex>  <name>" lines,
// or a bare "<hex>" for one archive) into name → hex; a bare hash is
// under "".
func ParseChecksums(data []byte) (map[string]string, error) {
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		h := strings.ToLower(f[0])
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("checksum line %q: not a sha256", line)
		}
		name := ""
		if len(f) > 1 {
			name = filepath.Base(strings.TrimPrefix(f[1], "*"))
		}
		out[name] = h
	}
	if len(out) == 0 {
		return nil, errors.New("checksum file holds no sha256")
	}
	return out, nil
}

// ImportState identifies what has been imported into dir: it changes with
// every import, whoever made it (the daemon's API or `scand vulndb
// import` on the command line), and is "" before the first. A daemon
// compares it with the last it acted on to re-evaluate stored SBOMs
// (scan/reevaluate).
func ImportState(dir string) string {
	if dir == "" {
		return ""
	}
	m := readManifest(dir)
	if len(m.Databases) == 0 {
		return ""
	}
	names := make([]string, 0, len(m.Databases))
	for n := range m.Databases {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		e := m.Databases[n]
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", n, e.SHA256, e.ImportedAt.UTC().Format(time.RFC3339Nano))
	}
	return hex.EncodeToString(h.Sum(nil))
}
