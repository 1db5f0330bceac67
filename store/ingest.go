package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"scand/finding"
)

// Ingest stores a scan's findings without holding them in memory. The
// orchestrator hands over each finding as a scanner reports it (already
// prepared: finding.PrepareOne); Finish deduplicates per file, puts them in
// canonical order, writes them to the database in short transactions and
// flips the scan to completed in one last transaction. Until that flip the
// scan is running and its rows are invisible to every reader.
//
// How the work is split:
//  1. Add appends to a scratch database (see scratch.go): no lock of the
//     daemon's database is taken while scanners run.
//  2. Finish finds the files where Dedup can change anything (a fingerprint
//     seen twice, or two scanners on one line) and runs finding.Dedup on
//     those files only, one file at a time: Dedup never groups findings of
//     different files, so this equals Dedup over the whole scan.
//  3. The scratch's sorter returns everything in canonical order; ids are
//     assigned in that order and rows go to the database in chunks sized
//     to keep each write transaction near 100 ms.
//  4. The fingerprint index and the per-facet counts are written in
//     fingerprint order (appends, not random inserts), then the scan flips.
type Ingest struct {
	s    *Store
	scan Scan
	sc   *scratch
	// newID names each stored finding (store.NewID in production).
	newID func() string

	mu       sync.Mutex
	batch    []any
	rows     int
	scanners map[string]bool
	err      error
}

// ingestBatchRows is how many findings Add buffers before writing them to
// the scratch file in one statement group.
const ingestBatchRows = 500

const scratchColumns = `rank, severity, scanner, rule_id, file_path, line, title, fingerprint, scan_type, cwe, suppressed, tags, body, snippet`

const scratchSchema = `
CREATE TABLE raw (rank INTEGER NOT NULL, severity TEXT NOT NULL, scanner TEXT NOT NULL, rule_id TEXT NOT NULL,
	file_path TEXT NOT NULL, line INTEGER NOT NULL, title TEXT NOT NULL, fingerprint TEXT NOT NULL,
	scan_type TEXT NOT NULL, cwe TEXT NOT NULL, suppressed INTEGER NOT NULL, tags TEXT NOT NULL,
	body BLOB NOT NULL, snippet TEXT NOT NULL);
CREATE TABLE deduped (rank INTEGER NOT NULL, severity TEXT NOT NULL, scanner TEXT NOT NULL, rule_id TEXT NOT NULL,
	file_path TEXT NOT NULL, line INTEGER NOT NULL, title TEXT NOT NULL, fingerprint TEXT NOT NULL,
	scan_type TEXT NOT NULL, cwe TEXT NOT NULL, suppressed INTEGER NOT NULL, tags TEXT NOT NULL,
	body BLOB NOT NULL, snippet TEXT NOT NULL);
CREATE TABLE hot (file_path TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE fps (fingerprint TEXT NOT NULL, ord INTEGER NOT NULL, severity TEXT NOT NULL, scanner TEXT NOT NULL,
	scan_type TEXT NOT NULL, suppressed INTEGER NOT NULL, tagset INTEGER NOT NULL);`

// BeginIngest starts storing the findings of a running scan.
func (s *Store) BeginIngest(ctx context.Context, scanID string) (*Ingest, error) {
	sc, err := s.scanForWrite(ctx, scanID)
	if err != nil {
		return nil, err
	}
	scr, err := s.openScratch()
	if err != nil {
		return nil, err
	}
	if _, err := scr.db.ExecContext(ctx, scratchSchema); err != nil {
		scr.close()
		return nil, fmt.Errorf("scratch schema: %w", err)
	}
	return &Ingest{s: s, scan: sc, sc: scr, newID: NewID, scanners: map[string]bool{}}, nil
}

// scanForWrite loads a scan including hidden ones' absence check.
func (s *Store) scanForWrite(ctx context.Context, id string) (Scan, error) {
	return scanScan(s.w.QueryRowContext(ctx, "SELECT "+scanColumns+" FROM scans WHERE id = ? AND hidden = 0", id))
}

// Close releases the scratch file. It is safe after Finish and safe to
// call more than once.
func (in *Ingest) Close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.sc.close()
	in.sc = nil
	if in.err == nil {
		in.err = errors.New("ingest closed")
	}
}

// Add queues one prepared finding (PrepareOne: fingerprint, suppression,
// tags and scan_id set; no id yet). It may be called from several
// goroutines.
func (in *Ingest) Add(f finding.Finding) error {
	f.ID = ""
	f.ScanID = in.scan.ID
	f.ComplianceTags = nonNilStrings(f.ComplianceTags)
	body, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tags, err := json.Marshal(f.ComplianceTags)
	if err != nil {
		return err
	}
	suppressed := 0
	if finding.IsSuppressed(f) {
		suppressed = 1
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return in.err
	}
	in.scanners[f.Scanner] = true
	in.batch = append(in.batch, f.Severity.Rank(), string(f.Severity), f.Scanner, f.RuleID, f.FilePath, f.Line, f.Title,
		f.Fingerprint, f.ScanType, string(f.CWE), suppressed, string(tags), body, f.Snippet)
	in.rows++
	if len(in.batch) >= ingestBatchRows*14 {
		in.err = in.flushLocked(context.Background())
	}
	return in.err
}

