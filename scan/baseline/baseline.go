// Package baseline is the built-in `baseline` scanner (scan type baseline):
// a configuration audit of the host, when the target is "/", or of a root
// filesystem image (sshd, accounts, sudoers, kernel parameters,
// world-writable files, listening sockets, cron, login.defs). Its rule
// table is the comment below; probes.go holds the probes.
package baseline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/rules"
)

// The baseline scanner (scan type baseline) audits a host's or a root
// filesystem image's security configuration.
//
// Target "/": the host. Every file check below runs against the host's
// /etc, and the host-only probes read /proc (kernel parameters under
// /proc/sys, listening sockets from /proc/net/{tcp,tcp6,udp,udp6}).
// Any other target: a root filesystem image (an extracted container image,
// a chroot, a mounted disk). The same file checks run under <target>/etc,
// nothing is read from /proc, and file ownership is checked only when the
// target directory itself is owned by root (an image unpacked by an
// unprivileged user has every file owned by that user, which says nothing
// about the image). A target holding none of the audited files yields one
// info finding (BL001) that says what was looked for.
//
// Paths and lines: file_path is relative to the target, so a host scan
// reports etc/ssh/sshd_config and proc/sys/net/ipv4/ip_forward. line is the
// 1-based line of the offending setting or entry; findings about a whole
// file (its mode or owner) or about a setting that is absent and falls back
// to an unsafe default use line 0.
//
// Images are untrusted input: they are read through os.Root, so a symlink
// in the image that points outside it (etc/passwd -> /etc/passwd, or
// ../../) is not followed into the scanning host; the file is reported as
// unreadable (BL002) instead. The host (target "/") is read normally.
//
// Bounds: each probe runs under its own 10 s deadline; a probe that does not
// finish reports BL003 and the scan goes on. The world-writable walk stops
// after 200 000 entries or 80% of its deadline, whichever comes first, and
// says so (BL003). A file that exists but cannot be read is reported (BL002)
// instead of silently passing.
//
// Rules (rule_id, metadata.rule_name, severity, CWE):
//
//	BL001 nothing-to-audit                 info     -         none of the audited files exist under the target
//	BL002 unreadable                       info     -         an audited file exists but could not be read
//	BL003 probe-incomplete                 info     -         a probe timed out or a walk hit its bound
//	BL101 ssh-root-login                   high     CWE-250   PermitRootLogin yes
//	BL102 ssh-root-login-key-only          low      CWE-250   PermitRootLogin prohibit-password/without-password/forced-commands-only, or unset (that default)
//	BL103 ssh-password-authentication      medium   CWE-309   PasswordAuthentication yes, or unset (default yes)
//	BL104 ssh-permit-empty-passwords       high     CWE-258   PermitEmptyPasswords yes
//	BL105 ssh-protocol-1                   high     CWE-327   Protocol 1 (or 2,1)
//	BL106 ssh-x11-forwarding               low      CWE-16    X11Forwarding yes
//	BL107 ssh-max-auth-tries               low      CWE-307   MaxAuthTries above 4, or unset (default 6)
//	BL108 ssh-weak-ciphers                 medium   CWE-327   CBC, 3DES, arcfour, blowfish, cast128 ciphers
//	BL109 ssh-weak-macs                    medium   CWE-327   MD5, SHA-1, RIPEMD-160, 64-bit UMAC MACs
//	BL110 ssh-weak-kex                     medium   CWE-327   SHA-1 Diffie-Hellman key exchanges
//	BL201 account-file-world-writable      critical CWE-732   passwd/group/shadow/gshadow writable by others
//	BL202 account-file-group-writable      high     CWE-732   passwd/group/shadow/gshadow writable by group
//	BL203 shadow-readable-by-others        high     CWE-732   shadow/gshadow readable by others
//	BL204 account-file-not-root-owned      high     CWE-732   passwd/group/shadow/gshadow not owned by uid 0
//	BL205 empty-password                   high     CWE-258   account with an empty password field (shadow or passwd)
//	BL206 extra-uid-zero                   high     CWE-269   account other than root with UID 0
//	BL301 sudo-nopasswd                    medium   CWE-269   NOPASSWD for specific commands
//	BL302 sudo-nopasswd-all                high     CWE-269   NOPASSWD: ALL
//	BL303 sudo-full-access-non-admin       low      CWE-269   (ALL) ALL granted to a principal other than root, %sudo, %wheel, %admin
//	BL304 sudo-authenticate-disabled       high     CWE-306   Defaults !authenticate
//	BL305 sudoers-file-permissions         high     CWE-732   sudoers or sudoers.d file writable by group/others or not root-owned
//	BL401 ip-forwarding-enabled            low      CWE-16    net.ipv4.ip_forward = 1
//	BL402 icmp-redirects-accepted          medium   CWE-16    net.ipv{4,6}.conf.{all,default}.accept_redirects = 1
//	BL403 icmp-redirects-sent              low      CWE-16    net.ipv4.conf.{all,default}.send_redirects = 1
//	BL404 source-routing-accepted          medium   CWE-16    net.ipv{4,6}.conf.{all,default}.accept_source_route = 1
//	BL405 reverse-path-filter-disabled     low      CWE-16    net.ipv4.conf.{all,default}.rp_filter = 0
//	BL406 syn-cookies-disabled             medium   CWE-400   net.ipv4.tcp_syncookies = 0
//	BL407 aslr-weakened                    medium   CWE-16    kernel.randomize_va_space != 2
//	BL408 kernel-pointers-exposed          low      CWE-200   kernel.kptr_restrict = 0
//	BL409 dmesg-unrestricted               low      CWE-200   kernel.dmesg_restrict = 0
//	BL410 link-protection-disabled         medium   CWE-59    fs.protected_symlinks / fs.protected_hardlinks = 0
//	BL411 suid-core-dumps                  low      CWE-200   fs.suid_dumpable != 0
//	BL501 world-writable-system-file       high     CWE-732   o+w file or non-sticky directory under /etc, /bin, /sbin, /usr/bin, /usr/sbin, /usr/lib, /usr/local/{bin,sbin}
//	BL601 cleartext-service-listening      high     CWE-319   wildcard listener on telnet 23, ftp 21, rexec/rlogin/rsh 512-514
//	BL602 exposed-service-listening        medium   CWE-1327  wildcard listener on SMB 445, RDP 3389, MySQL 3306, PostgreSQL 5432, Redis 6379, MongoDB 27017, Elasticsearch 9200, memcached 11211, Docker 2375
//	BL701 cron-writable                    high     CWE-732   /etc/crontab, /etc/cron.* or a file in them writable by group or others
//	BL702 cron-not-root-owned              high     CWE-732   the same, not owned by uid 0
//	BL801 password-max-age                 low      CWE-262   login.defs PASS_MAX_DAYS above 365
//	BL802 password-min-length              low      CWE-521   login.defs PASS_MIN_LEN below 8 (when set)
//	BL803 permissive-umask                 low      CWE-276   login.defs UMASK less strict than 027
//
// sshd_config is read the way sshd reads it: Include directives (globs,
// relative to /etc/ssh) are expanded in place, and the first value of a
// keyword wins, so a drop-in included at the top overrides the main file.
// Settings inside Match blocks are conditional and are not evaluated.
// sudoers follows @include/#include and @includedir/#includedir, skipping
// drop-in names that contain a dot or end in ~ as sudo does.
// BL001-BL003 have no CWE (they describe the scan, not a weakness).

