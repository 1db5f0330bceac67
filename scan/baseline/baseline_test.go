package baseline

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
)

const baselineTestdata = "../../testdata/baseline"

// baselineFixtureModes are the modes and owners the fixtures stand for;
// git keeps neither, so they are applied to a copy at test time.
var baselineFixtureModes = map[string]map[string]fs.FileMode{
	"insecure": {
		"etc/passwd":                         0o666,
		"etc/group":                          0o664,
		"etc/shadow":                         0o644,
		"etc/gshadow":                        0o604,
		"etc/sudoers":                        0o440,
		"etc/sudoers.d/ci":                   0o666,
		"etc/crontab":                        0o666,
		"etc/cron.d":                         0o777,
		"etc/cron.d/backup":                  0o664,
		"etc/cron.daily":                     0o755,
		"etc/cron.daily/logrotate":           0o755,
		"etc/app/world.conf":                 0o666,
		"etc/shared":                         0o777,
		"etc/sticky":                         0o777 | fs.ModeSticky,
		"usr/bin/tool":                       0o777,
		"etc/ssh/sshd_config":                0o644,
		"etc/sudoers.d/old.conf":             0o440,
		"etc/ssh/sshd_config.d":              0o755,
		"etc/login.defs":                     0o644,
		"etc/sudoers.d":                      0o755,
		"etc/ssh/sshd_config.d/10-root.conf": 0o644,
	},
	"hardened": {
		"etc/passwd":               0o644,
		"etc/group":                0o644,
		"etc/shadow":               0o640,
		"etc/gshadow":              0o640,
		"etc/sudoers":              0o440,
		"etc/sudoers.d/ops":        0o440,
		"etc/crontab":              0o600,
		"etc/cron.d":               0o700,
		"etc/cron.d/backup":        0o644,
		"etc/cron.daily":           0o700,
		"etc/cron.daily/logrotate": 0o755,
		"etc/sticky":               0o777 | fs.ModeSticky,
		"usr/bin/tool":             0o755,
	},
}

// baselineFixtureOwners are files chowned to an unprivileged uid.
var baselineFixtureOwners = map[string][]string{
	"insecure": {"etc/gshadow", "etc/cron.daily/logrotate"},
}

// baselineCopyImage copies testdata/baseline/images/<name> into a temp dir
// with the fixture's modes and owners. ownersApplied is false when the test
// does not run as root and cannot chown.
func baselineCopyImage(t *testing.T, name string) (root string, ownersApplied bool) {
	t.Helper()
	src := filepath.Join(baselineTestdata, "images", name)
	root = t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, mode := range baselineFixtureModes[name] {
		if err := os.Chmod(filepath.Join(root, rel), mode); err != nil {
			t.Fatal(err)
		}
	}
	ownersApplied = true
	for _, rel := range baselineFixtureOwners[name] {
		if err := os.Lchown(filepath.Join(root, rel), 1000, 1000); err != nil {
			ownersApplied = false
		}
	}
	return root, ownersApplied
}

// baselineHostScanner is a scanner whose "/" is a fixture tree.
func baselineHostScanner(root, proc string) *baselineScanner {
	s := New(scan.Config{}).(*baselineScanner)
	s.hostRoot = root
	s.procRoot = proc
	return s
}

func baselineRun(t *testing.T, s *baselineScanner, target string) []finding.Finding {
	t.Helper()
	got, err := s.Scan(context.Background(), scan.Target{Path: target})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return got
}

type baselineLoc struct {
	fixture string
	file    string
	line    int
}

