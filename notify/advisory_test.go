package notify

import (
	"strings"
	"testing"

	"scand/sse"
)

// TestAdvisoryNewMatchesNotification: one notification per run that
// matched anything new, at the most severe match, naming targets and
// advisories; none for a run with nothing new.
func TestAdvisoryNewMatchesNotification(t *testing.T) {
	if _, ok, err := Build(sse.Event{Name: sse.AdvisoryNewMatches, Data: sse.AdvisoryNewMatchesData{ReevaluationID: "r0"}}); ok || err != nil {
		t.Fatalf("nothing new made a notification: %v %v", ok, err)
	}
	d := sse.AdvisoryNewMatchesData{ReevaluationID: "r1", Trigger: "import", TargetsCount: 1, Count: 2,
		BySeverity: sse.SeverityCounts{Critical: 1, Medium: 1},
		Targets: []sse.AdvisoryTarget{{TargetID: 3, TargetName: "/srv/web", ScanID: "s9", Matches: []sse.AdvisoryMatch{
			{AdvisoryID: "GHSA-xvch-5gv4-984h", Package: "minimist", Version: "1.2.0", Severity: "critical"},
			{AdvisoryID: "GHSA-vh95-rmgr-6w4m", Package: "minimist", Version: "1.2.0", Severity: "medium"}}}}}
	n, ok, err := Build(sse.Event{Name: sse.AdvisoryNewMatches, Data: d})
	if err != nil || !ok {
		t.Fatalf("no notification: %v", err)
	}
	if n.Severity != "critical" || n.ScanID != "s9" || n.Title != "2 newly matched advisories in 1 target" {
		t.Fatalf("notification: %+v", n)
	}
	for _, want := range []string{"r1", "/srv/web", "GHSA-xvch-5gv4-984h (minimist 1.2.0)", "1 critical, 1 medium"} {
		if !strings.Contains(n.Body, want) {
			t.Errorf("body lacks %q: %s", want, n.Body)
		}
	}
}
