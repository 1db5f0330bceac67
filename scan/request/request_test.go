package request

import (
	"strings"
	"testing"
)

func TestValidateTargetHost(t *testing.T) {
	for _, c := range []struct {
		host string
		ok   bool
	}{
		{"example.com", true}, {"127.0.0.1", true}, {"::1", true}, {"192.168.1.0/24", true}, {"10.0.0.0/23", false},
		{"-sV", false}, {"", false}, {"a b", false}, {"exa_mple.com", false}, {"host;rm", false}, {"2001:db8::/120", true}, {"2001:db8::/64", false},
	} {
		if err := ValidateTargetHost(c.host, 256); (err == nil) != c.ok {
			t.Errorf("%q: err=%v, want ok=%v", c.host, err, c.ok)
		}
	}
}

func TestValidateTargetURL(t *testing.T) {
	for _, c := range []struct {
		url string
		ok  bool
	}{{"https://a.example/x", true}, {"http://127.0.0.1:8080", true}, {"ftp://x", false}, {"https://", false}, {"javascript:alert(1)", false}, {"/relative", false}} {
		if _, err := ValidateTargetURL(c.url); (err == nil) != c.ok {
			t.Errorf("%q: err=%v, want ok=%v", c.url, err, c.ok)
		}
	}
}

func TestParseRepoURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://Git.Corp.Example/team/app.git":      "https://git.corp.example/team/app.git",
		"ssh://git@git.corp.example:2222/team/app":   "ssh://git@git.corp.example:2222/team/app",
		"git://10.0.0.5/app.git":                     "git://10.0.0.5/app.git",
		"https://[fd00::5]/app.git":                  "https://[fd00::5]/app.git",
		"https://u:p@git.corp.example/app.git":       "credentials",
		"https://token@git.corp.example/app.git":     "credentials",
		"ssh://git:pw@git.corp.example/app.git":      "credentials",
		"http://git.corp.example/app.git":            "scheme",
		"file:///srv/git/app.git":                    "scheme",
		"ext::sh -c touch% /tmp/pwned":               "spaces",
		"git@git.corp.example:team/app.git":          "scp-style",
		"https://git.corp.example":                   "repository path",
		"https://git.corp.example/app.git?x=1":       "query",
		"-uhttps://git.corp.example/app.git":         "'-'",
		"ssh://-oProxyCommand=x@git.corp.example/a":  "user name",
		"https://git.corp.example/app.git#frag":      "fragment",
		"https://git_corp.example/app.git":           "valid host",
		"ssh://git@-oProxyCommand=touch/app.git":     "valid host",
		"https://git.corp.example/a\x00b":            "control",
		"https://git.corp.example/app.git\nfoo=bar":  "control",
		"https://git.corp.example:99999/app.git":     "valid",
		"https://git.corp.example/team/app.git/../x": "https://git.corp.example/team/app.git/../x",
	} {
		u, err := ParseRepoURL(raw)
		switch {
		case err == nil && u.String() != want:
			t.Errorf("%q: accepted as %q, want %q", raw, u, want)
		case err != nil && !strings.Contains(err.Error(), want):
			t.Errorf("%q: %v, want an error saying %q", raw, err, want)
		}
		if err != nil && strings.Contains(err.Error(), ":p@") {
			t.Errorf("%q: error echoes the password: %v", raw, err)
		}
	}
	if !GitHostAllowed("git.corp.example", []string{".corp.example"}) || GitHostAllowed("corp.example.evil", []string{".corp.example"}) ||
		!GitHostAllowed("GIT.example", []string{"git.example"}) || GitHostAllowed("git.example", []string{"other"}) || !GitHostAllowed("x", nil) {
		t.Error("GitHostAllowed")
	}
	for ref, ok := range map[string]bool{"main": true, "release/2.1": true, "v1.2.3": true, "0123456789abcdef0123456789abcdef01234567": true,
		"-x": false, "a..b": false, "a:b": false, "a b": false, "x.lock": false, "a/": false, "/a": false, "@{1}": false} {
		if err := ValidateRepoRef(ref); (err == nil) != ok {
			t.Errorf("ref %q: %v", ref, err)
		}
	}
}
