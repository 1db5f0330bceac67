package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan/repoconfig"
	"scand/scan/tree"
	"scand/sse"
	"scand/store"
)

// walkScanner reports one finding per file its walk visits, the way the
// built-ins walk (tree.Walk with the target's Ignore), so a test sees both
// the walk skipping and the orchestrator's filter.
type walkScanner struct {
	Builtin
	rule string
	// unfiltered reports files regardless of the target's Ignore, like a
	// wrapped tool without exclude flags.
	unfiltered bool
	// wants makes the scanner Selective.
	wants   string
	visited []string
	probed  bool
}

func (w *walkScanner) Available(ctx context.Context) (string, string, bool) {
	w.probed = true
	return "1", "", true
}

func (w *walkScanner) Scan(ctx context.Context, t Target) ([]finding.Finding, error) {
	walk := tree.Walk{Ignore: t.Ignored}
	if w.unfiltered {
		walk.Ignore = nil
	}
	var out []finding.Finding
	err := walk.Files(ctx, t.Path, func(_, rel string) error {
		w.visited = append(w.visited, rel)
		out = append(out, finding.Finding{Severity: finding.High, Title: "hit " + rel, RuleID: w.rule, FilePath: rel, Line: 1})
		return nil
	})
	return out, err
}

type selectiveScanner struct{ *walkScanner }

func (s selectiveScanner) Reads(rel string) bool { return strings.HasSuffix(rel, s.wants) }

