package secrets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzSecretsScanContent feeds arbitrary content through the engine, as a
// file and as git history, and checks the invariants every hit must keep:
// a line inside the content, a valid-UTF-8 snippet of bounded size, and a
// redacted form that is never longer than the documented cap.
func FuzzSecretsScanContent(f *testing.F) {
	dir := filepath.Join("..", "..", "testdata", "secrets", "positive")
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(e.Name(), data)
	}
	eng := newSecretsEngine()
	s := secretsTestScanner(f, false)
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		lines := bytes.Count(data, []byte{'\n'}) + 1
		eng.scanContent(data, name, &secretsScratch{}, func(h secretsHit) {
			if h.line < 1 || h.line > lines {
				t.Fatalf("line %d outside 1..%d", h.line, lines)
			}
			if !utf8.ValidString(h.snippet) || len(h.snippet) > 2*secretsSnippetWindow+2*utf8.UTFMax {
				t.Fatalf("bad snippet %q", h.snippet)
			}
			if utf8.RuneCountInString(h.redacted) > 4+1+secretsRedactMaxMask {
				t.Fatalf("redacted form too long: %q", h.redacted)
			}
		})
		// The same bytes as a one-file commit must not break the parser.
		var log bytes.Buffer
		log.WriteString("\x01" + "0123456789abcdef0123456789abcdef01234567\n")
		log.WriteString("diff --git a/f b/f\n--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n")
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			log.WriteByte('+')
			log.Write(l)
			log.WriteByte('\n')
		}
		if _, err := s.parseHistory(t.Context(), log.Bytes()); err != nil {
			t.Fatal(err)
		}
	})
}
