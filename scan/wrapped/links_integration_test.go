package wrapped

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

// linkOutTree builds a target whose manifests and sources are symbolic
// links into a copy of the fixture tree outside it, the way a hostile tree
// would point at files of the scanning host: every file a tool could
// report lives outside the target.
func linkOutTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	outside, target := filepath.Join(base, "outside"), filepath.Join(base, "target")
	if err := os.CopyFS(outside, os.DirFS(wrapIntegrationTree(t))); err != nil {
		t.Fatal(err)
	}
	for _, rel := range linkOutCopies {
		if err := os.MkdirAll(filepath.Join(target, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outside, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(target, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range linkOutLinks {
		if err := os.MkdirAll(filepath.Join(target, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, rel), filepath.Join(target, rel)); err != nil {
			t.Fatal(err)
		}
	}
	return target
}

// The go module's manifests are real files of the target (findings on
// them are the target's own); its source and every other manifest is a
// link out.
var (
	linkOutCopies = []string{"goapp/go.mod", "goapp/go.sum"}
	linkOutLinks  = []string{"pyapp/app.py", "goapp/main.go", "infra/main.tf", "webapp/package.json", "webapp/package-lock.json"}
)

// readThroughLink reports a finding only a tool that read a linked file
// can make: one on a linked path, or govulncheck's proof that main.go
// calls the vulnerable code.
func readThroughLink(f finding.Finding) bool {
	return slices.Contains(linkOutLinks, f.FilePath) || f.Metadata["reachability"] == "called"
}

// TestWrappedToolsAndSymlinksOutOfTheTarget pins down, with the real tools,
// which ones follow a symbolic link to a file outside the target (the
// noFollow declarations) and shows the consequence: a tool that follows is
// not run on such a tree, one that does not runs and reports nothing from
// outside.
func TestWrappedToolsAndSymlinksOutOfTheTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mk      func(scan.Config) scan.Scanner
		follows bool
		// listsFiles: scand hands the tool a list of the tree's regular
		// files, which never names a link, so the unchecked run reads
		// nothing through one; the tool itself still follows links when it
		// is handed the whole tree (kicsInputs' fallback), so the check
		// stays.
		listsFiles bool
	}{
		{"bandit", Bandit, true, false}, {"gosec", Gosec, true, false}, {"govulncheck", Govulncheck, true, false}, {"kics", Kics, true, true},
		{"trivy", Trivy, false, false}, {"osv-scanner", OSV, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := wrapIntegrationScanner(t, tc.mk, nil)
			target := linkOutTree(t)
			w := s.(*cli)
			if w.tool.noFollow == tc.follows {
				t.Fatalf("%s declares noFollow=%v, but this test expects follows=%v", s.Name(), w.tool.noFollow, tc.follows)
			}

			// What the tool itself does with the links, the check aside.
			unchecked := newCLI(w.cfg, w.tool)
			unchecked.tool.noFollow = true
			fs, err := unchecked.Scan(context.Background(), scan.Target{Path: target})
			if err != nil && !tc.follows {
				t.Fatalf("%s on the linked tree: %v", s.Name(), err)
			}
			through := slices.ContainsFunc(fs, readThroughLink)
			if through != (tc.follows && !tc.listsFiles) {
				t.Fatalf("%s read through links out of the target: %v, want %v (%d findings: %+v)", s.Name(), through, tc.follows, len(fs), fs)
			}

			// What scand does.
			fs, err = s.Scan(context.Background(), scan.Target{Path: target})
			if tc.follows {
				if err == nil || !strings.Contains(err.Error(), "follows symbolic links") || len(fs) != 0 {
					t.Fatalf("%s ran on a tree with a link out: %d findings, error %v", s.Name(), len(fs), err)
				}
				if len(err.Error()) > errHeadLen {
					t.Errorf("the error is longer than scanner.failed shows (%d): %s", len(err.Error()), err)
				}
				return
			}
			if err != nil || slices.ContainsFunc(fs, readThroughLink) {
				t.Fatalf("%s: %d findings, %v; want a run that reads nothing outside", s.Name(), len(fs), err)
			}
		})
	}
}