func (in *Ingest) flushLocked(ctx context.Context) error {
	if len(in.batch) == 0 {
		return nil
	}
	if in.sc == nil {
		return errors.New("ingest closed")
	}
	tx, err := in.sc.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertMany(ctx, tx, "INSERT INTO raw ("+scratchColumns+") VALUES ", 14, in.batch); err != nil {
		return fmt.Errorf("scratch insert: %w", err)
	}
	in.batch = in.batch[:0]
	return tx.Commit()
}

// Mark returns a position in the findings added so far; Rollback takes
// back everything added after it (a scanner that failed half-way).
func (in *Ingest) Mark() (int64, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return 0, in.err
	}
	if err := in.flushLocked(context.Background()); err != nil {
		in.err = err
		return 0, err
	}
	var last sql.NullInt64
	err := in.sc.db.QueryRow("SELECT max(rowid) FROM raw").Scan(&last)
	return last.Int64, err
}

// Rollback drops the findings added after mark.
func (in *Ingest) Rollback(mark int64) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return in.err
	}
	if err := in.flushLocked(context.Background()); err != nil {
		in.err = err
		return err
	}
	_, err := in.sc.db.Exec("DELETE FROM raw WHERE rowid > ?", mark)
	return err
}

// IngestSummary is what a finished ingest stored.
type IngestSummary struct {
	Findings int
	// All counts every stored finding, Live the unsuppressed ones.
	All, Live  finding.SeverityCount
	Suppressed int
	RiskScore  int
}

// IngestMeta is recorded on the scan when it flips to completed.
type IngestMeta struct {
	ScannersRun []string
	Skipped     []SkippedScanner
}

// Finish stores everything added and marks the scan completed. It returns
// ErrConflict when the scan stopped running meanwhile (cancelled); the rows
// written so far are then purged in the background.
func (in *Ingest) Finish(ctx context.Context, meta IngestMeta) (IngestSummary, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return IngestSummary{}, in.err
	}
	in.err = errors.New("ingest finished")
	if err := in.flushLocked(ctx); err != nil {
		return IngestSummary{}, err
	}
	hot, err := in.dedupHotFiles(ctx)
	if err != nil {
		return IngestSummary{}, err
	}
	w := in.s.newWriter(in.scan, writerIngest)
	tx, err := in.sc.db.BeginTx(ctx, nil)
	if err != nil {
		return IngestSummary{}, err
	}
	defer tx.Rollback()
	w.sx = tx
	q := "SELECT " + scratchColumns + " FROM raw"
	if hot {
		q = "SELECT " + scratchColumns + " FROM raw WHERE file_path NOT IN (SELECT file_path FROM hot) UNION ALL SELECT " + scratchColumns + " FROM deduped"
	}
	rows, err := tx.QueryContext(ctx, q+" ORDER BY rank DESC, severity, scanner, rule_id, file_path, line, title, fingerprint")
	if err != nil {
		return IngestSummary{}, err
	}
	for rows.Next() {
		var r writeRow
		var rank, line, suppressed int
		var file, title, snippet string
		if err := rows.Scan(&rank, &r.severity, &r.scanner, &r.ruleID, &file, &line, &title, &r.fingerprint, &r.scanType,
			&r.cwe, &suppressed, &r.tags, &r.body, &snippet); err != nil {
			rows.Close()
			return IngestSummary{}, err
		}
		r.suppressed = suppressed == 1
		r.newID = in.newID
		if err := w.add(ctx, r); err != nil {
			rows.Close()
			return IngestSummary{}, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return IngestSummary{}, err
	}
	sum := w.summary()
	sum.RiskScore = sum.Live.RiskScore()
	err = w.finish(ctx, flipMeta{run: meta.ScannersRun, skipped: meta.Skipped, risk: sum.RiskScore})
	return sum, err
}

