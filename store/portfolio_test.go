package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store/sqlbase"
)

// completeWith runs a scan of target through CreateScan (or
// CreateScanWithTarget when spec is set) to completion at time at with
// one finding per fingerprint.
func completeWith(t *testing.T, s *Store, clock *storeClock, id string, sc Scan, spec string, at time.Time, fps ...string) Scan {
	t.Helper()
	ctx := context.Background()
	sc.ID, sc.StartedAt = id, at
	if sc.ScanTypes == nil {
		sc.ScanTypes = []string{"code"}
	}
	var err error
	if spec != "" {
		_, err = s.CreateScanWithTarget(ctx, sc, spec)
	} else {
		_, err = s.CreateScan(ctx, sc)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	clock.Set(at)
	var fs []finding.Finding
	for i, fp := range fps {
		fs = append(fs, finding.Finding{ID: fmt.Sprintf("%s-%d", id, i), Scanner: "secrets", ScanType: "code", Severity: finding.High,
			Title: "t", RuleID: "r", FilePath: "a.go", Line: i + 1, Fingerprint: fp})
	}
	if err := s.CompleteScan(ctx, id, ScanResult{Findings: fs}); err != nil {
		t.Fatal(err)
	}
	out, err := s.ScanByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTargetsAttachEveryKindOfScan(t *testing.T) {
	s, clock := openClockedStore(t)
	ctx := context.Background()
	at := clock.Now()
	url := "http://app.test"
	completeWith(t, s, clock, "d1", Scan{TargetPath: "/src/app"}, "", at)
	completeWith(t, s, clock, "d2", Scan{TargetPath: "/src/app"}, "", at.Add(time.Hour))
	completeWith(t, s, clock, "dast", Scan{TargetPath: "/src/app", TargetURL: &url, ScanTypes: []string{"dast"}}, "", at)
	completeWith(t, s, clock, "img", Scan{TargetPath: "/images/a.tar"}, `{"image":{"path":"/images/a.tar"}}`, at)
	completeWith(t, s, clock, "repo", Scan{TargetPath: "https://bob:s3cret@git.test/org/r.git"}, `{"repo":{"url":"https://bob:s3cret@git.test/org/r.git"}}`, at)
	completeWith(t, s, clock, "imp", Scan{TargetPath: "https://x-access-token:tok@git.test/org/r", Source: SourceImport}, "", at)
	pending, err := s.CreateScan(ctx, Scan{ID: "p", TargetPath: "/src/new", ScanTypes: []string{"code"}, StartedAt: at})
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct{ scan, kind, key, url string }{
		{"d1", "dir", "/src/app", ""},
		{"d2", "dir", "/src/app", ""},
		{"dast", "dir", "/src/app", url},
		{"img", "image", "/images/a.tar", ""},
		{"repo", "repo", "https://git.test/org/r.git", ""},
		{"imp", "import", "https://git.test/org/r", ""},
		{"p", "dir", "/src/new", ""},
	}
	ids := map[string]int64{}
	for _, c := range cases {
		tg, err := s.TargetOfScan(ctx, c.scan)
		if err != nil {
			t.Fatalf("%s: %v", c.scan, err)
		}
		if tg.Kind != c.kind || tg.Key != c.key || tg.URL != c.url {
			t.Errorf("%s: target %+v, want %s %s %s", c.scan, tg, c.kind, c.key, c.url)
		}
		if strings.Contains(tg.Name, "s3cret") || strings.Contains(tg.Name, "tok@") {
			t.Errorf("%s: credential in the target's name %q", c.scan, tg.Name)
		}
		ids[c.scan] = tg.ID
	}
	if ids["d1"] != ids["d2"] || ids["d1"] == ids["dast"] || ids["repo"] == ids["imp"] {
		t.Errorf("target identity: %v", ids)
	}
	d2, _ := s.ScanByID(ctx, "d2")
	app, err := s.TargetByID(ctx, ids["d1"])
	if err != nil || app.LatestSeq != d2.Seq {
		t.Errorf("latest of /src/app: %+v %v, want seq %d", app, err, d2.Seq)
	}
	if nw, _ := s.TargetByID(ctx, ids["p"]); nw.LatestSeq != 0 || pending.Seq == 0 {
		t.Errorf("a target with only a pending scan has latest %d", nw.LatestSeq)
	}
	prev, err := s.PreviousCompletedScanOfTarget(ctx, ids["d1"], "d2")
	if err != nil || prev.ID != "d1" {
		t.Errorf("previous of d2: %v %v", prev.ID, err)
	}
	if _, err := s.PreviousCompletedScanOfTarget(ctx, ids["d1"], "d1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("previous of the first scan: %v", err)
	}
	if latest, err := s.LatestCompletedScanOfTarget(ctx, ids["d1"]); err != nil || latest.ID != "d2" {
		t.Errorf("latest scan: %v %v", latest.ID, err)
	}
	// Deleting the latest scan makes the one before it the latest.
	if err := s.DeleteScan(ctx, "d2"); err != nil {
		t.Fatal(err)
	}
	d1, _ := s.ScanByID(ctx, "d1")
	if app, _ := s.TargetByID(ctx, ids["d1"]); app.LatestSeq != d1.Seq {
		t.Errorf("latest after deleting d2: %d, want %d", app.LatestSeq, d1.Seq)
	}
	got, err := s.SetTargetLabels(ctx, ids["img"], "web image", map[string]string{"team": "web", "env": "prod"})
	if err != nil || got.Name != "web image" || got.Labels["team"] != "web" || got.Key != "/images/a.tar" {
		t.Errorf("set labels: %+v %v", got, err)
	}
	if _, err := s.SetTargetLabels(ctx, 99999, "", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("labels of an unknown target: %v", err)
	}
}

func TestFindingAgeOutlivesDeletedScans(t *testing.T) {
	s, clock := openClockedStore(t)
	ctx := context.Background()
	t1 := clock.Now()
	t2, t3 := t1.Add(24*time.Hour), t1.Add(48*time.Hour)
	completeWith(t, s, clock, "s1", Scan{TargetPath: "/a"}, "", t1, "fpA", "fpB")
	completeWith(t, s, clock, "s2", Scan{TargetPath: "/a"}, "", t2, "fpB", "fpC")
	completeWith(t, s, clock, "other", Scan{TargetPath: "/b"}, "", t3, "fpB")
	tg, err := s.TargetOfScan(ctx, "s2")
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		ages, err := s.AgesOf(ctx, tg.ID, []string{"fpA", "fpB", "fpC", "fpZ"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][2]time.Time{"fpA": {t1, t1}, "fpB": {t1, t2}, "fpC": {t2, t2}}
		if len(ages) != len(want) {
			t.Fatalf("%s: ages %v", when, ages)
		}
		for fp, w := range want {
			if a := ages[fp]; !a.FirstSeen.Equal(w[0]) || !a.LastSeen.Equal(w[1]) {
				t.Errorf("%s: %s first %v last %v, want %v %v", when, fp, a.FirstSeen, a.LastSeen, w[0], w[1])
			}
		}
	}
	check("after ingest")
	if err := s.DeleteScan(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	check("after the first scan was deleted and purged")
	// Another target's sighting of fpB is its own.
	ob, _ := s.TargetOfScan(ctx, "other")
	if ages, _ := s.AgesOf(ctx, ob.ID, []string{"fpB"}); !ages["fpB"].FirstSeen.Equal(t3) {
		t.Errorf("fpB on /b: %+v", ages["fpB"])
	}
	// A crash between completing and aging leaves the scan unaged: Open's
	// recovery (and the maintenance loop) redo it.
	if _, err := s.w.Exec("DELETE FROM finding_age WHERE target_id = ?", tg.ID); err != nil {
		t.Fatal(err)
	}
	s2, _ := s.ScanByID(ctx, "s2")
	if err := s.MarkUnaged(ctx, s2.Seq); err != nil {
		t.Fatal(err)
	}
	if err := s.RecoverSightings(ctx); err != nil {
		t.Fatal(err)
	}
	ages, _ := s.AgesOf(ctx, tg.ID, []string{"fpB", "fpC"})
	if !ages["fpB"].FirstSeen.Equal(t2) || !ages["fpC"].LastSeen.Equal(t2) || len(ages) != 2 {
		t.Errorf("recovered ages: %+v", ages)
	}
}

// TestFindingAgeBatches: a scan with more fingerprints than one write
// transaction takes is aged completely.
func TestFindingAgeBatches(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	n := 12000
	sc := ingestAll(t, s, "big", syntheticScan("big", n))
	var aged int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM finding_age a JOIN scans s ON s.target_id = a.target_id WHERE s.id = 'big'").Scan(&aged); err != nil {
		t.Fatal(err)
	}
	var distinct int
	s.db.QueryRowContext(ctx, "SELECT count(DISTINCT fingerprint) FROM finding_fps WHERE scan_seq = ?", sc.Seq).Scan(&distinct)
	if aged != distinct || distinct < 10000 {
		t.Errorf("%d fingerprints aged of %d", aged, distinct)
	}
}

// preTargetsDB writes a database at the schema just before 0016 with
// the given scans (target, status, completion time, fingerprints), the
// way an older binary left it.
func preTargetsDB(t testing.TB, path string, fill func(db *sql.DB)) {
	t.Helper()
	db, err := sql.Open("sqlite", sqlbase.DSN(path, sqlbase.WriterCacheKiB))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version >= 16 {
			continue
		}
		if _, err := db.Exec(m.body); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		sum := sha256.Sum256([]byte(m.body))
		if _, err := db.Exec("INSERT INTO schema_migrations VALUES (?, ?, ?, '2026-01-01T00:00:00.000000Z')", m.version, m.name, hex.EncodeToString(sum[:])); err != nil {
			t.Fatal(err)
		}
	}
	fill(db)
}

func TestMigrationAttachesExistingScans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	preTargetsDB(t, path, func(db *sql.DB) {
		for i, q := range []string{
			`INSERT INTO scans (id, target_path, scan_types, status, started_at, completed_at) VALUES
				('a1', '/a', '["code"]', 'completed', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:01:00.000000Z'),
				('a2', '/a', '["code"]', 'completed', '2026-01-02T00:00:00.000000Z', '2026-01-02T00:01:00.000000Z'),
				('a3', '/a', '["code"]', 'failed', '2026-01-03T00:00:00.000000Z', '2026-01-03T00:01:00.000000Z'),
				('i1', '/img.tar', '["dependency"]', 'completed', '2026-01-02T00:00:00.000000Z', '2026-01-02T00:01:00.000000Z')`,
			`INSERT INTO scan_targets (scan_id, spec) VALUES ('i1', '{"image":{"path":"/img.tar"}}')`,
			`INSERT INTO finding_fps (scan_seq, fingerprint, ord, tagset, suppressed) VALUES
				(1, 'fpA', 0, 0, 0), (1, 'fpB', 1, 0, 0), (2, 'fpB', 0, 0, 0), (2, 'fpC', 1, 0, 0), (4, 'fpB', 0, 0, 0)`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("statement %d: %v", i, err)
			}
		}
	})
	s, err := Open(context.Background(), path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	a, err := s.TargetOfScan(ctx, "a3")
	if err != nil || a.Kind != "dir" || a.Key != "/a" {
		t.Fatalf("target of a3: %+v %v", a, err)
	}
	if a.LatestSeq != 2 {
		t.Errorf("latest of /a: %d, want 2 (a3 failed)", a.LatestSeq)
	}
	img, err := s.TargetOfScan(ctx, "i1")
	if err != nil || img.Kind != "image" || img.ID == a.ID {
		t.Errorf("target of i1: %+v %v", img, err)
	}
	ages, err := s.AgesOf(ctx, a.ID, []string{"fpA", "fpB", "fpC"})
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 1, 0, 0, time.UTC) }
	if !ages["fpB"].FirstSeen.Equal(day(1)) || !ages["fpB"].LastSeen.Equal(day(2)) || !ages["fpC"].FirstSeen.Equal(day(2)) || !ages["fpA"].LastSeen.Equal(day(1)) {
		t.Errorf("ages after migration: %+v", ages)
	}
	if ages, _ := s.AgesOf(ctx, img.ID, []string{"fpB"}); !ages["fpB"].FirstSeen.Equal(day(2)) {
		t.Errorf("fpB on the image: %+v", ages)
	}
	// A scan created after the migration joins the existing target.
	if _, err := s.CreateScan(ctx, Scan{ID: "a4", TargetPath: "/a", ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if a4, err := s.TargetOfScan(ctx, "a4"); err != nil || a4.ID != a.ID {
		t.Errorf("a4's target %+v %v, want %d", a4, err, a.ID)
	}
}
