// Package versions orders package versions by each ecosystem's own rules
// and reads the version-range queries of the component inventory
// (issue 25): semver for npm, Go and Cargo, PEP 440 for PyPI, Maven's
// ComparableVersion, and dpkg and rpm version ordering for OS packages.
// It imports nothing of scand.
package versions

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
)

// Scheme names an ordering.
type Scheme string

const (
	SemVer Scheme = "semver"
	PEP440 Scheme = "pep440"
	Maven  Scheme = "maven"
	Dpkg   Scheme = "dpkg"
	RPM    Scheme = "rpm"
)

// SchemeOf picks the ordering of an ecosystem name as scanners and purls
// give it (npm, golang/go, cargo/crates.io, pypi, maven, deb/debian,
// rpm, ...); semver for anything else.
func SchemeOf(ecosystem string) Scheme {
	switch strings.ToLower(ecosystem) {
	case "pypi", "pip", "python", "pipenv", "poetry", "python-pkg":
		return PEP440
	case "maven", "jar", "pom", "gradle":
		return Maven
	case "deb", "debian", "ubuntu", "dpkg":
		return Dpkg
	case "rpm", "redhat", "red hat", "centos", "fedora", "rocky linux", "almalinux", "opensuse", "suse":
		return RPM
	}
	return SemVer
}

// Compare orders a and b under the scheme: -1, 0 or 1.
func Compare(s Scheme, a, b string) int {
	switch s {
	case PEP440:
		return comparePEP440(a, b)
	case Maven:
		return compareMaven(a, b)
	case Dpkg:
		return compareDpkg(a, b)
	case RPM:
		return compareRPM(a, b)
	}
	return compareSemver(a, b)
}

// Constraint is a version range: every bound must hold.
type Constraint struct {
	bounds []bound
}

type bound struct {
	op      string
	version string
}

// ParseConstraint reads "<2.17.1", ">=1.0,<2" (comma: and), "=1.2.3",
// "!=1.0" or a bare version (equality).
func ParseConstraint(s string) (Constraint, error) {
	var c Constraint
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return c, fmt.Errorf("empty bound in %q", s)
		}
		op := "="
		for _, o := range []string{"<=", ">=", "!=", "==", "<", ">", "="} {
			if strings.HasPrefix(part, o) {
				op, part = o, strings.TrimSpace(part[len(o):])
				break
			}
		}
		if op == "==" {
			op = "="
		}
		if part == "" {
			return c, fmt.Errorf("bound %q has no version", op)
		}
		c.bounds = append(c.bounds, bound{op, part})
	}
	return c, nil
}

