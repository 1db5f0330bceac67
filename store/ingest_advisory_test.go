package store

import (
	"context"
	"slices"
	"testing"

	"scand/finding"
)

// TestIngestMergesAliasedAdvisories: the streaming ingest deduplicates
// only the files it marked while adding; findings of one vulnerability
// reported by three tools under different ids, at different lines (so
// neither a shared fingerprint nor a shared line marks the file), must
// still come out as Prepare makes them: one finding with every id.
func TestIngestMergesAliasedAdvisories(t *testing.T) {
	adv := func(scanner, id string, line int, aliases ...string) finding.Finding {
		return finding.Finding{Scanner: scanner, ScanType: "dependency", Severity: finding.Medium, RuleID: id, Title: id,
			FilePath: "go.mod", Line: line,
			Metadata: map[string]any{"package": "golang.org/x/text", "version": "v0.3.6", "aliases": aliases}}
	}
	// Each knows a different subset of the ids, so each has its own
	// fingerprint (by CVE, by GHSA, by GO id) until they are merged.
	raw := []finding.Finding{
		adv("govulncheck", "GO-2021-0113", 0),
		adv("trivy", "CVE-2021-38561", 5, "GHSA-ppp9-7jff-5vj2"),
		adv("osv-scanner", "GHSA-ppp9-7jff-5vj2", 6, "GO-2021-0113"),
	}
	want := finding.Prepare("scan-1", raw, nil, nil)
	if len(want) != 1 {
		t.Fatalf("Prepare gave %d findings, want 1", len(want))
	}
	s := ingestTestStore(t)
	ctx := context.Background()
	in := runningIngest(t, s, "scan-1")
	for _, f := range raw {
		if err := in.Add(finding.PrepareOne("scan-1", f, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.Finish(ctx, IngestMeta{ScannersRun: []string{"govulncheck", "osv-scanner", "trivy"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.FindingsByScan(ctx, "scan-1", FindingQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("ingest stored %d findings, want 1", len(got))
	}
	ids, _ := got[0].Metadata[finding.MetaAliases].([]any)
	if got[0].Fingerprint != want[0].Fingerprint || len(ids) != 3 {
		t.Fatalf("stored %s with aliases %v, want %s with all three ids", got[0].Fingerprint, ids, want[0].Fingerprint)
	}
	if also := got[0].Metadata[finding.MetaAlsoReportedBy]; !slices.Equal(toStrings(also), []string{"osv-scanner", "trivy"}) {
		t.Errorf("also_reported_by %v", also)
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}