// baselineRules is the rule table; read-only.
var baselineRules = rules.Table{Scanner: "baseline", ScanType: scan.TypeBaseline, Rules: []rules.Rule{
	rules.New("BL001", "nothing-to-audit", finding.Info, "", "No host configuration files found to audit",
		"Point the baseline scan at a root filesystem (a directory containing etc/), or at / for the host itself."),
	rules.New("BL002", "unreadable", finding.Info, "", "Configuration file could not be read",
		"Run the scan with enough privileges to read this file (e.g. as root or with CAP_DAC_READ_SEARCH); until then its checks did not run."),
	rules.New("BL003", "probe-incomplete", finding.Info, "", "Baseline probe did not complete",
		"Results for this probe are partial; re-run the scan, or audit this area by hand if it keeps happening."),
	rules.New("BL101", "ssh-root-login", finding.High, "CWE-250", "SSH allows root login with a password",
		"Set `PermitRootLogin no` in sshd_config (or a drop-in read before the main file) and log in as an unprivileged user, escalating with sudo."),
	rules.New("BL102", "ssh-root-login-key-only", finding.Low, "CWE-250", "SSH allows root login with keys",
		"Set `PermitRootLogin no`; direct root logins are not attributable to a person. Use an unprivileged account and sudo."),
	rules.New("BL103", "ssh-password-authentication", finding.Medium, "CWE-309", "SSH accepts password authentication",
		"Set `PasswordAuthentication no` (and `KbdInteractiveAuthentication no`) and use keys or certificates; passwords can be guessed and phished."),
	rules.New("BL104", "ssh-permit-empty-passwords", finding.High, "CWE-258", "SSH accepts empty passwords",
		"Set `PermitEmptyPasswords no`."),
	rules.New("BL105", "ssh-protocol-1", finding.High, "CWE-327", "SSH protocol 1 enabled",
		"Remove the Protocol line (modern OpenSSH only speaks protocol 2) or set `Protocol 2`; protocol 1 is cryptographically broken."),
	rules.New("BL106", "ssh-x11-forwarding", finding.Low, "CWE-16", "SSH X11 forwarding enabled",
		"Set `X11Forwarding no` unless users need remote X11; a forwarded display lets the server side read keystrokes of the client's X session."),
	rules.New("BL107", "ssh-max-auth-tries", finding.Low, "CWE-307", "SSH allows many authentication attempts per connection",
		"Set `MaxAuthTries 4` or lower to slow down password and key guessing."),
	rules.New("BL108", "ssh-weak-ciphers", finding.Medium, "CWE-327", "SSH offers weak ciphers",
		"Remove CBC-mode, 3DES, arcfour, blowfish and cast128 ciphers; e.g. `Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com,aes128-gcm@openssh.com,aes256-ctr,aes192-ctr,aes128-ctr`."),
	rules.New("BL109", "ssh-weak-macs", finding.Medium, "CWE-327", "SSH offers weak MACs",
		"Remove MD5, SHA-1, RIPEMD-160 and 64-bit UMAC MACs; e.g. `MACs hmac-sha2-512-etm@openssh.com,hmac-sha2-256-etm@openssh.com,umac-128-etm@openssh.com`."),
	rules.New("BL110", "ssh-weak-kex", finding.Medium, "CWE-327", "SSH offers weak key exchange algorithms",
		"Remove SHA-1 Diffie-Hellman groups; e.g. `KexAlgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256,diffie-hellman-group16-sha512,diffie-hellman-group18-sha512`."),
	rules.New("BL201", "account-file-world-writable", finding.Critical, "CWE-732", "Account database writable by any user",
		"Any local user can add a UID 0 account or change password hashes. Restore the mode: `chmod 644 /etc/passwd /etc/group; chmod 640 /etc/shadow /etc/gshadow` (root:shadow), and investigate how it changed."),
	rules.New("BL202", "account-file-group-writable", finding.High, "CWE-732", "Account database writable by its group",
		"Remove group write: `chmod g-w <file>` (passwd/group 644, shadow/gshadow 640 or 600)."),
	rules.New("BL203", "shadow-readable-by-others", finding.High, "CWE-732", "Password hashes readable by any user",
		"Any local user can copy the hashes for offline cracking. Run `chmod 640 <file>` with owner root and group root or shadow."),
	rules.New("BL204", "account-file-not-root-owned", finding.High, "CWE-732", "Account database not owned by root",
		"The owner can rewrite accounts and password hashes. Run `chown root <file>`."),
	rules.New("BL205", "empty-password", finding.High, "CWE-258", "Account with an empty password",
		"Anyone can log in as this account wherever password login is allowed. Lock it (`passwd -l <user>`) or set a password."),
	rules.New("BL206", "extra-uid-zero", finding.High, "CWE-269", "Account other than root has UID 0",
		"A second UID 0 account is full root under another name, a classic backdoor. Remove it or give it its own UID; use sudo for delegated administration."),
	rules.New("BL301", "sudo-nopasswd", finding.Medium, "CWE-269", "sudo rule without password (NOPASSWD)",
		"Anyone who gets a shell as this user can run these commands as root without knowing a password. Remove NOPASSWD, or limit it to commands that cannot be used to escalate (no editors, shells, interpreters or wildcards)."),
	rules.New("BL302", "sudo-nopasswd-all", finding.High, "CWE-269", "Passwordless sudo to every command",
		"`NOPASSWD: ALL` makes the account equivalent to root for anyone who compromises it. Require the password, or list only the specific commands needed."),
	rules.New("BL303", "sudo-full-access-non-admin", finding.Low, "CWE-269", "Full sudo granted directly to a user or group",
		"Grant full root through one admin group (%sudo, %wheel or %admin) so access is reviewed in one place, and give other principals only the commands they need."),
	rules.New("BL304", "sudo-authenticate-disabled", finding.High, "CWE-306", "sudo authentication disabled",
		"`Defaults !authenticate` turns every sudo rule it covers into NOPASSWD. Remove it."),
	rules.New("BL305", "sudoers-file-permissions", finding.High, "CWE-732", "sudoers file writable by non-root",
		"Whoever can write this file can grant themselves root. Run `chown root:root <file>; chmod 440 <file>`."),
	rules.New("BL401", "ip-forwarding-enabled", finding.Low, "CWE-16", "IP forwarding enabled",
		"Set `net.ipv4.ip_forward = 0` in /etc/sysctl.d/ unless this host is a router or runs containers that need it."),
	rules.New("BL402", "icmp-redirects-accepted", finding.Medium, "CWE-16", "ICMP redirects accepted",
		"Set accept_redirects = 0 for all and default (IPv4 and IPv6) in /etc/sysctl.d/; a forged redirect can reroute traffic through an attacker."),
	rules.New("BL403", "icmp-redirects-sent", finding.Low, "CWE-16", "ICMP redirects sent",
		"Set `net.ipv4.conf.all.send_redirects = 0` and `net.ipv4.conf.default.send_redirects = 0` unless this host is a router."),
	rules.New("BL404", "source-routing-accepted", finding.Medium, "CWE-16", "Source-routed packets accepted",
		"Set accept_source_route = 0 for all and default (IPv4 and IPv6); source routing lets a sender pick a path around filters."),
	rules.New("BL405", "reverse-path-filter-disabled", finding.Low, "CWE-16", "Reverse path filtering disabled",
		"Set rp_filter = 1 (strict) or 2 (loose) for all and default, so packets with spoofed source addresses are dropped."),
	rules.New("BL406", "syn-cookies-disabled", finding.Medium, "CWE-400", "TCP SYN cookies disabled",
		"Set `net.ipv4.tcp_syncookies = 1` so a SYN flood cannot exhaust the connection backlog."),
	rules.New("BL407", "aslr-weakened", finding.Medium, "CWE-16", "Address space layout randomization weakened",
		"Set `kernel.randomize_va_space = 2`; without full ASLR memory-corruption exploits are much easier."),
	rules.New("BL408", "kernel-pointers-exposed", finding.Low, "CWE-200", "Kernel pointers exposed",
		"Set `kernel.kptr_restrict = 1` (or 2) so kernel addresses do not leak to unprivileged users and help defeat KASLR."),
	rules.New("BL409", "dmesg-unrestricted", finding.Low, "CWE-200", "Kernel log readable by unprivileged users",
		"Set `kernel.dmesg_restrict = 1`; the kernel log leaks addresses and hardware details."),
	rules.New("BL410", "link-protection-disabled", finding.Medium, "CWE-59", "Symlink or hardlink protection disabled",
		"Set `fs.protected_symlinks = 1` and `fs.protected_hardlinks = 1`; without them, links in world-writable directories enable privilege-escalation races."),
	rules.New("BL411", "suid-core-dumps", finding.Low, "CWE-200", "Core dumps of setuid programs allowed",
		"Set `fs.suid_dumpable = 0`; a core dump of a privileged process can expose secrets from its memory."),
	rules.New("BL501", "world-writable-system-file", finding.High, "CWE-732", "World-writable file in a system directory",
		"Any local user can replace or modify it, and root runs or reads it. Remove the write bit for others (`chmod o-w <path>`) and check the file's integrity against the package manager (`dpkg --verify`, `rpm -V`)."),
	rules.New("BL601", "cleartext-service-listening", finding.High, "CWE-319", "Cleartext remote-login service listening on all interfaces",
		"Telnet, FTP and the r-services send credentials in clear text. Stop and disable the service and use SSH/SFTP instead."),
	rules.New("BL602", "exposed-service-listening", finding.Medium, "CWE-1327", "Sensitive service listening on all interfaces",
		"Bind the service to 127.0.0.1 or a private interface, and restrict access with a firewall; databases, caches, SMB, RDP and the Docker API should not face every network."),
	rules.New("BL701", "cron-writable", finding.High, "CWE-732", "cron configuration writable by non-root",
		"Whoever can write cron configuration can run commands as root. Run `chmod go-w <path>` (crontab 600, cron directories 700 per CIS)."),
	rules.New("BL702", "cron-not-root-owned", finding.High, "CWE-732", "cron configuration not owned by root",
		"The owner can schedule commands as root. Run `chown root:root <path>`."),
	rules.New("BL801", "password-max-age", finding.Low, "CWE-262", "Passwords never expire (PASS_MAX_DAYS)",
		"Set PASS_MAX_DAYS to 365 or less in /etc/login.defs (and apply it to existing accounts with `chage --maxdays`), or rely on a documented policy that replaces expiry."),
	rules.New("BL802", "password-min-length", finding.Low, "CWE-521", "Minimum password length below 8 (PASS_MIN_LEN)",
		"Set PASS_MIN_LEN 8 or more, and enforce length with pam_pwquality (minlen), which is what modern PAM stacks use."),
	rules.New("BL803", "permissive-umask", finding.Low, "CWE-276", "Default umask lets other users read new files",
		"Set `UMASK 027` in /etc/login.defs so files created by users are not readable by everyone."),
}}

