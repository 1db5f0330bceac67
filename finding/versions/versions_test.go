package versions

import "testing"

// Each case is a < b by the ecosystem's own documented rules.
func TestOrderings(t *testing.T) {
	cases := []struct {
		s    Scheme
		a, b string
	}{
		// semver.org §11's example chain, plus Go's v prefix.
		{SemVer, "1.0.0-alpha", "1.0.0-alpha.1"},
		{SemVer, "1.0.0-alpha.1", "1.0.0-alpha.beta"},
		{SemVer, "1.0.0-alpha.beta", "1.0.0-beta"},
		{SemVer, "1.0.0-beta", "1.0.0-beta.2"},
		{SemVer, "1.0.0-beta.2", "1.0.0-beta.11"},
		{SemVer, "1.0.0-beta.11", "1.0.0-rc.1"},
		{SemVer, "1.0.0-rc.1", "1.0.0"},
		{SemVer, "1.9.0", "1.10.0"},
		{SemVer, "v0.3.9", "v0.10.0"},
		{SemVer, "4.17.20", "4.17.21"},
		// PEP 440's "summary of permitted suffixes and relative ordering".
		{PEP440, "1.0.dev456", "1.0a1"},
		{PEP440, "1.0a1", "1.0a2.dev456"},
		{PEP440, "1.0a2.dev456", "1.0a12.dev456"},
		{PEP440, "1.0a12.dev456", "1.0a12"},
		{PEP440, "1.0a12", "1.0b1.dev456"},
		{PEP440, "1.0b1.dev456", "1.0b2"},
		{PEP440, "1.0b2", "1.0b2.post345.dev456"},
		{PEP440, "1.0b2.post345.dev456", "1.0b2.post345"},
		{PEP440, "1.0b2.post345", "1.0rc1.dev456"},
		{PEP440, "1.0rc1.dev456", "1.0rc1"},
		{PEP440, "1.0rc1", "1.0"},
		{PEP440, "1.0", "1.0+abc.5"},
		{PEP440, "1.0+abc.5", "1.0.post456.dev34"},
		{PEP440, "1.0.post456.dev34", "1.0.post456"},
		{PEP440, "1.0.post456", "1.1.dev1"},
		{PEP440, "2.0", "1!0.5"},
		// Maven ComparableVersion's documented qualifier order.
		{Maven, "1-alpha", "1-beta"},
		{Maven, "1-beta", "1-milestone"},
		{Maven, "1-milestone", "1-rc"},
		{Maven, "1-rc", "1-snapshot"},
		{Maven, "1-snapshot", "1"},
		{Maven, "1", "1-sp"},
		{Maven, "1-sp", "1.0.1"},
		{Maven, "2.14.1", "2.17.1"},
		{Maven, "2.9", "2.17.0"},
		{Maven, "1.0-alpha-1", "1.0-beta-1"},
		// Debian Policy §5.6.12: ~ sorts before everything, even the end.
		{Dpkg, "1.0~rc1", "1.0"},
		{Dpkg, "1.0~~", "1.0~~a"},
		{Dpkg, "1.0~~a", "1.0~"},
		{Dpkg, "1.0", "1.0a"},
		{Dpkg, "1.0a", "1.0+b1"},
		{Dpkg, "1.2.3-1", "1.2.3-2"},
		{Dpkg, "1.2.3-9", "1.2.3-10"},
		{Dpkg, "9.9", "1:0.1"},
		{Dpkg, "2.36-9", "2.36-9+deb12u4"},
		// rpmvercmp's documented cases (rpm's tests/rpmvercmp.at).
		{RPM, "1.0", "1.0.1"},
		{RPM, "2.0", "2.0a"},
		{RPM, "2.0a", "2.0.1"},
		{RPM, "1.0~rc1", "1.0"},
		{RPM, "1.0~rc1", "1.0~rc2"},
		{RPM, "1.0", "1.0^"},
		{RPM, "1.0^", "1.0.1"},
		{RPM, "1.0^git1", "1.0^git2"},
		{RPM, "a", "1"},
		{RPM, "1.0-1.el8", "1.0-2.el8"},
		{RPM, "5.5p1", "5.5p10"},
		{RPM, "1:1.0", "2:0.1"},
	}
	for _, c := range cases {
		if n := Compare(c.s, c.a, c.b); n != -1 {
			t.Errorf("%s: %s vs %s = %d, want -1", c.s, c.a, c.b, n)
		}
		if n := Compare(c.s, c.b, c.a); n != 1 {
			t.Errorf("%s: %s vs %s = %d, want 1", c.s, c.b, c.a, n)
		}
	}
	equal := []struct {
		s    Scheme
		a, b string
	}{
		{SemVer, "1.0.0+build.1", "1.0.0"}, {SemVer, "v1.2.3", "1.2.3"},
		{PEP440, "1.0", "1.0.0"}, {PEP440, "1.0-alpha1", "1.0a1"}, {PEP440, "1.0-1", "1.0.post1"},
		{Maven, "1.0", "1"}, {Maven, "1-ga", "1.0.0"}, {Maven, "1.0-final", "1"},
		{Dpkg, "0:1.0", "1.0"}, {Dpkg, "1.00", "1.0"},
		{RPM, "1.0", "1.0"}, {RPM, "1.0-3", "1.0"}, {RPM, "1..0", "1.0"},
	}
	for _, c := range equal {
		if n := Compare(c.s, c.a, c.b); n != 0 {
			t.Errorf("%s: %s vs %s = %d, want 0", c.s, c.a, c.b, n)
		}
	}
}

func TestConstraints(t *testing.T) {
	c, err := ParseConstraint(">=2.0, <2.17.1")
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]bool{"2.14.1": true, "2.17.1": false, "2.17.0": true, "1.2.17": false, "2.0": true, "2.0-rc1": false} {
		if got := c.Matches(Maven, v); got != want {
			t.Errorf("%s in %v: %v", v, c, got)
		}
	}
	if c, _ := ParseConstraint("4.17.20"); !c.Matches(SemVer, "v4.17.20") || c.Matches(SemVer, "4.17.21") {
		t.Error("bare version is equality")
	}
	for _, bad := range []string{"", "<", ">=1,,<2"} {
		if _, err := ParseConstraint(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if SchemeOf("PyPI") != PEP440 || SchemeOf("deb") != Dpkg || SchemeOf("npm") != SemVer || SchemeOf("Maven") != Maven {
		t.Error("SchemeOf")
	}
}
