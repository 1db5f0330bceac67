package image

import "testing"

func TestInImageLink(t *testing.T) {
	for _, tc := range []struct{ rel, target, want string }{
		{"dev/stdout", "/proc/self/fd/1", "../proc/self/fd/1"},
		{"bin", "usr/bin", "usr/bin"},
		{"etc/alternatives/awk", "/usr/bin/mawk", "../../usr/bin/mawk"},
		{"usr/bin/x", "../../../../../../etc/passwd", "../../etc/passwd"},
		{"a", "/", "."},
		{"lib/x", "./y", "y"},
	} {
		if got := inImageLink(tc.rel, tc.target); got != tc.want {
			t.Errorf("inImageLink(%q, %q) = %q, want %q", tc.rel, tc.target, got, tc.want)
		}
	}
}
