package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"scand/finding"
	"scand/store/audit"
	"scand/store/findingjson"
	"scand/store/findings"
	"scand/store/scratch"
	"scand/store/sqlbase"
)

// findingWriter writes one scan's findings, given in their final order,
// to the database in short transactions and keeps the per-scan aggregates
// (blocks, rules, counts) on the way. Its memory is a chunk or two of rows
// plus one entry per distinct rule and description: never the scan.
//
// add prepares rows on the caller's goroutine; full chunks go to a sink
// that writes them. An Ingest runs the sink on a second goroutine, so
// reading the scratch file and writing the database use both cores.
type findingWriter struct {
	s    *Store
	scan Scan
	mode writerMode
	// sx is a scratch transaction that collects (fingerprint, ord) pairs,
	// written to finding_fps sorted by fingerprint at the end.
	sx      *sql.Tx
	sxStmts map[string]*sql.Stmt
	// sink writes a full chunk; nil writes it at once.
	sink func(ctx context.Context, c writeChunk) error

	ord     int
	pending writeChunk
	fpBuf   []any
	chunk   atomic.Int64
	tagsets map[string]int64
	// tagLists are parsed tag sets, for the rule summaries.
	tagLists map[string][]string
	// texts numbers this scan's long descriptions (finding_texts), so each
	// is stored once instead of in every row of its rule.
	texts map[string]int64

	blocks    []findingBlock
	rules     map[[2]string]*ruleAgg
	ruleOrder [][2]string

	all, live  finding.SeverityCount
	suppressed int
}

// writeChunk is one write transaction's worth of rows.
type writeChunk struct {
	rows  []any // writerFindingCol values per row
	n     int
	texts []any // new finding_texts rows
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
	// f holds the finding's JSON fields; with newID set its ID is empty
	// and the writer names it.
	f          findingjson.Fields
	suppressed bool
	tags       string // JSON array of f's compliance tags
	// body, when set, is stored verbatim instead of encoding f (backfill
	// keeps old rows byte for byte).
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
	writerMaxChunk   = 10000
	writerTargetTx   = 60 * time.Millisecond
	writerFindingCol = 9
)

func (s *Store) newWriter(sc Scan, mode writerMode, sx *sql.Tx) *findingWriter {
	w := &findingWriter{s: s, scan: sc, mode: mode, sx: sx, tagsets: map[string]int64{"[]": 0},
		rules: map[[2]string]*ruleAgg{}, sxStmts: map[string]*sql.Stmt{}, tagLists: map[string][]string{"[]": nil},
		texts: map[string]int64{}}
	w.chunk.Store(writerFirstChunk)
	return w
}

func (w *findingWriter) closeScratchStmts() {
	for _, st := range w.sxStmts {
		st.Close()
	}
}

