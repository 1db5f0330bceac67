// Package repo prepares git repository targets: a clone with the git CLI,
// through the one runner, into a fresh directory of scand's private work
// directory, removed when the scan ends.
//
// A repository server and its content are untrusted, and so is anyone who
// can start a scan, so the clone is boxed in:
//   - Only https, ssh and git URLs (protocol.allow=never, then those three),
//     with no credentials in them; no redirects (http.followRedirects=false),
//     so a server cannot send git to another host.
//   - SVC_GIT_ALLOW names the hosts that may be cloned from; a host that
//     resolves to a link-local or cloud-metadata address is always refused
//     (the webhook SSRF guard's classification, injected by main), and for
//     https git is pinned to the addresses that were checked
//     (http.curloptResolve), so DNS cannot change its answer in between.
//   - Nothing of the repository runs: hooks point at /dev/null, the system
//     and global git configuration are ignored (so no filter or fsmonitor
//     command is configured), LFS smudging is off, submodules are fetched
//     only when asked (one level, each URL checked like the main one).
//   - No prompt can hang a scan (GIT_TERMINAL_PROMPT=0, ssh BatchMode).
//   - Credentials come only from SVC_GIT_CREDENTIALS_FILE (git's
//     credential-store format, mode 0600 or refused), through a read-only
//     helper: git can read a credential but never write or erase one, and
//     the credential never appears in a URL, argument, log line or event.
//   - One commit (--depth 1) unless the scan asks for history; a size cap
//     (the directory is measured while git writes) and a time limit.
package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"scand/scan"
	"scand/scan/proc"
	"scand/scan/request"
	"scand/scan/workdir"
)

// Limits bound one clone.
type Limits struct {
	MaxBytes int64
	MaxFiles int
	Timeout  time.Duration
}

// Options configure the repository preparer.
type Options struct {
	Config scan.Config
	Work   *workdir.Dir
	Limits Limits
	// Allow is SVC_GIT_ALLOW; empty allows every host.
	Allow []string
	// RefuseAddress says why an address may never be cloned from ("" when
	// it may); nil refuses nothing.
	RefuseAddress func(netip.Addr) string
	// CredentialsFile is SVC_GIT_CREDENTIALS_FILE; "" clones anonymously.
	CredentialsFile string
	// CAFile is SVC_GIT_CA_FILE: extra CA certificates for https servers.
	CAFile string
	// LookupHost resolves a host name; nil uses the system resolver.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Preparer clones repository targets; it implements scan.TargetPreparer.
type Preparer struct{ o Options }

// New returns the repository preparer.
func New(o Options) *Preparer {
	if o.Limits.MaxBytes <= 0 {
		o.Limits.MaxBytes = 8 << 30
	}
	if o.Limits.MaxFiles <= 0 {
		o.Limits.MaxFiles = 1_000_000
	}
	if o.Limits.Timeout <= 0 {
		o.Limits.Timeout = 10 * time.Minute
	}
	if o.LookupHost == nil {
		o.LookupHost = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return &Preparer{o: o}
}

// CheckCredentialsFile refuses a credentials file others could read or
// replace: it must be a regular file of this user, mode 0600 or stricter,
// and its path usable in git's helper configuration.
func CheckCredentialsFile(p string) error {
	if p == "" {
		return nil
	}
	if !filepath.IsAbs(p) {
		return fmt.Errorf("SVC_GIT_CREDENTIALS_FILE=%s must be an absolute path", p)
	}
	if strings.ContainsAny(p, "'\n\\") {
		return fmt.Errorf("SVC_GIT_CREDENTIALS_FILE=%s holds a quote, backslash or newline", p)
	}
	info, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("SVC_GIT_CREDENTIALS_FILE: %w", err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("SVC_GIT_CREDENTIALS_FILE=%s is not a regular file", p)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("SVC_GIT_CREDENTIALS_FILE=%s has mode %04o; it holds credentials, so it must be 0600 (chmod 600 %s)", p, perm, p)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("SVC_GIT_CREDENTIALS_FILE=%s belongs to uid %d, not to the user scand runs as", p, st.Uid)
	}
	return nil
}

// Prepare clones spec.Repo.
func (p *Preparer) Prepare(ctx context.Context, spec scan.TargetSpec, _ []string) (*scan.Prepared, error) {
	if spec.Repo == nil {
		return nil, errors.New("not a repository target")
	}
	if p.o.Work == nil {
		return nil, errors.New("repository targets need a work directory")
	}
	repo := *spec.Repo
	u, err := request.ParseRepoURL(repo.URL)
	if err != nil {
		return nil, fmt.Errorf("repository URL: %w", err)
	}
	if repo.Ref != "" {
		if err := request.ValidateRepoRef(repo.Ref); err != nil {
			return nil, err
		}
	}
	if err := CheckCredentialsFile(p.o.CredentialsFile); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.Limits.Timeout)
	defer cancel()
	pin, err := p.checkHost(ctx, u)
	if err != nil {
		return nil, err
	}
	target, err := p.o.Work.NewTarget("repo-")
	if err != nil {
		return nil, err
	}
	defer target.Discard()
	commit, err := p.clone(ctx, u, pin, repo, target.Path)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, proc.ErrTimeout) {
			return nil, fmt.Errorf("cloning %s took longer than %s (SVC_TARGET_TIMEOUT)", u.Redacted(), p.o.Limits.Timeout)
		}
		return nil, err
	}
	p.o.Config.Log().Info("repository cloned", "url", u.Redacted(), "ref", repo.Ref, "commit", commit, "history", repo.History)
	target.Keep()
	return &scan.Prepared{
		Root:     target.Path,
		Resolved: scan.Resolved{Repo: &scan.RepoInfo{Commit: commit}},
		Cleanup:  target.Remove,
	}, nil
}

