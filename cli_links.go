package main

import (
	"context"
	"net/url"
	"regexp"
	"strings"
)

// The markdown report links each finding to its file and line. Relative
// links only work where the comment sits next to the code, so when the
// scanned tree's repository is known (its remote "origin" and the scanned
// commit) the links are absolute; --link-base names the prefix outright
// for hosts the guess below gets wrong.

// scpRemote is git's scp-like remote syntax: user@host:path.
var scpRemote = regexp.MustCompile(`^(?:[A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+):([^/].*)$`)

// remoteWebURL turns a git remote into the repository's web address
// (https://host/owner/repo), or "" when it names no web host (a local
// path, file://). Credentials and an ssh port never reach the result.
func remoteWebURL(remote string) string {
	remote = strings.TrimSpace(remote)
	var host, path, scheme string
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		switch u.Scheme {
		case "http", "https":
			scheme, host = u.Scheme, u.Host
		case "ssh", "git", "git+ssh", "ssh+git":
			scheme, host = "https", u.Hostname()
		default:
			return ""
		}
		path = u.Path
	} else if m := scpRemote.FindStringSubmatch(remote); m != nil && !strings.Contains(remote, "://") {
		scheme, host, path = "https", m[1], m[2]
	} else {
		return ""
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" {
		return ""
	}
	return (&url.URL{Scheme: scheme, Host: host, Path: "/" + path}).String()
}

// blobPath is how the host spells "this file at this commit": GitLab
// /-/blob/, Gitea and Forgejo /src/commit/, Bitbucket /src/, and GitHub's
// /blob/ for the rest.
func blobPath(host string) string {
	host = strings.ToLower(host)
	switch {
	case strings.Contains(host, "gitlab"):
		return "/-/blob/"
	case strings.Contains(host, "gitea"), strings.Contains(host, "forgejo"), host == "codeberg.org":
		return "/src/commit/"
	case host == "bitbucket.org":
		return "/src/"
	}
	return "/blob/"
}

// autoLinkBase is the URL of dir at commit on the web host of the
// repository's remote "origin" ("" when any of it is unknown): the
// markdown report's links then point at the scanned lines. Only local git
// commands run; nothing is fetched. commit "" means HEAD.
func autoLinkBase(ctx context.Context, g gitRunner, dir, commit string) string {
	remote, err := g.out(ctx, dir, "remote", "get-url", "origin")
	if err != nil {
		return ""
	}
	web := remoteWebURL(remote)
	if web == "" {
		return ""
	}
	if commit == "" {
		if commit, err = g.out(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
			return ""
		}
	}
	if !regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`).MatchString(commit) {
		return ""
	}
	prefix, err := g.out(ctx, dir, "rev-parse", "--show-prefix")
	if err != nil {
		return ""
	}
	u, _ := url.Parse(web)
	base := web + blobPath(u.Host) + commit + "/"
	for _, seg := range strings.Split(strings.Trim(prefix, "/"), "/") {
		if seg != "" {
			base += url.PathEscape(seg) + "/"
		}
	}
	return base
}

// linkBaseFor is --link-base when given, else the remote's guess for a
// tree target ("" for images and repositories cloned for the scan).
func linkBaseFor(ctx context.Context, f *scanFlags, eng *engine, dir, commit string) string {
	if f.linkBase != "" || dir == "" {
		return f.linkBase
	}
	return autoLinkBase(ctx, gitRunner{runner: eng.scanCfg.Runner}, dir, commit)
}
