package wrapped

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"scand/finding"
	"scand/scan"
)

// Shared plumbing of the eight wrapped third-party scanners: how a tool is
// found, how its version is read, how its availability is cached, how a
// target is validated before it reaches an argument list, and how a crash is
// turned into the short text scanner.failed carries.

// wrapAvailTTL bounds how stale /dashboard/status may be after an operator
// installs or removes a tool, while keeping a busy orchestrator from
// spawning `tool --version` for every scan.
const wrapAvailTTL = 30 * time.Second

// wrapProbeTimeout bounds one availability probe (`--version`, ZAP's
// core/view/version). It is not a scan timeout: scans use cfg.Runner's.
const wrapProbeTimeout = 15 * time.Second

// wrapMaxFindings caps what one wrapped tool can add to a scan. A tool that
// reports more than this is almost always scanning something it should not
// (a vendored tree, a generated bundle); the most severe are kept.
const wrapMaxFindings = 10000

// wrapMaxFileRead caps how much of a manifest or report file is read.
const wrapMaxFileRead = 64 << 20

// wrapErrHeadLen is SPEC.md's limit for a scanner.failed error text.
const wrapErrHeadLen = 200

// wrapCLISpec is what differs between the command-line tools.
type wrapCLISpec struct {
	name    string
	program string // executable looked up on PATH
	pathEnv string // SVC_<TOOL>_PATH: an absolute path that wins over PATH
	// versionArgs print the version; versionRe's first group captures it.
	versionArgs []string
	versionRe   *regexp.Regexp
	// installHint tells an operator on an air-gapped box what to install.
	installHint string
	// ready checks what the tool needs besides its binary (an offline
	// database, a query library); nil means nothing.
	ready func() (hint string, ok bool)
}

// wrapCLI is the part every command-line wrapper shares.
type wrapCLI struct {
	cfg   scan.Config
	spec  wrapCLISpec
	avail wrapAvailCache
}

func newWrapCLI(cfg scan.Config, spec wrapCLISpec) *wrapCLI {
	return &wrapCLI{cfg: cfg, spec: spec}
}

// program is the executable to run: the SVC_<TOOL>_PATH override when set,
// else the tool's name resolved on PATH by the runner.
func (w *wrapCLI) program() string {
	if p := strings.TrimSpace(w.cfg.Env(w.spec.pathEnv)); p != "" {
		return p
	}
	return w.spec.program
}

func (w *wrapCLI) now() time.Time {
	if w.cfg.Now != nil {
		return w.cfg.Now()
	}
	return time.Now()
}

func (w *wrapCLI) runner() *scan.Runner {
	if w.cfg.Runner != nil {
		return w.cfg.Runner
	}
	return scan.NewRunner(0)
}

// Available reports the tool's version, or why it cannot run here.
func (w *wrapCLI) Available(ctx context.Context) (string, string, bool) {
	return w.avail.get(ctx, w.now(), func() (string, string, bool) { return w.probe(ctx) })
}

func (w *wrapCLI) probe(ctx context.Context) (string, string, bool) {
	prog := w.program()
	if prog != w.spec.program && !filepath.IsAbs(prog) {
		return "", fmt.Sprintf("%s=%s must be an absolute path", w.spec.pathEnv, prog), false
	}
	res, err := w.runner().Run(ctx, scan.Cmd{Program: prog, Args: w.spec.versionArgs, Timeout: wrapProbeTimeout})
	if errors.Is(err, scan.ErrNotInstalled) {
		if prog != w.spec.program {
			return "", fmt.Sprintf("%s=%s is not an executable file; %s", w.spec.pathEnv, prog, w.spec.installHint), false
		}
		return "", w.spec.installHint, false
	}
	if err != nil {
		return "", fmt.Sprintf("%s did not answer %s: %v; %s", prog, strings.Join(w.spec.versionArgs, " "), err, w.spec.installHint), false
	}
	version := wrapParseVersion(w.spec.versionRe, res.Stdout, res.Stderr)
	switch version {
	case "", "dev", "development", "(devel)":
		// Tools installed with `go install` print a placeholder: the
		// module version the Go toolchain stamped into the binary is the
		// truth, and a placeholder is no version at all.
		version = w.buildInfoVersion(prog)
	}
	if version == "" && res.ExitCode != 0 {
		return "", fmt.Sprintf("%s %s exited with status %d: %s", prog, strings.Join(w.spec.versionArgs, " "), res.ExitCode, wrapStderrHead(res.Stderr)), false
	}
	if w.spec.ready != nil {
		if hint, ok := w.spec.ready(); !ok {
			return version, hint, false
		}
	}
	return version, "", true
}

