package finding

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// summarize renders what a dedup test cares about, one string per finding.
func summarize(fs []Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		s := fmt.Sprintf("%s/%s@%s:%d %s", f.Scanner, f.RuleID, f.FilePath, f.Line, f.Severity)
		if v := metaStrings(f.Metadata[MetaAlsoReportedBy]); len(v) > 0 {
			s += " also=" + strings.Join(v, ",")
		}
		if v := metaInts(f.Metadata[MetaAlsoAtLines]); len(v) > 0 {
			s += fmt.Sprintf(" lines=%v", v)
		}
		if IsSuppressed(f) {
			s += " suppressed"
		}
		out = append(out, s)
	}
	return out
}

func TestDedup(t *testing.T) {
	sqliA := mk("semgrep", "tainted-sql", High, "db.go", 10, "CWE-89", "SQL injection", "q := x")
	sqliB := mk("gosec", "G201", Medium, "db.go", 10, "CWE-89", "SQL string formatting", "q := x")
	cases := []struct {
		name string
		in   []Finding
		want []string
	}{
		{
			name: "empty",
			in:   nil,
			want: []string{},
		},
		{
			name: "identical copies collapse",
			in: []Finding{
				mk("secrets", "aws", Critical, "a.env", 3, "CWE-798", "AWS key", "k=1"),
				mk("secrets", "aws", Critical, "a.env", 3, "CWE-798", "AWS key", "k=1"),
			},
			want: []string{"secrets/aws@a.env:3 critical"},
		},
		{
			name: "same fingerprint on other lines keeps the lines",
			in: []Finding{
				mk("secrets", "aws", Critical, "a.env", 9, "CWE-798", "AWS key", "k=1"),
				mk("secrets", "aws", Critical, "a.env", 3, "CWE-798", "AWS key", "k=1"),
				mk("secrets", "aws", Critical, "a.env", 5, "CWE-798", "AWS key", "  k=1"),
			},
			want: []string{"secrets/aws@a.env:3 critical lines=[5 9]"},
		},
		{
			name: "same fingerprint, unsuppressed copy wins",
			in: []Finding{
				suppressed(mk("secrets", "aws", Critical, "a.env", 3, "CWE-798", "AWS key", "k=1")),
				mk("secrets", "aws", Critical, "a.env", 7, "CWE-798", "AWS key", "k=1"),
			},
			want: []string{"secrets/aws@a.env:7 critical lines=[3]"},
		},
		{
			name: "other scanner, same line and CWE: merge into the most severe",
			in:   []Finding{sqliB, sqliA},
			want: []string{"semgrep/tainted-sql@db.go:10 high also=gosec"},
		},
		{
			name: "severity tie: the canonically first is kept",
			in: []Finding{
				mk("semgrep", "r1", High, "db.go", 10, "CWE-89", "SQL injection", "x"),
				mk("gosec", "G201", High, "db.go", 10, "CWE-89", "SQL string", "x"),
			},
			want: []string{"gosec/G201@db.go:10 high also=semgrep"},
		},
		{
			name: "same title (case, spaces, full stop), no CWE: merge",
			in: []Finding{
				mk("semgrep", "r1", Low, "a.py", 4, "", "Use of  eval", "eval(x)"),
				mk("bandit", "B307", Medium, "a.py", 4, "", "use of eval.", "eval(x)"),
			},
			want: []string{"bandit/B307@a.py:4 medium also=semgrep"},
		},
		{
			name: "different CWE and title: no merge",
			in: []Finding{
				mk("semgrep", "r1", High, "a.py", 4, "CWE-95", "eval", "eval(x)"),
				mk("bandit", "B105", High, "a.py", 4, "CWE-259", "password", "eval(x)"),
			},
			want: []string{"bandit/B105@a.py:4 high", "semgrep/r1@a.py:4 high"},
		},
		{
			name: "other line: no merge",
			in: []Finding{
				mk("semgrep", "r1", High, "a.py", 4, "CWE-95", "eval", "eval(x)"),
				mk("bandit", "B307", High, "a.py", 5, "CWE-95", "eval", "eval(x)"),
			},
			want: []string{"bandit/B307@a.py:5 high", "semgrep/r1@a.py:4 high"},
		},
		{
			name: "same scanner, two rules, same CWE: two findings",
			in: []Finding{
				mk("semgrep", "r1", High, "a.py", 4, "CWE-89", "SQL a", "x"),
				mk("semgrep", "r2", High, "a.py", 4, "CWE-89", "SQL b", "x"),
			},
			want: []string{"semgrep/r1@a.py:4 high", "semgrep/r2@a.py:4 high"},
		},
		{
			name: "one finding per scanner in a merged group",
			in: []Finding{
				mk("semgrep", "r1", High, "a.py", 4, "CWE-89", "SQL a", "x"),
				mk("gosec", "g1", Medium, "a.py", 4, "CWE-89", "SQL b", "x"),
				mk("gosec", "g2", Low, "a.py", 4, "CWE-89", "SQL c", "x"),
			},
			want: []string{"semgrep/r1@a.py:4 high also=gosec", "gosec/g2@a.py:4 low"},
		},
		{
			name: "no chaining through a merged finding",
			in: []Finding{
				mk("semgrep", "r1", High, "a.py", 4, "CWE-89", "SQL injection", "x"),
				mk("gosec", "g1", Medium, "a.py", 4, "CWE-89", "Formatted query", "x"),
				mk("bandit", "b1", Low, "a.py", 4, "CWE-20", "Formatted query", "x"),
			},
			want: []string{"semgrep/r1@a.py:4 high also=gosec", "bandit/b1@a.py:4 low"},
		},
		{
			name: "suppressed and unsuppressed do not merge",
			in: []Finding{
				suppressed(mk("semgrep", "r1", High, "a.py", 4, "CWE-89", "SQL", "x")),
				mk("gosec", "g1", Medium, "a.py", 4, "CWE-89", "SQL", "x"),
			},
			want: []string{"semgrep/r1@a.py:4 high suppressed", "gosec/g1@a.py:4 medium"},
		},
		{
			name: "no location: same CWE and title merge",
			in: []Finding{
				mk("builtin_dast", "hsts", Medium, "", 0, "CWE-319", "Missing HSTS header", ""),
				mk("zap", "10035", Low, "", 0, "CWE-319", "missing hsts header", ""),
			},
			want: []string{"builtin_dast/hsts@:0 medium also=zap"},
		},
		{
			name: "no location: same CWE, other title stay apart",
			in: []Finding{
				mk("builtin_dast", "csp", Medium, "", 0, "CWE-693", "Missing CSP header", ""),
				mk("zap", "10038", Medium, "", 0, "CWE-693", "X-Content-Type-Options missing", ""),
			},
			want: []string{"builtin_dast/csp@:0 medium", "zap/10038@:0 medium"},
		},
		{
			name: "no location: same title without CWE stay apart",
			in: []Finding{
				mk("nmap", "open-port", Info, "", 0, "", "Open port 22/tcp", ""),
				mk("other", "port", Info, "", 0, "", "Open port 22/tcp", ""),
			},
			want: []string{"nmap/open-port@:0 info", "other/port@:0 info"},
		},
		{
			name: "whole-file location: same CWE alone does not merge",
			in: []Finding{
				mk("trivy", "CVE-2021-1", High, "package-lock.json", 0, "CWE-1321", "lodash prototype pollution", ""),
				mk("grype", "CVE-2022-2", High, "package-lock.json", 0, "CWE-1321", "minimist prototype pollution", ""),
			},
			want: []string{"grype/CVE-2022-2@package-lock.json:0 high", "trivy/CVE-2021-1@package-lock.json:0 high"},
		},
		{
			name: "findings without fingerprint never collapse",
			in: []Finding{
				{Scanner: "x", RuleID: "r", Severity: Low, Title: "a", Line: 1},
				{Scanner: "x", RuleID: "r", Severity: Low, Title: "b", Line: 2},
			},
			want: []string{"x/r@:1 low", "x/r@:2 low"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Dedup(c.in)
			if got == nil {
				t.Fatal("Dedup returned nil")
			}
			if s := summarize(got); !reflect.DeepEqual(s, c.want) {
				t.Errorf("Dedup:\n got  %q\n want %q", s, c.want)
			}
		})
	}

	t.Run("merged fingerprints recorded", func(t *testing.T) {
		got := Dedup([]Finding{sqliA, sqliB})
		if len(got) != 1 {
			t.Fatalf("want 1 finding, got %d", len(got))
		}
		if fps := metaStrings(got[0].Metadata[MetaMergedFingerprints]); !reflect.DeepEqual(fps, []string{sqliB.Fingerprint}) {
			t.Errorf("merged_fingerprints = %v, want [%s]", fps, sqliB.Fingerprint)
		}
	})
}

func TestDedupOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		in := randomFindings(r, 60)
		want := mustMarshal(t, Dedup(in))
		for i := 0; i < 10; i++ {
			if got := mustMarshal(t, Dedup(shuffled(r, in))); got != want {
				t.Fatalf("round %d: Dedup depends on input order:\n%s\nvs\n%s", round, want, got)
			}
		}
	}
}

func TestDedupIdempotentAndUnique(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 20; round++ {
		in := randomFindings(r, 80)
		once := Dedup(in)
		seen := map[string]bool{}
		for _, f := range once {
			if seen[f.Fingerprint] {
				t.Fatalf("round %d: fingerprint %s twice after Dedup", round, f.Fingerprint)
			}
			seen[f.Fingerprint] = true
		}
		if len(once) >= len(in) {
			t.Fatalf("round %d: nothing deduplicated from %d colliding findings", round, len(in))
		}
		want := mustMarshal(t, once)
		if got := mustMarshal(t, Dedup(once)); got != want {
			t.Fatalf("round %d: Dedup not idempotent", round)
		}
		// The same after a trip through JSON (metadata lists become []any).
		if got := mustMarshal(t, Dedup(jsonRoundTrip(t, once))); got != want {
			t.Fatalf("round %d: Dedup not idempotent after JSON round trip", round)
		}
	}
}

