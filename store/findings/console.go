package findings

// Reads the web console (api/ui) needs beyond what the API's handlers use:
// filtered keyset pages of a scan's findings, one finding with the scans it
// appeared in, a paged compare, and the overview's breakdown. They live in
// their own file so the findings reads in findings.go can change without
// touching them.

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"scand/finding"
	"scand/store/findingjson"
	"scand/store/scans"
	"scand/store/sqlbase"
)

// ConsoleFindingQuery narrows and pages a scan's findings for the console.
// Values inside one field are OR-combined; fields are AND-combined.
type ConsoleFindingQuery struct {
	Severities []string
	ScanTypes  []string
	Scanners   []string
	Compliance []string
	// Triage lists triage statuses; a finding without a verdict is "new".
	Triage []string
	// Suppressed: nil = any, true = only suppressed, false = only live.
	Suppressed *bool
	// Text is matched, ASCII case-insensitively, as a substring of the
	// title, the file path and the rule id.
	Text string
	// After and Before are keyset bounds on the canonical position (ord):
	// rows strictly after After, or the rows just before Before. Negative
	// means no bound; After wins when both are set.
	After, Before int
	// Limit is the page size (at least 1).
	Limit int
	// Skip passes over this many matches (after After) before the page:
	// a jump to a page number. It costs reading them.
	Skip int
	// CountUpTo caps counting the matches of a text search, which has to
	// read the rows; past it a page only says "more than". Every other
	// filter is counted exactly from the stored per-facet counts.
	CountUpTo int
	// Sort is one of FindingSorts; "" is the canonical order. In another
	// order AfterKey and BeforeKey are the keyset bounds (After and Before
	// are not read) and Last reads the last page.
	Sort                string
	AfterKey, BeforeKey *SortKey
	Last                bool
}

// Filtered reports whether q narrows the findings at all.
func (q ConsoleFindingQuery) Filtered() bool {
	return len(q.Severities)+len(q.ScanTypes)+len(q.Scanners)+len(q.Compliance)+len(q.Triage) > 0 || q.Suppressed != nil || q.Text != ""
}

// OrderedFinding is a finding with its canonical position in its scan,
// the keyset paging key.
type OrderedFinding struct {
	Ord int
	// Key is the row's position in the query's order, for its cursor.
	Key SortKey
	FindingWithState
}

// ConsoleFindingPage is one page of a ConsoleFindingQuery and how many
// findings match it in all.
type ConsoleFindingPage struct {
	Rows []OrderedFinding
	// Total counts the matches; with Capped set there are more than Total
	// (a text search stopped counting at CountUpTo).
	Total  int
	Capped bool
}

// likeEscaper makes a search text match literally inside a LIKE pattern.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// jsonEscaped are the characters a stored JSON body spells differently
// from the text (Go's encoder escapes <, > and & too), plus the control
// characters, for which the raw-body prefilter would be unsound.
const jsonEscaped = "<>&\"\\\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\u2028\u2029"

// scanRange bounds a scan's findings rows: their keys are seq<<32|ord.
const scanRange = `f.k >= ((SELECT seq FROM scans WHERE id = ?) << 32) AND f.k < (((SELECT seq FROM scans WHERE id = ?) + 1) << 32)`

// textFilter is the SQL of a search over title, file path and rule id.
func textFilter(text string) (string, []any) {
	// LIKE is case-insensitive for ASCII. Title, file and rule live in the
	// JSON body: a LIKE over the raw body first rules out most rows
	// without parsing them, which is only sound when the needle has no
	// character JSON encoding changes.
	pattern := "%" + likeEscaper.Replace(text) + "%"
	var where string
	var args []any
	if !strings.ContainsAny(text, jsonEscaped) {
		where = "CAST(f.body AS TEXT) LIKE ? ESCAPE '\\' AND "
		args = append(args, pattern)
	}
	where += "(json_extract(CAST(f.body AS TEXT), '$.title') LIKE ? ESCAPE '\\' OR json_extract(CAST(f.body AS TEXT), '$.file_path') LIKE ? ESCAPE '\\'" +
		" OR json_extract(CAST(f.body AS TEXT), '$.rule_id') LIKE ? ESCAPE '\\')"
	return where, append(args, pattern, pattern, pattern)
}

