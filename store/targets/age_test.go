package targets

import "testing"

// A scan's sightings are folded by one call at a time: the maintenance
// loop's call for a scan its completion is folding now returns at once,
// and may fold it once that one is done.
func TestAgingClaimIsExclusivePerScan(t *testing.T) {
	var s Targets
	if !s.claimAging(7) {
		t.Fatal("first claim refused")
	}
	if s.claimAging(7) {
		t.Fatal("a second claim on the scan being folded was granted")
	}
	if !s.claimAging(8) {
		t.Fatal("another scan's claim refused")
	}
	s.releaseAging(7)
	if !s.claimAging(7) {
		t.Fatal("claim refused after release")
	}
}
