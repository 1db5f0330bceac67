package baseline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ---- sshd ----------------------------------------------------------------

// baselineSSHSetting is where a keyword got its (first, effective) value.
type baselineSSHSetting struct {
	value string
	file  string
	line  int
}

const baselineSSHDConfig = "etc/ssh/sshd_config"

func baselineProbeSSHD(ctx context.Context, r *baselineReport) {
	data, ok := r.read(baselineSSHDConfig)
	if !ok {
		return
	}
	settings := map[string]baselineSSHSetting{}
	baselineSSHDParse(ctx, r, baselineSSHDConfig, data, settings, 0)

	get := func(kw string) (baselineSSHSetting, bool) {
		st, ok := settings[kw]
		return st, ok
	}
	meta := func(kw string, st baselineSSHSetting, set bool) map[string]any {
		m := map[string]any{"setting": kw}
		if set {
			m["value"] = st.value
		} else {
			m["value"] = nil
			m["default"] = true
		}
		return m
	}

	if st, ok := get("permitrootlogin"); ok {
		switch strings.ToLower(st.value) {
		case "yes":
			r.add("BL101", st.file, st.line, "PermitRootLogin is yes.", "PermitRootLogin yes", meta("PermitRootLogin", st, true))
		case "prohibit-password", "without-password", "forced-commands-only":
			r.add("BL102", st.file, st.line, fmt.Sprintf("PermitRootLogin is %s.", st.value), "PermitRootLogin "+strings.ToLower(st.value), meta("PermitRootLogin", st, true))
		}
	} else {
		r.add("BL102", baselineSSHDConfig, 0, "PermitRootLogin is not set; OpenSSH's default is prohibit-password.", "PermitRootLogin (default)", meta("PermitRootLogin", st, false))
	}
	if st, ok := get("passwordauthentication"); !ok {
		r.add("BL103", baselineSSHDConfig, 0, "PasswordAuthentication is not set; OpenSSH's default is yes.", "PasswordAuthentication (default)", meta("PasswordAuthentication", st, false))
	} else if strings.EqualFold(st.value, "yes") {
		r.add("BL103", st.file, st.line, "PasswordAuthentication is yes.", "PasswordAuthentication yes", meta("PasswordAuthentication", st, true))
	}
	if st, ok := get("permitemptypasswords"); ok && strings.EqualFold(st.value, "yes") {
		r.add("BL104", st.file, st.line, "PermitEmptyPasswords is yes.", "PermitEmptyPasswords yes", meta("PermitEmptyPasswords", st, true))
	}
	if st, ok := get("protocol"); ok {
		for _, p := range strings.Split(st.value, ",") {
			if strings.TrimSpace(p) == "1" {
				r.add("BL105", st.file, st.line, fmt.Sprintf("Protocol is %s.", st.value), "Protocol "+st.value, meta("Protocol", st, true))
				break
			}
		}
	}
	if st, ok := get("x11forwarding"); ok && strings.EqualFold(st.value, "yes") {
		r.add("BL106", st.file, st.line, "X11Forwarding is yes.", "X11Forwarding yes", meta("X11Forwarding", st, true))
	}
	if st, ok := get("maxauthtries"); !ok {
		r.add("BL107", baselineSSHDConfig, 0, "MaxAuthTries is not set; OpenSSH's default is 6.", "MaxAuthTries (default)", meta("MaxAuthTries", st, false))
	} else if n, err := strconv.Atoi(st.value); err == nil && n > 4 {
		r.add("BL107", st.file, st.line, fmt.Sprintf("MaxAuthTries is %d.", n), "MaxAuthTries "+st.value, meta("MaxAuthTries", st, true))
	}
	for _, alg := range []struct {
		kw, name, rule string
		weak           func(string) bool
	}{
		{"ciphers", "Ciphers", "BL108", baselineWeakSSHCipher},
		{"macs", "MACs", "BL109", baselineWeakSSHMAC},
		{"kexalgorithms", "KexAlgorithms", "BL110", baselineWeakSSHKex},
	} {
		st, ok := get(alg.kw)
		if !ok || strings.HasPrefix(st.value, "-") {
			// Unset means OpenSSH's defaults, which are sound; a "-" list
			// only removes algorithms.
			continue
		}
		var weak []string
		for _, a := range strings.Split(strings.TrimLeft(st.value, "+^"), ",") {
			if a = strings.TrimSpace(a); a != "" && alg.weak(strings.ToLower(a)) {
				weak = append(weak, a)
			}
		}
		if len(weak) > 0 {
			m := meta(alg.name, st, true)
			m["weak"] = weak
			r.add(alg.rule, st.file, st.line, fmt.Sprintf("%s enables %s.", alg.name, strings.Join(weak, ", ")), alg.name+" "+strings.Join(weak, ","), m)
		}
	}
}