// Matches reports whether version v satisfies every bound under scheme.
func (c Constraint) Matches(s Scheme, v string) bool {
	for _, b := range c.bounds {
		n := Compare(s, v, b.version)
		ok := false
		switch b.op {
		case "<":
			ok = n < 0
		case "<=":
			ok = n <= 0
		case ">":
			ok = n > 0
		case ">=":
			ok = n >= 0
		case "=":
			ok = n == 0
		case "!=":
			ok = n != 0
		}
		if !ok {
			return false
		}
	}
	return true
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpDigits orders two runs of decimal digits of any length numerically.
func cmpDigits(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return cmpInt(len(a), len(b))
	}
	return strings.Compare(a, b)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// --- semver (npm, Go modules, Cargo) ---

func compareSemver(a, b string) int {
	a, b = strings.TrimPrefix(strings.TrimSpace(a), "v"), strings.TrimPrefix(strings.TrimSpace(b), "v")
	a, _, _ = strings.Cut(a, "+")
	b, _, _ = strings.Cut(b, "+")
	am, apre, _ := strings.Cut(a, "-")
	bm, bpre, _ := strings.Cut(b, "-")
	as, bs := strings.Split(am, "."), strings.Split(bm, ".")
	for i := 0; i < max(len(as), len(bs), 3); i++ {
		x, y := "0", "0"
		if i < len(as) && as[i] != "" {
			x = as[i]
		}
		if i < len(bs) && bs[i] != "" {
			y = bs[i]
		}
		var n int
		if allDigits(x) && allDigits(y) {
			n = cmpDigits(x, y)
		} else {
			n = strings.Compare(x, y)
		}
		if n != 0 {
			return n
		}
	}
	// A pre-release sorts before its release (1.0.0-rc.1 < 1.0.0).
	switch {
	case apre == "" && bpre == "":
		return 0
	case apre == "":
		return 1
	case bpre == "":
		return -1
	}
	ai, bi := strings.Split(apre, "."), strings.Split(bpre, ".")
	for i := 0; i < min(len(ai), len(bi)); i++ {
		x, y := ai[i], bi[i]
		xd, yd := allDigits(x), allDigits(y)
		var n int
		switch {
		case xd && yd:
			n = cmpDigits(x, y)
		case xd:
			n = -1 // numeric identifiers sort before alphanumeric ones
		case yd:
			n = 1
		default:
			n = strings.Compare(x, y)
		}
		if n != 0 {
			return n
		}
	}
	return cmpInt(len(ai), len(bi))
}

// --- PEP 440 (PyPI) ---

type pep440 struct {
	epoch   *big.Int
	release []string
	// pre: phase 0 (dev-only release, before every pre-release), 1 a,
	// 2 b, 3 rc, 4 none (the release itself).
	prePhase int
	preN     string
	post     string // "" none; sorts above none
	hasPost  bool
	dev      string
	hasDev   bool
	local    string
}

func parsePEP440(v string) pep440 {
	s := strings.ToLower(strings.TrimSpace(v))
	s = strings.TrimPrefix(s, "v")
	p := pep440{epoch: big.NewInt(0), prePhase: 4}
	if e, rest, ok := strings.Cut(s, "!"); ok && allDigits(e) {
		p.epoch.SetString(e, 10)
		s = rest
	}
	if main, local, ok := strings.Cut(s, "+"); ok {
		s, p.local = main, local
	}
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			break
		}
		p.release = append(p.release, s[i:j])
		i = j
		if i < len(s) && s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	rest := s[i:]
	// take reads an optional separator, one of the spellings and an
	// optional number.
	take := func(spellings ...string) (string, bool) {
		r := strings.TrimLeft(rest, ".-_")
		for _, sp := range spellings {
			if strings.HasPrefix(r, sp) {
				r = strings.TrimLeft(r[len(sp):], ".-_")
				j := 0
				for j < len(r) && r[j] >= '0' && r[j] <= '9' {
					j++
				}
				n := r[:j]
				if n == "" {
					n = "0"
				}
				rest = r[j:]
				return n, true
			}
		}
		return "", false
	}
	phases := []struct {
		rank      int
		spellings []string
	}{{3, []string{"rc", "c", "preview", "pre"}}, {2, []string{"beta", "b"}}, {1, []string{"alpha", "a"}}}
	for _, ph := range phases {
		if n, ok := take(ph.spellings...); ok {
			p.prePhase, p.preN = ph.rank, n
			break
		}
	}
	if n, ok := take("post", "rev", "r"); ok {
		p.post, p.hasPost = n, true
	} else if strings.HasPrefix(rest, "-") && len(rest) > 1 && allDigits(rest[1:]) {
		p.post, p.hasPost, rest = rest[1:], true, ""
	}
	if n, ok := take("dev"); ok {
		p.dev, p.hasDev = n, true
	}
	if p.hasDev && !p.hasPost && p.prePhase == 4 {
		p.prePhase = 0
	}
	return p
}

func comparePEP440(a, b string) int {
	x, y := parsePEP440(a), parsePEP440(b)
	if n := x.epoch.Cmp(y.epoch); n != 0 {
		return n
	}
	for i := 0; i < max(len(x.release), len(y.release)); i++ {
		u, w := "0", "0"
		if i < len(x.release) {
			u = x.release[i]
		}
		if i < len(y.release) {
			w = y.release[i]
		}
		if n := cmpDigits(u, w); n != 0 {
			return n
		}
	}
	if n := cmpInt(x.prePhase, y.prePhase); n != 0 {
		return n
	}
	if x.prePhase != 0 && x.prePhase != 4 {
		if n := cmpDigits(x.preN, y.preN); n != 0 {
			return n
		}
	}
	switch {
	case x.hasPost && !y.hasPost:
		return 1
	case !x.hasPost && y.hasPost:
		return -1
	case x.hasPost:
		if n := cmpDigits(x.post, y.post); n != 0 {
			return n
		}
	}
	switch {
	case x.hasDev && !y.hasDev:
		return -1
	case !x.hasDev && y.hasDev:
		return 1
	case x.hasDev:
		if n := cmpDigits(x.dev, y.dev); n != 0 {
			return n
		}
	}
	// A local version sorts after the same public version.
	switch {
	case x.local == y.local:
		return 0
	case x.local == "":
		return -1
	case y.local == "":
		return 1
	}
	return strings.Compare(x.local, y.local)
}