func (w *wrapCLI) buildInfoVersion(prog string) string {
	path := prog
	if !strings.Contains(prog, "/") {
		look := w.runner().LookPath
		if look == nil {
			look = exec.LookPath
		}
		p, err := look(prog)
		if err != nil {
			return ""
		}
		path = p
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ""
	}
	return strings.TrimPrefix(bi.Main.Version, "v")
}

// run executes the tool through the one runner with the scan's timeout.
func (w *wrapCLI) run(ctx context.Context, dir string, env []string, args ...string) (scan.Result, error) {
	res, err := w.runner().Run(ctx, scan.Cmd{Program: w.program(), Args: args, Dir: dir, Env: env})
	if err != nil {
		return res, err
	}
	r := w.runner()
	if r.MaxStdout > 0 && res.Truncated && len(res.Stdout) >= r.MaxStdout {
		return res, fmt.Errorf("%s wrote more than %d bytes of output; scan a smaller target", w.spec.name, r.MaxStdout)
	}
	return res, nil
}

// notReady is Scan's answer when Available would say no: the orchestrator
// normally skips such a scanner, and this keeps a direct call from failing
// later with a network timeout instead of saying what is missing.
func (w *wrapCLI) notReady(ctx context.Context) error {
	if _, hint, ok := w.Available(ctx); !ok {
		return fmt.Errorf("%s: %s: %w", w.spec.name, hint, scan.ErrNotInstalled)
	}
	return nil
}

func wrapParseVersion(re *regexp.Regexp, outs ...[]byte) string {
	for _, out := range outs {
		if re == nil {
			continue
		}
		if m := re.FindSubmatch(out); m != nil {
			return strings.TrimPrefix(string(m[1]), "v")
		}
	}
	return ""
}

// wrapAvailCache remembers one scanner's availability for wrapAvailTTL.
// The lock is held during the probe so concurrent callers share one probe
// instead of each spawning the tool.
type wrapAvailCache struct {
	mu      sync.Mutex
	at      time.Time
	valid   bool
	version string
	hint    string
	ok      bool
}

func (c *wrapAvailCache) get(ctx context.Context, now time.Time, probe func() (string, string, bool)) (string, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.valid && now.Sub(c.at) < wrapAvailTTL && !now.Before(c.at) {
		return c.version, c.hint, c.ok
	}
	version, hint, ok := probe()
	// A probe cut short by its caller's cancellation says nothing about
	// the tool; the next caller probes again.
	if ctx.Err() == nil {
		c.version, c.hint, c.ok = version, hint, ok
		c.at, c.valid = now, true
	}
	return version, hint, ok
}

// wrapToolError is a wrapped tool's crash. Its text is what scanner.failed
// shows, so it is the informative part of stderr, at most 200 characters.
type wrapToolError struct {
	Tool     string
	ExitCode int
	Stderr   string
}

func (e *wrapToolError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%s exited with status %d and printed nothing on stderr", e.Tool, e.ExitCode)
	}
	return e.Stderr
}