// Defaults for the probe bounds.
const (
	baselineDefaultProbeTimeout = 10 * time.Second
	baselineDefaultWalkEntries  = 200_000
	baselineMaxWalkFindings     = 200
	baselineMaxFileSize         = 4 << 20
)

type baselineScanner struct {
	scan.Builtin
	cfg scan.Config
	// hostRoot and procRoot are where the host's filesystem and /proc are
	// when the target is "/". Tests point them at fixture trees.
	hostRoot string
	procRoot string
	// probeTimeout bounds each probe; walkEntries bounds the world-writable
	// walk.
	probeTimeout time.Duration
	walkEntries  int
	// readFile reads an audited file (rel is slash-separated, relative to
	// fsys); tests replace it to simulate a permission error, which a test
	// running as root cannot provoke, or a hung read.
	readFile func(fsys baselineFS, rel string) ([]byte, error)
}

// New returns the built-in host configuration auditor.
func New(cfg scan.Config) scan.Scanner {
	return &baselineScanner{
		Builtin:      scan.NewBuiltin("baseline", scan.TypeBaseline),
		cfg:          cfg,
		hostRoot:     "/",
		procRoot:     "/proc",
		probeTimeout: baselineDefaultProbeTimeout,
		walkEntries:  baselineDefaultWalkEntries,
		readFile:     func(fsys baselineFS, rel string) ([]byte, error) { return fsys.ReadFile(rel) },
	}
}

