package scratch

import (
	"encoding/binary"
	"errors"
	"hash/maphash"

	"scand/finding"
	"scand/store/findingjson"
)

// Scratch rows are two blobs: a sort key whose byte order is the canonical
// order, and a compact record of the finding. Binding a value through
// database/sql costs more than encoding one, so a finding crosses into the
// scratch file as three values instead of sixteen.

// appendKeyString appends s so that comparing the bytes compares the
// strings: 0x00 is escaped as 0x00 0xFF and the end is 0x00 0x01, so a
// prefix sorts first.
func appendKeyString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, s[i])
		if s[i] == 0 {
			b = append(b, 0xFF)
		}
	}
	return append(b, 0, 1)
}

// CanonicalKey is the sort key of finding.Sort's order up to the
// fingerprint, which is unique after Dedup and so decides every tie.
func CanonicalKey(b []byte, sev finding.Severity, scanner, ruleID, file string, line int, title, fingerprint string) []byte {
	b = append(b, byte(255-sev.Rank()))
	b = appendKeyString(b, string(sev))
	b = appendKeyString(b, scanner)
	b = appendKeyString(b, ruleID)
	b = appendKeyString(b, file)
	b = binary.BigEndian.AppendUint64(b, uint64(max(line, 0)))
	b = appendKeyString(b, title)
	return appendKeyString(b, fingerprint)
}

// Record is a finding as the scratch file keeps it.
type Record struct {
	F          findingjson.Fields // ScanID and ID empty
	TextID     int                // description kept in the ingest's dictionary (0: inline)
	Suppressed bool
	Snippet    string
}

// AppendString appends s with its length in front.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Encode appends the record to b.
func (r *Record) Encode(b []byte) []byte {
	f := &r.F
	for _, s := range []string{f.Severity, f.Scanner, f.ScanType, f.Title, f.Description, f.FilePath, f.RuleID, string(f.CWE),
		f.Fingerprint, string(f.ComplianceTags), string(f.Metadata), r.Snippet} {
		b = AppendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(max(f.Line, 0)))
	b = binary.AppendUvarint(b, uint64(r.TextID))
	if r.Suppressed {
		return append(b, 1)
	}
	return append(b, 0)
}

var errBadRecord = errors.New("corrupt scratch record")

// readStrings fills strs with the length-prefixed strings at the start of
// b and returns the rest; ok is false when b ends too soon.
func readStrings(b []byte, strs []string) (rest []byte, ok bool) {
	for i := range strs {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return b, false
		}
		strs[i] = string(b[w : w+int(n)])
		b = b[w+int(n):]
	}
	return b, true
}

// DecodeRecord reads back what Encode wrote.
func DecodeRecord(b []byte) (Record, error) {
	var r Record
	var strs [12]string
	b, ok := readStrings(b, strs[:])
	if !ok {
		return r, errBadRecord
	}
	f := &r.F
	f.Severity, f.Scanner, f.ScanType, f.Title, f.Description, f.FilePath, f.RuleID = strs[0], strs[1], strs[2], strs[3], strs[4], strs[5], strs[6]
	f.CWE, f.Fingerprint, f.ComplianceTags, f.Metadata, r.Snippet = finding.CWE(strs[7]), strs[8], []byte(strs[9]), []byte(strs[10]), strs[11]
	line, w := binary.Uvarint(b)
	if w <= 0 {
		return r, errBadRecord
	}
	b = b[w:]
	text, w := binary.Uvarint(b)
	if w <= 0 || len(b) != w+1 {
		return r, errBadRecord
	}
	f.Line, r.TextID, r.Suppressed = int(line), int(text), b[w] == 1
	return r, nil
}

// SeenSet remembers hashes exactly up to a size, then as a Bloom filter
// of fixed size: TestAndAdd has no false negatives, and a false positive
// only sends one more file through Dedup, which is always correct. Memory
// stays bounded however many findings a scan has.
type SeenSet struct {
	seed  maphash.Seed
	exact map[uint64]struct{}
	bloom []uint64
}