func runNow(t *testing.T, scanners []Scanner, root string, opts RunOptions) (*store.Store, store.Scan) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := NewOrchestrator(OrchestratorOptions{Store: st, Bus: sse.NewBus(nil), Scanners: scanners})
	sc, err := st.CreateScan(context.Background(), store.Scan{ID: store.NewID(), TargetPath: root, ScanTypes: []string{TypeCode}, StartedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	o.RunNow(context.Background(), sc.ID, opts)
	sc, err = st.ScanByID(context.Background(), sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	return st, sc
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestRepoConfigAppliesToADaemonScan(t *testing.T) {
	root := writeTree(t, map[string]string{
		".scand.toml": `[ignore]
paths = ["fixtures/", "*.gen.go", "!keep.gen.go"]
rules = ["R-quiet"]
[severity]
R-loud = "critical"
[scanners]
disable = ["off"]
`,
		"app.go":               "x\n",
		"keep.gen.go":          "x\n",
		"skip.gen.go":          "x\n",
		"fixtures/key.pem":     "x\n",
		"sub/fixtures/key.pem": "x\n",
	})
	builtin := &walkScanner{Builtin: NewBuiltin("walker", TypeCode), rule: "R-loud"}
	wrapped := &walkScanner{Builtin: NewBuiltin("tool", TypeCode), rule: "R-quiet", unfiltered: true}
	off := &walkScanner{Builtin: NewBuiltin("off", TypeCode), rule: "R-off"}
	st, sc := runNow(t, []Scanner{builtin, wrapped, off}, root, RunOptions{})
	if sc.Status != store.StatusCompleted {
		t.Fatalf("scan %s: %s", sc.Status, sc.Error)
	}
	slices.Sort(builtin.visited)
	if got := strings.Join(builtin.visited, ","); got != ".scand.toml,app.go,keep.gen.go" {
		t.Errorf("the built-in's walk visited %s", got)
	}
	if len(off.visited) != 0 || !slices.ContainsFunc(sc.ScannersSkipped, func(s store.SkippedScanner) bool {
		return s.Name == "off" && s.Reason == "disabled in .scand.toml"
	}) {
		t.Errorf("disabled scanner ran (%v) or is not listed: %+v", off.visited, sc.ScannersSkipped)
	}
	if !slices.ContainsFunc(sc.ScannersSkipped, func(s store.SkippedScanner) bool {
		return s.Name == ".scand.toml [ignore] paths" && s.Reason == "fixtures/, *.gen.go, !keep.gen.go (not scanned, findings there not reported)"
	}) {
		t.Errorf("the ignored paths are not on the scan's record: %+v", sc.ScannersSkipped)
	}
	fs, err := st.FindingsByScan(context.Background(), sc.ID, store.FindingQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Scanner+":"+f.FilePath+":"+string(f.Severity)+":"+metaNote(f.Metadata))
	}
	slices.Sort(got)
	want := []string{
		"tool:.scand.toml:high:suppressed=config: .scand.toml [ignore] rules R-quiet",
		"tool:app.go:high:suppressed=config: .scand.toml [ignore] rules R-quiet",
		"tool:keep.gen.go:high:suppressed=config: .scand.toml [ignore] rules R-quiet",
		"walker:.scand.toml:critical:original=high",
		"walker:app.go:critical:original=high",
		"walker:keep.gen.go:critical:original=high",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sc.Suppressed != 3 {
		t.Errorf("suppressed count %d, want 3", sc.Suppressed)
	}
}

func metaNote(md map[string]any) string {
	if s, _ := md[finding.MetaSuppressedBy].(string); s != "" {
		return "suppressed=" + s
	}
	if s, _ := md[finding.MetaOriginalSeverity].(string); s != "" {
		return "original=" + s
	}
	return ""
}

func TestBadRepoConfigFailsTheScanWithItsLine(t *testing.T) {
	root := writeTree(t, map[string]string{".scand.toml": "fail_on = \"high\"\n\n[ignore]\npath = [\"x\"]\n"})
	s := &walkScanner{Builtin: NewBuiltin("walker", TypeCode), rule: "R"}
	_, sc := runNow(t, []Scanner{s}, root, RunOptions{})
	if sc.Status != store.StatusFailed || sc.Error != ".scand.toml:4: ignore.path: unknown key ([ignore] has paths and rules)" {
		t.Errorf("scan %s %q", sc.Status, sc.Error)
	}
	if len(s.visited) != 0 {
		t.Error("a scanner ran although the configuration is bad")
	}
	root = writeTree(t, map[string]string{".scand.toml": "[scanners]\ndisable = [\"nope\"]\n"})
	_, sc = runNow(t, []Scanner{s}, root, RunOptions{})
	if sc.Status != store.StatusFailed || !strings.HasPrefix(sc.Error, `.scand.toml:2: scanners.disable: unknown scanner "nope"`) {
		t.Errorf("scan %s %q", sc.Status, sc.Error)
	}
}

func TestRunOptions(t *testing.T) {
	root := writeTree(t, map[string]string{".scand.toml": "[ignore]\nrules = [\"R\"]\n", "a.go": "x\n"})
	py := selectiveScanner{&walkScanner{Builtin: NewBuiltin("py", TypeCode), rule: "P", wants: ".py"}}
	goS := selectiveScanner{&walkScanner{Builtin: NewBuiltin("go", TypeCode), rule: "G", wants: ".go"}}
	plain := &walkScanner{Builtin: NewBuiltin("plain", TypeCode), rule: "R"}
	given, err := repoconfig.Parse("ci.toml", []byte("[severity]\nG = \"low\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	st, sc := runNow(t, []Scanner{py, goS, plain}, root, RunOptions{Config: given, ConfigGiven: true, SkipIdle: true, Scanners: []string{"py", "go"}})
	if strings.Join(sc.ScannersRun, ",") != "go" || len(plain.visited) != 0 {
		t.Errorf("ran %v (plain visited %v)", sc.ScannersRun, plain.visited)
	}
	if py.probed || len(py.visited) != 0 {
		t.Error("an idle scanner was probed or run")
	}
	if len(sc.ScannersSkipped) != 1 || sc.ScannersSkipped[0].Name != "py" || sc.ScannersSkipped[0].Reason != SkipNothingToScan {
		t.Errorf("skipped %+v", sc.ScannersSkipped)
	}
	fs, _ := st.FindingsByScan(context.Background(), sc.ID, store.FindingQuery{})
	for _, f := range fs {
		// The given config replaces the tree's: R is not ignored, G is low.
		if f.Severity != finding.Low || metaNote(f.Metadata) != "original=high" {
			t.Errorf("finding %s %s %v", f.FilePath, f.Severity, f.Metadata)
		}
	}
	// Required scanners are never skipped as idle.
	_, sc = runNow(t, []Scanner{py}, root, RunOptions{SkipIdle: true, Required: []string{"py"}})
	if strings.Join(sc.ScannersRun, ",") != "py" {
		t.Errorf("a required scanner was skipped: %+v", sc.ScannersSkipped)
	}
}

func TestRepoConfigScanTypesMatchTheSeam(t *testing.T) {
	if !slices.Equal(repoconfig.ScanTypes, ScanTypes) {
		t.Errorf("repoconfig.ScanTypes %v, ScanTypes %v", repoconfig.ScanTypes, ScanTypes)
	}
}
