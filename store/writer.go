package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"scand/finding"
)

// findingWriter writes one scan's findings, given in their final order,
// to the database in short transactions and keeps the per-scan aggregates
// (blocks, rules, counts) on the way. Its memory is one chunk of rows plus
// one entry per distinct rule: never the scan.
type findingWriter struct {
	s    *Store
	scan Scan
	mode writerMode
	// sx is a scratch transaction that collects (fingerprint, ord) pairs,
	// written to finding_fps sorted by fingerprint at the end.
	sx *sql.Tx

	ord     int
	pending []any
	nRows   int
	fpBuf   []any
	chunk   int
	tagsets map[string]int64

	blocks    []findingBlock
	rules     map[[2]string]*ruleAgg
	ruleOrder [][2]string

	all, live  finding.SeverityCount
	suppressed int
}

type writerMode int

const (
	// writerIngest and writerComplete write a running scan and flip it
	// to completed; every chunk first checks the scan is still running.
	writerIngest writerMode = iota
	writerComplete
	// writerBackfill rewrites a completed scan's rows from the 0001
	// schema at startup, before anything reads them.
	writerBackfill
)

// writeRow is one finding as the writer needs it.
type writeRow struct {
	severity, scanner, scanType, ruleID, cwe, fingerprint string
	suppressed                                            bool
	tags                                                  string // JSON array
	// body is the canonical JSON. With newID set it starts with {"id":""
	// and the writer puts a fresh id there.
	body  []byte
	newID func() string
}

type findingBlock struct {
	first, last       int
	severity, scanner string
}

type ruleAgg struct {
	first int
	worst finding.Severity
	cwes  map[string]bool
	tags  map[string]bool
}

// Chunk sizes adapt so that one write transaction takes about
// writerTargetTx: long enough to amortize the commit, short enough that
// any other writer (a triage verdict, a comment) waits at most that long.
const (
	writerFirstChunk = 1000
	writerMinChunk   = 100
	writerMaxChunk   = 20000
	writerTargetTx   = 80 * time.Millisecond
	writerFindingCol = 8
	writerFpCol      = 7
)

func (s *Store) newWriter(sc Scan, mode writerMode) *findingWriter {
	return &findingWriter{s: s, scan: sc, mode: mode, chunk: writerFirstChunk, tagsets: map[string]int64{"[]": 0},
		rules: map[[2]string]*ruleAgg{}}
}

// k is the findings rowid of ord in this scan.
func (w *findingWriter) k(ord int) int64 { return findingKey(w.scan.Seq, ord) }

func findingKey(seq int64, ord int) int64 { return seq<<32 | int64(ord) }

var idPlaceholder = []byte(`{"id":""`)

func (w *findingWriter) add(ctx context.Context, r writeRow) error {
	body := r.body
	if r.newID != nil {
		if !bytes.HasPrefix(body, idPlaceholder) {
			return errors.New("finding body does not start with an empty id")
		}
		id, err := json.Marshal(r.newID())
		if err != nil {
			return err
		}
		nb := make([]byte, 0, len(body)+len(id))
		nb = append(nb, `{"id":`...)
		nb = append(nb, id...)
		body = append(nb, body[len(idPlaceholder):]...)
	}
	tagset, err := w.tagset(ctx, r.tags)
	if err != nil {
		return err
	}
	ord := w.ord
	w.ord++
	if n := len(w.blocks); n == 0 || w.blocks[n-1].severity != r.severity || w.blocks[n-1].scanner != r.scanner {
		w.blocks = append(w.blocks, findingBlock{first: ord, last: ord, severity: r.severity, scanner: r.scanner})
	} else {
		w.blocks[n-1].last = ord
	}
	key := [2]string{r.scanner, r.ruleID}
	ra := w.rules[key]
	if ra == nil {
		ra = &ruleAgg{first: ord, worst: finding.Severity(r.severity), cwes: map[string]bool{}, tags: map[string]bool{}}
		w.rules[key] = ra
		w.ruleOrder = append(w.ruleOrder, key)
	}
	if finding.Severity(r.severity).Rank() > ra.worst.Rank() {
		ra.worst = finding.Severity(r.severity)
	}
	if r.cwe != "" {
		ra.cwes[r.cwe] = true
	}
	if r.tags != "[]" {
		var tags []string
		if err := json.Unmarshal([]byte(r.tags), &tags); err != nil {
			return err
		}
		for _, t := range tags {
			ra.tags[t] = true
		}
	}
	sev := finding.Severity(r.severity)
	w.all.Add(sev, 1)
	sup := 0
	if r.suppressed {
		sup = 1
		w.suppressed++
	} else {
		w.live.Add(sev, 1)
	}
	w.pending = append(w.pending, w.k(ord), r.severity, r.scanner, r.scanType, r.fingerprint, sup, tagset, body)
	w.nRows++
	w.fpBuf = append(w.fpBuf, r.fingerprint, ord, r.severity, r.scanner, r.scanType, sup, tagset)
	if len(w.fpBuf) >= 500*writerFpCol {
		if err := insertMany(ctx, w.sx, "INSERT INTO fps (fingerprint, ord, severity, scanner, scan_type, suppressed, tagset) VALUES ", writerFpCol, w.fpBuf); err != nil {
			return err
		}
		w.fpBuf = w.fpBuf[:0]
	}
	if w.nRows >= w.chunk {
		return w.flush(ctx)
	}
	return nil
}

