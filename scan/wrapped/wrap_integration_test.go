package wrapped

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/vulndb"
)

// The TestWrappersIntegration tests run the real tools, offline, on the
// fixture tree testdata/wrappers/tree. `.ci/install-scanners.sh` installs
// them and writes SVC_OSV_DB, SVC_GOVULN_DB, SVC_TRIVY_CACHE,
// SVC_KICS_QUERIES and PATH. In CI (CI=true) a missing tool fails the test
// with the scanner's own hint; elsewhere the test is skipped with it.
//
// Each test logs one line "wrapper-integration tool=… version=… findings=…
// wall=…" for the issue note's table.

func wrapIntegrationScanner(t *testing.T, mk func(scan.Config) scan.Scanner, env map[string]string) (scan.Scanner, string) {
	t.Helper()
	cfg := scan.Config{
		Runner: proc.NewRunner(10 * time.Minute),
		Getenv: func(k string) string {
			if v, ok := env[k]; ok {
				return v
			}
			return os.Getenv(k)
		},
		Now:    time.Now,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	s := mk(cfg)
	v, hint, ok := s.Available(context.Background())
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not available in CI: %s (run .ci/install-scanners.sh and source its environment)", s.Name(), hint)
		}
		t.Skipf("%s is not available here: %s", s.Name(), hint)
	}
	return s, v
}

func wrapIntegrationTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join(wrapTestData, "tree"))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func wrapIntegrationRun(t *testing.T, s scan.Scanner, version string, target scan.Target) []finding.Finding {
	t.Helper()
	start := time.Now()
	fs, err := s.Scan(context.Background(), target)
	if err != nil {
		t.Fatalf("%s: %v", s.Name(), err)
	}
	t.Logf("wrapper-integration tool=%s version=%s findings=%d wall=%s", s.Name(), version, len(fs), time.Since(start).Round(10*time.Millisecond))
	wrapTestCheckFindings(t, s.Name(), s.Type(), fs)
	return fs
}

type wrapExpect struct {
	rule, file string
	line       int
	sev        finding.Severity
}

func wrapIntegrationExpect(t *testing.T, fs []finding.Finding, want []wrapExpect) {
	t.Helper()
	for _, w := range want {
		f := wrapTestFind(fs, w.rule, w.file)
		if f == nil {
			t.Errorf("no %s finding in %s; got %d findings", w.rule, w.file, len(fs))
			continue
		}
		if f.Line != w.line || f.Severity != w.sev {
			t.Errorf("%s in %s: line %d severity %s, want line %d %s", w.rule, w.file, f.Line, f.Severity, w.line, w.sev)
		}
	}
}

func TestWrappersIntegrationBandit(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Bandit, nil)
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: wrapIntegrationTree(t)})
	wrapIntegrationExpect(t, fs, []wrapExpect{
		{"B602", "pyapp/app.py", 8, finding.High},
		{"B404", "pyapp/app.py", 2, finding.Low},
	})
}

func TestWrappersIntegrationGosec(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Gosec, nil)
	// goapp needs golang.org/x/text: without it in the module cache
	// (GOPROXY=off) gosec cannot type-check main.go, and says so as a
	// skipped part naming the file; the findings below need no types.
	fs, err := s.Scan(context.Background(), scan.Target{Path: wrapIntegrationTree(t)})
	var partial *scan.PartialSkip
	if errors.As(err, &partial) {
		if len(partial.Parts) != 1 || partial.Parts[0].Part != "module goapp" || partial.Parts[0].Count != 1 || partial.Parts[0].Paths[0] != "goapp/main.go" {
			t.Fatalf("gosec skipped %+v", partial.Parts)
		}
		t.Logf("gosec could not type-check goapp here (x/text not in the module cache): %v", err)
	} else if err != nil {
		t.Fatalf("gosec: %v", err)
	}
	t.Logf("wrapper-integration tool=gosec version=%s findings=%d", v, len(fs))
	wrapTestCheckFindings(t, s.Name(), s.Type(), fs)
	wrapIntegrationExpect(t, fs, []wrapExpect{
		{"G204", "goapp/main.go", 28, finding.Medium},
		{"G401", "goapp/main.go", 27, finding.Medium},
	})
	if f := wrapTestFind(fs, "G204", "goapp/main.go"); f != nil && f.CWE != "CWE-78" {
		t.Errorf("G204 CWE = %q", f.CWE)
	}
}

