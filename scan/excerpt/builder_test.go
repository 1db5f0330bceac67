package excerpt_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"scand/finding"
	fexcerpt "scand/finding/excerpt"
	"scand/scan"
	"scand/scan/excerpt"
	"scand/scan/secrets"
)

func builder(t *testing.T, root string) *excerpt.Builder {
	t.Helper()
	b, err := excerpt.New(root, nil, secrets.NewContent(scan.Config{}).RedactedLines)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExcerptStaysInsideTheRoot: a file, a directory or a parent path
// leading out of the scanned root gives no excerpt, while the same file
// inside the root does.
func TestExcerptStaysInsideTheRoot(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside", "secret.txt")
	write(t, outside, "line 1\nOUTSIDE CONTENT\nline 3\n")
	root := filepath.Join(dir, "root")
	write(t, filepath.Join(root, "in.txt"), "line 1\nINSIDE\nline 3\n")
	for name, target := range map[string]string{"file-link.txt": outside, "dir-link": filepath.Dir(outside)} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("in.txt", filepath.Join(root, "inner-link.txt")); err != nil {
		t.Fatal(err)
	}
	b := builder(t, root)
	for _, p := range []string{"file-link.txt", "dir-link/secret.txt", "../outside/secret.txt", "/etc/passwd", outside} {
		if e := b.Excerpt(finding.Finding{FilePath: p, Line: 2}); e != nil {
			t.Errorf("%s: excerpt %q from outside the root", p, e.Lines)
		}
	}
	for _, p := range []string{"in.txt", "inner-link.txt"} {
		e := b.Excerpt(finding.Finding{FilePath: p, Line: 2})
		if e == nil || e.StartLine != 1 || len(e.Lines) != 3 || e.Lines[1] != "INSIDE" {
			t.Fatalf("%s: %+v", p, e)
		}
	}
}

// TestExcerptCapsAndRedacts: long lines are cut on a rune boundary, a
// secret shows as its finding's redacted form, bidi controls are visible,
// the window is 3 lines either side, and big or binary files give none.
func TestExcerptCapsAndRedacts(t *testing.T) {
	root := t.TempDir()
	token := "ghp_Zq8Lw2Rt5Yx7Nc1Vb4Mk9Hj3Gf6Ds0Ap2Qeu"
	lines := []string{"a", "b", "c", "d", "long = '" + strings.Repeat("é", 400) + "'", `tok = "` + token + `"`, "x\u202Ey", "f", "g", "h", "i"}
	write(t, filepath.Join(root, "app.py"), strings.Join(lines, "\n")+"\n")
	write(t, filepath.Join(root, "big.txt"), strings.Repeat("x\n", excerpt.MaxFileBytes/2+1))
	write(t, filepath.Join(root, "bin.dat"), "a\x00b\nc\n")
	b := builder(t, root)
	e := b.Excerpt(finding.Finding{FilePath: "app.py", Line: 6})
	if e == nil || e.StartLine != 3 || len(e.Lines) != 7 || e.Line != 6 {
		t.Fatalf("window: %+v", e)
	}
	found := secrets.NewContent(scan.Config{}).Scan([]byte(strings.Join(lines, "\n")), "app.py")
	if len(found) != 1 {
		t.Fatalf("the secrets rules found %d secrets in the test line", len(found))
	}
	redacted := found[0].Finding.Metadata["redacted"].(string)
	for _, l := range e.Lines {
		if len(l) > fexcerpt.MaxLineBytes || strings.Contains(l, token) || strings.Contains(l, "\u202E") {
			t.Errorf("line %q: %d bytes, secret whole %v", l, len(l), strings.Contains(l, token))
		}
	}
	if got, _ := e.Text(5); !strings.HasSuffix(got, fexcerpt.Cut) || !strings.HasPrefix(got, "long = 'é") {
		t.Errorf("long line not cut: %q", got)
	}
	if got, _ := e.Text(6); got != `tok = "`+redacted+`"` {
		t.Errorf("secret line %q, want the finding's redacted form %q", got, redacted)
	}
	if got, _ := e.Text(7); got != "x[U+202E]y" {
		t.Errorf("bidi line %q", got)
	}
	for _, p := range []string{"big.txt", "bin.dat", "missing.py"} {
		if e := b.Excerpt(finding.Finding{FilePath: p, Line: 1}); e != nil {
			t.Errorf("%s: %+v", p, e)
		}
	}
	if e := b.Excerpt(finding.Finding{FilePath: "app.py", Line: 99}); e != nil {
		t.Errorf("line past the end: %+v", e)
	}
}
