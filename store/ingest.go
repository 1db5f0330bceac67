package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"scand/finding"
	"scand/store/findingjson"
	"scand/store/scans"
	"scand/store/scratch"
)

// Ingest stores a scan's findings without holding them in memory. The
// orchestrator hands over each finding as a scanner reports it (already
// prepared: finding.PrepareOne); Finish deduplicates per file, puts them in
// canonical order, writes them to the database in short transactions and
// flips the scan to completed in one last transaction. Until that flip the
// scan is running and its rows are invisible to every reader.
//
// How the work is split:
//  1. Add appends to a scratch database (store/scratch): no lock of the
//     daemon's database is taken while scanners run. A finding is stored
//     as columns, its description (the same long remediation text for
//     every finding of a rule) as a number into an in-memory dictionary.
//  2. Finish finds the files where Dedup can change anything (a fingerprint
//     seen twice, two scanners on one line, or two advisories of one
//     package version) and runs finding.Dedup on
//     those files only, one file at a time: Dedup never groups findings of
//     different files, so this equals Dedup over the whole scan.
//  3. The scratch's sorter returns everything in canonical order; ids are
//     assigned in that order and rows go to the database in chunks sized
//     to keep each write transaction near 60 ms.
//  4. The fingerprint index and the per-facet counts are written in
//     fingerprint order (appends, not random inserts), then the scan flips.
type Ingest struct {
	s    *Store
	scan Scan
	sc   *scratch.File
	// newID names each stored finding (store.NewID in production).
	newID func() string
	texts textDict

	mu    sync.Mutex
	batch []any
	// hot lists files where Dedup may change something, found while
	// adding: a fingerprint seen before, or a line another scanner hit.
	hot                   map[string]bool
	fps, locs, locScanner *scratch.SeenSet
	err                   error

	// A full batch is written to the scratch file outside mu, so the
	// other scanner workers go on adding meanwhile: writeMu keeps one
	// write at a time, and writing counts the batches taken and not yet
	// written (Mark, Rollback and Finish wait for them).
	writeMu sync.Mutex
	writing sync.WaitGroup
}

// ingestBatchRows is how many findings Add buffers before writing them to
// the scratch file.
const ingestBatchRows = 2000

// textDict numbers the long texts (descriptions) an ingest sees, so each
// is kept once. It is bounded: past textDictMax distinct texts the rest
// are stored inline, whatever a scanner reports.
type textDict struct {
	mu    sync.Mutex
	ids   map[string]int
	texts []string
}

const (
	textDictMax = 20000
	// textMinLen is the shortest text worth a dictionary entry.
	textMinLen = 48
)

