// Package findings reads the findings tables: the stored rows (their
// canonical JSON and triage state), the read planner behind FindingRows
// and CountFindings (severity and scanner as ranges of the canonical
// order, verdicts by position, counts from the stored facets), Compare,
// the compliance and rule reads, and the console's filtered keyset pages
// and compare pages. store embeds a Reader, so these are *store.Store's
// methods; the rows are written by store's ingest.
package findings

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/finding"
	"scand/finding/excerpt"
	"scand/store/findingjson"
	"scand/store/scans"
	"scand/store/sqlbase"
)

// Reader reads the findings tables.
type Reader struct {
	db    *sql.DB
	scans *scans.Table
}

// New reads through db; t finds a scan by id for the reads that take
// one.
func New(db *sql.DB, t *scans.Table) *Reader { return &Reader{db: db, scans: t} }

// FindingQuery selects a completed scan's findings. Values inside one
// field are OR-combined; fields are AND-combined. Every filter is served
// by an index or by a contiguous range of the canonical order, and the
// size of the selection comes from stored counts (CountFindings).
type FindingQuery struct {
	Severities []string
	ScanTypes  []string
	Scanners   []string
	// Compliance selects findings carrying any of these tags.
	Compliance []string
	// Triage selects by verdict; "new" also matches findings without one.
	Triage []string
	// Suppressed, when set, selects only suppressed (true) or only
	// unsuppressed (false) findings.
	Suppressed *bool
	// From skips findings before this position in the canonical order:
	// keyset paging (a cursor is the last position seen plus one).
	From int
	// Offset skips this many selected findings after From; it costs
	// reading them, unlike From.
	Offset int
	// Limit caps the rows returned; 0 means no cap.
	Limit int
}

// TriageState is the verdict on one fingerprint.
type TriageState struct {
	Fingerprint string    `json:"fingerprint"`
	Status      string    `json:"status"`
	Note        string    `json:"note"`
	UpdatedAt   time.Time `json:"updated_at"`
	UpdatedBy   string    `json:"updated_by"`
	// ExpiresAt ends an accepted_risk or wont_fix verdict: at that time
	// the fingerprint returns to new.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Justification is the OpenVEX justification of a false_positive
	// verdict ("" for none: VEX exports write the documented default).
	Justification string `json:"justification,omitempty"`
}

// FindingWithState is a finding plus its current triage verdict (nil when
// none is set).
type FindingWithState struct {
	finding.Finding
	State *TriageState `json:"state"`
	// Excerpt is the code kept around the finding at scan time; only a
	// single finding's answer carries it (omitted when none was kept).
	Excerpt *excerpt.Excerpt `json:"excerpt,omitempty"`
}

// FindingRow is one finding as stored: its position in the canonical order,
// its canonical JSON and its triage state.
type FindingRow struct {
	Ord         int
	Fingerprint string
	// Body is the finding's canonical JSON. It is only valid until the
	// iteration continues: copy it to keep it.
	Body  []byte
	State *TriageState
	// bare and text are Body as stored: without its description, and the
	// description's JSON token (nil when the body is stored whole).
	bare, text []byte
}

// CopyTo copies the row into dst, reusing dst's buffers, so that the copy
// outlives the iteration (a caller batching rows keeps a few hundred).
func (r FindingRow) CopyTo(dst *FindingRow) {
	dst.Ord, dst.Fingerprint, dst.State = r.Ord, r.Fingerprint, r.State
	dst.Body = append(dst.Body[:0], r.Body...)
	if r.text == nil {
		dst.bare, dst.text = nil, nil
		return
	}
	dst.bare = append(dst.bare[:0], r.bare...)
	dst.text = append(dst.text[:0], r.text...)
	if dst.text == nil {
		// A non-nil text, even empty, is what marks a body stored split.
		dst.text = []byte{}
	}
}

