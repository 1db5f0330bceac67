package excerpt

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// Scanned hands the secret lines the secrets scanner has just redacted in
// a file to the excerpts of that file's findings, which are cut while the
// scan goes on: without it every file with a finding is read by the
// secrets rules twice. It is keyed by the file's path and content, so an
// entry is only ever used for the bytes it was made from.
var Scanned = NewMemo(4 << 20)

// Memo is a small take-once store of redacted lines, bounded by the bytes
// of the lines it holds; the oldest entries go first. It is safe for
// concurrent use.
type Memo struct {
	seed  maphash.Seed
	limit int
	// builders counts the open Builders: with none, nothing would take
	// an entry, so Put keeps none.
	builders atomic.Int64

	mu      sync.Mutex
	entries []memoEntry // oldest first
	bytes   int
}

type memoEntry struct {
	rel   string
	size  int
	sum   uint64
	lines map[int]string
	bytes int
}

// NewMemo returns a memo that holds at most limit bytes of lines.
func NewMemo(limit int) *Memo {
	return &Memo{seed: maphash.MakeSeed(), limit: limit}
}

// Put records the redacted lines of data, a file at rel. A file whose
// lines alone exceed the limit is not kept.
func (m *Memo) Put(rel string, data []byte, lines map[int]string) {
	n := len(rel)
	for _, l := range lines {
		n += len(l) + 16
	}
	if n > m.limit || !m.Wanted() {
		return
	}
	e := memoEntry{rel: rel, size: len(data), sum: maphash.Bytes(m.seed, data), lines: lines, bytes: n}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = append(m.entries, e)
	m.bytes += n
	for m.bytes > m.limit {
		m.bytes -= m.entries[0].bytes
		m.entries[0] = memoEntry{}
		m.entries = m.entries[1:]
	}
}

// Take returns and forgets the lines recorded for exactly data at rel.
func (m *Memo) Take(rel string, data []byte) (map[int]string, bool) {
	sum := maphash.Bytes(m.seed, data)
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.entries {
		if e.rel == rel && e.size == len(data) && e.sum == sum {
			m.bytes -= e.bytes
			m.entries = append(m.entries[:i], m.entries[i+1:]...)
			return e.lines, true
		}
	}
	return nil, false
}

// Wanted reports whether a Builder is open to take what Put keeps.
func (m *Memo) Wanted() bool { return m.builders.Load() > 0 }

func (m *Memo) open() { m.builders.Add(1) }

// close forgets every entry once the last Builder is closed.
func (m *Memo) close() {
	if m.builders.Add(-1) > 0 {
		return
	}
	m.mu.Lock()
	m.entries, m.bytes = nil, 0
	m.mu.Unlock()
}
