// Package vex keeps imported VEX statements (vex_documents,
// vex_statements, vex_products) and reads the dependency findings they
// are matched against. It holds rows only: parsing documents and
// matching purls and advisory ids is the top-level vex package's, and
// setting the verdicts store's (SetVEXVerdicts). store embeds a
// Statements, so these are *store.Store's methods.
package vex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"scand/store/sqlbase"
)

// Statements is the VEX tables.
type Statements struct {
	db, w *sql.DB
	now   func() time.Time
}

// New reads through db, writes through the writer w and stamps with now.
func New(db, w *sql.DB, now func() time.Time) *Statements {
	return &Statements{db: db, w: w, now: now}
}

// Document is an imported document.
type Document struct {
	Seq        int64      `json:"id"`
	DocID      string     `json:"document_id" doc:"the document's @id (OpenVEX) or serialNumber (CycloneDX)"`
	Format     string     `json:"format" doc:"openvex or cyclonedx"`
	Author     string     `json:"author"`
	IssuedAt   *time.Time `json:"issued_at"`
	ImportedAt time.Time  `json:"imported_at"`
	ImportedBy string     `json:"imported_by"`
	Statements int        `json:"statements"`
}

// Statement is one stored statement.
type Statement struct {
	Seq             int64    `json:"id"`
	DocSeq          int64    `json:"document"`
	Idx             int      `json:"index" doc:"position in its document, from 0"`
	Vulnerability   string   `json:"vulnerability"`
	Aliases         []string `json:"aliases"`
	Products        []string `json:"products"`
	Status          string   `json:"status" doc:"not_affected, affected, fixed or under_investigation"`
	Justification   string   `json:"justification"`
	ImpactStatement string   `json:"impact_statement"`
	ActionStatement string   `json:"action_statement"`
	Applied         int      `json:"applied" doc:"findings this statement has set a false_positive verdict on, now and at later scans"`
	// Of its document:
	Author     string    `json:"author"`
	DocID      string    `json:"document_id"`
	Format     string    `json:"format"`
	ImportedAt time.Time `json:"imported_at"`
}

// ProductKey is a not_affected statement's product by package key and
// version ("" = any).
type ProductKey struct{ Key, Version string }

// NewStatement is a statement to store and the keys it is found by.
type NewStatement struct {
	Statement
	Keys []ProductKey
}

