package cron

import (
	"errors"
	"testing"
	"time"
)

// fuzzZones are the zones the fuzz target reads schedules in: no DST,
// one-hour shifts on two continents, a 30-minute shift and a :45 offset.
var fuzzZones = []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu"}

// oracleWindow bounds the brute-force check so one fuzz input stays fast.
const oracleWindow = 3 * 24 * time.Hour

// FuzzParseNext checks Parse never panics, that its errors name a field or
// the expression, and that Next agrees with a brute-force walk over every
// minute: a wall minute fires at its first occurrence, and minutes skipped
// by a forward jump fire once, when the jump lands.
func FuzzParseNext(f *testing.F) {
	f.Add("*/15 2 * * *", int64(1772953800), uint8(1))
	f.Add("30 1 * * *", int64(1793505600), uint8(1))
	f.Add("0 * * * *", int64(1792883000), uint8(2))
	f.Add("15,45 2 * * *", int64(1791036000), uint8(3))
	f.Add("45 1 * * *", int64(1775307600), uint8(3))
	f.Add("0 0 29 2 *", int64(1772323200), uint8(0))
	f.Add("0 0 13 * FRI", int64(1769904000), uint8(4))
	f.Add("@weekly", int64(0), uint8(0))
	f.Add("5-1 * * * *", int64(0), uint8(0))
	locs := make([]*time.Location, len(fuzzZones))
	for i, name := range fuzzZones {
		locs[i] = zone(f, name)
	}
	f.Fuzz(func(t *testing.T, expr string, unix int64, zoneIndex uint8) {
		s, err := Parse(expr)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Msg == "" {
				t.Fatalf("Parse(%q) error %v is not a *ParseError with a message", expr, err)
			}
			return
		}
		// Keep instants within 1970-2100, where zone rules are known.
		const span = int64(130 * 365 * 86400)
		unix %= span
		if unix < 0 {
			unix += span
		}
		loc := locs[int(zoneIndex)%len(locs)]
		after := time.Unix(unix, 0)
		next := s.Next(after, loc)
		if next.IsZero() {
			t.Fatalf("Next(%q, %v, %s) found nothing", expr, after, loc)
		}
		if !next.After(after) {
			t.Fatalf("Next(%q, %v, %s) = %v, not after", expr, after, loc, next)
		}
		if again := s.Next(next.Add(-time.Nanosecond), loc); !again.Equal(next) {
			t.Fatalf("Next just before %v = %v", next, again)
		}
		oracle(t, s, expr, after, next, loc)
	})
}

// oracle walks real instants minute by minute from a little before after,
// remembering the wall minutes seen, and checks that the first instant
// after `after` that should fire is next.
func oracle(t *testing.T, s *Schedule, expr string, after, next time.Time, loc *time.Location) {
	t.Helper()
	seen := map[int64]bool{}
	wallKey := func(w time.Time) int64 {
		y, mo, d := w.Date()
		return time.Date(y, mo, d, w.Hour(), w.Minute(), 0, 0, time.UTC).Unix()
	}
	// Repeated wall times are at most a few hours apart; start early
	// enough to have seen the first occurrence.
	at := after.Truncate(time.Minute).Add(-4 * time.Hour)
	prev := wallKey(at.Add(-time.Minute).In(loc))
	end := after.Add(oracleWindow)
	for ; !at.After(end); at = at.Add(time.Minute) {
		key := wallKey(at.In(loc))
		fires := false
		if key > prev+60 {
			// A forward jump: the skipped wall minutes fire now.
			for k := prev + 60; k < key; k += 60 {
				if s.Matches(time.Unix(k, 0).UTC()) {
					fires = true
				}
			}
		}
		if !seen[key] && s.Matches(time.Unix(key, 0).UTC()) {
			fires = true
		}
		seen[key] = true
		if key > prev {
			prev = key
		}
		if !at.After(after) || !fires {
			continue
		}
		if !at.Equal(next) {
			t.Fatalf("%q in %s after %v: Next = %v, brute force fires at %v", expr, loc, after.In(loc), next.In(loc), at.In(loc))
		}
		return
	}
	if !next.After(end) {
		t.Fatalf("%q in %s after %v: Next = %v, brute force finds nothing up to %v", expr, loc, after.In(loc), next.In(loc), end.In(loc))
	}
}
