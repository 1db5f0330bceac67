package githygiene

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/internal/scantest"
	"scand/scan/proc"
)

// gitHygieneCopyFixture copies testdata/githygiene/<name> into dst. Fixture
// dotfiles are stored as "dot-<name>" so that scand's own repository never
// tracks a real .env, .netrc or .gitignore from its test data.
func gitHygieneCopyFixture(t *testing.T, name, dst string) {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "githygiene", name)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		for i, part := range parts {
			if strings.HasPrefix(part, "dot-") {
				parts[i] = "." + strings.TrimPrefix(part, "dot-")
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, filepath.FromSlash(strings.Join(parts, "/")))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func gitHygieneTestScanner() scan.Scanner {
	return New(scan.Config{Runner: proc.NewRunner(time.Minute), Getenv: func(string) string { return "" }, Now: time.Now})
}

type gitHygieneWant struct {
	file, rule string
	severity   finding.Severity
	cwe        finding.CWE
	pattern    string // for gitignore-missing-pattern
}

func gitHygieneKey(f finding.Finding) string {
	p, _ := f.Metadata["pattern"].(string)
	return f.FilePath + "|" + f.RuleID + "|" + p
}

func gitHygieneCheck(t *testing.T, got []finding.Finding, wants []gitHygieneWant) {
	t.Helper()
	byKey := map[string]finding.Finding{}
	for _, f := range got {
		k := gitHygieneKey(f)
		if _, dup := byKey[k]; dup {
			t.Errorf("duplicate finding %s", k)
		}
		byKey[k] = f
		if f.Scanner != "git-hygiene" || f.ScanType != scan.TypeCode || f.Line != 0 || f.Snippet == "" {
			t.Errorf("%s: scanner %q type %q line %d snippet %q", k, f.Scanner, f.ScanType, f.Line, f.Snippet)
		}
	}
	for _, w := range wants {
		k := w.file + "|" + w.rule + "|" + w.pattern
		f, ok := byKey[k]
		if !ok {
			t.Errorf("missing %s", k)
			continue
		}
		delete(byKey, k)
		if f.Severity != w.severity || f.CWE != w.cwe {
			t.Errorf("%s: severity %s cwe %s, want %s %s", k, f.Severity, f.CWE, w.severity, w.cwe)
		}
		if f.Title == "" || len(f.Description) < 40 {
			t.Errorf("%s: title %q description %q", k, f.Title, f.Description)
		}
	}
	for k := range byKey {
		t.Errorf("unexpected finding %s", k)
	}
}

var gitHygieneRepoWants = []gitHygieneWant{
	{".env", "env-file", finding.High, "CWE-538", ""},
	{"config/.env.production", "env-file", finding.High, "CWE-538", ""},
	{"certs/server.key", "private-key-file", finding.Critical, "CWE-522", ""},
	{"certs/legacy.pem", "private-key-file", finding.Critical, "CWE-522", ""},
	{"certs/signing.key", "private-key-file", finding.Medium, "CWE-522", ""},
	{"deploy/id_ed25519", "ssh-private-key-file", finding.Critical, "CWE-522", ""},
	{"android/release.jks", "keystore-file", finding.High, "CWE-522", ""},
	{".aws/credentials", "cloud-credentials-file", finding.High, "CWE-522", ""},
	{".npmrc", "package-registry-credentials", finding.High, "CWE-522", ""},
	{"home/.bash_history", "shell-history-file", finding.Medium, "CWE-200", ""},
	{"backups/prod.sql", "database-dump", finding.Medium, "CWE-200", ""},
	{"data/app.sqlite3", "database-dump", finding.Medium, "CWE-200", ""},
	{"infra/terraform.tfstate", "terraform-state", finding.High, "CWE-312", ""},
	{"secrets/team.kdbx", "password-database", finding.High, "CWE-522", ""},
	{"web/.htpasswd", "htpasswd-file", finding.High, "CWE-522", ""},
	{".git-credentials", "git-credentials-file", finding.Critical, "CWE-522", ""},
	{".netrc", "netrc-file", finding.Critical, "CWE-522", ""},
	{"assets/firmware.bin", "large-binary", finding.Low, "CWE-200", ""},
	{".gitignore", "gitignore-missing-pattern", finding.Low, "CWE-538", ".env"},
	{".gitignore", "gitignore-missing-pattern", finding.Low, "CWE-538", ".env.*"},
	{".gitignore", "gitignore-missing-pattern", finding.Low, "CWE-538", "*.tfstate"},
	{".env.local", "unignored-sensitive-file", finding.Medium, "CWE-538", ""},
}

// gitHygieneNegatives names, per rule, fixture paths built to look close to
// the rule's target that must produce no finding (checked by the exact-set
// comparison; this table only proves each rule has some).
var gitHygieneNegatives = map[string][]string{
	"env-file":                     {".env.example", ".env.sample", ".env.template", "node_modules/pkg/.env"},
	"private-key-file":             {"certs/ca.pem", "certs/license.key"},
	"ssh-private-key-file":         {"deploy/id_ed25519.pub", "docs/keys.md"},
	"keystore-file":                {"docs/keystore-howto.md"},
	"cloud-credentials-file":       {"src/credentials.go"},
	"package-registry-credentials": {"web/.npmrc"},
	"shell-history-file":           {"docs/history.md", ".bash_profile"},
	"database-dump":                {"db/migrations/001_init.sql", "docs/Thumbs.db"},
	"terraform-state":              {"infra/backend.tf"},
	"password-database":            {"docs/kdbx.md"},
	"htpasswd-file":                {"web/.htaccess"},
	"git-credentials-file":         {".gitconfig"},
	"netrc-file":                   {".netrc.example"},
	"large-binary":                 {"assets/big.csv", "android/release.jks"},
	"unignored-sensitive-file":     {"build/.env", "notes.txt"},
	"gitignore-missing":            {"(fixture clean)", "(fixture repo)"},
	"gitignore-missing-pattern":    {"(fixture clean)"},
}

func gitHygieneRepoFixture(t *testing.T) string {
	t.Helper()
	r := scantest.NewGitRepo(t)
	gitHygieneCopyFixture(t, "repo", r.Dir)
	rng := rand.New(rand.NewSource(3))
	bin := make([]byte, gitHygieneLargeFileBytes+1024)
	rng.Read(bin)
	bin[0] = 0 // certainly binary
	r.Write("assets/firmware.bin", string(bin))
	r.Write("assets/big.csv", strings.Repeat("id,amount,currency\n", (gitHygieneLargeFileBytes/19)+100))
	r.Commit()
	// Not committed: one sensitive file nobody ignores, one the
	// repository's build/ rule covers, one harmless file.
	r.Write(".env.local", "API_KEY=1\n")
	r.Write("build/.env", "API_KEY=1\n")
	r.Write("notes.txt", "todo\n")
	return r.Dir
}

func TestGitHygieneRepository(t *testing.T) {
	dir := gitHygieneRepoFixture(t)
	got := scantest.Scan(t, gitHygieneTestScanner(), dir)
	gitHygieneCheck(t, got, gitHygieneRepoWants)
	for _, f := range got {
		if f.RuleID == "large-binary" && f.Metadata["size_bytes"] != int64(gitHygieneLargeFileBytes+1024) {
			t.Errorf("large-binary size_bytes = %v", f.Metadata["size_bytes"])
		}
	}
}

func TestGitHygieneEveryRuleCovered(t *testing.T) {
	positive := map[string]bool{"gitignore-missing": true} // TestGitHygieneIgnoreRules
	for _, w := range gitHygieneRepoWants {
		positive[w.rule] = true
	}
	for id, k := range gitHygieneKindTable() {
		if k.id != id || !k.severity.Valid() || k.cwe == "" || k.remediation == "" {
			t.Errorf("kind %s incomplete: %+v", id, k)
		}
		if !positive[id] {
			t.Errorf("rule %s has no positive case", id)
		}
		if len(gitHygieneNegatives[id]) == 0 {
			t.Errorf("rule %s has no negative case", id)
		}
	}
	// The negative paths must exist, or they prove nothing.
	dir := gitHygieneRepoFixture(t)
	for id, paths := range gitHygieneNegatives {
		for _, p := range paths {
			if strings.HasPrefix(p, "(") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Errorf("negative case %s for %s: %v", p, id, err)
			}
		}
	}
}

