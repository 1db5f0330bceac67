package vulndb

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var fixtures = filepath.Join("..", "..", "testdata", "wrappers", "vulndb")

// zipOf writes a zip holding files (name → content).
func zipOf(t *testing.T, files map[string][]byte, mod time.Time) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mod})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "archive.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// dirFiles reads every file under a fixture folder (relative names).
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// trivyTarball writes a db.tar.gz holding a bbolt-shaped trivy.db and
// metadata.json updated at updated.
func trivyTarball(t *testing.T, updated time.Time, extra ...tar.Header) string {
	t.Helper()
	db := make([]byte, 4096)
	binary.LittleEndian.PutUint32(db[16:], boltMagic)
	meta := []byte(`{"Version":2,"NextUpdate":"` + updated.Add(24*time.Hour).Format(time.RFC3339) + `","UpdatedAt":"` + updated.Format(time.RFC3339) + `"}`)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		data []byte
	}{{"trivy.db", db}, {"metadata.json", meta}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg})
		tw.Write(f.data)
	}
	for _, h := range extra {
		tw.WriteHeader(&h)
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(t.TempDir(), "db.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func sha(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func importer(dir string) Importer {
	return Importer{Dir: dir, Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }}
}

func TestImportOSVEcosystemZip(t *testing.T) {
	dir := t.TempDir()
	archive := zipOf(t, dirFiles(t, filepath.Join(fixtures, "osv", "npm")), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	info, err := importer(dir).Import(context.Background(), Archive{Path: archive, Name: "all.zip", SHA256: strings.ToUpper(sha(t, archive))})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "osv", "osv-scalibr", "npm", "all.zip")
	if info.Name != "osv/npm" || info.Path != dst || info.BuiltAt == nil || info.ImportedAt == nil || info.SHA256 != sha(t, archive) {
		t.Fatalf("info = %+v", info)
	}
	if sha(t, dst) != sha(t, archive) {
		t.Error("the installed zip differs from the archive")
	}
	// The newest record's modified date is the build date.
	if got := info.BuiltAt.Format(time.RFC3339); got < "2020" {
		t.Errorf("built at %s", got)
	}
	inv := Inventory(context.Background(), Locations{Dir: dir, Getenv: func(string) string { return "" }})
	if len(inv) != 1 || inv[0].Name != "osv/npm" || inv[0].Source != "imported" || !inv[0].BuiltAt.Equal(*info.BuiltAt) ||
		inv[0].ImportedAt == nil || inv[0].SHA256 != info.SHA256 {
		t.Errorf("inventory = %+v", inv)
	}
	aged := inv[0].WithAge(info.BuiltAt.Add(10*24*time.Hour), 7*24*time.Hour)
	if !aged.Stale || aged.AgeDays == nil || *aged.AgeDays != 10 || !strings.Contains(aged.Warning(7), "10 days old") {
		t.Errorf("aged = %+v, warning %q", aged, aged.Warning(7))
	}
	if fresh := inv[0].WithAge(info.BuiltAt.Add(24*time.Hour), 7*24*time.Hour); fresh.Stale || fresh.Warning(7) != "" {
		t.Errorf("a one-day-old database is stale: %+v", fresh)
	}
}

func TestImportGoVulnDBAndSwap(t *testing.T) {
	dir := t.TempDir()
	files := dirFiles(t, filepath.Join(fixtures, "govulndb"))
	first := zipOf(t, files, time.Now())
	info, err := importer(dir).Import(context.Background(), Archive{Path: first})
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "govulndb" || info.BuiltAt.Format("2006-01-02") != "2024-05-20" {
		t.Fatalf("info = %+v", info)
	}
	link := filepath.Join(dir, "govulndb")
	if _, err := os.Stat(filepath.Join(link, "index", "modules.json")); err != nil {
		t.Fatalf("not unpacked behind the link: %v", err)
	}
	old, _ := os.Readlink(link)
	// A newer database replaces it through the link; the old folder stays
	// for scans that started before the swap.
	files["index/db.json"] = []byte(`{"modified":"2026-02-28T00:00:00Z"}`)
	second := zipOf(t, files, time.Now())
	info, err = importer(dir).Import(context.Background(), Archive{Path: second})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := os.Readlink(link)
	if cur == old || info.BuiltAt.Format("2006-01-02") != "2026-02-28" {
		t.Errorf("link %s (was %s), built %v", cur, old, info.BuiltAt)
	}
	if _, err := os.Stat(filepath.Join(dir, old)); err != nil {
		t.Errorf("the previous folder is gone: %v", err)
	}
	inv := Describe(ToolGovulncheck, link, "imported", dir)
	if len(inv) != 1 || inv[0].BuiltAt.Format("2006-01-02") != "2026-02-28" {
		t.Errorf("describe = %+v", inv)
	}
}

