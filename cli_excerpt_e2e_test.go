package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIExcerptsKeepSecretsRedacted: the built binary's SARIF carries
// each finding's code (region.snippet, contextRegion) with every secret
// redacted, validates against the schema, and a file linked from outside
// the tree gives no excerpt; the markdown of a diff shows the new
// findings' code, redacted too.
func TestCLIExcerptsKeepSecretsRedacted(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.py")
	if err := os.WriteFile(outside, []byte("OUTSIDE_MARKER = 1\ntoken = \""+githubPAT+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t, map[string]string{"README.md": "demo\n"})
	writeFiles(t, repo, map[string]string{"app/config.py": "import os\n\n# keys\naws = \"" + awsKey + "\"\nstripe = \"" + stripeKey + "\"\n\ndef f():\n    return aws\n"})
	if err := os.Symlink(outside, filepath.Join(repo, "app", "linked.py")); err != nil {
		t.Fatal(err)
	}
	res := scandCLI(t, repo, nil, "scan", "-format", "sarif", "-scanners", "secrets", ".")
	sarif := res.stdout
	if !strings.Contains(sarif, `"contextRegion"`) || !strings.Contains(sarif, `aws = \"AKIA`) {
		t.Fatalf("SARIF has no code around the findings (exit %d):\n%s\n%s", res.code, sarif, res.stderr)
	}
	for _, secret := range []string{awsKey, stripeKey, githubPAT, "OUTSIDE_MARKER"} {
		if strings.Contains(sarif, secret) {
			t.Errorf("SARIF shows %q", secret)
		}
	}
	validateSARIF(t, sarif)

	cmd := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "add", "-A")
	cmd.Dir = repo
	cmd.Run()
	md := scandCLI(t, repo, nil, "diff", "-base", "HEAD", "-format", "markdown", "-scanners", "secrets").stdout
	if !strings.Contains(md, "Code of the new findings") || !strings.Contains(md, "| aws = \"AKIA") {
		t.Fatalf("markdown shows no code of the new findings:\n%s", md)
	}
	for _, secret := range []string{awsKey, stripeKey, githubPAT} {
		if strings.Contains(md, secret) {
			t.Errorf("markdown shows %q", secret)
		}
	}
}
