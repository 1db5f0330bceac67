package api

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/store"
)

// portfolioScan runs one scan of target to completion at the env's clock
// with the given findings.
func portfolioScan(t *testing.T, e *apiEnv, id, target string, fs ...finding.Finding) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.store.CreateScan(ctx, store.Scan{ID: id, TargetPath: target, ScanTypes: []string{"code", "dependency"}, StartedAt: e.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.MarkScanRunning(ctx, id); err != nil {
		t.Fatal(err)
	}
	for i := range fs {
		fs[i].ID, fs[i].ScanID = fmt.Sprintf("%s-%d", id, i), id
	}
	finding.Sort(fs)
	if err := e.store.CompleteScan(ctx, id, store.ScanResult{Findings: fs}); err != nil {
		t.Fatal(err)
	}
}

func codeFinding(sev finding.Severity, file, fp string) finding.Finding {
	return finding.Finding{Scanner: "secrets", ScanType: "code", Severity: sev, Title: "secret", RuleID: "r1", FilePath: file, Line: 1, Fingerprint: fp}
}

func depFinding(sev finding.Severity, pkg, version, id string, aliases []string, fp string) finding.Finding {
	return finding.Finding{Scanner: "osv-scanner", ScanType: "dependency", Severity: sev, Title: id + ": vuln in " + pkg, RuleID: id,
		FilePath: "package-lock.json", Line: 1, Fingerprint: fp,
		Metadata: map[string]any{"package": pkg, "version": version, "ecosystem": "npm", "aliases": aliases, "fixed_version": "9.9.9"}}
}

type portfolioItem struct {
	ID          string     `json:"id"`
	Fingerprint string     `json:"fingerprint"`
	Severity    string     `json:"severity"`
	TargetID    int64      `json:"target_id"`
	TargetName  string     `json:"target_name"`
	FirstSeen   time.Time  `json:"first_seen"`
	LastSeen    time.Time  `json:"last_seen"`
	DueAt       *time.Time `json:"due_at"`
	Overdue     bool       `json:"overdue"`
	FilePath    string     `json:"file_path"`
}

type portfolioPage struct {
	Items      []portfolioItem `json:"items"`
	Total      *int            `json:"total"`
	NextCursor *string         `json:"next_cursor"`
}

// allFindings walks every page of a /findings query.
func allFindings(t *testing.T, e *apiEnv, query string, limit int) ([]portfolioItem, int) {
	t.Helper()
	var out []portfolioItem
	cursor := ""
	total := -1
	for pages := 0; ; pages++ {
		q := query + "&limit=" + fmt.Sprint(limit)
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		rec := e.do("GET", "/api/v1/findings?"+q, "")
		e.expectStatus(rec, 200)
		var p portfolioPage
		e.decode(rec, &p)
		if p.Total != nil && total < 0 {
			total = *p.Total
		}
		out = append(out, p.Items...)
		if p.NextCursor == nil || pages > 100 {
			break
		}
		cursor = *p.NextCursor
	}
	return out, total
}

func TestPortfolioTargetsAndFindings(t *testing.T) {
	sla, _ := finding.ParseSLA(finding.DefaultSLA)
	e := newAPIEnv(t, apiEnvOptions{SLA: sla})
	t0 := e.clock.Now()
	log4j := func(fp string) finding.Finding {
		return depFinding(finding.Critical, "log4j-core", "2.14.1", "CVE-2021-44228", []string{"GHSA-jfh8-c2jp-5v3q"}, fp)
	}
	portfolioScan(t, e, "a1", "/src/a", codeFinding(finding.High, "a.go", "fpA1"), codeFinding(finding.Low, "b.go", "fpA2"), log4j("fpA3"))
	portfolioScan(t, e, "b1", "/src/b", codeFinding(finding.Medium, "c.go", "fpB1"))
	e.clock.Advance(10 * 24 * time.Hour)
	t1 := e.clock.Now()
	// a2: fpA2 fixed, fpA4 new, fpA1 and fpA3 survive.
	portfolioScan(t, e, "a2", "/src/a", codeFinding(finding.High, "a.go", "fpA1"), codeFinding(finding.Info, "z.go", "fpA4"), log4j("fpA3"))
	portfolioScan(t, e, "c1", "/src/c", log4j("fpC1"), codeFinding(finding.Critical, "k.go", "fpC2"))
	if _, err := e.store.SetTriage(context.Background(), store.TriageState{Fingerprint: "fpC2", Status: "false_positive"}); err != nil {
		t.Fatal(err)
	}

	t.Run("targets", func(t *testing.T) {
		e := e.with(t)
		rec := e.do("GET", "/api/v1/targets?limit=2", "")
		e.expectStatus(rec, 200)
		var page struct {
			Items []struct {
				ID       int64          `json:"id"`
				Kind     string         `json:"kind"`
				Name     string         `json:"name"`
				Open     map[string]int `json:"open"`
				Overdue  int            `json:"overdue"`
				LatestID *string        `json:"latest_completed_scan_id"`
				Series   []any          `json:"series"`
			} `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		e.decode(rec, &page)
		if len(page.Items) != 2 || page.NextCursor == nil || page.Items[0].Name != "/src/a" || page.Items[0].Kind != "dir" {
			t.Fatalf("first page: %+v", page)
		}
		a := page.Items[0]
		if *a.LatestID != "a2" || a.Open["high"] != 1 || a.Open["critical"] != 1 || a.Open["info"] != 1 || a.Open["low"] != 0 || len(a.Series) != 2 {
			t.Errorf("target a: %+v", a)
		}
		// fpA1 (high, 30 days) first seen t0 is not overdue at t0+10d; the
		// critical log4j (7 days) is.
		if a.Overdue != 1 {
			t.Errorf("target a overdue %d, want 1", a.Overdue)
		}
		rec = e.do("GET", "/api/v1/targets?limit=2&cursor="+url.QueryEscape(*page.NextCursor), "")
		e.expectStatus(rec, 200)
		e.decode(rec, &page)
		if len(page.Items) != 1 || page.Items[0].Name != "/src/c" || page.NextCursor != nil {
			t.Fatalf("second page: %+v", page)
		}
		// fpC2 is a false positive: not open.
		if c := page.Items[0]; c.Open["critical"] != 1 || c.Overdue != 0 {
			t.Errorf("target c: %+v", c)
		}
		rec = e.do("GET", "/api/v1/targets?overdue=true", "")
		e.decode(rec, &page)
		if len(page.Items) != 1 || page.Items[0].Name != "/src/a" {
			t.Errorf("overdue targets: %+v", page.Items)
		}
		rec = e.do("PATCH", fmt.Sprintf("/api/v1/targets/%d", a.ID), `{"labels":{"team":"payments","env":"prod"},"name":"payments api"}`)
		e.expectStatus(rec, 200)
		rec = e.do("GET", "/api/v1/targets?label=team=payments", "")
		e.decode(rec, &page)
		if len(page.Items) != 1 || page.Items[0].Name != "payments api" {
			t.Errorf("label filter: %+v", page.Items)
		}
		recs := auditRecords(t, e, "?action=target.update")
		if len(recs) != 1 || recs[0].ObjectID != fmt.Sprint(a.ID) || recs[0].Changes["name"].After != "payments api" || recs[0].Changes["labels"].Before == nil {
			t.Errorf("audit of the label edit: %+v", recs)
		}
		rec = e.do("PATCH", fmt.Sprintf("/api/v1/targets/%d", a.ID), `{"labels":{"bad key":"x"}}`)
		e.expectStatus(rec, 422)
		if recs := auditRecords(t, e, "?action=target.update"); len(recs) != 1 {
			t.Errorf("a refused edit was audited: %+v", recs)
		}
		e.expectStatus(e.do("GET", "/api/v1/targets/999", ""), 404)
		e.expectStatus(e.do("GET", "/api/v1/targets?kind=vm", ""), 422)
		rec = e.do("GET", fmt.Sprintf("/api/v1/targets/%d", a.ID), "")
		e.expectStatus(rec, 200)
		var detail struct {
			Scans []struct{ ID string } `json:"scans"`
		}
		e.decode(rec, &detail)
		if len(detail.Scans) != 2 || detail.Scans[0].ID != "a2" {
			t.Errorf("scans of a: %+v", detail.Scans)
		}
	})

	t.Run("findings across targets", func(t *testing.T) {
		e := e.with(t)
		all, total := allFindings(t, e, "sort=severity", 2)
		// Open: a2's 3, b1's 1, c1's log4j (fpC2 is a false positive).
		if total != 5 || len(all) != 5 {
			t.Fatalf("total %d, %d rows: %+v", total, len(all), all)
		}
		var order []string
		for _, f := range all {
			order = append(order, f.Fingerprint)
		}
		if got := strings.Join(order, ","); got != "fpA3,fpC1,fpA1,fpB1,fpA4" {
			t.Errorf("severity order %s", got)
		}
		byFP := map[string]portfolioItem{}
		for _, f := range all {
			byFP[f.Fingerprint] = f
		}
		if f := byFP["fpA1"]; !f.FirstSeen.Equal(t0) || !f.LastSeen.Equal(t1) || f.DueAt == nil || !f.DueAt.Equal(t0.Add(30*24*time.Hour)) || f.Overdue {
			t.Errorf("surviving fpA1: %+v", f)
		}
		if f := byFP["fpA3"]; !f.Overdue || !f.FirstSeen.Equal(t0) {
			t.Errorf("log4j on a: %+v", f)
		}
		if f := byFP["fpA4"]; !f.FirstSeen.Equal(t1) || f.DueAt != nil {
			t.Errorf("new info fpA4: %+v", f)
		}
		for _, sort := range []string{"first_seen", "target", "file"} {
			rows, n := allFindings(t, e, "sort="+sort, 2)
			seen := map[string]bool{}
			for _, r := range rows {
				seen[r.TargetName+r.Fingerprint] = true
			}
			if n != 5 || len(rows) != 5 || len(seen) != 5 {
				t.Errorf("sort %s: total %d rows %d distinct %d", sort, n, len(rows), len(seen))
			}
			if sort == "first_seen" && (!rows[0].FirstSeen.Equal(t0) || !rows[4].FirstSeen.Equal(t1)) {
				t.Errorf("first_seen order: %+v", rows)
			}
		}
		for q, want := range map[string]string{
			"advisory=GHSA-JFH8-C2JP-5V3Q":                 "fpA3,fpC1",
			"advisory=CVE-2021-44228":                      "fpA3,fpC1",
			"purl=pkg:maven/log4j-core@2.14.1":             "",
			"purl=pkg:npm/log4j-core@2.14.1":               "fpA3,fpC1",
			"overdue=true":                                 "fpA3",
			"verdict=false_positive":                       "fpC2",
			"severity=high,medium":                         "fpA1,fpB1",
			"first_seen_before=" + t1.Format("2006-01-02"): "fpA3,fpA1,fpB1",
			"label=team=payments":                          "fpA3,fpA1,fpA4",
		} {
			rows, n := allFindings(t, e, q, 50)
			var got []string
			for _, r := range rows {
				got = append(got, r.Fingerprint)
			}
			if strings.Join(got, ",") != want || n != len(rows) {
				t.Errorf("%s: %v (total %d), want %s", q, got, n, want)
			}
		}
		var stats struct {
			Overdue int `json:"overdue"`
			Targets int `json:"targets"`
		}
		e.decode(e.do("GET", "/api/v1/dashboard/stats", ""), &stats)
		if stats.Overdue != 1 || stats.Targets != 3 {
			t.Errorf("dashboard: %+v, want 1 overdue of 3 targets", stats)
		}
		// The findings list of a vulnerability is capped; targets and
		// packages still count every finding.
		var vuln struct {
			Findings          []struct{ Fingerprint string } `json:"findings"`
			FindingsTotal     int                            `json:"findings_total"`
			FindingsTruncated bool                           `json:"findings_truncated"`
			Targets           []struct{ Findings int }       `json:"targets"`
		}
		e.decode(e.do("GET", "/api/v1/vulnerabilities/GHSA-jfh8-c2jp-5v3q?limit=1", ""), &vuln)
		if len(vuln.Findings) != 1 || vuln.FindingsTotal != 2 || !vuln.FindingsTruncated || len(vuln.Targets) != 2 {
			t.Errorf("vulnerability limit=1: %+v", vuln)
		}
		e.decode(e.do("GET", "/api/v1/vulnerabilities/CVE-2021-44228", ""), &vuln)
		if len(vuln.Findings) != 2 || vuln.FindingsTotal != 2 || vuln.FindingsTruncated {
			t.Errorf("vulnerability default limit: %+v", vuln)
		}
		e.expectStatus(e.do("GET", "/api/v1/vulnerabilities/CVE-2021-44228?limit=0", ""), 422)
		e.expectStatus(e.do("GET", "/api/v1/findings?sort=age", ""), 422)
		e.expectStatus(e.do("GET", "/api/v1/findings?cursor=bogus", ""), 422)
		e.expectStatus(e.do("GET", "/api/v1/findings?first_seen_before=yesterday", ""), 422)
	})

	t.Run("console", func(t *testing.T) {
		e := e.with(t)
		rec := e.do("GET", "/ui/targets?label=team%3Dpayments", "")
		e.expectStatus(rec, 200)
		body := rec.Body.String()
		if !strings.Contains(body, "payments api") || strings.Contains(body, "/src/c") || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src") {
			t.Errorf("targets page: %s\nCSP %q", body, rec.Header().Get("Content-Security-Policy"))
		}
		rec = e.do("GET", "/ui/findings?severity=critical", "")
		e.expectStatus(rec, 200)
		body = rec.Body.String()
		if strings.Count(body, ">CVE-2021-44228: vuln in log4j-core</a>") != 2 || !strings.Contains(body, "overdue</span>") || strings.Contains(body, "fpC2") {
			t.Errorf("findings page: %s", body)
		}
		for id, v := range map[string]string{"a2": "4.17.20", "b1": "4.17.21"} {
			comps := `[{"name":"lodash","version":"` + v + `","ecosystem":"npm","purl":"pkg:npm/lodash@` + v + `"}]`
			if err := e.store.SetScanComponents(context.Background(), id, []byte(comps)); err != nil {
				t.Fatal(err)
			}
		}
		rec = e.do("GET", "/ui/components?purl=pkg%3Anpm%2Flodash&version=%3C4.17.21", "")
		e.expectStatus(rec, 200)
		if body := rec.Body.String(); !strings.Contains(body, "pkg:npm/lodash@4.17.20") || strings.Contains(body, "pkg:npm/lodash@4.17.21") ||
			!strings.Contains(body, "payments api") {
			t.Errorf("components page: %s", body)
		}
		rec = e.do("GET", "/ui/vulnerabilities/GHSA-jfh8-c2jp-5v3q", "")
		e.expectStatus(rec, 200)
		if body := rec.Body.String(); !strings.Contains(body, "CVE-2021-44228") || !strings.Contains(body, "payments api") || !strings.Contains(body, "/src/c") ||
			!strings.Contains(body, "9.9.9") {
			t.Errorf("vulnerability page: %s", body)
		}
		e.expectStatus(e.do("GET", "/ui/vulnerabilities/CVE-1999-0001", ""), 404)
		if rec := e.do("GET", "/ui/findings?cursor=forged", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), "expired") {
			t.Errorf("forged cursor: %d", rec.Code)
		}
	})
}