const consoleFindingColumns = `SELECT f.k, f.fingerprint, f.body, x.text, t.status, t.note, t.updated_at, t.updated_by, t.expires_at, t.justification FROM findings f
	LEFT JOIN finding_texts x ON x.scan_seq = (f.k >> 32) AND x.id = f.text_id
	LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint WHERE `

// consoleMaxBlocks bounds the ranges a page walks one query at a time. A
// scan stored out of canonical order splits its (severity, scanner) pairs
// into many ranges; past this the walk covers them as one range and
// filters severity and scanner row by row.
const consoleMaxBlocks = 64

// ConsoleFindings returns one keyset page of a completed scan's findings
// in canonical order with their triage states, and the number of matches.
// It plans like FindingRows: severity and scanner select ranges of the
// canonical order, a verdict filter reads the positions of its verdicts,
// suppression and compliance walk their indexes when that is cheaper, and
// the count comes from the stored facet counts. Only a text search reads
// rows it does not show, bounded by Limit and CountUpTo.
func (s *Reader) ConsoleFindings(ctx context.Context, scanID string, q ConsoleFindingQuery) (ConsoleFindingPage, error) {
	out := ConsoleFindingPage{Rows: []OrderedFinding{}}
	sc, err := s.scans.ScanByID(ctx, scanID)
	if err != nil {
		return out, err
	}
	if q.Sort != "" && q.Sort != SortSeverity {
		return s.sortedFindings(ctx, sc, q)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, err
	}
	defer tx.Rollback()
	p, facets, err := s.consolePlan(ctx, tx, sc, q)
	if err != nil {
		return out, err
	}
	limit := max(q.Limit, 1)
	backwards := q.After < 0 && q.Before >= 0
	skip := 0
	if !backwards {
		skip = max(q.Skip, 0)
	}
	var decodeErr error
	err = p.consoleWalk(ctx, tx, q.After, q.Before, limit+skip, backwards, "SELECT "+findingRowColumns, func(r FindingRow) bool {
		if skip > 0 {
			skip--
			return true
		}
		fw, err := r.Decode()
		if err != nil {
			decodeErr = err
			return false
		}
		out.Rows = append(out.Rows, OrderedFinding{Ord: r.Ord, Key: SortKey{Ord: r.Ord}, FindingWithState: fw})
		return true
	})
	if err == nil {
		err = decodeErr
	}
	if err != nil {
		return out, err
	}
	if backwards {
		slices.Reverse(out.Rows)
	}
	switch {
	case !q.Filtered():
		if sc.Status == scans.StatusCompleted {
			out.Total = sc.FindingsCount
		}
	case q.Text == "":
		out.Total = consoleCount(facets, p.tagsets, q)
	case q.After < 0 && q.Before < 0 && len(out.Rows) < limit:
		// The first page holds every match: nothing is left to count.
		out.Total = len(out.Rows)
	default:
		upTo := max(q.CountUpTo, 1)
		n := 0
		err = p.consoleWalk(ctx, tx, -1, -1, upTo, false, "SELECT f.k, f.fingerprint, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL", func(FindingRow) bool {
			n++
			return true
		})
		out.Total, out.Capped = n, n >= upTo
	}
	return out, err
}