// tagset returns the id of a compliance-tag set, creating it when new.
func (w *findingWriter) tagset(ctx context.Context, tags string) (int64, error) {
	if id, ok := w.tagsets[tags]; ok {
		return id, nil
	}
	var id int64
	err := w.s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, "SELECT id FROM tagsets WHERE tags = ?", tags).Scan(&id)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var list []string
		if err := json.Unmarshal([]byte(tags), &list); err != nil {
			return fmt.Errorf("compliance tags: %w", err)
		}
		if err := tx.QueryRowContext(ctx, "INSERT INTO tagsets (tags) VALUES (?) RETURNING id", tags).Scan(&id); err != nil {
			return err
		}
		for _, t := range list {
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO tagset_tags (tag, tagset) VALUES (?, ?)", t, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	w.tagsets[tags] = id
	return id, nil
}

// writeTx runs fn in a write transaction after checking the scan may still
// be written, and adapts the chunk size to how long it took.
func (w *findingWriter) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	start := time.Now()
	err := w.s.inTx(ctx, func(tx *sql.Tx) error {
		if w.mode != writerBackfill {
			var status string
			var hidden int
			err := tx.QueryRowContext(ctx, "SELECT status, hidden FROM scans WHERE seq = ?", w.scan.Seq).Scan(&status, &hidden)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrConflict
			}
			if err != nil {
				return err
			}
			if status != StatusRunning || hidden != 0 {
				return ErrConflict
			}
		}
		return fn(tx)
	})
	switch d := time.Since(start); {
	case d < writerTargetTx/2 && w.chunk < writerMaxChunk:
		w.chunk *= 2
	case d > writerTargetTx*2 && w.chunk > writerMinChunk:
		w.chunk /= 2
	}
	return err
}

func (w *findingWriter) flush(ctx context.Context) error {
	if w.nRows == 0 {
		return nil
	}
	err := w.writeTx(ctx, func(tx *sql.Tx) error {
		return insertMany(ctx, tx, "INSERT INTO findings (k, severity, scanner, scan_type, fingerprint, suppressed, tagset, body) VALUES ",
			writerFindingCol, w.pending)
	})
	w.pending, w.nRows = w.pending[:0], 0
	return err
}

func (w *findingWriter) summary() IngestSummary {
	return IngestSummary{Findings: w.ord, All: w.all, Live: w.live, Suppressed: w.suppressed}
}

// flipMeta is what the final transaction records on the scan.
type flipMeta struct {
	run     []string
	skipped []SkippedScanner
	risk    int
	// severityCounts overrides the counts of every stored finding (a
	// CompleteScan caller's own); nil uses the writer's.
	severityCounts map[string]int
}

func countsMap(c finding.SeverityCount) map[string]int {
	return map[string]int{"critical": c.Critical, "high": c.High, "medium": c.Medium, "low": c.Low, "info": c.Info}
}