// baselineFS is the target's filesystem as the probes see it, with paths
// relative to the target root.
type baselineFS interface {
	// ReadFile reads at most baselineMaxFileSize bytes: configuration files
	// are small, and a huge file must not exhaust memory.
	ReadFile(rel string) ([]byte, error)
	Lstat(rel string) (fs.FileInfo, error)
	ReadDir(rel string) ([]fs.DirEntry, error)
	// FS serves fs.Glob and fs.WalkDir.
	FS() fs.FS
}

// baselineReadOpened reads at most baselineMaxFileSize bytes of a file
// just opened: configuration files are small, and a huge one must not
// exhaust memory.
func baselineReadOpened(f *os.File, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, baselineMaxFileSize))
}

// baselineDirFS is the host's filesystem (or a fixture standing in for
// it): symlinks are followed wherever they point, as the host's own
// programs would follow them.
type baselineDirFS struct{ dir string }

func (d baselineDirFS) path(rel string) string { return filepath.Join(d.dir, filepath.FromSlash(rel)) }

func (d baselineDirFS) ReadFile(rel string) ([]byte, error) {
	return baselineReadOpened(os.Open(d.path(rel)))
}
func (d baselineDirFS) Lstat(rel string) (fs.FileInfo, error)     { return os.Lstat(d.path(rel)) }
func (d baselineDirFS) ReadDir(rel string) ([]fs.DirEntry, error) { return os.ReadDir(d.path(rel)) }
func (d baselineDirFS) FS() fs.FS                                 { return os.DirFS(d.dir) }

