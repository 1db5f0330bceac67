package finding

import (
	"strings"
	"testing"
)

func TestSuppressedBy(t *testing.T) {
	const rule = "aws-access-key-id"
	cases := []struct {
		name           string
		rule           string
		line, prevLine string
		want           string
	}{
		{"no directive", rule, `key = "AKIA"`, "x = 1", ""},
		{"rule on same line", rule, `key = "AKIA" // scand:ignore aws-access-key-id`, "", "inline: scand:ignore aws-access-key-id"},
		{"all rules on same line", rule, `key = "AKIA" # scand:ignore`, "", "inline: scand:ignore"},
		{"other rule does not cover", rule, `key = "AKIA" // scand:ignore generic-api-key`, "", ""},
		{"rule list", rule, `key = "AKIA" // scand:ignore generic-api-key,aws-access-key-id`, "", "inline: scand:ignore generic-api-key,aws-access-key-id"},
		{"rule list with spaces", rule, `key = "AKIA" // scand:ignore generic-api-key, aws-access-key-id`, "", "inline: scand:ignore generic-api-key,aws-access-key-id"},
		{"rule with reason", rule, `key = "AKIA" // scand:ignore aws-access-key-id -- test fixture`, "", "inline: scand:ignore aws-access-key-id -- test fixture"},
		{"all rules with reason", rule, `key = "AKIA" // scand:ignore -- revoked in 2023`, "", "inline: scand:ignore -- revoked in 2023"},
		{"reason does not name rules", rule, `key = "AKIA" // scand:ignore other -- aws-access-key-id`, "", ""},
		{"rule id case-insensitive", "G101", `pw := "x" // scand:ignore g101`, "", "inline: scand:ignore g101"},
		{"marker case-insensitive", rule, `key = "AKIA" // SCAND:IGNORE`, "", "inline: scand:ignore"},
		{"rule id containing dashes", "a--b", `x // scand:ignore a--b`, "", "inline: scand:ignore a--b"},
		{"trailing words are rule ids, not all", rule, `key = "AKIA" // scand:ignore because it is a test`, "", ""},
		{"block comment closer ends rules", rule, `key = "AKIA" /* scand:ignore aws-access-key-id */ + x`, "", "inline: scand:ignore aws-access-key-id"},
		{"block comment closer right after marker", rule, `key /* scand:ignore*/`, "", "inline: scand:ignore"},
		{"html comment closer", "missing-csp", `<meta> <!-- scand:ignore missing-csp -- legacy page -->`, "", "inline: scand:ignore missing-csp -- legacy page"},
		{"longer word is not the marker", rule, `key // scand:ignored`, "", ""},
		{"suffixed marker is not the marker", rule, `key // scand:ignore-all`, "", ""},
		{"prefixed marker is not the marker", rule, `key // xscand:ignore`, "", ""},
		{"second directive covers", rule, `k // scand:ignore other; scand:ignore aws-access-key-id`, "", "inline: scand:ignore aws-access-key-id"},
		{"comment-only line above", rule, `key = "AKIA"`, "  // scand:ignore aws-access-key-id", "inline: scand:ignore aws-access-key-id"},
		{"hash comment line above", rule, `key: AKIA`, "# scand:ignore -- sample", "inline: scand:ignore -- sample"},
		{"sql comment line above", "sqli", `SELECT 1`, "-- scand:ignore sqli", "inline: scand:ignore sqli"},
		{"block comment line above", rule, `key`, "/* scand:ignore */", "inline: scand:ignore"},
		{"trailing directive above covers only its own line", rule, `key2 = "AKIB"`, `key1 = "AKIA" // scand:ignore`, ""},
		{"same line wins over line above", rule, `k // scand:ignore aws-access-key-id -- here`, "// scand:ignore -- above", "inline: scand:ignore aws-access-key-id -- here"},
		{"line above, other rule", rule, `key`, "// scand:ignore generic-api-key", ""},
		{"empty rule id needs all-rules directive", "", `x // scand:ignore aws-access-key-id`, "", ""},
		{"empty rule id, all rules", "", `x // scand:ignore`, "", "inline: scand:ignore"},
		{"empty lines", rule, "", "", ""},
		{"directive on another snippet line", rule, "a = 1\nb = 2 // scand:ignore", "", "inline: scand:ignore"},
		{"reason trimmed", rule, "k // scand:ignore --   spaced out   \r", "", "inline: scand:ignore -- spaced out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SuppressedBy(c.rule, c.line, c.prevLine); got != c.want {
				t.Errorf("SuppressedBy(%q, %q, %q) = %q, want %q", c.rule, c.line, c.prevLine, got, c.want)
			}
		})
	}
}

func TestSuppressedByCapsReason(t *testing.T) {
	long := strings.Repeat("é", 300) // multi-byte: the cut must not split a rune
	got := SuppressedBy("r", "x // scand:ignore r -- "+long, "")
	reason, ok := strings.CutPrefix(got, "inline: scand:ignore r -- ")
	if !ok {
		t.Fatalf("unexpected value %q", got)
	}
	if len(reason) > maxSuppressReason+len("…") {
		t.Errorf("reason is %d bytes, cap is %d", len(reason), maxSuppressReason)
	}
	if !strings.HasSuffix(reason, "…") || strings.ContainsRune(reason, '\uFFFD') {
		t.Errorf("reason not cut cleanly: %q", reason)
	}
}

func TestIsSuppressed(t *testing.T) {
	cases := []struct {
		name string
		md   map[string]any
		want bool
	}{
		{"nil metadata", nil, false},
		{"key absent", map[string]any{"x": 1}, false},
		{"nil value", map[string]any{"suppressed_by": nil}, false},
		{"empty string", map[string]any{"suppressed_by": ""}, false},
		{"reason", map[string]any{"suppressed_by": "inline: scand:ignore"}, true},
		{"non-string value", map[string]any{"suppressed_by": map[string]any{"by": "x"}}, true},
	}
	for _, c := range cases {
		if got := IsSuppressed(Finding{Metadata: c.md}); got != c.want {
			t.Errorf("%s: IsSuppressed = %v, want %v", c.name, got, c.want)
		}
	}
}