// finish writes the last rows, the fingerprint index and counts, then the
// scan's aggregates and (except in backfill) flips it to completed.
func (w *findingWriter) finish(ctx context.Context, m flipMeta) error {
	if err := w.flush(ctx); err != nil {
		return err
	}
	if err := insertMany(ctx, w.sx, "INSERT INTO fps (fingerprint, ord, severity, scanner, scan_type, suppressed, tagset) VALUES ", writerFpCol, w.fpBuf); err != nil {
		return err
	}
	w.fpBuf = nil
	if err := w.writeFingerprints(ctx); err != nil {
		return err
	}
	if m.run == nil {
		m.run = []string{}
	}
	if m.skipped == nil {
		m.skipped = []SkippedScanner{}
	}
	counts := m.severityCounts
	if counts == nil {
		counts = countsMap(w.all)
	}
	return w.writeTx(ctx, func(tx *sql.Tx) error {
		if w.mode == writerBackfill {
			if _, err := tx.ExecContext(ctx, `UPDATE scans SET live_counts = ?, suppressed_count = ?,
				severity_counts = CASE WHEN severity_counts = '{}' THEN ? ELSE severity_counts END WHERE seq = ?`,
				mustJSON(countsMap(w.live)), w.suppressed, mustJSON(counts), w.scan.Seq); err != nil {
				return err
			}
		} else {
			res, err := tx.ExecContext(ctx, `UPDATE scans SET status = 'completed', completed_at = ?, scanners_run = ?, scanners_skipped = ?,
				findings_count = ?, risk_score = ?, severity_counts = ?, live_counts = ?, suppressed_count = ?
				WHERE seq = ? AND status = 'running' AND hidden = 0`,
				formatTime(w.s.now()), mustJSON(m.run), mustJSON(m.skipped), w.ord, m.risk, mustJSON(counts),
				mustJSON(countsMap(w.live)), w.suppressed, w.scan.Seq)
			if err != nil {
				return err
			}
			if err := expectOne(res); err != nil {
				return err
			}
		}
		var blocks []any
		for _, b := range w.blocks {
			blocks = append(blocks, w.scan.Seq, b.first, b.last, b.severity, b.scanner)
		}
		if err := insertMany(ctx, tx, "INSERT INTO finding_blocks (scan_seq, first_ord, last_ord, severity, scanner) VALUES ", 5, blocks); err != nil {
			return err
		}
		var rules []any
		for _, key := range w.ruleOrder {
			ra := w.rules[key]
			rules = append(rules, w.scan.Seq, key[0], key[1], ra.first, string(ra.worst), mustJSON(sortedKeys(ra.cwes)), mustJSON(sortedKeys(ra.tags)))
		}
		return insertMany(ctx, tx, "INSERT INTO finding_rules (scan_seq, scanner, rule_id, first_ord, worst, cwes, tags) VALUES ", 7, rules)
	})
}

// facetKey is one row of finding_counts without the scan and the count.
type facetKey struct {
	severity, scanner, scanType string
	suppressed                  int
	triage                      string
	tagset                      int64
}

// writeFingerprints copies the collected (fingerprint, ord) pairs to
// finding_fps in fingerprint order and counts the rows per facet, taking
// each fingerprint's triage verdict as it is at that moment: a verdict set
// later moves the count (SetTriage), one set earlier is read here.
func (w *findingWriter) writeFingerprints(ctx context.Context) error {
	rows, err := w.sx.QueryContext(ctx, "SELECT fingerprint, ord, severity, scanner, scan_type, suppressed, tagset FROM fps ORDER BY fingerprint, ord")
	if err != nil {
		return err
	}
	defer rows.Close()
	type fpRow struct {
		fp                          string
		ord                         int
		severity, scanner, scanType string
		suppressed                  int
		tagset                      int64
	}
	var batch []fpRow
	write := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.writeTx(ctx, func(tx *sql.Tx) error {
			args := make([]any, 0, len(batch)*5)
			for _, r := range batch {
				args = append(args, w.scan.Seq, r.fp, r.ord, r.tagset, r.suppressed)
			}
			if err := insertMany(ctx, tx, "INSERT INTO finding_fps (scan_seq, fingerprint, ord, tagset, suppressed) VALUES ", 5, args); err != nil {
				return err
			}
			verdicts := map[string]string{}
			tr, err := tx.QueryContext(ctx, "SELECT fingerprint, status FROM triage_states WHERE fingerprint >= ? AND fingerprint <= ?",
				batch[0].fp, batch[len(batch)-1].fp)
			if err != nil {
				return err
			}
			for tr.Next() {
				var fp, st string
				if err := tr.Scan(&fp, &st); err != nil {
					tr.Close()
					return err
				}
				verdicts[fp] = st
			}
			tr.Close()
			if err := tr.Err(); err != nil {
				return err
			}
			counts := map[facetKey]int{}
			for _, r := range batch {
				t := verdicts[r.fp]
				if t == "" {
					t = "new"
				}
				counts[facetKey{r.severity, r.scanner, r.scanType, r.suppressed, t, r.tagset}]++
			}
			return addFacetCounts(ctx, tx, w.scan.Seq, counts)
		})
		batch = batch[:0]
		return err
	}
	for rows.Next() {
		var r fpRow
		if err := rows.Scan(&r.fp, &r.ord, &r.severity, &r.scanner, &r.scanType, &r.suppressed, &r.tagset); err != nil {
			return err
		}
		batch = append(batch, r)
		if len(batch) >= w.chunk*2 {
			if err := write(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return write()
}

// addFacetCounts adds counts (negative ones subtract) to finding_counts.
func addFacetCounts(ctx context.Context, tx *sql.Tx, seq int64, counts map[facetKey]int) error {
	for k, n := range counts {
		if n == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO finding_counts (scan_seq, severity, scanner, scan_type, suppressed, triage, tagset, n)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scan_seq, severity, scanner, scan_type, suppressed, triage, tagset)
			DO UPDATE SET n = n + excluded.n`, seq, k.severity, k.scanner, k.scanType, k.suppressed, k.triage, k.tagset, n); err != nil {
			return err
		}
	}
	return nil
}