// baselineRootFS is an image's filesystem, opened with os.Root: an image
// is untrusted input, and an absolute or ../ symlink in it (etc/passwd ->
// /etc/passwd) must not make the scan read, and attribute to the image, the
// scanning host's files. Such a link fails to resolve and is reported as
// unreadable.
type baselineRootFS struct{ root *os.Root }

func (r baselineRootFS) ReadFile(rel string) ([]byte, error) {
	return baselineReadOpened(r.root.Open(filepath.FromSlash(rel)))
}
func (r baselineRootFS) Lstat(rel string) (fs.FileInfo, error) {
	return r.root.Lstat(filepath.FromSlash(rel))
}
func (r baselineRootFS) ReadDir(rel string) ([]fs.DirEntry, error) {
	f, err := r.root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
func (r baselineRootFS) FS() fs.FS { return r.root.FS() }

// baselineEnv is what a probe needs to know about the target.
type baselineEnv struct {
	fsys  baselineFS
	proc  baselineFS // nil for images
	owner bool       // whether file ownership means anything
	s     *baselineScanner
}

// baselineReport is one probe's output. Each probe has its own, so a probe
// abandoned at its deadline cannot race with the scan.
type baselineReport struct {
	env      *baselineEnv
	findings []finding.Finding
	// seen is set when the probe found anything to audit.
	seen bool
}

func (r *baselineReport) add(id, file string, line int, detail, snippet string, meta map[string]any) {
	if snippet == "" {
		snippet = file
	}
	r.findings = append(r.findings, baselineRules.Finding(id, file, line, detail, snippet, meta))
}

// read returns a target file's content. ok is false when the file does
// not exist or could not be read; the latter is reported as BL002.
func (r *baselineReport) read(rel string) ([]byte, bool) {
	data, err := r.env.s.readFile(r.env.fsys, rel)
	if !r.reached(rel, err) {
		return nil, false
	}
	return data, true
}

// reached notes that the probe found something to audit at rel, and
// reports a failure other than not-exist as BL002.
func (r *baselineReport) reached(rel string, err error) bool {
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.seen = true
			r.unreadable(rel, err)
		}
		return false
	}
	r.seen = true
	return true
}

