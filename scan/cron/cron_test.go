package cron

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// zone loads an IANA zone from the system database. Where CI=true a
// missing zone fails the test instead of skipping it.
func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("time zone %s: %v (install tzdata)", name, err)
		}
		t.Skipf("time zone %s not available: %v", name, err)
	}
	return loc
}

func bitsOf(vals ...int) uint64 {
	var b uint64
	for _, v := range vals {
		b |= 1 << v
	}
	return b
}

func rangeBits(lo, hi, step int) uint64 {
	var b uint64
	for v := lo; v <= hi; v += step {
		b |= 1 << v
	}
	return b
}

func TestParseFieldForms(t *testing.T) {
	all := func(lo, hi int) uint64 { return rangeBits(lo, hi, 1) }
	cases := []struct {
		expr                          string
		minute, hour, dom, month, dow uint64
		domR, dowR                    bool
	}{
		{"* * * * *", all(0, 59), all(0, 23), all(1, 31), all(1, 12), all(0, 6), false, false},
		{"5 4 3 2 1", bitsOf(5), bitsOf(4), bitsOf(3), bitsOf(2), bitsOf(1), true, true},
		{"*/15 */6 */10 */3 */2", bitsOf(0, 15, 30, 45), bitsOf(0, 6, 12, 18), bitsOf(1, 11, 21, 31), bitsOf(1, 4, 7, 10), bitsOf(0, 2, 4, 6), false, false},
		{"1,2,3 1-3 1-10/3 1,6-7 1-5", bitsOf(1, 2, 3), bitsOf(1, 2, 3), bitsOf(1, 4, 7, 10), bitsOf(1, 6, 7), all(1, 5), true, true},
		{"30/10 22/1 25/2 11/1 5/1", bitsOf(30, 40, 50), bitsOf(22, 23), bitsOf(25, 27, 29, 31), bitsOf(11, 12), bitsOf(5, 6, 0), true, true},
		{"0,30 9-17/2 * JAN,jul,Dec MON-FRI", bitsOf(0, 30), bitsOf(9, 11, 13, 15, 17), all(1, 31), bitsOf(1, 7, 12), all(1, 5), false, true},
		{"0 0 * * 7", bitsOf(0), bitsOf(0), all(1, 31), all(1, 12), bitsOf(0), false, true},
		{"0 0 * * 5-7", bitsOf(0), bitsOf(0), all(1, 31), all(1, 12), bitsOf(5, 6, 0), false, true},
		{"0 0 * * sun,SAT", bitsOf(0), bitsOf(0), all(1, 31), all(1, 12), bitsOf(0, 6), false, true},
		{"0 0 * feb-APR *", bitsOf(0), bitsOf(0), all(1, 31), bitsOf(2, 3, 4), all(0, 6), false, false},
		{"59 23 31 12 *", bitsOf(59), bitsOf(23), bitsOf(31), bitsOf(12), all(0, 6), true, false},
		{"  0\t12  *  *  *  ", bitsOf(0), bitsOf(12), all(1, 31), all(1, 12), all(0, 6), false, false},
		{"@hourly", bitsOf(0), all(0, 23), all(1, 31), all(1, 12), all(0, 6), false, false},
		{"@daily", bitsOf(0), bitsOf(0), all(1, 31), all(1, 12), all(0, 6), false, false},
		{"@midnight", bitsOf(0), bitsOf(0), all(1, 31), all(1, 12), all(0, 6), false, false},
		{"@weekly", bitsOf(0), bitsOf(0), all(1, 31), all(1, 12), bitsOf(0), false, true},
		{"@monthly", bitsOf(0), bitsOf(0), bitsOf(1), all(1, 12), all(0, 6), true, false},
		{"@YEARLY", bitsOf(0), bitsOf(0), bitsOf(1), bitsOf(1), all(0, 6), true, false},
		{"@annually", bitsOf(0), bitsOf(0), bitsOf(1), bitsOf(1), all(0, 6), true, false},
	}
	for _, c := range cases {
		s, err := Parse(c.expr)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.expr, err)
			continue
		}
		got := [5]uint64{s.minute, s.hour, s.dom, s.month, s.dow}
		want := [5]uint64{c.minute, c.hour, c.dom, c.month, c.dow}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("Parse(%q) %s = %b, want %b", c.expr, spec(i).name, got[i], want[i])
			}
		}
		if s.domRestricted != c.domR || s.dowRestricted != c.dowR {
			t.Errorf("Parse(%q) restricted dom=%v dow=%v, want %v %v", c.expr, s.domRestricted, s.dowRestricted, c.domR, c.dowR)
		}
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	cases := []struct {
		expr, field, value, msg string
	}{
		{"", "", "", "expression is empty"},
		{"   ", "", "", "expression is empty"},
		{"* * * *", "", "", "expected 5 fields (minute hour day-of-month month day-of-week), got 4"},
		{"* * * * * *", "", "", "got 6"},
		{"@reboot", "", "", `unknown macro "@reboot"`},
		{"@", "", "", "unknown macro"},
		{strings.Repeat("1,", 200) + "1 * * * *", "", "", "the limit is 256"},
		{"60 * * * *", "minute", "60", "60 is out of range (accepts 0-59)"},
		{"* 24 * * *", "hour", "24", "24 is out of range (accepts 0-23)"},
		{"* * 0 * *", "day-of-month", "0", "0 is out of range (accepts 1-31)"},
		{"* * 32 * *", "day-of-month", "32", "out of range"},
		{"* * * 13 *", "month", "13", "accepts 1-12 or JAN-DEC"},
		{"* * * 0 *", "month", "0", "out of range"},
		{"* * * * 8", "day-of-week", "8", "accepts 0-7 (0 and 7 are Sunday) or SUN-SAT"},
		{"* * * JANUARY *", "month", "JANUARY", `"JANUARY" is not a valid value`},
		{"* * * * MON-FRU", "day-of-week", "MON-FRU", `"FRU" is not a valid value`},
		{"* * * * JAN", "day-of-week", "JAN", "not a valid value"},
		{"* * * MON *", "month", "MON", "not a valid value"},
		{"5-1 * * * *", "minute", "5-1", "range 5-1 runs backwards"},
		{"*/0 * * * *", "minute", "*/0", "step must be at least 1"},
		{"*/60 * * * *", "minute", "*/60", "step 60 is larger than the field's range 0-59"},
		{"*/x * * * *", "minute", "*/x", `step "x" is not a positive number`},
		{"*/-1 * * * *", "minute", "*/-1", "not a positive number"},
		{"1,,2 * * * *", "minute", "1,,2", "empty element in the list"},
		{"1, * * * *", "minute", "1,", "empty element"},
		{"-5 * * * *", "minute", "-5", "missing value"},
		{"1- * * * *", "minute", "1-", "missing value"},
		{"*-5 * * * *", "minute", "*-5", "* cannot be part of a range"},
		{"? * * * *", "minute", "?", `"?" is not a valid value`},
		{"L * * * *", "minute", "L", "not a valid value"},
		{"99999 * * * *", "minute", "99999", "not a valid value"},
		{"0 0 30 2 *", "day-of-month", "30", "never run"},
		{"0 0 31 4,6,9,11 *", "day-of-month", "31", "never run"},
	}
	for _, c := range cases {
		_, err := Parse(c.expr)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, want a *ParseError", c.expr, err)
			continue
		}
		if pe.Field != c.field || pe.Value != c.value || !strings.Contains(pe.Error(), c.msg) {
			t.Errorf("Parse(%q) = field %q value %q %q; want field %q value %q containing %q", c.expr, pe.Field, pe.Value, pe.Error(), c.field, c.value, c.msg)
		}
		if c.field != "" && !strings.HasPrefix(pe.Error(), c.field+" field ") {
			t.Errorf("Parse(%q) error %q does not start with the field name", c.expr, pe.Error())
		}
	}
	// 29 February and 31 in a long month are fine; so is OR with a weekday.
	for _, ok := range []string{"0 0 29 2 *", "0 0 31 1-12 *", "0 0 30 2 MON"} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
}

