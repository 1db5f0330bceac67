package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/finding"
	"scand/store/audit"
	"scand/store/findings"
	"scand/store/sqlbase"
)

func ingestTestStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "ingest.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func runningScan(t *testing.T, s *Store, id string) Scan {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateScan(ctx, Scan{ID: id, TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	sc, err := s.ScanByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// runningIngest begins the ingest of a new running scan id, closed when
// the test ends.
func runningIngest(t *testing.T, s *Store, id string) *Ingest {
	t.Helper()
	runningScan(t, s, id)
	in, err := s.BeginIngest(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	return in
}

// fixtureRaw loads testdata/finding/raw_findings.json (the scan the
// finding package's golden file was made from), snippets included.
func fixtureRaw(t *testing.T) []finding.Finding {
	t.Helper()
	b, err := os.ReadFile("../testdata/finding/raw_findings.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx []struct {
		finding.Finding
		RawSnippet string `json:"snippet"`
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	out := make([]finding.Finding, len(fx))
	for i, f := range fx {
		out[i] = f.Finding
		out[i].Snippet = f.RawSnippet
	}
	return out
}

func fixtureLines(root string) finding.LineSource {
	var mu sync.Mutex
	cache := map[string][]string{}
	return func(path string, line int) (string, string, bool) {
		mu.Lock()
		defer mu.Unlock()
		lines, ok := cache[path]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
			if err != nil {
				return "", "", false
			}
			lines = strings.Split(string(b), "\n")
			cache[path] = lines
		}
		if line < 1 || line > len(lines) {
			return "", "", false
		}
		prev := ""
		if line > 1 {
			prev = lines[line-2]
		}
		return lines[line-1], prev, true
	}
}

func sequentialNames() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("finding-%03d", n)
	}
}

// TestIngestMatchesPrepareGolden is the parity proof of the streaming
// ingest: findings added one by one, in any order and from several
// goroutines, are stored exactly as finding.Prepare (dedup over the whole
// slice, canonical order, ids in that order) produces them.
func TestIngestMatchesPrepareGolden(t *testing.T) {
	want, err := os.ReadFile("../testdata/finding/prepared.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	raw := fixtureRaw(t)
	src := fixtureLines("../testdata/finding/src")
	for seed := int64(0); seed < 4; seed++ {
		t.Run(fmt.Sprintf("order %d", seed), func(t *testing.T) {
			s := ingestTestStore(t)
			ctx := context.Background()
			in := runningIngest(t, s, "scan-1")
			in.newID = sequentialNames()
			order := rand.New(rand.NewSource(seed)).Perm(len(raw))
			var wg sync.WaitGroup
			for w := 0; w < 3; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := w; i < len(order); i += 3 {
						if err := in.Add(finding.PrepareOne("scan-1", raw[order[i]], src)); err != nil {
							t.Error(err)
						}
					}
				}(w)
			}
			wg.Wait()
			sum, err := in.Finish(ctx, IngestMeta{ScannersRun: []string{"secrets"}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.FindingsByScan(ctx, "scan-1", FindingQuery{})
			if err != nil {
				t.Fatal(err)
			}
			fs := make([]finding.Finding, len(got))
			for i, g := range got {
				fs[i] = g.Finding
			}
			b, err := finding.MarshalFindings(fs)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			json.Indent(&pretty, b, "", "  ")
			pretty.WriteByte('\n')
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Fatalf("ingested findings differ from prepared.golden.json:\n%s", pretty.String())
			}
			prepared := finding.Prepare("scan-1", raw, src, nil)
			if sum.Findings != len(prepared) || sum.RiskScore != finding.RiskScore(prepared) {
				t.Errorf("summary %+v, want %d findings, risk %d", sum, len(prepared), finding.RiskScore(prepared))
			}
			sc, err := s.ScanByID(ctx, "scan-1")
			if err != nil {
				t.Fatal(err)
			}
			suppressed := 0
			for _, f := range prepared {
				if finding.IsSuppressed(f) {
					suppressed++
				}
			}
			if sc.Status != StatusCompleted || sc.FindingsCount != len(prepared) || sc.Suppressed != suppressed || sc.CompletedAt == nil {
				t.Errorf("scan after ingest: %+v", sc)
			}
		})
	}
}

