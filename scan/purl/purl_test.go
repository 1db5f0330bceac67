package purl

import "testing"

func TestBuild(t *testing.T) {
	cases := []struct {
		name       string
		escape     func(string) string
		typ        string
		namespace  []string
		pkg, ver   string
		qualifiers [][2]string
		want       string
	}{
		{"npm scope is one encoded segment", Escape, "npm", []string{"@babel"}, "core", "7.24.0", nil,
			"pkg:npm/%40babel/core@7.24.0"},
		{"go module path, empty segments dropped", Escape, "golang", []string{"github.com", "", "foo"}, "bar", "v1.2.3", nil,
			"pkg:golang/github.com/foo/bar@v1.2.3"},
		{"no version, no @", Escape, "pypi", nil, "requests", "", nil,
			"pkg:pypi/requests"},
		{"spec keeps ':'", Escape, "npm", nil, "x", "file:../x", nil,
			"pkg:npm/x@file:..%2Fx"},
		{"Trivy's spelling encodes ':' and '+'", EscapeColon, "deb", []string{"debian"}, "libc6", "2:2.36-9+deb12u4",
			[][2]string{{"distro", "debian-12"}, {"arch", "amd64"}},
			"pkg:deb/debian/libc6@2%3A2.36-9%2Bdeb12u4?arch=amd64&distro=debian-12"},
		{"qualifiers sorted, empty ones left out, values encoded", Escape, "maven", []string{"org.example"}, "lib", "1.0",
			[][2]string{{"type", "test-jar"}, {"classifier", ""}, {"arch", "x 86/64"}},
			"pkg:maven/org.example/lib@1.0?arch=x%2086%2F64&type=test-jar"},
		{"a namespace holding '/' stays one segment when passed as one", EscapeColon, "apk", []string{"a/b"}, "musl", "1.2", nil,
			"pkg:apk/a%2Fb/musl@1.2"},
		{"non-ASCII and '%' are encoded byte by byte", Escape, "gem", nil, "ü%", "1", nil,
			"pkg:gem/%C3%BC%25@1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Build(tc.escape, tc.typ, tc.namespace, tc.pkg, tc.ver, tc.qualifiers...); got != tc.want {
				t.Errorf("Build = %q, want %q", got, tc.want)
			}
		})
	}
}