func wrapCrash(tool string, res scan.Result) error {
	head := wrapStderrHead(res.Stderr)
	if head == "" {
		// A tool silent on stderr may have said why on stdout.
		head = wrapStderrHead(res.Stdout)
	}
	return &wrapToolError{Tool: tool, ExitCode: res.ExitCode, Stderr: head}
}

// wrapStderrHead picks the first 200 characters of stderr, starting at the
// first line that reads like an error: several tools log progress on stderr
// before the line that says what went wrong.
func wrapStderrHead(stderr []byte) string {
	text := strings.ToValidUTF8(string(stderr), "?")
	start := -1
	offset := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "error") || strings.Contains(l, "fatal") || strings.Contains(l, "panic") {
			start = offset
			break
		}
		offset += len(line)
	}
	if start > 0 {
		text = text[start:]
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > wrapErrHeadLen {
		r := []rune(text)
		text = string(r[:wrapErrHeadLen])
	}
	return text
}

// wrapGoToolEnv keeps Go-based analyzers (gosec, govulncheck) offline: the
// `go` command they run to load packages may not fetch a module or a
// toolchain, so a missing dependency is an error naming it, never a download.
func wrapGoToolEnv() []string {
	return []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off"}
}

// Target validation. Every value that becomes an argument is checked here
// first, so no target can be read by a tool as an option.

// wrapValidatePath accepts an absolute, existing directory.
func wrapValidatePath(p string) error {
	if p == "" {
		return errors.New("target_path is empty")
	}
	if !filepath.IsAbs(p) {
		return fmt.Errorf("target_path %q is not absolute", p)
	}
	if strings.ContainsRune(p, 0) {
		return errors.New("target_path contains a NUL byte")
	}
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("target_path: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("target_path %q is not a directory", p)
	}
	return nil
}

// wrapRelPath makes a path a tool reported relative to the scan's target,
// slash-separated, so fingerprints do not depend on the checkout location.
// Relative paths are taken relative to base (the directory the tool ran in).
func wrapRelPath(root, base, p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	for _, r := range wrapRootForms(root) {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}

// wrapRootForms lists root as given and with symlinks resolved: some tools
// report real paths, and /tmp is a symlink on some systems.
func wrapRootForms(root string) []string {
	forms := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != forms[0] {
		forms = append(forms, real)
	}
	return forms
}

// wrapLineFinder finds the line of a manifest or lockfile (relative to the
// target) that declares a package; 0 when it cannot tell.
type wrapLineFinder func(relFile, name, version string) int

// wrapDeclLines returns a finder reading files under root. It remembers
// each file's lines, so many findings in one lockfile read it once.
func wrapDeclLines(root string) wrapLineFinder {
	cache := map[string][]string{}
	return func(relFile, name, version string) int {
		if relFile == "" || name == "" {
			return 0
		}
		lines, ok := cache[relFile]
		if !ok {
			lines = wrapReadLines(filepath.Join(root, filepath.FromSlash(relFile)))
			cache[relFile] = lines
		}
		return wrapFindDecl(filepath.Base(relFile), lines, name, version)
	}
}

func wrapReadLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(io.LimitReader(f, wrapMaxFileRead))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// wrapFindDecl knows how the common manifests declare a dependency.
func wrapFindDecl(base string, lines []string, name, version string) int {
	first := func(match func(string) bool) int {
		for i, l := range lines {
			if match(l) {
				return i + 1
			}
		}
		return 0
	}
	quoted := strconv.Quote(name)
	switch base {
	case "package-lock.json", "npm-shrinkwrap.json":
		// lockfileVersion 2/3 key packages by install path; the shallowest
		// entry is the one the project declares.
		if n := first(func(l string) bool {
			return strings.Contains(l, `"node_modules/`+name+`"`)
		}); n > 0 {
			return n
		}
		return first(func(l string) bool { return strings.Contains(strings.TrimSpace(l), quoted+": {") })
	case "go.mod":
		if name == "stdlib" || name == "toolchain" {
			// Standard-library vulnerabilities follow the Go version the
			// module selects: its toolchain line, else its go line.
			if n := first(func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "toolchain ") }); n > 0 {
				return n
			}
			return first(func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "go ") })
		}
		return first(func(l string) bool {
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "require "))
			return len(f) >= 2 && f[0] == name
		})
	case "requirements.txt", "requirements-dev.txt", "constraints.txt":
		lname := strings.ToLower(name)
		return first(func(l string) bool {
			t := strings.ToLower(strings.TrimSpace(l))
			if !strings.HasPrefix(t, lname) {
				return false
			}
			rest := t[len(lname):]
			return rest == "" || strings.ContainsAny(rest[:1], "=<>~!;[ ")
		})
	case "yarn.lock", "pnpm-lock.yaml":
		return first(func(l string) bool {
			t := strings.TrimLeft(l, " \"'/")
			return strings.HasPrefix(t, name+"@")
		})
	}
	if version != "" {
		if n := first(func(l string) bool { return strings.Contains(l, name) && strings.Contains(l, version) }); n > 0 {
			return n
		}
	}
	if n := first(func(l string) bool { return strings.Contains(l, quoted) }); n > 0 {
		return n
	}
	return first(func(l string) bool { return wrapHasToken(l, name) })
}