// nextCase lists the successive run times from `after`, as RFC 3339 in
// the zone, so every expected value shows its UTC offset.
type nextCase struct {
	name, zone, expr, after string
	want                    []string
}

func runNextCases(t *testing.T, cases []nextCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc := zone(t, c.zone)
			s, err := Parse(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			at, err := time.Parse(time.RFC3339, c.after)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range c.want {
				at = s.Next(at, loc)
				if got := at.Format(time.RFC3339); got != want {
					t.Fatalf("%s in %s, run %d after %s = %s, want %s", c.expr, c.zone, i+1, c.after, got, want)
				}
			}
		})
	}
}

func TestNextFieldForms(t *testing.T) {
	runNextCases(t, []nextCase{
		{"every minute", "UTC", "* * * * *", "2026-01-01T10:00:30Z", []string{"2026-01-01T10:01:00Z", "2026-01-01T10:02:00Z"}},
		{"exact minute excluded", "UTC", "0 10 * * *", "2026-01-01T10:00:00Z", []string{"2026-01-02T10:00:00Z"}},
		{"sub-second after", "UTC", "0 10 * * *", "2026-01-01T09:59:59Z", []string{"2026-01-01T10:00:00Z"}},
		{"step", "UTC", "*/20 * * * *", "2026-01-01T10:41:00Z", []string{"2026-01-01T11:00:00Z", "2026-01-01T11:20:00Z", "2026-01-01T11:40:00Z"}},
		{"list and range", "UTC", "0 8,12-13 * * *", "2026-01-01T09:00:00Z", []string{"2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z", "2026-01-02T08:00:00Z"}},
		{"range step", "UTC", "0 9-17/4 * * *", "2026-01-01T00:00:00Z", []string{"2026-01-01T09:00:00Z", "2026-01-01T13:00:00Z", "2026-01-01T17:00:00Z", "2026-01-02T09:00:00Z"}},
		{"weekdays by name", "UTC", "30 6 * * MON-FRI", "2026-01-02T07:00:00Z", []string{"2026-01-05T06:30:00Z", "2026-01-06T06:30:00Z"}}, // Jan 2 2026 is a Friday
		{"sunday as 7", "UTC", "0 0 * * 7", "2026-01-01T00:00:00Z", []string{"2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"}},
		{"month names", "UTC", "0 0 1 jun,DEC *", "2026-01-01T00:00:00Z", []string{"2026-06-01T00:00:00Z", "2026-12-01T00:00:00Z", "2027-06-01T00:00:00Z"}},
		{"31st skips short months", "UTC", "0 12 31 * *", "2026-01-31T13:00:00Z", []string{"2026-03-31T12:00:00Z", "2026-05-31T12:00:00Z"}},
		{"29 February", "UTC", "0 0 29 2 *", "2026-03-01T00:00:00Z", []string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"29 February across 2100", "UTC", "0 0 29 2 *", "2096-03-01T00:00:00Z", []string{"2104-02-29T00:00:00Z"}},
		{"year rollover", "UTC", "59 23 31 12 *", "2026-06-01T00:00:00Z", []string{"2026-12-31T23:59:00Z", "2027-12-31T23:59:00Z"}},
		{"day OR weekday when both restricted", "UTC", "0 0 13 * FRI", "2026-02-01T00:00:00Z", []string{"2026-02-06T00:00:00Z", "2026-02-13T00:00:00Z", "2026-02-20T00:00:00Z", "2026-02-27T00:00:00Z", "2026-03-06T00:00:00Z", "2026-03-13T00:00:00Z"}},
		{"*/n day counts as unrestricted: AND", "UTC", "0 0 */2 * MON", "2026-01-01T00:00:00Z", []string{"2026-01-05T00:00:00Z", "2026-01-19T00:00:00Z", "2026-02-09T00:00:00Z"}},
		{"weekday restricted only", "UTC", "0 0 * * 3", "2026-01-01T00:00:00Z", []string{"2026-01-07T00:00:00Z"}},
		{"@hourly", "UTC", "@hourly", "2026-01-01T10:59:59Z", []string{"2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z"}},
		{"@daily", "UTC", "@daily", "2026-01-01T10:00:00Z", []string{"2026-01-02T00:00:00Z"}},
		{"@weekly", "UTC", "@weekly", "2026-01-01T10:00:00Z", []string{"2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"}},
		{"@monthly", "UTC", "@monthly", "2026-01-15T10:00:00Z", []string{"2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"}},
		{"zone shifts the day", "Europe/Berlin", "0 0 * * *", "2026-01-01T23:30:00Z", []string{"2026-01-03T00:00:00+01:00"}},
		{"half-hour zone", "Asia/Kolkata", "0 9 * * *", "2026-01-01T00:00:00Z", []string{"2026-01-01T09:00:00+05:30"}},
	})
}

