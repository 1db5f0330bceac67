package finding

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var plainCode = regexp.MustCompile(`^[A-Za-z0-9_=(). ]*$`)

// FuzzNormalizeLineContext checks the invariants the fingerprint relies on.
// Run: go test ./finding/ -run '^$' -fuzz FuzzNormalizeLineContext -fuzztime 30s
func FuzzNormalizeLineContext(f *testing.F) {
	for _, s := range []string{
		"", "x := 1 // c", `s := "http://x/#a" # c`, "/* a */ b", "<!-- a --> b", "a -- b",
		"#include <x>", "# c", "a /* x\n y */ b", `"\"`, "'", "`", "scand:ignore x", "--",
		"key = 1 ; scand:ignore", "\xff\xfe", "İ", "a\u2028b", "ǅ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out := NormalizeLineContext(raw)
		if out != strings.TrimSpace(out) || strings.Contains(out, "  ") {
			t.Fatalf("untrimmed or uncollapsed output %q", out)
		}
		for _, r := range out {
			if r != ' ' && unicode.IsSpace(r) {
				t.Fatalf("whitespace %U left in %q", r, out)
			}
		}
		if utf8.ValidString(raw) && !utf8.ValidString(out) {
			t.Fatalf("valid input %q gave invalid UTF-8 %q", raw, out)
		}
		// (Non-ASCII input may lower-case into the marker's letters, e.g.
		// U+0130 to 'i'; SuppressedBy does not read that as a marker either.)
		if isASCII(raw) && strings.Contains(out, suppressMarker) {
			t.Fatalf("suppression marker kept in %q", out)
		}
		if again := NormalizeLineContext(raw); again != out {
			t.Fatalf("not deterministic: %q then %q", out, again)
		}
		// Without comment syntax or a directive, normalization is exactly
		// lower-casing plus whitespace folding (the one-pass fold must agree
		// with strings.ToLower, invalid UTF-8 included).
		if !strings.ContainsAny(raw, "/#-") && indexASCIIFold(raw, suppressMarker) < 0 {
			if want := strings.Join(strings.Fields(strings.ToLower(raw)), " "); out != want {
				t.Fatalf("NormalizeLineContext(%q) = %q, want %q", raw, out, want)
			}
		}
		// Reindenting never changes the context.
		if ind := NormalizeLineContext(" \t  " + raw); ind != out {
			t.Fatalf("indentation changed the context of %q: %q vs %q", raw, out, ind)
		}
		// A trailing comment on a plain line never changes the context.
		if !strings.Contains(raw, "\n") && plainCode.MatchString(raw) && out != "" {
			for _, comment := range []string{" // note", "  # note", " /* note */", " -- note", " // scand:ignore r"} {
				if with := NormalizeLineContext(raw + comment); with != out {
					t.Fatalf("comment %q changed the context of %q: %q vs %q", comment, raw, out, with)
				}
			}
		}
	})
}

// FuzzSuppressedBy checks that suppression never comes from nowhere.
// Run: go test ./finding/ -run '^$' -fuzz FuzzSuppressedBy -fuzztime 30s
func FuzzSuppressedBy(f *testing.F) {
	f.Add("r", "x // scand:ignore r -- why", "")
	f.Add("r", "x", "# scand:ignore")
	f.Add("", "scand:ignore", "scand:ignore")
	f.Add("a--b", "/* scand:ignore a--b*/", "")
	f.Add("r", "x // SCAND:IGNORE r, s -- "+strings.Repeat("é", 150), "y // scand:ignore")
	f.Fuzz(func(t *testing.T, rule, line, prev string) {
		got := SuppressedBy(rule, line, prev)
		if got == "" {
			return
		}
		if !strings.HasPrefix(got, "inline: scand:ignore") {
			t.Fatalf("malformed value %q", got)
		}
		if indexASCIIFold(line, suppressMarker) < 0 && indexASCIIFold(prev, suppressMarker) < 0 {
			t.Fatalf("suppressed without a directive: %q / %q -> %q", line, prev, got)
		}
		if strings.ContainsAny(got, "\n") {
			t.Fatalf("value spans lines: %q", got)
		}
		if len(got) > len("inline: scand:ignore -- …")+len(line)+len(prev) {
			t.Fatalf("value %q longer than its sources", got)
		}
		// A directive on the finding's own line is not affected by the line above.
		if same := SuppressedBy(rule, line, ""); same != "" && same != got {
			t.Fatalf("line above changed a same-line result: %q vs %q", same, got)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
