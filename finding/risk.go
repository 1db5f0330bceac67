package finding

// Risk score weights per severity and the half-saturation constant.
const (
	riskWeightCritical = 25
	riskWeightHigh     = 10
	riskWeightMedium   = 4
	riskWeightLow      = 1
	riskHalfScore      = 25 // weighted sum that scores 50
)

// RiskScore condenses findings into one number from 0 (nothing to fix) to
// 100, for the scan summary, trends and the scan.complete event.
//
// Formula: S = 25·critical + 10·high + 4·medium + 1·low (info counts 0),
// over unsuppressed findings only; score = round(100·S / (S + 25)), with
// halves rounded up.
//
// So one critical scores 50, one high 29, one medium 14, one low 4; four
// criticals 80; the score approaches but never reaches 100 before S ≈ 5000.
// The saturating curve keeps one more finding meaningful at any level
// without letting a flood of lows outrank a few criticals by much, and it
// is monotonic: adding an unsuppressed finding never lowers the score,
// suppressing one never raises it. It is computed in integers, so the same
// findings give the same score on every platform. Findings with an unknown
// severity weigh 0 (Prepare has turned them into info).
func RiskScore(fs []Finding) int {
	var c SeverityCount
	for i := range fs {
		if !IsSuppressed(fs[i]) {
			c.Add(fs[i].Severity, 1)
		}
	}
	return c.RiskScore()
}

// SeverityCount counts findings per severity. A scan too large to hold in
// memory keeps one of these instead of its findings.
type SeverityCount struct {
	Critical, High, Medium, Low, Info int
}

// Add counts n findings of severity sev; an unknown severity counts as
// info (Prepare has turned it into info anyway).
func (c *SeverityCount) Add(sev Severity, n int) {
	switch sev {
	case Critical:
		c.Critical += n
	case High:
		c.High += n
	case Medium:
		c.Medium += n
	case Low:
		c.Low += n
	default:
		c.Info += n
	}
}

// Total is the number of findings counted.
func (c SeverityCount) Total() int { return c.Critical + c.High + c.Medium + c.Low + c.Info }

// RiskScore is RiskScore of the counted findings, which the caller has
// limited to unsuppressed ones.
func (c SeverityCount) RiskScore() int {
	s := int64(c.Critical)*riskWeight(Critical) + int64(c.High)*riskWeight(High) +
		int64(c.Medium)*riskWeight(Medium) + int64(c.Low)*riskWeight(Low)
	if s == 0 {
		return 0
	}
	// round(100s/(s+k)) = floor((200s + (s+k)) / (2(s+k)))
	d := s + riskHalfScore
	return int((200*s + d) / (2 * d))
}

func riskWeight(s Severity) int64 {
	switch s {
	case Critical:
		return riskWeightCritical
	case High:
		return riskWeightHigh
	case Medium:
		return riskWeightMedium
	case Low:
		return riskWeightLow
	}
	return 0
}
