package scratch

import (
	"context"
	"database/sql"
	"fmt"
)

// Sorted reads a scratch table in ord order beside a stream of a scan's
// rows in the same order (a report reading a whole scan): each value is
// found by stepping forward, never by a lookup.
type Sorted[T any] struct {
	file *File
	rows *sql.Rows
	scan func(*sql.Rows) (int64, T, error)
	// ord and val are the row read last, when have is set; asked is the
	// ord asked last.
	ord, asked int64
	val        T
	have, done bool
	err        error
}

// ReadSorted runs query on f, whose rows start with an ord in increasing
// order and are decoded by scan. The Sorted owns f: Close removes it.
func ReadSorted[T any](ctx context.Context, f *File, query string, scan func(*sql.Rows) (int64, T, error)) (*Sorted[T], error) {
	rows, err := f.DB.QueryContext(ctx, query)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Sorted[T]{file: f, rows: rows, scan: scan, asked: -1}, nil
}

// Get returns the value at ord, and false when there is none. Ords must
// be asked in increasing order; one asked below the previous one finds
// nothing and is reported by Err.
func (s *Sorted[T]) Get(ord int64) (T, bool) {
	var zero T
	if s.err != nil {
		return zero, false
	}
	if ord < s.asked {
		s.err = fmt.Errorf("scratch: ord %d asked after %d", ord, s.asked)
		return zero, false
	}
	s.asked = ord
	for !s.done && (!s.have || s.ord < ord) {
		if !s.rows.Next() {
			s.done, s.err = true, s.rows.Err()
			break
		}
		var err error
		if s.ord, s.val, err = s.scan(s.rows); err != nil {
			s.err = err
			return zero, false
		}
		s.have = true
	}
	if s.have && s.ord == ord {
		return s.val, true
	}
	return zero, false
}

// Err is the first error of the read, or of an ord asked out of order.
func (s *Sorted[T]) Err() error {
	if s == nil {
		return nil
	}
	return s.err
}

// Close ends the read and removes the scratch file; nil-safe.
func (s *Sorted[T]) Close() {
	if s == nil {
		return
	}
	s.rows.Close()
	s.file.Close()
}