func TestDedupLeavesInputAlone(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	in := randomFindings(r, 80)
	before := mustMarshal(t, in)
	order := slices.Clone(in)
	_ = Dedup(in)
	if after := mustMarshal(t, in); after != before {
		t.Error("Dedup modified its input")
	}
	for i := range in {
		if in[i].Fingerprint != order[i].Fingerprint {
			t.Fatal("Dedup reordered its input")
		}
	}
}

// The equivalence table merges what CWE and title cannot: a test key that
// secrets and git-hygiene both report is one finding (kept at the key's
// line), a Dockerfile rule and its KICS query are one finding even at a
// continuation line, and a bandit hard-coded password is the secret on the
// same line.
func TestDedupEquivalenceTable(t *testing.T) {
	key := Finding{Scanner: "secrets", RuleID: "private-key-rsa", FilePath: "tests/certs/server.key", Line: 1, Severity: High,
		CWE: "CWE-321", Title: "RSA private key", Fingerprint: "fp-secret", Metadata: map[string]any{"redacted": "MIIE****"}}
	file := Finding{Scanner: "git-hygiene", RuleID: "private-key-file", FilePath: "tests/certs/server.key", Line: 0, Severity: High,
		CWE: "CWE-522", Title: "Private key file tracked in git", Fingerprint: "fp-file", Metadata: map[string]any{}}
	df := Finding{Scanner: "dockerfile", RuleID: "DF018", FilePath: "Dockerfile", Line: 4, Severity: Low, CWE: "CWE-16",
		Title: "apk add without --no-cache", Fingerprint: "fp-df", Metadata: map[string]any{MetaInstructionLine: 2}}
	kics := Finding{Scanner: "kics", RuleID: "ae9c56a6-3ed1-4ac0-9b54-31267f51151d", FilePath: "Dockerfile", Line: 2, Severity: Info,
		CWE: "CWE-459", Title: "Apk Add Using Local Cache Path", Fingerprint: "fp-kics", Metadata: map[string]any{}}
	bandit := Finding{Scanner: "bandit", RuleID: "B105", FilePath: "app/settings.py", Line: 7, Severity: Low, CWE: "CWE-259",
		Title: "Possible hardcoded password", Fingerprint: "fp-b105", Metadata: map[string]any{}}
	secret := Finding{Scanner: "secrets", RuleID: "stripe-live-secret-key", FilePath: "app/settings.py", Line: 7, Severity: Critical,
		CWE: "CWE-798", Title: "Stripe live secret key", Fingerprint: "fp-stripe", Metadata: map[string]any{}}
	unrelated := Finding{Scanner: "kics", RuleID: "fd54f200-402c-4333-a5a4-36ef6709af2f", FilePath: "Dockerfile", Line: 9, Severity: High,
		CWE: "CWE-250", Title: "Missing User Instruction", Fingerprint: "fp-user", Metadata: map[string]any{}}

	for _, order := range [][]Finding{{key, file, df, kics, bandit, secret, unrelated}, {unrelated, secret, bandit, kics, df, file, key}} {
		out := Dedup(order)
		if len(out) != 4 {
			t.Fatalf("got %d findings, want 4: %+v", len(out), out)
		}
		byScanner := map[string]Finding{}
		for _, f := range out {
			byScanner[f.Scanner+"/"+f.RuleID] = f
		}
		k, ok := byScanner["secrets/private-key-rsa"]
		if !ok || k.Line != 1 || !slices.Equal(metaStrings(k.Metadata[MetaAlsoReportedBy]), []string{"git-hygiene"}) ||
			!slices.Contains(metaStrings(k.Metadata[MetaMergedFingerprints]), "fp-file") {
			t.Errorf("test key: want the secrets finding at line 1 also reported by git-hygiene, got %+v", k)
		}
		d, ok := byScanner["dockerfile/DF018"]
		if !ok || !slices.Equal(metaStrings(d.Metadata[MetaAlsoReportedBy]), []string{"kics"}) {
			t.Errorf("DF018 and its KICS query did not merge: %+v", out)
		}
		s, ok := byScanner["secrets/stripe-live-secret-key"]
		if !ok || !slices.Equal(metaStrings(s.Metadata[MetaAlsoReportedBy]), []string{"bandit"}) {
			t.Errorf("bandit B105 did not merge into the secret on its line: %+v", out)
		}
		if _, ok := byScanner["kics/fd54f200-402c-4333-a5a4-36ef6709af2f"]; !ok {
			t.Errorf("an unrelated KICS finding was merged away")
		}
	}
	if Equivalent(df, unrelated) || !Equivalent(df, kics) || Equivalent(key, key) {
		t.Errorf("Equivalent disagrees with the table")
	}
}