func (r *baselineReport) unreadable(rel string, err error) {
	reason := "it could not be read"
	if errors.Is(err, fs.ErrPermission) {
		reason = "permission denied"
	}
	r.add("BL002", rel, 0, fmt.Sprintf("%s exists but %s (%v), so its checks did not run.", rel, reason, baselineErrText(err)), rel+" unreadable", nil)
}

// baselineErrText drops the on-disk prefix from an error so a finding
// does not depend on where the target was mounted.
func baselineErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// stat returns the mode, owner and whether the file exists; a stat error
// other than not-exist is reported as BL002.
func (r *baselineReport) stat(rel string) (fs.FileInfo, bool) {
	info, err := r.env.fsys.Lstat(rel)
	if !r.reached(rel, err) {
		return nil, false
	}
	return info, true
}

func baselineOwner(info fs.FileInfo) (uid, gid uint32, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return st.Uid, st.Gid, true
}

// baselineProbe is one area of the audit.
type baselineProbe struct {
	name     string
	hostOnly bool
	run      func(ctx context.Context, r *baselineReport)
}

func (s *baselineScanner) probes() []baselineProbe {
	return []baselineProbe{
		{name: "sshd", run: baselineProbeSSHD},
		{name: "accounts", run: baselineProbeAccounts},
		{name: "sudoers", run: baselineProbeSudoers},
		{name: "kernel", hostOnly: true, run: baselineProbeKernel},
		{name: "world-writable", run: s.baselineProbeWorldWritable},
		{name: "sockets", hostOnly: true, run: baselineProbeSockets},
		{name: "cron", run: baselineProbeCron},
		{name: "login.defs", run: baselineProbeLoginDefs},
	}
}

