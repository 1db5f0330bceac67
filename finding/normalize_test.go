package finding

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"regexp"
	"testing"
)

func TestNormalizeLineContext(t *testing.T) {
	cases := []struct {
		name, raw, want string
	}{
		{"empty", "", ""},
		{"whitespace only", " \t\r\n ", ""},
		{"trim and collapse", "  x   :=\t1  ", "x := 1"},
		{"case fold", `API_KEY = "AbC"`, `api_key = "abc"`},
		{"trailing slash comment", "x := 1 // set x", "x := 1"},
		{"slash comment without space", "x := 1//set x", "x := 1"},
		{"url is not a comment", `fetch("https://example.com/a#b") // go`, `fetch("https://example.com/a#b")`},
		{"unquoted url is not a comment", "url: https://example.com/x # mirror", "url: https://example.com/x"},
		{"fragment after slash", "see http://x/#a", "see http://x/#a"},
		{"hash comment trailing", "x = 1  # note", "x = 1"},
		{"hash comment line falls back to its text", "# Port 22", "port 22"},
		{"hash without following space stays", "color: #fff;", "color: #fff;"},
		{"double hash comment", "x = 1 ## note", "x = 1"},
		{"preprocessor is code", "#include <stdio.h> // io", "#include <stdio.h>"},
		{"indented preprocessor is code", "  #define X 1", "#define x 1"},
		{"hash space define is a comment", "# define X 1", "define x 1"},
		{"hash in string", `s = "a # b"`, `s = "a # b"`},
		{"block comment", "a /* inline */ b", "a b"},
		{"block comment glued", "a/*x*/b", "a b"},
		{"unclosed block opener is a glob", "rm -rf /tmp/*", "rm -rf /tmp/*"},
		{"html comment", "<div> <!-- hidden --> </div>", "<div> </div>"},
		{"sql trailing comment", "SELECT 1 -- why", "select 1"},
		{"sql comment at line end", "SELECT 1 --", "select 1"},
		{"long flag is code", "apt-get install --no-install-recommends curl", "apt-get install --no-install-recommends curl"},
		{"decrement is code", "for (i = n; i > 0; i--) {", "for (i = n; i > 0; i--) {"},
		{"comment marker inside string", `s := "// not a comment"`, `s := "// not a comment"`},
		{"escaped quote keeps string open", `s := "a\" // b"`, `s := "a\" // b"`},
		{"single quotes protect", `q = '-- x'`, `q = '-- x'`},
		{"backquotes protect", "r := `# x`", "r := `# x`"},
		{"commented-out secret keeps its text", `// password = "hunter2"`, `password = "hunter2"`},
		{"directive dropped from code", `key = "AKIAX" // scand:ignore aws -- test key`, `key = "akiax"`},
		{"directive dropped outside comments", "key = x ; scand:ignore aws", "key = x"},
		{"directive dropped from comment-only line", "# token=abc scand:ignore", "token=abc"},
		{"directive case-insensitive", "x // SCAND:IGNORE", "x"},
		{"multi-line joins with one space", "a\n   b", "a b"},
		{"block comment across lines", "a /* x\n y */ b", "a b"},
		{"line comment ends at newline", "a // x\nb", "a b"},
		{"string does not span lines", "a = \"x\nb // c", "a = \"x b"},
		{"unicode whitespace", "a\u00a0\u2003b", "a b"},
		{"unicode case", "ÄÖÜ = 1", "äöü = 1"},
		{"shebang", "#!/bin/sh", "!/bin/sh"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := NormalizeLineContext(c.raw); got != c.want {
				t.Errorf("NormalizeLineContext(%q) = %q, want %q", c.raw, got, c.want)
			}
		})
	}
}

// TestNormalizeLineContextKeepsFingerprint: what a developer does to a line
// without changing it must not change the finding's identity.
func TestNormalizeLineContextKeepsFingerprint(t *testing.T) {
	cases := []struct {
		name, before, after string
	}{
		{"reindent spaces to tab", `    password := "hunter2"`, "\tpassword := \"hunter2\""},
		{"trailing whitespace", `password := "hunter2"`, "password := \"hunter2\"   \r"},
		{"added trailing comment", `password := "hunter2"`, `password := "hunter2" // TODO rotate`},
		{"added suppression", `password := "hunter2"`, `password := "hunter2" // scand:ignore generic-password -- test fixture`},
		{"edited comment", `x = eval(y)  # old`, `x = eval(y)  # new note`},
		{"inner spacing", "exec(cmd,  args)", "exec(cmd, args)"},
		{"suppression on comment-only line", "# api_key=abc", "# api_key=abc  # scand:ignore"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Fingerprint("secrets", "generic-password", "cmd/main.go", NormalizeLineContext(c.before), "CWE-798")
			b := Fingerprint("secrets", "generic-password", "cmd/main.go", NormalizeLineContext(c.after), "CWE-798")
			if a != b {
				t.Errorf("fingerprint changed: %q -> %q (%q vs %q)", c.before, c.after,
					NormalizeLineContext(c.before), NormalizeLineContext(c.after))
			}
		})
	}
}