// StoreVEXDocument stores a document and its statements in one
// transaction and returns the document's seq and each statement's.
func (t *Statements) StoreVEXDocument(ctx context.Context, doc Document, stmts []NewStatement) (int64, []int64, error) {
	doc.ImportedAt = t.now().UTC().Truncate(time.Microsecond)
	seqs := make([]int64, len(stmts))
	var docSeq int64
	err := sqlbase.InTx(ctx, t.w, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO vex_documents (doc_id, format, author, issued_at, imported_at, imported_by, statements)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, doc.DocID, doc.Format, doc.Author, sqlbase.NullTime(doc.IssuedAt), sqlbase.FormatTime(doc.ImportedAt),
			doc.ImportedBy, len(stmts))
		if err != nil {
			return err
		}
		if docSeq, err = res.LastInsertId(); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO vex_statements (doc_seq, idx, vulnerability, aliases, products, status, justification,
			impact_statement, action_statement) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		key, err := tx.PrepareContext(ctx, "INSERT OR IGNORE INTO vex_products (purl_key, version, statement_seq) VALUES (?, ?, ?)")
		if err != nil {
			return err
		}
		defer key.Close()
		for i, st := range stmts {
			res, err := ins.ExecContext(ctx, docSeq, i, st.Vulnerability, jsonList(st.Aliases), jsonList(st.Products), st.Status,
				st.Justification, st.ImpactStatement, st.ActionStatement)
			if err != nil {
				return err
			}
			if seqs[i], err = res.LastInsertId(); err != nil {
				return err
			}
			for _, k := range st.Keys {
				if _, err := key.ExecContext(ctx, k.Key, k.Version, seqs[i]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return docSeq, seqs, err
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	return sqlbase.MustJSON(v)
}

const statementColumns = `s.seq, s.doc_seq, s.idx, s.vulnerability, s.aliases, s.products, s.status, s.justification,
	s.impact_statement, s.action_statement, s.applied, d.author, d.doc_id, d.format, d.imported_at`

func scanStatement(row sqlbase.Row) (Statement, error) {
	var st Statement
	var aliases, products, at string
	if err := row.Scan(&st.Seq, &st.DocSeq, &st.Idx, &st.Vulnerability, &aliases, &products, &st.Status, &st.Justification,
		&st.ImpactStatement, &st.ActionStatement, &st.Applied, &st.Author, &st.DocID, &st.Format, &at); err != nil {
		return st, err
	}
	st.ImportedAt = sqlbase.ParseTime(at)
	if err := json.Unmarshal([]byte(aliases), &st.Aliases); err != nil {
		return st, err
	}
	return st, json.Unmarshal([]byte(products), &st.Products)
}

// HasVEXProducts reports whether any not_affected statement is stored:
// without one, a completed scan has nothing to look up.
func (t *Statements) HasVEXProducts(ctx context.Context) (bool, error) {
	var n int
	err := t.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM vex_products)").Scan(&n)
	return n == 1, err
}

// VEXStatementsForPackage returns the stored not_affected statements
// with a product of package key at version (or at any version), newest
// first.
func (t *Statements) VEXStatementsForPackage(ctx context.Context, key, version string) ([]Statement, error) {
	rows, err := t.db.QueryContext(ctx, `SELECT DISTINCT `+statementColumns+` FROM vex_products p
		JOIN vex_statements s ON s.seq = p.statement_seq JOIN vex_documents d ON d.seq = s.doc_seq
		WHERE p.purl_key = ? AND p.version IN ('', ?) ORDER BY s.seq DESC`, key, version)
	return sqlbase.Collect(rows, err, scanStatement)
}

// AddVEXAppliedTx adds to the applied counts of statements, in the
// transaction that sets their verdicts.
func (t *Statements) AddVEXAppliedTx(ctx context.Context, tx *sql.Tx, counts map[int64]int) error {
	for seq, n := range counts {
		if _, err := tx.ExecContext(ctx, "UPDATE vex_statements SET applied = applied + ? WHERE seq = ?", n, seq); err != nil {
			return err
		}
	}
	return nil
}

// StatementQuery selects stored statements, newest first.
type StatementQuery struct {
	Status        string
	Vulnerability string
	Document      int64
	// After is the cursor of the previous page ("" for the first).
	After string
	Limit int
}

// ErrBadCursor means After is not a cursor this table handed out.
var ErrBadCursor = errors.New("invalid cursor")

// VEXStatements returns one page of stored statements and the cursor of
// the next ("" at the end).
func (t *Statements) VEXStatements(ctx context.Context, q StatementQuery) ([]Statement, string, error) {
	where, args := "1 = 1", []any{}
	if q.After != "" {
		seq, err := strconv.ParseInt(q.After, 10, 64)
		if err != nil || seq <= 0 {
			return nil, "", ErrBadCursor
		}
		where, args = where+" AND s.seq < ?", append(args, seq)
	}
	if q.Status != "" {
		where, args = where+" AND s.status = ?", append(args, q.Status)
	}
	if q.Vulnerability != "" {
		where, args = where+` AND (upper(s.vulnerability) = upper(?) OR EXISTS (SELECT 1 FROM json_each(s.aliases) WHERE upper(value) = upper(?)))`,
			append(args, q.Vulnerability, q.Vulnerability)
	}
	if q.Document > 0 {
		where, args = where+" AND s.doc_seq = ?", append(args, q.Document)
	}
	limit := q.Limit
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	rows, err := t.db.QueryContext(ctx, "SELECT "+statementColumns+` FROM vex_statements s JOIN vex_documents d ON d.seq = s.doc_seq
		WHERE `+where+" ORDER BY s.seq DESC LIMIT ?", append(args, limit+1)...)
	out, err := sqlbase.Collect(rows, err, scanStatement)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = strconv.FormatInt(out[limit-1].Seq, 10)
	}
	if out == nil {
		out = []Statement{}
	}
	return out, next, nil
}

// DependencyFinding is what matching needs of a dependency finding.
type DependencyFinding struct {
	Fingerprint                         string
	RuleID, Package, Version, Ecosystem string
	Aliases                             []string
	// Status and UpdatedBy are its verdict ("" when none).
	Status, UpdatedBy string
}

const dependencyColumns = `f.fingerprint, coalesce(json_extract(f.body, '$.rule_id'), ''),
	coalesce(json_extract(f.body, '$.metadata.package'), ''), coalesce(json_extract(f.body, '$.metadata.version'), ''),
	coalesce(json_extract(f.body, '$.metadata.ecosystem'), ''), coalesce(json_extract(f.body, '$.metadata.aliases'), '[]'),
	coalesce(ts.status, ''), coalesce(ts.updated_by, '')`

// ScanDependencyFindings yields the dependency findings of one scan
// (by its seq) that name a package, in canonical order.
func (t *Statements) ScanDependencyFindings(ctx context.Context, scanSeq int64, yield func(DependencyFinding) bool) error {
	rows, err := t.db.QueryContext(ctx, "SELECT "+dependencyColumns+` FROM findings f
		LEFT JOIN triage_states ts ON ts.fingerprint = f.fingerprint
		WHERE f.k BETWEEN ?1 << 32 AND (?1 << 32) + 4294967295 AND f.scan_type = 'dependency'
			AND json_extract(f.body, '$.metadata.package') IS NOT NULL ORDER BY f.k`, scanSeq)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var d DependencyFinding
		var aliases string
		if err := rows.Scan(&d.Fingerprint, &d.RuleID, &d.Package, &d.Version, &d.Ecosystem, &aliases, &d.Status, &d.UpdatedBy); err != nil {
			return err
		}
		_ = json.Unmarshal([]byte(aliases), &d.Aliases)
		if !yield(d) {
			return nil
		}
	}
	return rows.Err()
}

// LatestScanSeqs lists the latest completed scan of every target: the
// findings a VEX import applies to now (later scans get it at completion).
func (t *Statements) LatestScanSeqs(ctx context.Context) ([]int64, error) {
	rows, err := t.db.QueryContext(ctx, "SELECT DISTINCT latest_seq FROM targets WHERE latest_seq IS NOT NULL ORDER BY latest_seq")
	return sqlbase.Collect(rows, err, func(row sqlbase.Row) (int64, error) {
		var seq int64
		return seq, row.Scan(&seq)
	})
}