// Scan audits t.Path: the host when it is "/", otherwise a root
// filesystem image.
func (s *baselineScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	env := &baselineEnv{s: s}
	if t.Path == "/" {
		env.fsys, env.proc, env.owner = baselineDirFS{s.hostRoot}, baselineDirFS{s.procRoot}, true
	} else {
		info, err := os.Stat(t.Path)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("baseline: %s is not a directory", t.Path)
		}
		root, err := os.OpenRoot(t.Path)
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		defer root.Close()
		env.fsys = baselineRootFS{root}
		uid, _, ok := baselineOwner(info)
		env.owner = ok && uid == 0
	}

	var out []finding.Finding
	seen := false
	for _, p := range s.probes() {
		if p.hostOnly && env.proc == nil {
			continue
		}
		rep, err := s.runProbe(ctx, p, env)
		if err != nil {
			return nil, err
		}
		seen = seen || rep.seen
		out = append(out, rep.findings...)
	}
	if !seen {
		r := &baselineReport{env: env}
		looked := "etc/ssh/sshd_config, etc/passwd, etc/shadow, etc/group, etc/gshadow, etc/sudoers, etc/crontab, etc/cron.*, etc/login.defs and the system binary directories"
		r.add("BL001", "etc", 0, fmt.Sprintf("The target has none of the files the baseline audit reads (%s); nothing was audited.", looked), "nothing to audit",
			map[string]any{"looked_for": looked})
		out = r.findings
	}
	slices.SortStableFunc(out, func(a, b finding.Finding) int {
		return cmp.Or(strings.Compare(a.FilePath, b.FilePath), cmp.Compare(a.Line, b.Line), strings.Compare(a.RuleID, b.RuleID))
	})
	if out == nil {
		out = []finding.Finding{}
	}
	return out, nil
}

// runProbe runs one probe under its own deadline. A probe that overruns is
// abandoned (its goroutine finishes on its own into a report nobody reads)
// and replaced by a BL003 finding; only the caller's cancellation fails the
// scan.
func (s *baselineScanner) runProbe(ctx context.Context, p baselineProbe, env *baselineEnv) (*baselineReport, error) {
	pctx, cancel := context.WithTimeout(ctx, s.probeTimeout)
	defer cancel()
	done := make(chan *baselineReport, 1)
	go func() {
		r := &baselineReport{env: env}
		p.run(pctx, r)
		done <- r
	}()
	select {
	case r := <-done:
		return r, nil
	case <-pctx.Done():
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s.cfg.Log().Warn("baseline: probe timed out", "probe", p.name, "timeout", s.probeTimeout)
		r := &baselineReport{env: env, seen: true}
		r.add("BL003", "", 0, fmt.Sprintf("The %s probe did not finish within %s.", p.name, s.probeTimeout), "probe "+p.name+" timed out",
			map[string]any{"probe": p.name})
		return r, nil
	}
}

// baselineLines splits a file into lines without the newline.
func baselineLines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// baselineJoinRel resolves a path written inside a config file (absolute
// on the target, or relative to dir) to a target-relative slash path, never
// escaping the target root.
func baselineJoinRel(dir, p string) string {
	if !path.IsAbs(p) {
		p = path.Join("/", dir, p)
	}
	return strings.TrimPrefix(path.Clean(p), "/")
}