// syntheticScan makes n prepared findings over several scanners,
// severities, tag sets, suppressions and files.
func syntheticScan(scanID string, n int) []finding.Finding {
	scanners := []string{"bandit", "gosec", "secrets"}
	cwes := []finding.CWE{"CWE-798", "CWE-89", "CWE-79", "", "CWE-22"}
	out := make([]finding.Finding, 0, n)
	for i := 0; i < n; i++ {
		f := finding.Finding{
			Scanner: scanners[i%3], ScanType: "code", Severity: finding.Severities[(i/7)%5],
			Title: fmt.Sprintf("rule %d", i%11), Description: "d", FilePath: fmt.Sprintf("dir%d/f%d.go", i%5, i%37),
			Line: i + 1, RuleID: fmt.Sprintf("R%d", i%11), CWE: cwes[i%5], Snippet: fmt.Sprintf("x%d := y", i),
		}
		if i%9 == 0 {
			f.Snippet += " // scand:ignore"
		}
		if i%50 == 0 {
			f.ScanType = "dependency"
		}
		out = append(out, finding.PrepareOne(scanID, f, nil))
	}
	return out
}

func ingestAll(t *testing.T, s *Store, id string, fs []finding.Finding) Scan {
	t.Helper()
	ctx := context.Background()
	in := runningIngest(t, s, id)
	for _, f := range fs {
		if err := in.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.Finish(ctx, IngestMeta{}); err != nil {
		t.Fatal(err)
	}
	sc, err := s.ScanByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func collect(t *testing.T, s *Store, sc Scan, q FindingQuery) []FindingWithState {
	t.Helper()
	var out []FindingWithState
	for row, err := range s.FindingRows(context.Background(), sc, q) {
		if err != nil {
			t.Fatal(err)
		}
		fw, err := row.Decode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fw)
	}
	return out
}

func fps(fs []FindingWithState) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Fingerprint[:8])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestFindingQueries checks every filter, keyset paging, offsets and the
// stored counts against filtering the full list in memory.
func TestFindingQueries(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	sc := ingestAll(t, s, "scan-q", syntheticScan("scan-q", 1500))
	all := collect(t, s, sc, FindingQuery{})
	if len(all) != 1500 {
		t.Fatalf("%d findings stored, want 1500", len(all))
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1].Finding, all[i].Finding
		if a.Severity.Rank() < b.Severity.Rank() {
			t.Fatalf("not in canonical order at %d", i)
		}
	}
	// Verdicts on a few fingerprints, one moved twice.
	verdict := map[string]string{}
	for i, st := range []string{"false_positive", "accepted_risk", "fixed", "triaged", "false_positive", "new"} {
		fp := all[i*97].Fingerprint
		if _, err := s.SetTriage(ctx, TriageState{Fingerprint: fp, Status: st}); err != nil {
			t.Fatal(err)
		}
		verdict[fp] = st
	}
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: all[97].Fingerprint, Status: "wont_fix"}); err != nil {
		t.Fatal(err)
	}
	verdict[all[97].Fingerprint] = "wont_fix"
	yes, no := true, false
	queries := []FindingQuery{
		{},
		{Severities: []string{"high"}},
		{Severities: []string{"critical", "info"}, Scanners: []string{"gosec"}},
		{ScanTypes: []string{"dependency"}},
		{Compliance: []string{"OWASP-A03"}},
		{Compliance: []string{"OWASP-A03", "OWASP-A07"}, Severities: []string{"low"}},
		{Suppressed: &yes},
		{Suppressed: &no, Scanners: []string{"secrets"}},
		{Triage: []string{"false_positive", "wont_fix"}},
		{Triage: []string{"new"}},
		{Compliance: []string{"NO-SUCH-TAG"}},
		{Severities: []string{"medium"}, Suppressed: &yes, ScanTypes: []string{"code"}},
	}
	match := func(q FindingQuery, f FindingWithState) bool {
		in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
		st := verdict[f.Fingerprint]
		if st == "" {
			st = "new"
		}
		tagOK := len(q.Compliance) == 0
		for _, tag := range f.ComplianceTags {
			tagOK = tagOK || slices.Contains(q.Compliance, tag)
		}
		return in(q.Severities, string(f.Severity)) && in(q.Scanners, f.Scanner) && in(q.ScanTypes, f.ScanType) && in(q.Triage, st) &&
			tagOK && (q.Suppressed == nil || *q.Suppressed == finding.IsSuppressed(f.Finding))
	}
	for qi, q := range queries {
		var want []FindingWithState
		for _, f := range all {
			if match(q, f) {
				want = append(want, f)
			}
		}
		got := collect(t, s, sc, q)
		if fps(got) != fps(want) {
			t.Errorf("query %d %+v: got %d findings, want %d", qi, q, len(got), len(want))
			continue
		}
		if n, err := s.CountFindings(ctx, sc, q); err != nil || n != len(want) {
			t.Errorf("query %d: CountFindings = %d, %v; want %d", qi, n, err, len(want))
		}
		// Keyset pages of 7 rebuild the list.
		var paged []FindingWithState
		page := q
		page.Limit = 7
		for {
			rows := collect(t, s, sc, page)
			paged = append(paged, rows...)
			if len(rows) < 7 {
				break
			}
			var last int
			for row, err := range s.FindingRows(ctx, sc, page) {
				if err != nil {
					t.Fatal(err)
				}
				last = row.Ord
			}
			page.From = last + 1
		}
		if fps(paged) != fps(want) {
			t.Errorf("query %d: keyset pages give %d findings, want %d", qi, len(paged), len(want))
		}
		for _, off := range []int{0, 1, 13, len(want) - 1, len(want), len(want) + 5} {
			if off < 0 {
				continue
			}
			page := q
			page.Offset, page.Limit = off, 5
			got := collect(t, s, sc, page)
			end := min(len(want), off+5)
			var exp []FindingWithState
			if off < len(want) {
				exp = want[off:end]
			}
			if fps(got) != fps(exp) {
				t.Errorf("query %d offset %d: got %s want %s", qi, off, fps(got), fps(exp))
			}
		}
	}
}

