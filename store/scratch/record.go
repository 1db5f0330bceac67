package store

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"strconv"

	"scand/finding"
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

// canonicalKey is the sort key of finding.Sort's order up to the
// fingerprint, which is unique after Dedup and so decides every tie.
func canonicalKey(b []byte, sev finding.Severity, scanner, ruleID, file string, line int, title, fingerprint string) []byte {
	b = append(b, byte(255-sev.Rank()))
	b = appendKeyString(b, string(sev))
	b = appendKeyString(b, scanner)
	b = appendKeyString(b, ruleID)
	b = appendKeyString(b, file)
	b = binary.BigEndian.AppendUint64(b, uint64(max(line, 0)))
	b = appendKeyString(b, title)
	return appendKeyString(b, fingerprint)
}

// scratchRecord is a finding as the scratch file keeps it.
type scratchRecord struct {
	f          findingJSON // ScanID and ID empty
	textID     int         // description kept in the ingest's dictionary (0: inline)
	suppressed bool
	snippet    string
}

func appendRecString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (r *scratchRecord) encode(b []byte) []byte {
	f := &r.f
	for _, s := range []string{f.Severity, f.Scanner, f.ScanType, f.Title, f.Description, f.FilePath, f.RuleID, string(f.CWE),
		f.Fingerprint, string(f.ComplianceTags), string(f.Metadata), r.snippet} {
		b = appendRecString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(max(f.Line, 0)))
	b = binary.AppendUvarint(b, uint64(r.textID))
	if r.suppressed {
		return append(b, 1)
	}
	return append(b, 0)
}

var errBadRecord = errors.New("corrupt scratch record")

func decodeRecord(b []byte) (scratchRecord, error) {
	var r scratchRecord
	var strs [12]string
	for i := range strs {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return r, errBadRecord
		}
		strs[i] = string(b[w : w+int(n)])
		b = b[w+int(n):]
	}
	f := &r.f
	f.Severity, f.Scanner, f.ScanType, f.Title, f.Description, f.FilePath, f.RuleID = strs[0], strs[1], strs[2], strs[3], strs[4], strs[5], strs[6]
	f.CWE, f.Fingerprint, f.ComplianceTags, f.Metadata, r.snippet = finding.CWE(strs[7]), strs[8], []byte(strs[9]), []byte(strs[10]), strs[11]
	line, w := binary.Uvarint(b)
	if w <= 0 {
		return r, errBadRecord
	}
	b = b[w:]
	text, w := binary.Uvarint(b)
	if w <= 0 || len(b) != w+1 {
		return r, errBadRecord
	}
	f.Line, r.textID, r.suppressed = int(line), int(text), b[w] == 1
	return r, nil
}

// seenSet remembers hashes exactly up to a size, then as a Bloom filter
// of fixed size: maybeSeen has no false negatives, and a false positive
// only sends one more file through Dedup, which is always correct. Memory
// stays bounded however many findings a scan has.
type seenSet struct {
	seed  maphash.Seed
	exact map[uint64]struct{}
	bloom []uint64
}

const (
	seenExactMax = 1 << 16
	seenBloomLog = 25 // 2^25 bits = 4 MiB
	seenBloomK   = 4
)

func newSeenSet() *seenSet { return &seenSet{seed: maphash.MakeSeed(), exact: map[uint64]struct{}{}} }

func (s *seenSet) hash(parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// testAndAdd reports whether h may have been added before, and adds it.
func (s *seenSet) testAndAdd(h uint64) bool {
	if s.bloom == nil {
		if _, ok := s.exact[h]; ok {
			return true
		}
		s.exact[h] = struct{}{}
		if len(s.exact) > seenExactMax {
			s.bloom = make([]uint64, (1<<seenBloomLog)/64)
			for e := range s.exact {
				s.bloomAdd(e)
			}
			s.exact = nil
		}
		return false
	}
	seen := true
	for i := uint64(0); i < seenBloomK; i++ {
		bit := s.bloomBit(h, i)
		if s.bloom[bit/64]&(1<<(bit%64)) == 0 {
			seen = false
			s.bloom[bit/64] |= 1 << (bit % 64)
		}
	}
	return seen
}

func (s *seenSet) bloomAdd(h uint64) {
	for i := uint64(0); i < seenBloomK; i++ {
		bit := s.bloomBit(h, i)
		s.bloom[bit/64] |= 1 << (bit % 64)
	}
}

// bloomBit derives the i-th probe from one 64-bit hash (double hashing).
func (s *seenSet) bloomBit(h, i uint64) uint64 {
	h2 := h>>33 | h<<31 | 1
	return (h + i*h2) & (1<<seenBloomLog - 1)
}

// appendFindingJSON appends f encoded exactly as encoding/json encodes it
// (field order, escaping, null cwe), without reflection: the ingest
// encodes every finding once, so this is on its hottest path. The two raw
// values are copied as they are; they come from encoding/json.
func appendFindingJSON(b []byte, f *findingJSON) []byte {
	b = append(b, `{"id":`...)
	b = finding.AppendJSONString(b, f.ID)
	b = append(b, `,"scan_id":`...)
	b = finding.AppendJSONString(b, f.ScanID)
	b = append(b, `,"scanner":`...)
	b = finding.AppendJSONString(b, f.Scanner)
	b = append(b, `,"scan_type":`...)
	b = finding.AppendJSONString(b, f.ScanType)
	b = append(b, `,"severity":`...)
	b = finding.AppendJSONString(b, f.Severity)
	b = append(b, `,"title":`...)
	b = finding.AppendJSONString(b, f.Title)
	b = append(b, `,"description":`...)
	b = finding.AppendJSONString(b, f.Description)
	b = append(b, `,"file_path":`...)
	b = finding.AppendJSONString(b, f.FilePath)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(f.Line), 10)
	b = append(b, `,"rule_id":`...)
	b = finding.AppendJSONString(b, f.RuleID)
	b = append(b, `,"cwe":`...)
	if f.CWE == "" {
		b = append(b, "null"...)
	} else {
		b = finding.AppendJSONString(b, string(f.CWE))
	}
	b = append(b, `,"fingerprint":`...)
	b = finding.AppendJSONString(b, f.Fingerprint)
	b = append(b, `,"compliance_tags":`...)
	b = appendRaw(b, f.ComplianceTags)
	b = append(b, `,"metadata":`...)
	b = appendRaw(b, f.Metadata)
	return append(b, '}')
}

func appendRaw(b []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}