func TestNormalizeLineContextDistinguishesLines(t *testing.T) {
	cases := []struct {
		name, a, b string
	}{
		{"different secrets", `password := "hunter2"`, `password := "hunter3"`},
		{"different commented secrets", `# password = "a"`, `# password = "b"`},
		{"different includes", "#include <a.h>", "#include <b.h>"},
		{"different colors", "color: #fff;", "color: #000;"},
		{"different urls", "url: https://a.example/", "url: https://b.example/"},
		{"different flags", "run --privileged", "run --read-only"},
		{"string content", `s := "// a"`, `s := "// b"`},
		{"globs", "cp src/* a", "cp src/* b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			na, nb := NormalizeLineContext(c.a), NormalizeLineContext(c.b)
			if na == nb {
				t.Fatalf("%q and %q both normalize to %q", c.a, c.b, na)
			}
			if Fingerprint("s", "r", "f", na, "") == Fingerprint("s", "r", "f", nb, "") {
				t.Errorf("fingerprints collide for %q and %q", c.a, c.b)
			}
		})
	}
}

// referenceFingerprint re-implements the documented encoding independently.
func referenceFingerprint(fields ...string) string {
	var buf bytes.Buffer
	for _, f := range fields {
		_ = binary.Write(&buf, binary.BigEndian, uint64(len(f)))
		buf.WriteString(f)
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

var lowerHex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func TestFingerprint(t *testing.T) {
	long := string(bytes.Repeat([]byte("x"), 2000)) // beyond the stack buffer
	cases := []struct {
		scanner, rule, path, ctx string
		cwe                      CWE
	}{
		{"secrets", "aws-access-key-id", "app/config.py", `aws_key = "akia..."`, "CWE-798"},
		{"", "", "", "", ""},
		{"semgrep", "python.lang.security.eval", "a.py", long, "CWE-95"},
		{"nmap", "open-port", "", "", ""},
		{"s", "ü", "路径/ファイル", "\x00\xff", "CWE-1"},
	}
	for _, c := range cases {
		got := Fingerprint(c.scanner, c.rule, c.path, c.ctx, c.cwe)
		if !lowerHex64.MatchString(got) {
			t.Errorf("Fingerprint(%q, ...) = %q: not 64 lowercase hex digits", c.scanner, got)
		}
		if want := referenceFingerprint(c.scanner, c.rule, c.path, c.ctx, string(c.cwe)); got != want {
			t.Errorf("Fingerprint(%q, %q, %q, ..., %q) = %s, documented encoding gives %s", c.scanner, c.rule, c.path, c.cwe, got, want)
		}
		if again := Fingerprint(c.scanner, c.rule, c.path, c.ctx, c.cwe); again != got {
			t.Errorf("Fingerprint not deterministic: %s then %s", got, again)
		}
	}
}

// TestFingerprintFieldSplits moves a byte across every field boundary: the
// concatenation stays the same, the fingerprint must not.
func TestFingerprintFieldSplits(t *testing.T) {
	base := [5]string{"ab", "cd", "ef", "gh", "CWE-1"}
	seen := map[string][5]string{}
	add := func(f [5]string) {
		fp := Fingerprint(f[0], f[1], f[2], f[3], CWE(f[4]))
		if prev, dup := seen[fp]; dup && prev != f {
			t.Fatalf("fields %q and %q share fingerprint %s", prev, f, fp)
		}
		seen[fp] = f
	}
	add(base)
	for i := 0; i < 4; i++ {
		left, right := base, base
		// move the last byte of field i to the front of field i+1
		left[i], left[i+1] = base[i][:len(base[i])-1], base[i][len(base[i])-1:]+base[i+1]
		// move the first byte of field i+1 to the end of field i
		right[i], right[i+1] = base[i]+base[i+1][:1], base[i+1][1:]
		add(left)
		add(right)
	}
	if got := len(seen); got != 9 {
		t.Errorf("expected 9 distinct splits, got %d", got)
	}
	if Fingerprint("ab", "c", "", "", "") == Fingerprint("a", "bc", "", "", "") {
		t.Error(`("ab","c") and ("a","bc") collide`)
	}
	if Fingerprint("s", "r", "f", "ctx", "") == Fingerprint("s", "r", "f", "ctx", "CWE-79") {
		t.Error("the CWE does not take part in the fingerprint")
	}
}