// --- Maven ComparableVersion ---

type mavenItem struct {
	num   string // digits, or "" for a qualifier
	qual  string
	isNum bool
}

// mavenQualifierRank orders the well-known qualifiers; unknown ones come
// after "sp", among themselves lexically.
func mavenQualifierRank(q string) (int, string) {
	switch q {
	case "alpha", "a":
		return 1, ""
	case "beta", "b":
		return 2, ""
	case "milestone", "m":
		return 3, ""
	case "rc", "cr":
		return 4, ""
	case "snapshot":
		return 5, ""
	case "", "ga", "final", "release":
		return 6, ""
	case "sp":
		return 7, ""
	}
	return 8, q
}

func mavenItems(v string) []mavenItem {
	v = strings.ToLower(strings.TrimSpace(v))
	var items []mavenItem
	cur := strings.Builder{}
	curDigit := false
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		s := cur.String()
		if curDigit {
			items = append(items, mavenItem{num: s, isNum: true})
		} else {
			items = append(items, mavenItem{qual: s})
		}
		cur.Reset()
	}
	for _, r := range v {
		switch {
		case r == '.' || r == '-' || r == '_':
			flush()
		case unicode.IsDigit(r):
			if cur.Len() > 0 && !curDigit {
				flush()
			}
			curDigit = true
			cur.WriteRune(r)
		default:
			if cur.Len() > 0 && curDigit {
				flush()
			}
			curDigit = false
			cur.WriteRune(r)
		}
	}
	flush()
	// Trailing "null" items (0, ga, final, release) do not count:
	// 1.0 = 1 = 1.0.0 = 1-ga.
	for len(items) > 0 {
		last := items[len(items)-1]
		if (last.isNum && strings.TrimLeft(last.num, "0") == "") || (!last.isNum && mavenNull(last.qual)) {
			items = items[:len(items)-1]
			continue
		}
		break
	}
	return items
}

func mavenNull(q string) bool { return q == "" || q == "ga" || q == "final" || q == "release" }

func compareMavenItem(x, y *mavenItem) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return -compareMavenItem(y, nil)
	}
	if y == nil {
		if x.isNum {
			if strings.TrimLeft(x.num, "0") == "" {
				return 0
			}
			return 1
		}
		xr, xs := mavenQualifierRank(x.qual)
		yr, _ := mavenQualifierRank("")
		if xr != yr {
			return cmpInt(xr, yr)
		}
		return strings.Compare(xs, "")
	}
	switch {
	case x.isNum && y.isNum:
		return cmpDigits(x.num, y.num)
	case x.isNum:
		return 1 // a number is newer than a qualifier
	case y.isNum:
		return -1
	}
	xr, xs := mavenQualifierRank(x.qual)
	yr, ys := mavenQualifierRank(y.qual)
	if xr != yr {
		return cmpInt(xr, yr)
	}
	return strings.Compare(xs, ys)
}

func compareMaven(a, b string) int {
	x, y := mavenItems(a), mavenItems(b)
	for i := 0; i < max(len(x), len(y)); i++ {
		var u, w *mavenItem
		if i < len(x) {
			u = &x[i]
		}
		if i < len(y) {
			w = &y[i]
		}
		if n := compareMavenItem(u, w); n != 0 {
			return n
		}
	}
	return 0
}

// --- dpkg (Debian, Ubuntu) ---

func splitEpoch(v string) (epoch, rest string) {
	if e, r, ok := strings.Cut(v, ":"); ok && allDigits(e) {
		return e, r
	}
	return "0", v
}