// DST transitions of 2026 used below: New York springs forward on 8 March
// (02:00 EST -> 03:00 EDT) and falls back on 1 November (02:00 EDT ->
// 01:00 EST); Berlin on 29 March (02:00 CET -> 03:00 CEST) and 25 October
// (03:00 CEST -> 02:00 CET); Lord Howe Island moves by 30 minutes, back on
// 5 April (02:00 +11 -> 01:30 +1030) and forward on 4 October (02:00
// +1030 -> 02:30 +11).
func TestNextDaylightSaving(t *testing.T) {
	runNextCases(t, []nextCase{
		// New York, the gap: 02:00-02:59 does not exist on 8 March.
		{"NY gap time runs at the gap's end", "America/New_York", "30 2 * * *", "2026-03-07T12:00:00-05:00",
			[]string{"2026-03-08T03:00:00-04:00", "2026-03-09T02:30:00-04:00"}},
		{"NY several gap times run once", "America/New_York", "*/15 2 * * *", "2026-03-08T01:50:00-05:00",
			[]string{"2026-03-08T03:00:00-04:00", "2026-03-09T02:00:00-04:00"}},
		{"NY gap and a real 03:00 run once", "America/New_York", "0 2,3 * * *", "2026-03-08T01:00:00-05:00",
			[]string{"2026-03-08T03:00:00-04:00", "2026-03-09T02:00:00-04:00"}},
		{"NY hourly across the gap", "America/New_York", "0 * * * *", "2026-03-08T00:30:00-05:00",
			[]string{"2026-03-08T01:00:00-05:00", "2026-03-08T03:00:00-04:00", "2026-03-08T04:00:00-04:00"}},
		{"NY gap time with a weekday", "America/New_York", "30 2 * * SUN", "2026-03-01T12:00:00-05:00",
			[]string{"2026-03-08T03:00:00-04:00", "2026-03-15T02:30:00-04:00"}},
		// New York, the repeat: 01:00-01:59 happens twice on 1 November.
		{"NY repeated time runs at its first occurrence", "America/New_York", "30 1 * * *", "2026-10-31T12:00:00-04:00",
			[]string{"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"}},
		{"NY every 30 minutes skips the second pass", "America/New_York", "*/30 * * * *", "2026-11-01T00:45:00-04:00",
			[]string{"2026-11-01T01:00:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-01T02:00:00-05:00", "2026-11-01T02:30:00-05:00"}},
		{"NY starting inside the second pass", "America/New_York", "*/30 * * * *", "2026-11-01T01:10:00-05:00",
			[]string{"2026-11-01T02:00:00-05:00"}},
		{"NY 02:00 on the fall-back day exists once", "America/New_York", "0 2 * * *", "2026-11-01T00:00:00-04:00",
			[]string{"2026-11-01T02:00:00-05:00", "2026-11-02T02:00:00-05:00"}},
		// Berlin.
		{"Berlin gap", "Europe/Berlin", "30 2 * * *", "2026-03-28T12:00:00+01:00",
			[]string{"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
		{"Berlin repeat", "Europe/Berlin", "30 2 * * *", "2026-10-24T12:00:00+02:00",
			[]string{"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
		{"Berlin hourly over the repeat", "Europe/Berlin", "0 * * * *", "2026-10-25T01:30:00+02:00",
			[]string{"2026-10-25T02:00:00+02:00", "2026-10-25T03:00:00+01:00", "2026-10-25T04:00:00+01:00"}},
		{"Berlin every minute over the gap", "Europe/Berlin", "* * * * *", "2026-03-29T01:58:00+01:00",
			[]string{"2026-03-29T01:59:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T03:01:00+02:00"}},
		// Lord Howe Island: 30-minute shifts.
		{"Lord Howe half-hour gap", "Australia/Lord_Howe", "15,45 2 * * *", "2026-10-04T01:00:00+10:30",
			[]string{"2026-10-04T02:30:00+11:00", "2026-10-04T02:45:00+11:00", "2026-10-05T02:15:00+11:00"}},
		{"Lord Howe half-hour repeat", "Australia/Lord_Howe", "45 1 * * *", "2026-04-04T12:00:00+11:00",
			[]string{"2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"}},
		{"Lord Howe every 10 minutes over the repeat", "Australia/Lord_Howe", "*/10 1-2 * * *", "2026-04-05T01:35:00+11:00",
			[]string{"2026-04-05T01:40:00+11:00", "2026-04-05T01:50:00+11:00", "2026-04-05T02:00:00+10:30", "2026-04-05T02:10:00+10:30"}},
	})
}

func TestNextNilLocationIsUTC(t *testing.T) {
	s, err := Parse("0 12 * * *")
	if err != nil {
		t.Fatal(err)
	}
	after := time.Date(2026, 5, 1, 13, 0, 0, 0, time.FixedZone("X", 3*3600))
	if got := s.Next(after, nil); !got.Equal(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)) || got.Location() != time.UTC {
		t.Fatalf("Next with nil location = %v", got)
	}
	var zero Schedule
	if got := zero.Next(after, nil); !got.IsZero() {
		t.Fatalf("zero Schedule fired at %v", got)
	}
}

func TestMatches(t *testing.T) {
	s, err := Parse("30 2 13 * FRI")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   string
		want bool
	}{
		{"2026-02-13T02:30:00Z", true}, // the 13th and a Friday
		{"2026-02-06T02:30:00Z", true}, // a Friday
		{"2026-01-13T02:30:00Z", true}, // the 13th
		{"2026-01-14T02:30:00Z", false},
		{"2026-02-13T02:31:00Z", false},
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		if got := s.Matches(at); got != c.want {
			t.Errorf("Matches(%s) = %v, want %v", c.at, got, c.want)
		}
	}
}