// TestBaselineRules checks every rule's exact locations, severity and CWE
// against the insecure fixtures (host mode, with a fixture /proc) and its
// absence from the hardened ones.
func TestBaselineRules(t *testing.T) {
	insecureRoot, owners := baselineCopyImage(t, "insecure")
	hardenedRoot, _ := baselineCopyImage(t, "hardened")
	defaultsRoot, _ := baselineCopyImage(t, "sshdefaults")
	absProc := func(name string) string {
		p, err := filepath.Abs(filepath.Join(baselineTestdata, "proc", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	got := map[string][]finding.Finding{}
	got["insecure"] = baselineRun(t, baselineHostScanner(insecureRoot, absProc("insecure")), "/")
	got["sshdefaults"] = baselineRun(t, New(scan.Config{}).(*baselineScanner), defaultsRoot)
	hardened := baselineRun(t, baselineHostScanner(hardenedRoot, absProc("hardened")), "/")

	const sshd, dropin = "etc/ssh/sshd_config", "etc/ssh/sshd_config.d/10-root.conf"
	ins := func(file string, line int) baselineLoc { return baselineLoc{"insecure", file, line} }
	cases := []struct {
		rule string
		sev  finding.Severity
		cwe  finding.CWE
		want []baselineLoc
	}{
		{"BL101", finding.High, "CWE-250", []baselineLoc{ins(dropin, 2)}},
		{"BL102", finding.Low, "CWE-250", []baselineLoc{{"sshdefaults", sshd, 2}}},
		{"BL103", finding.Medium, "CWE-309", []baselineLoc{ins(dropin, 3), {"sshdefaults", sshd, 0}}},
		{"BL104", finding.High, "CWE-258", []baselineLoc{ins(sshd, 6)}},
		{"BL105", finding.High, "CWE-327", []baselineLoc{ins(sshd, 4)}},
		{"BL106", finding.Low, "CWE-16", []baselineLoc{ins(sshd, 7)}},
		{"BL107", finding.Low, "CWE-307", []baselineLoc{ins(sshd, 8), {"sshdefaults", sshd, 0}}},
		{"BL108", finding.Medium, "CWE-327", []baselineLoc{ins(sshd, 9)}},
		{"BL109", finding.Medium, "CWE-327", []baselineLoc{ins(sshd, 10)}},
		{"BL110", finding.Medium, "CWE-327", []baselineLoc{ins(sshd, 11)}},
		{"BL201", finding.Critical, "CWE-732", []baselineLoc{ins("etc/passwd", 0)}},
		{"BL202", finding.High, "CWE-732", []baselineLoc{ins("etc/group", 0)}},
		{"BL203", finding.High, "CWE-732", []baselineLoc{ins("etc/gshadow", 0), ins("etc/shadow", 0)}},
		{"BL204", finding.High, "CWE-732", []baselineLoc{ins("etc/gshadow", 0)}},
		{"BL205", finding.High, "CWE-258", []baselineLoc{ins("etc/passwd", 4), ins("etc/shadow", 5)}},
		{"BL206", finding.High, "CWE-269", []baselineLoc{ins("etc/passwd", 3)}},
		{"BL301", finding.Medium, "CWE-269", []baselineLoc{ins("etc/sudoers.d/ci", 2)}},
		{"BL302", finding.High, "CWE-269", []baselineLoc{ins("etc/sudoers.d/ci", 4)}},
		{"BL303", finding.Low, "CWE-269", []baselineLoc{ins("etc/sudoers", 5)}},
		{"BL304", finding.High, "CWE-306", []baselineLoc{ins("etc/sudoers", 2)}},
		{"BL305", finding.High, "CWE-732", []baselineLoc{ins("etc/sudoers.d/ci", 0)}},
		{"BL401", finding.Low, "CWE-16", []baselineLoc{ins("proc/sys/net/ipv4/ip_forward", 1)}},
		{"BL402", finding.Medium, "CWE-16", []baselineLoc{ins("proc/sys/net/ipv4/conf/all/accept_redirects", 1)}},
		{"BL403", finding.Low, "CWE-16", []baselineLoc{ins("proc/sys/net/ipv4/conf/all/send_redirects", 1)}},
		{"BL404", finding.Medium, "CWE-16", []baselineLoc{ins("proc/sys/net/ipv4/conf/all/accept_source_route", 1)}},
		{"BL405", finding.Low, "CWE-16", []baselineLoc{ins("proc/sys/net/ipv4/conf/all/rp_filter", 1)}},
		{"BL406", finding.Medium, "CWE-400", []baselineLoc{ins("proc/sys/net/ipv4/tcp_syncookies", 1)}},
		{"BL407", finding.Medium, "CWE-16", []baselineLoc{ins("proc/sys/kernel/randomize_va_space", 1)}},
		{"BL408", finding.Low, "CWE-200", []baselineLoc{ins("proc/sys/kernel/kptr_restrict", 1)}},
		{"BL409", finding.Low, "CWE-200", []baselineLoc{ins("proc/sys/kernel/dmesg_restrict", 1)}},
		{"BL410", finding.Medium, "CWE-59", []baselineLoc{ins("proc/sys/fs/protected_symlinks", 1)}},
		{"BL411", finding.Low, "CWE-200", []baselineLoc{ins("proc/sys/fs/suid_dumpable", 1)}},
		{"BL501", finding.High, "CWE-732", []baselineLoc{ins("etc/app/world.conf", 0), ins("etc/shared", 0), ins("usr/bin/tool", 0)}},
		{"BL601", finding.High, "CWE-319", []baselineLoc{ins("proc/net/tcp", 2)}},
		{"BL602", finding.Medium, "CWE-1327", []baselineLoc{ins("proc/net/tcp", 4), ins("proc/net/tcp6", 2), ins("proc/net/udp", 2)}},
		{"BL701", finding.High, "CWE-732", []baselineLoc{ins("etc/cron.d", 0), ins("etc/cron.d/backup", 0), ins("etc/crontab", 0)}},
		{"BL702", finding.High, "CWE-732", []baselineLoc{ins("etc/cron.daily/logrotate", 0)}},
		{"BL801", finding.Low, "CWE-262", []baselineLoc{ins("etc/login.defs", 2)}},
		{"BL802", finding.Low, "CWE-521", []baselineLoc{ins("etc/login.defs", 4)}},
		{"BL803", finding.Low, "CWE-276", []baselineLoc{ins("etc/login.defs", 5)}},
	}
	covered := map[string]bool{"BL001": true, "BL002": true, "BL003": true} // own tests below
	for _, c := range cases {
		covered[c.rule] = true
		t.Run(c.rule, func(t *testing.T) {
			if (c.rule == "BL204" || c.rule == "BL702") && !owners {
				t.Skip("not root: cannot chown the fixture")
			}
			var locs []baselineLoc
			for _, fixture := range []string{"insecure", "sshdefaults"} {
				for _, f := range got[fixture] {
					if f.RuleID != c.rule {
						continue
					}
					locs = append(locs, baselineLoc{fixture, f.FilePath, f.Line})
					if f.Severity != c.sev || f.CWE != c.cwe {
						t.Errorf("%s:%d severity/cwe = %s/%s, want %s/%s", f.FilePath, f.Line, f.Severity, f.CWE, c.sev, c.cwe)
					}
					if f.Scanner != "baseline" || f.ScanType != scan.TypeBaseline || f.Title == "" || f.Description == "" || f.Snippet == "" || f.Metadata["rule_name"] == nil {
						t.Errorf("incomplete finding %+v", f)
					}
				}
			}
			sort.Slice(locs, func(i, j int) bool { return fmt.Sprint(locs[i]) < fmt.Sprint(locs[j]) })
			if !reflect.DeepEqual(locs, c.want) {
				t.Errorf("locations = %v\nwant        %v", locs, c.want)
			}
		})
	}
	for _, r := range baselineRules.Rules {
		if !covered[r.ID] {
			t.Errorf("rule %s has no test case", r.ID)
		}
	}
	// The hardened fixtures are the negative case of every rule at once.
	for _, f := range hardened {
		t.Errorf("hardened: unexpected %s %s:%d: %s", f.RuleID, f.FilePath, f.Line, f.Description)
	}
}

// TestBaselineImageMode checks that a non-/ target gets the file checks
// with target-relative paths and no /proc probes.
func TestBaselineImageMode(t *testing.T) {
	root, _ := baselineCopyImage(t, "insecure")
	s := New(scan.Config{}).(*baselineScanner)
	// Point /proc at the insecure fixture: image mode must not read it.
	s.procRoot, _ = filepath.Abs(filepath.Join(baselineTestdata, "proc", "insecure"))
	got := baselineRun(t, s, root)
	var rules []string
	for _, f := range got {
		if strings.HasPrefix(f.RuleID, "BL4") || strings.HasPrefix(f.RuleID, "BL6") || strings.HasPrefix(f.FilePath, "proc/") {
			t.Errorf("image mode ran a host probe: %s %s", f.RuleID, f.FilePath)
		}
		if strings.HasPrefix(f.FilePath, "/") || strings.Contains(f.FilePath, root) {
			t.Errorf("file path not relative: %q", f.FilePath)
		}
		rules = append(rules, f.RuleID)
	}
	if !strings.Contains(strings.Join(rules, ","), "BL201") {
		t.Errorf("image mode missed file checks: %v", rules)
	}
}

// TestBaselineImageOwnership: an image unpacked by an unprivileged user has
// every file owned by that user; ownership must not be reported then.
func TestBaselineImageOwnership(t *testing.T) {
	root, owners := baselineCopyImage(t, "insecure")
	if !owners {
		t.Skip("not root: cannot chown")
	}
	check := func(wantOwner bool) {
		t.Helper()
		n := 0
		for _, f := range baselineRun(t, New(scan.Config{}).(*baselineScanner), root) {
			if f.RuleID == "BL204" || f.RuleID == "BL702" {
				n++
			}
		}
		if (n > 0) != wantOwner {
			t.Errorf("ownership findings = %d, want any: %v", n, wantOwner)
		}
	}
	check(true)
	if err := os.Chown(root, 1000, 1000); err != nil {
		t.Fatal(err)
	}
	check(false)
}

func TestBaselineNothingToAudit(t *testing.T) {
	root, _ := baselineCopyImage(t, "empty")
	got := baselineRun(t, New(scan.Config{}).(*baselineScanner), root)
	if len(got) != 1 {
		t.Fatalf("want exactly one finding, got %d: %+v", len(got), got)
	}
	f := got[0]
	if f.RuleID != "BL001" || f.Severity != finding.Info || f.CWE != "" || f.FilePath != "etc" || f.Line != 0 ||
		!strings.Contains(f.Description, "etc/ssh/sshd_config") {
		t.Errorf("scope finding = %+v", f)
	}
	// A populated target never gets BL001.
	hardened, _ := baselineCopyImage(t, "hardened")
	for _, f := range baselineRun(t, New(scan.Config{}).(*baselineScanner), hardened) {
		if f.RuleID == "BL001" {
			t.Error("BL001 on a populated target")
		}
	}
}

// TestBaselineUnreadable: a file that cannot be read is reported, not
// silently passed. Root reads everything, so the permission error is
// injected; a real chmod 000 is exercised when not running as root.
func TestBaselineUnreadable(t *testing.T) {
	root, _ := baselineCopyImage(t, "insecure")
	s := New(scan.Config{}).(*baselineScanner)
	shadow := filepath.Join(root, "etc", "shadow")
	s.readFile = func(fsys baselineFS, rel string) ([]byte, error) {
		if rel == "etc/shadow" {
			return nil, &fs.PathError{Op: "open", Path: rel, Err: fs.ErrPermission}
		}
		return fsys.ReadFile(rel)
	}
	got := baselineRun(t, s, root)
	var unreadable []finding.Finding
	for _, f := range got {
		if f.RuleID == "BL002" {
			unreadable = append(unreadable, f)
		}
		if f.RuleID == "BL205" && f.FilePath == "etc/shadow" {
			t.Error("shadow entries evaluated although unreadable")
		}
	}
	if len(unreadable) != 1 || unreadable[0].FilePath != "etc/shadow" || unreadable[0].Severity != finding.Info ||
		!strings.Contains(unreadable[0].Description, "permission denied") || strings.Contains(unreadable[0].Description, root) {
		t.Errorf("BL002 = %+v", unreadable)
	}

	if os.Geteuid() != 0 {
		if err := os.Chmod(shadow, 0); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range baselineRun(t, New(scan.Config{}).(*baselineScanner), root) {
			if f.RuleID == "BL002" && f.FilePath == "etc/shadow" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("real chmod 000: BL002 count = %d", n)
		}
	}
}

// TestBaselineBounds: a probe that overruns its deadline is abandoned with
// BL003, and the world-writable walk stops at its entry cap and says so.
func TestBaselineBounds(t *testing.T) {
	root, _ := baselineCopyImage(t, "insecure")
	s := New(scan.Config{}).(*baselineScanner)
	s.probeTimeout = 20 * time.Millisecond
	release := make(chan struct{})
	defer close(release)
	s.readFile = func(fsys baselineFS, rel string) ([]byte, error) {
		if rel == "etc/login.defs" {
			<-release // a hung read (a stuck network filesystem)
		}
		return fsys.ReadFile(rel)
	}
	start := time.Now()
	got := baselineRun(t, s, root)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("scan took %s despite the probe timeout", d)
	}
	timedOut := false
	for _, f := range got {
		if f.RuleID == "BL003" && f.Metadata["probe"] == "login.defs" {
			timedOut = true
		}
		if f.RuleID == "BL801" {
			t.Error("abandoned probe's findings leaked into the result")
		}
	}
	if !timedOut {
		t.Error("no BL003 for the hung probe")
	}

	s = New(scan.Config{}).(*baselineScanner)
	s.walkEntries = 3
	capped := false
	for _, f := range baselineRun(t, s, root) {
		if f.RuleID == "BL003" && strings.Contains(f.Description, "entry limit") {
			capped = true
		}
	}
	if !capped {
		t.Error("walk cap not reported")
	}
	// Within bounds, no BL003 at all.
	for _, f := range baselineRun(t, New(scan.Config{}).(*baselineScanner), root) {
		if f.RuleID == "BL003" {
			t.Errorf("unexpected BL003: %s", f.Description)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(scan.Config{}).Scan(ctx, scan.Target{Path: root}); err == nil {
		t.Error("cancelled scan: want error")
	}
}

// TestBaselineImageSymlinkEscape: an image is untrusted; a symlink in it
// pointing outside (etc/passwd -> /some/host/file) must not be followed,
// or the host's accounts would be reported as the image's.
func TestBaselineImageSymlinkEscape(t *testing.T) {
	root, _ := baselineCopyImage(t, "hardened")
	outside := filepath.Join(t.TempDir(), "host-passwd")
	if err := os.WriteFile(outside, []byte("root:x:0:0::/root:/bin/sh\ntoor:x:0:0::/root:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	passwd := filepath.Join(root, "etc", "passwd")
	if err := os.Remove(passwd); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, passwd); err != nil {
		t.Fatal(err)
	}
	unreadable := 0
	for _, f := range baselineRun(t, New(scan.Config{}).(*baselineScanner), root) {
		if f.RuleID == "BL206" {
			t.Errorf("read through the escaping symlink: %s", f.Description)
		}
		if f.RuleID == "BL002" && f.FilePath == "etc/passwd" {
			unreadable++
		}
	}
	if unreadable != 1 {
		t.Errorf("escaping symlink must be reported unreadable once, got %d", unreadable)
	}
}

func TestBaselineScannerContract(t *testing.T) {
	s := New(scan.Config{})
	if s.Name() != "baseline" || s.Type() != scan.TypeBaseline {
		t.Errorf("name/type = %s/%s", s.Name(), s.Type())
	}
	if v, _, ok := s.Available(context.Background()); !ok || v != "builtin" {
		t.Errorf("available = %s %v", v, ok)
	}
	if _, err := s.Scan(context.Background(), scan.Target{Path: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("missing target: want error")
	}
}

func TestBaselineSSHHelpers(t *testing.T) {
	weak := map[string]bool{"aes128-cbc": true, "3des-cbc": true, "arcfour256": true, "aes256-ctr": false, "chacha20-poly1305@openssh.com": false}
	for c, want := range weak {
		if baselineWeakSSHCipher(c) != want {
			t.Errorf("cipher %s weak = %v", c, !want)
		}
	}
	macs := map[string]bool{"hmac-sha1": true, "hmac-sha1-etm@openssh.com": true, "umac-64@openssh.com": true, "hmac-sha2-256": false, "umac-128-etm@openssh.com": false}
	for m, want := range macs {
		if baselineWeakSSHMAC(m) != want {
			t.Errorf("mac %s weak = %v", m, !want)
		}
	}
	for _, c := range []struct{ in, kw, rest string }{
		{"PermitRootLogin yes", "permitrootlogin", "yes"},
		{"MaxAuthTries=3", "maxauthtries", "3"},
		{"Ciphers\t aes256-ctr", "ciphers", "aes256-ctr"},
	} {
		if kw, rest := baselineSSHSplit(c.in); kw != c.kw || rest != c.rest {
			t.Errorf("split %q = %q %q", c.in, kw, rest)
		}
	}
	if got := baselineJoinRel("etc/ssh", "../../../../x"); got != "x" {
		t.Errorf("join escapes root: %q", got)
	}
}
