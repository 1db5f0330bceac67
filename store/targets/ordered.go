package targets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"scand/store/scratch"
	"scand/store/sqlbase"
)

// OrderedAges are the sightings of one scan's findings, read in
// canonical order beside a stream of the scan's rows. AgesOf looks each
// fingerprint up in finding_age at a random place (a fingerprint is a
// hash): a million of them took half of an export's time. Here
// finding_fps and finding_age are read together in fingerprint order,
// each front to back, and a scratch file sorts the result by ord.
type OrderedAges struct {
	file *scratch.File
	rows *sql.Rows
	// ord and age are the row read last, when have is set; asked is the
	// ord asked last.
	ord, asked int64
	age        Age
	have, done bool
	err        error
}

// OrderedAgesOf reads the ages of the findings of scan seq whose ord is
// above after into a scratch file beside the database at dbPath; nil
// when the scan has no target. The read is one statement through the
// lookup pool: it waits for nothing else, so a caller holding a stream
// of rows may call it. Close removes the file.
func (s *Targets) OrderedAgesOf(ctx context.Context, dbPath string, seq, after int64) (*OrderedAges, error) {
	var targetID sql.NullInt64
	err := s.lookup.QueryRowContext(ctx, "SELECT target_id FROM scans WHERE seq = ?", seq).Scan(&targetID)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !targetID.Valid) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := scratch.Open(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	o := &OrderedAges{file: f, asked: -1}
	if err := o.fill(ctx, dbPath, targetID.Int64, seq, after); err != nil {
		o.Close()
		return nil, err
	}
	if o.rows, err = f.DB.QueryContext(ctx, "SELECT ord, first_seen, last_seen FROM ages ORDER BY ord"); err != nil {
		o.Close()
		return nil, err
	}
	return o, nil
}

func (o *OrderedAges) fill(ctx context.Context, dbPath string, targetID, seq, after int64) error {
	// The scratch connection reads the database itself (attached read
	// only, its own snapshot): the join, the sort and the copy run inside
	// SQLite with no row crossing into Go, and no pool connection is held.
	conn, err := o.file.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS live", readOnlyURI(dbPath)); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), "DETACH DATABASE live")
	if _, err := conn.ExecContext(ctx, `CREATE TABLE ages (ord INTEGER PRIMARY KEY, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL)`); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO ages SELECT p.ord, a.first_seen, a.last_seen FROM live.finding_fps p
		JOIN live.finding_age a ON a.target_id = ? AND a.fingerprint = p.fingerprint
		WHERE p.scan_seq = ? AND p.ord > ? ORDER BY p.ord`, targetID, seq, after); err != nil {
		return err
	}
	return nil
}

// Get returns the age of the finding at ord, and false when it has none.
// Ords must be asked in increasing order; one asked below the previous
// one finds nothing and is reported by Err.
func (o *OrderedAges) Get(ord int64) (Age, bool) {
	if o.err != nil {
		return Age{}, false
	}
	if ord < o.asked {
		o.err = fmt.Errorf("ordered ages: ord %d asked after %d", ord, o.asked)
		return Age{}, false
	}
	o.asked = ord
	for !o.done && (!o.have || o.ord < ord) {
		if !o.rows.Next() {
			o.done, o.err = true, o.rows.Err()
			break
		}
		var first, last string
		if err := o.rows.Scan(&o.ord, &first, &last); err != nil {
			o.err = err
			return Age{}, false
		}
		o.have = true
		o.age = Age{FirstSeen: sqlbase.ParseTime(first), LastSeen: sqlbase.ParseTime(last)}
	}
	if o.have && o.ord == ord {
		return o.age, true
	}
	return Age{}, false
}

// Err is the first error of a read or an ord asked out of order.
func (o *OrderedAges) Err() error { return o.err }

// Close ends the read and removes the scratch file; nil-safe.
func (o *OrderedAges) Close() {
	if o == nil {
		return
	}
	if o.rows != nil {
		o.rows.Close()
	}
	o.file.Close()
}

// readOnlyURI names the database file at path for a read-only ATTACH.
func readOnlyURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) + "?mode=ro"
}