// consolePlan is the FindingRows plan of q plus its text search, and the
// scan's facet counts.
func (s *Reader) consolePlan(ctx context.Context, tx *sql.Tx, sc scans.Scan, q ConsoleFindingQuery) (*plan, []facetRow, error) {
	if !q.Filtered() {
		// Every row of the scan: one range, nothing to count (the scan's
		// findings_count is the total).
		p := &plan{seq: sc.Seq}
		if sc.Status == scans.StatusCompleted {
			p.blocks = []plannedBlock{{Block: Block{First: 0, Last: 1<<32 - 1}}}
		}
		return p, nil, nil
	}
	p, err := s.plan(ctx, tx, sc, FindingQuery{Severities: q.Severities, ScanTypes: q.ScanTypes, Scanners: q.Scanners,
		Compliance: q.Compliance, Triage: q.Triage, Suppressed: q.Suppressed})
	if err != nil {
		return nil, nil, err
	}
	var facets []facetRow
	if sc.Status == scans.StatusCompleted {
		if _, facets, err = s.facets(ctx, tx, sc); err != nil {
			return nil, nil, err
		}
	}
	var where []string
	if p.residual != "" {
		where = append(where, p.residual)
	}
	if len(p.blocks) > consoleMaxBlocks {
		one := plannedBlock{Block: Block{First: p.blocks[0].First, Last: p.blocks[len(p.blocks)-1].Last}, tagsetRows: map[int64]int{}}
		for _, b := range p.blocks {
			one.matches += b.matches
			one.suppressedRows += b.suppressedRows
			for id, n := range b.tagsetRows {
				one.tagsetRows[id] += n
			}
		}
		p.blocks = []plannedBlock{one}
		if len(q.Severities) > 0 {
			where = append(where, "f.severity IN ("+sqlbase.Placeholders(len(q.Severities))+")")
			p.residualArgs = append(p.residualArgs, sqlbase.AnySlice(q.Severities)...)
		}
		if len(q.Scanners) > 0 {
			where = append(where, "f.scanner IN ("+sqlbase.Placeholders(len(q.Scanners))+")")
			p.residualArgs = append(p.residualArgs, sqlbase.AnySlice(q.Scanners)...)
		}
	}
	if q.Text != "" {
		cond, args := textFilter(q.Text)
		where = append(where, cond)
		p.residualArgs = append(p.residualArgs, args...)
	}
	p.residual = strings.Join(where, " AND ")
	return p, facets, nil
}

// consoleCount counts the findings q's filters (not its text) select from
// the stored facet counts, whatever the number of rows. Facets are summed
// directly rather than per block, so a scan stored out of canonical order
// is counted right too.
func consoleCount(facets []facetRow, tagsets map[int64]bool, q ConsoleFindingQuery) int {
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	n := 0
	for _, f := range facets {
		if in(q.Severities, f.Severity) && in(q.Scanners, f.Scanner) && in(q.ScanTypes, f.ScanType) && in(q.Triage, f.Triage) &&
			(q.Suppressed == nil || *q.Suppressed == f.Suppressed) && (tagsets == nil || tagsets[f.tagset]) {
			n += f.N
		}
	}
	return n
}

// consoleWalk yields up to limit selected rows: forward, those after
// position after (negative: from the top), or backward from just before
// position before, in descending order. cols is the SELECT list (it must
// scan like findingRowColumns). It returns the first error.
func (p *plan) consoleWalk(ctx context.Context, tx *sql.Tx, after, before, limit int, backwards bool, cols string, yield func(FindingRow) bool) error {
	remaining := limit
	var failed error
	emit := func(r FindingRow, err error) bool {
		if err != nil {
			failed = err
			return false
		}
		remaining--
		return yield(r) && remaining > 0
	}
	for i := range p.blocks {
		b := p.blocks[i]
		lo, hi := max(b.First, after+1), b.Last
		if backwards {
			b = p.blocks[len(p.blocks)-1-i]
			lo, hi = b.First, min(b.Last, before-1)
		}
		if lo > hi {
			continue
		}
		var ok bool
		if p.verdictOrds != nil {
			ok = p.consoleVerdictBlock(ctx, tx, lo, hi, backwards, cols, emit)
		} else {
			ok = p.consoleRangeBlock(ctx, tx, b, lo, hi, remaining, backwards, cols, emit)
		}
		if !ok || remaining <= 0 {
			break
		}
	}
	return failed
}

// consoleRangeBlock reads the selected rows of positions lo..hi of one
// block, through the cheapest driver for the filters.
func (p *plan) consoleRangeBlock(ctx context.Context, tx *sql.Tx, b plannedBlock, lo, hi, limit int, backwards bool, cols string,
	emit func(FindingRow, error) bool) bool {
	from := "findings f NOT INDEXED"
	where := "f.k BETWEEN ?2 AND ?3"
	if p.residual != "" {
		from = p.driver(b, lo, limit)
		where += " AND " + p.residual
	}
	order := " ORDER BY f.k"
	if backwards {
		order += " DESC"
	}
	_, ok := queryFindingRows(ctx, tx, cols+" FROM "+from+findingRowJoins+" WHERE "+where+order+" LIMIT "+strconv.Itoa(limit),
		append([]any{p.seq, Key(p.seq, lo), Key(p.seq, hi)}, p.residualArgs...), emit)
	return ok
}

