package finding

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SLAPolicy is the fix deadline per severity (SVC_SLA_DAYS), counted from
// the day a finding was first seen on its target. A severity without an
// entry has no deadline; the zero policy has none at all.
type SLAPolicy struct {
	days map[Severity]int
}

// DefaultSLA is the policy when SVC_SLA_DAYS is unset.
const DefaultSLA = "critical:7,high:30,medium:90,low:180"

// ParseSLA reads a policy: "none" (or "") disables every deadline;
// otherwise comma-separated severity:days pairs with days from 1 to 3650.
func ParseSLA(s string) (SLAPolicy, error) {
	p := SLAPolicy{days: map[Severity]int{}}
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "none") {
		return p, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, v, ok := strings.Cut(strings.TrimSpace(part), ":")
		sev := Severity(strings.ToLower(strings.TrimSpace(name)))
		if !ok || sev.Rank() <= 0 {
			return SLAPolicy{}, fmt.Errorf("%q: want severity:days, severity one of critical, high, medium, low, info", part)
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 3650 {
			return SLAPolicy{}, fmt.Errorf("%q: days must be a whole number from 1 to 3650", part)
		}
		if _, dup := p.days[sev]; dup {
			return SLAPolicy{}, fmt.Errorf("%q: %s given twice", part, sev)
		}
		p.days[sev] = n
	}
	return p, nil
}

// Enabled reports whether any severity has a deadline.
func (p SLAPolicy) Enabled() bool { return len(p.days) > 0 }

// Days returns the deadline in days of a severity; ok is false when it
// has none.
func (p SLAPolicy) Days(sev Severity) (days int, ok bool) {
	days, ok = p.days[sev]
	return days, ok
}

// DueAt is when a finding of severity sev first seen at firstSeen must be
// fixed; ok is false when the severity has no deadline.
func (p SLAPolicy) DueAt(sev Severity, firstSeen time.Time) (time.Time, bool) {
	d, ok := p.days[sev]
	if !ok {
		return time.Time{}, false
	}
	return firstSeen.Add(time.Duration(d) * 24 * time.Hour), true
}

// Cutoffs gives, per severity with a deadline, the first_seen before
// which a finding is overdue at now: a finding is overdue when
// first_seen < cutoff.
func (p SLAPolicy) Cutoffs(now time.Time) map[Severity]time.Time {
	out := map[Severity]time.Time{}
	for sev, d := range p.days {
		out[sev] = now.Add(-time.Duration(d) * 24 * time.Hour)
	}
	return out
}

// String renders the policy as SVC_SLA_DAYS would give it.
func (p SLAPolicy) String() string {
	if !p.Enabled() {
		return "none"
	}
	var parts []string
	for _, sev := range []Severity{Critical, High, Medium, Low, Info} {
		if d, ok := p.days[sev]; ok {
			parts = append(parts, string(sev)+":"+strconv.Itoa(d))
		}
	}
	return strings.Join(parts, ",")
}