// id returns the text's number (from 1), or 0 when it stays inline.
func (d *textDict) id(text string) int {
	if len(text) < textMinLen {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if id, ok := d.ids[text]; ok {
		return id
	}
	if len(d.texts) >= textDictMax {
		return 0
	}
	if d.ids == nil {
		d.ids = map[string]int{}
	}
	d.texts = append(d.texts, text)
	d.ids[text] = len(d.texts)
	return len(d.texts)
}

func (d *textDict) text(id int, inline string) string {
	if id == 0 {
		return inline
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.texts[id-1]
}

// BeginIngest starts storing the findings of a running scan.
func (s *Store) BeginIngest(ctx context.Context, scanID string) (*Ingest, error) {
	sc, err := s.scanForWrite(ctx, scanID)
	if err != nil {
		return nil, err
	}
	scr, err := scratch.Open(ctx, s.path)
	if err != nil {
		return nil, err
	}
	return &Ingest{s: s, scan: sc, sc: scr, newID: NewID, hot: map[string]bool{}, fps: scratch.NewSeenSet(), locs: scratch.NewSeenSet(), locScanner: scratch.NewSeenSet()}, nil
}

// scanForWrite loads a scan that is not deleted, through the writer.
func (s *Store) scanForWrite(ctx context.Context, id string) (Scan, error) {
	return scans.ScanRow(s.w.QueryRowContext(ctx, "SELECT "+scans.Columns+" FROM scans WHERE id = ? AND hidden = 0", id))
}

// Close releases the scratch file. It is safe after Finish and safe to
// call more than once.
func (in *Ingest) Close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.writing.Wait()
	in.writeMu.Lock()
	defer in.writeMu.Unlock()
	in.sc.Close()
	in.sc = nil
	if in.err == nil {
		in.err = errors.New("ingest closed")
	}
}

// scratchRow renders f as the values of one scratch row: sort key, file
// and record.
func (in *Ingest) scratchRow(f finding.Finding, snippet string) ([]any, error) {
	fj, _, err := findingjson.FieldsOf(f)
	if err != nil {
		return nil, err
	}
	fj.ID, fj.ScanID = "", ""
	r := scratch.Record{F: fj, Suppressed: finding.IsSuppressed(f), Snippet: snippet}
	if r.TextID = in.texts.id(fj.Description); r.TextID != 0 {
		r.F.Description = ""
	}
	key := scratch.CanonicalKey(make([]byte, 0, 128), f.Severity, f.Scanner, f.RuleID, f.FilePath, f.Line, f.Title, f.Fingerprint)
	return []any{key, f.FilePath, r.Encode(make([]byte, 0, 256))}, nil
}

// Add queues one prepared finding (PrepareOne: fingerprint, suppression,
// tags and scan_id set; no id yet). It may be called from several
// goroutines.
func (in *Ingest) Add(f finding.Finding) error {
	row, err := in.scratchRow(f, f.Snippet)
	if err != nil {
		return err
	}
	line := strconv.Itoa(f.Line)
	h := rowHashes{fp: in.fps.Hash(f.Fingerprint), loc: in.locs.Hash(f.FilePath, line), locScanner: in.locScanner.Hash(f.FilePath, line, f.Scanner)}
	for _, key := range finding.EquivalenceKeys(f) {
		h.eq = append(h.eq, [2]uint64{in.locs.Hash("\x00eq", key), in.locScanner.Hash("\x00eq", key, f.Scanner)})
	}
	if advKey := finding.AdvisoryKey(f); advKey != "" {
		h.adv, h.hasAdv = in.locs.Hash("\x00adv", advKey), true
	}
	rows, files, err := in.addLocked(f.FilePath, row, h)
	if err != nil || rows == nil {
		return err
	}
	return in.writeTaken(rows, files)
}

// rowHashes are a row's keys in the ingest's seen-sets, computed before
// its lock is taken.
type rowHashes struct {
	fp, loc, locScanner uint64
	eq                  [][2]uint64 // equivalence keys: in locs, in locScanner
	adv                 uint64
	hasAdv              bool
}

// addLocked records one row's hashes and queues the row; a full batch is
// taken and returned (rows nil: none), to be written outside the lock.
func (in *Ingest) addLocked(file string, row []any, h rowHashes) (rows, files []any, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return nil, nil, in.err
	}
	dupFingerprint := in.fps.TestAndAdd(h.fp)
	seenLine := in.locs.TestAndAdd(h.loc)
	seenByScanner := in.locScanner.TestAndAdd(h.locScanner)
	if dupFingerprint || (seenLine && !seenByScanner) {
		in.hot[file] = true
	}
	// Equivalent findings of two scanners (finding.EquivalenceKeys) may sit
	// on different lines of one file: a key another scanner has already
	// reported makes the file hot too.
	for _, eq := range h.eq {
		seenKey := in.locs.TestAndAdd(eq[0])
		seenKeyByScanner := in.locScanner.TestAndAdd(eq[1])
		if seenKey && !seenKeyByScanner {
			in.hot[file] = true
		}
	}
	// Two advisories of one package version in one file may be aliases
	// of each other (finding.Dedup merges them), whoever reported them.
	if h.hasAdv && in.locs.TestAndAdd(h.adv) {
		in.hot[file] = true
	}
	in.batch = append(in.batch, row...)
	if len(in.batch) < ingestBatchRows*3 {
		return nil, nil, nil
	}
	rows, files = in.takeBatchLocked()
	in.writing.Add(1)
	return rows, files, nil
}

// writeTaken writes a batch addLocked took; a failure fails the ingest.
func (in *Ingest) writeTaken(rows, files []any) error {
	err := func() error {
		defer in.writing.Done()
		return in.write(context.Background(), rows, files)
	}()
	in.mu.Lock()
	defer in.mu.Unlock()
	if err != nil && in.err == nil {
		in.err = err
	}
	return in.err
}