func (w *findingWriter) add(ctx context.Context, r writeRow) error {
	body := r.body
	var textID any // NULL: the body is complete
	if body == nil {
		f := r.f
		if r.newID != nil {
			f.ID = r.newID()
		}
		if len(f.Description) >= textMinLen && (len(w.texts) < textDictMax || w.texts[f.Description] != 0) {
			id := w.texts[f.Description]
			if id == 0 {
				id = int64(len(w.texts) + 1)
				w.texts[f.Description] = id
				w.pending.texts = append(w.pending.texts, w.scan.Seq, id, string(finding.AppendJSONString(nil, f.Description)))
			}
			textID, f.Description = id, ""
		}
		body = findingjson.Append(make([]byte, 0, 384+len(f.Description)), &f)
	}
	tagset, err := w.tagset(ctx, r.tags)
	if err != nil {
		return err
	}
	ord := w.ord
	w.ord++
	sev, scanner := r.f.Severity, r.f.Scanner
	if n := len(w.blocks); n == 0 || w.blocks[n-1].severity != sev || w.blocks[n-1].scanner != scanner {
		w.blocks = append(w.blocks, findingBlock{first: ord, last: ord, severity: sev, scanner: scanner})
	} else {
		w.blocks[n-1].last = ord
	}
	key := [2]string{scanner, r.f.RuleID}
	ra := w.rules[key]
	if ra == nil {
		ra = &ruleAgg{first: ord, worst: finding.Severity(sev), cwes: map[string]bool{}, tags: map[string]bool{}}
		w.rules[key] = ra
		w.ruleOrder = append(w.ruleOrder, key)
	}
	if finding.Severity(sev).Rank() > ra.worst.Rank() {
		ra.worst = finding.Severity(sev)
	}
	if r.f.CWE != "" {
		ra.cwes[string(r.f.CWE)] = true
	}
	tags, ok := w.tagLists[r.tags]
	if !ok {
		if err := json.Unmarshal([]byte(r.tags), &tags); err != nil {
			return err
		}
		w.tagLists[r.tags] = tags
	}
	for _, t := range tags {
		ra.tags[t] = true
	}
	w.all.Add(finding.Severity(sev), 1)
	sup := 0
	if r.suppressed {
		sup = 1
		w.suppressed++
	} else {
		w.live.Add(finding.Severity(sev), 1)
	}
	w.pending.rows = append(w.pending.rows, findings.Key(w.scan.Seq, ord), sev, scanner, r.f.ScanType, r.f.Fingerprint, sup, tagset, textID, body)
	w.pending.n++
	w.fpBuf = append(w.fpBuf, r.f.Fingerprint, scratch.FPRecord(nil, ord, tagset, sup, sev, scanner, r.f.ScanType))
	if len(w.fpBuf) >= 1000*2 {
		if err := insertMany(ctx, w.sx, w.sxStmts, "INSERT INTO fps (fingerprint, rec) VALUES ", 2, w.fpBuf); err != nil {
			return err
		}
		w.fpBuf = w.fpBuf[:0]
	}
	if int64(w.pending.n) >= w.chunk.Load() {
		return w.emit(ctx)
	}
	return nil
}

// emit hands the pending chunk to the sink.
func (w *findingWriter) emit(ctx context.Context) error {
	if w.pending.n == 0 && len(w.pending.texts) == 0 {
		return nil
	}
	c := w.pending
	w.pending = writeChunk{rows: make([]any, 0, len(c.rows))}
	if w.sink != nil {
		return w.sink(ctx, c)
	}
	return w.writeChunk(ctx, c)
}

// writeChunk writes one chunk in one transaction.
func (w *findingWriter) writeChunk(ctx context.Context, c writeChunk) error {
	return w.writeTx(ctx, func(tx *sql.Tx) error {
		if err := insertMany(ctx, tx, nil, "INSERT INTO finding_texts (scan_seq, id, text) VALUES ", 3, c.texts); err != nil {
			return err
		}
		return insertMany(ctx, tx, nil, "INSERT INTO findings (k, severity, scanner, scan_type, fingerprint, suppressed, tagset, text_id, body) VALUES ",
			writerFindingCol, c.rows)
	})
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
	chunk := w.chunk.Load()
	switch d := time.Since(start); {
	case d < writerTargetTx/2 && chunk < writerMaxChunk:
		w.chunk.Store(min(chunk*2, writerMaxChunk))
	case d > writerTargetTx*2 && chunk > writerMinChunk:
		w.chunk.Store(chunk / 2)
	}
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
	// links are the moved findings found during the scan; their verdicts
	// follow in the transaction that completes the scan.
	links []FindingLink
	// moved receives how many verdicts followed.
	moved *int
	// coverage is what the scan examined; nil records none.
	coverage *finding.ScanCoverage
	// before is waited for right before the transaction that completes
	// the scan (IngestMeta.BeforeComplete).
	before func()
}

func countsMap(c finding.SeverityCount) map[string]int {
	return map[string]int{"critical": c.Critical, "high": c.High, "medium": c.Medium, "low": c.Low, "info": c.Info}
}

