package wrapped

// What the parsers share: paths and declaration lines relative to the
// target, CWE ids and severity words, JSON reports, and the finding cap.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"scand/finding"
	"scand/scan"
)

// relPath makes a path a tool reported relative to the scan's target,
// slash-separated, so fingerprints do not depend on the checkout location.
// Relative paths are taken relative to base (the directory the tool ran in).
func relPath(root, base, p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	for _, r := range rootForms(root) {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}

// rootForms lists root as given and with symlinks resolved: some tools
// report real paths, and /tmp is a symlink on some systems.
func rootForms(root string) []string {
	forms := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != forms[0] {
		forms = append(forms, real)
	}
	return forms
}

// lineFinder finds the line of a manifest or lockfile (relative to the
// target) that declares a package; 0 when it cannot tell.
type lineFinder func(relFile, name, version string) int

// declLines returns a finder reading files under root. It remembers each
// file's lines, so many findings in one lockfile read it once.
func declLines(root string) lineFinder {
	cache := map[string][]string{}
	return func(relFile, name, version string) int {
		if relFile == "" || name == "" {
			return 0
		}
		lines, ok := cache[relFile]
		if !ok {
			lines = readLines(filepath.Join(root, filepath.FromSlash(relFile)))
			cache[relFile] = lines
		}
		return findDecl(filepath.Base(relFile), lines, name, version)
	}
}

func readLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(io.LimitReader(f, maxFileRead))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// findDecl knows how the common manifests declare a dependency.
func findDecl(base string, lines []string, name, version string) int {
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
		// lockfileVersion 2/3 key packages by install path; a package
		// installed at several versions has one entry per version
		// (node_modules/mkdirp/node_modules/minimist), so the entry whose
		// version matches is the one, else the shallowest.
		isEntry := func(l string) bool {
			return strings.Contains(l, `"node_modules/`+name+`"`) || strings.Contains(l, `/node_modules/`+name+`"`)
		}
		if version != "" {
			for i, l := range lines {
				if !isEntry(l) {
					continue
				}
				for j := i + 1; j < len(lines) && j <= i+4; j++ {
					if strings.Contains(lines[j], `"version": "`+version+`"`) || strings.Contains(lines[j], `"version":"`+version+`"`) {
						return i + 1
					}
				}
			}
		}
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
	return first(func(l string) bool { return hasToken(l, name) })
}

func hasToken(line, tok string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], tok)
		if j < 0 {
			return false
		}
		s, e := i+j, i+j+len(tok)
		before := s == 0 || !isNameByte(line[s-1])
		after := e == len(line) || !isNameByte(line[e])
		if before && after {
			return true
		}
		i = s + 1
	}
}

func isNameByte(b byte) bool {
	return b == '-' || b == '_' || b == '.' || b == '/' || b == '@' ||
		(b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// capFindings keeps the maxFindings most severe findings, stable within a
// severity so the tool's own order survives.
func capFindings(fs []finding.Finding) ([]finding.Finding, bool) {
	if len(fs) <= maxFindings {
		return fs, false
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Severity.Rank() > fs[j].Severity.Rank() })
	return fs[:maxFindings], true
}

// finish applies the cap, logs when it bit, and never returns nil.
func finish(cfg scan.Config, tool string, fs []finding.Finding) []finding.Finding {
	total := len(fs)
	fs, capped := capFindings(fs)
	if capped && cfg.Logger != nil {
		cfg.Logger.Warn("wrapped scanner reported too many findings; kept the most severe",
			"scanner", tool, "reported", total, "kept", len(fs))
	}
	if fs == nil {
		fs = []finding.Finding{}
	}
	return fs
}

// cweOf turns a tool's weakness id ("79", "CWE-79", 79) into finding.CWE;
// zero, negative and unparsable ids mean none.
func cweOf(id string) finding.CWE {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(strings.ToUpper(id), "CWE-")
	n, err := strconv.Atoi(id)
	if err != nil || n <= 0 {
		return ""
	}
	return finding.CWE("CWE-" + strconv.Itoa(n))
}

// severityOf maps the severity words the tools print (CRITICAL, HIGH,
// MEDIUM, LOW in any case) to a severity; any other word is unknown's.
func severityOf(word string, unknown finding.Severity) finding.Severity {
	switch strings.ToUpper(word) {
	case "CRITICAL":
		return finding.Critical
	case "HIGH":
		return finding.High
	case "MEDIUM":
		return finding.Medium
	case "LOW":
		return finding.Low
	}
	return unknown
}

// decodeJSON reads a tool's JSON report into v. Anything the tool printed
// before the document (a banner, a warning on stdout) is skipped, so a
// stray line does not fail the scan.
func decodeJSON(tool string, out []byte, v any) error {
	out = bytes.TrimSpace(out)
	if i := bytes.IndexAny(out, "{["); i > 0 {
		out = out[i:]
	}
	if len(out) == 0 {
		return fmt.Errorf("%s printed no report", tool)
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("%s report is not valid JSON: %w", tool, err)
	}
	return nil
}