func TestImportTrivyDB(t *testing.T) {
	dir := t.TempDir()
	updated := time.Date(2025, 4, 2, 6, 0, 0, 0, time.UTC)
	info, err := importer(dir).Import(context.Background(), Archive{Path: trivyTarball(t, updated), Name: "db.tar.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "trivy" || !info.BuiltAt.Equal(updated) {
		t.Fatalf("info = %+v", info)
	}
	for _, f := range []string{"db/trivy.db", "db/metadata.json"} {
		if _, err := os.Stat(filepath.Join(dir, "trivy", f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// A variable naming another folder wins over the imported copy.
	other := t.TempDir()
	os.MkdirAll(filepath.Join(other, "db"), 0o755)
	os.WriteFile(filepath.Join(other, "db", "trivy.db"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(other, "db", "metadata.json"), []byte(`{"UpdatedAt":"2024-01-01T00:00:00Z"}`), 0o644)
	inv := Inventory(context.Background(), Locations{Dir: dir, Getenv: func(k string) string {
		if k == "SVC_TRIVY_CACHE" {
			return other
		}
		return ""
	}})
	if len(inv) != 1 || inv[0].Source != "SVC_TRIVY_CACHE" || inv[0].BuiltAt.Year() != 2024 || inv[0].ImportedAt != nil {
		t.Errorf("inventory = %+v", inv)
	}
}

// Hostile and broken archives are refused, and refusing changes nothing.
func TestImportRefuses(t *testing.T) {
	dir := t.TempDir()
	good := zipOf(t, dirFiles(t, filepath.Join(fixtures, "osv", "npm")), time.Now())
	if _, err := importer(dir).Import(context.Background(), Archive{Path: good}); err != nil {
		t.Fatal(err)
	}
	before := sha(t, filepath.Join(dir, "osv", "osv-scalibr", "npm", "all.zip"))
	gov := dirFiles(t, filepath.Join(fixtures, "govulndb"))
	escaping := map[string][]byte{"../../evil.json": []byte("{}")}
	for k, v := range gov {
		escaping[k] = v
	}
	notJSON := dirFiles(t, filepath.Join(fixtures, "osv", "npm"))
	notJSON["GHSA-zzzz-zzzz-zzzz.json"] = []byte("not json")
	mixed := dirFiles(t, filepath.Join(fixtures, "osv", "npm"))
	mixed["GO-2022-1059.json"] = gov["ID/GO-2022-1059.json"]
	garbage := filepath.Join(t.TempDir(), "x.bin")
	os.WriteFile(garbage, []byte("hello world"), 0o600)
	cases := []struct {
		name    string
		archive Archive
		want    error
	}{
		{"checksum", Archive{Path: good, SHA256: strings.Repeat("0", 64)}, ErrChecksum},
		{"not an archive", Archive{Path: garbage}, ErrFormat},
		{"zip slip", Archive{Path: zipOf(t, escaping, time.Now())}, ErrFormat},
		{"bad record", Archive{Path: zipOf(t, notJSON, time.Now())}, ErrFormat},
		{"mixed ecosystems", Archive{Path: zipOf(t, mixed, time.Now())}, ErrFormat},
		{"empty zip", Archive{Path: zipOf(t, map[string][]byte{}, time.Now())}, ErrFormat},
		{"trivy with a symlink", Archive{Path: trivyTarball(t, time.Now(), tar.Header{Name: "evil", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})}, ErrFormat},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := importer(dir).Import(context.Background(), c.archive)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
	if sha(t, filepath.Join(dir, "osv", "osv-scalibr", "npm", "all.zip")) != before {
		t.Error("a refused import changed the installed database")
	}
	if _, err := os.Lstat(filepath.Join(dir, "trivy")); err == nil {
		t.Error("a refused Trivy import left a database behind")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil.json")); err == nil {
		t.Error("zip slip wrote outside the directory")
	}
}

// Imports are serialized by the directory lock; concurrent ones all land.
func TestImportConcurrent(t *testing.T) {
	dir := t.TempDir()
	osv := zipOf(t, dirFiles(t, filepath.Join(fixtures, "osv", "npm")), time.Now())
	gov := zipOf(t, dirFiles(t, filepath.Join(fixtures, "govulndb")), time.Now())
	trivy := trivyTarball(t, time.Now().UTC().Truncate(time.Second))
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, p := range []string{osv, gov, trivy} {
		wg.Add(1)
		go func(p string) {
			defer wg.Done()
			_, err := importer(dir).Import(context.Background(), Archive{Path: p})
			errs <- err
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	m := readManifest(dir)
	if len(m.Databases) != 3 {
		t.Errorf("manifest = %+v", m)
	}
}

func TestParseChecksums(t *testing.T) {
	h := strings.Repeat("ab", 32)
	got, err := ParseChecksums([]byte(h + "  all.zip\n" + strings.ToUpper(h) + " *dir/db.tar.gz\n"))
	if err != nil || got["all.zip"] != h || got["db.tar.gz"] != h {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := ParseChecksums([]byte(h + "\n")); err != nil || got[""] != h {
		t.Errorf("bare hash: %v, %v", got, err)
	}
	if _, err := ParseChecksums([]byte("not-a-hash all.zip\n")); err == nil {
		t.Error("garbage accepted")
	}
}

// An OSV zip's date is its newest record's modified, however the zip is
// given: one packed today from a 2023 data set is 2023's data, named by
// SVC_OSV_DB or imported. A "modified" nested in another key is not the
// record's.
func TestOSVDateIsTheRecords(t *testing.T) {
	records := map[string][]byte{
		"GHSA-aaaa.json": []byte(`{"schema_version":"1.4.0","id":"GHSA-aaaa","database_specific":{"modified":"2099-01-01T00:00:00Z"},` +
			`"modified":"2023-02-10T08:00:00Z","affected":[{"package":{"ecosystem":"npm","name":"a"}}]}`),
		"GHSA-bbbb.json": []byte(`{"id":"GHSA-bbbb","modified":"2022-11-01T00:00:00Z","affected":[{"package":{"ecosystem":"npm","name":"b"}}]}`),
	}
	packed := time.Now().UTC().Truncate(time.Second)
	archive := zipOf(t, records, packed)
	want := time.Date(2023, 2, 10, 8, 0, 0, 0, time.UTC)

	osvDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(osvDir, "osv-scalibr", "npm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFileAtomic(archive, filepath.Join(osvDir, "osv-scalibr", "npm", "all.zip")); err != nil {
		t.Fatal(err)
	}
	named := Inventory(context.Background(), Locations{Getenv: func(k string) string {
		if k == "SVC_OSV_DB" {
			return osvDir
		}
		return ""
	}})
	if len(named) != 1 || named[0].Source != "SVC_OSV_DB" || named[0].BuiltAt == nil || !named[0].BuiltAt.Equal(want) {
		t.Fatalf("SVC_OSV_DB inventory = %+v, want built %s", named, want)
	}
	now := time.Date(2025, 12, 1, 8, 0, 0, 0, time.UTC)
	aged := named[0].WithAge(now, 7*24*time.Hour)
	if !aged.Stale || aged.AgeDays == nil || *aged.AgeDays != 1025 || !strings.Contains(aged.Warning(7), "1025 days old (built 2023-02-10") {
		t.Errorf("aged = %+v, warning %q", aged, aged.Warning(7))
	}

	// With SVC_VULNDB_DIR the date is remembered while the zip's size and
	// modification time stay, and read again when the zip changes.
	cacheDir := t.TempDir()
	loc := Locations{Dir: cacheDir, Getenv: func(k string) string {
		if k == "SVC_OSV_DB" {
			return osvDir
		}
		return ""
	}}
	if inv := Inventory(context.Background(), loc); len(inv) != 1 || !inv[0].BuiltAt.Equal(want) {
		t.Fatalf("inventory with a cache = %+v", inv)
	}
	cache := readDateCache(cacheDir)
	zipPath := filepath.Join(osvDir, "osv-scalibr", "npm", "all.zip")
	e, ok := cache[zipPath]
	if !ok || !e.BuiltAt.Equal(want) {
		t.Fatalf("date cache = %+v", cache)
	}
	e.BuiltAt = want.Add(-24 * time.Hour) // only the cache says so
	cache[zipPath] = e
	b, _ := json.Marshal(cache)
	os.WriteFile(filepath.Join(cacheDir, dateCacheName), b, 0o600)
	if inv := Inventory(context.Background(), loc); len(inv) != 1 || !inv[0].BuiltAt.Equal(want.Add(-24*time.Hour)) {
		t.Errorf("the cached date was not used: %+v", inv)
	}
	records["GHSA-cccc.json"] = []byte(`{"id":"GHSA-cccc","modified":"2024-06-01T00:00:00Z","affected":[{"package":{"ecosystem":"npm","name":"c"}}]}`)
	if err := copyFileAtomic(zipOf(t, records, packed), zipPath); err != nil {
		t.Fatal(err)
	}
	if inv := Inventory(context.Background(), loc); len(inv) != 1 || inv[0].BuiltAt.Format(time.RFC3339) != "2024-06-01T00:00:00Z" {
		t.Errorf("a changed zip kept its cached date: %+v", inv)
	}
	delete(records, "GHSA-cccc.json")

	dir := t.TempDir()
	info, err := importer(dir).Import(context.Background(), Archive{Path: archive, Name: "all.zip", SHA256: sha(t, archive)})
	if err != nil {
		t.Fatal(err)
	}
	imported := Inventory(context.Background(), Locations{Dir: dir, Getenv: func(string) string { return "" }})
	if info.BuiltAt == nil || !info.BuiltAt.Equal(want) || len(imported) != 1 || !imported[0].BuiltAt.Equal(want) {
		t.Errorf("imported: info %+v, inventory %+v, want built %s", info, imported, want)
	}
}