func TestGitHygieneIgnoreRules(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		wants   []gitHygieneWant
	}{
		{"clean", nil},
		{"bare", []gitHygieneWant{{".gitignore", "gitignore-missing", finding.Low, "CWE-538", ""}}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			r := scantest.NewGitRepo(t)
			gitHygieneCopyFixture(t, tc.fixture, r.Dir)
			r.Commit()
			gitHygieneCheck(t, scantest.Scan(t, gitHygieneTestScanner(), r.Dir), tc.wants)
		})
	}
}

// Outside a git work tree only the name checks run, on files present.
func TestGitHygienePlainDirectory(t *testing.T) {
	dir := t.TempDir()
	gitHygieneCopyFixture(t, "repo", dir)
	got := scantest.Scan(t, gitHygieneTestScanner(), dir)
	var wants []gitHygieneWant
	for _, w := range gitHygieneRepoWants {
		switch w.rule {
		case "large-binary", "gitignore-missing-pattern", "unignored-sensitive-file":
			continue // need git
		}
		wants = append(wants, w)
	}
	gitHygieneCheck(t, got, wants)
	for _, f := range got {
		if f.Metadata["tracked"] != false || !strings.Contains(f.Title, "present") {
			t.Errorf("%s: title %q tracked %v", f.FilePath, f.Title, f.Metadata["tracked"])
		}
	}
}