// checkHost applies SVC_GIT_ALLOW, resolves the host and refuses it when
// an address is one the SSRF guard never allows. It returns the
// http.curloptResolve value that pins https to the checked addresses.
func (p *Preparer) checkHost(ctx context.Context, u *url.URL) (string, error) {
	host := u.Hostname()
	if !request.GitHostAllowed(host, p.o.Allow) {
		return "", fmt.Errorf("repository host %s is not in SVC_GIT_ALLOW", host)
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = p.o.LookupHost(ctx, host)
		if err != nil {
			return "", fmt.Errorf("repository host %s: %w", host, err)
		}
		if len(addrs) == 0 {
			return "", fmt.Errorf("repository host %s resolves to no address", host)
		}
	}
	for _, a := range addrs {
		if p.o.RefuseAddress != nil {
			if reason := p.o.RefuseAddress(a); reason != "" {
				return "", fmt.Errorf("repository host %s resolves to %s, a %s; repositories are never cloned from it", host, a.Unmap(), reason)
			}
		}
	}
	if u.Scheme != "https" {
		return "", nil
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	var list []string
	for _, a := range addrs {
		s := a.Unmap().String()
		if a.Unmap().Is6() {
			s = "[" + s + "]"
		}
		list = append(list, s)
	}
	name := host
	if strings.Contains(name, ":") {
		name = "[" + name + "]"
	}
	return name + ":" + port + ":" + strings.Join(list, ","), nil
}

// gitConfig is the -c options every git command of a clone gets.
func (p *Preparer) gitConfig(pins []string) []string {
	cfg := append(proc.GitSafeSettings(),
		"protocol.allow=never",
		"protocol.https.allow=always",
		"protocol.ssh.allow=always",
		"protocol.git.allow=always",
		"http.followRedirects=false",
		"core.sshCommand=ssh -o BatchMode=yes",
		"filter.lfs.smudge=",
		"filter.lfs.process=",
		"filter.lfs.required=false",
		"submodule.recurse=false",
		"credential.helper=",
	)
	if p.o.CredentialsFile != "" {
		// Read-only: only "get" reaches credential-store, so a failed
		// login can never erase the operator's entry, nor a success
		// rewrite the file.
		cfg = append(cfg, `credential.helper=!f() { test "$1" = get && exec git credential-store --file='`+p.o.CredentialsFile+`' get; }; f`)
	}
	if p.o.CAFile != "" {
		cfg = append(cfg, "http.sslCAInfo="+p.o.CAFile)
	}
	for _, pin := range pins {
		if pin != "" {
			cfg = append(cfg, "http.curloptResolve="+pin)
		}
	}
	var args []string
	for _, c := range cfg {
		args = append(args, "-c", c)
	}
	return args
}

// gitEnv keeps the clone away from the machine's git configuration and
// from anything that could prompt.
func gitEnv() []string {
	return []string{"GIT_TERMINAL_PROMPT=0", "GIT_LFS_SKIP_SMUDGE=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_PROTOCOL_FROM_USER=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_SSH_VARIANT=ssh"}
}

// clone fetches the ref into dir and checks it out, watching the size.
func (p *Preparer) clone(ctx context.Context, u *url.URL, pin string, repo scan.RepoSpec, dir string) (string, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.watchSize(ctx, dir, stop)
	}()
	defer wg.Wait()
	defer stop(nil)

	pins := []string{pin}
	git := func(args ...string) (string, error) {
		res, err := p.runner().Run(ctx, proc.Cmd{Program: "git", Args: append(p.gitConfig(pins), args...), Env: gitEnv(), Dir: dir,
			Timeout: p.o.Limits.Timeout})
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
			return "", cause
		}
		if errors.Is(err, proc.ErrNotInstalled) {
			return "", fmt.Errorf("git is not installed (apt-get install git): %w", proc.ErrNotInstalled)
		}
		if err != nil {
			return "", err
		}
		if res.ExitCode != 0 {
			return "", fmt.Errorf("git %s failed: %s", args[0], gitError(res.Stderr))
		}
		return strings.TrimSpace(string(res.Stdout)), nil
	}
	if _, err := git("init", "-q", "--template=", "."); err != nil {
		return "", err
	}
	ref := repo.Ref
	if ref == "" {
		ref = "HEAD"
	}
	fetch := []string{"fetch", "-q", "--no-tags", "--no-recurse-submodules"}
	if !repo.History {
		fetch = append(fetch, "--depth", "1")
	}
	// A named remote, so relative submodule URLs resolve against it.
	if _, err := git("remote", "add", "origin", u.String()); err != nil {
		return "", err
	}
	if _, err := git(append(fetch, "origin", ref)...); err != nil {
		return "", err
	}
	if _, err := git("checkout", "-q", "--detach", "FETCH_HEAD"); err != nil {
		return "", err
	}
	commit, err := git("rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", err
	}
	// A clone faster than the watcher's first look is measured here.
	if err := p.checkSize(ctx, dir); err != nil {
		return "", err
	}
	if repo.Submodules {
		subPins, err := p.checkSubmodules(ctx, git, u, dir)
		if err != nil {
			return "", err
		}
		if len(subPins) > 0 {
			pins = append(pins, subPins...)
			if _, err := git("submodule", "update", "--init", "--depth", "1", "--no-recommend-shallow"); err != nil {
				return "", err
			}
			if err := p.checkSize(ctx, dir); err != nil {
				return "", err
			}
		}
	}
	return commit, nil
}