func TestCompareStreams(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	base := syntheticScan("a", 600)
	a := ingestAll(t, s, "a", base)
	// b drops every 5th finding and adds 40 of its own.
	var next []finding.Finding
	for i, f := range syntheticScan("b", 600) {
		if i%5 != 0 {
			next = append(next, f)
		}
	}
	for _, f := range syntheticScan("b", 640)[600:] {
		next = append(next, f)
	}
	b := ingestAll(t, s, "b", next)
	got := map[CompareSet][]string{}
	for row, err := range s.Compare(ctx, a, b) {
		if err != nil {
			t.Fatal(err)
		}
		got[row.Set] = append(got[row.Set], row.Fingerprint)
	}
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, f := range collect(t, s, a, FindingQuery{}) {
		inA[f.Fingerprint] = true
	}
	var want [3][]string
	for _, f := range collect(t, s, b, FindingQuery{}) {
		inB[f.Fingerprint] = true
		if inA[f.Fingerprint] {
			want[CompareUnchanged] = append(want[CompareUnchanged], f.Fingerprint)
		} else {
			want[CompareNew] = append(want[CompareNew], f.Fingerprint)
		}
	}
	for _, f := range collect(t, s, a, FindingQuery{}) {
		if !inB[f.Fingerprint] {
			want[CompareFixed] = append(want[CompareFixed], f.Fingerprint)
		}
	}
	for set := CompareNew; set <= CompareUnchanged; set++ {
		if strings.Join(got[set], ",") != strings.Join(want[set], ",") {
			t.Errorf("set %d: got %d, want %d", set, len(got[set]), len(want[set]))
		}
	}
	if len(want[CompareNew]) != 40 || len(want[CompareFixed]) != 120 {
		t.Errorf("fixture: new %d fixed %d", len(want[CompareNew]), len(want[CompareFixed]))
	}
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestDeletePurgesAndReclaimsSpace: a deleted scan disappears at once, its
// rows go in the background, and the file shrinks back.
func TestDeletePurgesAndReclaimsSpace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "del.db")
	s, err := Open(context.Background(), path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	runningScan(t, s, "keep")
	if err := s.CompleteScan(ctx, "keep", ScanResult{}); err != nil {
		t.Fatal(err)
	}
	s.Reclaim(ctx)
	before := fileSize(t, path)
	sc := ingestAll(t, s, "big", syntheticScan("big", 5000))
	s.Reclaim(ctx) // checkpoint: the rows move from the WAL into the file
	if grown := fileSize(t, path); grown < before+1<<20 {
		t.Fatalf("file grew from %d to %d only", before, grown)
	}
	if err := s.DeleteScan(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ScanByID(ctx, "big"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted scan still readable: %v", err)
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	s.db.QueryRow("SELECT count(*) FROM findings WHERE k BETWEEN ? AND ?", findings.Key(sc.Seq, 0), findings.Key(sc.Seq, 1<<32-1)).Scan(&n)
	var left int
	s.db.QueryRow("SELECT count(*) FROM scans WHERE id = 'big'").Scan(&left)
	if n != 0 || left != 0 {
		t.Fatalf("%d findings and %d scan rows left after purge", n, left)
	}
	// The target's finding age outlives its scans by design (issue 25);
	// this test is about the space of the findings themselves.
	var aged int
	s.db.QueryRow("SELECT count(*) FROM finding_age").Scan(&aged)
	if aged != 5000 {
		t.Fatalf("%d fingerprints aged, want the 5000 of the deleted scan", aged)
	}
	if _, err := s.w.Exec("DELETE FROM finding_age"); err != nil {
		t.Fatal(err)
	}
	if err := s.Reclaim(ctx); err != nil {
		t.Fatal(err)
	}
	if after := fileSize(t, path); float64(after) > float64(before)*1.1+8192 {
		t.Errorf("file %d bytes after delete and vacuum, %d before the scan", after, before)
	}
	stats, err := s.ScanCountsByStatus(ctx)
	if err != nil || stats[StatusCompleted] != 1 {
		t.Errorf("status counts after delete: %v %v", stats, err)
	}
}

// TestCancelledIngestLeavesNothing: a scan cancelled while its findings are
// being written never shows them, and the purger removes what was written.
func TestCancelledIngestLeavesNothing(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	in := runningIngest(t, s, "c")
	for _, f := range syntheticScan("c", 3000) {
		in.Add(f)
	}
	// Cancel after the first chunk has been written.
	in.newID = func() string {
		var n int
		s.db.QueryRow("SELECT count(*) FROM findings").Scan(&n)
		if n > 0 {
			if _, err := s.CancelScan(ctx, "c"); err != nil && !errors.Is(err, ErrConflict) {
				t.Error(err)
			}
		}
		return NewID()
	}
	if _, err := in.Finish(ctx, IngestMeta{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("Finish after cancel: %v, want ErrConflict", err)
	}
	sc, err := s.ScanByID(ctx, "c")
	if err != nil || sc.Status != StatusCancelled {
		t.Fatalf("scan %+v %v", sc, err)
	}
	if rows := collect(t, s, sc, FindingQuery{}); len(rows) != 0 {
		t.Fatalf("cancelled scan shows %d findings", len(rows))
	}
	if err := s.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	s.db.QueryRow("SELECT count(*) FROM findings").Scan(&n)
	if n != 0 {
		t.Fatalf("%d rows of the cancelled scan left", n)
	}
}

// TestBackfillFrom0001 opens a database written by the 0001 schema: the
// findings move to the new tables, byte for byte, with their aggregates.
func TestBackfillFrom0001(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", sqlbase.DSN(path, sqlbase.WriterCacheKiB))
	if err != nil {
		t.Fatal(err)
	}
	body, err := migrationFiles.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	fs := finding.Prepare("old-1", fixtureRaw(t), fixtureLines("../testdata/finding/src"), sequentialNames())
	stmts := []string{string(body),
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`,
		`INSERT INTO schema_migrations VALUES (1, '0001_init.sql', '` + hex.EncodeToString(sum[:]) + `', '2026-01-01T00:00:00.000000Z')`,
		`INSERT INTO scans (id, target_path, scan_types, status, started_at, completed_at, findings_count, risk_score, severity_counts)
			VALUES ('old-1', '/t', '["code"]', 'completed', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:01:00.000000Z', ` +
			fmt.Sprint(len(fs)) + `, 42, '{"critical":9}')`,
	}
	for _, q := range stmts {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range fs {
		b, _ := json.Marshal(f)
		if _, err := old.Exec(`INSERT INTO findings (id, scan_id, ord, scanner, scan_type, severity, file_path, line, rule_id, fingerprint, body)
			VALUES (?, 'old-1', ?, ?, ?, ?, ?, ?, ?, ?, ?)`, f.ID, i, f.Scanner, f.ScanType, string(f.Severity), f.FilePath, f.Line, f.RuleID, f.Fingerprint, string(b)); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	s, err := Open(context.Background(), path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	sc, err := s.ScanByID(ctx, "old-1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.AppendFindingsJSON(ctx, nil, "old-1", FindingQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	want = append(want, '[')
	for i, f := range fs {
		if i > 0 {
			want = append(want, ',')
		}
		b, _ := json.Marshal(f)
		want = append(want, b[:len(b)-1]...)
		want = append(want, `,"state":null}`...)
	}
	want = append(want, ']')
	if !bytes.Equal(got, want) {
		t.Fatalf("backfilled findings differ:\n%s\n%s", got, want)
	}
	if sc.RiskScore != 42 || sc.SeverityCounts["critical"] != 9 || sc.Suppressed == 0 {
		t.Errorf("scan after backfill: risk %d counts %v suppressed %d", sc.RiskScore, sc.SeverityCounts, sc.Suppressed)
	}
	if n, _ := s.CountFindings(ctx, sc, FindingQuery{Compliance: []string{"OWASP-A07"}}); n == 0 {
		t.Error("no OWASP-A07 finding after backfill")
	}
	// The backfilled findings are aged on their target (issue 25).
	var aged, distinct int
	s.db.QueryRow("SELECT count(*) FROM finding_age WHERE first_seen = '2026-01-01T00:01:00.000000Z'").Scan(&aged)
	s.db.QueryRow("SELECT count(DISTINCT fingerprint) FROM finding_fps WHERE scan_seq = ?", sc.Seq).Scan(&distinct)
	if aged == 0 || aged != distinct {
		t.Errorf("%d fingerprints aged after backfill, want %d", aged, distinct)
	}
	cur, err := s.CurrentFindingCounts(ctx)
	if err != nil || cur.Targets != 1 {
		t.Errorf("current findings after backfill: %+v %v", cur, err)
	}
	var tables int
	s.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'findings_v1'").Scan(&tables)
	if tables != 0 {
		t.Error("findings_v1 was not dropped")
	}
	var av int
	s.db.QueryRow("PRAGMA auto_vacuum").Scan(&av)
	if av != 2 {
		t.Errorf("auto_vacuum = %d after opening an old file, want 2 (incremental)", av)
	}
}

// TestFinishWaitsBeforeCompleting: work run beside Finish (the scan's
// excerpts) is waited for after every finding row is stored and before
// the scan completes, so a reader never sees the scan completed without
// it.
func TestFinishWaitsBeforeCompleting(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	in := runningIngest(t, s, "scan-1")
	raw := fixtureRaw(t)
	src := fixtureLines("../testdata/finding/src")
	for _, r := range raw {
		if err := in.Add(finding.PrepareOne("scan-1", r, src)); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	wait := func() {
		calls++
		var status string
		var rows int
		if err := s.db.QueryRow("SELECT status, (SELECT count(*) FROM findings WHERE k >> 32 = seq) FROM scans WHERE id = 'scan-1'").Scan(&status, &rows); err != nil {
			t.Fatal(err)
		}
		if status != StatusRunning || rows == 0 {
			t.Errorf("waited with the scan %s and %d rows stored, want running with its rows", status, rows)
		}
	}
	sum, err := in.Finish(ctx, IngestMeta{ScannersRun: []string{"secrets"}, BeforeComplete: wait})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || sum.Findings == 0 {
		t.Fatalf("BeforeComplete ran %d times, %d findings stored", calls, sum.Findings)
	}
	sc, err := s.ScanByID(ctx, "scan-1")
	if err != nil || sc.Status != StatusCompleted {
		t.Fatalf("scan after Finish: %+v %v", sc.Status, err)
	}
}

// TestIngestConcurrentBatches: workers adding at once while full batches
// are written outside the ingest's lock store what finding.Prepare makes
// of the same findings, duplicates (hot files) included, and a Rollback
// to a Mark takes back exactly the findings added after it.
func TestIngestConcurrentBatches(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	in := runningIngest(t, s, "cc")
	kept := syntheticScan("cc", 5*ingestBatchRows+17)
	// Every 13th finding again: the same fingerprint twice makes its file
	// hot, and Dedup keeps one.
	var all []finding.Finding
	for i, f := range kept {
		all = append(all, f)
		if i%13 == 0 {
			all = append(all, f)
		}
	}
	add := func(fs []finding.Finding) {
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(fs); i += 4 {
					if err := in.Add(fs[i]); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	add(all)
	mark, err := in.Mark()
	if err != nil {
		t.Fatal(err)
	}
	// A scanner that fails after two batches: its findings go.
	add(syntheticScan("cc", 3*ingestBatchRows+5)[:2*ingestBatchRows+3])
	if err := in.Rollback(mark); err != nil {
		t.Fatal(err)
	}
	sum, err := in.Finish(ctx, IngestMeta{ScannersRun: []string{"secrets"}})
	if err != nil {
		t.Fatal(err)
	}
	want := finding.Prepare("cc", kept, nil, nil)
	got, err := s.FindingsByScan(ctx, "cc", FindingQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Findings != len(want) || len(got) != len(want) {
		t.Fatalf("stored %d findings (summary %d), want %d", len(got), sum.Findings, len(want))
	}
	for i := range want {
		if got[i].Fingerprint != want[i].Fingerprint || got[i].Line != want[i].Line {
			t.Fatalf("finding %d: %s line %d, want %s line %d", i, got[i].Fingerprint, got[i].Line, want[i].Fingerprint, want[i].Line)
		}
	}
}

// TestVEXVerdictsSetAsScanCompletes: the planner sees the scan still
// running with its rows stored, and its verdicts (a reviewer's kept) are
// set by the transaction that completes the scan, with their audit
// record and the facet counts moved, so no reader sees the scan
// completed without them.
func TestVEXVerdictsSetAsScanCompletes(t *testing.T) {
	s := ingestTestStore(t)
	ctx := context.Background()
	in := runningIngest(t, s, "scan-1")
	src := fixtureLines("../testdata/finding/src")
	for _, r := range fixtureRaw(t) {
		if err := in.Add(finding.PrepareOne("scan-1", r, src)); err != nil {
			t.Fatal(err)
		}
	}
	var fps []string
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "reviewed-fp", Status: "wont_fix", UpdatedBy: "alice"}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	s.SetVEXPlanner(func(ctx context.Context, sc Scan) VEXVerdicts {
		calls++
		var status string
		if err := s.db.QueryRow("SELECT status FROM scans WHERE seq = ?", sc.Seq).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if status != StatusRunning {
			t.Errorf("planned with the scan %s, want running", status)
		}
		rows, err := s.db.Query("SELECT DISTINCT fingerprint FROM findings WHERE k >> 32 = ? ORDER BY fingerprint LIMIT 2", sc.Seq)
		fps, err = sqlbase.Collect(rows, err, func(r sqlbase.Row) (string, error) {
			var fp string
			return fp, r.Scan(&fp)
		})
		if err != nil || len(fps) != 2 {
			t.Fatalf("the scan's rows while planning: %v %v", fps, err)
		}
		return VEXVerdicts{
			Groups: []VerdictGroup{{Fingerprints: append(fps, "reviewed-fp"), OverVEXOnly: true,
				State: TriageState{Status: "false_positive", UpdatedBy: "vex:Vendor", Note: "not affected"}}},
			Statements: []int64{0},
			Audit:      &audit.Record{Actor: audit.System("vex"), Action: "finding.vex_applied", ObjectType: "scan", ObjectID: sc.ID},
		}
	})
	if _, err := in.Finish(ctx, IngestMeta{ScannersRun: []string{"secrets"}}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("planner ran %d times", calls)
	}
	if sc, err := s.ScanByID(ctx, "scan-1"); err != nil || sc.Status != StatusCompleted {
		t.Fatalf("scan after Finish: %+v %v", sc.Status, err)
	}
	for _, fp := range fps {
		var status, by string
		if err := s.db.QueryRow("SELECT status, updated_by FROM triage_states WHERE fingerprint = ?", fp).Scan(&status, &by); err != nil || status != "false_positive" || by != "vex:Vendor" {
			t.Errorf("%s after completion: %q by %q (%v)", fp, status, by, err)
		}
	}
	var kept string
	if err := s.db.QueryRow("SELECT status FROM triage_states WHERE fingerprint = 'reviewed-fp'").Scan(&kept); err != nil || kept != "wont_fix" {
		t.Errorf("the reviewer's verdict became %q (%v)", kept, err)
	}
	var records, counted int
	if err := s.db.QueryRow("SELECT count(*) FROM audit_log WHERE action = 'finding.vex_applied' AND object_id = 'scan-1'").Scan(&records); err != nil || records != 1 {
		t.Errorf("%d finding.vex_applied records (%v), want 1", records, err)
	}
	if err := s.db.QueryRow("SELECT coalesce(sum(n), 0) FROM finding_counts c JOIN scans s ON s.seq = c.scan_seq WHERE s.id = 'scan-1' AND c.triage = 'false_positive'").Scan(&counted); err != nil || counted < 2 {
		t.Errorf("%d findings counted false_positive (%v), want at least 2", counted, err)
	}
}