func compareDpkg(a, b string) int {
	ae, ar := splitEpoch(strings.TrimSpace(a))
	be, br := splitEpoch(strings.TrimSpace(b))
	if n := cmpDigits(ae, be); n != 0 {
		return n
	}
	au, arev := ar, ""
	if i := strings.LastIndex(ar, "-"); i >= 0 {
		au, arev = ar[:i], ar[i+1:]
	}
	bu, brev := br, ""
	if i := strings.LastIndex(br, "-"); i >= 0 {
		bu, brev = br[:i], br[i+1:]
	}
	if n := dpkgVerrevcmp(au, bu); n != 0 {
		return n
	}
	return dpkgVerrevcmp(arev, brev)
}

// dpkgOrder is dpkg's order of a non-digit character: '~' before the end
// of the part, letters before everything else.
func dpkgOrder(c byte, present bool) int {
	switch {
	case !present:
		return 0
	case c == '~':
		return -1
	case c >= '0' && c <= '9':
		return 0
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return int(c)
	}
	return int(c) + 256
}

func dpkgVerrevcmp(a, b string) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		for (i < len(a) && !isDigit(a[i])) || (j < len(b) && !isDigit(b[j])) {
			var ac, bc int
			ac = dpkgOrder(at(a, i), i < len(a) && !isDigit(a[i]))
			bc = dpkgOrder(at(b, j), j < len(b) && !isDigit(b[j]))
			if ac != bc {
				return cmpInt(ac, bc)
			}
			i, j = i+1, j+1
		}
		si := i
		for i < len(a) && isDigit(a[i]) {
			i++
		}
		sj := j
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		x, y := a[si:i], b[sj:j]
		if x == "" {
			x = "0"
		}
		if y == "" {
			y = "0"
		}
		if n := cmpDigits(x, y); n != 0 {
			return n
		}
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// --- rpm (rpmvercmp) ---

func compareRPM(a, b string) int {
	ae, ar := splitEpoch(strings.TrimSpace(a))
	be, br := splitEpoch(strings.TrimSpace(b))
	if n := cmpDigits(ae, be); n != 0 {
		return n
	}
	av, arel, _ := cutLast(ar, "-")
	bv, brel, _ := cutLast(br, "-")
	if n := rpmvercmp(av, bv); n != 0 {
		return n
	}
	if arel == "" || brel == "" {
		return 0 // a version without release matches every release
	}
	return rpmvercmp(arel, brel)
}

func cutLast(s, sep string) (string, string, bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func rpmvercmp(a, b string) int {
	if a == b {
		return 0
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		for i < len(a) && !isAlnum(a[i]) && a[i] != '~' && a[i] != '^' {
			i++
		}
		for j < len(b) && !isAlnum(b[j]) && b[j] != '~' && b[j] != '^' {
			j++
		}
		// '~' sorts before everything, even the end.
		if at(a, i) == '~' || at(b, j) == '~' {
			if at(a, i) != '~' {
				return 1
			}
			if at(b, j) != '~' {
				return -1
			}
			i, j = i+1, j+1
			continue
		}
		// '^' sorts after the end but before anything else.
		if at(a, i) == '^' || at(b, j) == '^' {
			if i >= len(a) {
				return -1
			}
			if j >= len(b) {
				return 1
			}
			if at(a, i) != '^' {
				return 1
			}
			if at(b, j) != '^' {
				return -1
			}
			i, j = i+1, j+1
			continue
		}
		if i >= len(a) || j >= len(b) {
			break
		}
		si, sj := i, j
		numeric := isDigit(a[i])
		if numeric {
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
		} else {
			for i < len(a) && isAlnum(a[i]) && !isDigit(a[i]) {
				i++
			}
			for j < len(b) && isAlnum(b[j]) && !isDigit(b[j]) {
				j++
			}
		}
		x, y := a[si:i], b[sj:j]
		if y == "" {
			// Segments of different types: a number is newer.
			if numeric {
				return 1
			}
			return -1
		}
		var n int
		if numeric {
			n = cmpDigits(x, y)
		} else {
			n = strings.Compare(x, y)
		}
		if n != 0 {
			return n
		}
	}
	switch {
	case i >= len(a) && j >= len(b):
		return 0
	case i >= len(a):
		return -1
	}
	return 1
}