// consoleVerdictBlock reads the rows at the collected verdict positions
// in lo..hi, a batch of positions at a time.
func (p *plan) consoleVerdictBlock(ctx context.Context, tx *sql.Tx, lo, hi int, backwards bool, cols string, emit func(FindingRow, error) bool) bool {
	first, _ := slices.BinarySearch(p.verdictOrds, lo)
	end, _ := slices.BinarySearch(p.verdictOrds, hi+1)
	ords := p.verdictOrds[first:end]
	const batch = 500
	for len(ords) > 0 {
		var part []int
		if backwards {
			part, ords = ords[max(len(ords)-batch, 0):], ords[:max(len(ords)-batch, 0)]
		} else {
			part, ords = ords[:min(batch, len(ords))], ords[min(batch, len(ords)):]
		}
		keys := make([]string, len(part))
		for i, o := range part {
			keys[i] = strconv.FormatInt(Key(p.seq, o), 10)
		}
		order := " ORDER BY f.k"
		if backwards {
			order += " DESC"
		}
		q := cols + " FROM findings f NOT INDEXED" + findingRowJoins + " WHERE f.k IN (" + strings.Join(keys, ",") + ") AND ?1 = ?1 AND " + p.residual + order
		if _, ok := queryFindingRows(ctx, tx, q, append([]any{p.seq}, p.residualArgs...), emit); !ok {
			return false
		}
	}
	return true
}

// scanOrderedFindings reads rows of consoleFindingColumns (or
// findingRowColumns) followed by extra columns, scanned into extra; each
// row is passed to keyed, when set, while extra holds its values.
func scanOrderedFindings(rows *sql.Rows, extra []any, keyed func(*OrderedFinding)) ([]OrderedFinding, error) {
	defer rows.Close()
	out := []OrderedFinding{}
	var buf []byte
	for rows.Next() {
		var k int64
		var fp string
		var body, text []byte
		var tStatus, tNote, tAt, tBy, tExp, tJust sql.NullString
		if err := rows.Scan(append([]any{&k, &fp, &body, &text, &tStatus, &tNote, &tAt, &tBy, &tExp, &tJust}, extra...)...); err != nil {
			return nil, err
		}
		row := FindingRow{Ord: int(k & 0xffffffff), Fingerprint: fp, Body: body}
		if text != nil {
			var err error
			if buf, err = findingjson.Splice(buf, body, text); err != nil {
				return nil, err
			}
			row.Body = buf
		}
		if tStatus.Valid {
			row.State = &TriageState{Fingerprint: fp, Status: tStatus.String, Note: tNote.String, UpdatedAt: sqlbase.ParseTime(tAt.String), UpdatedBy: tBy.String, ExpiresAt: sqlbase.ParseNullTime(tExp),
				Justification: tJust.String}
		}
		fw, err := row.Decode()
		if err != nil {
			return nil, err
		}
		of := OrderedFinding{Ord: row.Ord, Key: SortKey{Ord: row.Ord}, FindingWithState: fw}
		if keyed != nil {
			keyed(&of)
		}
		out = append(out, of)
	}
	return out, rows.Err()
}

// FindingOccurrence returns the finding with a fingerprint as one scan
// recorded it, or as the newest scan that has it when scanID is empty,
// together with that scan. ErrNotFound when no stored finding has it.
func (s *Reader) FindingOccurrence(ctx context.Context, fingerprint, scanID string) (FindingWithState, scans.Scan, error) {
	q := `SELECT s.seq, p.ord FROM scans s JOIN finding_fps p ON p.scan_seq = s.seq AND p.fingerprint = ?
		WHERE s.status = 'completed' AND s.hidden = 0`
	args := []any{fingerprint}
	if scanID != "" {
		q += " AND s.id = ?"
		args = append(args, scanID)
	}
	q += " ORDER BY s.seq DESC, p.ord LIMIT 1"
	var fw FindingWithState
	var seq, ord int64
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&seq, &ord); errors.Is(err, sql.ErrNoRows) {
		return fw, scans.Scan{}, sqlbase.ErrNotFound
	} else if err != nil {
		return fw, scans.Scan{}, err
	}
	sc, err := scans.ScanRow(s.db.QueryRowContext(ctx, "SELECT "+scans.Columns+" FROM scans WHERE seq = ?", seq))
	if err != nil {
		return fw, sc, err
	}
	rows, err := s.db.QueryContext(ctx, consoleFindingColumns+"f.k = ?", seq<<32|ord)
	if err != nil {
		return fw, sc, err
	}
	found, err := scanOrderedFindings(rows, nil, nil)
	if err != nil {
		return fw, sc, err
	}
	if len(found) == 0 {
		return fw, sc, sqlbase.ErrNotFound
	}
	return found[0].FindingWithState, sc, nil
}

