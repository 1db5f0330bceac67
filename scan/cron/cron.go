// Package cron parses standard five-field cron expressions and computes
// when they next fire in a time zone. It is pure (no clock, no I/O): the
// caller passes the instant to start from and the zone to read it in.
//
// Fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12
// or JAN-DEC) and day of week (0-7 or SUN-SAT, 0 and 7 both Sunday). Each
// field is `*`, a value, a range `a-b`, a step `*/n`, `a-b/n` or `a/n`
// (from a to the field's maximum), or a comma-separated list of those.
// The macros @hourly, @daily (@midnight), @weekly, @monthly and @yearly
// (@annually) stand for their usual expressions.
//
// Day of month and day of week combine as in Vixie cron and cronie: when
// both fields are restricted (neither starts with `*`), a day matching
// either fires; otherwise a day must match both.
//
// Daylight-saving time: a wall-clock time that does not exist on a day
// (it falls in the gap when clocks jump forward) fires once, at the first
// valid minute after the gap; several such times in one gap fire once in
// total. A wall-clock time that occurs twice (clocks fall back) fires once,
// at its first occurrence. Every wall-clock minute therefore fires at
// most once.
package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxLen bounds an expression: it comes from API bodies.
const MaxLen = 256

// Schedule is a parsed expression. The zero value matches nothing; use
// Parse.
type Schedule struct {
	minute, hour, dom, month, dow uint64 // bit v set: value v matches
	// domRestricted and dowRestricted select the OR rule for days (see
	// the package comment).
	domRestricted, dowRestricted bool
}

// ParseError says which field of an expression is wrong and why.
type ParseError struct {
	// Field is "minute", "hour", "day-of-month", "month" or "day-of-week";
	// empty when the expression as a whole is wrong.
	Field string
	// Value is the field's text as written.
	Value string
	Msg   string
}

func (e *ParseError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s field %q: %s", e.Field, e.Value, e.Msg)
}

// fieldSpec describes one of the five fields.
type fieldSpec struct {
	name     string
	min, max int
	names    []string // names[i] stands for the value nameBase+i
	nameBase int
	hint     string // what the field accepts, for messages
}

func spec(i int) fieldSpec {
	switch i {
	case 0:
		return fieldSpec{name: "minute", min: 0, max: 59, hint: "0-59"}
	case 1:
		return fieldSpec{name: "hour", min: 0, max: 23, hint: "0-23"}
	case 2:
		return fieldSpec{name: "day-of-month", min: 1, max: 31, hint: "1-31"}
	case 3:
		return fieldSpec{name: "month", min: 1, max: 12, nameBase: 1, hint: "1-12 or JAN-DEC",
			names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}}
	default:
		return fieldSpec{name: "day-of-week", min: 0, max: 7, nameBase: 0, hint: "0-7 (0 and 7 are Sunday) or SUN-SAT",
			names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}}
	}
}

// macro returns the expression a macro stands for.
func macro(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "@hourly":
		return "0 * * * *", true
	case "@daily", "@midnight":
		return "0 0 * * *", true
	case "@weekly":
		return "0 0 * * 0", true
	case "@monthly":
		return "0 0 1 * *", true
	case "@yearly", "@annually":
		return "0 0 1 1 *", true
	}
	return "", false
}

const fieldList = "minute hour day-of-month month day-of-week"

// Parse parses a five-field expression or a macro. The error is a
// *ParseError naming the field at fault.
func Parse(expr string) (*Schedule, error) {
	expr = strings.TrimSpace(expr)
	if len(expr) > MaxLen {
		return nil, &ParseError{Msg: fmt.Sprintf("expression is %d bytes long; the limit is %d", len(expr), MaxLen)}
	}
	if expr == "" {
		return nil, &ParseError{Msg: "expression is empty; expected five fields (" + fieldList + ") or a macro such as @daily"}
	}
	if strings.HasPrefix(expr, "@") {
		body, ok := macro(expr)
		if !ok {
			return nil, &ParseError{Msg: fmt.Sprintf("unknown macro %q; use @hourly, @daily, @weekly, @monthly or @yearly", truncate(expr, 40))}
		}
		expr = body
	}
	parts := strings.Fields(expr)
	if len(parts) != 5 {
		return nil, &ParseError{Msg: fmt.Sprintf("expected 5 fields (%s), got %d", fieldList, len(parts))}
	}
	var bits [5]uint64
	for i, p := range parts {
		b, err := parseField(spec(i), p)
		if err != nil {
			return nil, err
		}
		bits[i] = b
	}
	s := &Schedule{minute: bits[0], hour: bits[1], dom: bits[2], month: bits[3], dow: bits[4],
		domRestricted: parts[2][0] != '*', dowRestricted: parts[4][0] != '*'}
	if err := s.feasible(parts[2]); err != nil {
		return nil, err
	}
	return s, nil
}

