package ui_test

import (
	"regexp"
	"testing"
	"time"

	"scand/finding"
)

// TestFindingPageShowsAge: a finding's page says when its fingerprint
// was first and last seen on the scan's target, from any scan of it.
func TestFindingPageShowsAge(t *testing.T) {
	clock := &testClock{t: time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)}
	e := newEnv(t, envOptions{Clock: clock})
	a := e.seedScan("/srv/app", []finding.Finding{mkFinding("one", finding.Critical, "secrets", "aws-access-key", "config/aws.py", 3)})
	clock.Advance(48 * time.Hour)
	b := e.seedScan("/srv/app", []finding.Finding{mkFinding("one", finding.Critical, "secrets", "aws-access-key", "config/aws.py", 3)})
	first, last := a.CompletedAt.UTC().Format(time.RFC3339), b.CompletedAt.UTC().Format(time.RFC3339)
	if first == last {
		t.Fatal("the two scans completed at the same second")
	}
	c := e.client(t)
	for _, scanID := range []string{a.ID, b.ID} {
		p := c.get("/ui/findings/" + fp("one") + "?scan=" + scanID)
		expect(t, p, 200, "finding page")
		want := regexp.MustCompile(`<dt>First seen</dt><dd><time datetime="` + first + `"[^<]*</time>[^<]*<span class="muted">on this target</span></dd>\s*<dt>Last seen</dt><dd><time datetime="` + last + `"`)
		if !want.MatchString(p.body) {
			t.Errorf("scan %s: the page does not show first seen %s and last seen %s", scanID, first, last)
		}
	}
}