// AppendJSON appends the row as a FindingWithState object: the stored
// JSON with "state" spliced in, without decoding and re-encoding it.
func (r FindingRow) AppendJSON(buf []byte) ([]byte, error) {
	body := r.Body
	if len(body) < 2 || body[len(body)-1] != '}' {
		return buf, errors.New("stored finding body is not a JSON object")
	}
	buf = append(buf, body[:len(body)-1]...)
	buf = append(buf, `,"state":`...)
	if r.State == nil {
		return append(buf, "null}"...), nil
	}
	state, err := json.Marshal(r.State)
	if err != nil {
		return buf, err
	}
	buf = append(buf, state...)
	return append(buf, '}'), nil
}

// Decode returns the row as a FindingWithState.
func (r FindingRow) Decode() (FindingWithState, error) {
	var fw FindingWithState
	f, err := findingjson.Decode(r.Body)
	if err != nil {
		return fw, err
	}
	fw.Finding, fw.State = f, r.State
	if fw.ComplianceTags == nil {
		fw.ComplianceTags = []string{}
	}
	return fw, nil
}

// Facet is one row of a scan's stored counts: how many findings share
// these values. Sums over facets answer every count the API shows.
type Facet struct {
	Severity   string
	Scanner    string
	ScanType   string
	Suppressed bool
	// Triage is the verdict, "new" when none.
	Triage string
	// Tags are the compliance tags the findings carry.
	Tags []string
	N    int
}

