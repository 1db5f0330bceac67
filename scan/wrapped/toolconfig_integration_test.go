package wrapped

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

// A scanned tree is hostile: the configuration files the wrapped tools look
// for in it (bandit's .bandit, osv-scanner.toml beside a lockfile, Trivy's
// trivy.yaml and .trivyignore in its working directory, kics.config in the
// scanned path) must not switch findings off. Each tool runs on a copy of
// the fixture tree, then again with its files added that skip or ignore
// everything it reported; the findings must stay the same.
func TestWrappersIgnoreTheTreesToolConfiguration(t *testing.T) {
	cases := []struct {
		mk      func(scan.Config) scan.Scanner
		hostile func(t *testing.T, root string, first []finding.Finding)
	}{
		{Bandit, func(t *testing.T, root string, first []finding.Finding) {
			wrapTestWriteFile(t, filepath.Join(root, ".bandit"), "[bandit]\nskips: "+strings.Join(ruleIDs(first), ",")+"\n")
			wrapTestWriteFile(t, filepath.Join(root, "pyapp", ".bandit"), "[bandit]\nskips: "+strings.Join(ruleIDs(first), ",")+"\n")
		}},
		{OSV, func(t *testing.T, root string, first []finding.Finding) {
			var toml strings.Builder
			for _, id := range ruleIDs(first) {
				fmt.Fprintf(&toml, "[[IgnoredVulns]]\nid = %q\nreason = \"hidden by the scanned tree\"\n\n", id)
			}
			for _, dir := range findingDirs(first) {
				wrapTestWriteFile(t, filepath.Join(root, dir, "osv-scanner.toml"), toml.String())
			}
		}},
		{Trivy, func(t *testing.T, root string, first []finding.Finding) {
			wrapTestWriteFile(t, filepath.Join(root, ".trivyignore"), strings.Join(ruleIDs(first), "\n")+"\n")
			var skip strings.Builder
			skip.WriteString("severity:\n  - CRITICAL\nscan:\n  skip-files:\n")
			for _, f := range first {
				fmt.Fprintf(&skip, "    - %q\n", f.FilePath)
			}
			wrapTestWriteFile(t, filepath.Join(root, "trivy.yaml"), skip.String())
		}},
		{Kics, func(t *testing.T, root string, _ []finding.Finding) {
			wrapTestWriteFile(t, filepath.Join(root, "kics.config"), "exclude-severities: \"critical,high,medium,low,info\"\n")
		}},
	}
	for _, c := range cases {
		s, v := wrapIntegrationScanner(t, c.mk, nil)
		t.Run(s.Name(), func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS(wrapIntegrationTree(t))); err != nil {
				t.Fatal(err)
			}
			first := wrapIntegrationRun(t, s, v, scan.Target{Path: root})
			if len(first) == 0 {
				t.Fatal("no findings on the fixture tree: nothing to hide")
			}
			c.hostile(t, root, first)
			again := wrapIntegrationRun(t, s, v, scan.Target{Path: root})
			if got, want := findingKeys(again), findingKeys(first); !slices.Equal(got, want) {
				t.Errorf("the tree's own configuration changed the findings:\nwith it:    %v\nwithout it: %v", got, want)
			}
		})
	}
}

// ruleIDs are the distinct rule ids of fs, sorted.
func ruleIDs(fs []finding.Finding) []string {
	var ids []string
	for _, f := range fs {
		if !slices.Contains(ids, f.RuleID) {
			ids = append(ids, f.RuleID)
		}
	}
	slices.Sort(ids)
	return ids
}

// findingDirs are the distinct directories of fs's files, sorted.
func findingDirs(fs []finding.Finding) []string {
	var dirs []string
	for _, f := range fs {
		if d := path.Dir(f.FilePath); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	return dirs
}

// findingKeys identify findings by rule, file and line, sorted.
func findingKeys(fs []finding.Finding) []string {
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = fmt.Sprintf("%s %s:%d", f.RuleID, f.FilePath, f.Line)
	}
	slices.Sort(keys)
	return keys
}

// gosec's #nosec is the tree's own text too: the finding it covers is
// kept, marked suppressed with the comment's justification, the way
// scand:ignore marks one, instead of disappearing.
func TestWrappersGosecNosecIsKeptSuppressed(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Gosec, nil)
	root := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(root, "go.mod"), "module example.com/nosec\n\ngo 1.21\n")
	wrapTestWriteFile(t, filepath.Join(root, "main.go"), `package main

import (
	"crypto/md5"
	"fmt"
)

func main() {
	legacy := md5.New() // #nosec G401 -- checksum of a legacy format `+"\x1b[2J"+`
	fresh := md5.New()
	fmt.Println(legacy, fresh)
}
`)
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: root})
	var got []string
	for _, f := range fs {
		if f.RuleID == "G401" {
			by, _ := f.Metadata[finding.MetaSuppressedBy].(string)
			got = append(got, fmt.Sprintf("%d %q", f.Line, by))
		}
	}
	slices.Sort(got)
	want := []string{`10 ""`, `9 "inline: #nosec (gosec) -- checksum of a legacy format [2J"`}
	if !slices.Equal(got, want) {
		t.Errorf("G401 findings %v, want %v", got, want)
	}
}

// KICS's in-file "# kics-scan ..." directives cannot be turned off; the
// files that carry one are recorded as a skipped part of the scan, so the
// scan says where KICS was told to look away.
func TestWrappersKicsRecordsFilesThatHideResults(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Kics, nil)
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join(wrapIntegrationTree(t), "infra"))); err != nil {
		t.Fatal(err)
	}
	// Without a directive there is no skipped part: TestWrappersIntegrationKics.
	t.Logf("kics %s", v)
	tf := filepath.Join(root, "main.tf")
	body, err := os.ReadFile(tf)
	if err != nil {
		t.Fatal(err)
	}
	wrapTestWriteFile(t, tf, "# kics-scan ignore\n"+string(body))
	fs, err := s.Scan(t.Context(), scan.Target{Path: root})
	var partial *scan.PartialSkip
	if !errors.As(err, &partial) || len(partial.Parts) != 1 || partial.Parts[0].Part != "kics-scan comments" ||
		!strings.HasPrefix(partial.Parts[0].Hint, "main.tf: ") {
		t.Fatalf("err %v, want a skipped part naming main.tf", err)
	}
	t.Logf("kics with the directive: %d findings, hint %q", len(fs), partial.Parts[0].Hint)
}

// bandit's "# nosec" is the tree's own text: the finding is kept, marked
// suppressed, instead of disappearing.
func TestWrappersBanditNosecIsKeptSuppressed(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Bandit, nil)
	root := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(root, "app.py"), "import subprocess\n"+
		"subprocess.call(\"ls\", shell=True)  # nosec\n"+
		"subprocess.call(\"ls\", shell=True)\n")
	var got []string
	for _, f := range wrapIntegrationRun(t, s, v, scan.Target{Path: root}) {
		if f.RuleID == "B602" {
			by, _ := f.Metadata[finding.MetaSuppressedBy].(string)
			got = append(got, fmt.Sprintf("%d %q", f.Line, by))
		}
	}
	slices.Sort(got)
	if want := []string{`2 "inline: # nosec (bandit)"`, `3 ""`}; !slices.Equal(got, want) {
		t.Errorf("B602 findings %v, want %v", got, want)
	}
}
