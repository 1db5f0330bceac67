package report

import (
	"encoding/json"
	"io"
	"iter"

	"scand/finding"
)

// Coverage is the body of GET /compliance/coverage.
type Coverage struct {
	ScanID string `json:"scan_id"`
	// ExcludedFalsePositives counts findings left out because their
	// triage verdict is false_positive; suppressed findings never count.
	ExcludedFalsePositives int                         `json:"excluded_false_positives"`
	Frameworks             []finding.FrameworkCoverage `json:"frameworks"`
}

// WriteCoverage writes a scan's per-framework control coverage from its
// counts by compliance tag; a violated control lists the fingerprints of
// its findings, which fingerprints streams one control at a time.
func WriteCoverage(w io.Writer, scanID string, excludedFalsePositives int, counts map[string]int,
	fingerprints func(controlID string) iter.Seq2[string, error]) error {
	head, err := json.Marshal(Coverage{ScanID: scanID, ExcludedFalsePositives: excludedFalsePositives, Frameworks: []finding.FrameworkCoverage{}})
	if err != nil {
		return err
	}
	// open writes a marshalled object without its trailing empty list.
	open := func(b []byte) {
		w.Write(b[:len(b)-len("[]}")])
		io.WriteString(w, "[")
	}
	open(head)
	for i, fc := range finding.CoverageCounts(counts) {
		if i > 0 {
			io.WriteString(w, ",")
		}
		controls := fc.Controls
		fc.Controls = []finding.ControlCoverage{}
		b, err := json.Marshal(fc)
		if err != nil {
			return err
		}
		open(b)
		for j, cc := range controls {
			if j > 0 {
				io.WriteString(w, ",")
			}
			b, err := json.Marshal(cc)
			if err != nil {
				return err
			}
			if cc.Status != finding.ControlViolated {
				w.Write(b)
				continue
			}
			open(b)
			n := 0
			for fp, err := range fingerprints(cc.ID) {
				if err != nil {
					return err
				}
				if n > 0 {
					io.WriteString(w, ",")
				}
				n++
				q, _ := json.Marshal(fp)
				w.Write(q)
			}
			io.WriteString(w, "]}")
		}
		io.WriteString(w, "]}")
	}
	_, err = io.WriteString(w, "]}\n")
	return err
}
