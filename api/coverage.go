package api

import (
	"scand/finding"
	"scand/store"
)

// coverageView is what a scan and its summary say it examined (issue 23,
// additive fields).
type coverageView struct {
	Partial        bool                  `json:"partial" doc:"true when the scan did not examine everything it was asked to: a scanner failed or ran partly, an asked-for scan type ran nothing able to find what it is about; partial_reasons says why"`
	PartialReasons []string              `json:"partial_reasons" doc:"why the result is partial; empty when it is not"`
	Coverage       *finding.ScanCoverage `json:"coverage" doc:"per scan type and per scanner: ran, partial, failed, not_installed, not_needed or disabled, with the reason, and the files a partial scanner skipped; null until the scan completes and for scans stored before coverage was recorded"`
}

func coverageOf(sc store.Scan) coverageView {
	v := coverageView{PartialReasons: []string{}, Coverage: sc.Coverage}
	if sc.Coverage != nil {
		v.Partial = sc.Coverage.Partial
		v.PartialReasons = append(v.PartialReasons, sc.Coverage.Reasons...)
	}
	return v
}
