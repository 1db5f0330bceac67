package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type movedFinding struct {
	Fingerprint string `json:"fingerprint"`
	FilePath    string `json:"file_path"`
	Line        int    `json:"line"`
	RuleID      string `json:"rule_id"`
	State       *struct {
		Status string `json:"status"`
		Note   string `json:"note"`
	} `json:"state"`
}

// TestVerdictsFollowMovedFiles scans a repository, gives every finding a
// verdict, then git-mv's a file, copies a directory and deletes the
// original, and turns two identical files into a third; the rescan must
// carry at least 95 % of the verdicts of the moved findings, none to a
// wrong finding, and refuse the two-candidate match with a reason.
func TestVerdictsFollowMovedFiles(t *testing.T) {
	files := map[string]string{}
	var sessions, helpers strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&sessions, "session_%02d_password = \"Vq8%02dLm3Xp9Rt7Kw%c\"\n", i, i, 'a'+i)
	}
	files["src/requests/sessions.py"] = sessions.String()
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&helpers, "db_%02d_password = \"Hs4%02dNq7Zc2Yb6Fj%c\"\n", i, i, 'k'+i)
	}
	files["pkg/old/a.py"] = helpers.String()
	files["pkg/old/b.py"] = strings.ReplaceAll(helpers.String(), "db_", "cache_")
	twin := "admin_password = \"Tw1nQz8Rk2mQ9vL3xY\"\n"
	files["x1.py"], files["x2.py"] = twin, twin
	files["README.md"] = "demo\n"
	repo := gitRepo(t, files)
	proc := startScand(t, baseEnv(t))
	addr := listenAddr(t, proc.stderr.String, proc.exited)
	waitReady(t, addr)
	base := "http://" + addr

	first := daemonScan(t, base, repo, []string{"code"})
	var before []movedFinding
	apiCall(t, "GET", base+"/api/v1/scans/"+first+"/findings?limit=500", nil, &before)
	oldByPath := map[string]movedFinding{}
	for _, f := range before {
		if f.RuleID == "generic-password" {
			oldByPath[f.FilePath+"#"+f.Fingerprint] = f
		}
	}
	if len(oldByPath) != 42 {
		t.Fatalf("first scan: %d password findings, want 42", len(oldByPath))
	}
	// A distinct verdict note per finding tells where a verdict came from.
	for _, f := range before {
		if f.RuleID != "generic-password" {
			continue
		}
		if code := apiCall(t, "PATCH", base+"/api/v1/findings/"+f.Fingerprint+"/state", map[string]any{"status": "accepted_risk", "note": fmt.Sprintf("was %s:%d", f.FilePath, f.Line)}, nil); code != 200 {
			t.Fatalf("verdict: %d", code)
		}
	}
	sessionFP := ""
	for _, f := range before {
		if f.FilePath == "src/requests/sessions.py" {
			sessionFP = f.Fingerprint
			break
		}
	}
	apiCall(t, "POST", base+"/api/v1/findings/"+sessionFP+"/comments", map[string]any{"text": "checked with the team"}, nil)

	git(t, repo, "mv", "src/requests/sessions.py", "src/requests/s2.py")
	if out, err := exec.Command("cp", "-r", filepath.Join(repo, "pkg/old"), filepath.Join(repo, "pkg/new")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(repo, "pkg/old"))
	writeFiles(t, repo, map[string]string{"x1.py": "", "x2.py": "", "y.py": twin})

	second := daemonScan(t, base, repo, []string{"code"})
	var after []movedFinding
	apiCall(t, "GET", base+"/api/v1/scans/"+second+"/findings?limit=500", nil, &after)
	moved, followed := 0, 0
	for _, f := range after {
		if f.RuleID != "generic-password" {
			continue
		}
		oldPath := map[string]string{"src/requests/s2.py": "src/requests/sessions.py", "pkg/new/a.py": "pkg/old/a.py", "pkg/new/b.py": "pkg/old/b.py"}[f.FilePath]
		switch {
		case oldPath != "":
			moved++
			if f.State == nil {
				continue
			}
			// Each old finding's note names its file and line: a verdict
			// attached to the wrong finding shows another one.
			if f.State.Status != "accepted_risk" || f.State.Note != fmt.Sprintf("was %s:%d", oldPath, f.Line) {
				t.Fatalf("%s got the verdict %+v, not its own old one", f.FilePath, f.State)
			}
			var hist []struct{ Note string }
			apiCall(t, "GET", base+"/api/v1/findings/"+f.Fingerprint+"/history", nil, &hist)
			if len(hist) != 2 || hist[1].Note != "moved from "+oldPath {
				t.Fatalf("history of %s: %+v", f.FilePath, hist)
			}
			followed++
		case f.FilePath == "y.py":
			if f.State != nil {
				t.Fatalf("the two-candidate finding got a verdict: %+v", f.State)
			}
			var links []struct {
				Linked bool   `json:"linked"`
				Reason string `json:"reason"`
			}
			apiCall(t, "GET", base+"/api/v1/findings/"+f.Fingerprint+"/links", nil, &links)
			if len(links) != 1 || links[0].Linked || !strings.Contains(links[0].Reason, "x1.py") || !strings.Contains(links[0].Reason, "x2.py") {
				t.Fatalf("ambiguity not recorded: %+v", links)
			}
		}
	}
	if moved != 40 {
		t.Fatalf("%d moved password findings in the rescan, want 40", moved)
	}
	if followed*100 < moved*95 {
		t.Fatalf("%d of %d verdicts followed (< 95 %%)", followed, moved)
	}
	var comments []struct{ Text string }
	for _, f := range after {
		if f.FilePath == "src/requests/s2.py" && strings.Contains(f.State.Note, "sessions.py") {
			apiCall(t, "GET", base+"/api/v1/findings/"+f.Fingerprint+"/comments", nil, &comments)
			if len(comments) == 1 {
				break
			}
		}
	}
	if len(comments) != 1 || comments[0].Text != "checked with the team" {
		t.Fatalf("the comment did not follow: %+v", comments)
	}
	t.Logf("%d of %d verdicts followed their moved findings", followed, moved)
}