func TestWrappersIntegrationOSVScanner(t *testing.T) {
	s, v := wrapIntegrationScanner(t, OSV, nil)
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: wrapIntegrationTree(t)})
	wrapIntegrationExpect(t, fs, []wrapExpect{
		{"GHSA-35jh-r3h4-6jhm", "webapp/package-lock.json", 15, finding.High},
		{"GHSA-xvch-5gv4-984h", "webapp/package-lock.json", 20, finding.Critical},
		{"GO-2022-1059", "goapp/go.mod", 5, finding.Medium},
	})
}

func TestWrappersIntegrationGovulncheck(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Govulncheck, nil)
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: wrapIntegrationTree(t)})
	wrapIntegrationExpect(t, fs, []wrapExpect{
		{"GO-2021-0113", "goapp/go.mod", 5, finding.High},
		{"GO-2022-1059", "goapp/go.mod", 5, finding.High},
	})
	if f := wrapTestFind(fs, "GO-2022-1059", "goapp/go.mod"); f != nil && f.Metadata["reachability"] != "called" {
		t.Errorf("GO-2022-1059 reachability = %v, want called", f.Metadata["reachability"])
	}
}

func TestWrappersIntegrationTrivy(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Trivy, nil)
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: wrapIntegrationTree(t)})
	wrapIntegrationExpect(t, fs, []wrapExpect{
		{"CVE-2021-44906", "webapp/package-lock.json", 20, finding.Critical},
		{"CVE-2021-23337", "webapp/package-lock.json", 15, finding.High},
		{"CVE-2021-38561", "goapp/go.mod", 5, finding.Medium},
	})
}

func TestWrappersIntegrationKics(t *testing.T) {
	s, v := wrapIntegrationScanner(t, Kics, nil)
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: wrapIntegrationTree(t)})
	wrapIntegrationExpect(t, fs, []wrapExpect{
		{"38c5ee0d-7f22-4260-ab72-5073048df100", "infra/main.tf", 3, finding.Critical},          // S3 bucket ACL public-read
		{"dd29336b-fe57-445b-a26e-e6aa867ae609", "infra/k8s/deployment.yaml", 19, finding.High}, // privileged container
		{"fd54f200-402c-4333-a5a4-36ef6709af2f", "Dockerfile", 1, finding.High},                 // no USER instruction
	})
}

// TestWrappersIntegrationNmap scans a loopback listener the test opens,
// which greets like vsftpd: nmap must report an exposed FTP service.
func TestWrappersIntegrationNmap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				_, _ = c.Write([]byte("220 (vsFTPd 3.0.3)\r\n"))
				r := bufio.NewReader(c)
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
					_, _ = c.Write([]byte("530 Please login with USER and PASS.\r\n"))
				}
			}(c)
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	s, v := wrapIntegrationScanner(t, Nmap, map[string]string{"SVC_NMAP_PORTS": strconv.Itoa(port)})
	fs := wrapIntegrationRun(t, s, v, scan.Target{Host: "127.0.0.1"})
	where := fmt.Sprintf("127.0.0.1:%d/tcp", port)
	f := wrapTestFind(fs, "open-port/ftp", where)
	if f == nil {
		t.Fatalf("no open-port/ftp at %s in %+v", where, fs)
	}
	if f.Severity != finding.High || f.CWE != "CWE-319" || f.Metadata["product"] != "vsftpd" {
		t.Errorf("ftp finding = %s %s %v, want high CWE-319 vsftpd", f.Severity, f.CWE, f.Metadata["product"])
	}
}

