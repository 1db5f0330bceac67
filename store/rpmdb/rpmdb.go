// Package rpmdb reads the package headers of an RPM database in its SQLite
// form (rpmdb.sqlite), a file of a scanned image or tree. The statement is
// under store/ because every SQL statement scand runs is.
package rpmdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite"
)

// ErrTooLarge means an RPM database holds more than the caller's caps.
var ErrTooLarge = errors.New("RPM database is larger than the limit")

// Headers reads the package headers of an RPM database in its SQLite form
// (rpmdb.sqlite): a file of a scanned image or tree, so hostile. It
// is opened read-only and immutable (nothing is written beside it, no
// journal is replayed), with trusted_schema off so its schema cannot make
// a query run functions, and only the Packages table's blobs are read,
// at most maxRows of them and maxBytes in all.
func Headers(ctx context.Context, path string, maxRows int, maxBytes int64) ([][]byte, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("immutable", "1")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "trusted_schema(0)")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.QueryContext(ctx, "SELECT blob FROM Packages")
	if err != nil {
		return nil, fmt.Errorf("rpmdb.sqlite: %w", err)
	}
	defer rows.Close()
	var out [][]byte
	var total int64
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("rpmdb.sqlite: %w", err)
		}
		total += int64(len(b))
		if len(out) >= maxRows || total > maxBytes {
			return nil, ErrTooLarge
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rpmdb.sqlite: %w", err)
	}
	return out, nil
}