const (
	seenExactMax = 1 << 16
	seenBloomLog = 25 // 2^25 bits = 4 MiB
	// Each hash sets seenBloomK bits of one 512-bit block (a cache
	// line): one cache miss per test instead of one per bit. At a
	// million findings the line sets hold two million hashes (a line and
	// its equivalence key): four bits spread over the whole filter sent
	// 856 of the scale bench's 20,000 files through Dedup for nothing,
	// eight in a block about 200. A set of one million hashes takes a
	// new one for seen about once in 100,000.
	seenBloomK     = 8
	seenBlockLog   = 9 // 512 bits
	seenBlockWords = 1 << (seenBlockLog - 6)
)

// NewSeenSet is an empty set.
func NewSeenSet() *SeenSet { return &SeenSet{seed: maphash.MakeSeed(), exact: map[uint64]struct{}{}} }

// Hash is the set's hash of parts.
func (s *SeenSet) Hash(parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// TestAndAdd reports whether h may have been added before, and adds it.
func (s *SeenSet) TestAndAdd(h uint64) bool {
	if s.bloom == nil {
		if _, ok := s.exact[h]; ok {
			return true
		}
		s.exact[h] = struct{}{}
		if len(s.exact) > seenExactMax {
			s.bloom = make([]uint64, (1<<seenBloomLog)/64)
			for e := range s.exact {
				s.bloomTestAndAdd(e)
			}
			s.exact = nil
		}
		return false
	}
	return s.bloomTestAndAdd(h)
}

// bloomTestAndAdd sets h's bits in its block and reports whether all of
// them were set. The block comes from h's top bits, each bit from the top
// bits of one more step of a multiplicative mix of h.
func (s *SeenSet) bloomTestAndAdd(h uint64) bool {
	block := s.bloom[(h>>(64-(seenBloomLog-seenBlockLog)))*seenBlockWords:][:seenBlockWords]
	seen := true
	x := h
	for i := 0; i < seenBloomK; i++ {
		x = x*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
		bit := x >> (64 - seenBlockLog)
		w, m := &block[bit/64], uint64(1)<<(bit%64)
		if *w&m == 0 {
			seen = false
			*w |= m
		}
	}
	return seen
}

// FPRecord packs what finding_fps and the facet counts need of a row: the
// record of the scratch file's fps table, kept in fingerprint order.
func FPRecord(b []byte, ord int, tagset int64, suppressed int, severity, scanner, scanType string) []byte {
	b = binary.AppendUvarint(b, uint64(ord))
	b = binary.AppendUvarint(b, uint64(tagset))
	b = append(b, byte(suppressed))
	b = AppendString(b, severity)
	b = AppendString(b, scanner)
	return AppendString(b, scanType)
}

// FPRow is an FPRecord read back with its fingerprint.
type FPRow struct {
	FP                          string
	Ord                         int
	Severity, Scanner, ScanType string
	Suppressed                  int
	Tagset                      int64
}

// DecodeFP reads back what FPRecord wrote.
func DecodeFP(fp string, b []byte) (FPRow, error) {
	r := FPRow{FP: fp}
	ord, w := binary.Uvarint(b)
	if w <= 0 {
		return r, errBadRecord
	}
	b = b[w:]
	tagset, w := binary.Uvarint(b)
	if w <= 0 || len(b) < w+1 {
		return r, errBadRecord
	}
	r.Ord, r.Tagset, r.Suppressed = int(ord), int64(tagset), int(b[w])
	b = b[w+1:]
	var strs [3]string
	if _, ok := readStrings(b, strs[:]); !ok {
		return r, errBadRecord
	}
	r.Severity, r.Scanner, r.ScanType = strs[0], strs[1], strs[2]
	return r, nil
}