// A subdirectory of a repository is scanned with paths relative to it, and
// the top-level .gitignore counts.
func TestGitHygieneSubdirectory(t *testing.T) {
	r := scantest.NewGitRepo(t)
	r.Write(".gitignore", ".env\n.env.*\n")
	r.Write("svc/.env.production", "X=1\n")
	r.Write("svc/main.go", "package main\n")
	r.Git("add", "-f", "svc/.env.production") // committed despite the rule
	r.Commit()
	got := scantest.Scan(t, gitHygieneTestScanner(), filepath.Join(r.Dir, "svc"))
	gitHygieneCheck(t, got, []gitHygieneWant{{".env.production", "env-file", finding.High, "CWE-538", ""}})
}

// Only the target's subtree is looked at: a subdirectory target of a
// repository whose .gitignore misses patterns (or that has none) gets no
// finding about that .gitignore, which lies outside the target, and no
// finding about files outside the subdirectory.
func TestGitHygieneSubtreeOnly(t *testing.T) {
	r := scantest.NewGitRepo(t)
	r.Write("id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
	r.Write("infra/main.tf", "resource \"x\" \"y\" {}\n")
	r.Write("app/main.go", "package main\n")
	r.Commit()
	for _, f := range scantest.Scan(t, gitHygieneTestScanner(), filepath.Join(r.Dir, "app")) {
		t.Errorf("subdirectory target got %s on %s", f.RuleID, f.FilePath)
	}
	// The repository root still gets the whole picture.
	got := scantest.Scan(t, gitHygieneTestScanner(), r.Dir)
	var rules []string
	for _, f := range got {
		rules = append(rules, f.RuleID+":"+f.FilePath)
	}
	slices.Sort(rules)
	if !slices.Contains(rules, "gitignore-missing:.gitignore") || !slices.Contains(rules, "ssh-private-key-file:id_rsa") {
		t.Errorf("repository root findings = %v", rules)
	}
}

func TestGitHygieneClassifyContent(t *testing.T) {
	for _, tc := range []struct {
		path, content string
		want          string
	}{
		{".npmrc", "//r.example/:_authToken=abc123def456\n", "package-registry-credentials"},
		{".npmrc", "//r.example/:_authToken=${NPM_TOKEN}\n", ""},
		{".pypirc", "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJ\n", "package-registry-credentials"},
		{".pypirc", "[pypi]\nusername = __token__\n", ""},
		{"dump.sql", "-- MySQL dump 10.13\n", "database-dump"},
		{"seed.sql", strings.Repeat("INSERT INTO users VALUES (1);\n", gitHygieneDumpInserts), "database-dump"},
		{"seed.sql", strings.Repeat("INSERT INTO users VALUES (1);\n", gitHygieneDumpInserts-1), ""},
		{"x/.env.dist", "A=1\n", ""},
		{"x/.ENV", "A=1\n", "env-file"},
		{"x/prod.tfstate.backup", "{}", "terraform-state"},
		{"x/_netrc", "machine h login u\n", "netrc-file"},
	} {
		got, _, ok := gitHygieneClassify(tc.path, func() ([]byte, bool) { return []byte(tc.content), true })
		if !ok {
			got = ""
		}
		if got != tc.want {
			t.Errorf("classify(%s, %q) = %q, want %q", tc.path, tc.content, got, tc.want)
		}
	}
}

func TestGitHygieneAvailable(t *testing.T) {
	v, hint, ok := gitHygieneTestScanner().Available(context.Background())
	if !ok || v == "" || strings.HasPrefix(v, "git version") || hint != "" {
		t.Errorf("with git: %q %q %v", v, hint, ok)
	}
	r := proc.NewRunner(time.Minute)
	r.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	s := New(scan.Config{Runner: r})
	v, hint, ok = s.Available(context.Background())
	if ok || v != "" || hint != "apt-get install git" {
		t.Errorf("without git: %q %q %v", v, hint, ok)
	}
	if s.Name() != "git-hygiene" || s.Type() != scan.TypeCode {
		t.Errorf("Name %q Type %q", s.Name(), s.Type())
	}
	// Without git the scan still runs the name checks.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".git-credentials"), []byte("https://u:p@h\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := scantest.Scan(t, s, dir)
	if len(got) != 1 || got[0].RuleID != "git-credentials-file" {
		t.Errorf("without git: %+v", got)
	}
}

// Findings never quote file contents.
func TestGitHygieneNoContentInFindings(t *testing.T) {
	dir := gitHygieneRepoFixture(t)
	netrc, err := os.ReadFile(filepath.Join(dir, ".netrc"))
	if err != nil {
		t.Fatal(err)
	}
	password := string(bytes.Fields(netrc)[5])
	for _, f := range scantest.Scan(t, gitHygieneTestScanner(), dir) {
		if strings.Contains(f.Description+f.Title+f.Snippet, password) {
			t.Errorf("%s quotes the .netrc password", f.RuleID)
		}
	}
	if !slices.ContainsFunc(gitHygieneRepoWants, func(w gitHygieneWant) bool { return w.file == ".netrc" }) {
		t.Fatal("fixture no longer has a .netrc")
	}
}