// ScanFacets returns a completed scan's counts by every facet (a few
// hundred rows at most, whatever the number of findings).
func (s *Reader) ScanFacets(ctx context.Context, sc scans.Scan) ([]Facet, error) {
	fs, _, err := s.facets(ctx, s.db, sc)
	return fs, err
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

type facetRow struct {
	Facet
	tagset int64
}

func (s *Reader) facets(ctx context.Context, q querier, sc scans.Scan) ([]Facet, []facetRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.severity, c.scanner, c.scan_type, c.suppressed, c.triage, c.tagset, t.tags, c.n
		FROM finding_counts c JOIN tagsets t ON t.id = c.tagset WHERE c.scan_seq = ? AND c.n > 0`, sc.Seq)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []Facet
	var raw []facetRow
	for rows.Next() {
		var f facetRow
		var tags string
		if err := rows.Scan(&f.Severity, &f.Scanner, &f.ScanType, &f.Suppressed, &f.Triage, &f.tagset, &tags, &f.N); err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal([]byte(tags), &f.Tags); err != nil {
			return nil, nil, err
		}
		out = append(out, f.Facet)
		raw = append(raw, f)
	}
	return out, raw, rows.Err()
}

// Block is a contiguous range of a scan's canonical order holding one
// severity and one scanner.
type Block struct {
	First, Last       int
	Severity, Scanner string
}

func (s *Reader) blocks(ctx context.Context, q querier, sc scans.Scan) ([]Block, error) {
	rows, err := q.QueryContext(ctx, "SELECT first_ord, last_ord, severity, scanner FROM finding_blocks WHERE scan_seq = ? ORDER BY first_ord", sc.Seq)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Block
	for rows.Next() {
		var b Block
		if err := rows.Scan(&b.First, &b.Last, &b.Severity, &b.Scanner); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Key is the findings table's key of a scan's finding: the scan's seq in
// the high half, the finding's canonical position in the low half, so a
// scan's findings are one contiguous, ordered key range.
func Key(seq int64, ord int) int64 { return seq<<32 | int64(ord) }

// plan is a FindingQuery resolved against one scan's stored aggregates.
type plan struct {
	q       FindingQuery
	seq     int64
	blocks  []plannedBlock
	total   int
	tagsets map[int64]bool // nil: no compliance filter
	// residual is the SQL (and args) every row must also satisfy.
	residual     string
	residualArgs []any
	// verdictOrds, when not nil, are the sorted positions of every finding
	// whose verdict the triage filter selects: the filter only names
	// verdicts people set (not "new"), which are few, so these rows are
	// read directly instead of scanning for them.
	verdictOrds []int
}

// verdictDriverMax bounds the positions a triage filter collects; past it
// the filter scans like any other.
const verdictDriverMax = 200000

type plannedBlock struct {
	Block
	matches int // selected findings in the block
	// counts of candidates per driving index, for choosing one
	suppressedRows int
	tagsetRows     map[int64]int
}

func (q FindingQuery) residualFilters() bool {
	return len(q.ScanTypes) > 0 || len(q.Compliance) > 0 || len(q.Triage) > 0 || q.Suppressed != nil
}

func (s *Reader) plan(ctx context.Context, tx querier, sc scans.Scan, q FindingQuery) (*plan, error) {
	p := &plan{q: q, seq: sc.Seq}
	if sc.Status != scans.StatusCompleted {
		return p, nil // a running scan's rows are not visible yet
	}
	_, facets, err := s.facets(ctx, tx, sc)
	if err != nil {
		return nil, err
	}
	if len(q.Compliance) > 0 {
		p.tagsets = map[int64]bool{}
		rows, err := tx.QueryContext(ctx, "SELECT tagset FROM tagset_tags WHERE tag IN ("+sqlbase.Placeholders(len(q.Compliance))+")", sqlbase.AnySlice(q.Compliance)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			p.tagsets[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	blocks, err := s.blocks(ctx, tx, sc)
	if err != nil {
		return nil, err
	}
	in := func(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }
	for _, b := range blocks {
		if !in(q.Severities, b.Severity) || !in(q.Scanners, b.Scanner) {
			continue
		}
		pb := plannedBlock{Block: b, tagsetRows: map[int64]int{}}
		for _, f := range facets {
			if f.Severity != b.Severity || f.Scanner != b.Scanner {
				continue
			}
			if !in(q.ScanTypes, f.ScanType) || !in(q.Triage, f.Triage) || (q.Suppressed != nil && *q.Suppressed != f.Suppressed) ||
				(p.tagsets != nil && !p.tagsets[f.tagset]) {
				continue
			}
			pb.matches += f.N
			if f.Suppressed {
				pb.suppressedRows += f.N
			}
			pb.tagsetRows[f.tagset] += f.N
		}
		// A (severity, scanner) pair that appears in several ranges (an
		// unordered CompleteScan) splits its facet counts; the estimate
		// then only steers the plan, never the result.
		if pb.matches > 0 {
			p.total += pb.matches
			p.blocks = append(p.blocks, pb)
		}
	}
	var where []string
	var args []any
	if len(q.ScanTypes) > 0 {
		where = append(where, "f.scan_type IN ("+sqlbase.Placeholders(len(q.ScanTypes))+")")
		args = append(args, sqlbase.AnySlice(q.ScanTypes)...)
	}
	if q.Suppressed != nil {
		// A literal, not a parameter: only then can SQLite prove the
		// partial index findings_suppressed applies.
		where = append(where, "f.suppressed = "+strconv.Itoa(sqlbase.BoolInt(*q.Suppressed)))
	}
	if len(q.Triage) > 0 {
		where = append(where, "coalesce(t.status, 'new') IN ("+sqlbase.Placeholders(len(q.Triage))+")")
		args = append(args, sqlbase.AnySlice(q.Triage)...)
	}
	if p.tagsets != nil {
		ids := make([]string, 0, len(p.tagsets))
		for id := range p.tagsets {
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		slices.Sort(ids)
		if len(ids) == 0 {
			ids = []string{"-1"}
		}
		where = append(where, "f.tagset IN ("+strings.Join(ids, ",")+")")
	}
	p.residual = strings.Join(where, " AND ")
	p.residualArgs = args
	if len(q.Triage) > 0 && !slices.Contains(q.Triage, "new") && p.total > 0 {
		if err := p.collectVerdicts(ctx, tx); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *plan) collectVerdicts(ctx context.Context, tx querier) error {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM triage_states WHERE status IN ("+sqlbase.Placeholders(len(p.q.Triage))+")",
		sqlbase.AnySlice(p.q.Triage)...).Scan(&n); err != nil {
		return err
	}
	if n > verdictDriverMax {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT p.ord FROM triage_states t INDEXED BY triage_states_status CROSS JOIN finding_fps p
		WHERE t.status IN (`+sqlbase.Placeholders(len(p.q.Triage))+`) AND p.scan_seq = ? AND p.fingerprint = t.fingerprint`,
		append(sqlbase.AnySlice(p.q.Triage), p.seq)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	ords := []int{}
	for rows.Next() {
		var o int
		if err := rows.Scan(&o); err != nil {
			return err
		}
		ords = append(ords, o)
	}
	slices.Sort(ords)
	p.verdictOrds = ords
	return rows.Err()
}

// CountFindings returns how many findings a query selects (ignoring From,
// Offset and Limit) from the stored per-facet counts: it costs the same
// for ten findings or a million.
func (s *Reader) CountFindings(ctx context.Context, sc scans.Scan, q FindingQuery) (int, error) {
	p, err := s.plan(ctx, s.db, sc, q)
	if err != nil {
		return 0, err
	}
	return p.total, nil
}

const findingRowColumns = `f.k, f.fingerprint, f.body, x.text, t.status, t.note, t.updated_at, t.updated_by, t.expires_at, t.justification`

// findingRowJoins complete a row: the description kept apart (?1 is the
// scan's seq) and the triage verdict.
const findingRowJoins = ` LEFT JOIN finding_texts x ON x.scan_seq = ?1 AND x.id = f.text_id
	LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint`

// queryFindingRows runs q (selecting findingRowColumns with
// findingRowJoins, args[0] the scan's seq) and yields each row. It returns
// how many it yielded and false when iteration must stop.
func queryFindingRows(ctx context.Context, tx *sql.Tx, q string, args []any, yield func(FindingRow, error) bool) (int, bool) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, yield(FindingRow{}, err)
	}
	defer rows.Close()
	n := 0
	var body, text sql.RawBytes
	var buf []byte
	for rows.Next() {
		var k int64
		var fp string
		var tStatus, tNote, tAt, tBy, tExp, tJust sql.NullString
		if err := rows.Scan(&k, &fp, &body, &text, &tStatus, &tNote, &tAt, &tBy, &tExp, &tJust); err != nil {
			return n, yield(FindingRow{}, err)
		}
		row := FindingRow{Ord: int(k & 0xffffffff), Fingerprint: fp, Body: body}
		if text != nil {
			if buf, err = findingjson.Splice(buf, body, text); err != nil {
				return n, yield(FindingRow{}, err)
			}
			row.Body, row.bare, row.text = buf, body, text
		}
		if tStatus.Valid {
			row.State = &TriageState{Fingerprint: fp, Status: tStatus.String, Note: tNote.String, UpdatedAt: sqlbase.ParseTime(tAt.String), UpdatedBy: tBy.String, ExpiresAt: sqlbase.ParseNullTime(tExp),
				Justification: tJust.String}
		}
		n++
		if !yield(row, nil) {
			return n, false
		}
	}
	if err := rows.Err(); err != nil {
		return n, yield(FindingRow{}, err)
	}
	return n, true
}