// dedupHotFiles runs finding.Dedup on every file where it can change
// something and reports whether there was any.
func (in *Ingest) dedupHotFiles(ctx context.Context) (bool, error) {
	db := in.sc.db
	// Same fingerprint twice (same scanner, rule, file, context): collapse.
	if _, err := db.ExecContext(ctx, `INSERT OR IGNORE INTO hot SELECT file_path FROM raw GROUP BY fingerprint HAVING count(*) > 1`); err != nil {
		return false, err
	}
	// Two scanners on one line of one file: a cross-scanner merge may apply.
	if len(in.scanners) > 1 {
		if _, err := db.ExecContext(ctx, `INSERT OR IGNORE INTO hot SELECT file_path FROM raw GROUP BY file_path, line
			HAVING min(scanner) <> max(scanner)`); err != nil {
			return false, err
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM hot").Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT file_path, body, snippet FROM raw WHERE file_path IN (SELECT file_path FROM hot) ORDER BY file_path, rowid`)
	if err != nil {
		return false, err
	}
	var group []finding.Finding
	var groupFile string
	var out []any
	flushGroup := func() error {
		if len(group) == 0 {
			return nil
		}
		for _, f := range finding.Dedup(group) {
			f.ComplianceTags = nonNilStrings(f.ComplianceTags)
			body, err := json.Marshal(f)
			if err != nil {
				return err
			}
			tags, err := json.Marshal(f.ComplianceTags)
			if err != nil {
				return err
			}
			suppressed := 0
			if finding.IsSuppressed(f) {
				suppressed = 1
			}
			out = append(out, f.Severity.Rank(), string(f.Severity), f.Scanner, f.RuleID, f.FilePath, f.Line, f.Title,
				f.Fingerprint, f.ScanType, string(f.CWE), suppressed, string(tags), body, "")
			if len(out) >= ingestBatchRows*14 {
				if err := insertMany(ctx, tx, "INSERT INTO deduped ("+scratchColumns+") VALUES ", 14, out); err != nil {
					return err
				}
				out = out[:0]
			}
		}
		group = group[:0]
		return nil
	}
	for rows.Next() {
		var file, snippet string
		var body []byte
		if err := rows.Scan(&file, &body, &snippet); err != nil {
			rows.Close()
			return false, err
		}
		if file != groupFile {
			if err := flushGroup(); err != nil {
				rows.Close()
				return false, err
			}
			groupFile = file
		}
		f, err := decodeStoredFinding(body)
		if err != nil {
			rows.Close()
			return false, err
		}
		f.Snippet = snippet
		group = append(group, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	if err := flushGroup(); err != nil {
		return false, err
	}
	if err := insertMany(ctx, tx, "INSERT INTO deduped ("+scratchColumns+") VALUES ", 14, out); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// decodeStoredFinding reads a finding back from its canonical JSON.
// Numbers stay json.Number, so re-encoding gives the same digits.
func decodeStoredFinding(body []byte) (finding.Finding, error) {
	var f finding.Finding
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("decode stored finding: %w", err)
	}
	return f, nil
}

// insertMany inserts rows of cols values each (args holds them back to
// back) with multi-row INSERT statements, which cost a fraction of one
// statement per row.
func insertMany(ctx context.Context, tx *sql.Tx, prefix string, cols int, args []any) error {
	const maxRows = 100
	var full string
	for len(args) > 0 {
		n := min(len(args)/cols, maxRows)
		var q string
		if n == maxRows && full != "" {
			q = full
		} else {
			q = prefix + valuesList(n, cols)
			if n == maxRows {
				full = q
			}
		}
		if _, err := tx.ExecContext(ctx, q, args[:n*cols]...); err != nil {
			return err
		}
		args = args[n*cols:]
	}
	return nil
}

func valuesList(rows, cols int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	var b strings.Builder
	b.Grow(rows * (len(one) + 1))
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(one)
	}
	return b.String()
}

// CompleteScan stores findings that are already deduplicated, ordered and
// named (the order and ids are kept as given) and marks the scan completed,
// through the same chunked writer as an Ingest. It suits callers whose
// findings fit in memory anyway (tests, imports of bounded size).
// ErrConflict when the scan is no longer running (cancelled).
func (s *Store) CompleteScan(ctx context.Context, id string, r ScanResult) error {
	sc, err := s.scanForWrite(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return ErrConflict
	}
	if err != nil {
		return err
	}
	if sc.Status != StatusRunning {
		return ErrConflict
	}
	scr, err := s.openScratch()
	if err != nil {
		return err
	}
	defer scr.close()
	if _, err := scr.db.ExecContext(ctx, scratchSchema); err != nil {
		return err
	}
	tx, err := scr.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w := s.newWriter(sc, writerComplete)
	w.sx = tx
	for _, f := range r.Findings {
		f.ScanID = id
		f.ComplianceTags = nonNilStrings(f.ComplianceTags)
		body, err := json.Marshal(f)
		if err != nil {
			return err
		}
		tags, err := json.Marshal(f.ComplianceTags)
		if err != nil {
			return err
		}
		if err := w.add(ctx, writeRow{severity: string(f.Severity), scanner: f.Scanner, scanType: f.ScanType, ruleID: f.RuleID,
			cwe: string(f.CWE), fingerprint: f.Fingerprint, suppressed: finding.IsSuppressed(f), tags: string(tags), body: body}); err != nil {
			return err
		}
	}
	counts := r.SeverityCounts
	if counts == nil {
		a := w.all
		counts = map[string]int{"critical": a.Critical, "high": a.High, "medium": a.Medium, "low": a.Low, "info": a.Info}
	}
	return w.finish(ctx, flipMeta{run: r.ScannersRun, skipped: r.Skipped, risk: r.RiskScore, severityCounts: counts})
}

func nonNilStrings(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// sortedKeys returns a set's members in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