// TriageStateOf returns the current verdict on a fingerprint, nil if none.
func (s *Reader) TriageStateOf(ctx context.Context, fingerprint string) (*TriageState, error) {
	var t TriageState
	var at string
	var exp sql.NullString
	err := s.db.QueryRowContext(ctx, "SELECT fingerprint, status, note, updated_at, updated_by, expires_at, justification FROM triage_states WHERE fingerprint = ?", fingerprint).
		Scan(&t.Fingerprint, &t.Status, &t.Note, &at, &t.UpdatedBy, &exp, &t.Justification)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.UpdatedAt, t.ExpiresAt = sqlbase.ParseTime(at), sqlbase.ParseNullTime(exp)
	return &t, nil
}

// Console compare kinds: findings only in the newer scan, only in the
// older one, and in both (the newer scan's copy).
const (
	ConsoleCompareNew       = "new"
	ConsoleCompareFixed     = "fixed"
	ConsoleCompareUnchanged = "unchanged"
	// ConsoleCompareNotCompared: findings of a scanner that failed, ran
	// partly or could not run in either scan (finding.NotComparedReason):
	// the newer scan's, then the older one's the newer lacks.
	ConsoleCompareNotCompared = "not_compared"
)

// notComparedPhase offsets the positions of the older scan's rows in a
// not_compared page, which follow the newer scan's, so one cursor walks
// both.
const notComparedPhase = 1 << 32

// fpsOfScanners is an SQL condition: the finding_fps row f is a finding of
// one of the scanners in the JSON array bound next.
const fpsOfScanners = `EXISTS (SELECT 1 FROM findings x WHERE x.k = (f.scan_seq << 32) | f.ord AND x.scanner IN (SELECT value FROM json_each(?)))`

// compareSQL selects one kind of a compare of scan a (older) with scan b
// by fingerprint, as the API's compare does: which scan the rows come
// from, which scan is probed, and whether the fingerprint must be there.
func compareSQL(kind string) (from, other, exists string, ok bool) {
	switch kind {
	case ConsoleCompareNew:
		return "b", "a", "NOT EXISTS", true
	case ConsoleCompareFixed:
		return "a", "b", "NOT EXISTS", true
	case ConsoleCompareUnchanged:
		return "b", "a", "EXISTS", true
	}
	return "", "", "", false
}

// probeOther is the membership test of a compare row f in the scan whose
// id is bound next, through that scan's fingerprint index.
const probeOther = ` (SELECT 1 FROM finding_fps o WHERE o.scan_seq = (SELECT seq FROM scans WHERE id = ?) AND o.fingerprint = f.fingerprint)`

// CompareCounts counts the new, fixed and unchanged findings between an
// older scan a and a newer scan b; the findings of the notCompared
// scanners are counted apart (ConsoleCompareNotCompared).
func (s *Reader) CompareCounts(ctx context.Context, a, b string, notCompared ...string) (map[string]int, error) {
	out := map[string]int{}
	excl := sqlbase.MustJSON(append([]string{}, notCompared...))
	for _, kind := range []string{ConsoleCompareNew, ConsoleCompareFixed, ConsoleCompareUnchanged} {
		from, other, exists, _ := compareSQL(kind)
		ids := map[string]string{"a": a, "b": b}
		var n int
		err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM finding_fps f WHERE f.scan_seq = (SELECT seq FROM scans WHERE id = ?) AND `+
			exists+probeOther+` AND NOT `+fpsOfScanners, ids[from], ids[other], excl).Scan(&n)
		if err != nil {
			return nil, err
		}
		out[kind] = n
	}
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM finding_fps f WHERE f.scan_seq = (SELECT seq FROM scans WHERE id = ?) AND `+fpsOfScanners+`)
		+ (SELECT count(*) FROM finding_fps f WHERE f.scan_seq = (SELECT seq FROM scans WHERE id = ?) AND `+fpsOfScanners+` AND NOT EXISTS`+probeOther+`)`,
		b, excl, a, excl, b).Scan(&n)
	if err != nil {
		return nil, err
	}
	out[ConsoleCompareNotCompared] = n
	return out, nil
}

