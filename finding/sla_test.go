package finding

import (
	"testing"
	"time"
)

func TestParseSLA(t *testing.T) {
	p, err := ParseSLA(DefaultSLA)
	if err != nil || p.String() != DefaultSLA {
		t.Fatalf("default: %v %v", p, err)
	}
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if due, ok := p.DueAt(High, first); !ok || !due.Equal(first.AddDate(0, 0, 30)) {
		t.Errorf("high due %v %v", due, ok)
	}
	if _, ok := p.DueAt(Info, first); ok {
		t.Error("info has a deadline by default")
	}
	cut := p.Cutoffs(first.AddDate(0, 0, 10))
	if !cut[Critical].Equal(first.AddDate(0, 0, 3)) || len(cut) != 4 {
		t.Errorf("cutoffs %v", cut)
	}
	for _, off := range []string{"none", "", " NONE "} {
		if p, err := ParseSLA(off); err != nil || p.Enabled() {
			t.Errorf("%q: %v %v", off, p, err)
		}
	}
	if p, err := ParseSLA("critical:1, info:365"); err != nil || p.String() != "critical:1,info:365" {
		t.Errorf("custom: %v %v", p, err)
	}
	for _, bad := range []string{"critical", "urgent:3", "high:0", "high:x", "high:3,high:4", "low:4000"} {
		if _, err := ParseSLA(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
