package sqlbase

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"

	"modernc.org/sqlite"
)

// The types below sit between database/sql and the SQLite driver so that
// every failed statement and commit reaches the store's write health, from
// whichever table group of store/ (or future one) issued it: readiness must
// not depend on each query remembering to report its error.

// observedConnector hands out connections whose errors feed health.
type observedConnector struct {
	driver.Connector
	health *Health
	// space refuses writes on a nearly full disk; nil on read connections.
	space *spaceGuard
}

func newObservedConnector(dsn string, health *Health, space *spaceGuard) (driver.Connector, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return observedConnector{Connector: base, health: health, space: space}, nil
}

func (c observedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		c.health.observe(err)
		return nil, err
	}
	return &observedConn{conn: conn, health: c.health, space: c.space}, nil
}

// The SQLite connection implements every interface below; database/sql
// picks its fast paths by type assertion, so the wrapper must too.
var (
	_ driver.Conn               = (*observedConn)(nil)
	_ driver.ConnBeginTx        = (*observedConn)(nil)
	_ driver.ConnPrepareContext = (*observedConn)(nil)
	_ driver.ExecerContext      = (*observedConn)(nil)
	_ driver.QueryerContext     = (*observedConn)(nil)
	_ driver.Pinger             = (*observedConn)(nil)
	_ driver.SessionResetter    = (*observedConn)(nil)
	_ driver.Validator          = (*observedConn)(nil)
	_ driver.StmtExecContext    = (*observedStmt)(nil)
	_ driver.StmtQueryContext   = (*observedStmt)(nil)
)

type observedConn struct {
	conn   driver.Conn
	health *Health
	space  *spaceGuard
}

func (c *observedConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *observedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var st driver.Stmt
	var err error
	if p, ok := c.conn.(driver.ConnPrepareContext); ok {
		st, err = p.PrepareContext(ctx, query)
	} else {
		st, err = c.conn.Prepare(query)
	}
	if err != nil {
		return nil, c.health.observe(err)
	}
	return &observedStmt{stmt: st, health: c.health}, nil
}

func (c *observedConn) Close() error { return c.conn.Close() }

func (c *observedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *observedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	b, ok := c.conn.(driver.ConnBeginTx)
	if !ok {
		return nil, errors.New("sqlite driver lacks BeginTx")
	}
	if !opts.ReadOnly && !isFreeingSpace(ctx) {
		if err := c.space.check(); err != nil {
			return nil, c.health.observe(err)
		}
	}
	tx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return nil, c.health.observe(err)
	}
	return observedTx{tx: tx, health: c.health}, nil
}

func (c *observedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	if !readOnlyStatement(query) && !isFreeingSpace(ctx) {
		if err := c.space.check(); err != nil {
			return nil, c.health.observe(err)
		}
	}
	res, err := e.ExecContext(ctx, query, args)
	return res, c.health.observe(err)
}

func (c *observedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	// INSERT ... RETURNING is a query that writes.
	if !readOnlyStatement(query) && !isFreeingSpace(ctx) {
		if err := c.space.check(); err != nil {
			return nil, c.health.observe(err)
		}
	}
	rows, err := q.QueryContext(ctx, query, args)
	return rows, c.health.observe(err)
}

func (c *observedConn) Ping(ctx context.Context) error {
	if p, ok := c.conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *observedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *observedConn) IsValid() bool {
	if v, ok := c.conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

type observedStmt struct {
	stmt   driver.Stmt
	health *Health
}

func (s *observedStmt) Close() error  { return s.stmt.Close() }
func (s *observedStmt) NumInput() int { return s.stmt.NumInput() }

// Exec and Query are the pre-context forms database/sql no longer calls
// when the context forms exist; they are here to satisfy driver.Stmt.
func (s *observedStmt) Exec(args []driver.Value) (driver.Result, error) {
	res, err := s.stmt.Exec(args)
	return res, s.health.observe(err)
}

func (s *observedStmt) Query(args []driver.Value) (driver.Rows, error) {
	rows, err := s.stmt.Query(args)
	return rows, s.health.observe(err)
}

func (s *observedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	e, ok := s.stmt.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("sqlite driver lacks StmtExecContext")
	}
	res, err := e.ExecContext(ctx, args)
	return res, s.health.observe(err)
}

func (s *observedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("sqlite driver lacks StmtQueryContext")
	}
	rows, err := q.QueryContext(ctx, args)
	return rows, s.health.observe(err)
}

type observedTx struct {
	tx     driver.Tx
	health *Health
}

func (t observedTx) Commit() error   { return t.health.observe(t.tx.Commit()) }
func (t observedTx) Rollback() error { return t.tx.Rollback() }

// readOnlyStatement reports whether an autocommit statement on the writer
// only reads or frees space (a checkpoint, a vacuum step): those must run
// on a full disk, since they are how space comes back.
func readOnlyStatement(query string) bool {
	q := strings.TrimSpace(query)
	for _, p := range []string{"SELECT", "PRAGMA", "DELETE", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"} {
		if len(q) >= len(p) && strings.EqualFold(q[:len(p)], p) {
			return true
		}
	}
	return false
}
