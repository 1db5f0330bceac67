package main

import "testing"

func TestRemoteWebURL(t *testing.T) {
	cases := map[string]string{
		"git@github.com:acme/shop.git":                   "https://github.com/acme/shop",
		"https://github.com/acme/shop.git":               "https://github.com/acme/shop",
		"https://oauth2:tok@gitlab.corp.example/g/p.git": "https://gitlab.corp.example/g/p",
		"ssh://git@gitea.corp.example:2222/team/app.git": "https://gitea.corp.example/team/app",
		"http://git.lan:3000/team/app/":                  "http://git.lan:3000/team/app",
		"/srv/git/shop.git":                              "",
		"file:///srv/git/shop.git":                       "",
		"../shop":                                        "",
		"C:/repos/shop":                                  "",
	}
	for remote, want := range cases {
		if got := remoteWebURL(remote); got != want {
			t.Errorf("remoteWebURL(%q) = %q, want %q", remote, got, want)
		}
	}
	for host, want := range map[string]string{"github.com": "/blob/", "gitlab.corp.example": "/-/blob/", "codeberg.org": "/src/commit/",
		"gitea.corp.example": "/src/commit/", "bitbucket.org": "/src/", "git.corp.example": "/blob/"} {
		if got := blobPath(host); got != want {
			t.Errorf("blobPath(%s) = %s, want %s", host, got, want)
		}
	}
}
