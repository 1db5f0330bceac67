package request

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"scand/scan"
)

// checkTargetKinds validates target_image and target_repo and the rule that
// a scan has exactly one of target_path, target_image and target_repo. For
// an image or repository it returns the target_path the scan is stored
// under (the resolved archive path, the repository URL), the normalized
// spec, and the resolved path the roots confine ("" for a repository).
func (p TargetPolicy) checkTargetKinds(r Request, add func(typ, msg string, input any, loc ...any)) (storedPath string, spec *scan.TargetSpec, real string) {
	var given []string
	if r.TargetPath != "" {
		given = append(given, "target_path")
	}
	if r.TargetImage != nil {
		given = append(given, "target_image")
	}
	if r.TargetRepo != nil {
		given = append(given, "target_repo")
	}
	if len(given) > 1 {
		for _, f := range given[1:] {
			add("value_error", "give exactly one of target_path, target_image, target_repo (got "+strings.Join(given, ", ")+")", nil, f)
		}
		return "", nil, ""
	}
	switch {
	case r.TargetImage != nil:
		real, ok := checkImagePath(r.TargetImage.Path, add)
		if !ok {
			return "", nil, ""
		}
		return real, &scan.TargetSpec{Image: &scan.ImageSpec{Path: real}}, real
	case r.TargetRepo != nil:
		repo := *r.TargetRepo
		u, err := ParseRepoURL(repo.URL)
		if err != nil {
			add("value_error", "url: "+err.Error(), redactURL(repo.URL), "target_repo", "url")
			return "", nil, ""
		}
		if err := p.checkRepoHost(u.Hostname()); err != nil {
			add("value_error", "url: "+err.Error(), u.String(), "target_repo", "url")
			return "", nil, ""
		}
		if repo.Ref != "" {
			if err := ValidateRepoRef(repo.Ref); err != nil {
				add("value_error", "ref: "+err.Error(), repo.Ref, "target_repo", "ref")
				return "", nil, ""
			}
		}
		repo.URL = u.String()
		return repo.URL, &scan.TargetSpec{Repo: &repo}, ""
	}
	return "", nil, ""
}

// checkImagePath accepts an absolute path of an existing regular file (an
// archive) or directory (an OCI layout) and returns it resolved.
func checkImagePath(p string, add func(typ, msg string, input any, loc ...any)) (string, bool) {
	switch {
	case p == "":
		add("missing", "Field required", nil, "target_image", "path")
	case !filepath.IsAbs(p):
		add("value_error", "path must be an absolute path", p, "target_image", "path")
	default:
		info, err := os.Stat(p)
		if err != nil || !(info.Mode().IsRegular() || info.IsDir()) {
			add("value_error", "path must be an existing image archive (docker save, OCI archive) or OCI layout directory", p, "target_image", "path")
			return "", false
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			add("value_error", "path cannot be resolved", p, "target_image", "path")
			return "", false
		}
		return real, true
	}
	return "", false
}

// checkRepoHost applies SVC_GIT_ALLOW and refuses a literal address the
// SSRF guard refuses; names are resolved and checked again at clone time.
func (p TargetPolicy) checkRepoHost(host string) error {
	if !GitHostAllowed(host, p.GitAllow) {
		return fmt.Errorf("host %s is not in SVC_GIT_ALLOW", host)
	}
	if a, err := netip.ParseAddr(host); err == nil && p.RefuseAddress != nil {
		if reason := p.RefuseAddress(a); reason != "" {
			return fmt.Errorf("host %s is a %s; repositories are never cloned from it", host, reason)
		}
	}
	return nil
}

// GitHostAllowed reports whether host may be cloned from: allow empty
// permits any host; an entry matches its host exactly (case-insensitively)
// and an entry starting with a dot matches every name under it.
func GitHostAllowed(host string, allow []string) bool {
	if len(allow) == 0 {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range allow {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "" {
			continue
		}
		if host == a || strings.HasPrefix(a, ".") && strings.HasSuffix(host, a) {
			return true
		}
	}
	return false
}

// ParseRepoURL accepts the URLs scand clones: https://, ssh:// and git://
// with a host and a path, no query or fragment, and no credentials (an
// ssh URL may name the login user, which is not a secret). A password in
// a URL would end up in the database, logs and process lists: credentials
// come from SVC_GIT_CREDENTIALS_FILE instead.
func ParseRepoURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("URL is empty")
	}
	if strings.HasPrefix(raw, "-") {
		return nil, errors.New("URL must not start with '-'")
	}
	for _, c := range raw {
		if c < 0x21 || c == 0x7f {
			return nil, errors.New("URL must not contain spaces or control characters")
		}
	}
	if !strings.Contains(raw, "://") && strings.Contains(raw, "@") && strings.Contains(raw, ":") {
		return nil, errors.New("scp-style addresses are not accepted; write it as ssh://user@host/path")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse quotes the input, which may hold a password.
		return nil, errors.New("not a valid URL")
	}
	switch u.Scheme {
	case "https", "ssh", "git":
	default:
		return nil, errors.New("scheme must be https, ssh or git")
	}
	if u.User != nil {
		if _, hasPassword := u.User.Password(); hasPassword || u.Scheme != "ssh" {
			return nil, errors.New("URL must not contain credentials; put them in SVC_GIT_CREDENTIALS_FILE")
		}
		if !sshUserRe.MatchString(u.User.Username()) {
			return nil, errors.New("ssh user name is not valid")
		}
	}
	host := u.Hostname()
	if host == "" {
		return nil, errors.New("URL must include a host")
	}
	if strings.Contains(host, "/") || ValidateTargetHost(host, 1) != nil {
		return nil, errors.New("URL must include a valid host")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, errors.New("URL must include a valid port")
		}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, errors.New("URL must not have a query or fragment")
	}
	if u.Path == "" || u.Path == "/" {
		return nil, errors.New("URL must include the repository path")
	}
	if u.Opaque != "" {
		return nil, errors.New("not a valid URL")
	}
	u.Host = strings.ToLower(u.Host)
	return u, nil
}

// redactURL is raw without anything between "//" and "@", for error
// messages that echo the input.
func redactURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "//")
	if !ok {
		return raw
	}
	at := strings.LastIndex(rest, "@")
	slash := strings.Index(rest, "/")
	if at < 0 || (slash >= 0 && at > slash) {
		return raw
	}
	return scheme + "//***@" + rest[at+1:]
}

// sshUserRe is a login name that cannot be read as an ssh option.
var sshUserRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// repoRefRe is what a ref may look like: a branch or tag name, or a
// commit id. It can never be read as an option (no leading '-') or as a
// refspec (no ':').
var repoRefRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/+-]*$`)

// ValidateRepoRef accepts a branch, tag or commit id.
func ValidateRepoRef(ref string) error {
	switch {
	case len(ref) > 255:
		return errors.New("ref is longer than 255 characters")
	case !repoRefRe.MatchString(ref):
		return errors.New("ref may hold only letters, digits and . _ / + - and must start with a letter or digit")
	case strings.Contains(ref, "..") || strings.Contains(ref, "//") || strings.HasSuffix(ref, "/") ||
		strings.HasSuffix(ref, ".lock") || strings.HasSuffix(ref, "."):
		return errors.New("ref is not a valid git ref name")
	}
	return nil
}
