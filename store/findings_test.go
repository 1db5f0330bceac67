package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"scand/finding"
)

func TestSplicedFindingsJSONMatchesTypedEncoding(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.CreateScan(ctx, Scan{ID: "scan1", TargetPath: "/t", ScanTypes: []string{"code"}, StartedAt: time.Now()})
	s.MarkScanRunning(ctx, "scan1")
	fs := []finding.Finding{
		{ID: "f1", Scanner: "a", ScanType: "code", Severity: finding.High, Title: "t <&> \"q\"", FilePath: "x.go", Line: 3, RuleID: "R1", CWE: "CWE-79",
			Fingerprint: "fp1", ComplianceTags: []string{"OWASP-A03"}, Metadata: map[string]any{"suppressed_by": nil, "also_reported_by": []string{"b"}}},
		{ID: "f2", Scanner: "b", ScanType: "code", Severity: finding.Low, Title: "u", FilePath: "y.go", Line: 0, RuleID: "R2",
			Fingerprint: "fp2", Metadata: map[string]any{"suppressed_by": "inline: scand:ignore R2"}},
	}
	if err := s.CompleteScan(ctx, "scan1", ScanResult{Findings: fs}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: "fp2", Status: "fixed", Note: "n", UpdatedBy: "me"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []FindingFilter{{}, {Severities: []string{"low"}}, {Compliance: []string{"OWASP-A03"}}, {Limit: 1, Offset: 1}} {
		typed, err := s.FindingsByScan(ctx, "scan1", f)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(typed)
		got, err := s.AppendFindingsJSON(ctx, nil, "scan1", f)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("filter %+v:\nspliced %s\ntyped   %s", f, got, want)
		}
	}
}