// finish writes the last rows (after the sink has written the others),
// the fingerprint index and counts, then the scan's aggregates and
// (except in backfill) flips it to completed.
func (w *findingWriter) finish(ctx context.Context, m flipMeta) error {
	if err := w.emit(ctx); err != nil {
		return err
	}
	if err := insertMany(ctx, w.sx, w.sxStmts, "INSERT INTO fps (fingerprint, rec) VALUES ", 2, w.fpBuf); err != nil {
		return err
	}
	w.fpBuf = nil
	if err := w.writeFingerprints(ctx); err != nil {
		return err
	}
	if m.before != nil {
		m.before()
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
	coverage := ""
	if m.coverage != nil {
		coverage = sqlbase.MustJSON(m.coverage)
	}
	var vexPlan VEXVerdicts
	if w.mode != writerBackfill && w.s.planVEX != nil {
		vexPlan = w.s.planVEX(ctx, w.scan)
	}
	var linkRecs []audit.Record
	var vexRec *audit.Record
	err := w.writeTx(ctx, func(tx *sql.Tx) error {
		linkRecs, vexRec = nil, nil
		if w.mode == writerBackfill {
			if _, err := tx.ExecContext(ctx, `UPDATE scans SET live_counts = ?, suppressed_count = ?,
				severity_counts = CASE WHEN severity_counts = '{}' THEN ? ELSE severity_counts END WHERE seq = ?`,
				sqlbase.MustJSON(countsMap(w.live)), w.suppressed, sqlbase.MustJSON(counts), w.scan.Seq); err != nil {
				return err
			}
		} else {
			res, err := tx.ExecContext(ctx, `UPDATE scans SET status = 'completed', completed_at = ?, scanners_run = ?, scanners_skipped = ?,
				findings_count = ?, risk_score = ?, severity_counts = ?, live_counts = ?, suppressed_count = ?, coverage = ?
				WHERE seq = ? AND status = 'running' AND hidden = 0`,
				sqlbase.FormatTime(w.s.now()), sqlbase.MustJSON(m.run), sqlbase.MustJSON(m.skipped), w.ord, m.risk, sqlbase.MustJSON(counts),
				sqlbase.MustJSON(countsMap(w.live)), w.suppressed, coverage, w.scan.Seq)
			if err != nil {
				return err
			}
			if err := sqlbase.ExpectOne(res); err != nil {
				return err
			}
			recs, moved, err := w.s.linkMovedTx(ctx, tx, w.scan.ID, m.links)
			if err != nil {
				return err
			}
			linkRecs = recs
			if m.moved != nil {
				*m.moved = moved
			}
			// After the moved verdicts, which a VEX statement never
			// overrides.
			if _, vexRec, err = w.s.setVEXVerdictsTx(ctx, tx, vexPlan); err != nil {
				return err
			}
		}
		var blocks []any
		for _, b := range w.blocks {
			blocks = append(blocks, w.scan.Seq, b.first, b.last, b.severity, b.scanner)
		}
		if err := insertMany(ctx, tx, nil, "INSERT INTO finding_blocks (scan_seq, first_ord, last_ord, severity, scanner) VALUES ", 5, blocks); err != nil {
			return err
		}
		var rules []any
		for _, key := range w.ruleOrder {
			ra := w.rules[key]
			rules = append(rules, w.scan.Seq, key[0], key[1], ra.first, string(ra.worst), sqlbase.MustJSON(sortedKeys(ra.cwes)), sqlbase.MustJSON(sortedKeys(ra.tags)))
		}
		return insertMany(ctx, tx, nil, "INSERT INTO finding_rules (scan_seq, scanner, rule_id, first_ord, worst, cwes, tags) VALUES ", 7, rules)
	})
	if err != nil || w.mode == writerBackfill {
		return err
	}
	for _, r := range linkRecs {
		w.s.Emit(r)
	}
	if vexRec != nil {
		w.s.Emit(*vexRec)
	}
	// The scan is completed: its findings' age on the target follows in
	// short transactions of their own. A failure here does not undo the
	// scan; the scan stays unaged and the maintenance loop (and Open)
	// redo it, and until then readers count this scan among the sightings
	// (reportdata.SeenOf).
	_ = w.s.RecordSightings(ctx, w.scan.Seq)
	return nil
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
// later moves the count (SetTriage), one set earlier is read here. Reading
// the scratch file and writing the database overlap, on two goroutines.
func (w *findingWriter) writeFingerprints(ctx context.Context) error {
	rows, err := w.sx.QueryContext(ctx, "SELECT fingerprint, rec FROM fps ORDER BY fingerprint")
	if err != nil {
		return err
	}
	defer rows.Close()
	pipe := startPipeline(ctx, func(ctx context.Context, batch []scratch.FPRow) error {
		return w.writeTx(ctx, func(tx *sql.Tx) error {
			args := make([]any, 0, len(batch)*5)
			for _, r := range batch {
				args = append(args, w.scan.Seq, r.FP, r.Ord, r.Tagset, r.Suppressed)
			}
			if err := insertMany(ctx, tx, nil, "INSERT INTO finding_fps (scan_seq, fingerprint, ord, tagset, suppressed) VALUES ", 5, args); err != nil {
				return err
			}
			verdicts := map[string]string{}
			tr, err := tx.QueryContext(ctx, "SELECT fingerprint, status FROM triage_states WHERE fingerprint >= ? AND fingerprint <= ?",
				batch[0].FP, batch[len(batch)-1].FP)
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
				t := verdicts[r.FP]
				if t == "" {
					t = "new"
				}
				counts[facetKey{r.Severity, r.Scanner, r.ScanType, r.Suppressed, t, r.Tagset}]++
			}
			return addFacetCounts(ctx, tx, w.scan.Seq, counts)
		})
	})
	var batch []scratch.FPRow
	var rec sql.RawBytes
	for rows.Next() {
		var fp string
		if err := rows.Scan(&fp, &rec); err != nil {
			pipe.abort()
			return err
		}
		r, err := scratch.DecodeFP(fp, rec)
		if err != nil {
			pipe.abort()
			return err
		}
		batch = append(batch, r)
		if int64(len(batch)) >= 2*w.chunk.Load() {
			if err := pipe.send(batch); err != nil {
				return err
			}
			batch = nil
		}
	}
	if err := rows.Err(); err != nil {
		pipe.abort()
		return err
	}
	if len(batch) > 0 {
		if err := pipe.send(batch); err != nil {
			return err
		}
	}
	return pipe.close()
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

// pipeline runs fn on a second goroutine for each item sent, one at a
// time and in order, with at most one item waiting: a producer that reads
// while the consumer writes, in bounded memory.
type pipeline[T any] struct {
	ch     chan T
	done   chan struct{}
	failed chan struct{}
	err    error
	cancel context.CancelFunc
}

func startPipeline[T any](ctx context.Context, fn func(context.Context, T) error) *pipeline[T] {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipeline[T]{ch: make(chan T, 1), done: make(chan struct{}), failed: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		for item := range p.ch {
			if p.err != nil {
				continue // drain after a failure
			}
			if err := fn(ctx, item); err != nil {
				p.err = err
				close(p.failed)
				cancel()
			}
		}
	}()
	return p
}

// send queues an item; it fails once the consumer has failed.
func (p *pipeline[T]) send(item T) error {
	select {
	case p.ch <- item:
		return nil
	case <-p.failed:
		return p.err
	}
}

// close waits for the consumer and returns its first error.
func (p *pipeline[T]) close() error {
	close(p.ch)
	<-p.done
	p.cancel()
	return p.err
}

// abort stops the consumer after the producer failed.
func (p *pipeline[T]) abort() {
	p.cancel()
	p.close()
}