// baselineSSHDParse records the first value of every keyword of the
// global section, expanding Include directives in place as sshd does.
func baselineSSHDParse(ctx context.Context, r *baselineReport, rel string, data []byte, settings map[string]baselineSSHSetting, depth int) {
	for i, raw := range baselineLines(data) {
		if ctx.Err() != nil {
			return
		}
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kw, rest := baselineSSHSplit(line)
		switch kw {
		case "match":
			// Everything after Match is conditional; sshd's global values
			// are those before it.
			return
		case "include":
			if depth >= 16 {
				continue
			}
			for _, pat := range strings.Fields(rest) {
				relPat := baselineJoinRel("etc/ssh", strings.Trim(pat, `"`))
				matches, err := fs.Glob(r.env.fsys.FS(), relPat)
				if err != nil {
					continue
				}
				sort.Strings(matches)
				for _, m := range matches {
					if inc, ok := r.read(m); ok {
						baselineSSHDParse(ctx, r, m, inc, settings, depth+1)
					}
				}
			}
			continue
		}
		if _, done := settings[kw]; !done {
			settings[kw] = baselineSSHSetting{value: strings.Trim(rest, `"`), file: rel, line: i + 1}
		}
	}
}

// baselineSSHSplit splits "Keyword value" or "Keyword=value".
func baselineSSHSplit(line string) (string, string) {
	end := strings.IndexAny(line, " \t=")
	if end < 0 {
		return strings.ToLower(line), ""
	}
	rest := strings.TrimLeft(line[end:], " \t")
	rest = strings.TrimPrefix(rest, "=")
	return strings.ToLower(line[:end]), strings.TrimSpace(rest)
}

func baselineWeakSSHCipher(c string) bool {
	return strings.HasSuffix(c, "-cbc") || strings.Contains(c, "-cbc@") || strings.HasPrefix(c, "arcfour") ||
		strings.HasPrefix(c, "3des") || strings.HasPrefix(c, "blowfish") || strings.HasPrefix(c, "cast128")
}

func baselineWeakSSHMAC(m string) bool {
	m = strings.TrimSuffix(m, "@openssh.com")
	m = strings.TrimSuffix(m, "-etm")
	switch m {
	case "hmac-md5", "hmac-md5-96", "hmac-sha1", "hmac-sha1-96", "umac-64", "hmac-ripemd160":
		return true
	}
	return false
}

func baselineWeakSSHKex(k string) bool {
	switch k {
	case "diffie-hellman-group1-sha1", "diffie-hellman-group14-sha1", "diffie-hellman-group-exchange-sha1", "rsa1024-sha1", "gss-group1-sha1-", "gss-gex-sha1-", "gss-group14-sha1-":
		return true
	}
	return false
}

// ---- accounts ------------------------------------------------------------

