// Package excerpts stores the code excerpts kept around findings at scan
// time (migration 0021): each distinct window once, a small row per
// finding pointing at it.
package excerpts

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"scand/finding/excerpt"
)

// Excerpts reads and writes the excerpt tables.
type Excerpts struct {
	db, w *sql.DB
	// lookup serves ExcerptLookup (sqlbase.Pools.Lookup).
	lookup *sql.DB
}

// New reads through db and writes through the writer w.
func New(db, lookup, w *sql.DB) *Excerpts { return &Excerpts{db: db, lookup: lookup, w: w} }

// Item is the excerpt of one finding of a scan.
type Item struct {
	Fingerprint string
	Excerpt     *excerpt.Excerpt
}

// fpKey is the first 8 bytes of a hex fingerprint as an integer.
func fpKey(fingerprint string) (int64, bool) {
	if len(fingerprint) < 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(fingerprint[:16], 16, 64)
	return int64(v), err == nil
}

// storedRow is an excerpt as the tables keep it: the finding's key, and
// the compressed window with its hash.
type storedRow struct {
	FP   int64
	Hash int64
	Body string // hex
}

// encodeRaw compresses an encoded window and hashes what is stored.
func encodeRaw(fp int64, raw []byte) storedRow {
	body := compress(raw)
	sum := sha256.Sum256(body)
	return storedRow{FP: fp, Hash: int64(binary.BigEndian.Uint64(sum[:8])), Body: hex.EncodeToString(body)}
}