// takeBatchLocked hands over the rows and hot files added since the last
// write.
func (in *Ingest) takeBatchLocked() (rows, files []any) {
	rows = in.batch
	in.batch = make([]any, 0, ingestBatchRows*3)
	for f := range in.hot {
		files = append(files, f)
	}
	clear(in.hot)
	return rows, files
}

// flushLocked writes everything added so far, once the batches other
// workers are writing are written.
func (in *Ingest) flushLocked(ctx context.Context) error {
	in.writing.Wait()
	if len(in.batch) == 0 && len(in.hot) == 0 {
		return nil
	}
	rows, files := in.takeBatchLocked()
	return in.write(ctx, rows, files)
}

// write stores rows and hot files in the scratch file in one transaction.
func (in *Ingest) write(ctx context.Context, rows, files []any) error {
	in.writeMu.Lock()
	defer in.writeMu.Unlock()
	if in.sc == nil {
		return errors.New("ingest closed")
	}
	tx, err := in.sc.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertMany(ctx, tx, nil, "INSERT INTO raw (key, file_path, rec) VALUES ", 3, rows); err != nil {
		return fmt.Errorf("scratch insert: %w", err)
	}
	if err := insertMany(ctx, tx, nil, "INSERT OR IGNORE INTO hot (file_path) VALUES ", 1, files); err != nil {
		return err
	}
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
	err := in.sc.DB.QueryRow("SELECT max(rowid) FROM raw").Scan(&last)
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
	_, err := in.sc.DB.Exec("DELETE FROM raw WHERE rowid > ?", mark)
	return err
}

// IngestSummary is what a finished ingest stored.
type IngestSummary struct {
	Findings int
	// All counts every stored finding, Live the unsuppressed ones.
	All, Live  finding.SeverityCount
	Suppressed int
	RiskScore  int
	// MovedVerdicts counts the verdicts that followed moved findings.
	MovedVerdicts int
}

// IngestMeta is recorded on the scan when it flips to completed.
type IngestMeta struct {
	ScannersRun []string
	Skipped     []SkippedScanner
	// Links are the findings of moved files matched to their old selves
	// (linked or refused as ambiguous), recorded as the scan completes.
	Links []FindingLink
	// Coverage is what the scan examined; nil records none.
	Coverage *finding.ScanCoverage
	// BeforeComplete, when set, is waited for after the last finding row
	// is written and before the scan completes: work that runs beside
	// Finish (the scan's excerpts) and that the scan's first reader must
	// see.
	BeforeComplete func()
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
	tx, err := in.sc.DB.BeginTx(ctx, nil)
	if err != nil {
		return IngestSummary{}, err
	}
	defer tx.Rollback()
	w := in.s.newWriter(in.scan, writerIngest, tx)
	defer w.closeScratchStmts()
	// Rows are read and prepared here while the previous chunk is written
	// on a second goroutine.
	pipe := startPipeline(ctx, w.writeChunk)
	w.sink = func(_ context.Context, c writeChunk) error { return pipe.send(c) }
	q := "SELECT rec FROM raw"
	if hot {
		q = "SELECT key, rec FROM raw WHERE file_path NOT IN (SELECT file_path FROM hot) UNION ALL SELECT key, rec FROM deduped"
		q = "SELECT rec FROM (" + q + ") ORDER BY key"
	} else {
		q += " ORDER BY key"
	}
	if err := in.writeSorted(ctx, tx, q, w); err != nil {
		pipe.abort()
		return IngestSummary{}, err
	}
	if err := w.emit(ctx); err != nil {
		pipe.abort()
		return IngestSummary{}, err
	}
	w.sink = nil
	if err := pipe.close(); err != nil {
		return IngestSummary{}, err
	}
	sum := w.summary()
	sum.RiskScore = sum.Live.RiskScore()
	err = w.finish(ctx, flipMeta{run: meta.ScannersRun, skipped: meta.Skipped, risk: sum.RiskScore, links: meta.Links, moved: &sum.MovedVerdicts, coverage: meta.Coverage, before: meta.BeforeComplete})
	return sum, err
}

func (in *Ingest) writeSorted(ctx context.Context, tx *sql.Tx, q string, w *findingWriter) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	var rec sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&rec); err != nil {
			return err
		}
		r, err := in.record(rec)
		if err != nil {
			return err
		}
		if err := w.add(ctx, writeRow{f: r.F, suppressed: r.Suppressed, tags: string(r.F.ComplianceTags), newID: in.newID}); err != nil {
			return err
		}
	}
	return rows.Err()
}