// TestVerdictsFollowGitRenamesWithEdits: in a git repository the scan
// records the commit it read; after a commit that git-mv's a file, adds a
// line at its top and edits five of its secret lines in place (their line
// context, so their fingerprint's old form, changed), git's rename
// detection and line mapping carry at least 95 % of the verdicts, each to
// its own finding; a directory copied then deleted still follows without
// git. (TestVerdictsFollowMovedFiles proves the two-candidate refusal.)
func TestVerdictsFollowGitRenamesWithEdits(t *testing.T) {
	var sessions, helpers strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&sessions, "session_%02d_password = \"Vq8%02dLm3Xp9Rt7Kw%c\"\n", i, i, 'a'+i)
	}
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&helpers, "db_%02d_password = \"Hs4%02dNq7Zc2Yb6Fj%c\"\n", i, i, 'k'+i)
	}
	repo := gitRepo(t, map[string]string{"src/requests/sessions.py": sessions.String(), "pkg/old/a.py": helpers.String(), "README.md": "demo\n"})
	head1 := git(t, repo, "rev-parse", "HEAD")
	proc := startScand(t, baseEnv(t))
	addr := listenAddr(t, proc.stderr.String, proc.exited)
	waitReady(t, addr)
	base := "http://" + addr

	first := daemonScan(t, base, repo, []string{"code"})
	var sc struct {
		Commit *string `json:"commit"`
	}
	apiCall(t, "GET", base+"/api/v1/scans/"+first, nil, &sc)
	if sc.Commit == nil || *sc.Commit != head1 {
		t.Fatalf("the scan did not record the commit it read: %v, want %s", sc.Commit, head1)
	}
	var before []movedFinding
	apiCall(t, "GET", base+"/api/v1/scans/"+first+"/findings?limit=500", nil, &before)
	for _, f := range before {
		if f.RuleID != "generic-password" {
			continue
		}
		if code := apiCall(t, "PATCH", base+"/api/v1/findings/"+f.Fingerprint+"/state", map[string]any{"status": "accepted_risk", "note": fmt.Sprintf("was %s:%d", f.FilePath, f.Line)}, nil); code != 200 {
			t.Fatalf("verdict: %d", code)
		}
	}

	git(t, repo, "mv", "src/requests/sessions.py", "src/requests/s2.py")
	lines := strings.Split(strings.TrimSuffix(sessions.String(), "\n"), "\n")
	for i := 0; i < 5; i++ {
		lines[i*4] = strings.Replace(lines[i*4], "\" ", "Z\" ", 1)
		lines[i*4] = strings.Replace(lines[i*4], "password = \"", "password = \"Z", 1) // the secret changed: a new line context
	}
	writeFiles(t, repo, map[string]string{"src/requests/s2.py": "import os\n" + strings.Join(lines, "\n") + "\n"})
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-qm", "rename and edit")
	// A directory copied, then the original deleted: no git rename (the
	// copy is not committed), the tree-only path links it.
	if out, err := exec.Command("cp", "-r", filepath.Join(repo, "pkg/old"), filepath.Join(repo, "pkg/new")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	os.RemoveAll(filepath.Join(repo, "pkg/old"))

	second := daemonScan(t, base, repo, []string{"code"})
	var after []movedFinding
	apiCall(t, "GET", base+"/api/v1/scans/"+second+"/findings?limit=500", nil, &after)
	moved, followed, edited := 0, 0, 0
	for _, f := range after {
		if f.RuleID != "generic-password" {
			continue
		}
		switch f.FilePath {
		case "src/requests/s2.py":
			oldLine := f.Line - 1 // the added first line
			moved++
			if (oldLine-1)%4 == 0 && oldLine <= 17 {
				edited++
			}
			if f.State == nil {
				continue
			}
			if f.State.Note != fmt.Sprintf("was src/requests/sessions.py:%d", oldLine) {
				t.Fatalf("%s:%d got the verdict %+v, not its own old one", f.FilePath, f.Line, f.State)
			}
			followed++
		case "pkg/new/a.py":
			moved++
			if f.State != nil {
				if f.State.Note != fmt.Sprintf("was pkg/old/a.py:%d", f.Line) {
					t.Fatalf("%s:%d got the verdict %+v", f.FilePath, f.Line, f.State)
				}
				followed++
			}
		}
	}
	if moved != 30 || edited != 5 {
		t.Fatalf("%d moved findings (%d on edited lines), want 30 (5)", moved, edited)
	}
	if followed*100 < moved*95 {
		t.Fatalf("%d of %d verdicts followed (< 95 %%)", followed, moved)
	}
	t.Logf("%d of %d verdicts followed (5 on lines edited in place)", followed, moved)
}