// feasible rejects day-of-month and month combinations that never occur
// (such as 30 February), which would otherwise never fire at all.
func (s *Schedule) feasible(domText string) error {
	if s.domRestricted && s.dowRestricted {
		return nil // any matching weekday fires
	}
	for m := 1; m <= 12; m++ {
		if s.month&(1<<m) == 0 {
			continue
		}
		for d := 1; d <= maxDays(m); d++ {
			if s.dom&(1<<d) != 0 {
				return nil
			}
		}
	}
	return &ParseError{Field: "day-of-month", Value: domText, Msg: "no listed day occurs in any listed month, so the schedule would never run"}
}

func maxDays(month int) int {
	switch month {
	case 2:
		return 29
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func parseField(f fieldSpec, text string) (uint64, error) {
	bad := func(format string, args ...any) error {
		return &ParseError{Field: f.name, Value: truncate(text, 40), Msg: fmt.Sprintf(format, args...)}
	}
	var bits uint64
	for _, part := range strings.Split(text, ",") {
		if part == "" {
			return 0, bad("empty element in the list")
		}
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, ok := number(stepText)
			if !ok {
				return 0, bad("step %q is not a positive number", truncate(stepText, 20))
			}
			if n < 1 {
				return 0, bad("step must be at least 1")
			}
			if n > f.max-f.min {
				return 0, bad("step %d is larger than the field's range %d-%d", n, f.min, f.max)
			}
			step = n
		}
		var lo, hi int
		switch {
		case rng == "*":
			lo, hi = f.min, f.max
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err error
			if lo, err = value(f, a, bad); err != nil {
				return 0, err
			}
			if hi, err = value(f, b, bad); err != nil {
				return 0, err
			}
			if lo > hi {
				return 0, bad("range %d-%d runs backwards (ranges do not wrap around)", lo, hi)
			}
		default:
			var err error
			if lo, err = value(f, rng, bad); err != nil {
				return 0, err
			}
			hi = lo
			if hasStep {
				hi = f.max // a/n: from a to the end of the field
			}
		}
		for v := lo; v <= hi; v += step {
			bits |= 1 << v
		}
	}
	if f.name == "day-of-week" && bits&(1<<7) != 0 {
		bits = bits&^(1<<7) | 1 // 7 is Sunday too
	}
	return bits, nil
}

// value parses one number or name of field f.
func value(f fieldSpec, s string, bad func(string, ...any) error) (int, error) {
	if s == "" {
		return 0, bad("missing value (accepts %s)", f.hint)
	}
	if n, ok := number(s); ok {
		if n < f.min || n > f.max {
			return 0, bad("%d is out of range (accepts %s)", n, f.hint)
		}
		return n, nil
	}
	for i, name := range f.names {
		if strings.EqualFold(s, name) {
			return f.nameBase + i, nil
		}
	}
	if s == "*" {
		return 0, bad("* cannot be part of a range")
	}
	return 0, bad("%q is not a valid value (accepts %s)", truncate(s, 20), f.hint)
}

// number parses a short run of ASCII digits: no sign, no spaces, no
// overflow.
func number(s string) (int, bool) {
	if s == "" || len(s) > 4 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// searchYears bounds the search: every expression Parse accepts fires at
// least once in any 8 consecutive years (29 February).
const searchYears = 9

// Next returns the first instant strictly after `after` at which s fires,
// reading wall-clock times in loc (nil means UTC). The result is in loc.
// It returns the zero time only if nothing fires within searchYears, which
// Parse rules out.
func (s *Schedule) Next(after time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	if s.minute == 0 || s.hour == 0 || s.month == 0 {
		return time.Time{}
	}
	afterUnix := after.Unix()
	w := after.In(loc)
	// The wall minute holding `after` fires at or before `after` (its
	// first occurrence, or the end of a gap, cannot be later), and the
	// instant a wall minute fires never decreases as the wall clock
	// advances. So the search starts at the next wall minute and stops at
	// the first match that fires after `after`.
	y, mo, d := w.Date()
	startNaive := time.Date(y, mo, d, w.Hour(), w.Minute(), 0, 0, time.UTC).Unix() + 60
	start := time.Unix(startNaive, 0).UTC()
	year, month, day := start.Date()
	hour0, minute0 := start.Hour(), start.Minute()
	dayNum := daysFromCivil(year, int(month), day)
	lastYear := year + searchYears
	for year <= lastYear {
		if s.month&(1<<uint(month)) == 0 {
			// Skip to the first day of the next month.
			dayNum += int64(daysIn(year, int(month)) - day + 1)
			day = 1
			if month++; month > 12 {
				month, year = 1, year+1
			}
			hour0, minute0 = 0, 0
			continue
		}
		if s.dayMatches(day, weekday(dayNum)) {
			for h := hour0; h < 24; h++ {
				if s.hour&(1<<uint(h)) == 0 {
					continue
				}
				m0 := 0
				if h == hour0 {
					m0 = minute0
				}
				for m := m0; m < 60; m++ {
					if s.minute&(1<<uint(m)) == 0 {
						continue
					}
					naive := dayNum*86400 + int64(h)*3600 + int64(m)*60
					if at := resolve(naive, loc); at > afterUnix {
						return time.Unix(at, 0).In(loc)
					}
				}
			}
		}
		hour0, minute0 = 0, 0
		dayNum++
		if day++; day > daysIn(year, int(month)) {
			day = 1
			if month++; month > 12 {
				month, year = 1, year+1
			}
		}
	}
	return time.Time{}
}

func (s *Schedule) dayMatches(dom int, dow int) bool {
	domOK := s.dom&(1<<uint(dom)) != 0
	dowOK := s.dow&(1<<uint(dow)) != 0
	if s.domRestricted && s.dowRestricted {
		return domOK || dowOK
	}
	return domOK && dowOK
}

// Matches reports whether the wall-clock minute of t, read in t's own
// location, is one the schedule lists. It ignores the DST rules that
// decide which instant fires; tests and callers use it to check results.
func (s *Schedule) Matches(t time.Time) bool {
	y, mo, d := t.Date()
	return s.month&(1<<uint(mo)) != 0 && s.hour&(1<<uint(t.Hour())) != 0 && s.minute&(1<<uint(t.Minute())) != 0 &&
		s.dayMatches(d, weekday(daysFromCivil(y, int(mo), d)))
}

// resolve maps a wall-clock time in loc, given as seconds since the epoch
// as if the wall clock were UTC, to the instant it fires: its first
// occurrence, or, when the wall time falls in a forward gap, the instant
// the gap ends (the first valid minute after it).
func resolve(naive int64, loc *time.Location) int64 {
	// Offsets stay within ±26 hours, so the zone period holding this
	// instant starts before the wall time can occur.
	t := time.Unix(naive-2*86400, 0).In(loc)
	for i := 0; ; i++ {
		_, off := t.Zone()
		_, end := t.ZoneBounds()
		if i > 0 && naive < t.Unix()+int64(off) {
			return t.Unix() // the wall time was skipped: fire when the gap ends
		}
		if end.IsZero() || naive < end.Unix()+int64(off) || i == 64 {
			return naive - int64(off)
		}
		t = end
	}
}

func daysIn(year, month int) int {
	if month == 2 {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return maxDays(month)
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic
// Gregorian date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// weekday of a day number: 0 is Sunday; 1970-01-01 was a Thursday.
func weekday(dayNum int64) int {
	w := (dayNum + 4) % 7
	if w < 0 {
		w += 7
	}
	return int(w)
}
