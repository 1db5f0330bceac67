package ui

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"scand/auth"
)

// Who is how the console names who did something: a key by its name, with
// the key id for a tooltip (two keys may share a name, and the id is what
// the audit log and the API filter on); dev mode, the environment key and
// scand's own changes by what they are. A name a client chose (the API's
// updated_by and author fields) is shown as it is.
type Who struct {
	Name  string
	KeyID string
}

// principalWho names the signed-in caller.
func principalWho(p auth.Principal) Who {
	switch p.Source {
	case auth.SourceEnv:
		return Who{Name: "environment key (SVC_API_KEY)"}
	case auth.SourceDev:
		return Who{Name: "dev mode"}
	}
	if p.Name == "" {
		return Who{Name: "unnamed key", KeyID: p.ID}
	}
	return Who{Name: p.Name, KeyID: p.ID}
}

// keyNames resolves the actors stored on verdicts, comments, scans and
// schedules. It reads the API keys once per page, on first use, so pages
// that name nobody cost nothing.
type keyNames struct {
	ctx    context.Context
	data   Data
	byID   map[string]string
	loaded bool
}

func (k *keyNames) name(id string) (string, bool) {
	if !k.loaded {
		k.loaded = true
		k.byID = map[string]string{}
		// Without the key list the page still renders: actors then show
		// as stored.
		if keys, err := k.data.APIKeys(k.ctx); err == nil {
			for _, key := range keys {
				k.byID[key.ID] = key.Name
			}
		}
	}
	n, ok := k.byID[id]
	return n, ok
}

// who reads one stored actor: a key id, "name (key id)" as the API signs
// verdicts and comments, "dev", "env", "system", or free text.
func (k *keyNames) who(stored string) Who {
	switch stored {
	case auth.DevKeyID:
		return Who{Name: "dev mode"}
	case auth.SourceEnv:
		return Who{Name: "environment key (SVC_API_KEY)"}
	}
	if name, ok := k.name(stored); ok {
		if name == "" {
			name = "unnamed key"
		}
		return Who{Name: name, KeyID: stored}
	}
	// "name (id)" is taken apart only when the id is a real key: free
	// text that merely looks like it stays text.
	if open := strings.LastIndex(stored, " ("); open > 0 && strings.HasSuffix(stored, ")") {
		id := stored[open+2 : len(stored)-1]
		if _, ok := k.name(id); ok {
			return Who{Name: stored[:open], KeyID: id}
		}
	}
	return Who{Name: stored}
}

// Short ids. A scan id is a time-ordered UUID, so scans started within a
// minute share their first 8 characters: a list must show as many as it
// takes to tell its ids apart. The "short" template function marks an id;
// after the page is rendered, every marked id is cut to the shortest
// prefix (at least shortMin) unique among the ids on that page.
const (
	shortOpen  = "\ue000"
	shortClose = "\ue001"
	shortMin   = 8
	// shortMaxID bounds what counts as a marked id: longer text between
	// the markers (scanned content can hold private-use characters) is
	// left alone.
	shortMaxID = 80
)

func shortMark(id string) string { return shortOpen + id + shortClose }

// isShortID reports whether s can be an id the console marked: ids are
// UUIDs, hex fingerprints or the API's base62 ids.
func isShortID(s string) bool {
	if s == "" || len(s) > shortMaxID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// eachShortID calls f with every marked id in page and the byte range of
// its mark.
func eachShortID(page []byte, f func(id string, start, end int)) {
	for i := 0; ; {
		o := bytes.Index(page[i:], []byte(shortOpen))
		if o < 0 {
			return
		}
		o += i
		c := bytes.Index(page[o+len(shortOpen):], []byte(shortClose))
		if c < 0 {
			return
		}
		end := o + len(shortOpen) + c + len(shortClose)
		id := string(page[o+len(shortOpen) : o+len(shortOpen)+c])
		if isShortID(id) {
			f(id, o, end)
			i = end
		} else {
			i = o + len(shortOpen)
		}
	}
}

// shortPrefix is how many characters tell ids apart: one more than the
// longest prefix two of them share, and at least shortMin.
func shortPrefix(ids []string) int {
	slices.Sort(ids)
	n := shortMin
	for i := 1; i < len(ids); i++ {
		a, b := ids[i-1], ids[i]
		common := 0
		for common < len(a) && common < len(b) && a[common] == b[common] {
			common++
		}
		n = max(n, common+1)
	}
	return n
}

// resolveShortIDs replaces every marked id by its page-unique prefix.
func resolveShortIDs(page []byte) []byte {
	seen := map[string]bool{}
	var ids []string
	eachShortID(page, func(id string, _, _ int) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	})
	if len(ids) == 0 {
		return page
	}
	n := shortPrefix(ids)
	out := make([]byte, 0, len(page))
	last := 0
	eachShortID(page, func(id string, start, end int) {
		out = append(out, page[last:start]...)
		out = append(out, id[:min(n, len(id))]...)
		last = end
	})
	return append(out, page[last:]...)
}