func wrapHasToken(line, tok string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], tok)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(tok)
		before := s == 0 || !wrapIsNameByte(line[s-1])
		after := e == len(line) || !wrapIsNameByte(line[e])
		if before && after {
			return true
		}
		i = s + 1
	}
}

func wrapIsNameByte(b byte) bool {
	return b == '-' || b == '_' || b == '.' || b == '/' || b == '@' ||
		(b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// wrapCap keeps the wrapMaxFindings most severe findings, stable within a
// severity so the tool's own order survives.
func wrapCap(fs []finding.Finding) ([]finding.Finding, bool) {
	if len(fs) <= wrapMaxFindings {
		return fs, false
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Severity.Rank() > fs[j].Severity.Rank() })
	return fs[:wrapMaxFindings], true
}

// wrapFinish applies the cap and logs when it bit.
func (w *wrapCLI) finish(fs []finding.Finding) []finding.Finding {
	return wrapFinishLog(w.cfg, w.spec.name, fs)
}

func wrapFinishLog(cfg scan.Config, tool string, fs []finding.Finding) []finding.Finding {
	total := len(fs)
	fs, capped := wrapCap(fs)
	if capped && cfg.Logger != nil {
		cfg.Logger.Warn("wrapped scanner reported too many findings; kept the most severe",
			"scanner", tool, "reported", total, "kept", len(fs))
	}
	if fs == nil {
		fs = []finding.Finding{}
	}
	return fs
}

// wrapCWE turns a tool's weakness id ("79", "CWE-79", 79) into finding.CWE;
// zero, negative and unparsable ids mean none.
func wrapCWE(id string) finding.CWE {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(strings.ToUpper(id), "CWE-")
	n, err := strconv.Atoi(id)
	if err != nil || n <= 0 {
		return ""
	}
	return finding.CWE("CWE-" + strconv.Itoa(n))
}

// wrapTrimJSON skips anything a tool printed before its JSON document (a
// banner, a warning on stdout), so a stray line does not fail the scan.
func wrapTrimJSON(out []byte) []byte {
	out = bytes.TrimSpace(out)
	if i := bytes.IndexAny(out, "{["); i > 0 {
		return out[i:]
	}
	return out
}

// wrapFindFiles lists files under root whose base name is one of names,
// skipping directories no project owns (VCS metadata, vendored and
// installed dependencies).
func wrapFindFiles(root string, names ...string) []string {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var found []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".hg", ".svn", "node_modules", "vendor", "testdata":
				if p != root {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if want[d.Name()] {
			found = append(found, p)
		}
		return nil
	})
	sort.Strings(found)
	return found
}