// The real osv-scanner on the NodeGoat-like fixture, with a requirements.txt
// beside it whose PyPI database is missing: the npm lockfile is still
// checked, the PyPI part is a skipped part, and after Prepare there is one
// finding per (package, installed version, advisory) the tool reported.
func TestWrappersIntegrationOSVNodeGoat(t *testing.T) {
	s, v := wrapIntegrationScanner(t, OSV, nil)
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "projects", "nodegoat"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	wrapTestWriteFile(t, filepath.Join(dir, "scripts", "requirements.txt"), "requests==2.19.0\n")
	start := time.Now()
	fs, err := s.Scan(context.Background(), scan.Target{Path: dir})
	var partial *scan.PartialSkip
	if !errors.As(err, &partial) || len(partial.Parts) != 1 || partial.Parts[0].Part != "PyPI" {
		t.Fatalf("err = %v, want the PyPI part skipped", err)
	}
	t.Logf("wrapper-integration tool=osv-scanner(nodegoat) version=%s findings=%d wall=%s", v, len(fs), time.Since(start).Round(10*time.Millisecond))
	triples := map[string]bool{}
	for _, f := range fs {
		triples[f.Metadata["package"].(string)+"@"+f.Metadata["version"].(string)+" "+f.RuleID] = true
	}
	prepared := finding.Prepare("s", fs, nil, nil)
	if len(triples) != 10 || len(prepared) != len(triples) {
		t.Errorf("%d findings after Prepare for %d (package, version, advisory) triples, want 10", len(prepared), len(triples))
	}
}

// Archives imported with vulndb (as `scand vulndb import` does) are what
// osv-scanner and govulncheck read when their own variables are unset, and
// every scanner reports the data it read with its build date.
func TestWrappersIntegrationImportedVulnDB(t *testing.T) {
	if _, _, ok := OSV(wrapTestConfig(map[string]string{"SVC_OSV_DB": os.Getenv("SVC_OSV_DB")})).Available(context.Background()); !ok && os.Getenv("CI") != "true" {
		t.Skip("osv-scanner is not available here")
	}
	dir := t.TempDir()
	im := vulndb.Importer{Dir: dir}
	for _, z := range []struct{ src, prefix string }{
		{filepath.Join(wrapTestData, "vulndb", "osv", "npm"), ""},
		{filepath.Join(wrapTestData, "vulndb", "govulndb"), ""},
	} {
		p := filepath.Join(t.TempDir(), "archive.zip")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		zw := zip.NewWriter(f)
		err = filepath.WalkDir(z.src, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(z.src, path)
			w, err := zw.Create(filepath.ToSlash(rel))
			if err != nil {
				return err
			}
			b, err := os.ReadFile(path)
			w.Write(b)
			return err
		})
		zw.Close()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := im.Import(context.Background(), vulndb.Archive{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := wrapTestConfig(map[string]string{"PATH": os.Getenv("PATH")})
	cfg.Getenv = func(k string) string {
		switch k {
		case "SVC_OSV_DB", "SVC_GOVULN_DB", "SVC_TRIVY_CACHE":
			return ""
		}
		return os.Getenv(k)
	}
	cfg.VulnDBDir = dir
	s := OSV(cfg)
	if _, hint, ok := s.Available(context.Background()); !ok {
		t.Fatalf("osv-scanner with the imported database: %s", hint)
	}
	// Only npm's OSV zip was imported: go.mod is a skipped part, the npm
	// lockfile's four findings stand.
	fs, err := s.Scan(context.Background(), scan.Target{Path: wrapIntegrationTree(t)})
	var partial *scan.PartialSkip
	if !errors.As(err, &partial) || partial.Parts[0].Part != "Go" || len(fs) != 4 {
		t.Fatalf("osv-scanner on the imported database: %d findings, %v", len(fs), err)
	}
	srcs := s.(scan.DataSourcer).DataSources(context.Background())
	if len(srcs) != 1 || srcs[0].Name != "osv/npm" || srcs[0].Source != "imported" || srcs[0].BuiltAt == nil || srcs[0].ImportedAt == nil {
		t.Errorf("data sources = %+v", srcs)
	}
	g := Govulncheck(cfg)
	if _, hint, ok := g.Available(context.Background()); !ok {
		t.Fatalf("govulncheck with the imported database: %s", hint)
	}
	gs := g.(scan.DataSourcer).DataSources(context.Background())
	if len(gs) != 1 || gs[0].Name != "govulndb" || gs[0].BuiltAt.Format("2006-01-02") != "2024-05-20" {
		t.Errorf("govulncheck data sources = %+v", gs)
	}
}