// FindingRows iterates the findings a query selects, in canonical order,
// reading one bounded batch at a time inside one read transaction (a
// consistent snapshot however long the caller takes). A scan that is not
// completed yields nothing: its rows, if any, are not stored yet.
func (s *Reader) FindingRows(ctx context.Context, sc scans.Scan, q FindingQuery) iter.Seq2[FindingRow, error] {
	return func(yield func(FindingRow, error) bool) {
		tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			yield(FindingRow{}, err)
			return
		}
		defer tx.Rollback()
		p, err := s.plan(ctx, tx, sc, q)
		if err != nil {
			yield(FindingRow{}, err)
			return
		}
		p.run(ctx, tx, yield)
	}
}

// run walks the planned blocks from q.From, skipping q.Offset selected
// rows and stopping after q.Limit.
func (p *plan) run(ctx context.Context, tx *sql.Tx, yield func(FindingRow, error) bool) {
	remaining := p.q.Limit
	offset := p.q.Offset
	from := max(p.q.From, 0)
	for _, b := range p.blocks {
		if b.Last < from {
			continue
		}
		lo := max(b.First, from)
		exact := !p.q.residualFilters()
		if offset > 0 {
			// Whole blocks are skipped from the counts; inside a block an
			// unfiltered range is skipped by position, a filtered one by SQL.
			if lo == b.First && offset >= b.matches {
				offset -= b.matches
				continue
			}
			if exact {
				if n := b.Last - lo + 1; offset >= n {
					offset -= n
					continue
				}
				lo += offset
				offset = 0
			}
		}
		limit := -1
		if p.q.Limit > 0 {
			limit = remaining
		}
		n, skipped, ok := p.runBlock(ctx, tx, b, lo, limit, offset, yield)
		if !ok {
			return
		}
		offset -= skipped
		if p.q.Limit > 0 {
			remaining -= n
			if remaining <= 0 {
				return
			}
		}
	}
}

