package findings

// A scan's findings in an order other than the canonical one (issue 26: a
// reviewer sorts by age, file, scanner or rule). Each order is a key the
// row holds or the target's finding_age gives, with the canonical position
// breaking ties, so it is total and stable, and a page resumes after the
// last key it showed (keyset paging). There is no index per order: a page
// reads the scan's selected rows and keeps the first Limit by the key (a
// bounded sort), which costs a pass over the scan but never more.

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"scand/store/scans"
	"scand/store/sqlbase"
)

// Orders of a scan's findings. Severity is the canonical order (most
// severe first); first_seen lists the oldest first; the others ascend.
const (
	SortSeverity  = "severity"
	SortFirstSeen = "first_seen"
	SortFile      = "file"
	SortScanner   = "scanner"
	SortRule      = "rule"
)

// FindingSorts lists the orders, the canonical one first.
var FindingSorts = []string{SortSeverity, SortFirstSeen, SortFile, SortScanner, SortRule}

// SortKey is a position in an order: the sort key (Str, and Line for the
// file order) and the canonical position that breaks ties. In the
// canonical order only Ord counts.
type SortKey struct {
	Str  string `json:"s,omitempty"`
	Line int    `json:"l,omitempty"`
	Ord  int    `json:"o"`
}

// sortExprs are the SQL of an order's key columns; the last is always
// the canonical position.
func sortExprs(sort string) []string {
	body := "CAST(f.body AS TEXT)"
	switch sort {
	case SortFirstSeen:
		// A finding not aged yet (its scan still being recorded) is as
		// old as the scan.
		return []string{"coalesce(a.first_seen, ?4)"}
	case SortFile:
		return []string{"coalesce(json_extract(" + body + ", '$.file_path'), '')", "coalesce(json_extract(" + body + ", '$.line'), 0)"}
	case SortScanner:
		return []string{"f.scanner"}
	case SortRule:
		return []string{"coalesce(json_extract(" + body + ", '$.rule_id'), '')"}
	}
	return nil
}

// sortedFilter is q's filters as SQL over findings f and triage_states t.
func sortedFilter(q ConsoleFindingQuery) (string, []any) {
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) > 0 {
			where = append(where, col+" IN ("+sqlbase.Placeholders(len(vals))+")")
			args = append(args, sqlbase.AnySlice(vals)...)
		}
	}
	in("f.severity", q.Severities)
	in("f.scanner", q.Scanners)
	in("f.scan_type", q.ScanTypes)
	in("coalesce(t.status, 'new')", q.Triage)
	if len(q.Compliance) > 0 {
		where = append(where, "f.tagset IN (SELECT tagset FROM tagset_tags WHERE tag IN ("+sqlbase.Placeholders(len(q.Compliance))+"))")
		args = append(args, sqlbase.AnySlice(q.Compliance)...)
	}
	if q.Suppressed != nil {
		where = append(where, "f.suppressed = ?")
		args = append(args, map[bool]int{false: 0, true: 1}[*q.Suppressed])
	}
	if q.Text != "" {
		cond, a := textFilter(q.Text)
		where = append(where, cond)
		args = append(args, a...)
	}
	if len(where) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(where, " AND "), args
}

// keyBound is the SQL that keeps rows past key k in the order (after) or
// before it, and its arguments.
func keyBound(sort string, k SortKey, after bool) (string, []any) {
	cols := append(sortExprs(sort), "f.k")
	op := ">"
	if !after {
		op = "<"
	}
	vals := []any{k.Str}
	if sort == SortFile {
		vals = append(vals, k.Line)
	}
	return " AND (" + strings.Join(cols, ", ") + ") " + op + " (" + sqlbase.Placeholders(len(vals)+1) + ")", append(vals, nil)
}

