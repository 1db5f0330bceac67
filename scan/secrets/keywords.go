package secrets

import (
	"bytes"

	"scand/scan/secrets/shape"
)

// secretsKeywordMatcher finds every occurrence of a fixed set of keywords in
// one pass over the input (an Aho–Corasick automaton compiled to a DFA over
// byte classes). It is the prefilter that keeps the secrets scanner fast:
// most files contain none of the keywords and never reach a regexp, and a
// file that does only sends the few lines holding a keyword to the rules
// that asked for it.
//
// Matching is ASCII case-insensitive; keywords marked case-sensitive are
// re-checked against the raw bytes at each hit, which is cheap because hits
// are rare compared with bytes scanned.
type secretsKeywordMatcher struct {
	classOf  [256]uint8
	nclass   int
	trans    []int32 // trans[state*nclass+class] is the next state
	firstOut int32   // states >= firstOut have at least one keyword ending there
	outStart []int32 // keywords ending at state s: outList[outStart[s]:outStart[s+1]]
	outList  []int32
	keywords []secretsKeyword
}

// secretsKeyword is one literal the matcher looks for.
type secretsKeyword struct {
	raw           []byte // as given; compared byte for byte when caseSensitive
	lower         []byte
	caseSensitive bool
}

func secretsLowerASCII(dst, src []byte) []byte {
	dst = dst[:0]
	for _, b := range src {
		dst = append(dst, shape.LowerByte(b))
	}
	return dst
}

// newSecretsKeywordMatcher compiles the automaton. Keywords must be
// non-empty; their index in kws is what the match callback reports.
func newSecretsKeywordMatcher(kws []secretsKeyword) *secretsKeywordMatcher {
	m := &secretsKeywordMatcher{keywords: kws}
	for i := range kws {
		kws[i].lower = secretsLowerASCII(nil, kws[i].raw)
	}

	// Byte classes: one per distinct (lowercased) byte used by a keyword,
	// plus class 0 for everything else. Upper and lower case share a class.
	var used [256]bool
	for _, k := range kws {
		for _, b := range k.lower {
			used[b] = true
		}
	}
	m.nclass = 1
	var classOfLower [256]uint8
	for b := 0; b < 256; b++ {
		if used[b] {
			classOfLower[b] = uint8(m.nclass)
			m.nclass++
		}
	}
	if m.nclass > 255 {
		panic("secrets keyword matcher: too many distinct bytes")
	}
	for b := 0; b < 256; b++ {
		m.classOf[b] = classOfLower[shape.LowerByte(byte(b))]
	}

	// Trie.
	nc := m.nclass
	children := [][]int32{make([]int32, nc)}
	for c := range children[0] {
		children[0][c] = -1
	}
	own := [][]int32{nil}
	for ki, k := range kws {
		s := int32(0)
		for _, b := range k.lower {
			c := classOfLower[b]
			if children[s][c] < 0 {
				row := make([]int32, nc)
				for i := range row {
					row[i] = -1
				}
				children = append(children, row)
				own = append(own, nil)
				children[s][c] = int32(len(children) - 1)
			}
			s = children[s][c]
		}
		own[s] = append(own[s], int32(ki))
	}

	// Breadth-first failure links turn the trie into a complete DFA; the
	// outputs of a state include those of its failure state.
	n := len(children)
	fail := make([]int32, n)
	trans := make([]int32, n*nc)
	outs := make([][]int32, n)
	outs[0] = own[0]
	queue := make([]int32, 0, n)
	for c := 0; c < nc; c++ {
		if t := children[0][c]; t >= 0 {
			fail[t] = 0
			trans[c] = t
			queue = append(queue, t)
		} else {
			trans[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		outs[s] = append(append([]int32(nil), own[s]...), outs[fail[s]]...)
		for c := 0; c < nc; c++ {
			if t := children[s][c]; t >= 0 {
				fail[t] = trans[int(fail[s])*nc+c]
				trans[int(s)*nc+c] = t
				queue = append(queue, t)
			} else {
				trans[int(s)*nc+c] = trans[int(fail[s])*nc+c]
			}
		}
	}

	// Renumber so accepting states come last: the hot loop then tests
	// "state >= firstOut" instead of loading a flag per byte.
	newID := make([]int32, n)
	next := int32(0)
	for s := 0; s < n; s++ {
		if len(outs[s]) == 0 {
			newID[s] = next
			next++
		}
	}
	m.firstOut = next
	for s := 0; s < n; s++ {
		if len(outs[s]) > 0 {
			newID[s] = next
			next++
		}
	}
	m.trans = make([]int32, n*nc)
	m.outStart = make([]int32, n+1)
	byNew := make([]int32, n)
	for s := 0; s < n; s++ {
		byNew[newID[s]] = int32(s)
		for c := 0; c < nc; c++ {
			m.trans[int(newID[s])*nc+c] = newID[trans[s*nc+c]]
		}
	}
	for ns := 0; ns < n; ns++ {
		m.outStart[ns] = int32(len(m.outList))
		m.outList = append(m.outList, outs[byNew[ns]]...)
	}
	m.outStart[n] = int32(len(m.outList))
	return m
}

// scan calls hit(kw, end) for every occurrence of every keyword in data,
// where end is the index one past the keyword's last byte. Occurrences are
// reported in order of end position.
func (m *secretsKeywordMatcher) scan(data []byte, hit func(kw int, end int)) {
	trans, classOf, nc, firstOut := m.trans, &m.classOf, m.nclass, m.firstOut
	s := int32(0)
	for i, b := range data {
		s = trans[int(s)*nc+int(classOf[b])]
		if s < firstOut {
			continue
		}
		for _, k := range m.outList[m.outStart[s]:m.outStart[s+1]] {
			kw := &m.keywords[k]
			end := i + 1
			if kw.caseSensitive && !bytes.Equal(data[end-len(kw.raw):end], kw.raw) {
				continue
			}
			hit(int(k), end)
		}
	}
}