func baselineProbeAccounts(ctx context.Context, r *baselineReport) {
	for _, f := range []struct {
		rel    string
		hashes bool
	}{{"etc/passwd", false}, {"etc/group", false}, {"etc/shadow", true}, {"etc/gshadow", true}} {
		info, ok := r.stat(f.rel)
		if !ok || info.Mode()&fs.ModeSymlink != 0 {
			continue
		}
		perm := info.Mode().Perm()
		meta := map[string]any{"mode": fmt.Sprintf("%04o", perm)}
		switch {
		case perm&0o002 != 0:
			r.add("BL201", f.rel, 0, fmt.Sprintf("%s has mode %04o.", f.rel, perm), f.rel+" writable by others", meta)
		case perm&0o020 != 0:
			r.add("BL202", f.rel, 0, fmt.Sprintf("%s has mode %04o.", f.rel, perm), f.rel+" writable by group", meta)
		}
		if f.hashes && perm&0o004 != 0 {
			r.add("BL203", f.rel, 0, fmt.Sprintf("%s has mode %04o.", f.rel, perm), f.rel+" readable by others", meta)
		}
		if uid, _, ok := baselineOwner(info); ok && r.env.owner && uid != 0 {
			r.add("BL204", f.rel, 0, fmt.Sprintf("%s is owned by uid %d.", f.rel, uid), f.rel+" not owned by root",
				map[string]any{"uid": uid})
		}
	}
	if data, ok := r.read("etc/passwd"); ok {
		for i, line := range baselineLines(data) {
			fields := strings.Split(line, ":")
			if len(fields) < 4 || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") {
				continue
			}
			user := fields[0]
			if fields[2] == "0" && user != "root" {
				r.add("BL206", "etc/passwd", i+1, fmt.Sprintf("Account %q has UID 0.", user), user+":x:0", map[string]any{"account": user})
			}
			if fields[1] == "" {
				r.add("BL205", "etc/passwd", i+1, fmt.Sprintf("Account %q has an empty password field in /etc/passwd.", user), user+":<empty>", map[string]any{"account": user})
			}
		}
	}
	if data, ok := r.read("etc/shadow"); ok {
		for i, line := range baselineLines(data) {
			fields := strings.Split(line, ":")
			if len(fields) < 2 || strings.HasPrefix(line, "#") {
				continue
			}
			if fields[1] == "" {
				r.add("BL205", "etc/shadow", i+1, fmt.Sprintf("Account %q has an empty password hash in /etc/shadow.", fields[0]), fields[0]+":<empty>", map[string]any{"account": fields[0]})
			}
		}
	}
}

// ---- sudoers -------------------------------------------------------------

// baselineSudoAdmins are the principals expected to hold full sudo.
var baselineSudoAdmins = map[string]bool{"root": true, "%sudo": true, "%wheel": true, "%admin": true}

func baselineProbeSudoers(ctx context.Context, r *baselineReport) {
	baselineSudoersFile(ctx, r, "etc/sudoers", map[string]bool{}, 0)
}

