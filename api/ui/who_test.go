package ui

import (
	"strings"
	"testing"
)

func TestShortIDsArePageUnique(t *testing.T) {
	a := "0190a1b2-c3d4-7abc-8def-000000000001"
	b := "0190a1b2-c3d4-7abc-8def-000000000002"
	other := "0290ffff-0000-7000-8000-000000000000"
	cases := []struct {
		name, page, want string
	}{
		{"one id keeps 8", "<td>" + shortMark(a) + "</td>", "<td>0190a1b2</td>"},
		{"distinct ids keep 8", shortMark(a) + " " + shortMark(other), "0190a1b2 0290ffff"},
		{"the same id twice is one id", shortMark(a) + shortMark(a), "0190a1b20190a1b2"},
		{"ids sharing 35 characters show 36", shortMark(a) + "|" + shortMark(b) + "|" + shortMark(other),
			a + "|" + b + "|0290ffff-0000-7000-8000-000000000000"},
		{"an id shorter than the prefix shows whole", shortMark("abc") + shortMark(a), "abc0190a1b2"},
		{"text that is not an id stays", "\ue000<b>not an id</b>\ue001" + shortMark(a), "\ue000<b>not an id</b>\ue0010190a1b2"},
		{"an unclosed mark stays", "x\ue000" + shortMark(a), "x\ue0000190a1b2"},
	}
	for _, tc := range cases {
		if got := string(resolveShortIDs([]byte(tc.page))); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// Every id of a page of 200 time-ordered ids is a distinct prefix.
	var page strings.Builder
	var ids []string
	for i := 0; i < 200; i++ {
		id := "0190a1b2-c3d4-7" + strings.Repeat("0", 3) + "-8000-" + strings.Repeat("0", 9) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		ids = append(ids, id)
		page.WriteString(shortMark(id) + "\n")
	}
	lines := strings.Split(strings.TrimSpace(string(resolveShortIDs([]byte(page.String())))), "\n")
	seen := map[string]bool{}
	for i, l := range lines {
		if seen[l] || !strings.HasPrefix(ids[i], l) || len(l) < 8 {
			t.Fatalf("line %d: %q is not a unique prefix of %s", i, l, ids[i])
		}
		seen[l] = true
	}
}
