package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/store/audit"
)

func verdictStore(t *testing.T) (*Store, *storeClock) {
	t.Helper()
	clock := &storeClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "v.db"), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// triageCountsOf sums a scan's stored facet counts by verdict.
func triageCountsOf(t *testing.T, s *Store, sc Scan) map[string]int {
	t.Helper()
	facets, err := s.ScanFacets(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, f := range facets {
		out[f.Triage] += f.N
	}
	return out
}

func TestSetVerdictsMovesCountsAndWritesOneHistoryEach(t *testing.T) {
	s, _ := verdictStore(t)
	ctx := context.Background()
	sc := ingestAll(t, s, "v1", syntheticScan("v1", 300))
	all := collect(t, s, sc, FindingQuery{})
	var fps []string
	for _, f := range all[:120] {
		fps = append(fps, f.Fingerprint)
	}
	// One fingerprint already carries a verdict: its count moves from it.
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: fps[0], Status: "triaged", UpdatedBy: "k"}); err != nil {
		t.Fatal(err)
	}
	rec := &audit.Record{Actor: audit.Actor{Kind: audit.ActorKey, ID: "k1", Name: "alice"}, Action: "finding.triage_bulk", ObjectType: "finding",
		Changes: audit.Changes{"status": {After: "false_positive"}, "count": {After: len(fps)}}}
	_, stored, err := s.SetVerdicts(ctx, fps, TriageState{Status: "false_positive", Note: "test files", UpdatedBy: "alice"}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if stored == nil || stored.Seq == 0 {
		t.Fatalf("audit record not stored: %+v", stored)
	}
	counts := triageCountsOf(t, s, sc)
	if counts["false_positive"] != 120 || counts["new"] != len(all)-120 || counts["triaged"] != 0 {
		t.Fatalf("counts after bulk: %v (of %d)", counts, len(all))
	}
	for i, fp := range fps {
		h, err := s.TriageHistory(ctx, fp)
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if i == 0 {
			want = 2
		}
		if len(h) != want || h[len(h)-1].Status != "false_positive" || h[len(h)-1].Note != "test files" {
			t.Fatalf("history of %s: %+v", fp, h)
		}
	}
	page, err := s.AuditRecords(ctx, audit.Query{Action: "finding.triage_bulk"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 1 || page.Records[0].Actor.Name != "alice" {
		t.Fatalf("audit: %+v", page.Records)
	}
	// Over the cap nothing is written.
	many := make([]string, MaxBulkTriage+1)
	for i := range many {
		many[i] = strings.Repeat("a", 63) + string(rune('0'+i%10))
	}
	if _, _, err := s.SetVerdicts(ctx, many, TriageState{Status: "fixed"}, nil); !errors.Is(err, ErrTooMany) {
		t.Fatalf("over the cap: %v", err)
	}
}

func TestExpireVerdictsReopensOnce(t *testing.T) {
	s, clock := verdictStore(t)
	ctx := context.Background()
	sc := ingestAll(t, s, "e1", syntheticScan("e1", 20))
	all := collect(t, s, sc, FindingQuery{})
	fp, other := all[0].Fingerprint, all[1].Fingerprint
	exp := clock.Now().Add(48 * time.Hour)
	later := clock.Now().Add(30 * 24 * time.Hour)
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: fp, Status: "accepted_risk", ExpiresAt: &exp, UpdatedBy: "bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetTriage(ctx, TriageState{Fingerprint: other, Status: "wont_fix", ExpiresAt: &later, UpdatedBy: "bob"}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ExpiringVerdicts(ctx, clock.Now().Add(7*24*time.Hour)); err != nil || n != 1 {
		t.Fatalf("expiring within a week: %d, %v", n, err)
	}
	if got, err := s.ExpireVerdicts(ctx, clock.Now(), 100); err != nil || len(got) != 0 {
		t.Fatalf("nothing is due yet: %v %v", got, err)
	}
	due := exp.Add(time.Minute)
	got, err := s.ExpireVerdicts(ctx, due, 100)
	if err != nil || len(got) != 1 || got[0].Fingerprint != fp || got[0].Status != "accepted_risk" {
		t.Fatalf("expired: %+v %v", got, err)
	}
	if again, err := s.ExpireVerdicts(ctx, due.Add(time.Hour), 100); err != nil || len(again) != 0 {
		t.Fatalf("a second pass expired again: %+v %v", again, err)
	}
	st, err := s.TriageStateOf(ctx, fp)
	if err != nil || st == nil || st.Status != "new" || st.ExpiresAt != nil || st.UpdatedBy != "system" {
		t.Fatalf("state after expiry: %+v %v", st, err)
	}
	h, _ := s.TriageHistory(ctx, fp)
	if len(h) != 2 || h[1].Status != "new" || !strings.Contains(h[1].Note, "expired") {
		t.Fatalf("history: %+v", h)
	}
	if c := triageCountsOf(t, s, sc); c["accepted_risk"] != 0 || c["wont_fix"] != 1 {
		t.Fatalf("counts: %v", c)
	}
	page, _ := s.AuditRecords(ctx, audit.Query{Action: "finding.acceptance_expired"})
	if len(page.Records) != 1 || page.Records[0].Actor.Kind != audit.ActorSystem || page.Records[0].ObjectID != fp {
		t.Fatalf("audit: %+v", page.Records)
	}
}

func TestAuditLogIsAppendOnlyAndRefusesSecrets(t *testing.T) {
	s, clock := verdictStore(t)
	ctx := context.Background()
	var sunk []audit.Record
	s.SetAuditSink(func(r audit.Record) { sunk = append(sunk, r) })
	for i := 0; i < 5; i++ {
		clock.Set(clock.Now().Add(24 * time.Hour))
		if _, err := s.AppendAudit(ctx, audit.Record{Actor: audit.Actor{Kind: audit.ActorDev, Name: "dev mode"}, Action: "webhook.update",
			ObjectType: "webhook", ObjectID: "w", Changes: audit.Changes{"name": {Before: "a", After: "b"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(sunk) != 5 {
		t.Fatalf("sink saw %d records", len(sunk))
	}
	for _, field := range []string{"secret", "key", "hash", "event_token"} {
		_, err := s.AppendAudit(ctx, audit.Record{Actor: audit.Actor{Kind: audit.ActorDev}, Action: "x", ObjectType: "x",
			Changes: audit.Changes{field: {After: "ssk_abc"}}})
		if !errors.Is(err, audit.ErrSecretField) {
			t.Fatalf("field %q accepted: %v", field, err)
		}
	}
	if _, err := s.w.ExecContext(ctx, "UPDATE audit_log SET action = 'forged'"); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("update of the audit log: %v", err)
	}
	// Paging: two pages of two, then one, newest first; a bad cursor fails.
	p1, err := s.AuditRecords(ctx, audit.Query{Limit: 2})
	if err != nil || len(p1.Records) != 2 || p1.Next == "" || p1.Records[0].Seq < p1.Records[1].Seq {
		t.Fatalf("page 1: %+v %v", p1, err)
	}
	p2, _ := s.AuditRecords(ctx, audit.Query{Limit: 2, After: p1.Next})
	p3, _ := s.AuditRecords(ctx, audit.Query{Limit: 2, After: p2.Next})
	if len(p2.Records) != 2 || len(p3.Records) != 1 || p3.Next != "" {
		t.Fatalf("pages: %+v %+v", p2, p3)
	}
	if _, err := s.AuditRecords(ctx, audit.Query{After: "abc"}); !errors.Is(err, audit.ErrBadCursor) {
		t.Fatalf("bad cursor: %v", err)
	}
	since := p1.Records[1].At
	if p, _ := s.AuditRecords(ctx, audit.Query{Since: &since}); len(p.Records) != 2 {
		t.Fatalf("since: %d records", len(p.Records))
	}
	// Retention drops by age only.
	cut := p3.Records[0].At.Add(36 * time.Hour)
	n, err := s.PurgeAudit(ctx, cut)
	if err != nil || n != 2 {
		t.Fatalf("purge: %d %v", n, err)
	}
}