// runBlock reads the selected rows of one block from position lo on. It
// returns the rows yielded, the rows an SQL offset skipped, and false when
// iteration must stop.
func (p *plan) runBlock(ctx context.Context, tx *sql.Tx, b plannedBlock, lo, limit, offset int, yield func(FindingRow, error) bool) (int, int, bool) {
	if p.verdictOrds != nil {
		return p.runVerdictBlock(ctx, tx, b, lo, limit, offset, yield)
	}
	from := "findings f NOT INDEXED"
	where := []string{"f.k BETWEEN ?2 AND ?3"}
	args := []any{p.seq, Key(p.seq, lo), Key(p.seq, b.Last)}
	if p.residual != "" {
		where = append(where, p.residual)
		args = append(args, p.residualArgs...)
		from = p.driver(b, lo, limit)
	}
	skipped := 0
	if offset > 0 {
		// Count what the offset skips inside this block, so the next block
		// knows how much is left to skip.
		var n int
		err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+from+
			" LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint WHERE ?1 = ?1 AND "+strings.Join(where, " AND ")+
			" LIMIT "+strconv.Itoa(offset)+")", args...).Scan(&n)
		if err != nil {
			return 0, 0, yield(FindingRow{}, err)
		}
		skipped = n
		if n < offset {
			return 0, skipped, true
		}
	}
	q := "SELECT " + findingRowColumns + " FROM " + from + findingRowJoins + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY f.k LIMIT " + strconv.Itoa(limit) + " OFFSET " + strconv.Itoa(offset)
	n, ok := queryFindingRows(ctx, tx, q, args, yield)
	return n, skipped, ok
}

// runVerdictBlock is runBlock reading only the rows whose positions the
// triage filter collected, a batch of positions at a time.
func (p *plan) runVerdictBlock(ctx context.Context, tx *sql.Tx, b plannedBlock, lo, limit, offset int, yield func(FindingRow, error) bool) (int, int, bool) {
	i, _ := slices.BinarySearch(p.verdictOrds, lo)
	n, skipped := 0, 0
	const batch = 500
	for i < len(p.verdictOrds) && p.verdictOrds[i] <= b.Last && (limit < 0 || n < limit) {
		j := i
		keys := make([]string, 0, batch)
		for ; j < len(p.verdictOrds) && p.verdictOrds[j] <= b.Last && len(keys) < batch; j++ {
			keys = append(keys, strconv.FormatInt(Key(p.seq, p.verdictOrds[j]), 10))
		}
		i = j
		q := "SELECT " + findingRowColumns + " FROM findings f NOT INDEXED" + findingRowJoins + " WHERE f.k IN (" + strings.Join(keys, ",") +
			") AND ?1 = ?1 AND " + p.residual + " ORDER BY f.k"
		stop := false
		_, ok := queryFindingRows(ctx, tx, q, append([]any{p.seq}, p.residualArgs...), func(r FindingRow, err error) bool {
			if err != nil {
				return yield(r, err)
			}
			if skipped < offset {
				skipped++
				return true
			}
			if limit >= 0 && n >= limit {
				stop = true
				return false
			}
			n++
			return yield(r, nil)
		})
		if !ok && !stop {
			return n, skipped, false
		}
	}
	return n, skipped, true
}