// CompareFindings returns one keyset page (rows after position after; a
// negative after starts at the top) of one compare kind.
func (s *Reader) CompareFindings(ctx context.Context, a, b, kind string, after, limit int, notCompared ...string) ([]OrderedFinding, error) {
	excl := sqlbase.MustJSON(append([]string{}, notCompared...))
	if kind == ConsoleCompareNotCompared {
		return s.notComparedFindings(ctx, a, b, after, limit, excl)
	}
	from, other, exists, ok := compareSQL(kind)
	if !ok {
		return nil, errors.New("unknown compare kind " + kind)
	}
	ids := map[string]string{"a": a, "b": b}
	// The bound is a key, not (f.k & mask) > ?, so the page starts at its
	// row instead of scanning the scan's rows before it.
	rows, err := s.db.QueryContext(ctx, consoleFindingColumns+scanRange+` AND f.k > ((SELECT seq FROM scans WHERE id = ?) << 32) + ? AND `+exists+probeOther+
		` AND f.scanner NOT IN (SELECT value FROM json_each(?)) ORDER BY f.k LIMIT ?`,
		ids[from], ids[from], ids[from], after, ids[other], excl, max(limit, 1))
	if err != nil {
		return nil, err
	}
	return scanOrderedFindings(rows, nil, nil)
}

// notComparedFindings pages through the newer scan's findings of the
// excluded scanners, then the older scan's the newer lacks; positions of
// the second phase are offset by notComparedPhase.
func (s *Reader) notComparedFindings(ctx context.Context, a, b string, after, limit int, excl string) ([]OrderedFinding, error) {
	var out []OrderedFinding
	if after < notComparedPhase {
		rows, err := s.db.QueryContext(ctx, consoleFindingColumns+scanRange+` AND f.k > ((SELECT seq FROM scans WHERE id = ?) << 32) + ?
			AND f.scanner IN (SELECT value FROM json_each(?)) ORDER BY f.k LIMIT ?`, b, b, b, after, excl, max(limit, 1))
		if err != nil {
			return nil, err
		}
		if out, err = scanOrderedFindings(rows, nil, nil); err != nil || len(out) >= limit {
			return out, err
		}
		after = -1
	} else {
		after -= notComparedPhase
	}
	rows, err := s.db.QueryContext(ctx, consoleFindingColumns+scanRange+` AND f.k > ((SELECT seq FROM scans WHERE id = ?) << 32) + ?
		AND f.scanner IN (SELECT value FROM json_each(?)) AND NOT EXISTS`+probeOther+` ORDER BY f.k LIMIT ?`, a, a, a, after, excl, b, max(limit-len(out), 1))
	if err != nil {
		return nil, err
	}
	older, err := scanOrderedFindings(rows, nil, nil)
	for i := range older {
		older[i].Ord += notComparedPhase
	}
	return append(out, older...), err
}

// Overview classes of a current finding.
const (
	FindingLive       = "live"
	FindingSuppressed = "suppressed"
	FindingHidden     = "hidden"
)

// SeverityClassCount counts current findings of one severity and class.
type SeverityClassCount struct {
	Severity string
	// Class is FindingSuppressed (an in-source ignore), FindingHidden (a
	// verdict in the hidden set) or FindingLive (the rest).
	Class string
	Count int
}