// checkSubmodules checks every submodule URL like the repository's own
// and returns the pins of their https hosts; the caller then fetches the
// submodules one level deep (nested submodules are not fetched).
func (p *Preparer) checkSubmodules(ctx context.Context, git func(...string) (string, error), base *url.URL, dir string) ([]string, error) {
	if info, err := os.Lstat(filepath.Join(dir, ".gitmodules")); err != nil || !info.Mode().IsRegular() {
		return nil, nil
	}
	out, err := git("config", "-f", ".gitmodules", "--get-regexp", `^submodule\..*\.url$`)
	if err != nil || out == "" {
		return nil, nil // no submodule URL configured
	}
	pins := []string{}
	for _, line := range strings.Split(out, "\n") {
		_, raw, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		su, err := submoduleURL(base, raw)
		if err != nil {
			return nil, fmt.Errorf("submodule URL %q: %w", raw, err)
		}
		pin, err := p.checkHost(ctx, su)
		if err != nil {
			return nil, fmt.Errorf("submodule: %w", err)
		}
		pins = append(pins, pin)
	}
	return pins, nil
}

// submoduleURL resolves a .gitmodules URL (possibly relative to the
// superproject) and applies the same rules as a target URL.
func submoduleURL(base *url.URL, raw string) (*url.URL, error) {
	if strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") {
		r := *base
		r.Path = path.Clean(path.Join(base.Path, raw))
		return request.ParseRepoURL(r.String())
	}
	return request.ParseRepoURL(raw)
}

func (p *Preparer) runner() *proc.Runner {
	if p.o.Config.Runner != nil {
		return p.o.Config.Runner
	}
	return proc.NewRunner(p.o.Limits.Timeout)
}

// watchSize measures dir while git writes and cancels the clone once it
// holds more than the limits allow.
func (p *Preparer) watchSize(ctx context.Context, dir string, stop context.CancelCauseFunc) {
	// Each look walks the clone; twice a second keeps that cheap on a
	// large repository, and the final check after checkout is exact.
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := p.checkSize(ctx, dir); err != nil {
			stop(err)
			return
		}
	}
}

// checkSize measures dir against the limits.
func (p *Preparer) checkSize(ctx context.Context, dir string) error {
	var size int64
	files := 0
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return fs.SkipAll
		}
		files++
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			size += info.Size()
		}
		return nil
	})
	switch {
	case size > p.o.Limits.MaxBytes:
		return fmt.Errorf("the repository takes more than %d bytes on disk (SVC_TARGET_MAX_BYTES)", p.o.Limits.MaxBytes)
	case files > p.o.Limits.MaxFiles:
		return fmt.Errorf("the repository holds more than %d files (SVC_TARGET_MAX_FILES)", p.o.Limits.MaxFiles)
	}
	return nil
}

// gitError is the informative tail of git's stderr, at most 300 bytes.
func gitError(stderr []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(stderr), "?")), " ")
	if s == "" {
		return "no message"
	}
	if len(s) > 300 {
		s = s[len(s)-300:]
	}
	return s
}