// driver picks how to walk a block under row filters. Walking the range
// reads about limit×size/matches rows before the page is full; an index
// on the sparse filter reads only its candidates. The cheaper one wins.
func (p *plan) driver(b plannedBlock, lo, limit int) string {
	size := b.Last - lo + 1
	need := limit
	if need < 0 || need > b.matches {
		need = b.matches
	}
	rangeCost := float64(size)
	if b.matches > 0 {
		rangeCost = min(float64(size), float64(need)*float64(b.Last-b.First+1)/float64(b.matches))
	}
	best, bestCost := "findings f NOT INDEXED", rangeCost
	if p.q.Suppressed != nil && *p.q.Suppressed && b.matches > 0 {
		if c := float64(need) * float64(b.suppressedRows) / float64(b.matches); c < bestCost {
			best, bestCost = "findings f INDEXED BY findings_suppressed", c
		}
	}
	if p.tagsets != nil && b.matches > 0 {
		cands := 0
		for _, n := range b.tagsetRows {
			cands += n
		}
		c := float64(cands) // several sets: every candidate is read and sorted
		if len(b.tagsetRows) == 1 {
			c = float64(need) * float64(cands) / float64(b.matches)
		}
		if c < bestCost {
			best = "findings f INDEXED BY findings_tagset"
		}
	}
	return best
}

// CompareSet names the three lists of a comparison.
type CompareSet int

const (
	CompareNew CompareSet = iota
	CompareFixed
	CompareUnchanged
)

// CompareRow is one finding of a comparison and the list it belongs to.
type CompareRow struct {
	Set CompareSet
	FindingRow
}

// Compare iterates new (in b, not in a), then fixed (in a, not in b),
// then unchanged (in both, as found in b) findings by fingerprint, each
// list in canonical order, within one read snapshot. Membership comes from
// one merge of the two scans' fingerprint indexes into two bitsets (one
// bit per finding), so memory is a bit per finding and rows are read only
// when written out.
func (s *Reader) Compare(ctx context.Context, a, b scans.Scan) iter.Seq2[CompareRow, error] {
	return func(yield func(CompareRow, error) bool) {
		tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			yield(CompareRow{}, err)
			return
		}
		defer tx.Rollback()
		inB, inA, err := s.compareMembership(ctx, tx, a, b)
		if err != nil {
			yield(CompareRow{}, err)
			return
		}
		// new: b's findings whose fingerprint a lacks; unchanged: the rest.
		for _, step := range []struct {
			set  CompareSet
			scan scans.Scan
			bits bitset
			want bool
		}{{CompareNew, b, inA, false}, {CompareFixed, a, inB, false}, {CompareUnchanged, b, inA, true}} {
			if step.scan.Status != scans.StatusCompleted {
				continue
			}
			for lo, hi := range step.bits.runs(step.want) {
				if !readRange(ctx, tx, step.scan.Seq, lo, hi, func(r FindingRow) bool { return yield(CompareRow{step.set, r}, nil) },
					func(err error) { yield(CompareRow{}, err) }) {
					return
				}
			}
		}
	}
}

// bitset holds one bit per ord of a scan.
type bitset struct {
	bits []uint64
	n    int
}

func newBitset(n int) bitset { return bitset{bits: make([]uint64, (n+63)/64), n: n} }
func (b bitset) set(i int) {
	if i >= 0 && i < b.n {
		b.bits[i/64] |= 1 << (i % 64)
	}
}
func (b bitset) has(i int) bool { return b.bits[i/64]&(1<<(i%64)) != 0 }

// runs yields the maximal ranges [lo, hi] of positions whose bit is want.
func (b bitset) runs(want bool) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < b.n; {
			if b.has(i) != want {
				i++
				continue
			}
			j := i
			for j+1 < b.n && b.has(j+1) == want {
				j++
			}
			if !yield(i, j) {
				return
			}
			i = j + 1
		}
	}
}

