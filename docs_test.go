package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink is an inline link or image: [text](target) or
// [text](target "title"). Reference-style links are not used in the docs.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// codeSpan is inline code, whose brackets are examples, not links.
var codeSpan = regexp.MustCompile("`+[^`]*`+")

// proseLines are a markdown file's lines outside fenced code blocks.
func proseLines(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// headingAnchors are the ids GitHub gives a file's headings: lower case,
// punctuation dropped, spaces as hyphens, "-1", "-2" for repeats.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, line := range proseLines(text) {
		m := regexp.MustCompile(`^#{1,6} (.+?)#*\s*$`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// relativeLinks are the targets of a markdown file's links that point
// into the repository (no scheme, no absolute path).
func relativeLinks(text string) []string {
	var out []string
	for _, line := range proseLines(text) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
			target := strings.Trim(m[1], "<>")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "/") {
				continue
			}
			out = append(out, target)
		}
	}
	return out
}

// brokenLinks lists every relative link of the files that names a file
// that does not exist or an anchor that is no heading of its target.
func brokenLinks(t *testing.T, files []string) []string {
	t.Helper()
	var broken []string
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range relativeLinks(string(text)) {
			path, anchor, _ := strings.Cut(link, "#")
			target := file
			if path != "" {
				target = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
			}
			info, err := os.Stat(target)
			if err != nil {
				broken = append(broken, fmt.Sprintf("%s: %s: no such file %s", file, link, target))
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(target, ".md") {
				broken = append(broken, fmt.Sprintf("%s: %s: an anchor into %s, which is no markdown file", file, link, target))
				continue
			}
			body, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(body))[anchor] {
				broken = append(broken, fmt.Sprintf("%s: %s: %s has no heading #%s", file, link, target, anchor))
			}
		}
	}
	return broken
}

// TestDocsLinksResolve holds README.md and docs/*.md to links that work:
// every relative link names an existing file, and every #anchor a heading
// of its target.
func TestDocsLinksResolve(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	for _, b := range brokenLinks(t, files) {
		t.Error(b)
	}
}

// TestDocsLinkCheckerCatchesBreakage feeds the checker links that must
// fail, so a checker that accepts everything cannot pass the test above.
func TestDocsLinkCheckerCatchesBreakage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("docs/b.md", "# B\n\n## Central verdicts in CI: `-server`\n\n## Twice\n\n## Twice\n")
	a := write("a.md", strings.Join([]string{
		"[ok](docs/b.md) [ok](docs/b.md#central-verdicts-in-ci--server) [ok](docs/b.md#twice-1) [ok](#a)",
		"[missing](docs/c.md) [bad anchor](docs/b.md#nowhere) [own anchor](#nowhere)",
		"`[in code](nowhere.md)` [web](https://example.com/x.md)",
		"```", "[fenced](nowhere.md)", "```",
		"# A",
	}, "\n"))
	got := brokenLinks(t, []string{a})
	want := []string{"docs/c.md", "docs/b.md#nowhere", "#nowhere"}
	if len(got) != len(want) {
		t.Fatalf("broken links: %q, want exactly the ones naming %q", got, want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], ": "+w+":") {
			t.Errorf("broken link %d: %q, want one naming %s", i, got[i], w)
		}
	}
}

// TestREADMEIsAFrontDoor keeps README.md short and holding what a
// newcomer needs, with the reference one link away.
func TestREADMEIsAFrontDoor(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	if n := strings.Count(text, "\n"); n > 120 {
		t.Errorf("README.md has %d lines; the reference belongs in docs/", n)
	}
	for _, must := range []string{
		"go build -o scand .", "go install", "go run .", "go test -race ./...",
		"scand diff --base origin/main --fail-on high", "## Contents",
	} {
		if !strings.Contains(text, must) {
			t.Errorf("README.md does not contain %q", must)
		}
	}
	links := strings.Join(relativeLinks(text), "\n")
	for _, page := range []string{"cli", "api", "console", "scanners", "operations", "security", "ci"} {
		if !strings.Contains(links, "docs/"+page+".md") {
			t.Errorf("README.md does not link docs/%s.md", page)
		}
	}
}

// TestCIDocsCoverEveryPlatform checks that docs/ci.md has a pipeline for
// each platform, each running scand diff against a central daemon and
// upserting the comment by its marker.
func TestCIDocsCoverEveryPlatform(t *testing.T) {
	b, err := os.ReadFile("docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(string(b), "\n## ")[1:]
	found := map[string]bool{}
	for _, s := range sections {
		title, _, _ := strings.Cut(s, "\n")
		found[title] = true
		for _, must := range []string{"scand diff --base", `--server "$SCAND_URL"`, "--format markdown", "<!-- scand:report -->", "SCAND_API_KEY"} {
			if !strings.Contains(s, must) {
				t.Errorf("docs/ci.md %s: no %q", title, must)
			}
		}
	}
	for _, want := range []string{"GitLab CI", "Jenkins", "Gitea and Forgejo Actions", "GitHub Actions"} {
		if !found[want] {
			t.Errorf("docs/ci.md has no section %q (has %v)", want, found)
		}
	}
}