// CurrentFindingClasses counts the findings of the latest completed scan
// of each target by severity and class. hidden is the set of triage
// statuses a dashboard hides by default; a suppressed finding counts as
// suppressed whatever its verdict.
func (s *Reader) CurrentFindingClasses(ctx context.Context, hidden []string) ([]SeverityClassCount, error) {
	hiddenExpr := "0"
	args := []any{}
	if len(hidden) > 0 {
		hiddenExpr = "c.triage IN (" + sqlbase.Placeholders(len(hidden)) + ")"
		for _, h := range hidden {
			args = append(args, h)
		}
	}
	// The targets table names the latest completed scan of each target and
	// finding_counts holds its counts: no finding row is read.
	rows, err := s.db.QueryContext(ctx, `SELECT c.severity, CASE
			WHEN c.suppressed = 1 THEN 'suppressed'
			WHEN `+hiddenExpr+` THEN 'hidden' ELSE 'live' END, sum(c.n)
		FROM targets g JOIN finding_counts c ON c.scan_seq = g.latest_seq
		GROUP BY 1, 2 HAVING sum(c.n) > 0 ORDER BY 1, 2`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []SeverityClassCount{}
	for rows.Next() {
		var c SeverityClassCount
		if err := rows.Scan(&c.Severity, &c.Class, &c.Count); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// MatchingFingerprints returns the distinct fingerprints of a completed
// scan's findings that q selects (its paging fields are ignored), in
// canonical order, stopping after upTo+1 so a caller can tell "more than
// upTo" without reading the rest.
func (s *Reader) MatchingFingerprints(ctx context.Context, scanID string, q ConsoleFindingQuery, upTo int) ([]string, error) {
	sc, err := s.scans.ScanByID(ctx, scanID)
	if err != nil {
		return nil, err
	}
	if sc.Status != scans.StatusCompleted {
		return []string{}, nil
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, _, err := s.consolePlan(ctx, tx, sc, q)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	// The walk's limit counts rows; a fingerprint seen twice in one scan
	// does not count twice, so walk until the distinct set passes upTo.
	err = p.consoleWalk(ctx, tx, -1, -1, math.MaxInt, false, "SELECT f.k, f.fingerprint, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL", func(r FindingRow) bool {
		if !seen[r.Fingerprint] {
			seen[r.Fingerprint] = true
			out = append(out, r.Fingerprint)
		}
		return len(out) <= upTo
	})
	return out, err
}

// RuleGroup is one rule of a scan's findings and how many it has.
type RuleGroup struct {
	Scanner string           `json:"scanner"`
	RuleID  string           `json:"rule_id"`
	Title   string           `json:"title" doc:"title of the rule's first finding in canonical order"`
	Worst   finding.Severity `json:"worst_severity"`
	Count   int              `json:"count"`
}

// RuleGroups returns a completed scan's findings grouped by (scanner,
// rule), most findings first: most noise comes in groups. The counts read
// the scan's rows once (the rule id lives in the stored body).
func (s *Reader) RuleGroups(ctx context.Context, sc scans.Scan) ([]RuleGroup, error) {
	rules, err := s.ScanRules(ctx, sc)
	if err != nil || len(rules) == 0 {
		return []RuleGroup{}, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT f.scanner, json_extract(CAST(f.body AS TEXT), '$.rule_id'), count(*) FROM findings f
		WHERE f.k >= ? AND f.k < ? GROUP BY 1, 2`, sc.Seq<<32, (sc.Seq+1)<<32)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := map[[2]string]int{}
	for rows.Next() {
		var scanner, rule string
		var n int
		if err := rows.Scan(&scanner, &rule, &n); err != nil {
			return nil, err
		}
		counts[[2]string{scanner, rule}] = n
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]RuleGroup, 0, len(rules))
	for _, r := range rules {
		out = append(out, RuleGroup{Scanner: r.Scanner, RuleID: r.RuleID, Title: r.First.Title, Worst: r.Worst, Count: counts[[2]string{r.Scanner, r.RuleID}]})
	}
	slices.SortStableFunc(out, func(a, b RuleGroup) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		if a.Worst.Rank() != b.Worst.Rank() {
			return b.Worst.Rank() - a.Worst.Rank()
		}
		return strings.Compare(a.Scanner+"\x00"+a.RuleID, b.Scanner+"\x00"+b.RuleID)
	})
	return out, nil
}