func baselineSudoersFile(ctx context.Context, r *baselineReport, rel string, visited map[string]bool, depth int) {
	if visited[rel] || depth > 8 || ctx.Err() != nil {
		return
	}
	visited[rel] = true
	if info, ok := r.stat(rel); ok && info.Mode()&fs.ModeSymlink == 0 {
		perm := info.Mode().Perm()
		uid, _, hasOwner := baselineOwner(info)
		switch {
		case perm&0o022 != 0:
			r.add("BL305", rel, 0, fmt.Sprintf("%s has mode %04o.", rel, perm), rel+" writable by non-root", map[string]any{"mode": fmt.Sprintf("%04o", perm)})
		case hasOwner && r.env.owner && uid != 0:
			r.add("BL305", rel, 0, fmt.Sprintf("%s is owned by uid %d.", rel, uid), rel+" writable by non-root", map[string]any{"uid": uid})
		}
	}
	data, ok := r.read(rel)
	if !ok {
		return
	}
	lines := baselineLines(data)
	for i := 0; i < len(lines); i++ {
		start := i
		entry := strings.TrimSpace(lines[i])
		for strings.HasSuffix(entry, `\`) && i+1 < len(lines) {
			i++
			entry = strings.TrimSuffix(entry, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if entry == "" {
			continue
		}
		fields := strings.Fields(entry)
		switch fields[0] {
		case "#includedir", "@includedir":
			if len(fields) < 2 {
				continue
			}
			dir := baselineJoinRel(path.Dir(rel), fields[1])
			entries, err := r.env.fsys.ReadDir(dir)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					r.unreadable(dir, err)
				}
				continue
			}
			for _, e := range entries {
				// sudo skips names with a dot or ending in ~ (editor
				// backups, package-manager leftovers).
				if e.IsDir() || strings.Contains(e.Name(), ".") || strings.HasSuffix(e.Name(), "~") {
					continue
				}
				baselineSudoersFile(ctx, r, path.Join(dir, e.Name()), visited, depth+1)
			}
			continue
		case "#include", "@include":
			if len(fields) >= 2 {
				baselineSudoersFile(ctx, r, baselineJoinRel(path.Dir(rel), fields[1]), visited, depth+1)
			}
			continue
		}
		if strings.HasPrefix(entry, "#") && !(len(entry) > 1 && entry[1] >= '0' && entry[1] <= '9') {
			continue // a comment; #1000 would be a UID
		}
		line := start + 1
		if strings.HasPrefix(fields[0], "Defaults") {
			for _, opt := range strings.Split(strings.Join(fields[1:], " "), ",") {
				if strings.TrimSpace(opt) == "!authenticate" {
					r.add("BL304", rel, line, fmt.Sprintf("%s disables authentication.", fields[0]), fields[0]+" !authenticate", nil)
				}
			}
			continue
		}
		if strings.HasSuffix(fields[0], "_Alias") {
			continue
		}
		left, right, ok := strings.Cut(entry, "=")
		if !ok {
			continue
		}
		principal := strings.Fields(left)
		if len(principal) == 0 {
			continue
		}
		who := principal[0]
		meta := map[string]any{"principal": who}
		if idx := strings.Index(right, "NOPASSWD:"); idx >= 0 {
			if baselineSudoCommandsHaveAll(right[idx+len("NOPASSWD:"):]) {
				r.add("BL302", rel, line, fmt.Sprintf("%s may run any command as root without a password.", who), who+" NOPASSWD: ALL", meta)
			} else {
				r.add("BL301", rel, line, fmt.Sprintf("%s may run commands as another user without a password.", who), who+" NOPASSWD", meta)
			}
			continue
		}
		if baselineSudoAdmins[who] {
			continue
		}
		runas := ""
		spec := strings.TrimSpace(right)
		if strings.HasPrefix(spec, "(") {
			if end := strings.IndexByte(spec, ')'); end > 0 {
				runas, spec = spec[1:end], spec[end+1:]
			}
		}
		if (runas == "" || strings.Contains(runas, "ALL") || strings.Contains(runas, "root")) && baselineSudoCommandsHaveAll(spec) {
			r.add("BL303", rel, line, fmt.Sprintf("%s is granted every command as root directly.", who), who+" (ALL) ALL", meta)
		}
	}
}

// baselineSudoCommandsHaveAll reports whether a command list (after any
// tags) contains the ALL command.
func baselineSudoCommandsHaveAll(cmds string) bool {
	for _, c := range strings.Split(cmds, ",") {
		c = strings.TrimSpace(c)
		// Strip leading tags such as SETENV: or PASSWD:.
		for {
			i := strings.IndexByte(c, ':')
			if i <= 0 || strings.ContainsAny(c[:i], " /") {
				break
			}
			c = strings.TrimSpace(c[i+1:])
		}
		if c == "ALL" {
			return true
		}
	}
	return false
}

// ---- kernel parameters ---------------------------------------------------

// baselineSysctl is one kernel parameter check.
type baselineSysctl struct {
	rule string
	key  string // path under /proc/sys
	want string // the safe value, for the description
	bad  func(int) bool
}

var baselineSysctls = []baselineSysctl{
	{"BL401", "net/ipv4/ip_forward", "0", func(v int) bool { return v != 0 }},
	{"BL402", "net/ipv4/conf/all/accept_redirects", "0", func(v int) bool { return v != 0 }},
	{"BL402", "net/ipv4/conf/default/accept_redirects", "0", func(v int) bool { return v != 0 }},
	{"BL402", "net/ipv6/conf/all/accept_redirects", "0", func(v int) bool { return v != 0 }},
	{"BL402", "net/ipv6/conf/default/accept_redirects", "0", func(v int) bool { return v != 0 }},
	{"BL403", "net/ipv4/conf/all/send_redirects", "0", func(v int) bool { return v != 0 }},
	{"BL403", "net/ipv4/conf/default/send_redirects", "0", func(v int) bool { return v != 0 }},
	{"BL404", "net/ipv4/conf/all/accept_source_route", "0", func(v int) bool { return v != 0 }},
	{"BL404", "net/ipv4/conf/default/accept_source_route", "0", func(v int) bool { return v != 0 }},
	{"BL404", "net/ipv6/conf/all/accept_source_route", "0", func(v int) bool { return v > 0 }},
	{"BL404", "net/ipv6/conf/default/accept_source_route", "0", func(v int) bool { return v > 0 }},
	{"BL405", "net/ipv4/conf/all/rp_filter", "1", func(v int) bool { return v == 0 }},
	{"BL405", "net/ipv4/conf/default/rp_filter", "1", func(v int) bool { return v == 0 }},
	{"BL406", "net/ipv4/tcp_syncookies", "1", func(v int) bool { return v == 0 }},
	{"BL407", "kernel/randomize_va_space", "2", func(v int) bool { return v != 2 }},
	{"BL408", "kernel/kptr_restrict", "1", func(v int) bool { return v == 0 }},
	{"BL409", "kernel/dmesg_restrict", "1", func(v int) bool { return v == 0 }},
	{"BL410", "fs/protected_symlinks", "1", func(v int) bool { return v == 0 }},
	{"BL410", "fs/protected_hardlinks", "1", func(v int) bool { return v == 0 }},
	{"BL411", "fs/suid_dumpable", "0", func(v int) bool { return v != 0 }},
}

// procRead reads a file under the proc root; rel is relative to it.
func (r *baselineReport) procRead(rel string) ([]byte, bool) {
	data, err := r.env.s.readFile(r.env.proc, rel)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			r.seen = true
			r.unreadable("proc/"+rel, err)
		}
		return nil, false
	}
	r.seen = true
	return data, true
}

func baselineProbeKernel(ctx context.Context, r *baselineReport) {
	for _, k := range baselineSysctls {
		if ctx.Err() != nil {
			return
		}
		data, ok := r.procRead("sys/" + k.key)
		if !ok {
			continue
		}
		v, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || !k.bad(v) {
			continue
		}
		name := strings.ReplaceAll(k.key, "/", ".")
		r.add(k.rule, "proc/sys/"+k.key, 1, fmt.Sprintf("%s is %d (want %s).", name, v, k.want), fmt.Sprintf("%s = %d", name, v),
			map[string]any{"parameter": name, "value": v, "expected": k.want})
	}
}

// ---- world-writable files ------------------------------------------------

// baselineWalkRoots are the system directories the world-writable walk
// covers.
var baselineWalkRoots = []string{"etc", "bin", "sbin", "usr/bin", "usr/sbin", "usr/lib", "usr/local/bin", "usr/local/sbin"}

// baselineDedicated reports whether rel has a dedicated permission rule,
// so BL501 does not report it a second time.
func baselineDedicated(rel string) bool {
	switch rel {
	case "etc/passwd", "etc/group", "etc/shadow", "etc/gshadow", "etc/crontab", "etc/sudoers":
		return true
	}
	return strings.HasPrefix(rel, "etc/cron.") || strings.HasPrefix(rel, "etc/sudoers.d/")
}

func (s *baselineScanner) baselineProbeWorldWritable(ctx context.Context, r *baselineReport) {
	// Stop the walk before the probe's own deadline so its partial
	// results are kept instead of abandoned.
	walkCtx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		walkCtx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)*8/10))
		defer cancel()
	}
	entries, reported, suppressed, unreadableDirs := 0, 0, 0, 0
	stopped := ""
	for _, root := range baselineWalkRoots {
		if stopped != "" {
			break
		}
		info, err := r.env.fsys.Lstat(root)
		if err != nil || !info.IsDir() {
			// Missing, or a merged-/usr symlink walked through its target.
			continue
		}
		r.seen = true
		_ = fs.WalkDir(r.env.fsys.FS(), root, func(rel string, d fs.DirEntry, err error) error {
			if err != nil {
				unreadableDirs++
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			entries++
			if entries > s.walkEntries {
				stopped = fmt.Sprintf("the entry limit (%d)", s.walkEntries)
				return fs.SkipAll
			}
			if entries%256 == 0 && walkCtx.Err() != nil {
				stopped = "the time limit"
				return fs.SkipAll
			}
			t := d.Type()
			if !t.IsRegular() && !t.IsDir() {
				return nil // symlinks are always 0777; devices and sockets are not content
			}
			fi, err := d.Info()
			if err != nil || fi.Mode().Perm()&0o002 == 0 {
				return nil
			}
			if d.IsDir() && fi.Mode()&fs.ModeSticky != 0 {
				return nil // sticky: users cannot remove each other's files (like /tmp)
			}
			if baselineDedicated(rel) {
				return nil
			}
			if reported >= baselineMaxWalkFindings {
				suppressed++
				return nil
			}
			reported++
			kind := "file"
			if d.IsDir() {
				kind = "directory"
			}
			r.add("BL501", rel, 0, fmt.Sprintf("The %s %s has mode %04o.", kind, rel, fi.Mode().Perm()), rel+" writable by others",
				map[string]any{"mode": fmt.Sprintf("%04o", fi.Mode().Perm()), "kind": kind})
			return nil
		})
	}
	var notes []string
	if stopped != "" {
		notes = append(notes, fmt.Sprintf("the walk stopped at %s after %d entries", stopped, entries))
	}
	if suppressed > 0 {
		notes = append(notes, fmt.Sprintf("%d more world-writable entries were not reported individually (limit %d)", suppressed, baselineMaxWalkFindings))
	}
	if unreadableDirs > 0 {
		notes = append(notes, fmt.Sprintf("%d entries could not be read", unreadableDirs))
	}
	if len(notes) > 0 {
		r.add("BL003", "", 0, "World-writable walk: "+strings.Join(notes, "; ")+".", "world-writable walk incomplete",
			map[string]any{"probe": "world-writable", "entries": entries, "suppressed": suppressed, "unreadable": unreadableDirs})
	}
}

// ---- listening sockets ---------------------------------------------------

// baselineRiskyPort is a service that should not listen on every
// interface.
type baselineRiskyPort struct {
	rule    string
	service string
	udp     bool // also risky over UDP
}

var baselineRiskyPorts = map[int]baselineRiskyPort{
	21:    {"BL601", "FTP", false},
	23:    {"BL601", "telnet", false},
	512:   {"BL601", "rexec", false},
	513:   {"BL601", "rlogin", false},
	514:   {"BL601", "rsh", false},
	445:   {"BL602", "SMB", false},
	3389:  {"BL602", "RDP", true},
	3306:  {"BL602", "MySQL", false},
	5432:  {"BL602", "PostgreSQL", false},
	6379:  {"BL602", "Redis", false},
	27017: {"BL602", "MongoDB", false},
	9200:  {"BL602", "Elasticsearch", false},
	11211: {"BL602", "memcached", true},
	2375:  {"BL602", "Docker API (no TLS)", false},
}

func baselineProbeSockets(ctx context.Context, r *baselineReport) {
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		data, ok := r.procRead("net/" + table)
		if !ok {
			continue
		}
		udp := strings.HasPrefix(table, "udp")
		listenState := "0A" // TCP_LISTEN
		if udp {
			listenState = "07" // an unconnected UDP socket receives from anyone
		}
		reported := map[int]bool{}
		for i, line := range baselineLines(data) {
			if i == 0 {
				continue // header
			}
			fields := strings.Fields(line)
			if len(fields) < 4 || fields[3] != listenState {
				continue
			}
			addr, portHex, ok := strings.Cut(fields[1], ":")
			if !ok || strings.Trim(addr, "0") != "" {
				continue // not a wildcard address
			}
			port64, err := strconv.ParseUint(portHex, 16, 16)
			if err != nil {
				continue
			}
			port := int(port64)
			risk, ok := baselineRiskyPorts[port]
			if !ok || (udp && !risk.udp) || reported[port] {
				continue
			}
			reported[port] = true
			bind := "0.0.0.0"
			if strings.HasSuffix(table, "6") {
				bind = "[::]"
			}
			proto := strings.TrimSuffix(table, "6")
			r.add(risk.rule, "proc/net/"+table, i+1, fmt.Sprintf("%s (%s/%d) listens on %s:%d, every interface.", risk.service, proto, port, bind, port),
				fmt.Sprintf("%s %s:%d listening", table, bind, port),
				map[string]any{"port": port, "protocol": proto, "service": risk.service, "address": bind})
		}
	}
}

// ---- cron ----------------------------------------------------------------

func baselineProbeCron(ctx context.Context, r *baselineReport) {
	check := func(rel string, info fs.FileInfo) {
		if info.Mode()&fs.ModeSymlink != 0 {
			return
		}
		perm := info.Mode().Perm()
		if perm&0o022 != 0 {
			who := "group"
			if perm&0o002 != 0 {
				who = "others"
			}
			r.add("BL701", rel, 0, fmt.Sprintf("%s has mode %04o (writable by %s).", rel, perm, who), rel+" writable by non-root",
				map[string]any{"mode": fmt.Sprintf("%04o", perm)})
		}
		if uid, _, ok := baselineOwner(info); ok && r.env.owner && uid != 0 {
			r.add("BL702", rel, 0, fmt.Sprintf("%s is owned by uid %d.", rel, uid), rel+" not owned by root", map[string]any{"uid": uid})
		}
	}
	for _, rel := range []string{"etc/crontab", "etc/cron.d", "etc/cron.hourly", "etc/cron.daily", "etc/cron.weekly", "etc/cron.monthly"} {
		if ctx.Err() != nil {
			return
		}
		info, ok := r.stat(rel)
		if !ok {
			continue
		}
		check(rel, info)
		if !info.IsDir() {
			continue
		}
		entries, err := r.env.fsys.ReadDir(rel)
		if err != nil {
			r.unreadable(rel, err)
			continue
		}
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				check(rel+"/"+e.Name(), fi)
			}
		}
	}
}

// ---- login.defs ----------------------------------------------------------

func baselineProbeLoginDefs(ctx context.Context, r *baselineReport) {
	const rel = "etc/login.defs"
	data, ok := r.read(rel)
	if !ok {
		return
	}
	for i, line := range baselineLines(data) {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		key, value := fields[0], fields[1]
		meta := map[string]any{"setting": key, "value": value}
		snippet := key + " " + value
		switch key {
		case "PASS_MAX_DAYS":
			if n, err := strconv.Atoi(value); err == nil && (n > 365 || n < 0) {
				r.add("BL801", rel, i+1, fmt.Sprintf("PASS_MAX_DAYS is %d.", n), snippet, meta)
			}
		case "PASS_MIN_LEN":
			if n, err := strconv.Atoi(value); err == nil && n < 8 {
				r.add("BL802", rel, i+1, fmt.Sprintf("PASS_MIN_LEN is %d.", n), snippet, meta)
			}
		case "UMASK":
			if n, err := strconv.ParseUint(value, 8, 32); err == nil && n&0o027 != 0o027 {
				r.add("BL803", rel, i+1, fmt.Sprintf("UMASK is %s (want 027 or stricter).", value), snippet, meta)
			}
		}
	}
}
