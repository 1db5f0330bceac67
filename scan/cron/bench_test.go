package cron

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// randomExpr builds a valid expression from every field form.
func randomExpr(r *rand.Rand) string {
	field := func(min, max int) string {
		switch r.IntN(6) {
		case 0:
			return "*"
		case 1:
			return "*/" + strconv.Itoa(1+r.IntN(max-min))
		case 2:
			return strconv.Itoa(min + r.IntN(max-min+1))
		case 3:
			a := min + r.IntN(max-min+1)
			b := a + r.IntN(max-a+1)
			return fmt.Sprintf("%d-%d", a, b)
		case 4:
			a := min + r.IntN(max-min+1)
			b := a + r.IntN(max-a+1)
			return fmt.Sprintf("%d-%d/%d", a, b, 1+r.IntN(max-min))
		default:
			return fmt.Sprintf("%d,%d", min+r.IntN(max-min+1), min+r.IntN(max-min+1))
		}
	}
	return fmt.Sprintf("%s %s %s %s %s", field(0, 59), field(0, 23), field(1, 28), field(1, 12), field(0, 7))
}

// TestNextAgreesWithBruteForce runs the fuzz oracle over random
// expressions starting near each zone's 2026 transitions.
func TestNextAgreesWithBruteForce(t *testing.T) {
	starts := map[string][]string{
		"America/New_York":    {"2026-03-07T22:00:00-05:00", "2026-10-31T22:00:00-04:00"},
		"Europe/Berlin":       {"2026-03-28T22:00:00+01:00", "2026-10-24T22:00:00+02:00"},
		"Australia/Lord_Howe": {"2026-04-04T22:00:00+11:00", "2026-10-03T22:00:00+10:30"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := 0
	for name, list := range starts {
		loc := zone(t, name)
		for _, at := range list {
			after, _ := time.Parse(time.RFC3339, at)
			for i := 0; i < 40; i++ {
				expr := randomExpr(r)
				s, err := Parse(expr)
				if err != nil {
					t.Fatalf("random expression %q: %v", expr, err)
				}
				// Hourly forms mostly: add a few every-minute-of-2am ones
				// so the gap and the repeat are hit often.
				if i%4 == 0 {
					expr = fmt.Sprintf("*/%d 1-3 * * *", 1+r.IntN(30))
					s, _ = Parse(expr)
				}
				next := s.Next(after, loc)
				oracle(t, s, expr, after, next, loc)
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no expression checked")
	}
}

// BenchmarkNext1000 computes the next run of 1,000 schedules (a mix of
// forms and zones, as a scheduler with 1,000 schedules does after a
// restart). Target: <= 10 ms per op.
func BenchmarkNext1000(b *testing.B) {
	names := []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata"}
	locs := make([]*time.Location, len(names))
	for i, n := range names {
		locs[i] = zone(b, n)
	}
	r := rand.New(rand.NewPCG(3, 4))
	fixed := []string{"@daily", "@hourly", "@weekly", "@monthly", "0 2 * * *", "*/15 * * * *", "30 2 * * MON-FRI", "0 0 29 2 *", "0 0 13 * FRI"}
	type sched struct {
		s   *Schedule
		loc *time.Location
	}
	scheds := make([]sched, 1000)
	for i := range scheds {
		expr := randomExpr(r)
		if i%2 == 0 {
			expr = fixed[i/2%len(fixed)]
		}
		s, err := Parse(expr)
		if err != nil {
			b.Fatal(err)
		}
		scheds[i] = sched{s, locs[i%len(locs)]}
	}
	after := time.Date(2026, 3, 8, 6, 30, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, sc := range scheds {
			if sc.s.Next(after, sc.loc).IsZero() {
				b.Fatal("no next run")
			}
		}
	}
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := Parse("0,30 9-17/2 1-15 JAN,JUL MON-FRI"); err != nil {
			b.Fatal(err)
		}
	}
}
