package sqlbase

import (
	"regexp"
	"sort"
	"testing"
	"time"
)

func TestTimeFormatSortsAsTime(t *testing.T) {
	times := []time.Time{
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 1000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 100_000_000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC),
		time.Date(2026, 1, 2, 4, 4, 5, 0, time.FixedZone("CET", 3600)), // = 03:04:05 UTC
		time.Date(2025, 12, 31, 23, 59, 59, 999_999_000, time.UTC),
		time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
	}
	var texts []string
	for _, tm := range times {
		s := FormatTime(tm)
		if len(s) != len(TimeLayout) {
			t.Fatalf("FormatTime(%v) = %q: not fixed width", tm, s)
		}
		if back := ParseTime(s); !back.Equal(tm.Truncate(time.Microsecond)) {
			t.Fatalf("ParseTime(FormatTime(%v)) = %v", tm, back)
		}
		texts = append(texts, s)
	}
	sortedTimes := append([]time.Time(nil), times...)
	sort.SliceStable(sortedTimes, func(i, j int) bool { return sortedTimes[i].Before(sortedTimes[j]) })
	sort.Strings(texts)
	for i := range texts {
		if texts[i] != FormatTime(sortedTimes[i]) {
			t.Fatalf("text order differs from time order at %d: %q vs %v", i, texts[i], sortedTimes[i])
		}
	}
}

func TestNewIDIsTimeOrderedUUIDv7(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	first := NewID()
	time.Sleep(2 * time.Millisecond)
	if later := NewID(); later[:13] <= first[:13] {
		t.Fatalf("ids not time-ordered: %s then %s", first, later)
	}
	for i := 0; i < 1000; i++ {
		id := NewID()
		if !re.MatchString(id) {
			t.Fatalf("NewID() = %q, not a version 7 UUID", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
}
