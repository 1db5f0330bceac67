package wrapped

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/request"
)

// wrapTestData is the wrappers' fixture folder, seen from package scan.
const wrapTestData = "../../testdata/wrappers"

// wrapRecordedRoot is where the fixture tree lay when the real tools'
// output under testdata/wrappers/<tool>/ was recorded.
const wrapRecordedRoot = "/tmp/scandfix"

func wrapTestConfig(env map[string]string) scan.Config {
	return scan.Config{
		Runner: proc.NewRunner(2 * time.Minute),
		Getenv: func(k string) string { return env[k] },
		Now:    time.Now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func wrapTestRead(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wrapTestData, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wrapTestFakeTool writes an executable that stands in for a wrapped tool:
// it answers the version flag with version, otherwise prints the stdout and
// stderr fixture files (relative to testdata/wrappers, "" for none) and
// exits with code. It goes through the real runner like the real tool.
func wrapTestFakeTool(t *testing.T, versionFlag, version, stdoutFile, stderrFile string, code int) string {
	t.Helper()
	abs := func(rel string) string {
		if rel == "" {
			return "/dev/null"
		}
		p, err := filepath.Abs(filepath.Join(wrapTestData, rel))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = %q ]; then echo %q; exit 0; fi\ncat %q\ncat %q >&2\nexit %d\n",
		versionFlag, version, abs(stdoutFile), abs(stderrFile), code)
	return wrapTestScript(t, script)
}

func wrapTestScript(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-tool")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// wrapTestCheckFindings asserts what every wrapper promises of a finding.
func wrapTestCheckFindings(t testing.TB, scanner, scanType string, fs []finding.Finding) {
	t.Helper()
	for i, f := range fs {
		if f.Scanner != scanner || f.ScanType != scanType {
			t.Errorf("finding %d: scanner/type = %q/%q, want %q/%q", i, f.Scanner, f.ScanType, scanner, scanType)
		}
		if !f.Severity.Valid() {
			t.Errorf("finding %d: invalid severity %q", i, f.Severity)
		}
		if f.RuleID == "" || f.Title == "" {
			t.Errorf("finding %d: empty rule id or title: %+v", i, f)
		}
		if strings.HasPrefix(f.FilePath, "/") && scanType != scan.TypeDAST || strings.Contains(f.FilePath, "\\") {
			t.Errorf("finding %d: path %q is not relative and slash-separated", i, f.FilePath)
		}
		if f.Line < 0 {
			t.Errorf("finding %d: negative line", i)
		}
	}
}

func wrapTestFind(fs []finding.Finding, rule, file string) *finding.Finding {
	for i := range fs {
		if fs[i].RuleID == rule && (file == "" || fs[i].FilePath == file) {
			return &fs[i]
		}
	}
	return nil
}

func TestWrapValidateHost(t *testing.T) {
	cases := []struct {
		host string
		max  int
		ok   bool
	}{
		{"127.0.0.1", 256, true},
		{"::1", 256, true},
		{"scanme.example.org", 256, true},
		{"localhost", 256, true},
		{"10.0.0.0/24", 256, true},
		{"10.0.0.0/23", 256, false},
		{"10.0.0.0/23", 512, true},
		{"fd00::/120", 256, true},
		{"fd00::/64", 256, false},
		{"0.0.0.0/0", 1 << 30, false},
		{"-sS", 256, false},
		{"-iL/etc/passwd", 256, false},
		{"host name", 256, false},
		{"a;b", 256, false},
		{"", 256, false},
		{"10.0.0.1/33", 256, false},
		{strings.Repeat("a", 254), 256, false},
	}
	for _, c := range cases {
		err := request.ValidateTargetHost(c.host, c.max)
		if (err == nil) != c.ok {
			t.Errorf("ValidateTargetHost(%q, %d) = %v, want ok=%v", c.host, c.max, err, c.ok)
		}
	}
}

func TestWrapValidateURLAndPath(t *testing.T) {
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8080/":  true,
		"https://example.org/app": true,
		"ftp://example.org/":      false,
		"file:///etc/passwd":      false,
		"http://":                 false,
		"-http://x":               false,
		"":                        false,
	} {
		if _, err := request.ValidateTargetURL(raw); (err == nil) != ok {
			t.Errorf("ValidateTargetURL(%q) = %v, want ok=%v", raw, err, ok)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for p, ok := range map[string]bool{
		dir:                        true,
		"relative/dir":             false,
		file:                       false,
		filepath.Join(dir, "nope"): false,
		"":                         false,
	} {
		if err := validateDir(p); (err == nil) != ok {
			t.Errorf("validateDir(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}

func TestWrapStderrHead(t *testing.T) {
	long := strings.Repeat("x", 500)
	cases := []struct{ in, want string }{
		{"", ""},
		{"boom\n", "boom"},
		{"2026 INFO loading\n2026 INFO more\n2026 FATAL cannot open db: no such file\n", "2026 FATAL cannot open db: no such file"},
		{"[main]\tINFO\tx\n[main]\tERROR\t/nonexistent.yaml : Could not read config file.\n", "[main] ERROR /nonexistent.yaml : Could not read config file."},
		{long, long[:200]},
	}
	for _, c := range cases {
		if got := stderrHead([]byte(c.in)); got != c.want {
			t.Errorf("stderrHead(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWrapRelPath(t *testing.T) {
	root := "/src/app"
	cases := []struct{ base, p, want string }{
		{root, "/src/app/pkg/main.go", "pkg/main.go"},
		{"/src/app/mod", "main.go", "mod/main.go"},
		{root, "./a/b.tf", "a/b.tf"},
		{root, "", ""},
	}
	for _, c := range cases {
		if got := relPath(root, c.base, c.p); got != c.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", c.base, c.p, got, c.want)
		}
	}
}

func TestWrapFindDecl(t *testing.T) {
	lock := string(wrapTestRead(t, "tree/webapp/package-lock.json"))
	gomod := string(wrapTestRead(t, "tree/goapp/go.mod"))
	cases := []struct {
		base, text, name, version string
		want                      int
	}{
		{"package-lock.json", lock, "lodash", "4.17.15", 15},
		{"package-lock.json", lock, "minimist", "1.2.0", 20},
		{"go.mod", gomod, "golang.org/x/text", "v0.3.6", 5},
		{"go.mod", gomod, "stdlib", "", 3},
		{"go.mod", "module m\n\nrequire (\n\ta v1\n\tgolang.org/x/net v0.1.0\n)\n", "golang.org/x/net", "v0.1.0", 5},
		{"requirements.txt", "# pinned\nDjango==3.2.0\nrequests>=2.0\n", "requests", "", 3},
		{"requirements.txt", "django-extensions==1\ndjango==3.2\n", "django", "", 2},
		{"yarn.lock", "\"lodash@^4.17.0\":\n  version \"4.17.15\"\n", "lodash", "4.17.15", 1},
		{"Cargo.lock", "[[package]]\nname = \"smallvec\"\nversion = \"1.6.0\"\n", "smallvec", "1.6.0", 2},
		{"package-lock.json", lock, "left-pad", "1.0.0", 0},
	}
	for _, c := range cases {
		if got := findDecl(c.base, strings.Split(c.text, "\n"), c.name, c.version); got != c.want {
			t.Errorf("findDecl(%s, %s) = %d, want %d", c.base, c.name, got, c.want)
		}
	}
}

func TestWrapAvailabilityCache(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	dir := t.TempDir()
	counter := filepath.Join(dir, "calls")
	tool := wrapTestScript(t, fmt.Sprintf("#!/bin/sh\necho x >> %q\necho 'bandit 1.6.2'\n", counter))
	cfg := wrapTestConfig(map[string]string{"SVC_BANDIT_PATH": tool})
	cfg.Now = clock
	s := Bandit(cfg)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, hint, ok := s.Available(context.Background()); !ok || v != "1.6.2" {
				t.Errorf("Available = %q, %q, %v", v, hint, ok)
			}
		}()
	}
	wg.Wait()
	calls := func() int {
		b, _ := os.ReadFile(counter)
		return strings.Count(string(b), "x")
	}
	if calls() != 1 {
		t.Fatalf("8 concurrent Available calls probed %d times, want 1", calls())
	}
	mu.Lock()
	now = now.Add(availTTL + time.Second)
	mu.Unlock()
	s.Available(context.Background())
	if calls() != 2 {
		t.Fatalf("after the TTL the tool was probed %d times in all, want 2", calls())
	}
}

func TestWrapAvailabilityCancelledProbeNotCached(t *testing.T) {
	tool := wrapTestScript(t, "#!/bin/sh\necho 'bandit 1.6.2'\n")
	s := Bandit(wrapTestConfig(map[string]string{"SVC_BANDIT_PATH": tool}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, ok := s.Available(ctx); ok {
		t.Fatal("a cancelled probe reported the tool available")
	}
	if v, hint, ok := s.Available(context.Background()); !ok || v != "1.6.2" {
		t.Fatalf("after a cancelled probe, Available = %q %q %v; the failure was cached", v, hint, ok)
	}
}

func TestWrapAvailabilityNotInstalled(t *testing.T) {
	cases := []struct {
		name string
		mk   func(scan.Config) scan.Scanner
		env  map[string]string
		hint string
	}{
		{"bandit", Bandit, map[string]string{"SVC_BANDIT_PATH": "/nonexistent/bandit"}, "apt-get install -y bandit"},
		{"gosec", Gosec, map[string]string{"SVC_GOSEC_PATH": "/nonexistent/gosec"}, "github.com/securego/gosec/v2/cmd/gosec@v2.29.0"},
		{"osv-scanner", OSV, map[string]string{"SVC_OSV_SCANNER_PATH": "/nonexistent/osv"}, "github.com/google/osv-scanner/v2/cmd/osv-scanner@v2.5.0"},
		{"govulncheck", Govulncheck, map[string]string{"SVC_GOVULNCHECK_PATH": "/nonexistent/gv"}, "golang.org/x/vuln/cmd/govulncheck@v1.8.0"},
		{"trivy", Trivy, map[string]string{"SVC_TRIVY_PATH": "/nonexistent/trivy"}, "github.com/aquasecurity/trivy@v0.74.0"},
		{"kics", Kics, map[string]string{"SVC_KICS_PATH": "/nonexistent/kics"}, "github.com/Checkmarx/kics/v2/cmd/console@v2.2.0"},
		{"nmap", Nmap, map[string]string{"SVC_NMAP_PATH": "/nonexistent/nmap"}, "apt-get install -y nmap"},
		{"zap", ZAP, nil, "SVC_ZAP_URL is not set"},
		{"bandit", Bandit, map[string]string{"SVC_BANDIT_PATH": "bin/bandit"}, "must be an absolute path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.mk(wrapTestConfig(c.env))
			if s.Name() != c.name {
				t.Fatalf("Name() = %q", s.Name())
			}
			v, hint, ok := s.Available(context.Background())
			if ok || v != "" {
				t.Fatalf("Available = %q, %q, %v; want not available", v, hint, ok)
			}
			if !strings.Contains(hint, c.hint) {
				t.Fatalf("hint %q does not mention %q", hint, c.hint)
			}
		})
	}
}

// TestWrapDatabaseNotConfigured: a dependency scanner whose offline
// database is missing is skipped with the reason "database not configured"
// and a hint naming the variable, never run; a tool that is missing
// altogether stays "not installed".
func TestWrapDatabaseNotConfigured(t *testing.T) {
	empty := t.TempDir()
	cases := []struct {
		name string
		mk   func(scan.Config) scan.Scanner
		env  map[string]string
		hint string
	}{
		{"osv unset", OSV, map[string]string{}, "SVC_OSV_DB is not set"},
		{"osv empty", OSV, map[string]string{"SVC_OSV_DB": empty}, "holds no osv-scalibr"},
		{"govuln unset", Govulncheck, map[string]string{}, "SVC_GOVULN_DB is not set"},
		{"govuln empty", Govulncheck, map[string]string{"SVC_GOVULN_DB": empty}, "has no index/db.json"},
		{"trivy unset", Trivy, map[string]string{}, "SVC_TRIVY_CACHE is not set"},
		{"trivy empty", Trivy, map[string]string{"SVC_TRIVY_CACHE": empty}, "has no db/trivy.db"},
		{"kics missing", Kics, map[string]string{"SVC_KICS_QUERIES": filepath.Join(empty, "queries")}, "KICS query library"},
	}
	flag := map[string]string{"osv": "--version", "gov": "-version", "tri": "--version", "kic": "version"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The tool itself is present: only its data is missing.
			tool := wrapTestFakeTool(t, flag[c.name[:3]], "v1.0.0", "", "", 0)
			env := map[string]string{"SVC_OSV_SCANNER_PATH": tool, "SVC_GOVULNCHECK_PATH": tool, "SVC_TRIVY_PATH": tool, "SVC_KICS_PATH": tool}
			for k, v := range c.env {
				env[k] = v
			}
			s := c.mk(wrapTestConfig(env))
			_, hint, ok := s.Available(context.Background())
			if ok || !strings.Contains(hint, c.hint) {
				t.Fatalf("Available = %q, %v; want a hint containing %q", hint, ok, c.hint)
			}
			_, err := s.Scan(context.Background(), scan.Target{Path: t.TempDir()})
			want, reason := scan.ErrDatabaseNotConfigured, scan.SkipDatabaseNotConfigured
			if c.mk == nil || c.name == "kics missing" {
				want, reason = proc.ErrNotInstalled, scan.SkipNotInstalled
			}
			if !errors.Is(err, want) {
				t.Fatalf("Scan error = %v, want %v", err, want)
			}
			if got := scan.SkipReasonOf(context.Background(), s); got != reason {
				t.Fatalf("skip reason %q, want %q", got, reason)
			}
		})
	}
}

func TestWrapBuildInfoVersion(t *testing.T) {
	// A binary built by the Go toolchain carries its module version; the
	// test binary itself is one, with version "(devel)", which must not
	// be reported as a version.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if v := buildInfoVersion(exe); v != "" {
		t.Fatalf("buildInfoVersion(test binary) = %q, want \"\" for (devel)", v)
	}
	if v := buildInfoVersion("/nonexistent"); v != "" {
		t.Fatalf("buildInfoVersion(missing) = %q", v)
	}
}

func TestWrapCapKeepsMostSevere(t *testing.T) {
	var fs []finding.Finding
	for i := 0; i < maxFindings+500; i++ {
		sev := finding.Low
		if i%1000 == 999 {
			sev = finding.Critical
		}
		fs = append(fs, finding.Finding{Severity: sev, RuleID: fmt.Sprint(i)})
	}
	got, capped := capFindings(fs)
	if !capped || len(got) != maxFindings {
		t.Fatalf("capFindings kept %d (capped=%v), want %d", len(got), capped, maxFindings)
	}
	crit := 0
	for _, f := range got {
		if f.Severity == finding.Critical {
			crit++
		}
	}
	if crit != (maxFindings+500)/1000 {
		t.Fatalf("kept %d critical findings, want all %d", crit, (maxFindings+500)/1000)
	}
}

func wrapTestWriteFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestToolDeclaration runs a tool declared only as data through the
// generic implementation: the program comes from SVC_<NAME>_PATH, the run
// happens once per module, the report is read from the file the tool
// wrote, and each exit status means what the declaration says.
func TestToolDeclaration(t *testing.T) {
	target := t.TempDir()
	wrapTestWriteFile(t, filepath.Join(target, "a", "go.mod"), "module a\n")
	wrapTestWriteFile(t, filepath.Join(target, "b", "go.mod"), "module b\n")
	wrapTestWriteFile(t, filepath.Join(target, "node_modules", "c", "go.mod"), "module c\n")
	// The fake tool writes "<its directory>" as its report into the -o
	// folder and exits with the status named in $DEMO_EXIT of its dir.
	fake := wrapTestScript(t, `#!/bin/sh
[ "$1" = --version ] && { echo 'demo 3.1'; exit 0; }
printf '%s' "$PWD" > "$2/out.txt"
[ -f exit ] && exit $(cat exit)
exit 0
`)
	declare := func(cfg scan.Config) scan.Scanner {
		return newCLI(cfg, tool{name: "demo-tool", scanType: scan.TypeCode,
			eachDirOf:  "go.mod",
			reportFile: "out.txt",
			args:       func(c *call) ([]string, error) { return []string{"-o", c.outDir}, nil },
			exits:      exits{report: []int{0, 1}, nothing: []int{3}},
			parse: func(c *call, report []byte) ([]finding.Finding, error) {
				if string(report) != c.dir {
					return nil, fmt.Errorf("report %q is not from %s", report, c.dir)
				}
				return []finding.Finding{{Scanner: "demo-tool", ScanType: scan.TypeCode, Severity: finding.Low,
					Title: "t", RuleID: "R1", FilePath: c.rel(c.file)}}, nil
			},
			version:     probeVersion(`demo (\S+)`, "--version"),
			installHint: "install demo",
		})
	}
	s := declare(wrapTestConfig(map[string]string{"SVC_DEMO_TOOL_PATH": fake}))
	if v, hint, ok := s.Available(context.Background()); !ok || v != "3.1" {
		t.Fatalf("Available = %q %q %v", v, hint, ok)
	}
	fs, err := s.Scan(context.Background(), scan.Target{Path: target})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range fs {
		files = append(files, f.FilePath)
	}
	if strings.Join(files, " ") != "a/go.mod b/go.mod" {
		t.Fatalf("findings in %v, want one per module outside node_modules", files)
	}

	wrapTestWriteFile(t, filepath.Join(target, "a", "exit"), "3")
	if fs, err := s.Scan(context.Background(), scan.Target{Path: target}); err != nil || len(fs) != 1 {
		t.Fatalf("exit 3 (nothing to scan) in one module: %d findings, %v", len(fs), err)
	}
	wrapTestWriteFile(t, filepath.Join(target, "a", "exit"), "2")
	var te *toolError
	if _, err := s.Scan(context.Background(), scan.Target{Path: target}); !errors.As(err, &te) || te.ExitCode != 2 {
		t.Fatalf("exit 2 = %v, want a crash", err)
	}

	missing := declare(wrapTestConfig(map[string]string{"SVC_DEMO_TOOL_PATH": "/nonexistent/demo"}))
	if _, err := missing.Scan(context.Background(), scan.Target{Path: target}); !errors.Is(err, proc.ErrNotInstalled) || !strings.Contains(err.Error(), "install demo") {
		t.Fatalf("missing tool: %v", err)
	}
}