// record decodes a scratch record and fills in what the ingest keeps
// apart (scan id, dictionary description).
func (in *Ingest) record(b []byte) (scratch.Record, error) {
	r, err := scratch.DecodeRecord(b)
	if err != nil {
		return r, err
	}
	r.F.ScanID = in.scan.ID
	r.F.Description = in.texts.text(r.TextID, r.F.Description)
	return r, nil
}

// dedupHotFiles runs finding.Dedup on every file where it can change
// something and reports whether there was any.
func (in *Ingest) dedupHotFiles(ctx context.Context) (bool, error) {
	db := in.sc.DB
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
	rows, err := tx.QueryContext(ctx, "SELECT rec FROM raw WHERE file_path IN (SELECT file_path FROM hot) ORDER BY file_path, rowid")
	if err != nil {
		return false, err
	}
	var group []finding.Finding
	var out []any
	stmts := map[string]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	flushGroup := func() error {
		if len(group) == 0 {
			return nil
		}
		for _, f := range finding.Dedup(group) {
			row, err := in.scratchRow(f, "")
			if err != nil {
				return err
			}
			out = append(out, row...)
			if len(out) >= ingestBatchRows*3 {
				if err := insertMany(ctx, tx, stmts, "INSERT INTO deduped (key, file_path, rec) VALUES ", 3, out); err != nil {
					return err
				}
				out = out[:0]
			}
		}
		group = group[:0]
		return nil
	}
	for rows.Next() {
		var rec []byte
		if err := rows.Scan(&rec); err != nil {
			rows.Close()
			return false, err
		}
		r, err := in.record(rec)
		if err != nil {
			rows.Close()
			return false, err
		}
		if len(group) > 0 && group[0].FilePath != r.F.FilePath {
			if err := flushGroup(); err != nil {
				rows.Close()
				return false, err
			}
		}
		f, err := r.F.Finding()
		if err != nil {
			rows.Close()
			return false, err
		}
		f.Snippet = r.Snippet
		group = append(group, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	if err := flushGroup(); err != nil {
		return false, err
	}
	if err := insertMany(ctx, tx, stmts, "INSERT INTO deduped (key, file_path, rec) VALUES ", 3, out); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// insertMany inserts rows of cols values each (args holds them back to
// back) with multi-row INSERT statements, which cost a fraction of one
// statement per row. The full-size statement is prepared once per
// transaction: stmts (nil: none) keeps it for a transaction that calls
// insertMany many times.
func insertMany(ctx context.Context, tx *sql.Tx, stmts map[string]*sql.Stmt, prefix string, cols int, args []any) error {
	const maxRows = 100
	if stmts == nil {
		stmts = map[string]*sql.Stmt{}
		defer func() {
			for _, st := range stmts {
				st.Close()
			}
		}()
	}
	for len(args) > 0 {
		n := min(len(args)/cols, maxRows)
		if n < maxRows {
			if _, err := tx.ExecContext(ctx, prefix+valuesList(n, cols), args[:n*cols]...); err != nil {
				return err
			}
		} else {
			st := stmts[prefix]
			if st == nil {
				var err error
				if st, err = tx.PrepareContext(ctx, prefix+valuesList(maxRows, cols)); err != nil {
					return err
				}
				stmts[prefix] = st
			}
			if _, err := st.ExecContext(ctx, args[:n*cols]...); err != nil {
				return err
			}
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
	scr, err := scratch.Open(ctx, s.path)
	if err != nil {
		return err
	}
	defer scr.Close()
	tx, err := scr.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w := s.newWriter(sc, writerComplete, tx)
	defer w.closeScratchStmts()
	for _, f := range r.Findings {
		f.ScanID = id
		fj, tags, err := findingjson.FieldsOf(f)
		if err != nil {
			return err
		}
		if err := w.add(ctx, writeRow{f: fj, suppressed: finding.IsSuppressed(f), tags: tags}); err != nil {
			return err
		}
	}
	counts := r.SeverityCounts
	if counts == nil {
		counts = countsMap(w.all)
	}
	return w.finish(ctx, flipMeta{run: r.ScannersRun, skipped: r.Skipped, risk: r.RiskScore, severityCounts: counts, coverage: r.Coverage})
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
