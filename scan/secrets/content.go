package secrets

import (
	"os"

	"scand/finding"
	"scand/scan"
	"scand/scan/tree"
)

// Content runs the scanner's rules over content that is not a file of the
// scanned tree: a container image's ENV values and history, and files a
// later image layer deleted (scan/image). It is safe for concurrent use.
type Content struct {
	s *secretsScanner
}

// NewContent compiles the rule set once for many calls.
func NewContent(cfg scan.Config) *Content {
	return &Content{s: New(cfg).(*secretsScanner)}
}

// Match is one secret: the finding the scanner would report for it, and
// the SHA-256 of the value, to recognise the same value elsewhere without
// keeping it.
type Match struct {
	Finding finding.Finding
	Value   [32]byte
}

// Scan returns the secrets in data as the scanner reports them for a file
// at rel (rel also decides whether unquoted KEY=value lines count, as in
// .env and other configuration files). Nothing in the result holds a
// secret value.
func (c *Content) Scan(data []byte, rel string) []Match {
	var out []Match
	sc := &secretsScratch{}
	c.s.engine().scanContent(data, rel, sc, func(h secretsHit) {
		out = append(out, Match{Finding: c.s.newFinding(&c.s.engine().rules[h.rule], rel, h), Value: h.hash})
	})
	return out
}

// RedactedLines returns, for each line of data (a file at rel) that holds
// a secret, the line with every secret on it redacted exactly as the
// findings show it, by 1-based line number. An excerpt shows these lines
// instead of the file's.
func (c *Content) RedactedLines(data []byte, rel string) map[int]string {
	out := map[int]string{}
	if len(data) == 0 || len(data) > secretsMaxFileSize {
		return out
	}
	c.s.engine().scanContent(data, rel, &secretsScratch{}, func(h secretsHit) { h.redactInto(out) })
	return out
}

func (h *secretsHit) redactInto(lines map[int]string) {
	lines[h.line] = h.full
	if h.valueLine > 0 {
		lines[h.valueLine] = h.valueFull
	}
}

// ScanFile reads a file the way the tree scan does (regular files up to
// the scanner's size cap, binary content skipped; a symbolic link is not
// followed) and scans it; a skipped file has no matches.
func (c *Content) ScanFile(abs, rel string) ([]Match, error) {
	if secretsSkipFile(rel) {
		return nil, nil
	}
	if info, err := os.Lstat(abs); err != nil || !info.Mode().IsRegular() {
		return nil, err
	}
	data, err := c.s.readCandidate(abs, &secretsScratch{})
	if err != nil || data == nil {
		return nil, err
	}
	return c.Scan(data, rel), nil
}

// ReadsFile tells an image target (scan/image) which files it must write
// out for the secrets scanner and layer-secrets: the files a rule matches
// (data is the content; nil, judged by name alone, matches nothing) and
// key stores, reported by name. Unlike the tree scan it counts files under
// the directories the walk does not enter: layer-secrets reads them.
func (c *Content) ReadsFile(rel string, data []byte) bool {
	return secretsPKCS12File(rel) || c.s.matches(rel, data)
}

// Covers reports whether s is the secrets scanner, whose files ReadsFile
// names as well.
func (c *Content) Covers(s scan.Scanner) bool {
	_, ok := s.(*secretsScanner)
	return ok
}

// matches runs the rules over data as the tree scan reads it.
func (s *secretsScanner) matches(rel string, data []byte) bool {
	if len(data) == 0 || len(data) > secretsMaxFileSize || secretsSkipFile(rel) || tree.LooksBinary(data) {
		return false
	}
	found := false
	s.engine().scanContent(data, rel, &secretsScratch{}, func(secretsHit) { found = true })
	return found
}