// sortedFindings is ConsoleFindings in a non-canonical order: q.AfterKey
// and q.BeforeKey bound it, q.Last reads the last page.
func (s *Reader) sortedFindings(ctx context.Context, sc scans.Scan, q ConsoleFindingQuery) (ConsoleFindingPage, error) {
	out := ConsoleFindingPage{Rows: []OrderedFinding{}}
	exprs := sortExprs(q.Sort)
	limit := max(q.Limit, 1)
	backwards := q.AfterKey == nil && (q.BeforeKey != nil || q.Last)
	filter, args := sortedFilter(q)
	// ?1 the scan's seq (findingRowJoins), ?2 and ?3 its key range, ?4
	// its completion time (first_seen of findings not aged yet).
	completed := ""
	if sc.CompletedAt != nil {
		completed = sqlbase.FormatTime(*sc.CompletedAt)
	}
	base := []any{sc.Seq, Key(sc.Seq, 0), Key(sc.Seq, 1<<32-1), completed}
	var bound string
	var boundArgs []any
	switch {
	case q.AfterKey != nil:
		bound, boundArgs = keyBound(q.Sort, *q.AfterKey, true)
		boundArgs[len(boundArgs)-1] = Key(sc.Seq, q.AfterKey.Ord)
	case q.BeforeKey != nil:
		bound, boundArgs = keyBound(q.Sort, *q.BeforeKey, false)
		boundArgs[len(boundArgs)-1] = Key(sc.Seq, q.BeforeKey.Ord)
	}
	dir := ""
	if backwards {
		dir = " DESC"
	}
	order := make([]string, 0, len(exprs)+1)
	for _, e := range append(exprs, "f.k") {
		order = append(order, e+dir)
	}
	skip := 0
	if !backwards {
		skip = max(q.Skip, 0)
	}
	keyCols := strings.Join(exprs, ", ")
	if len(exprs) == 1 {
		keyCols += ", 0"
	}
	// Two steps: the order is decided over the keys alone, so the bounded
	// sort never carries a row's body, description or verdict; then the
	// page's rows are read by their positions.
	joins := ""
	if q.Sort == SortFirstSeen {
		joins += " LEFT JOIN finding_age a ON a.target_id = (SELECT target_id FROM scans WHERE seq = ?1) AND a.fingerprint = f.fingerprint"
	}
	if len(q.Triage) > 0 {
		joins += " LEFT JOIN triage_states t ON t.fingerprint = f.fingerprint"
	}
	keysq := "SELECT f.k, " + keyCols + " FROM findings f" + joins +
		" WHERE f.k BETWEEN ?2 AND ?3 AND ?1 = ?1 AND ?4 = ?4" + filter + bound +
		" ORDER BY " + strings.Join(order, ", ") + " LIMIT " + strconv.Itoa(limit) + " OFFSET " + strconv.Itoa(skip)
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, err
	}
	defer tx.Rollback()
	keyRows, err := tx.QueryContext(ctx, keysq, append(append(base, args...), boundArgs...)...)
	if err != nil {
		return out, err
	}
	type position struct {
		k   int64
		key SortKey
	}
	var page []position
	for keyRows.Next() {
		var p position
		var str sql.NullString
		var line sql.NullInt64
		if err := keyRows.Scan(&p.k, &str, &line); err != nil {
			keyRows.Close()
			return out, err
		}
		p.key = SortKey{Str: str.String, Ord: int(p.k & 0xffffffff)}
		if q.Sort == SortFile {
			p.key.Line = int(line.Int64)
		}
		page = append(page, p)
	}
	keyRows.Close()
	if err := keyRows.Err(); err != nil {
		return out, err
	}
	if len(page) > 0 {
		ks := make([]string, len(page))
		for i, p := range page {
			ks[i] = strconv.FormatInt(p.k, 10)
		}
		rows, err := tx.QueryContext(ctx, "SELECT "+findingRowColumns+" FROM findings f"+findingRowJoins+
			" WHERE f.k IN ("+strings.Join(ks, ",")+") AND ?1 = ?1", sc.Seq)
		if err != nil {
			return out, err
		}
		found, err := scanOrderedFindings(rows, nil, nil)
		if err != nil {
			return out, err
		}
		byOrd := make(map[int]OrderedFinding, len(found))
		for _, f := range found {
			byOrd[f.Ord] = f
		}
		for _, p := range page {
			f, ok := byOrd[p.key.Ord]
			if !ok {
				return out, fmt.Errorf("finding %d of scan %s vanished inside one read", p.key.Ord, sc.ID)
			}
			f.Key = p.key
			out.Rows = append(out.Rows, f)
		}
	}
	if backwards {
		slices.Reverse(out.Rows)
	}
	// The count does not depend on the order: the canonical path counts
	// (from the facet counts, or by reading rows for a text search).
	cq := q
	cq.Sort, cq.AfterKey, cq.BeforeKey, cq.Last, cq.After, cq.Before, cq.Skip, cq.Limit = "", nil, nil, false, -1, -1, 0, 1
	counted, err := s.ConsoleFindings(ctx, sc.ID, cq)
	out.Total, out.Capped = counted.Total, counted.Capped
	return out, err
}