// putRows writes a batch of a scan's excerpts in one short write
// transaction. A finding that has one already keeps it; a window already
// stored is shared. A window shown by several findings of the batch
// travels once: the bodies and the rows are bound as two JSON arrays. Of
// two bodies with one hash (a 64-bit clash) the second's rows are dropped.
func (x *Excerpts) putRows(ctx context.Context, scanSeq int64, rows []storedRow) error {
	if len(rows) == 0 {
		return nil
	}
	bodyOf := make(map[int64]string, len(rows))
	var bodies [][2]any // hash, hex body
	links := make([][2]int64, 0, len(rows))
	for _, r := range rows {
		if b, seen := bodyOf[r.Hash]; seen {
			if b != r.Body {
				continue
			}
		} else {
			bodyOf[r.Hash] = r.Body
			bodies = append(bodies, [2]any{r.Hash, r.Body})
		}
		links = append(links, [2]int64{r.FP, r.Hash})
	}
	bodyList, err := json.Marshal(bodies)
	if err != nil {
		return err
	}
	linkList, err := json.Marshal(links)
	if err != nil {
		return err
	}
	tx, err := x.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO excerpt_bodies (hash, body)
		SELECT value ->> 0, unhex(value ->> 1) FROM json_each(?) WHERE true
		ON CONFLICT (hash) DO NOTHING`, string(bodyList)); err != nil {
		return err
	}
	// A row links to the stored body of its hash only when that body is
	// the batch's: a clash with a body stored earlier costs the excerpt.
	if _, err := tx.ExecContext(ctx, `INSERT INTO finding_excerpts (scan_seq, fp, body_id)
		SELECT ?, r.value ->> 0, b.id FROM json_each(?) r JOIN excerpt_bodies b ON b.hash = r.value ->> 1
		WHERE b.hash IN (SELECT s.hash FROM json_each(?) d JOIN excerpt_bodies s ON s.hash = d.value ->> 0 AND s.body = unhex(d.value ->> 1))
		ORDER BY r.key ON CONFLICT DO NOTHING`, scanSeq, string(linkList), string(bodyList)); err != nil {
		return err
	}
	// A body stored here whose every link was already there (a finding's
	// second excerpt) is shown by nothing.
	if _, err := tx.ExecContext(ctx, `DELETE FROM excerpt_bodies WHERE refs <= 0 AND hash IN (SELECT value ->> 0 FROM json_each(?))`,
		string(bodyList)); err != nil {
		return err
	}
	return tx.Commit()
}

// Excerpt returns a finding's excerpt in a scan (line is the finding's
// line); nil when none was kept.
func (x *Excerpts) Excerpt(ctx context.Context, scanSeq int64, fingerprint string, line int) (*excerpt.Excerpt, error) {
	fp, ok := fpKey(fingerprint)
	if !ok {
		return nil, nil
	}
	var body []byte
	err := x.db.QueryRowContext(ctx, `SELECT b.body FROM finding_excerpts e JOIN excerpt_bodies b ON b.id = e.body_id
		WHERE e.scan_seq = ? AND e.fp = ?`, scanSeq, fp).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decode(body, line)
}

// Lookup reads the excerpts of one scan's findings for a report, a batch
// at a time.
type Lookup struct {
	db  *sql.DB
	seq int64
	// decoded holds the excerpts already decoded, by body: findings share
	// windows (a body is stored once however many show it), and reading,
	// inflating and parsing the same body again for each of them was most
	// of what a report's excerpts cost. At most lookupDecodedBodies.
	mu      sync.Mutex
	decoded map[int64]*excerpt.Excerpt
}

// lookupDecodedBodies bounds a Lookup's decoded bodies (a few hundred
// bytes each): past it the set starts over.
const lookupDecodedBodies = 8192

// ExcerptLookup is a Lookup over a scan's excerpts. It reads through the
// lookup pool: a Lookup is used while its caller streams the scan's
// findings on a reader connection.
func (x *Excerpts) ExcerptLookup(scanSeq int64) *Lookup {
	return &Lookup{db: x.lookup, seq: scanSeq}
}

// GetMany returns the excerpts of a batch of findings in one query (the
// keys bound as one JSON array), by fingerprint; a finding without an excerpt (or a
// batch that fails: a report without excerpts is still the report) is
// absent.
func (l *Lookup) GetMany(ctx context.Context, fingerprints []string) map[string]*excerpt.Excerpt {
	out := map[string]*excerpt.Excerpt{}
	if l == nil || len(fingerprints) == 0 {
		return out
	}
	byKey := make(map[int64][]string, len(fingerprints))
	keys := make([]int64, 0, len(fingerprints))
	for _, f := range fingerprints {
		if k, ok := fpKey(f); ok {
			if _, seen := byKey[k]; !seen {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], f)
		}
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return out
	}
	rows, err := l.db.QueryContext(ctx, `SELECT e.fp, e.body_id FROM json_each(?) j CROSS JOIN finding_excerpts e
		WHERE e.scan_seq = ? AND e.fp = j.value`, string(list), l.seq)
	if err != nil {
		return out
	}
	bodyOf := make(map[int64]int64, len(keys))
	for rows.Next() {
		var k, id int64
		if rows.Scan(&k, &id) != nil {
			rows.Close()
			return out
		}
		bodyOf[k] = id
	}
	if rows.Close() != nil || rows.Err() != nil {
		return out
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.decoded == nil || len(l.decoded) > lookupDecodedBodies {
		l.decoded = map[int64]*excerpt.Excerpt{}
	}
	var missing []int64
	for _, id := range bodyOf {
		if _, ok := l.decoded[id]; !ok {
			l.decoded[id] = nil // asked for once
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		l.readBodies(ctx, missing)
	}
	for k, id := range bodyOf {
		if e := l.decoded[id]; e != nil {
			for _, f := range byKey[k] {
				out[f] = e
			}
		}
	}
	return out
}

// readBodies decodes the bodies ids into l.decoded; a body that cannot
// be read or decoded stays nil (that finding has no excerpt).
func (l *Lookup) readBodies(ctx context.Context, ids []int64) {
	list, err := json.Marshal(ids)
	if err != nil {
		return
	}
	rows, err := l.db.QueryContext(ctx, `SELECT b.id, b.body FROM json_each(?) j JOIN excerpt_bodies b ON b.id = j.value`, string(list))
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var body []byte
		if rows.Scan(&id, &body) != nil {
			return
		}
		if e, err := decode(body, 0); err == nil {
			l.decoded[id] = e
		}
	}
}

// deflaters are reused: a new flate writer costs far more than
// compressing one small excerpt.
var deflaters = sync.Pool{New: func() any {
	d := &deflater{}
	d.w, _ = flate.NewWriter(&d.buf, flate.BestSpeed)
	return d
}}

type deflater struct {
	w   *flate.Writer
	buf bytes.Buffer
}

// compress deflates a stored body behind a format byte (1), or keeps it
// as it is behind a 0 when deflating does not make it smaller. BestSpeed:
// on a few hundred bytes it saves about as much as the slower levels,
// whose per-call table setup costs more than the compression.
func compress(raw []byte) []byte {
	d := deflaters.Get().(*deflater)
	defer deflaters.Put(d)
	d.buf.Reset()
	d.buf.WriteByte(1)
	d.w.Reset(&d.buf)
	d.w.Write(raw)
	d.w.Close()
	if d.buf.Len() >= len(raw)+1 {
		return append([]byte{0}, raw...)
	}
	return bytes.Clone(d.buf.Bytes())
}

// inflaters are reused for the same reason as deflaters: a new flate
// reader allocates its 32 KiB window, more than an excerpt's whole body.
var inflaters sync.Pool

func inflate(body []byte) ([]byte, error) {
	src := bytes.NewReader(body)
	r, _ := inflaters.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReader(src)
	} else if err := r.(flate.Resetter).Reset(src, nil); err != nil {
		return nil, err
	}
	defer inflaters.Put(r)
	// A stored body is at most 7 capped lines: 4 KiB bounds it.
	return io.ReadAll(io.LimitReader(r, 4<<10))
}

func decode(body []byte, line int) (*excerpt.Excerpt, error) {
	if len(body) == 0 {
		return nil, errors.New("excerpt: empty stored body")
	}
	raw := body[1:]
	if body[0] == 1 {
		var err error
		if raw, err = inflate(body[1:]); err != nil {
			return nil, err
		}
	}
	return excerpt.Decode(raw, line)
}