// compareMembership merges the fingerprint indexes of a and b: inB marks
// a's findings whose fingerprint b has, inA b's findings that a has. a's
// index is read on a second connection and goroutine while b's is read
// here: a completed scan's fingerprints never change, so the two reads
// need no common snapshot.
func (s *Reader) compareMembership(ctx context.Context, tx *sql.Tx, a, b scans.Scan) (inB, inA bitset, err error) {
	na, nb := 0, 0
	if a.Status == scans.StatusCompleted {
		na = a.FindingsCount
	}
	if b.Status == scans.StatusCompleted {
		nb = b.FindingsCount
	}
	inB, inA = newBitset(na), newBitset(nb)
	if na == 0 || nb == 0 {
		return inB, inA, nil
	}
	type fpOrd struct {
		fp  string
		ord int
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []fpOrd, 2)
	var readErr error
	go func() {
		defer close(batches)
		rows, err := s.db.QueryContext(ctx, "SELECT fingerprint, ord FROM finding_fps WHERE scan_seq = ? ORDER BY fingerprint, ord", a.Seq)
		if err != nil {
			readErr = err
			return
		}
		defer rows.Close()
		batch := make([]fpOrd, 0, 4096)
		for rows.Next() {
			var r fpOrd
			if err := rows.Scan(&r.fp, &r.ord); err != nil {
				readErr = err
				return
			}
			if batch = append(batch, r); len(batch) == cap(batch) {
				select {
				case batches <- batch:
				case <-ctx.Done():
					return
				}
				batch = make([]fpOrd, 0, 4096)
			}
		}
		readErr = rows.Err()
		if len(batch) > 0 && readErr == nil {
			select {
			case batches <- batch:
			case <-ctx.Done():
			}
		}
	}()
	var cur []fpOrd
	nextA := func() (fpOrd, bool) {
		for len(cur) == 0 {
			b, ok := <-batches
			if !ok {
				return fpOrd{}, false
			}
			cur = b
		}
		r := cur[0]
		cur = cur[1:]
		return r, true
	}
	rb, err := tx.QueryContext(ctx, "SELECT fingerprint, ord FROM finding_fps WHERE scan_seq = ? ORDER BY fingerprint, ord", b.Seq)
	if err != nil {
		return inB, inA, err
	}
	defer rb.Close()
	var rowB fpOrd
	okB := rb.Next()
	if okB {
		if err := rb.Scan(&rowB.fp, &rowB.ord); err != nil {
			return inB, inA, err
		}
	}
	rowA, okA := nextA()
	for okA && okB {
		switch c := strings.Compare(rowA.fp, rowB.fp); {
		case c < 0:
			rowA, okA = nextA()
		case c > 0:
			if okB = rb.Next(); okB {
				if err := rb.Scan(&rowB.fp, &rowB.ord); err != nil {
					return inB, inA, err
				}
			}
		default:
			// Every row of either scan with this fingerprint matches.
			fp := rowA.fp
			for okA && rowA.fp == fp {
				inB.set(rowA.ord)
				rowA, okA = nextA()
			}
			for okB && rowB.fp == fp {
				inA.set(rowB.ord)
				if okB = rb.Next(); okB {
					if err := rb.Scan(&rowB.fp, &rowB.ord); err != nil {
						return inB, inA, err
					}
				}
			}
		}
	}
	if err := rb.Err(); err != nil {
		return inB, inA, err
	}
	// When b ran out first, a's reader is stopped and what it says after
	// that does not matter; when a ran out, its reader's error is real.
	cancel()
	for range batches {
	}
	if !okA && readErr != nil {
		return inB, inA, readErr
	}
	return inB, inA, nil
}

// readRange yields the rows lo..hi of a scan in order.
func readRange(ctx context.Context, tx *sql.Tx, seq int64, lo, hi int, yield func(FindingRow) bool, fail func(error)) bool {
	_, ok := queryFindingRows(ctx, tx, "SELECT "+findingRowColumns+" FROM findings f NOT INDEXED"+findingRowJoins+
		" WHERE f.k BETWEEN ?2 AND ?3 ORDER BY f.k", []any{seq, Key(seq, lo), Key(seq, hi)},
		func(r FindingRow, err error) bool {
			if err != nil {
				fail(err)
				return false
			}
			return yield(r)
		})
	return ok
}

// ControlFingerprints iterates, in order and without repeats, the
// fingerprints of a scan's unsuppressed findings that carry tag and whose
// verdict is not false_positive: the fingerprints of one compliance
// control. It reads the scan's fingerprint index, not the findings.
func (s *Reader) ControlFingerprints(ctx context.Context, sc scans.Scan, tag string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if sc.Status != scans.StatusCompleted {
			return
		}
		rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT p.fingerprint FROM finding_fps p
			LEFT JOIN triage_states t ON t.fingerprint = p.fingerprint
			WHERE p.scan_seq = ? AND p.suppressed = 0 AND p.tagset IN (SELECT tagset FROM tagset_tags WHERE tag = ?)
				AND (t.status IS NULL OR t.status <> 'false_positive')
			ORDER BY p.fingerprint`, sc.Seq, tag)
		if err != nil {
			yield("", err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			var fp string
			if err := rows.Scan(&fp); err != nil {
				yield("", err)
				return
			}
			if !yield(fp, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield("", err)
		}
	}
}

// RuleSummary is one (scanner, rule) of a scan, for a report's rule table.
type RuleSummary struct {
	Scanner, RuleID string
	// First is the rule's first finding in canonical order, decoded.
	First finding.Finding
	// Worst is the most severe severity among the rule's findings.
	Worst finding.Severity
	CWEs  []string
	Tags  []string
}

// ScanRules returns the rules of a completed scan's findings, stored at
// ingest, with each rule's first finding.
func (s *Reader) ScanRules(ctx context.Context, sc scans.Scan) ([]RuleSummary, error) {
	if sc.Status != scans.StatusCompleted {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT r.scanner, r.rule_id, r.worst, r.cwes, r.tags, f.body, x.text
		FROM finding_rules r JOIN findings f ON f.k = r.scan_seq * 4294967296 + r.first_ord
		LEFT JOIN finding_texts x ON x.scan_seq = r.scan_seq AND x.id = f.text_id
		WHERE r.scan_seq = ? ORDER BY r.scanner, r.rule_id`, sc.Seq)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RuleSummary
	for rows.Next() {
		var r RuleSummary
		var worst, cwes, tags string
		var body, text []byte
		if err := rows.Scan(&r.Scanner, &r.RuleID, &worst, &cwes, &tags, &body, &text); err != nil {
			return nil, err
		}
		r.Worst = finding.Severity(worst)
		if err := json.Unmarshal([]byte(cwes), &r.CWEs); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(tags), &r.Tags); err != nil {
			return nil, err
		}
		if text != nil {
			if body, err = findingjson.Splice(nil, body, text); err != nil {
				return nil, err
			}
		}
		if r.First, err = findingjson.Decode(body); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ScanBlocks returns a completed scan's (severity, scanner) ranges in
// canonical order.
func (s *Reader) ScanBlocks(ctx context.Context, sc scans.Scan) ([]Block, error) {
	if sc.Status != scans.StatusCompleted {
		return nil, nil
	}
	return s.blocks(ctx, s.db, sc)
}

// FindingsByScan returns a completed scan's findings (as many as the query
// selects) decoded, with their triage states. It holds them all in memory:
// handlers stream FindingRows instead; this suits tests and small scans.
func (s *Reader) FindingsByScan(ctx context.Context, scanID string, q FindingQuery) ([]FindingWithState, error) {
	sc, err := s.scans.ScanByID(ctx, scanID)
	if errors.Is(err, sqlbase.ErrNotFound) {
		return []FindingWithState{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []FindingWithState{}
	for row, err := range s.FindingRows(ctx, sc, q) {
		if err != nil {
			return nil, err
		}
		fw, err := row.Decode()
		if err != nil {
			return nil, err
		}
		out = append(out, fw)
	}
	return out, nil
}

// AppendFindingsJSON appends the JSON array of the selected findings with
// their triage states to buf (see FindingRow.AppendJSON).
func (s *Reader) AppendFindingsJSON(ctx context.Context, buf []byte, scanID string, q FindingQuery) ([]byte, error) {
	buf = append(buf, '[')
	sc, err := s.scans.ScanByID(ctx, scanID)
	if errors.Is(err, sqlbase.ErrNotFound) {
		return append(buf, ']'), nil
	}
	if err != nil {
		return buf, err
	}
	first := true
	for row, err := range s.FindingRows(ctx, sc, q) {
		if err != nil {
			return buf, err
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		if buf, err = row.AppendJSON(buf); err != nil {
			return buf, err
		}
	}
	return append(buf, ']'), nil
}
